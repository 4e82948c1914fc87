// A module that asks for gradients in IR runs as written: kiln-lower-to-cpu
// expands kiln.value_and_grad first. sum(x * x) at x = [1, 2, 3] is 14, and
// its gradient 2x is [2, 4, 6].
// RUN: kiln-run %s --entry main --print | FileCheck %s

// CHECK: result0: tensor<f64>
// CHECK-NEXT: [14]
// CHECK: result1: tensor<3xf64>
// CHECK-NEXT: [2, 4, 6]

func.func @sum_squares(%x: tensor<3xf64>) -> tensor<f64> {
  %sq = kiln.mul %x, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %s = kiln.sum %sq {axes = array<i64: 0>} : tensor<3xf64> -> tensor<f64>
  return %s : tensor<f64>
}

func.func @main() -> (tensor<f64>, tensor<3xf64>) {
  %x = kiln.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf64>
  %v, %g = kiln.value_and_grad @sum_squares(%x) {wrt = array<i64: 0>}
      : (tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>)
  return %v, %g : tensor<f64>, tensor<3xf64>
}
