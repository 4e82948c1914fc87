// The libraries kiln-compile writes, which C programs link and python/kiln
// loads with ctypes, hold no MLIR and no LLVM: they load no MLIR or LLVM
// library (ldd) and define no symbol of namespace mlir:: or llvm::, for each
// CPU form the Python package and the tools ask for and for the GPU emulator
// (scripts/check-one-mlir.py --no-mlir; issue #27). --target=cuda:
// Integration/GPU/aot-cuda.mlir.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-compile %s -o %t/libgeneric.so
// RUN: kiln-compile %s --mcpu native --opt-level 3 -o %t/libnative.so
// RUN: kiln-compile %s --openmp -o %t/libopenmp.so
// RUN: kiln-compile %s --target=cuda-emulator -o %t/libemulator.so
// RUN: %python %kiln_src_root/scripts/check-one-mlir.py --no-mlir %t/libgeneric.so %t/libnative.so %t/libopenmp.so %t/libemulator.so | FileCheck %s
// CHECK: ok   libgeneric.so: no MLIR or LLVM library loaded or linked in
// CHECK-NEXT: ok   libnative.so: no MLIR or LLVM library loaded or linked in
// CHECK-NEXT: ok   libopenmp.so: no MLIR or LLVM library loaded or linked in
// CHECK-NEXT: ok   libemulator.so: no MLIR or LLVM library loaded or linked in

func.func @scale_sum(%x: tensor<4x8xf32>, %s: tensor<f32>) -> tensor<4xf32> {
  %0 = kiln.mul %x, %s : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %1 = kiln.sum %0 {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
