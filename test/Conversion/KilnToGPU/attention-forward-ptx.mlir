// REQUIRES: ptxas
// The forward kernels down to PTX through upstream's NVVM pipeline: the
// f16 and bf16 tensor-core kernels and the f32 SIMT kernel, for sm_90 and
// sm_80; ptxas must accept every kernel.
//
// RUN: kiln-opt %s --convert-kiln-attention-to-gpu \
// RUN:   | mlir-opt --one-shot-bufferize="bufferize-function-boundaries=1 function-boundary-type-conversion=identity-layout-map" \
// RUN:   | mlir-opt --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=isa" > %t.sm90.mlir
// RUN: %python %S/Inputs/extract-ptx.py f16_kernel < %t.sm90.mlir > %t.f16.ptx
// RUN: %python %S/Inputs/extract-ptx.py bf16_kernel < %t.sm90.mlir > %t.bf16.ptx
// RUN: %python %S/Inputs/extract-ptx.py f32_kernel < %t.sm90.mlir > %t.f32.ptx
// RUN: FileCheck %s --check-prefix=F16 < %t.f16.ptx
// RUN: FileCheck %s --check-prefix=BF16 < %t.bf16.ptx
// RUN: FileCheck %s --check-prefix=F32 < %t.f32.ptx
// RUN: %ptxas -arch=sm_90 %t.f16.ptx -o %t.o
// RUN: %ptxas -arch=sm_90 %t.bf16.ptx -o %t.o
// RUN: %ptxas -arch=sm_90 %t.f32.ptx -o %t.o
//
// RUN: kiln-opt %s --convert-kiln-attention-to-gpu \
// RUN:   | mlir-opt --one-shot-bufferize="bufferize-function-boundaries=1 function-boundary-type-conversion=identity-layout-map" \
// RUN:   | mlir-opt --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_80 cubin-features=+ptx80 cubin-format=isa" > %t.sm80.mlir
// RUN: %python %S/Inputs/extract-ptx.py f16_kernel < %t.sm80.mlir > %t.f16.sm80.ptx
// RUN: %python %S/Inputs/extract-ptx.py bf16_kernel < %t.sm80.mlir > %t.bf16.sm80.ptx
// RUN: %python %S/Inputs/extract-ptx.py f32_kernel < %t.sm80.mlir > %t.f32.sm80.ptx
// RUN: FileCheck %s --check-prefix=F16 < %t.f16.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.f16.sm80.ptx -o %t.o
// RUN: %ptxas -arch=sm_80 %t.bf16.sm80.ptx -o %t.o
// RUN: %ptxas -arch=sm_80 %t.f32.sm80.ptx -o %t.o

// Sq = Sk = 200: an [Sq, Sk] block would be 40000 elements. Only the K and
// V tiles live in shared memory, as 32-bit words of two halves (K: 64 keys
// x (64 / 2 + 4) words = 9216 bytes; V transposed: 32 columns x (64 / 2 +
// 4) words = 4608); no variable is declared in global memory. Every B
// fragment register is one 32-bit shared load, and K and V are staged 16
// bytes per load when they are 16-byte aligned.
// F16-NOT: .global .align
// F16: .shared .align {{[0-9]+}} .b8 {{.*}}[9216];
// F16: .shared .align {{[0-9]+}} .b8 {{.*}}[4608];
// F16-NOT: .global .align
// F16-NOT: ld.shared.b16
// F16-DAG: bar.sync
// F16-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// F16-DAG: ld.shared.b32
// F16-DAG: shfl.sync.bfly
// F16-DAG: ld.global.v4.b32
// F16-DAG: ex2.approx
// F16-NOT: .global .align
// F16-NOT: ld.shared.b16
func.func @f16(%q: tensor<1x2x200x64xf16>, %k: tensor<1x2x200x64xf16>, %v: tensor<1x2x200x32xf16>) -> tensor<1x2x200x32xf16> {
  %o = kiln.attention %q, %k, %v {causal} : tensor<1x2x200x64xf16>, tensor<1x2x200x64xf16>, tensor<1x2x200x32xf16> -> tensor<1x2x200x32xf16>
  return %o : tensor<1x2x200x32xf16>
}

// BF16-NOT: .global .align
// BF16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// BF16-NOT: .global .align
func.func @bf16(%q: tensor<1x2x200x128xbf16>, %k: tensor<1x2x200x128xbf16>, %v: tensor<1x2x200x128xbf16>) -> tensor<1x2x200x128xbf16> {
  %o = kiln.attention %q, %k, %v : tensor<1x2x200x128xbf16>, tensor<1x2x200x128xbf16>, tensor<1x2x200x128xbf16> -> tensor<1x2x200x128xbf16>
  return %o : tensor<1x2x200x128xbf16>
}

// The SIMT kernel: K and V tiles of 64 keys x 64 floats in shared memory;
// the q row, the accumulator and the 64 scores of a tile (3 x 256 bytes) in
// local memory.
// F32-NOT: .global .align
// F32-NOT: mma.sync
// F32: .local .align {{[0-9]+}} .b8 {{.*}}[768];
// F32: .shared .align {{[0-9]+}} .b8 {{.*}}[16384];
// F32: .shared .align {{[0-9]+}} .b8 {{.*}}[16384];
// F32-NOT: mma.sync
// F32: bar.sync
// F32: st.shared
// F32-NOT: .global .align
// F32-NOT: mma.sync
func.func @f32(%q: tensor<1x2x200x64xf32>, %k: tensor<1x2x200x64xf32>, %v: tensor<1x2x200x64xf32>, %m: tensor<200x200xi1>) -> tensor<1x2x200x64xf32> {
  %o = kiln.attention %q, %k, %v mask(%m : tensor<200x200xi1>) : tensor<1x2x200x64xf32>, tensor<1x2x200x64xf32>, tensor<1x2x200x64xf32> -> tensor<1x2x200x64xf32>
  return %o : tensor<1x2x200x64xf32>
}
