// RUN: kiln-opt %s --kiln-raise-attention | FileCheck %s

// Hugging Face's repeat_kv: x[:, :, None, :, :].expand(B, Hkv, R, S, D)
// .reshape(B, Hkv * R, S, D) repeats each kv head R times in a row, so
// repeated head g * R + r is kv head g: exactly what kiln.attention's own
// grouped-query rule (query head h reads kv head h / R) reads from the
// unrepeated K and V.

// Hq = 4 over Hkv = 2, R = 2; the ops' other attributes stay.
func.func @repeat_kv(%q: tensor<1x4x3x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x6xf32>) -> tensor<1x4x3x6xf32> {
  %k5 = kiln.unsqueeze %k {dim = 2 : i64} : tensor<1x2x5x8xf32> -> tensor<1x2x1x5x8xf32>
  %kb = kiln.broadcast_to %k5 : tensor<1x2x1x5x8xf32> -> tensor<1x2x2x5x8xf32>
  %kr = kiln.reshape %kb : tensor<1x2x2x5x8xf32> -> tensor<1x4x5x8xf32>
  %v5 = kiln.unsqueeze %v {dim = 2 : i64} : tensor<1x2x5x6xf32> -> tensor<1x2x1x5x6xf32>
  %vb = kiln.broadcast_to %v5 : tensor<1x2x1x5x6xf32> -> tensor<1x2x2x5x6xf32>
  %vr = kiln.reshape %vb : tensor<1x2x2x5x6xf32> -> tensor<1x4x5x6xf32>
  %o = kiln.attention %q, %kr, %vr {causal, scale = 5.000000e-01 : f64}
      : tensor<1x4x3x8xf32>, tensor<1x4x5x8xf32>, tensor<1x4x5x6xf32> -> tensor<1x4x3x6xf32>
  return %o : tensor<1x4x3x6xf32>
}
// CHECK-LABEL: func.func @repeat_kv
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x4x3x8xf32>, %[[K:[^:]*]]: tensor<1x2x5x8xf32>, %[[V:[^:]*]]: tensor<1x2x5x6xf32>)
// CHECK-NOT: kiln.broadcast_to
// CHECK: %[[O:.*]] = kiln.attention %[[Q]], %[[K]], %[[V]] {causal, scale = 5.000000e-01 : f64} : tensor<1x4x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x6xf32> -> tensor<1x4x3x6xf32>
// CHECK-NEXT: return %[[O]]

// The unsqueeze spelled as a reshape to [B, Hkv, 1, S, D], on top of a
// grouped-query attention (8 query heads over 4 repeated heads over 2 kv
// heads: head h reads h / 2 of the repeated ones, that is kv head h / 4);
// the lse result stays.
func.func @reshape_gqa(%q: tensor<2x8x3x4xf64>, %k: tensor<2x2x5x4xf64>, %v: tensor<2x2x5x4xf64>) -> (tensor<2x8x3x4xf64>, tensor<2x8x3xf64>) {
  %k5 = kiln.reshape %k : tensor<2x2x5x4xf64> -> tensor<2x2x1x5x4xf64>
  %kb = kiln.broadcast_to %k5 : tensor<2x2x1x5x4xf64> -> tensor<2x2x2x5x4xf64>
  %kr = kiln.reshape %kb : tensor<2x2x2x5x4xf64> -> tensor<2x4x5x4xf64>
  %v5 = kiln.reshape %v : tensor<2x2x5x4xf64> -> tensor<2x2x1x5x4xf64>
  %vb = kiln.broadcast_to %v5 : tensor<2x2x1x5x4xf64> -> tensor<2x2x2x5x4xf64>
  %vr = kiln.reshape %vb : tensor<2x2x2x5x4xf64> -> tensor<2x4x5x4xf64>
  %o, %lse = kiln.attention %q, %kr, %vr
      : tensor<2x8x3x4xf64>, tensor<2x4x5x4xf64>, tensor<2x4x5x4xf64> -> tensor<2x8x3x4xf64>, tensor<2x8x3xf64>
  return %o, %lse : tensor<2x8x3x4xf64>, tensor<2x8x3xf64>
}
// CHECK-LABEL: func.func @reshape_gqa
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<2x8x3x4xf64>, %[[K:[^:]*]]: tensor<2x2x5x4xf64>, %[[V:[^:]*]]: tensor<2x2x5x4xf64>)
// CHECK-NOT: kiln.broadcast_to
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] : tensor<2x8x3x4xf64>, tensor<2x2x5x4xf64>, tensor<2x2x5x4xf64> -> tensor<2x8x3x4xf64>, tensor<2x8x3xf64>

