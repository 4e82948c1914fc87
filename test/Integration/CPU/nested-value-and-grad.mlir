// kiln.value_and_grad nested in a differentiated function: second order as
// written. With g(x) = sum(x^3), grad g = 3x^2, and
//   f(x, v) = sum(grad g(x) * v) = sum(3 x^2 v),   df/dx = 6 x v
// (a Hessian-vector product). At x = [1, 2, -3], v = [1, 0.5, 2]:
// f = 3 (1 + 2 + 18) = 63 and df/dx = [6, 6, -36].
// In h(x, y) = sum(x * grad g(y)), differentiated in x only, the inner
// gradient is inactive: dh/dx = 3 y^2 = [3, 12, 27] at y = x.
// RUN: kiln-run %s --entry main | FileCheck %s

// CHECK: result0: tensor<f64>
// CHECK-NEXT: [63]
// CHECK: result1: tensor<3xf64>
// CHECK-NEXT: [6, 6, -36]
// CHECK: result2: tensor<3xf64>
// CHECK-NEXT: [3, 12, 27]

func.func @main() -> (tensor<f64>, tensor<3xf64>, tensor<3xf64>) {
  %x = kiln.constant dense<[1.0, 2.0, -3.0]> : tensor<3xf64>
  %v = kiln.constant dense<[1.0, 0.5, 2.0]> : tensor<3xf64>
  %f, %df = kiln.value_and_grad @f(%x, %v) {wrt = array<i64: 0>}
      : (tensor<3xf64>, tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>)
  %h, %dh = kiln.value_and_grad @h(%x, %x) {wrt = array<i64: 0>}
      : (tensor<3xf64>, tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>)
  return %f, %df, %dh : tensor<f64>, tensor<3xf64>, tensor<3xf64>
}

func.func private @g(%x: tensor<3xf64>) -> tensor<f64> {
  %x2 = kiln.mul %x, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %x3 = kiln.mul %x2, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %s = kiln.sum %x3 {axes = array<i64: 0>} : tensor<3xf64> -> tensor<f64>
  return %s : tensor<f64>
}

func.func private @f(%x: tensor<3xf64>, %v: tensor<3xf64>) -> tensor<f64> {
  %l, %gx = kiln.value_and_grad @g(%x) {wrt = array<i64: 0>}
      : (tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>)
  %m = kiln.mul %gx, %v : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %s = kiln.sum %m {axes = array<i64: 0>} : tensor<3xf64> -> tensor<f64>
  return %s : tensor<f64>
}

func.func private @h(%x: tensor<3xf64>, %y: tensor<3xf64>) -> tensor<f64> {
  %l, %gy = kiln.value_and_grad @g(%y) {wrt = array<i64: 0>}
      : (tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>)
  %m = kiln.mul %x, %gy : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %s = kiln.sum %m {axes = array<i64: 0>} : tensor<3xf64> -> tensor<f64>
  return %s : tensor<f64>
}
