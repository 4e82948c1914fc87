// RUN: kiln-opt %s --kiln-autodiff | FileCheck %s

// Each kiln.value_and_grad becomes a call of the generated function; ops
// asking for the same gradient share one function, another wrt set gets its
// own (uniquely named) function. The differentiated function is kept.

// CHECK-LABEL: func.func private @loss(
func.func private @loss(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<2xi64>) -> tensor<f32> {
  %0 = kiln.mul %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = kiln.index_select %0, %i {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %2 = kiln.sum %1 {axes = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<f32>
  return %2 : tensor<f32>
}

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>, %[[I:.*]]: tensor<2xi64>)
// CHECK: %[[R:.*]]:2 = call @loss_value_and_grad(%[[A]], %[[B]], %[[I]])
// CHECK: %[[S:.*]]:2 = call @loss_value_and_grad(%[[A]], %[[B]], %[[I]])
// CHECK: %[[T:.*]]:3 = call @loss_value_and_grad_0(%[[A]], %[[B]], %[[I]]) : (tensor<2x3xf32>, tensor<3xf32>, tensor<2xi64>) -> (tensor<f32>, tensor<2x3xf32>, tensor<3xf32>)
// CHECK: return %[[R]]#0, %[[R]]#1, %[[S]]#1, %[[T]]#1
// CHECK-NOT: kiln.value_and_grad
// CHECK-LABEL: func.func private @loss_value_and_grad(
// CHECK-SAME: %{{.*}}: tensor<2x3xf32>, %{{.*}}: tensor<3xf32>, %{{.*}}: tensor<2xi64>) -> (tensor<f32>, tensor<3xf32>)
// CHECK-LABEL: func.func private @loss_value_and_grad_0(
// CHECK-SAME: -> (tensor<f32>, tensor<2x3xf32>, tensor<3xf32>)
func.func @train_step(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<2xi64>) -> (tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>) {
  %l, %gb = kiln.value_and_grad @loss(%a, %b, %i) {wrt = array<i64: 1>} : (tensor<2x3xf32>, tensor<3xf32>, tensor<2xi64>) -> (tensor<f32>, tensor<3xf32>)
  %l2, %gb2 = kiln.value_and_grad @loss(%a, %b, %i) {wrt = array<i64: 1>} : (tensor<2x3xf32>, tensor<3xf32>, tensor<2xi64>) -> (tensor<f32>, tensor<3xf32>)
  %l3, %ga3, %gb3 = kiln.value_and_grad @loss(%a, %b, %i) {wrt = array<i64: 0, 1>} : (tensor<2x3xf32>, tensor<3xf32>, tensor<2xi64>) -> (tensor<f32>, tensor<2x3xf32>, tensor<3xf32>)
  return %l, %gb, %gb2, %ga3 : tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>
}
