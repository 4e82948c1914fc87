// RUN: kiln-opt %s --kiln-lower-to-nvvm="format=isa" | FileCheck %s

// kiln.value_and_grad runs on the GPU as written: kiln-lower-to-nvvm
// expands it first, and the generated gradient function becomes kernels
// like any other. This file is also an instance of kiln.value_and_grad for
// the coverage matrix's CPU and GPU columns (KilnGPUPipelineTests,
// kiln-coverage).

// CHECK-LABEL: llvm.func internal @__kiln_func_main(
// CHECK: llvm.call @__kiln_func_sum_squares_value_and_grad(
// CHECK-LABEL: llvm.func @_mlir_ciface_main(
// CHECK-LABEL: llvm.func @__kiln_func_sum_squares_value_and_grad(
// CHECK: gpu.launch_func

func.func @sum_squares(%x: tensor<3xf32>) -> tensor<f32> {
  %sq = kiln.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = kiln.sum %sq {axes = array<i64: 0>} : tensor<3xf32> -> tensor<f32>
  return %s : tensor<f32>
}

func.func @main(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  %v, %g = kiln.value_and_grad @sum_squares(%x) {wrt = array<i64: 0>}
      : (tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>)
  return %v, %g : tensor<f32>, tensor<3xf32>
}