// A rank-5 K and V made elsewhere are viewed as rank 4 by a new reshape;
// multi-query (Hkv = 1) is the same rule.
func.func @rank5_source(%q: tensor<1x4x3x4xf32>, %k5: tensor<1x1x1x5x4xf32>, %v5: tensor<1x1x1x5x4xf32>) -> tensor<1x4x3x4xf32> {
  %kb = kiln.broadcast_to %k5 : tensor<1x1x1x5x4xf32> -> tensor<1x1x4x5x4xf32>
  %kr = kiln.reshape %kb : tensor<1x1x4x5x4xf32> -> tensor<1x4x5x4xf32>
  %vb = kiln.broadcast_to %v5 : tensor<1x1x1x5x4xf32> -> tensor<1x1x4x5x4xf32>
  %vr = kiln.reshape %vb : tensor<1x1x4x5x4xf32> -> tensor<1x4x5x4xf32>
  %o = kiln.attention %q, %kr, %vr : tensor<1x4x3x4xf32>, tensor<1x4x5x4xf32>, tensor<1x4x5x4xf32> -> tensor<1x4x3x4xf32>
  return %o : tensor<1x4x3x4xf32>
}
// CHECK-LABEL: func.func @rank5_source
// CHECK-SAME: (%[[Q:[^:]*]]: {{[^,]*}}, %[[K5:[^:]*]]: {{[^,]*}}, %[[V5:[^:]*]]: {{[^)]*}})
// CHECK-DAG: %[[K:.*]] = kiln.reshape %[[K5]] : tensor<1x1x1x5x4xf32> -> tensor<1x1x5x4xf32>
// CHECK-DAG: %[[V:.*]] = kiln.reshape %[[V5]] : tensor<1x1x1x5x4xf32> -> tensor<1x1x5x4xf32>
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] : tensor<1x4x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x4xf32> -> tensor<1x4x3x4xf32>

// The repeat stays when the repeated K is used elsewhere too; the attention
// reads the unrepeated one all the same.
func.func @repeat_also_used(%q: tensor<1x4x3x4xf32>, %k: tensor<1x2x5x4xf32>, %v: tensor<1x2x5x4xf32>) -> (tensor<1x4x3x4xf32>, tensor<1x4x5x4xf32>) {
  %k5 = kiln.unsqueeze %k {dim = 2 : i64} : tensor<1x2x5x4xf32> -> tensor<1x2x1x5x4xf32>
  %kb = kiln.broadcast_to %k5 : tensor<1x2x1x5x4xf32> -> tensor<1x2x2x5x4xf32>
  %kr = kiln.reshape %kb : tensor<1x2x2x5x4xf32> -> tensor<1x4x5x4xf32>
  %v5 = kiln.unsqueeze %v {dim = 2 : i64} : tensor<1x2x5x4xf32> -> tensor<1x2x1x5x4xf32>
  %vb = kiln.broadcast_to %v5 : tensor<1x2x1x5x4xf32> -> tensor<1x2x2x5x4xf32>
  %vr = kiln.reshape %vb : tensor<1x2x2x5x4xf32> -> tensor<1x4x5x4xf32>
  %o = kiln.attention %q, %kr, %vr : tensor<1x4x3x4xf32>, tensor<1x4x5x4xf32>, tensor<1x4x5x4xf32> -> tensor<1x4x3x4xf32>
  return %o, %kr : tensor<1x4x3x4xf32>, tensor<1x4x5x4xf32>
}
// CHECK-LABEL: func.func @repeat_also_used
// CHECK-SAME: (%[[Q:[^:]*]]: {{[^,]*}}, %[[K:[^:]*]]: {{[^,]*}}, %[[V:[^:]*]]: {{[^)]*}})
// CHECK: %[[KR:.*]] = kiln.reshape %{{.*}} : tensor<1x2x2x5x4xf32> -> tensor<1x4x5x4xf32>
// CHECK: %[[O:.*]] = kiln.attention %[[Q]], %[[K]], %[[V]] :
// CHECK: return %[[O]], %[[KR]]

