// RUN: kiln-opt %s --canonicalize --split-input-file | FileCheck %s

// Reducing only size-1 axes with keep_dims = true is the identity.

// CHECK-LABEL: func.func @sum_unit_axes
// CHECK-SAME: (%[[X:.*]]: tensor<2x1x1xf32>)
// CHECK-NOT: kiln.sum
// CHECK: return %[[X]]
func.func @sum_unit_axes(%x: tensor<2x1x1xf32>) -> tensor<2x1x1xf32> {
  %0 = kiln.sum %x {axes = array<i64: 1, 2>, keep_dims = true} : tensor<2x1x1xf32> -> tensor<2x1x1xf32>
  return %0 : tensor<2x1x1xf32>
}

// -----

// CHECK-LABEL: func.func @mean_unit_axis
// CHECK-SAME: (%[[X:.*]]: tensor<1x3xf32>)
// CHECK-NOT: kiln.mean
// CHECK: return %[[X]]
func.func @mean_unit_axis(%x: tensor<1x3xf32>) -> tensor<1x3xf32> {
  %0 = kiln.mean %x {axes = array<i64: 0>, keep_dims = true} : tensor<1x3xf32> -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

// -----

// CHECK-LABEL: func.func @max_unit_axis
// CHECK-SAME: (%[[X:.*]]: tensor<3x1xi32>)
// CHECK-NOT: kiln.max
// CHECK: return %[[X]]
func.func @max_unit_axis(%x: tensor<3x1xi32>) -> tensor<3x1xi32> {
  %0 = kiln.max %x {axes = array<i64: 1>, keep_dims = true} : tensor<3x1xi32> -> tensor<3x1xi32>
  return %0 : tensor<3x1xi32>
}

// -----

// CHECK-LABEL: func.func @min_unit_axis
// CHECK-SAME: (%[[X:.*]]: tensor<1xf16>)
// CHECK-NOT: kiln.min
// CHECK: return %[[X]]
func.func @min_unit_axis(%x: tensor<1xf16>) -> tensor<1xf16> {
  %0 = kiln.min %x {axes = array<i64: 0>, keep_dims = true} : tensor<1xf16> -> tensor<1xf16>
  return %0 : tensor<1xf16>
}

// -----

// Without keep_dims the result has a different type: a reshape, not x.
// CHECK-LABEL: func.func @negative_sum_unit_axis_dropped
// CHECK: kiln.sum
func.func @negative_sum_unit_axis_dropped(%x: tensor<2x1xf32>) -> tensor<2xf32> {
  %0 = kiln.sum %x {axes = array<i64: 1>} : tensor<2x1xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// One of the reduced axes has size 2.
// CHECK-LABEL: func.func @negative_mean_non_unit_axis
// CHECK: kiln.mean
func.func @negative_mean_non_unit_axis(%x: tensor<1x2xf32>) -> tensor<1x1xf32> {
  %0 = kiln.mean %x {axes = array<i64: 0, 1>, keep_dims = true} : tensor<1x2xf32> -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

// The variance of one element is 0 / (1 - correction), not x: no fold.
// CHECK-LABEL: func.func @negative_variance_unit_axis
// CHECK: kiln.variance
func.func @negative_variance_unit_axis(%x: tensor<3x1xf32>) -> tensor<3x1xf32> {
  %0 = kiln.variance %x {axes = array<i64: 1>, keep_dims = true} : tensor<3x1xf32> -> tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}
