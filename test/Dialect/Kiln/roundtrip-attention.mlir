// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --emit-bytecode | kiln-opt | FileCheck %s

// Default attributes (bottom_right alignment, dropout_p = 0) are elided.
// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x3x8xf32>, %[[K:.*]]: tensor<2x4x5x8xf32>, %[[V:.*]]: tensor<2x4x5x8xf32>)
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
func.func @plain(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) -> tensor<2x4x3x8xf32> {
  %0 = kiln.attention %q, %k, %v {alignment = #kiln.alignment<bottom_right>, dropout_p = 0.0 : f64}
      : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return %0 : tensor<2x4x3x8xf32>
}

// The example of the op's description.
// CHECK-LABEL: func.func @description_example
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x3x8xf32>, %[[K:.*]]: tensor<2x2x5x8xf32>, %[[V:.*]]: tensor<2x2x5x16xf32>, %[[M:.*]]: tensor<2x1x3x5xi1>, %[[KL:.*]]: tensor<2xi32>)
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]] : tensor<2x1x3x5xi1>) key_lengths(%[[KL]] : tensor<2xi32>) {alignment = #kiln.alignment<top_left>, causal, window_left = 2 : i64} : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x16xf32> -> tensor<2x4x3x16xf32>
func.func @description_example(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x16xf32>,
                               %m: tensor<2x1x3x5xi1>, %kl: tensor<2xi32>) -> tensor<2x4x3x16xf32> {
  %o = kiln.attention %q, %k, %v
         mask(%m : tensor<2x1x3x5xi1>) key_lengths(%kl : tensor<2xi32>)
         {alignment = #kiln.alignment<top_left>, causal, window_left = 2 : i64}
         : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x16xf32>
         -> tensor<2x4x3x16xf32>
  return %o : tensor<2x4x3x16xf32>
}

// CHECK-LABEL: func.func @causal_top_left
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x4x8xf32>, %[[K:.*]]: tensor<1x2x6x8xf32>, %[[V:.*]]: tensor<1x2x6x8xf32>)
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] {alignment = #kiln.alignment<top_left>, causal} : tensor<1x2x4x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32> -> tensor<1x2x4x8xf32>
func.func @causal_top_left(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x6x8xf32>, %v: tensor<1x2x6x8xf32>) -> tensor<1x2x4x8xf32> {
  %0 = kiln.attention %q, %k, %v {causal, alignment = #kiln.alignment<top_left>}
      : tensor<1x2x4x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32> -> tensor<1x2x4x8xf32>
  return %0 : tensor<1x2x4x8xf32>
}

// causal with an explicit window_right = 0 is redundant but valid.
// CHECK-LABEL: func.func @causal_bottom_right
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x4x8xf32>, %[[K:.*]]: tensor<1x2x6x8xf32>, %[[V:.*]]: tensor<1x2x6x8xf32>)
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] {causal, window_right = 0 : i64} : tensor<1x2x4x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32> -> tensor<1x2x4x8xf32>
func.func @causal_bottom_right(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x6x8xf32>, %v: tensor<1x2x6x8xf32>) -> tensor<1x2x4x8xf32> {
  %0 = kiln.attention %q, %k, %v {causal, window_right = 0 : i64}
      : tensor<1x2x4x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32> -> tensor<1x2x4x8xf32>
  return %0 : tensor<1x2x4x8xf32>
}

// Grouped-query attention: 4 query heads over 2 kv heads (R = 2).
// CHECK-LABEL: func.func @gqa
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x3x8xf32>, %[[K:.*]]: tensor<2x2x5x8xf32>, %[[V:.*]]: tensor<2x2x5x8xf32>)
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] {causal} : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32> -> tensor<2x4x3x8xf32>
func.func @gqa(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x8xf32>) -> tensor<2x4x3x8xf32> {
  %0 = kiln.attention %q, %k, %v {causal}
      : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32> -> tensor<2x4x3x8xf32>
  return %0 : tensor<2x4x3x8xf32>
}

