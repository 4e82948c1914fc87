// RUN: kiln-opt %s --kiln-lower-to-cpu=outline-kernels=false | FileCheck %s

// Each temporary is freed right after its last user (optimize-allocation-
// liveness after the deallocation pipeline), not at the end of the function
// as ownership-based deallocation leaves it: the chain's peak is two
// temporaries, whatever its length, and the host allocator hands a freed
// block to the next allocation of the step. All through Kiln's host
// allocator (use-generic-functions).

// CHECK-LABEL: llvm.func internal @__kiln_func_chain(
// CHECK: %[[T0:.*]] = llvm.call @_mlir_memref_to_llvm_alloc(
// CHECK: %[[T1:.*]] = llvm.call @_mlir_memref_to_llvm_alloc(
// CHECK: llvm.call @_mlir_memref_to_llvm_free(
// CHECK: %[[T2:.*]] = llvm.call @_mlir_memref_to_llvm_alloc(
// CHECK: llvm.call @_mlir_memref_to_llvm_free(
// CHECK: llvm.call @_mlir_memref_to_llvm_free(
// CHECK-NOT: llvm.call @_mlir_memref_to_llvm_alloc(
// CHECK: llvm.return
// CHECK-NOT: llvm.call @malloc
func.func @chain(%a: tensor<32x32xf32>, %b: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %0 = kiln.matmul %a, %b : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %1 = kiln.matmul %0, %b : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %2 = kiln.matmul %1, %b : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %3 = kiln.matmul %2, %b : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  return %3 : tensor<32x32xf32>
}
