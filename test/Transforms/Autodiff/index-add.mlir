// RUN: kiln-opt %s --split-input-file --kiln-autodiff=function=f | FileCheck %s

// A gather with rank-2 indices on a middle axis: the indices and the
// adjoint's index dims are flattened to one dim of N = 6, and one
// kiln.index_add on that axis adds the slices into zeros.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[X:.*]]: tensor<2x5x3xf64>, %[[I:.*]]: tensor<2x3xi32>, %[[W:.*]]: tensor<2x2x3x3xf64>)
// CHECK-NOT: kiln.iota
// CHECK-NOT: kiln.matmul
// CHECK: %[[S:.*]] = kiln.reshape %[[G:.*]] : tensor<2x2x3x3xf64> -> tensor<2x6x3xf64>
// CHECK: %[[FLAT:.*]] = kiln.reshape %[[I]] : tensor<2x3xi32> -> tensor<6xi32>
// CHECK: %[[Z:.*]] = kiln.constant dense<0.000000e+00> : tensor<2x5x3xf64>
// CHECK: %[[D:.*]] = kiln.index_add %[[Z]], %[[FLAT]], %[[S]] {axis = 1 : i64} : (tensor<2x5x3xf64>, tensor<6xi32>, tensor<2x6x3xf64>) -> tensor<2x5x3xf64>
// CHECK: return %{{.*}}, %[[D]]
func.func @f(%x: tensor<2x5x3xf64>, %i: tensor<2x3xi32>, %w: tensor<2x2x3x3xf64>) -> tensor<f64> {
  %0 = kiln.gather %x, %i {axis = 1 : i64} : (tensor<2x5x3xf64>, tensor<2x3xi32>) -> tensor<2x2x3x3xf64>
  %1 = kiln.mul %0, %w : (tensor<2x2x3x3xf64>, tensor<2x2x3x3xf64>) -> tensor<2x2x3x3xf64>
  %2 = kiln.sum %1 {axes = array<i64: 0, 1, 2, 3>} : tensor<2x2x3x3xf64> -> tensor<f64>
  return %2 : tensor<f64>
}

// -----

// index_select's adjoint is index_add on the same axis, with no reshape.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>, %[[I:.*]]: tensor<3xi64>)
// CHECK: %[[Z:.*]] = kiln.constant dense<0.000000e+00> : tensor<2x4xf32>
// CHECK: %[[D:.*]] = kiln.index_add %[[Z]], %[[I]], %{{.*}} {axis = 1 : i64} : (tensor<2x4xf32>, tensor<3xi64>, tensor<2x3xf32>) -> tensor<2x4xf32>
// CHECK: return %{{.*}}, %[[D]]
func.func @f(%x: tensor<2x4xf32>, %i: tensor<3xi64>) -> tensor<f32> {
  %0 = kiln.index_select %x, %i {axis = 1 : i64} : (tensor<2x4xf32>, tensor<3xi64>) -> tensor<2x3xf32>
  %1 = kiln.sum %0 {axes = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

// index_add: d dest = g, d source = index_select(g) with the same indices
// on the same axis; the indices get no adjoint.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[X:.*]]: tensor<5x4xf32>, %[[I:.*]]: tensor<3xi64>, %[[S:.*]]: tensor<3x4xf32>, %[[W:.*]]: tensor<5x4xf32>)
// CHECK: kiln.mul %{{.*}}, %[[W]]
// CHECK: %[[G:.*]] = kiln.mul %{{.*}}, %[[W]]
// CHECK: %[[DS:.*]] = kiln.index_select %[[G]], %[[I]] {axis = 0 : i64} : (tensor<5x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
// CHECK: return %{{.*}}, %[[G]], %[[DS]]
func.func @f(%x: tensor<5x4xf32>, %i: tensor<3xi64>, %s: tensor<3x4xf32>, %w: tensor<5x4xf32>) -> tensor<f32> {
  %0 = kiln.index_add %x, %i, %s {axis = 0 : i64} : (tensor<5x4xf32>, tensor<3xi64>, tensor<3x4xf32>) -> tensor<5x4xf32>
  %1 = kiln.mul %0, %w : (tensor<5x4xf32>, tensor<5x4xf32>) -> tensor<5x4xf32>
  %2 = kiln.sum %1 {axes = array<i64: 0, 1>} : tensor<5x4xf32> -> tensor<f32>
  return %2 : tensor<f32>
}