// Near misses: each attention keeps its repeated K and V.

// The repeat on axis 1 interleaves the heads the other way (repeated head
// r * Hkv + g is kv head g, so head h reads kv head h % Hkv).
func.func @negative_axis1(%q: tensor<1x4x3x4xf32>, %k: tensor<1x2x5x4xf32>, %v: tensor<1x2x5x4xf32>) -> tensor<1x4x3x4xf32> {
  %k5 = kiln.unsqueeze %k {dim = 1 : i64} : tensor<1x2x5x4xf32> -> tensor<1x1x2x5x4xf32>
  %kb = kiln.broadcast_to %k5 : tensor<1x1x2x5x4xf32> -> tensor<1x2x2x5x4xf32>
  %kr = kiln.reshape %kb : tensor<1x2x2x5x4xf32> -> tensor<1x4x5x4xf32>
  %v5 = kiln.unsqueeze %v {dim = 1 : i64} : tensor<1x2x5x4xf32> -> tensor<1x1x2x5x4xf32>
  %vb = kiln.broadcast_to %v5 : tensor<1x1x2x5x4xf32> -> tensor<1x2x2x5x4xf32>
  %vr = kiln.reshape %vb : tensor<1x2x2x5x4xf32> -> tensor<1x4x5x4xf32>
  %o = kiln.attention %q, %kr, %vr : tensor<1x4x3x4xf32>, tensor<1x4x5x4xf32>, tensor<1x4x5x4xf32> -> tensor<1x4x3x4xf32>
  return %o : tensor<1x4x3x4xf32>
}
// CHECK-LABEL: func.func @negative_axis1
// CHECK: %[[KR:.*]] = kiln.reshape %{{.*}} : tensor<1x2x2x5x4xf32> -> tensor<1x4x5x4xf32>
// CHECK: %[[VR:.*]] = kiln.reshape %{{.*}} : tensor<1x2x2x5x4xf32> -> tensor<1x4x5x4xf32>
// CHECK: kiln.attention %{{.*}}, %[[KR]], %[[VR]] : tensor<1x4x3x4xf32>, tensor<1x4x5x4xf32>, tensor<1x4x5x4xf32>

// K repeats 2 kv heads twice, V one kv head four times.
func.func @negative_different_r(%q: tensor<1x4x3x4xf32>, %k: tensor<1x2x5x4xf32>, %v: tensor<1x1x5x4xf32>) -> tensor<1x4x3x4xf32> {
  %k5 = kiln.unsqueeze %k {dim = 2 : i64} : tensor<1x2x5x4xf32> -> tensor<1x2x1x5x4xf32>
  %kb = kiln.broadcast_to %k5 : tensor<1x2x1x5x4xf32> -> tensor<1x2x2x5x4xf32>
  %kr = kiln.reshape %kb : tensor<1x2x2x5x4xf32> -> tensor<1x4x5x4xf32>
  %v5 = kiln.unsqueeze %v {dim = 2 : i64} : tensor<1x1x5x4xf32> -> tensor<1x1x1x5x4xf32>
  %vb = kiln.broadcast_to %v5 : tensor<1x1x1x5x4xf32> -> tensor<1x1x4x5x4xf32>
  %vr = kiln.reshape %vb : tensor<1x1x4x5x4xf32> -> tensor<1x4x5x4xf32>
  %o = kiln.attention %q, %kr, %vr : tensor<1x4x3x4xf32>, tensor<1x4x5x4xf32>, tensor<1x4x5x4xf32> -> tensor<1x4x3x4xf32>
  return %o : tensor<1x4x3x4xf32>
}
// CHECK-LABEL: func.func @negative_different_r
// CHECK: %[[KR:.*]] = kiln.reshape %{{.*}} : tensor<1x2x2x5x4xf32> -> tensor<1x4x5x4xf32>
// CHECK: %[[VR:.*]] = kiln.reshape %{{.*}} : tensor<1x1x4x5x4xf32> -> tensor<1x4x5x4xf32>
// CHECK: kiln.attention %{{.*}}, %[[KR]], %[[VR]] : tensor<1x4x3x4xf32>, tensor<1x4x5x4xf32>, tensor<1x4x5x4xf32>

