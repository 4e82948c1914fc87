// RUN: kiln-opt %s --kiln-raise-attention | FileCheck %s

// Boolean mask constants that are bands, checked on every element, become
// band attributes in PyTorch's alignment (top_left: query i sits at key i).

// torch.ones(4, 4).tril(): j <= i.
func.func @causal(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %m = kiln.constant dense<[[true, false, false, false], [true, true, false, false], [true, true, true, false], [true, true, true, true]]> : tensor<4x4xi1>
  %o = kiln.attention %q, %k, %v mask(%m : tensor<4x4xi1>) : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
  return %o : tensor<1x2x4x8xf32>
}
// CHECK-LABEL: func.func @causal
// CHECK-SAME: (%[[Q:[^:]*]]: {{[^,]*}}, %[[K:[^:]*]]: {{[^,]*}}, %[[V:[^:]*]]: {{[^)]*}})
// CHECK-NOT: kiln.constant
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] {alignment = #kiln.alignment<top_left>, causal} : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>

// A sliding window of W = 2 keys (i - 2 < j <= i, Mistral's), broadcast
// from [1, 1, 4, 4]: window_left = W - 1 and causal.
func.func @sliding_window(%q: tensor<2x2x4x8xf32>, %k: tensor<2x2x4x8xf32>, %v: tensor<2x2x4x8xf32>) -> tensor<2x2x4x8xf32> {
  %w = kiln.constant dense<[[[[true, false, false, false], [true, true, false, false], [false, true, true, false], [false, false, true, true]]]]> : tensor<1x1x4x4xi1>
  %m = kiln.broadcast_to %w : tensor<1x1x4x4xi1> -> tensor<2x1x4x4xi1>
  %o = kiln.attention %q, %k, %v mask(%m : tensor<2x1x4x4xi1>) : tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32> -> tensor<2x2x4x8xf32>
  return %o : tensor<2x2x4x8xf32>
}
// CHECK-LABEL: func.func @sliding_window
// CHECK-NOT: kiln.broadcast_to
// CHECK: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {alignment = #kiln.alignment<top_left>, causal, window_left = 1 : i64} :

// A causal mask combined with a padding mask, as Hugging Face builds it:
// attention_mask [B, Sk] reshaped to [B, 1, 1, Sk], both broadcast to
// [B, 1, Sq, Sk] and and-ed. The padding term stays as the mask at its own
// shape, [B, 1, 1, Sk], not broadcast over the queries.
func.func @causal_and_padding(%q: tensor<2x2x4x8xf32>, %k: tensor<2x2x4x8xf32>, %v: tensor<2x2x4x8xf32>, %am: tensor<2x4xi1>) -> tensor<2x2x4x8xf32> {
  %c = kiln.constant dense<[[true, false, false, false], [true, true, false, false], [true, true, true, false], [true, true, true, true]]> : tensor<4x4xi1>
  %cb = kiln.broadcast_to %c : tensor<4x4xi1> -> tensor<2x1x4x4xi1>
  %p = kiln.reshape %am : tensor<2x4xi1> -> tensor<2x1x1x4xi1>
  %pb = kiln.broadcast_to %p : tensor<2x1x1x4xi1> -> tensor<2x1x4x4xi1>
  %m = kiln.mul %cb, %pb : (tensor<2x1x4x4xi1>, tensor<2x1x4x4xi1>) -> tensor<2x1x4x4xi1>
  %o = kiln.attention %q, %k, %v mask(%m : tensor<2x1x4x4xi1>) {scale = 1.250000e-01 : f64} : tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32> -> tensor<2x2x4x8xf32>
  return %o : tensor<2x2x4x8xf32>
}
// CHECK-LABEL: func.func @causal_and_padding
// CHECK: %[[P:.*]] = kiln.reshape %{{.*}} : tensor<2x4xi1> -> tensor<2x1x1x4xi1>
// CHECK-NOT: kiln.mul
// CHECK: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} mask(%[[P]] : tensor<2x1x1x4xi1>) {alignment = #kiln.alignment<top_left>, causal, scale = 1.250000e-01 : f64} :

// A padding mask under the prefix slice Hugging Face takes
// (mask[:, :, :, :Sk]) is cut to Sk itself; a [B, 1, 1, Sk] mask that was
// never broadcast is used as it is.
func.func @sliced_padding(%q: tensor<2x2x4x8xf32>, %k: tensor<2x2x4x8xf32>, %v: tensor<2x2x4x8xf32>, %am: tensor<2x1x1x6xi1>) -> tensor<2x2x4x8xf32> {
  %c = kiln.constant dense<[[true, false, false, false, false, false], [true, true, false, false, false, false], [true, true, true, false, false, false], [true, true, true, true, false, false]]> : tensor<4x6xi1>
  %cb = kiln.broadcast_to %c : tensor<4x6xi1> -> tensor<2x1x4x6xi1>
  %m6 = kiln.mul %cb, %am : (tensor<2x1x4x6xi1>, tensor<2x1x1x6xi1>) -> tensor<2x1x4x6xi1>
  %m = kiln.slice %m6 {starts = array<i64: 0, 0, 0, 0>, stops = array<i64: 2, 1, 4, 4>, strides = array<i64: 1, 1, 1, 1>} : tensor<2x1x4x6xi1> -> tensor<2x1x4x4xi1>
  %o = kiln.attention %q, %k, %v mask(%m : tensor<2x1x4x4xi1>) : tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32> -> tensor<2x2x4x8xf32>
  return %o : tensor<2x2x4x8xf32>
}
// CHECK-LABEL: func.func @sliced_padding
// CHECK-SAME: %[[AM:[^:]*]]: tensor<2x1x1x6xi1>)
// CHECK: %[[P:.*]] = kiln.slice %[[AM]] {starts = array<i64: 0, 0, 0, 0>, stops = array<i64: 2, 1, 1, 4>, strides = array<i64: 1, 1, 1, 1>} : tensor<2x1x1x6xi1> -> tensor<2x1x1x4xi1>
// CHECK: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} mask(%[[P]] : tensor<2x1x1x4xi1>) {alignment = #kiln.alignment<top_left>, causal} :

// Decoding with a KV cache, Sq = 2 < Sk = 5: PyTorch's mask lets query i
// see keys j <= i + 3, which is causal in the bottom-right alignment
// (query i sits at key i + Sk - Sq), the form chosen when it gives causal.
func.func @kv_cache(%q: tensor<1x1x2x4xf32>, %k: tensor<1x1x5x4xf32>, %v: tensor<1x1x5x4xf32>) -> tensor<1x1x2x4xf32> {
  %m = kiln.constant dense<[[true, true, true, true, false], [true, true, true, true, true]]> : tensor<2x5xi1>
  %o = kiln.attention %q, %k, %v mask(%m : tensor<2x5xi1>) : tensor<1x1x2x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x4xf32> -> tensor<1x1x2x4xf32>
  return %o : tensor<1x1x2x4xf32>
}
// CHECK-LABEL: func.func @kv_cache
// CHECK: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {causal} : tensor<1x1x2x4xf32>

// The op's own band (causal, bottom-right, Sq = Sk) and a window from the
// mask: j - i in [-1, 0], window_left = 1.
func.func @combine_with_own_band(%q: tensor<1x1x4x4xf32>, %k: tensor<1x1x4x4xf32>, %v: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %w = kiln.constant dense<[[true, true, true, true], [true, true, true, true], [false, true, true, true], [false, false, true, true]]> : tensor<4x4xi1>
  %o = kiln.attention %q, %k, %v mask(%w : tensor<4x4xi1>) {causal} : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32> -> tensor<1x1x4x4xf32>
  return %o : tensor<1x1x4x4xf32>
}
// CHECK-LABEL: func.func @combine_with_own_band
// CHECK: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {causal, window_left = 1 : i64} : tensor<1x1x4x4xf32>

// The op's own bottom-right causal band (Sq = 2, Sk = 5: j <= i + 3) and a
// top-left mask j >= i: together 0 <= j - i <= 3, causal with
// window_left = 3 in the op's alignment.
func.func @combine_alignments(%q: tensor<1x1x2x4xf32>, %k: tensor<1x1x5x4xf32>, %v: tensor<1x1x5x4xf32>) -> tensor<1x1x2x4xf32> {
  %m = kiln.constant dense<[[true, true, true, true, true], [false, true, true, true, true]]> : tensor<2x5xi1>
  %o = kiln.attention %q, %k, %v mask(%m : tensor<2x5xi1>) {causal} : tensor<1x1x2x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x4xf32> -> tensor<1x1x2x4xf32>
  return %o : tensor<1x1x2x4xf32>
}
// CHECK-LABEL: func.func @combine_alignments
// CHECK: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {causal, window_left = 3 : i64} : tensor<1x1x2x4xf32>

// An all-true term is dropped.
func.func @all_true(%q: tensor<1x1x4x4xf32>, %k: tensor<1x1x4x4xf32>, %v: tensor<1x1x4x4xf32>, %am: tensor<1x1x1x4xi1>) -> tensor<1x1x4x4xf32> {
  %t = kiln.constant dense<true> : tensor<4x4xi1>
  %m = kiln.mul %t, %am : (tensor<4x4xi1>, tensor<1x1x1x4xi1>) -> tensor<1x1x4x4xi1>
  %o = kiln.attention %q, %k, %v mask(%m : tensor<1x1x4x4xi1>) : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32> -> tensor<1x1x4x4xf32>
  return %o : tensor<1x1x4x4xf32>
}
// CHECK-LABEL: func.func @all_true
// CHECK-SAME: %[[AM:[^:]*]]: tensor<1x1x1x4xi1>)
// CHECK: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} mask(%[[AM]] : tensor<1x1x1x4xi1>) : tensor<1x1x4x4xf32>

// Near misses: the mask stays.

// Causal except one element.
func.func @negative_not_a_band(%q: tensor<1x1x4x4xf32>, %k: tensor<1x1x4x4xf32>, %v: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %m = kiln.constant dense<[[true, false, false, false], [true, true, false, false], [true, false, true, false], [true, true, true, true]]> : tensor<4x4xi1>
  %o = kiln.attention %q, %k, %v mask(%m : tensor<4x4xi1>) : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32> -> tensor<1x1x4x4xf32>
  return %o : tensor<1x1x4x4xf32>
}
// CHECK-LABEL: func.func @negative_not_a_band
// CHECK: %[[M:.*]] = kiln.constant
// CHECK: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} mask(%[[M]] : tensor<4x4xi1>) :

// A band that differs per batch.
func.func @negative_per_batch(%q: tensor<2x1x2x4xf32>, %k: tensor<2x1x2x4xf32>, %v: tensor<2x1x2x4xf32>) -> tensor<2x1x2x4xf32> {
  %m = kiln.constant dense<[[[[true, false], [true, true]]], [[[true, true], [true, true]]]]> : tensor<2x1x2x2xi1>
  %o = kiln.attention %q, %k, %v mask(%m : tensor<2x1x2x2xi1>) : tensor<2x1x2x4xf32>, tensor<2x1x2x4xf32>, tensor<2x1x2x4xf32> -> tensor<2x1x2x4xf32>
  return %o : tensor<2x1x2x4xf32>
}
// CHECK-LABEL: func.func @negative_per_batch
// CHECK: %[[M:.*]] = kiln.constant
// CHECK: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} mask(%[[M]] : tensor<2x1x2x2xi1>) :

// A causal term and-ed with an unknown [Sq, Sk] mask.
func.func @negative_unknown_dense_term(%q: tensor<1x1x4x4xf32>, %k: tensor<1x1x4x4xf32>, %v: tensor<1x1x4x4xf32>, %x: tensor<4x4xi1>) -> tensor<1x1x4x4xf32> {
  %c = kiln.constant dense<[[true, false, false, false], [true, true, false, false], [true, true, true, false], [true, true, true, true]]> : tensor<4x4xi1>
  %m = kiln.mul %c, %x : (tensor<4x4xi1>, tensor<4x4xi1>) -> tensor<4x4xi1>
  %o = kiln.attention %q, %k, %v mask(%m : tensor<4x4xi1>) : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32> -> tensor<1x1x4x4xf32>
  return %o : tensor<1x1x4x4xf32>
}
// CHECK-LABEL: func.func @negative_unknown_dense_term
// CHECK: %[[M:.*]] = kiln.mul
// CHECK: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} mask(%[[M]] : tensor<4x4xi1>) :

// j < i (the diagonal excluded) needs window_right = -1: not representable
// in either alignment when Sq = Sk.
func.func @negative_strictly_lower(%q: tensor<1x1x3x4xf32>, %k: tensor<1x1x3x4xf32>, %v: tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32> {
  %m = kiln.constant dense<[[false, false, false], [true, false, false], [true, true, false]]> : tensor<3x3xi1>
  %o = kiln.attention %q, %k, %v mask(%m : tensor<3x3xi1>) : tensor<1x1x3x4xf32>, tensor<1x1x3x4xf32>, tensor<1x1x3x4xf32> -> tensor<1x1x3x4xf32>
  return %o : tensor<1x1x3x4xf32>
}
// CHECK-LABEL: func.func @negative_strictly_lower
// CHECK: %[[M:.*]] = kiln.constant
// CHECK: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} mask(%[[M]] : tensor<3x3xi1>) :

// A band-free mask (padding only) is left as it is.
func.func @negative_padding_only(%q: tensor<2x1x4x4xf32>, %k: tensor<2x1x4x4xf32>, %v: tensor<2x1x4x4xf32>, %am: tensor<2x4xi1>) -> tensor<2x1x4x4xf32> {
  %p = kiln.reshape %am : tensor<2x4xi1> -> tensor<2x1x1x4xi1>
  %o = kiln.attention %q, %k, %v mask(%p : tensor<2x1x1x4xi1>) : tensor<2x1x4x4xf32>, tensor<2x1x4x4xf32>, tensor<2x1x4x4xf32> -> tensor<2x1x4x4xf32>
  return %o : tensor<2x1x4x4xf32>
}
// CHECK-LABEL: func.func @negative_padding_only
// CHECK: %[[P:.*]] = kiln.reshape
// CHECK: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} mask(%[[P]] : tensor<2x1x1x4xi1>) :

// The op's top-left causal band (j <= i) and a mask j >= i + 3: no key is
// left, which no band attributes express; the op stays as it is.
func.func @negative_empty_combination(%q: tensor<1x1x2x4xf32>, %k: tensor<1x1x5x4xf32>, %v: tensor<1x1x5x4xf32>) -> tensor<1x1x2x4xf32> {
  %m = kiln.constant dense<[[false, false, false, true, true], [false, false, false, false, true]]> : tensor<2x5xi1>
  %o = kiln.attention %q, %k, %v mask(%m : tensor<2x5xi1>) {alignment = #kiln.alignment<top_left>, causal} : tensor<1x1x2x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x4xf32> -> tensor<1x1x2x4xf32>
  return %o : tensor<1x1x2x4xf32>
}
// CHECK-LABEL: func.func @negative_empty_combination
// CHECK: %[[M:.*]] = kiln.constant
// CHECK: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} mask(%[[M]] : tensor<2x5xi1>) {alignment = #kiln.alignment<top_left>, causal} :
