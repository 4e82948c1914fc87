// RUN: kiln-opt %s --split-input-file --kiln-autodiff | FileCheck %s

// A kiln.value_and_grad inside a function that is itself differentiated is
// expanded first and its generated gradient inlined there, so the outer
// gradient differentiates through it (second order). The order of the
// functions in the module does not matter: @main comes first here.

// CHECK-LABEL: func.func @main(
// CHECK: call @f_value_and_grad(
// CHECK-LABEL: func.func private @g(
// CHECK-LABEL: func.func private @f(
// CHECK-NOT: kiln.value_and_grad
// CHECK-NOT: call
// CHECK: kiln.exp
// CHECK: return
// The outer gradient: no call and no value_and_grad left anywhere.
// CHECK-LABEL: func.func private @f_value_and_grad(
// CHECK-NOT: kiln.value_and_grad
// CHECK-NOT: call
// CHECK: return
// @g's gradient was only inlined, so it is not kept.
// CHECK-NOT: func.func private @g_value_and_grad
func.func @main(%x: tensor<3xf64>, %v: tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>) {
  %0:2 = kiln.value_and_grad @f(%x, %v) {wrt = array<i64: 0>} : (tensor<3xf64>, tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>)
  return %0#0, %0#1 : tensor<f64>, tensor<3xf64>
}
func.func private @g(%x: tensor<3xf64>) -> tensor<f64> {
  %e = kiln.exp %x : tensor<3xf64>
  %m = kiln.mul %e, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %s = kiln.sum %m {axes = array<i64: 0>} : tensor<3xf64> -> tensor<f64>
  return %s : tensor<f64>
}
func.func private @f(%x: tensor<3xf64>, %v: tensor<3xf64>) -> tensor<f64> {
  %l, %gx = kiln.value_and_grad @g(%x) {wrt = array<i64: 0>} : (tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>)
  %m = kiln.mul %gx, %v : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %s = kiln.sum %m {axes = array<i64: 0>} : tensor<3xf64> -> tensor<f64>
  return %s : tensor<f64>
}

// -----

// A function that is not differentiated keeps the call of the generated
// gradient, which is kept.

// CHECK-LABEL: func.func @step(
// CHECK: call @h_value_and_grad(
// CHECK-LABEL: func.func private @h_value_and_grad(
func.func private @h(%x: tensor<3xf64>) -> tensor<f64> {
  %s = kiln.sum %x {axes = array<i64: 0>} : tensor<3xf64> -> tensor<f64>
  return %s : tensor<f64>
}
func.func @step(%x: tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>) {
  %0:2 = kiln.value_and_grad @h(%x) {wrt = array<i64: 0>} : (tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>)
  return %0#0, %0#1 : tensor<f64>, tensor<3xf64>
}
