// RUN: kiln-opt %s --kiln-raise-attention | FileCheck %s --check-prefixes=CHECK,EXACT
// RUN: kiln-opt %s --kiln-raise-attention="empty-rows-as-zero" | FileCheck %s --check-prefixes=CHECK,EMPTY

// PyTorch's eager attention (Hugging Face's eager_attention_forward):
//   s = matmul(q, k.transpose(2, 3)) * scaling   [/ cap; tanh; * cap]
//   s = s + mask[:, :, :, :Sk]
//   p = softmax(s, dim=-1, dtype=float32).to(q.dtype); dropout(p)
//   o = matmul(p, v)
// becomes one kiln.attention, then the mask and K/V rewrites apply to it.

// Llama, f32: scale, an additive where(causal, 0, finfo.min) mask and
// dropout with p = 0. The finite mask is raised as it is (exactly the same
// function); with empty-rows-as-zero it becomes causal.
func.func @llama(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>, %seed: tensor<i64>) -> tensor<1x2x4x8xf32> {
  %kt = kiln.transpose %k {dim0 = 2 : i64, dim1 = 3 : i64} : tensor<1x2x4x8xf32> -> tensor<1x2x8x4xf32>
  %s = kiln.matmul %q, %kt : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32>
  %c = kiln.constant dense<0.353553385> : tensor<f32>
  %ss = kiln.mul %s, %c : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %i = kiln.iota {axis = 2 : i64} : tensor<1x1x4x1xi64>
  %j = kiln.iota {axis = 3 : i64} : tensor<1x1x1x4xi64>
  %b = kiln.le %j, %i : (tensor<1x1x1x4xi64>, tensor<1x1x4x1xi64>) -> tensor<1x1x4x4xi1>
  %zero = kiln.constant dense<0.0> : tensor<f32>
  %min = kiln.constant dense<-3.40282347E+38> : tensor<f32>
  %m = kiln.select %b, %zero, %min : (tensor<1x1x4x4xi1>, tensor<f32>, tensor<f32>) -> tensor<1x1x4x4xf32>
  %t = kiln.add %ss, %m : (tensor<1x2x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32>
  %p = kiln.softmax %t {axis = 3 : i64} : tensor<1x2x4x4xf32>
  %pd = kiln.dropout %p, %seed {p = 0.0 : f64} : tensor<1x2x4x4xf32>, tensor<i64>
  %o = kiln.matmul %pd, %v : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  return %o : tensor<1x2x4x8xf32>
}
// CHECK-LABEL: func.func @llama
// CHECK-SAME: (%[[Q:[^:]*]]: {{[^,]*}}, %[[K:[^:]*]]: {{[^,]*}}, %[[V:[^:]*]]: {{[^,]*}}, %{{[^:]*}}: tensor<i64>)
// CHECK-NOT: kiln.softmax
// CHECK-NOT: kiln.matmul
// EXACT: %[[M:.*]] = kiln.select
// EXACT: %[[O:.*]] = kiln.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]] : tensor<1x1x4x4xf32>) {scale = 0.35355338454246521 : f64} : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
// EMPTY-NOT: kiln.select
// EMPTY: %[[O:.*]] = kiln.attention %[[Q]], %[[K]], %[[V]] {alignment = #kiln.alignment<top_left>, causal, scale = 0.35355338454246521 : f64} : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
// CHECK-NEXT: return %[[O]]

// Grouped-query attention in eager form: repeat_kv on K and V first, the
// sliced additive mask of Hugging Face (mask[:, :, :, :Sk]), a division by
// sqrt(D) and the bf16 softmax in f32.
func.func @gqa_bf16(%q: tensor<1x4x3x4xbf16>, %k: tensor<1x2x3x4xbf16>, %v: tensor<1x2x3x4xbf16>, %mask: tensor<1x1x3x6xbf16>) -> tensor<1x4x3x4xbf16> {
  %k5 = kiln.unsqueeze %k {dim = 2 : i64} : tensor<1x2x3x4xbf16> -> tensor<1x2x1x3x4xbf16>
  %kb = kiln.broadcast_to %k5 : tensor<1x2x1x3x4xbf16> -> tensor<1x2x2x3x4xbf16>
  %kr = kiln.reshape %kb : tensor<1x2x2x3x4xbf16> -> tensor<1x4x3x4xbf16>
  %v5 = kiln.unsqueeze %v {dim = 2 : i64} : tensor<1x2x3x4xbf16> -> tensor<1x2x1x3x4xbf16>
  %vb = kiln.broadcast_to %v5 : tensor<1x2x1x3x4xbf16> -> tensor<1x2x2x3x4xbf16>
  %vr = kiln.reshape %vb : tensor<1x2x2x3x4xbf16> -> tensor<1x4x3x4xbf16>
  %kt = kiln.transpose %kr {dim0 = 2 : i64, dim1 = 3 : i64} : tensor<1x4x3x4xbf16> -> tensor<1x4x4x3xbf16>
  %s = kiln.matmul %q, %kt : (tensor<1x4x3x4xbf16>, tensor<1x4x4x3xbf16>) -> tensor<1x4x3x3xbf16>
  %two = kiln.constant dense<2.0> : tensor<bf16>
  %ss = kiln.div %s, %two : (tensor<1x4x3x3xbf16>, tensor<bf16>) -> tensor<1x4x3x3xbf16>
  %ms = kiln.slice %mask {starts = array<i64: 0, 0, 0, 0>, stops = array<i64: 1, 1, 3, 3>, strides = array<i64: 1, 1, 1, 1>} : tensor<1x1x3x6xbf16> -> tensor<1x1x3x3xbf16>
  %t = kiln.add %ss, %ms : (tensor<1x4x3x3xbf16>, tensor<1x1x3x3xbf16>) -> tensor<1x4x3x3xbf16>
  %t32 = kiln.convert %t : tensor<1x4x3x3xbf16> to tensor<1x4x3x3xf32>
  %p32 = kiln.softmax %t32 {axis = 3 : i64} : tensor<1x4x3x3xf32>
  %p = kiln.convert %p32 : tensor<1x4x3x3xf32> to tensor<1x4x3x3xbf16>
  %o = kiln.matmul %p, %vr : (tensor<1x4x3x3xbf16>, tensor<1x4x3x4xbf16>) -> tensor<1x4x3x4xbf16>
  return %o : tensor<1x4x3x4xbf16>
}
// CHECK-LABEL: func.func @gqa_bf16
// CHECK-SAME: (%[[Q:[^:]*]]: {{[^,]*}}, %[[K:[^:]*]]: {{[^,]*}}, %[[V:[^:]*]]: {{[^,]*}}, %[[MASK:[^:]*]]: tensor<1x1x3x6xbf16>)
// The mask argument may hold -inf: raised only with empty-rows-as-zero.
// EXACT: kiln.softmax
// EXACT-NOT: kiln.attention
// EMPTY-NOT: kiln.softmax
// EMPTY: %[[MS:.*]] = kiln.slice %[[MASK]]
// EMPTY: kiln.attention %[[Q]], %[[K]], %[[V]] mask(%[[MS]] : tensor<1x1x3x3xbf16>) {scale = 5.000000e-01 : f64} : tensor<1x4x3x4xbf16>, tensor<1x2x3x4xbf16>, tensor<1x2x3x4xbf16> -> tensor<1x4x3x4xbf16>

// Gemma 2: softcap (x / cap, tanh, * cap) between the scale and the mask, no
// mask here; multi-query K and V broadcast by the matmuls; dropout p = 0.1
// with its seed becomes the fused op's dropout (the same Philox draws at
// the same [B, Hq, Sq, Sk] index).
func.func @gemma_softcap_dropout(%q: tensor<2x4x3x8xf32>, %k: tensor<2x1x5x8xf32>, %v: tensor<2x1x5x8xf32>, %seed: tensor<i64>) -> tensor<2x4x3x8xf32> {
  %kt = kiln.transpose %k {dim0 = 3 : i64, dim1 = 2 : i64} : tensor<2x1x5x8xf32> -> tensor<2x1x8x5xf32>
  %s = kiln.matmul %q, %kt : (tensor<2x4x3x8xf32>, tensor<2x1x8x5xf32>) -> tensor<2x4x3x5xf32>
  %c = kiln.constant dense<2.500000e-01> : tensor<1xf32>
  %ss = kiln.mul %c, %s : (tensor<1xf32>, tensor<2x4x3x5xf32>) -> tensor<2x4x3x5xf32>
  %cap = kiln.constant dense<5.0e+01> : tensor<f32>
  %d = kiln.div %ss, %cap : (tensor<2x4x3x5xf32>, tensor<f32>) -> tensor<2x4x3x5xf32>
  %th = kiln.tanh %d : tensor<2x4x3x5xf32>
  %sc = kiln.mul %th, %cap : (tensor<2x4x3x5xf32>, tensor<f32>) -> tensor<2x4x3x5xf32>
  %p = kiln.softmax %sc {axis = 3 : i64} : tensor<2x4x3x5xf32>
  %pd = kiln.dropout %p, %seed {p = 1.000000e-01 : f64} : tensor<2x4x3x5xf32>, tensor<i64>
  %o = kiln.matmul %pd, %v : (tensor<2x4x3x5xf32>, tensor<2x1x5x8xf32>) -> tensor<2x4x3x8xf32>
  return %o : tensor<2x4x3x8xf32>
}
// CHECK-LABEL: func.func @gemma_softcap_dropout
// CHECK-SAME: (%[[Q:[^:]*]]: {{[^,]*}}, %[[K:[^:]*]]: {{[^,]*}}, %[[V:[^:]*]]: {{[^,]*}}, %[[SEED:[^:]*]]: tensor<i64>)
// CHECK-NOT: kiln.tanh
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] seed(%[[SEED]] : tensor<i64>) {dropout_p = 1.000000e-01 : f64, scale = 2.500000e-01 : f64, softcap = 5.000000e+01 : f64} : tensor<2x4x3x8xf32>, tensor<2x1x5x8xf32>, tensor<2x1x5x8xf32> -> tensor<2x4x3x8xf32>