// Multi-query attention: one kv head for all 8 query heads.
// CHECK-LABEL: func.func @mqa
// CHECK-SAME: (%[[Q:.*]]: tensor<2x8x1x16xf32>, %[[K:.*]]: tensor<2x1x7x16xf32>, %[[V:.*]]: tensor<2x1x7x16xf32>)
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] : tensor<2x8x1x16xf32>, tensor<2x1x7x16xf32>, tensor<2x1x7x16xf32> -> tensor<2x8x1x16xf32>
func.func @mqa(%q: tensor<2x8x1x16xf32>, %k: tensor<2x1x7x16xf32>, %v: tensor<2x1x7x16xf32>) -> tensor<2x8x1x16xf32> {
  %0 = kiln.attention %q, %k, %v
      : tensor<2x8x1x16xf32>, tensor<2x1x7x16xf32>, tensor<2x1x7x16xf32> -> tensor<2x8x1x16xf32>
  return %0 : tensor<2x8x1x16xf32>
}

// A full-rank boolean mask.
// CHECK-LABEL: func.func @bool_mask
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x3x8xf32>, %[[K:.*]]: tensor<2x4x5x8xf32>, %[[V:.*]]: tensor<2x4x5x8xf32>, %[[M:.*]]: tensor<2x4x3x5xi1>)
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]] : tensor<2x4x3x5xi1>) : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
func.func @bool_mask(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>, %m: tensor<2x4x3x5xi1>) -> tensor<2x4x3x8xf32> {
  %0 = kiln.attention %q, %k, %v mask(%m : tensor<2x4x3x5xi1>)
      : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return %0 : tensor<2x4x3x8xf32>
}

// An additive mask shared by all heads: [2, 1, 3, 3] against [B, Hq, Sq, Sk] = [2, 4, 3, 3].
// CHECK-LABEL: func.func @additive_mask_per_batch
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x3x8xf32>, %[[K:.*]]: tensor<2x4x3x8xf32>, %[[V:.*]]: tensor<2x4x3x8xf32>, %[[M:.*]]: tensor<2x1x3x3xf32>)
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]] : tensor<2x1x3x3xf32>) : tensor<2x4x3x8xf32>, tensor<2x4x3x8xf32>, tensor<2x4x3x8xf32> -> tensor<2x4x3x8xf32>
func.func @additive_mask_per_batch(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x3x8xf32>, %v: tensor<2x4x3x8xf32>, %m: tensor<2x1x3x3xf32>) -> tensor<2x4x3x8xf32> {
  %0 = kiln.attention %q, %k, %v mask(%m : tensor<2x1x3x3xf32>)
      : tensor<2x4x3x8xf32>, tensor<2x4x3x8xf32>, tensor<2x4x3x8xf32> -> tensor<2x4x3x8xf32>
  return %0 : tensor<2x4x3x8xf32>
}

// An additive per-head key bias (ALiBi-like): [1, H, 1, Sk].
// CHECK-LABEL: func.func @additive_mask_per_head
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x3x8xf32>, %[[K:.*]]: tensor<2x2x5x8xf32>, %[[V:.*]]: tensor<2x2x5x8xf32>, %[[M:.*]]: tensor<1x4x1x5xf32>)
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]] : tensor<1x4x1x5xf32>) : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32> -> tensor<2x4x3x8xf32>
func.func @additive_mask_per_head(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x8xf32>, %m: tensor<1x4x1x5xf32>) -> tensor<2x4x3x8xf32> {
  %0 = kiln.attention %q, %k, %v mask(%m : tensor<1x4x1x5xf32>)
      : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32> -> tensor<2x4x3x8xf32>
  return %0 : tensor<2x4x3x8xf32>
}

// A rank-2 [Sq, Sk] mask broadcasts over batch and heads.
// CHECK-LABEL: func.func @rank2_mask
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x3x8xf32>, %[[K:.*]]: tensor<2x4x5x8xf32>, %[[V:.*]]: tensor<2x4x5x8xf32>, %[[M:.*]]: tensor<3x5xi1>)
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]] : tensor<3x5xi1>) : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
func.func @rank2_mask(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>, %m: tensor<3x5xi1>) -> tensor<2x4x3x8xf32> {
  %0 = kiln.attention %q, %k, %v mask(%m : tensor<3x5xi1>)
      : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return %0 : tensor<2x4x3x8xf32>
}

