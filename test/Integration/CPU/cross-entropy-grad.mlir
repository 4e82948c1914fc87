// cross_entropy's gradient at the labels the forward treats specially.
// Logits 0 over C = 4 classes give p = 0.25, so a counted sample's row is
// p - onehot(label) = 0.25 everywhere but -0.75 at its label.
// - Label 7 is outside [0, 4) and not ignore_index: the forward's loss is
//   NaN, and the gradient row is NaN too, not a finite row that would hide
//   the bad label.
// - Label 4294967297 does not fit the labels' i32 (it is 2^32 + 1): the
//   forward compares labels in i64, so it matches no label and the samples
//   labelled 1 count; the rule once truncated it to 1 and dropped them.
// RUN: kiln-run %s --entry main | FileCheck %s

// CHECK: result0: tensor<f64>
// CHECK-NEXT: [nan]
// CHECK: result1: tensor<3x4xf64>
// CHECK-NEXT: [0.25, -0.75, 0.25, 0.25, nan, nan, nan, nan, -0.75, 0.25, 0.25, 0.25]
// CHECK: result2: tensor<2x4xf64>
// CHECK-NEXT: [0.25, -0.75, 0.25, 0.25, -0.75, 0.25, 0.25, 0.25]

func.func @bad_label(%x: tensor<3x4xf64>, %t: tensor<3xi64>) -> tensor<f64> {
  %l = kiln.cross_entropy %x, %t {reduction = #kiln.reduction<sum>} : (tensor<3x4xf64>, tensor<3xi64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @wide_ignore(%x: tensor<2x4xf64>, %t: tensor<2xi32>) -> tensor<f64> {
  %l = kiln.cross_entropy %x, %t {ignore_index = 4294967297 : i64, reduction = #kiln.reduction<sum>} : (tensor<2x4xf64>, tensor<2xi32>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @main() -> (tensor<f64>, tensor<3x4xf64>, tensor<2x4xf64>) {
  %x = kiln.constant dense<0.0> : tensor<3x4xf64>
  %t = kiln.constant dense<[1, 7, 0]> : tensor<3xi64>
  %l, %g = kiln.value_and_grad @bad_label(%x, %t) {wrt = array<i64: 0>}
      : (tensor<3x4xf64>, tensor<3xi64>) -> (tensor<f64>, tensor<3x4xf64>)
  %x2 = kiln.constant dense<0.0> : tensor<2x4xf64>
  %t2 = kiln.constant dense<[1, 0]> : tensor<2xi32>
  %l2, %g2 = kiln.value_and_grad @wide_ignore(%x2, %t2) {wrt = array<i64: 0>}
      : (tensor<2x4xf64>, tensor<2xi32>) -> (tensor<f64>, tensor<2x4xf64>)
  return %l, %g, %g2 : tensor<f64>, tensor<3x4xf64>, tensor<2x4xf64>
}