// No scaling op at all: scale = 1 (not the default 1/sqrt(D)); the mask is
// a constant (finite, so raised as it is), then a band: causal.
func.func @unscaled(%q: tensor<1x1x3x4xf64>, %k: tensor<1x1x3x4xf64>, %v: tensor<1x1x3x2xf64>) -> tensor<1x1x3x2xf64> {
  %kt = kiln.permute %k {permutation = array<i64: 0, 1, 3, 2>} : tensor<1x1x3x4xf64> -> tensor<1x1x4x3xf64>
  %s = kiln.matmul %q, %kt : (tensor<1x1x3x4xf64>, tensor<1x1x4x3xf64>) -> tensor<1x1x3x3xf64>
  %m = kiln.constant dense<[[0.0, 0xFFF0000000000000, 0xFFF0000000000000], [0.0, 0.0, 0xFFF0000000000000], [0.0, 0.0, 0.0]]> : tensor<3x3xf64>
  %t = kiln.add %m, %s : (tensor<3x3xf64>, tensor<1x1x3x3xf64>) -> tensor<1x1x3x3xf64>
  %p = kiln.softmax %t {axis = 3 : i64} : tensor<1x1x3x3xf64>
  %o = kiln.matmul %p, %v : (tensor<1x1x3x3xf64>, tensor<1x1x3x2xf64>) -> tensor<1x1x3x2xf64>
  return %o : tensor<1x1x3x2xf64>
}
// CHECK-LABEL: func.func @unscaled
// -inf in the constant: the written-out rows are never all -inf here, but
// only finite masks are raised without the option.
// EXACT: kiln.softmax
// EXACT-NOT: kiln.attention
// EMPTY: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {alignment = #kiln.alignment<top_left>, causal, scale = 1.000000e+00 : f64} : tensor<1x1x3x4xf64>, tensor<1x1x3x4xf64>, tensor<1x1x3x2xf64> -> tensor<1x1x3x2xf64>