// CHECK-LABEL: func.func @lengths
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x3x8xf32>, %[[K:.*]]: tensor<2x4x5x8xf32>, %[[V:.*]]: tensor<2x4x5x8xf32>, %[[KL:.*]]: tensor<2xi32>, %[[QL:.*]]: tensor<2xi64>)
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] key_lengths(%[[KL]] : tensor<2xi32>) query_lengths(%[[QL]] : tensor<2xi64>) : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] query_lengths(%[[QL]] : tensor<2xi64>) : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
func.func @lengths(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>, %kl: tensor<2xi32>, %ql: tensor<2xi64>) -> (tensor<2x4x3x8xf32>, tensor<2x4x3x8xf32>) {
  %0 = kiln.attention %q, %k, %v key_lengths(%kl : tensor<2xi32>) query_lengths(%ql : tensor<2xi64>)
      : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  %1 = kiln.attention %q, %k, %v query_lengths(%ql : tensor<2xi64>)
      : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return %0, %1 : tensor<2x4x3x8xf32>, tensor<2x4x3x8xf32>
}

// A sliding window: query i sees keys p(i) - 2 ... p(i) + 1.
// CHECK-LABEL: func.func @window
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x6x8xf32>, %[[K:.*]]: tensor<1x2x6x8xf32>, %[[V:.*]]: tensor<1x2x6x8xf32>)
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] {window_left = 2 : i64, window_right = 1 : i64} : tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32> -> tensor<1x2x6x8xf32>
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] {causal, window_left = 0 : i64} : tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32> -> tensor<1x2x6x8xf32>
func.func @window(%q: tensor<1x2x6x8xf32>, %k: tensor<1x2x6x8xf32>, %v: tensor<1x2x6x8xf32>) -> (tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>) {
  %0 = kiln.attention %q, %k, %v {window_left = 2 : i64, window_right = 1 : i64}
      : tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32> -> tensor<1x2x6x8xf32>
  %1 = kiln.attention %q, %k, %v {causal, window_left = 0 : i64}
      : tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32> -> tensor<1x2x6x8xf32>
  return %0, %1 : tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>
}

// CHECK-LABEL: func.func @softcap_and_scale
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x4x8xf32>, %[[K:.*]]: tensor<1x2x4x8xf32>, %[[V:.*]]: tensor<1x2x4x8xf32>)
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] {scale = -1.250000e-01 : f64, softcap = 5.000000e+01 : f64} : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
func.func @softcap_and_scale(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %0 = kiln.attention %q, %k, %v {softcap = 50.0 : f64, scale = -0.125 : f64}
      : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
  return %0 : tensor<1x2x4x8xf32>
}

// CHECK-LABEL: func.func @dropout
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x4x8xf32>, %[[K:.*]]: tensor<1x2x4x8xf32>, %[[V:.*]]: tensor<1x2x4x8xf32>, %[[S:.*]]: tensor<i64>)
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] seed(%[[S]] : tensor<i64>) {dropout_p = 1.000000e-01 : f64} : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
func.func @dropout(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>, %seed: tensor<i64>) -> tensor<1x2x4x8xf32> {
  %0 = kiln.attention %q, %k, %v seed(%seed : tensor<i64>) {dropout_p = 0.1 : f64}
      : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
  return %0 : tensor<1x2x4x8xf32>
}

// The value head dim Dv = 32 differs from Dk = 8; Sq = 3 differs from Sk = 5.
// CHECK-LABEL: func.func @value_head_dim
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x3x8xf32>, %[[K:.*]]: tensor<2x4x5x8xf32>, %[[V:.*]]: tensor<2x4x5x32xf32>)
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x32xf32> -> tensor<2x4x3x32xf32>
func.func @value_head_dim(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x32xf32>) -> tensor<2x4x3x32xf32> {
  %0 = kiln.attention %q, %k, %v
      : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x32xf32> -> tensor<2x4x3x32xf32>
  return %0 : tensor<2x4x3x32xf32>
}

