// RUN: kiln-opt %s --kiln-raise-attention | FileCheck %s

// Band terms written with index arithmetic, as PyTorch builds causal and
// sliding-window masks from arange: kiln.iota along the query or key dim
// (after broadcast/reshape), integer constants, add/sub, then a comparison
// of a key index with a query index.

// kv_idx <= q_idx, with the iotas [Sq, 1] and [1, Sk].
func.func @causal_le(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %i = kiln.iota {axis = 0 : i64} : tensor<4x1xi64>
  %j = kiln.iota {axis = 1 : i64} : tensor<1x4xi64>
  %m = kiln.le %j, %i : (tensor<1x4xi64>, tensor<4x1xi64>) -> tensor<4x4xi1>
  %o = kiln.attention %q, %k, %v mask(%m : tensor<4x4xi1>) : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
  return %o : tensor<1x2x4x8xf32>
}
// CHECK-LABEL: func.func @causal_le
// CHECK-SAME: (%[[Q:[^:]*]]: {{[^,]*}}, %[[K:[^:]*]]: {{[^,]*}}, %[[V:[^:]*]]: {{[^)]*}})
// CHECK-NOT: kiln.le
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] {alignment = #kiln.alignment<top_left>, causal} : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>

// The mirrored comparison q_idx >= kv_idx, on rank-4 iotas, i32.
func.func @causal_ge_rank4(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %i = kiln.iota {axis = 2 : i64} : tensor<1x1x4x4xi32>
  %j = kiln.iota {axis = 3 : i64} : tensor<1x1x4x4xi32>
  %m = kiln.ge %i, %j : (tensor<1x1x4x4xi32>, tensor<1x1x4x4xi32>) -> tensor<1x1x4x4xi1>
  %o = kiln.attention %q, %k, %v mask(%m : tensor<1x1x4x4xi1>) : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
  return %o : tensor<1x2x4x8xf32>
}
// CHECK-LABEL: func.func @causal_ge_rank4
// CHECK: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {alignment = #kiln.alignment<top_left>, causal} :

// A sliding window of W = 3 (q_idx - W < kv_idx <= q_idx) and-ed with
// causality and a padding mask [B, 1, 1, Sk]; the query index comes from a
// reshaped and broadcast arange, as torch.export writes
// cache_position[:, None].
func.func @sliding_window_padding(%q: tensor<2x2x6x8xf32>, %k: tensor<2x2x6x8xf32>, %v: tensor<2x2x6x8xf32>, %am: tensor<2x6xi1>) -> tensor<2x2x6x8xf32> {
  %pos = kiln.iota {axis = 0 : i64} : tensor<6xi64>
  %i = kiln.reshape %pos : tensor<6xi64> -> tensor<6x1xi64>
  %j = kiln.iota {axis = 1 : i64} : tensor<1x6xi64>
  %causal = kiln.le %j, %i : (tensor<1x6xi64>, tensor<6x1xi64>) -> tensor<6x6xi1>
  %w = kiln.constant dense<3> : tensor<i64>
  %lo = kiln.sub %i, %w : (tensor<6x1xi64>, tensor<i64>) -> tensor<6x1xi64>
  %window = kiln.gt %j, %lo : (tensor<1x6xi64>, tensor<6x1xi64>) -> tensor<6x6xi1>
  %band = kiln.mul %causal, %window : (tensor<6x6xi1>, tensor<6x6xi1>) -> tensor<6x6xi1>
  %band4 = kiln.broadcast_to %band : tensor<6x6xi1> -> tensor<2x1x6x6xi1>
  %p = kiln.reshape %am : tensor<2x6xi1> -> tensor<2x1x1x6xi1>
  %m = kiln.mul %band4, %p : (tensor<2x1x6x6xi1>, tensor<2x1x1x6xi1>) -> tensor<2x1x6x6xi1>
  %o = kiln.attention %q, %k, %v mask(%m : tensor<2x1x6x6xi1>) : tensor<2x2x6x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x8xf32> -> tensor<2x2x6x8xf32>
  return %o : tensor<2x2x6x8xf32>
}
// CHECK-LABEL: func.func @sliding_window_padding
// CHECK: %[[P:.*]] = kiln.reshape %{{.*}} : tensor<2x6xi1> -> tensor<2x1x1x6xi1>
// CHECK: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} mask(%[[P]] : tensor<2x1x1x6xi1>) {alignment = #kiln.alignment<top_left>, causal, window_left = 2 : i64} :

// A query position offset by the cache length (kv_idx <= q_idx + 3, Sq = 2,
// Sk = 5, the iotas converted from i32): causal, bottom-right.
func.func @offset_positions(%q: tensor<1x1x2x4xf32>, %k: tensor<1x1x5x4xf32>, %v: tensor<1x1x5x4xf32>) -> tensor<1x1x2x4xf32> {
  %i32 = kiln.iota {axis = 0 : i64} : tensor<2x1xi32>
  %i = kiln.convert %i32 : tensor<2x1xi32> to tensor<2x1xi64>
  %c = kiln.constant dense<3> : tensor<1x1xi64>
  %pos = kiln.add %i, %c : (tensor<2x1xi64>, tensor<1x1xi64>) -> tensor<2x1xi64>
  %j = kiln.iota {axis = 1 : i64} : tensor<1x5xi64>
  %m = kiln.le %j, %pos : (tensor<1x5xi64>, tensor<2x1xi64>) -> tensor<2x5xi1>
  %o = kiln.attention %q, %k, %v mask(%m : tensor<2x5xi1>) : tensor<1x1x2x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x4xf32> -> tensor<1x1x2x4xf32>
  return %o : tensor<1x1x2x4xf32>
}
// CHECK-LABEL: func.func @offset_positions
// CHECK: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {causal} : tensor<1x1x2x4xf32>

// A window to the right only: q_idx <= kv_idx (lt against q_idx + 3, so
// j - i in [0, 2]), written with lt, ge and a float iota.
func.func @window_right(%q: tensor<1x1x5x4xf32>, %k: tensor<1x1x5x4xf32>, %v: tensor<1x1x5x4xf32>) -> tensor<1x1x5x4xf32> {
  %i = kiln.iota {axis = 0 : i64} : tensor<5x1xf32>
  %j = kiln.iota {axis = 1 : i64} : tensor<1x5xf32>
  %three = kiln.constant dense<3.0> : tensor<f32>
  %hi = kiln.add %i, %three : (tensor<5x1xf32>, tensor<f32>) -> tensor<5x1xf32>
  %right = kiln.lt %j, %hi : (tensor<1x5xf32>, tensor<5x1xf32>) -> tensor<5x5xi1>
  %left = kiln.ge %j, %i : (tensor<1x5xf32>, tensor<5x1xf32>) -> tensor<5x5xi1>
  %m = kiln.mul %right, %left : (tensor<5x5xi1>, tensor<5x5xi1>) -> tensor<5x5xi1>
  %o = kiln.attention %q, %k, %v mask(%m : tensor<5x5xi1>) : tensor<1x1x5x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x4xf32> -> tensor<1x1x5x4xf32>
  return %o : tensor<1x1x5x4xf32>
}
// CHECK-LABEL: func.func @window_right
// CHECK: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {alignment = #kiln.alignment<top_left>, window_left = 0 : i64, window_right = 2 : i64} :

// Near misses: the mask stays.

// kv_idx != q_idx is no band.
func.func @negative_ne(%q: tensor<1x1x4x4xf32>, %k: tensor<1x1x4x4xf32>, %v: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %i = kiln.iota {axis = 0 : i64} : tensor<4x1xi64>
  %j = kiln.iota {axis = 1 : i64} : tensor<1x4xi64>
  %m = kiln.ne %j, %i : (tensor<1x4xi64>, tensor<4x1xi64>) -> tensor<4x4xi1>
  %o = kiln.attention %q, %k, %v mask(%m : tensor<4x4xi1>) : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32> -> tensor<1x1x4x4xf32>
  return %o : tensor<1x1x4x4xf32>
}
// CHECK-LABEL: func.func @negative_ne
// CHECK: %[[M:.*]] = kiln.ne
// CHECK: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} mask(%[[M]] : tensor<4x4xi1>) :

// Positions that are not an iota (an argument) prove nothing.
func.func @negative_unknown_positions(%q: tensor<1x1x4x4xf32>, %k: tensor<1x1x4x4xf32>, %v: tensor<1x1x4x4xf32>, %i: tensor<4x1xi64>) -> tensor<1x1x4x4xf32> {
  %j = kiln.iota {axis = 1 : i64} : tensor<1x4xi64>
  %m = kiln.le %j, %i : (tensor<1x4xi64>, tensor<4x1xi64>) -> tensor<4x4xi1>
  %o = kiln.attention %q, %k, %v mask(%m : tensor<4x4xi1>) : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32> -> tensor<1x1x4x4xf32>
  return %o : tensor<1x1x4x4xf32>
}
// CHECK-LABEL: func.func @negative_unknown_positions
// CHECK: %[[M:.*]] = kiln.le
// CHECK: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} mask(%[[M]] : tensor<4x4xi1>) :

// 2 * kv_idx <= q_idx is not j - i against a constant.
func.func @negative_scaled_index(%q: tensor<1x1x4x4xf32>, %k: tensor<1x1x4x4xf32>, %v: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %i = kiln.iota {axis = 0 : i64} : tensor<4x1xi64>
  %j = kiln.iota {axis = 1 : i64} : tensor<1x4xi64>
  %jj = kiln.add %j, %j : (tensor<1x4xi64>, tensor<1x4xi64>) -> tensor<1x4xi64>
  %m = kiln.le %jj, %i : (tensor<1x4xi64>, tensor<4x1xi64>) -> tensor<4x4xi1>
  %o = kiln.attention %q, %k, %v mask(%m : tensor<4x4xi1>) : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32> -> tensor<1x1x4x4xf32>
  return %o : tensor<1x1x4x4xf32>
}
// CHECK-LABEL: func.func @negative_scaled_index
// CHECK: %[[M:.*]] = kiln.le
// CHECK: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} mask(%[[M]] : tensor<4x4xi1>) :

// Both iotas run along the key dim: kv_idx <= kv_idx + 0 holds, but the
// query index is a batch index here (the iota's axis 0 of [2, 1, 1, 4]).
func.func @negative_batch_index(%q: tensor<2x1x4x4xf32>, %k: tensor<2x1x4x4xf32>, %v: tensor<2x1x4x4xf32>) -> tensor<2x1x4x4xf32> {
  %b = kiln.iota {axis = 0 : i64} : tensor<2x1x4x1xi64>
  %j = kiln.iota {axis = 3 : i64} : tensor<1x1x1x4xi64>
  %m = kiln.le %j, %b : (tensor<1x1x1x4xi64>, tensor<2x1x4x1xi64>) -> tensor<2x1x4x4xi1>
  %o = kiln.attention %q, %k, %v mask(%m : tensor<2x1x4x4xi1>) : tensor<2x1x4x4xf32>, tensor<2x1x4x4xf32>, tensor<2x1x4x4xf32> -> tensor<2x1x4x4xf32>
  return %o : tensor<2x1x4x4xf32>
}
// CHECK-LABEL: func.func @negative_batch_index
// CHECK: %[[M:.*]] = kiln.le
// CHECK: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} mask(%[[M]] : tensor<2x1x4x4xi1>) :

// An i8 index expression that could wrap (kv_idx + 120 for Sk = 16).
func.func @negative_may_wrap(%q: tensor<1x1x16x4xf32>, %k: tensor<1x1x16x4xf32>, %v: tensor<1x1x16x4xf32>) -> tensor<1x1x16x4xf32> {
  %i = kiln.iota {axis = 0 : i64} : tensor<16x1xi8>
  %j = kiln.iota {axis = 1 : i64} : tensor<1x16xi8>
  %c = kiln.constant dense<120> : tensor<i8>
  %jc = kiln.add %j, %c : (tensor<1x16xi8>, tensor<i8>) -> tensor<1x16xi8>
  %ic = kiln.add %i, %c : (tensor<16x1xi8>, tensor<i8>) -> tensor<16x1xi8>
  %m = kiln.le %jc, %ic : (tensor<1x16xi8>, tensor<16x1xi8>) -> tensor<16x16xi1>
  %o = kiln.attention %q, %k, %v mask(%m : tensor<16x16xi1>) : tensor<1x1x16x4xf32>, tensor<1x1x16x4xf32>, tensor<1x1x16x4xf32> -> tensor<1x1x16x4xf32>
  return %o : tensor<1x1x16x4xf32>
}
// CHECK-LABEL: func.func @negative_may_wrap
// CHECK: %[[M:.*]] = kiln.le
// CHECK: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} mask(%[[M]] : tensor<16x16xi1>) :
