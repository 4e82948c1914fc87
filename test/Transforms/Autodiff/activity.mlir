// RUN: kiln-opt %s --split-input-file --kiln-autodiff="function=f wrt=0" | FileCheck %s

// Only the wrt argument's path is active: sin(%y) is computed by the forward
// but gets no backward (no cos), exp(%x) does not reach the loss (no
// adjoint), and the rule-less arith.addf on the inactive %y is no error.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
// CHECK: %[[S:.*]] = kiln.sin %[[Y]]
// CHECK: kiln.exp %[[X]]
// CHECK: arith.addf %[[Y]], %[[Y]]
// CHECK: %[[G:.*]] = kiln.broadcast_to
// CHECK-NEXT: %[[D:.*]] = kiln.mul %[[G]], %[[S]]
// CHECK-NEXT: return %{{.*}}, %[[D]]
// CHECK-NOT: kiln.cos
func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<f32> {
  %s = kiln.sin %y : tensor<4xf32>
  %e = kiln.exp %x : tensor<4xf32>
  %r = arith.addf %y, %y : tensor<4xf32>
  %m = kiln.mul %x, %s : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %l = kiln.sum %m {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Integer values are inactive by type: the loss goes through argmax and an
// integer conversion and back, so the gradient is a symbolic zero,
// materialized only at the return.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>) -> (tensor<f32>, tensor<2x3xf32>)
// CHECK: kiln.argmax
// CHECK-NOT: kiln.mul
// CHECK: %[[Z:.*]] = kiln.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT: return %{{.*}}, %[[Z]]
func.func @f(%x: tensor<2x3xf32>) -> tensor<f32> {
  %i = kiln.argmax %x {axis = 1 : i64} : tensor<2x3xf32> -> tensor<2xi64>
  %c = kiln.convert %i : tensor<2xi64> to tensor<2xf32>
  %l = kiln.sum %c {axes = array<i64: 0>} : tensor<2xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Fan-out: %x has three uses; their contributions are summed with kiln.add
// in reverse program order.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[X:.*]]: tensor<3xf64>, %{{.*}}: tensor<3xf64>)
// CHECK: %[[S:.*]] = kiln.sin %[[X]]
// CHECK: %[[M:.*]] = kiln.mul %[[X]], %[[S]]
// CHECK: %[[A:.*]] = kiln.add %[[M]], %[[X]]
// CHECK: %[[G:.*]] = kiln.broadcast_to
// CHECK: %[[DXM:.*]] = kiln.mul %[[G]], %[[S]]
// CHECK: %[[DS:.*]] = kiln.mul %[[G]], %[[X]]
// CHECK: %[[ACC1:.*]] = kiln.add %[[G]], %[[DXM]]
// CHECK: %[[COS:.*]] = kiln.cos %[[X]]
// CHECK: %[[DXS:.*]] = kiln.mul %[[DS]], %[[COS]]
// CHECK: %[[ACC2:.*]] = kiln.add %[[ACC1]], %[[DXS]]
// CHECK: return %{{.*}}, %[[ACC2]]
func.func @f(%x: tensor<3xf64>, %unused: tensor<3xf64>) -> tensor<f64> {
  %s = kiln.sin %x : tensor<3xf64>
  %m = kiln.mul %x, %s : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %a = kiln.add %m, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %l = kiln.sum %a {axes = array<i64: 0>} : tensor<3xf64> -> tensor<f64>
  return %l : tensor<f64>
}

// -----

// A function without kiln ops (the pass loads the kiln dialect itself): the
// gradient of the returned argument is the seed.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[X:.*]]: tensor<f32>, %{{.*}}: tensor<f32>) -> (tensor<f32>, tensor<f32>)
// CHECK: %[[ONE:.*]] = kiln.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: return %[[X]], %[[ONE]]
func.func @f(%x: tensor<f32>, %y: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