// Zero-size B, Sq and Sk are legal; Sk = 0 makes every row empty.
// CHECK-LABEL: func.func @zero_sizes
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x3x8xf32>, %[[K:.*]]: tensor<2x4x0x8xf32>, %[[V:.*]]: tensor<2x4x0x8xf32>, %[[M:.*]]: tensor<2x1x3x0xi1>, %[[Q0:.*]]: tensor<0x4x0x8xf32>, %[[K0:.*]]: tensor<0x2x5x8xf32>, %[[V0:.*]]: tensor<0x2x5x8xf32>, %[[KL0:.*]]: tensor<0xi32>)
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]] : tensor<2x1x3x0xi1>) {causal} : tensor<2x4x3x8xf32>, tensor<2x4x0x8xf32>, tensor<2x4x0x8xf32> -> tensor<2x4x3x8xf32>
// CHECK: kiln.attention %[[Q0]], %[[K0]], %[[V0]] key_lengths(%[[KL0]] : tensor<0xi32>) : tensor<0x4x0x8xf32>, tensor<0x2x5x8xf32>, tensor<0x2x5x8xf32> -> tensor<0x4x0x8xf32>
func.func @zero_sizes(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x0x8xf32>, %v: tensor<2x4x0x8xf32>, %m: tensor<2x1x3x0xi1>,
                      %q0: tensor<0x4x0x8xf32>, %k0: tensor<0x2x5x8xf32>, %v0: tensor<0x2x5x8xf32>, %kl0: tensor<0xi32>)
    -> (tensor<2x4x3x8xf32>, tensor<0x4x0x8xf32>) {
  %0 = kiln.attention %q, %k, %v mask(%m : tensor<2x1x3x0xi1>) {causal}
      : tensor<2x4x3x8xf32>, tensor<2x4x0x8xf32>, tensor<2x4x0x8xf32> -> tensor<2x4x3x8xf32>
  %1 = kiln.attention %q0, %k0, %v0 key_lengths(%kl0 : tensor<0xi32>)
      : tensor<0x4x0x8xf32>, tensor<0x2x5x8xf32>, tensor<0x2x5x8xf32> -> tensor<0x4x0x8xf32>
  return %0, %1 : tensor<2x4x3x8xf32>, tensor<0x4x0x8xf32>
}

// Half and double precision; an additive mask has the query's element type.
// CHECK-LABEL: func.func @element_types
// CHECK-SAME: (%[[QH:.*]]: tensor<1x2x4x8xf16>, %[[MH:.*]]: tensor<4x4xf16>, %[[QB:.*]]: tensor<1x2x4x8xbf16>, %[[QD:.*]]: tensor<1x2x4x8xf64>)
// CHECK: kiln.attention %[[QH]], %[[QH]], %[[QH]] mask(%[[MH]] : tensor<4x4xf16>) : tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16> -> tensor<1x2x4x8xf16>
// CHECK: kiln.attention %[[QB]], %[[QB]], %[[QB]] {causal} : tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16> -> tensor<1x2x4x8xbf16>
// CHECK: kiln.attention %[[QD]], %[[QD]], %[[QD]] {scale = 2.500000e-01 : f64} : tensor<1x2x4x8xf64>, tensor<1x2x4x8xf64>, tensor<1x2x4x8xf64> -> tensor<1x2x4x8xf64>
func.func @element_types(%qh: tensor<1x2x4x8xf16>, %mh: tensor<4x4xf16>, %qb: tensor<1x2x4x8xbf16>, %qd: tensor<1x2x4x8xf64>)
    -> (tensor<1x2x4x8xf16>, tensor<1x2x4x8xbf16>, tensor<1x2x4x8xf64>) {
  %0 = kiln.attention %qh, %qh, %qh mask(%mh : tensor<4x4xf16>)
      : tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16> -> tensor<1x2x4x8xf16>
  %1 = kiln.attention %qb, %qb, %qb {causal}
      : tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16> -> tensor<1x2x4x8xbf16>
  %2 = kiln.attention %qd, %qd, %qd {scale = 0.25 : f64}
      : tensor<1x2x4x8xf64>, tensor<1x2x4x8xf64>, tensor<1x2x4x8xf64> -> tensor<1x2x4x8xf64>
  return %0, %1, %2 : tensor<1x2x4x8xf16>, tensor<1x2x4x8xbf16>, tensor<1x2x4x8xf64>
}

