// REQUIRES: ptxas
// The PTX of every kernel assembles for sm_90 and sm_80 (ptxas run by hand
// on the extracted PTX), and format=bin (ptxas run by gpu-module-to-binary)
// yields cubins for both.
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-opt %s --kiln-lower-to-nvvm="format=isa" | %python %S/Inputs/extract-ptx.py %t/sm90_
// RUN: for f in %t/sm90_*.ptx; do %ptxas -arch=sm_90 $f -o %t/out.cubin || exit 1; done
// RUN: kiln-opt %s --kiln-lower-to-nvvm="format=isa chip=sm_80 features=+ptx70" | %python %S/Inputs/extract-ptx.py %t/sm80_
// RUN: for f in %t/sm80_*.ptx; do %ptxas -arch=sm_80 $f -o %t/out.cubin || exit 1; done
// RUN: kiln-opt %s --kiln-lower-to-nvvm | FileCheck %s --check-prefix=BIN90
// RUN: kiln-opt %s --kiln-lower-to-nvvm="chip=sm_80 features=+ptx70" | FileCheck %s --check-prefix=BIN80

// BIN90: gpu.binary @{{.*}} [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{.*}}, bin = "\7FELF
// BIN80: gpu.binary @{{.*}} [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx70">, properties = {{.*}}, bin = "\7FELF

func.func @block(%x: tensor<4x16xbf16>, %w: tensor<16x16xbf16>, %g: tensor<16xbf16>) -> tensor<4x16xbf16> {
  %0 = kiln.rms_norm %x weight(%g : tensor<16xbf16>) {epsilon = 1.000000e-05 : f64, normalized_rank = 1 : i64} : tensor<4x16xbf16>
  %1 = kiln.matmul %0, %w : (tensor<4x16xbf16>, tensor<16x16xbf16>) -> tensor<4x16xbf16>
  %2 = kiln.gelu %1 : tensor<4x16xbf16>
  %3 = kiln.softmax %2 {axis = 1 : i64} : tensor<4x16xbf16>
  return %3 : tensor<4x16xbf16>
}

func.func @reduce_all(%x: tensor<3x5xf16>) -> tensor<f16> {
  %0 = kiln.sum %x {axes = array<i64: 0, 1>} : tensor<3x5xf16> -> tensor<f16>
  return %0 : tensor<f16>
}

// kiln.index_add: one thread per column, a sequential loop over the indices
// (bf16: widened to f32, accumulated, rounded once).
func.func @index_add(%x: tensor<2x5x3xbf16>, %idx: tensor<4xi32>, %s: tensor<2x4x3xbf16>) -> tensor<2x5x3xbf16> {
  %0 = kiln.index_add %x, %idx, %s {axis = 1 : i64} : (tensor<2x5x3xbf16>, tensor<4xi32>, tensor<2x4x3xbf16>) -> tensor<2x5x3xbf16>
  return %0 : tensor<2x5x3xbf16>
}