// Near misses, with or without the option: the written-out ops stay.

// Softmax over the queries.
func.func @negative_softmax_axis(%q: tensor<1x1x3x4xf32>, %k: tensor<1x1x3x4xf32>, %v: tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32> {
  %kt = kiln.transpose %k {dim0 = 2 : i64, dim1 = 3 : i64} : tensor<1x1x3x4xf32> -> tensor<1x1x4x3xf32>
  %s = kiln.matmul %q, %kt : (tensor<1x1x3x4xf32>, tensor<1x1x4x3xf32>) -> tensor<1x1x3x3xf32>
  %p = kiln.softmax %s {axis = 2 : i64} : tensor<1x1x3x3xf32>
  %o = kiln.matmul %p, %v : (tensor<1x1x3x3xf32>, tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32>
  return %o : tensor<1x1x3x4xf32>
}
// CHECK-LABEL: func.func @negative_softmax_axis
// CHECK: kiln.softmax
// CHECK-NOT: kiln.attention

// A scale that is not a constant.
func.func @negative_scale_argument(%q: tensor<1x1x3x4xf32>, %k: tensor<1x1x3x4xf32>, %v: tensor<1x1x3x4xf32>, %c: tensor<f32>) -> tensor<1x1x3x4xf32> {
  %kt = kiln.transpose %k {dim0 = 2 : i64, dim1 = 3 : i64} : tensor<1x1x3x4xf32> -> tensor<1x1x4x3xf32>
  %s = kiln.matmul %q, %kt : (tensor<1x1x3x4xf32>, tensor<1x1x4x3xf32>) -> tensor<1x1x3x3xf32>
  %ss = kiln.mul %s, %c : (tensor<1x1x3x3xf32>, tensor<f32>) -> tensor<1x1x3x3xf32>
  %p = kiln.softmax %ss {axis = 3 : i64} : tensor<1x1x3x3xf32>
  %o = kiln.matmul %p, %v : (tensor<1x1x3x3xf32>, tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32>
  return %o : tensor<1x1x3x4xf32>
}
// CHECK-LABEL: func.func @negative_scale_argument
// CHECK: kiln.softmax
// CHECK-NOT: kiln.attention

// A scale that is a per-key vector, not a scalar.
func.func @negative_scale_vector(%q: tensor<1x1x3x4xf32>, %k: tensor<1x1x3x4xf32>, %v: tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32> {
  %kt = kiln.transpose %k {dim0 = 2 : i64, dim1 = 3 : i64} : tensor<1x1x3x4xf32> -> tensor<1x1x4x3xf32>
  %s = kiln.matmul %q, %kt : (tensor<1x1x3x4xf32>, tensor<1x1x4x3xf32>) -> tensor<1x1x3x3xf32>
  %c = kiln.constant dense<[0.5, 0.25, 0.5]> : tensor<3xf32>
  %ss = kiln.mul %s, %c : (tensor<1x1x3x3xf32>, tensor<3xf32>) -> tensor<1x1x3x3xf32>
  %p = kiln.softmax %ss {axis = 3 : i64} : tensor<1x1x3x3xf32>
  %o = kiln.matmul %p, %v : (tensor<1x1x3x3xf32>, tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32>
  return %o : tensor<1x1x3x4xf32>
}
// CHECK-LABEL: func.func @negative_scale_vector
// CHECK: kiln.softmax
// CHECK-NOT: kiln.attention

// The mask added before the softcap (kiln.attention adds it after).
func.func @negative_mask_before_softcap(%q: tensor<1x1x3x4xf32>, %k: tensor<1x1x3x4xf32>, %v: tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32> {
  %kt = kiln.transpose %k {dim0 = 2 : i64, dim1 = 3 : i64} : tensor<1x1x3x4xf32> -> tensor<1x1x4x3xf32>
  %s = kiln.matmul %q, %kt : (tensor<1x1x3x4xf32>, tensor<1x1x4x3xf32>) -> tensor<1x1x3x3xf32>
  %m = kiln.constant dense<[[0.0, -1.0, -2.0], [0.0, 0.0, -1.0], [0.0, 0.0, 0.0]]> : tensor<3x3xf32>
  %t = kiln.add %s, %m : (tensor<1x1x3x3xf32>, tensor<3x3xf32>) -> tensor<1x1x3x3xf32>
  %cap = kiln.constant dense<3.0e+01> : tensor<f32>
  %d = kiln.div %t, %cap : (tensor<1x1x3x3xf32>, tensor<f32>) -> tensor<1x1x3x3xf32>
  %th = kiln.tanh %d : tensor<1x1x3x3xf32>
  %sc = kiln.mul %th, %cap : (tensor<1x1x3x3xf32>, tensor<f32>) -> tensor<1x1x3x3xf32>
  %p = kiln.softmax %sc {axis = 3 : i64} : tensor<1x1x3x3xf32>
  %o = kiln.matmul %p, %v : (tensor<1x1x3x3xf32>, tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32>
  return %o : tensor<1x1x3x4xf32>
}
// CHECK-LABEL: func.func @negative_mask_before_softcap
// CHECK: kiln.softmax
// CHECK-NOT: kiln.attention

// An op between the softmax and the second matmul.
func.func @negative_op_after_softmax(%q: tensor<1x1x3x4xf32>, %k: tensor<1x1x3x4xf32>, %v: tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32> {
  %kt = kiln.transpose %k {dim0 = 2 : i64, dim1 = 3 : i64} : tensor<1x1x3x4xf32> -> tensor<1x1x4x3xf32>
  %s = kiln.matmul %q, %kt : (tensor<1x1x3x4xf32>, tensor<1x1x4x3xf32>) -> tensor<1x1x3x3xf32>
  %p = kiln.softmax %s {axis = 3 : i64} : tensor<1x1x3x3xf32>
  %pp = kiln.sqrt %p : tensor<1x1x3x3xf32>
  %o = kiln.matmul %pp, %v : (tensor<1x1x3x3xf32>, tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32>
  return %o : tensor<1x1x3x4xf32>
}
// CHECK-LABEL: func.func @negative_op_after_softmax
// CHECK: kiln.softmax
// CHECK-NOT: kiln.attention

// K given already transposed ([B, H, D, Sk]): the scores are Q·K, not Q·Kᵀ.
func.func @negative_untransposed_key(%q: tensor<1x1x3x4xf32>, %kt: tensor<1x1x4x3xf32>, %v: tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32> {
  %s = kiln.matmul %q, %kt : (tensor<1x1x3x4xf32>, tensor<1x1x4x3xf32>) -> tensor<1x1x3x3xf32>
  %p = kiln.softmax %s {axis = 3 : i64} : tensor<1x1x3x3xf32>
  %o = kiln.matmul %p, %v : (tensor<1x1x3x3xf32>, tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32>
  return %o : tensor<1x1x3x4xf32>
}
// CHECK-LABEL: func.func @negative_untransposed_key
// CHECK: kiln.softmax
// CHECK-NOT: kiln.attention

// The probabilities are also returned (an intermediate with two uses).
func.func @negative_probs_used(%q: tensor<1x1x3x4xf32>, %k: tensor<1x1x3x4xf32>, %v: tensor<1x1x3x4xf32>) -> (tensor<1x1x3x4xf32>, tensor<1x1x3x3xf32>) {
  %kt = kiln.transpose %k {dim0 = 2 : i64, dim1 = 3 : i64} : tensor<1x1x3x4xf32> -> tensor<1x1x4x3xf32>
  %s = kiln.matmul %q, %kt : (tensor<1x1x3x4xf32>, tensor<1x1x4x3xf32>) -> tensor<1x1x3x3xf32>
  %p = kiln.softmax %s {axis = 3 : i64} : tensor<1x1x3x3xf32>
  %o = kiln.matmul %p, %v : (tensor<1x1x3x3xf32>, tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32>
  return %o, %p : tensor<1x1x3x4xf32>, tensor<1x1x3x3xf32>
}
// CHECK-LABEL: func.func @negative_probs_used
// CHECK: kiln.softmax
// CHECK-NOT: kiln.attention

// The softmax in a narrower type than the scores (f32 scores, f16 softmax).
func.func @negative_narrow_softmax(%q: tensor<1x1x3x4xf32>, %k: tensor<1x1x3x4xf32>, %v: tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32> {
  %kt = kiln.transpose %k {dim0 = 2 : i64, dim1 = 3 : i64} : tensor<1x1x3x4xf32> -> tensor<1x1x4x3xf32>
  %s = kiln.matmul %q, %kt : (tensor<1x1x3x4xf32>, tensor<1x1x4x3xf32>) -> tensor<1x1x3x3xf32>
  %s16 = kiln.convert %s : tensor<1x1x3x3xf32> to tensor<1x1x3x3xf16>
  %p16 = kiln.softmax %s16 {axis = 3 : i64} : tensor<1x1x3x3xf16>
  %p = kiln.convert %p16 : tensor<1x1x3x3xf16> to tensor<1x1x3x3xf32>
  %o = kiln.matmul %p, %v : (tensor<1x1x3x3xf32>, tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32>
  return %o : tensor<1x1x3x4xf32>
}
// CHECK-LABEL: func.func @negative_narrow_softmax
// CHECK: kiln.softmax
// CHECK-NOT: kiln.attention

// Only what a rewrite leaves dead is erased: the IR's own dead op and its
// unreachable block stay, the written-out chain goes.
func.func @keeps_unrelated(%q: tensor<1x1x3x4xf32>, %k: tensor<1x1x3x4xf32>, %v: tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32> {
  %dead = kiln.exp %q : tensor<1x1x3x4xf32>
  %kt = kiln.transpose %k {dim0 = 2 : i64, dim1 = 3 : i64} : tensor<1x1x3x4xf32> -> tensor<1x1x4x3xf32>
  %s = kiln.matmul %q, %kt : (tensor<1x1x3x4xf32>, tensor<1x1x4x3xf32>) -> tensor<1x1x3x3xf32>
  %p = kiln.softmax %s {axis = 3 : i64} : tensor<1x1x3x3xf32>
  %o = kiln.matmul %p, %v : (tensor<1x1x3x3xf32>, tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32>
  cf.br ^done(%o : tensor<1x1x3x4xf32>)
^unreachable:
  %n = kiln.neg %q : tensor<1x1x3x4xf32>
  cf.br ^done(%n : tensor<1x1x3x4xf32>)
^done(%r: tensor<1x1x3x4xf32>):
  return %r : tensor<1x1x3x4xf32>
}
// CHECK-LABEL: func.func @keeps_unrelated
// CHECK: kiln.exp
// CHECK-NOT: kiln.transpose
// CHECK-NOT: kiln.softmax
// CHECK: kiln.attention
// CHECK: ^bb1:
// CHECK: kiln.neg