// Every optional operand and attribute at once.
// CHECK-LABEL: func.func @everything
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x3x8xbf16>, %[[K:.*]]: tensor<2x2x5x8xbf16>, %[[V:.*]]: tensor<2x2x5x4xbf16>, %[[M:.*]]: tensor<1x4x1x5xbf16>, %[[KL:.*]]: tensor<2xi64>, %[[QL:.*]]: tensor<2xi32>, %[[S:.*]]: tensor<i64>)
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]] : tensor<1x4x1x5xbf16>) key_lengths(%[[KL]] : tensor<2xi64>) query_lengths(%[[QL]] : tensor<2xi32>) seed(%[[S]] : tensor<i64>) {alignment = #kiln.alignment<top_left>, causal, dropout_p = 2.500000e-01 : f64, scale = 5.000000e-01 : f64, softcap = 3.000000e+01 : f64, window_left = 3 : i64} : tensor<2x4x3x8xbf16>, tensor<2x2x5x8xbf16>, tensor<2x2x5x4xbf16> -> tensor<2x4x3x4xbf16>
func.func @everything(%q: tensor<2x4x3x8xbf16>, %k: tensor<2x2x5x8xbf16>, %v: tensor<2x2x5x4xbf16>, %m: tensor<1x4x1x5xbf16>,
                      %kl: tensor<2xi64>, %ql: tensor<2xi32>, %seed: tensor<i64>) -> tensor<2x4x3x4xbf16> {
  %0 = kiln.attention %q, %k, %v mask(%m : tensor<1x4x1x5xbf16>) key_lengths(%kl : tensor<2xi64>)
         query_lengths(%ql : tensor<2xi32>) seed(%seed : tensor<i64>)
         {alignment = #kiln.alignment<top_left>, causal, dropout_p = 0.25 : f64, scale = 0.5 : f64,
          softcap = 30.0 : f64, window_left = 3 : i64}
      : tensor<2x4x3x8xbf16>, tensor<2x2x5x8xbf16>, tensor<2x2x5x4xbf16> -> tensor<2x4x3x4xbf16>
  return %0 : tensor<2x4x3x4xbf16>
}

// The optional lse result: [B, Hq, Sq] in the query's type.
// CHECK-LABEL: func.func @with_lse
// CHECK: %{{.*}}, %{{.*}} = kiln.attention %{{.*}}, %{{.*}}, %{{.*}} {causal} : tensor<2x4x3x8xf64>, tensor<2x2x5x8xf64>, tensor<2x2x5x16xf64> -> tensor<2x4x3x16xf64>, tensor<2x4x3xf64>
func.func @with_lse(%q: tensor<2x4x3x8xf64>, %k: tensor<2x2x5x8xf64>, %v: tensor<2x2x5x16xf64>)
    -> (tensor<2x4x3x16xf64>, tensor<2x4x3xf64>) {
  %o, %lse = kiln.attention %q, %k, %v {causal}
      : tensor<2x4x3x8xf64>, tensor<2x2x5x8xf64>, tensor<2x2x5x16xf64> -> tensor<2x4x3x16xf64>, tensor<2x4x3xf64>
  return %o, %lse : tensor<2x4x3x16xf64>, tensor<2x4x3xf64>
}

// Half types keep their lse in f32.
// CHECK-LABEL: func.func @with_lse_f16
// CHECK: kiln.attention {{.*}} -> tensor<1x2x3x4xf16>, tensor<1x2x3xf32>
func.func @with_lse_f16(%q: tensor<1x2x3x4xf16>, %k: tensor<1x1x5x4xf16>, %v: tensor<1x1x5x4xf16>)
    -> (tensor<1x2x3x4xf16>, tensor<1x2x3xf32>) {
  %o, %lse = kiln.attention %q, %k, %v
      : tensor<1x2x3x4xf16>, tensor<1x1x5x4xf16>, tensor<1x1x5x4xf16> -> tensor<1x2x3x4xf16>, tensor<1x2x3xf32>
  return %o, %lse : tensor<1x2x3x4xf16>, tensor<1x2x3xf32>
}

// ALiBi slopes per query head, and per batch and head.
// CHECK-LABEL: func.func @alibi
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x3x8xf32>, %[[K:.*]]: tensor<2x2x5x8xf32>, %[[V:.*]]: tensor<2x2x5x8xf32>, %[[S:.*]]: tensor<4xf32>, %[[SB:.*]]: tensor<2x4xf32>, %[[KL:.*]]: tensor<2xi32>)
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] alibi_slopes(%[[S]] : tensor<4xf32>) {causal} : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32> -> tensor<2x4x3x8xf32>
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] key_lengths(%[[KL]] : tensor<2xi32>) alibi_slopes(%[[SB]] : tensor<2x4xf32>) : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32> -> tensor<2x4x3x8xf32>
func.func @alibi(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x8xf32>, %s: tensor<4xf32>, %sb: tensor<2x4xf32>, %kl: tensor<2xi32>)
    -> (tensor<2x4x3x8xf32>, tensor<2x4x3x8xf32>) {
  %0 = kiln.attention %q, %k, %v alibi_slopes(%s : tensor<4xf32>) {causal}
      : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32> -> tensor<2x4x3x8xf32>
  %1 = kiln.attention %q, %k, %v key_lengths(%kl : tensor<2xi32>) alibi_slopes(%sb : tensor<2x4xf32>)
      : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32> -> tensor<2x4x3x8xf32>
  return %0, %1 : tensor<2x4x3x8xf32>, tensor<2x4x3x8xf32>
}

