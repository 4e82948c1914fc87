// RUN: kiln-opt %s --inline --kiln-autodiff | FileCheck %s

// kiln-autodiff does not differentiate through an active call
// (invalid.mlir); `--inline` first removes it: the kiln dialect lets all its
// ops be inlined, and kiln-opt registers func's inliner extension.

// CHECK-LABEL: func.func @main(
// CHECK: call @has_call_value_and_grad(
// CHECK-LABEL: func.func private @has_call_value_and_grad(
// CHECK-NOT: call
// CHECK: kiln.exp
// CHECK: return
func.func private @callee(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = kiln.exp %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func private @has_call(%x: tensor<3xf32>) -> tensor<f32> {
  %0 = func.call @callee(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = kiln.sum %0 {axes = array<i64: 0>} : tensor<3xf32> -> tensor<f32>
  return %1 : tensor<f32>
}
func.func @main(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  %l, %g = kiln.value_and_grad @has_call(%x) {wrt = array<i64: 0>} : (tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>)
  return %l, %g : tensor<f32>, tensor<3xf32>
}
