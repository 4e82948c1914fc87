// RUN: kiln-opt %s --canonicalize --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @broadcast_to_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: kiln.broadcast_to
// CHECK: return %[[X]]
func.func @broadcast_to_same_type(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.broadcast_to %x : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @negative_broadcast_to
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>)
// CHECK: %[[R:.*]] = kiln.broadcast_to %[[X]] : tensor<3xf32> -> tensor<2x3xf32>
// CHECK: return %[[R]]
func.func @negative_broadcast_to(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.broadcast_to %x : tensor<3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_to_splat
// CHECK-NOT: kiln.broadcast_to
// CHECK: %[[C:.*]] = kiln.constant dense<2.000000e+00> : tensor<2x3xf32>
// CHECK: return %[[C]]
func.func @broadcast_to_splat() -> tensor<2x3xf32> {
  %c = kiln.constant dense<2.0> : tensor<3xf32>
  %0 = kiln.broadcast_to %c : tensor<3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_to_broadcast_to
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>)
// CHECK: %[[R:.*]] = kiln.broadcast_to %[[X]] : tensor<3xf32> -> tensor<4x2x3xf32>
// CHECK-NOT: kiln.broadcast_to
// CHECK: return %[[R]]
func.func @broadcast_to_broadcast_to(%x: tensor<3xf32>) -> tensor<4x2x3xf32> {
  %0 = kiln.broadcast_to %x : tensor<3xf32> -> tensor<2x3xf32>
  %1 = kiln.broadcast_to %0 : tensor<2x3xf32> -> tensor<4x2x3xf32>
  return %1 : tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: kiln.reshape
// CHECK: return %[[X]]
func.func @reshape_same_type(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.reshape %x : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @negative_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[R:.*]] = kiln.reshape %[[X]] : tensor<2x3xf32> -> tensor<6xf32>
// CHECK: return %[[R]]
func.func @negative_reshape(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %0 = kiln.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[R:.*]] = kiln.reshape %[[X]] : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK-NOT: kiln.reshape
// CHECK: return %[[R]]
func.func @reshape_reshape(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = kiln.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %1 = kiln.reshape %0 : tensor<6xf32> -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_reshape_round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: kiln.reshape
// CHECK: return %[[X]]
func.func @reshape_reshape_round_trip(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %1 = kiln.reshape %0 : tensor<6xf32> -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_constant
// CHECK-NOT: kiln.reshape
// CHECK: %[[C:.*]] = kiln.constant dense<{{\[}}[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>
// CHECK: return %[[C]]
func.func @reshape_constant() -> tensor<3x2xi32> {
  %c = kiln.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %0 = kiln.reshape %c : tensor<2x3xi32> -> tensor<3x2xi32>
  return %0 : tensor<3x2xi32>
}

// -----

// CHECK-LABEL: func.func @transpose_same_dim
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: kiln.transpose
// CHECK: return %[[X]]
func.func @transpose_same_dim(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.transpose %x {dim0 = 1, dim1 = 1} : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NOT: kiln.transpose
// CHECK: return %[[X]]
func.func @transpose_transpose(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = kiln.transpose %x {dim0 = 0, dim1 = 2} : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
  %1 = kiln.transpose %0 {dim0 = 2, dim1 = 0} : tensor<4x3x2xf32> -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// Swapping dims 0, 1 and then 1, 2 is a rotation, not the identity.
// CHECK-LABEL: func.func @negative_transpose_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[T:.*]] = kiln.transpose %[[X]] {dim0 = 0 : i64, dim1 = 1 : i64}
// CHECK: %[[R:.*]] = kiln.transpose %[[T]] {dim0 = 1 : i64, dim1 = 2 : i64}
// CHECK: return %[[R]]
func.func @negative_transpose_transpose(%x: tensor<2x3x4xf32>) -> tensor<3x4x2xf32> {
  %0 = kiln.transpose %x {dim0 = 0, dim1 = 1} : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %1 = kiln.transpose %0 {dim0 = 1, dim1 = 2} : tensor<3x2x4xf32> -> tensor<3x4x2xf32>
  return %1 : tensor<3x4x2xf32>
}

// -----

// CHECK-LABEL: func.func @permute_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NOT: kiln.permute
// CHECK: return %[[X]]
func.func @permute_identity(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = kiln.permute %x {permutation = array<i64: 0, 1, 2>} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @negative_permute
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[R:.*]] = kiln.permute %[[X]] {permutation = array<i64: 1, 2, 0>}
// CHECK: return %[[R]]
func.func @negative_permute(%x: tensor<2x3x4xf32>) -> tensor<3x4x2xf32> {
  %0 = kiln.permute %x {permutation = array<i64: 1, 2, 0>} : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  return %0 : tensor<3x4x2xf32>
}

// -----

// Dim i of the result is dim inner[outer[i]] of x: [1, 2, 0][[0, 2, 1][i]].
// CHECK-LABEL: func.func @permute_permute
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[R:.*]] = kiln.permute %[[X]] {permutation = array<i64: 1, 0, 2>} : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
// CHECK-NOT: kiln.permute
// CHECK: return %[[R]]
func.func @permute_permute(%x: tensor<2x3x4xf32>) -> tensor<3x2x4xf32> {
  %0 = kiln.permute %x {permutation = array<i64: 1, 2, 0>} : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = kiln.permute %0 {permutation = array<i64: 0, 2, 1>} : tensor<3x4x2xf32> -> tensor<3x2x4xf32>
  return %1 : tensor<3x2x4xf32>
}

// -----

// CHECK-LABEL: func.func @permute_inverse
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NOT: kiln.permute
// CHECK: return %[[X]]
func.func @permute_inverse(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = kiln.permute %x {permutation = array<i64: 1, 2, 0>} : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = kiln.permute %0 {permutation = array<i64: 2, 0, 1>} : tensor<3x4x2xf32> -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @flatten_one_dim
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: kiln.flatten
// CHECK: return %[[X]]
func.func @flatten_one_dim(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.flatten %x {start_dim = 1, end_dim = 1} : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @negative_flatten
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[R:.*]] = kiln.flatten %[[X]]
// CHECK: return %[[R]]
func.func @negative_flatten(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %0 = kiln.flatten %x {start_dim = 0, end_dim = 1} : tensor<2x3xf32> -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

// CHECK-LABEL: func.func @squeeze_unsqueeze
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: kiln.squeeze
// CHECK: return %[[X]]
func.func @squeeze_unsqueeze(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.unsqueeze %x {dim = 1} : tensor<2x3xf32> -> tensor<2x1x3xf32>
  %1 = kiln.squeeze %0 {dims = array<i64: 1>} : tensor<2x1x3xf32> -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// Squeezing another size-1 dim than the inserted one is no round trip.
// CHECK-LABEL: func.func @negative_squeeze_unsqueeze
// CHECK-SAME: (%[[X:.*]]: tensor<1x3xf32>)
// CHECK: %[[U:.*]] = kiln.unsqueeze %[[X]]
// CHECK: %[[R:.*]] = kiln.squeeze %[[U]] {dims = array<i64: 0>}
// CHECK: return %[[R]]
func.func @negative_squeeze_unsqueeze(%x: tensor<1x3xf32>) -> tensor<3x1xf32> {
  %0 = kiln.unsqueeze %x {dim = 2} : tensor<1x3xf32> -> tensor<1x3x1xf32>
  %1 = kiln.squeeze %0 {dims = array<i64: 0>} : tensor<1x3x1xf32> -> tensor<3x1xf32>
  return %1 : tensor<3x1xf32>
}

// -----

// CHECK-LABEL: func.func @concat_single
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: kiln.concat
// CHECK: return %[[X]]
func.func @concat_single(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.concat %x {axis = 0} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @negative_concat
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[R:.*]] = kiln.concat %[[X]], %[[X]]
// CHECK: return %[[R]]
func.func @negative_concat(%x: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %0 = kiln.concat %x, %x {axis = 0} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// CHECK-LABEL: func.func @split_single
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: kiln.split
// CHECK: return %[[X]]
func.func @split_single(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.split %x {axis = 1, split_sizes = array<i64: 3>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @negative_split
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[R:.*]]:2 = kiln.split %[[X]]
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @negative_split(%x: tensor<2x3xf32>) -> (tensor<2x1xf32>, tensor<2x2xf32>) {
  %0:2 = kiln.split %x {axis = 1, split_sizes = array<i64: 1, 2>} : tensor<2x3xf32> -> tensor<2x1xf32>, tensor<2x2xf32>
  return %0#0, %0#1 : tensor<2x1xf32>, tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func.func @slice_full
// CHECK-SAME: (%[[X:.*]]: tensor<2x5xf32>)
// CHECK-NOT: kiln.slice
// CHECK: return %[[X]]
func.func @slice_full(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = kiln.slice %x {starts = array<i64: 0, 0>, stops = array<i64: 2, 5>, strides = array<i64: 1, 1>} : tensor<2x5xf32> -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// A stride larger than a size-1 dim still keeps every element, but the fold
// only matches unit strides.
// CHECK-LABEL: func.func @negative_slice_stride
// CHECK-SAME: (%[[X:.*]]: tensor<2x5xf32>)
// CHECK: %[[R:.*]] = kiln.slice %[[X]]
// CHECK: return %[[R]]
func.func @negative_slice_stride(%x: tensor<2x5xf32>) -> tensor<2x3xf32> {
  %0 = kiln.slice %x {starts = array<i64: 0, 0>, stops = array<i64: 2, 5>, strides = array<i64: 1, 2>} : tensor<2x5xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @negative_slice_partial
// CHECK-SAME: (%[[X:.*]]: tensor<2x5xf32>)
// CHECK: %[[R:.*]] = kiln.slice %[[X]]
// CHECK: return %[[R]]
func.func @negative_slice_partial(%x: tensor<2x5xf32>) -> tensor<2x4xf32> {
  %0 = kiln.slice %x {starts = array<i64: 0, 1>, stops = array<i64: 2, 5>, strides = array<i64: 1, 1>} : tensor<2x5xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func.func @pad_zero
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: kiln.pad
// CHECK: return %[[X]]
func.func @pad_zero(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.pad %x {low = array<i64: 0, 0>, high = array<i64: 0, 0>, value = 5.0} : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @negative_pad
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[R:.*]] = kiln.pad %[[X]]
// CHECK: return %[[R]]
func.func @negative_pad(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %0 = kiln.pad %x {low = array<i64: 0, 0>, high = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// j - i <= 3 holds everywhere in a 3x4 matrix.
// CHECK-LABEL: func.func @tril_keeps_all
// CHECK-SAME: (%[[X:.*]]: tensor<3x4xf32>)
// CHECK-NOT: kiln.tril
// CHECK: return %[[X]]
func.func @tril_keeps_all(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = kiln.tril %x {diagonal = 3} : tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @negative_tril
// CHECK-SAME: (%[[X:.*]]: tensor<3x4xf32>)
// CHECK: %[[R:.*]] = kiln.tril %[[X]] {diagonal = 2 : i64}
// CHECK: return %[[R]]
func.func @negative_tril(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = kiln.tril %x {diagonal = 2} : tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// j - i >= -2 holds everywhere in a 3x4 matrix.
// CHECK-LABEL: func.func @triu_keeps_all
// CHECK-SAME: (%[[X:.*]]: tensor<3x4xf32>)
// CHECK-NOT: kiln.triu
// CHECK: return %[[X]]
func.func @triu_keeps_all(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = kiln.triu %x {diagonal = -2} : tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @negative_triu
// CHECK-SAME: (%[[X:.*]]: tensor<3x4xf32>)
// CHECK: %[[R:.*]] = kiln.triu %[[X]] {diagonal = -1 : i64}
// CHECK: return %[[R]]
func.func @negative_triu(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = kiln.triu %x {diagonal = -1} : tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @triu_empty
// CHECK-SAME: (%[[X:.*]]: tensor<2x0x4xf32>)
// CHECK-NOT: kiln.triu
// CHECK: return %[[X]]
func.func @triu_empty(%x: tensor<2x0x4xf32>) -> tensor<2x0x4xf32> {
  %0 = kiln.triu %x {diagonal = 1} : tensor<2x0x4xf32>
  return %0 : tensor<2x0x4xf32>
}

// -----

// Adding nothing: with no indices index_add is its dest.
// CHECK-LABEL: func.func @index_add_no_indices
// CHECK-SAME: (%[[X:.*]]: tensor<5x4xf32>, %{{.*}}: tensor<0xi64>, %{{.*}}: tensor<0x4xf32>)
// CHECK-NOT: kiln.index_add
// CHECK: return %[[X]]
func.func @index_add_no_indices(%x: tensor<5x4xf32>, %i: tensor<0xi64>, %s: tensor<0x4xf32>) -> tensor<5x4xf32> {
  %0 = kiln.index_add %x, %i, %s {axis = 0} : (tensor<5x4xf32>, tensor<0xi64>, tensor<0x4xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

// CHECK-LABEL: func.func @negative_index_add
// CHECK: %[[R:.*]] = kiln.index_add
// CHECK: return %[[R]]
func.func @negative_index_add(%x: tensor<5x4xf32>, %i: tensor<1xi64>, %s: tensor<1x4xf32>) -> tensor<5x4xf32> {
  %0 = kiln.index_add %x, %i, %s {axis = 0} : (tensor<5x4xf32>, tensor<1xi64>, tensor<1x4xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}