// Sinks per query head, after the ALiBi slopes; with the lse result.
// CHECK-LABEL: func.func @sinks
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x3x8xbf16>, %[[K:.*]]: tensor<2x2x5x8xbf16>, %[[V:.*]]: tensor<2x2x5x8xbf16>, %[[S:.*]]: tensor<4xf32>, %[[A:.*]]: tensor<4xf32>)
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] alibi_slopes(%[[A]] : tensor<4xf32>) sinks(%[[S]] : tensor<4xf32>) {causal} : tensor<2x4x3x8xbf16>, tensor<2x2x5x8xbf16>, tensor<2x2x5x8xbf16> -> tensor<2x4x3x8xbf16>, tensor<2x4x3xf32>
func.func @sinks(%q: tensor<2x4x3x8xbf16>, %k: tensor<2x2x5x8xbf16>, %v: tensor<2x2x5x8xbf16>, %s: tensor<4xf32>, %a: tensor<4xf32>)
    -> (tensor<2x4x3x8xbf16>, tensor<2x4x3xf32>) {
  %0, %lse = kiln.attention %q, %k, %v alibi_slopes(%a : tensor<4xf32>) sinks(%s : tensor<4xf32>) {causal}
      : tensor<2x4x3x8xbf16>, tensor<2x2x5x8xbf16>, tensor<2x2x5x8xbf16> -> tensor<2x4x3x8xbf16>, tensor<2x4x3xf32>
  return %0, %lse : tensor<2x4x3x8xbf16>, tensor<2x4x3xf32>
}

// Packed sequences (cu_seqlens), last among the operands; i32 and i64
// offsets may be mixed.
// CHECK-LABEL: func.func @packed_sequences
// CHECK-SAME: (%[[Q:.*]]: tensor<1x4x9x8xf32>, %[[K:.*]]: tensor<1x2x7x8xf32>, %[[V:.*]]: tensor<1x2x7x8xf32>, %[[S:.*]]: tensor<4xf32>, %[[CQ:.*]]: tensor<3xi32>, %[[CK:.*]]: tensor<3xi64>)
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] sinks(%[[S]] : tensor<4xf32>) cu_seqlens(%[[CQ]], %[[CK]] : tensor<3xi32>, tensor<3xi64>) {causal} : tensor<1x4x9x8xf32>, tensor<1x2x7x8xf32>, tensor<1x2x7x8xf32> -> tensor<1x4x9x8xf32>
func.func @packed_sequences(%q: tensor<1x4x9x8xf32>, %k: tensor<1x2x7x8xf32>, %v: tensor<1x2x7x8xf32>, %s: tensor<4xf32>, %cq: tensor<3xi32>, %ck: tensor<3xi64>)
    -> tensor<1x4x9x8xf32> {
  %0 = kiln.attention %q, %k, %v sinks(%s : tensor<4xf32>) cu_seqlens(%cq, %ck : tensor<3xi32>, tensor<3xi64>) {causal}
      : tensor<1x4x9x8xf32>, tensor<1x2x7x8xf32>, tensor<1x2x7x8xf32> -> tensor<1x4x9x8xf32>
  return %0 : tensor<1x4x9x8xf32>
}
