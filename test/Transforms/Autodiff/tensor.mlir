// RUN: kiln-opt %s --split-input-file --kiln-autodiff=function=f | FileCheck %s

// gather: the adjoint's rows are added into zeros at the indices by one
// kiln.index_add (which clamps them and adds up repeats): O(N x D), no
// one-hot iota or matmul; the integer indices get no adjoint.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf32>, %[[I:.*]]: tensor<2xi64>) -> (tensor<f32>, tensor<4x3xf32>)
// CHECK-NOT: kiln.iota
// CHECK-NOT: kiln.matmul
// CHECK: %[[G:.*]] = kiln.broadcast_to %{{.*}} : tensor<1x1xf32> -> tensor<2x3xf32>
// CHECK: %[[Z:.*]] = kiln.constant dense<0.000000e+00> : tensor<4x3xf32>
// CHECK: %[[D:.*]] = kiln.index_add %[[Z]], %[[I]], %[[G]] {axis = 0 : i64} : (tensor<4x3xf32>, tensor<2xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK-NOT: kiln.iota
// CHECK-NOT: kiln.matmul
// CHECK: return %{{.*}}, %[[D]]
func.func @f(%x: tensor<4x3xf32>, %i: tensor<2xi64>) -> tensor<f32> {
  %0 = kiln.gather %x, %i {axis = 0 : i64} : (tensor<4x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %1 = kiln.sum %0 {axes = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

// A strided slice scatters back: spread by the stride, trim, pad into place.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK: %[[U:.*]] = kiln.unsqueeze %[[G:.*]] {dim = 2 : i64} : tensor<2x3xf32> -> tensor<2x3x1xf32>
// CHECK: %[[P:.*]] = kiln.pad %[[U]] {high = array<i64: 0, 0, 1>, low = array<i64: 0, 0, 0>} : tensor<2x3x1xf32> -> tensor<2x3x2xf32>
// CHECK: %[[M:.*]] = kiln.reshape %[[P]] : tensor<2x3x2xf32> -> tensor<2x6xf32>
// CHECK: %[[T:.*]] = kiln.slice %[[M]] {starts = array<i64: 0, 0>, stops = array<i64: 2, 5>, strides = array<i64: 1, 1>}
// CHECK: %[[D:.*]] = kiln.pad %[[T]] {high = array<i64: 1, 1>, low = array<i64: 1, 1>} : tensor<2x5xf32> -> tensor<4x7xf32>
// CHECK: return %{{.*}}, %[[D]]
func.func @f(%x: tensor<4x7xf32>) -> tensor<f32> {
  %y = kiln.slice %x {starts = array<i64: 1, 1>, stops = array<i64: 3, 7>, strides = array<i64: 1, 2>} : tensor<4x7xf32> -> tensor<2x3xf32>
  %1 = kiln.sum %y {axes = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

// split: pieces that do not reach the loss contribute zeros to the concat.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK: %[[G:.*]] = kiln.broadcast_to %{{.*}} : tensor<1x1xf32> -> tensor<1x2xf32>
// CHECK: %[[Z0:.*]] = kiln.constant dense<0.000000e+00> : tensor<2x2xf32>
// CHECK: %[[Z2:.*]] = kiln.constant dense<0.000000e+00> : tensor<2x2xf32>
// CHECK: %[[D:.*]] = kiln.concat %[[Z0]], %[[G]], %[[Z2]] {axis = 0 : i64}
// CHECK: return %{{.*}}, %[[D]]
func.func @f(%x: tensor<5x2xf32>) -> tensor<f32> {
  %p:3 = kiln.split %x {axis = 0 : i64, split_sizes = array<i64: 2, 1, 2>} : tensor<5x2xf32> -> tensor<2x2xf32>, tensor<1x2xf32>, tensor<2x2xf32>
  %1 = kiln.sum %p#1 {axes = array<i64: 0, 1>} : tensor<1x2xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

// concat: each input's adjoint is its slice; pad: the adjoint is cropped.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x1xf32>)
// CHECK: %[[G:.*]] = kiln.slice %{{.*}} {starts = array<i64: 1, 0>, stops = array<i64: 3, 4>
// CHECK: %[[DA:.*]] = kiln.slice %[[G]] {starts = array<i64: 0, 0>, stops = array<i64: 2, 3>, strides = array<i64: 1, 1>} : tensor<2x4xf32> -> tensor<2x3xf32>
// CHECK: %[[DB:.*]] = kiln.slice %[[G]] {starts = array<i64: 0, 3>, stops = array<i64: 2, 4>, strides = array<i64: 1, 1>} : tensor<2x4xf32> -> tensor<2x1xf32>
// CHECK: return %{{.*}}, %[[DA]], %[[DB]]
func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>) -> tensor<f32> {
  %0 = kiln.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %1 = kiln.pad %0 {low = array<i64: 1, 0>, high = array<i64: 0, 2>} : tensor<2x4xf32> -> tensor<3x6xf32>
  %2 = kiln.sum %1 {axes = array<i64: 0, 1>} : tensor<3x6xf32> -> tensor<f32>
  return %2 : tensor<f32>
}

// -----

// Layout ops: permute by the inverse permutation, transpose back, reshape
// (and flatten, squeeze, unsqueeze) back to the input type.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK: %[[R:.*]] = kiln.reshape %{{.*}} : tensor<4x6xf32> -> tensor<4x3x2xf32>
// CHECK: %[[P:.*]] = kiln.permute %[[R]] {permutation = array<i64: 2, 0, 1>} : tensor<4x3x2xf32> -> tensor<2x4x3xf32>
// CHECK: %[[T:.*]] = kiln.transpose %[[P]] {dim0 = 1 : i64, dim1 = 2 : i64} : tensor<2x4x3xf32> -> tensor<2x3x4xf32>
// CHECK: return %{{.*}}, %[[T]]
func.func @f(%x: tensor<2x3x4xf32>) -> tensor<f32> {
  %0 = kiln.transpose %x {dim0 = 1 : i64, dim1 = 2 : i64} : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
  %1 = kiln.permute %0 {permutation = array<i64: 1, 2, 0>} : tensor<2x4x3xf32> -> tensor<4x3x2xf32>
  %2 = kiln.flatten %1 {start_dim = 1 : i64, end_dim = 2 : i64} : tensor<4x3x2xf32> -> tensor<4x6xf32>
  %3 = kiln.sum %2 {axes = array<i64: 0, 1>} : tensor<4x6xf32> -> tensor<f32>
  return %3 : tensor<f32>
}

// -----

// gather_pages: the result's gradient, cut into its B * M page slices
// ([B, H, M, T, D] -> [B, M, H, T, D] -> [B * M, H, T, D]), is added into
// the pages at the flattened table by one kiln.index_add (which clamps the
// entries as the forward does and adds up a page listed twice).
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[P:.*]]: tensor<5x2x3x4xf32>, %[[T:.*]]: tensor<2x3xi32>)
// CHECK: %[[G5:.*]] = kiln.reshape %{{.*}} : tensor<2x2x9x4xf32> -> tensor<2x2x3x3x4xf32>
// CHECK: %[[GP:.*]] = kiln.permute %[[G5]] {permutation = array<i64: 0, 2, 1, 3, 4>} : tensor<2x2x3x3x4xf32> -> tensor<2x3x2x3x4xf32>
// CHECK: %[[S:.*]] = kiln.reshape %[[GP]] : tensor<2x3x2x3x4xf32> -> tensor<6x2x3x4xf32>
// CHECK: %[[I:.*]] = kiln.reshape %[[T]] : tensor<2x3xi32> -> tensor<6xi32>
// CHECK: %[[Z:.*]] = kiln.constant dense<0.000000e+00> : tensor<5x2x3x4xf32>
// CHECK: %[[D:.*]] = kiln.index_add %[[Z]], %[[I]], %[[S]] {axis = 0 : i64}
// CHECK: return %{{.*}}, %[[D]]
func.func @f(%p: tensor<5x2x3x4xf32>, %t: tensor<2x3xi32>) -> tensor<f32> {
  %0 = kiln.gather_pages %p, %t : (tensor<5x2x3x4xf32>, tensor<2x3xi32>) -> tensor<2x2x9x4xf32>
  %1 = kiln.sum %0 {axes = array<i64: 0, 1, 2, 3>} : tensor<2x2x9x4xf32> -> tensor<f32>
  return %1 : tensor<f32>
}