// The broadcast also expands the batch dim.
func.func @negative_batch_broadcast(%q: tensor<2x4x3x4xf32>, %k: tensor<1x2x5x4xf32>, %v: tensor<1x2x5x4xf32>) -> tensor<2x4x3x4xf32> {
  %k5 = kiln.unsqueeze %k {dim = 2 : i64} : tensor<1x2x5x4xf32> -> tensor<1x2x1x5x4xf32>
  %kb = kiln.broadcast_to %k5 : tensor<1x2x1x5x4xf32> -> tensor<2x2x2x5x4xf32>
  %kr = kiln.reshape %kb : tensor<2x2x2x5x4xf32> -> tensor<2x4x5x4xf32>
  %v5 = kiln.unsqueeze %v {dim = 2 : i64} : tensor<1x2x5x4xf32> -> tensor<1x2x1x5x4xf32>
  %vb = kiln.broadcast_to %v5 : tensor<1x2x1x5x4xf32> -> tensor<2x2x2x5x4xf32>
  %vr = kiln.reshape %vb : tensor<2x2x2x5x4xf32> -> tensor<2x4x5x4xf32>
  %o = kiln.attention %q, %kr, %vr : tensor<2x4x3x4xf32>, tensor<2x4x5x4xf32>, tensor<2x4x5x4xf32> -> tensor<2x4x3x4xf32>
  return %o : tensor<2x4x3x4xf32>
}
// CHECK-LABEL: func.func @negative_batch_broadcast
// CHECK: kiln.attention %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x4x3x4xf32>, tensor<2x4x5x4xf32>, tensor<2x4x5x4xf32>

// The broadcast also expands the kv heads (1 -> 2).
func.func @negative_head_broadcast(%q: tensor<1x4x3x4xf32>, %k: tensor<1x1x5x4xf32>, %v: tensor<1x1x5x4xf32>) -> tensor<1x4x3x4xf32> {
  %k5 = kiln.unsqueeze %k {dim = 2 : i64} : tensor<1x1x5x4xf32> -> tensor<1x1x1x5x4xf32>
  %kb = kiln.broadcast_to %k5 : tensor<1x1x1x5x4xf32> -> tensor<1x2x2x5x4xf32>
  %kr = kiln.reshape %kb : tensor<1x2x2x5x4xf32> -> tensor<1x4x5x4xf32>
  %v5 = kiln.unsqueeze %v {dim = 2 : i64} : tensor<1x1x5x4xf32> -> tensor<1x1x1x5x4xf32>
  %vb = kiln.broadcast_to %v5 : tensor<1x1x1x5x4xf32> -> tensor<1x2x2x5x4xf32>
  %vr = kiln.reshape %vb : tensor<1x2x2x5x4xf32> -> tensor<1x4x5x4xf32>
  %o = kiln.attention %q, %kr, %vr : tensor<1x4x3x4xf32>, tensor<1x4x5x4xf32>, tensor<1x4x5x4xf32> -> tensor<1x4x3x4xf32>
  return %o : tensor<1x4x3x4xf32>
}
// CHECK-LABEL: func.func @negative_head_broadcast
// CHECK: kiln.attention %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x4x3x4xf32>, tensor<1x4x5x4xf32>, tensor<1x4x5x4xf32>

// Only K is repeated.
func.func @negative_only_key(%q: tensor<1x4x3x4xf32>, %k: tensor<1x2x5x4xf32>, %v: tensor<1x4x5x4xf32>) -> tensor<1x4x3x4xf32> {
  %k5 = kiln.unsqueeze %k {dim = 2 : i64} : tensor<1x2x5x4xf32> -> tensor<1x2x1x5x4xf32>
  %kb = kiln.broadcast_to %k5 : tensor<1x2x1x5x4xf32> -> tensor<1x2x2x5x4xf32>
  %kr = kiln.reshape %kb : tensor<1x2x2x5x4xf32> -> tensor<1x4x5x4xf32>
  %o = kiln.attention %q, %kr, %v : tensor<1x4x3x4xf32>, tensor<1x4x5x4xf32>, tensor<1x4x5x4xf32> -> tensor<1x4x3x4xf32>
  return %o : tensor<1x4x3x4xf32>
}
// CHECK-LABEL: func.func @negative_only_key
// CHECK: kiln.attention %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x4x3x4xf32>, tensor<1x4x5x4xf32>, tensor<1x4x5x4xf32>
