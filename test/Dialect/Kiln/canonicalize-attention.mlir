// RUN: kiln-opt %s --canonicalize --split-input-file | FileCheck %s

//===----------------------------------------------------------------------===//
// Folding to zeros: every row is empty
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @fold_no_keys
// CHECK-NOT: kiln.attention
// CHECK: %[[ZERO:.*]] = kiln.constant dense<0.000000e+00> : tensor<2x4x3x16xf32>
// CHECK: return %[[ZERO]]
func.func @fold_no_keys(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x0x8xf32>, %v: tensor<2x2x0x16xf32>) -> tensor<2x4x3x16xf32> {
  %0 = kiln.attention %q, %k, %v : tensor<2x4x3x8xf32>, tensor<2x2x0x8xf32>, tensor<2x2x0x16xf32> -> tensor<2x4x3x16xf32>
  return %0 : tensor<2x4x3x16xf32>
}

// -----

// CHECK-LABEL: func.func @fold_false_mask
// CHECK-NOT: kiln.attention
// CHECK: %[[ZERO:.*]] = kiln.constant dense<0.000000e+00> : tensor<2x4x3x8xbf16>
// CHECK: return %[[ZERO]]
func.func @fold_false_mask(%q: tensor<2x4x3x8xbf16>, %k: tensor<2x4x5x8xbf16>, %v: tensor<2x4x5x8xbf16>) -> tensor<2x4x3x8xbf16> {
  %m = kiln.constant dense<false> : tensor<3x5xi1>
  %0 = kiln.attention %q, %k, %v mask(%m : tensor<3x5xi1>) : tensor<2x4x3x8xbf16>, tensor<2x4x5x8xbf16>, tensor<2x4x5x8xbf16> -> tensor<2x4x3x8xbf16>
  return %0 : tensor<2x4x3x8xbf16>
}

// -----

// CHECK-LABEL: func.func @fold_minus_inf_bias
// CHECK-NOT: kiln.attention
// CHECK: %[[ZERO:.*]] = kiln.constant dense<0.000000e+00> : tensor<2x4x3x8xf32>
// CHECK: return %[[ZERO]]
func.func @fold_minus_inf_bias(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) -> tensor<2x4x3x8xf32> {
  %m = kiln.constant dense<0xFF800000> : tensor<1x1x1x5xf32>
  %0 = kiln.attention %q, %k, %v mask(%m : tensor<1x1x1x5xf32>) : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return %0 : tensor<2x4x3x8xf32>
}

// -----

// Lengths are clamped to [0, S]: negative ones hide everything too.
// CHECK-LABEL: func.func @fold_no_key_lengths
// CHECK-NOT: kiln.attention
// CHECK: %[[ZERO:.*]] = kiln.constant dense<0.000000e+00> : tensor<2x4x3x8xf32>
// CHECK: return %[[ZERO]]
func.func @fold_no_key_lengths(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) -> tensor<2x4x3x8xf32> {
  %kl = kiln.constant dense<[0, -3]> : tensor<2xi32>
  %0 = kiln.attention %q, %k, %v key_lengths(%kl : tensor<2xi32>) : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return %0 : tensor<2x4x3x8xf32>
}

// -----

// CHECK-LABEL: func.func @fold_no_query_lengths
// CHECK-NOT: kiln.attention
// CHECK: %[[ZERO:.*]] = kiln.constant dense<0.000000e+00> : tensor<2x4x3x8xf64>
// CHECK: return %[[ZERO]]
func.func @fold_no_query_lengths(%q: tensor<2x4x3x8xf64>, %k: tensor<2x4x5x8xf64>, %v: tensor<2x4x5x8xf64>) -> tensor<2x4x3x8xf64> {
  %ql = kiln.constant dense<0> : tensor<2xi64>
  %0 = kiln.attention %q, %k, %v query_lengths(%ql : tensor<2xi64>) : tensor<2x4x3x8xf64>, tensor<2x4x5x8xf64>, tensor<2x4x5x8xf64> -> tensor<2x4x3x8xf64>
  return %0 : tensor<2x4x3x8xf64>
}

// -----

// No packed sequence at all (N = 0): no row is in one.
// CHECK-LABEL: func.func @fold_no_packed_sequences
// CHECK-NOT: kiln.attention
// CHECK: %[[ZERO:.*]] = kiln.constant dense<0.000000e+00> : tensor<1x2x3x8xf32>
// CHECK: return %[[ZERO]]
func.func @fold_no_packed_sequences(%q: tensor<1x2x3x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>, %cq: tensor<1xi32>, %ck: tensor<1xi32>) -> tensor<1x2x3x8xf32> {
  %0 = kiln.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<1xi32>, tensor<1xi32>) : tensor<1x2x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x3x8xf32>
  return %0 : tensor<1x2x3x8xf32>
}

// -----

// Packed sequences keep causal even where the global shape would make it a
// no-op (Sq = 1 would see every key globally, not within its sequence):
// nothing folds or drops.
// CHECK-LABEL: func.func @negative_fold_packed_sequences
// CHECK: kiln.attention {{.*}} cu_seqlens({{.*}}) {causal}
func.func @negative_fold_packed_sequences(%q: tensor<1x2x1x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>, %cq: tensor<2xi32>, %ck: tensor<2xi32>) -> tensor<1x2x1x8xf32> {
  %0 = kiln.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<2xi32>, tensor<2xi32>) {causal} : tensor<1x2x1x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x1x8xf32>
  return %0 : tensor<1x2x1x8xf32>
}

// -----

// One batch still has keys: no fold, and the lengths stay.
// CHECK-LABEL: func.func @negative_fold_some_key_lengths
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x3x8xf32>, %[[K:.*]]: tensor<2x4x5x8xf32>, %[[V:.*]]: tensor<2x4x5x8xf32>)
// CHECK: %[[KL:.*]] = kiln.constant dense<[0, 2]> : tensor<2xi32>
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] key_lengths(%[[KL]] : tensor<2xi32>)
func.func @negative_fold_some_key_lengths(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) -> tensor<2x4x3x8xf32> {
  %kl = kiln.constant dense<[0, 2]> : tensor<2xi32>
  %0 = kiln.attention %q, %k, %v key_lengths(%kl : tensor<2xi32>) : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return %0 : tensor<2x4x3x8xf32>
}

// -----

// A finite negative bias keeps its additive meaning: no fold.
// CHECK-LABEL: func.func @negative_fold_finite_bias
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x3x8xf32>, %[[K:.*]]: tensor<2x4x5x8xf32>, %[[V:.*]]: tensor<2x4x5x8xf32>)
// CHECK: %[[M:.*]] = kiln.constant dense<-1.000000e+30> : tensor<3x5xf32>
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]] : tensor<3x5xf32>)
func.func @negative_fold_finite_bias(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) -> tensor<2x4x3x8xf32> {
  %m = kiln.constant dense<-1.0e30> : tensor<3x5xf32>
  %0 = kiln.attention %q, %k, %v mask(%m : tensor<3x5xf32>) : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return %0 : tensor<2x4x3x8xf32>
}

// -----

// A mask that is not a splat may leave some keys visible.
// CHECK-LABEL: func.func @negative_fold_mixed_mask
// CHECK-SAME: (%[[Q:.*]]: tensor<1x1x2x2xf32>, %[[K:.*]]: tensor<1x1x2x2xf32>, %[[V:.*]]: tensor<1x1x2x2xf32>)
// CHECK: %[[M:.*]] = kiln.constant dense<{{\[\[}}true, false], [false, false]]> : tensor<2x2xi1>
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]] : tensor<2x2xi1>)
func.func @negative_fold_mixed_mask(%q: tensor<1x1x2x2xf32>, %k: tensor<1x1x2x2xf32>, %v: tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32> {
  %m = kiln.constant dense<[[true, false], [false, false]]> : tensor<2x2xi1>
  %0 = kiln.attention %q, %k, %v mask(%m : tensor<2x2xi1>) : tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32> -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

//===----------------------------------------------------------------------===//
// Canonicalization: dropping what cannot change the result
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @drop_unused_seed
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x4x8xf32>, %[[S:.*]]: tensor<i64>)
// CHECK: kiln.attention %[[Q]], %[[Q]], %[[Q]] {causal} : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
func.func @drop_unused_seed(%q: tensor<1x2x4x8xf32>, %s: tensor<i64>) -> tensor<1x2x4x8xf32> {
  %0 = kiln.attention %q, %q, %q seed(%s : tensor<i64>) {causal} : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
  return %0 : tensor<1x2x4x8xf32>
}

// -----

// CHECK-LABEL: func.func @negative_drop_seed_with_dropout
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x4x8xf32>, %[[S:.*]]: tensor<i64>)
// CHECK: kiln.attention %[[Q]], %[[Q]], %[[Q]] seed(%[[S]] : tensor<i64>) {dropout_p = 1.000000e-01 : f64}
func.func @negative_drop_seed_with_dropout(%q: tensor<1x2x4x8xf32>, %s: tensor<i64>) -> tensor<1x2x4x8xf32> {
  %0 = kiln.attention %q, %q, %q seed(%s : tensor<i64>) {dropout_p = 0.1 : f64} : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
  return %0 : tensor<1x2x4x8xf32>
}

// -----

// CHECK-LABEL: func.func @drop_redundant_window_right
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x4x8xf32>)
// CHECK: kiln.attention %[[Q]], %[[Q]], %[[Q]] {causal, window_left = 1 : i64} : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
func.func @drop_redundant_window_right(%q: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %0 = kiln.attention %q, %q, %q {causal, window_left = 1 : i64, window_right = 0 : i64} : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
  return %0 : tensor<1x2x4x8xf32>
}

// -----

// Without causal, window_right = 0 is the band itself.
// CHECK-LABEL: func.func @negative_drop_window_right
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x4x8xf32>)
// CHECK: kiln.attention %[[Q]], %[[Q]], %[[Q]] {window_right = 0 : i64}
func.func @negative_drop_window_right(%q: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %0 = kiln.attention %q, %q, %q {window_right = 0 : i64} : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
  return %0 : tensor<1x2x4x8xf32>
}

// -----

// CHECK-LABEL: func.func @drop_true_mask
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x3x8xf32>, %[[K:.*]]: tensor<2x4x5x8xf32>, %[[V:.*]]: tensor<2x4x5x8xf32>)
// CHECK-NOT: kiln.constant
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
func.func @drop_true_mask(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) -> tensor<2x4x3x8xf32> {
  %m = kiln.constant dense<true> : tensor<2x1x3x5xi1>
  %0 = kiln.attention %q, %k, %v mask(%m : tensor<2x1x3x5xi1>) : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return %0 : tensor<2x4x3x8xf32>
}

// -----

// CHECK-LABEL: func.func @drop_zero_bias
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x3x8xf16>, %[[K:.*]]: tensor<2x4x5x8xf16>, %[[V:.*]]: tensor<2x4x5x8xf16>)
// CHECK-NOT: kiln.constant
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] {causal} : tensor<2x4x3x8xf16>, tensor<2x4x5x8xf16>, tensor<2x4x5x8xf16> -> tensor<2x4x3x8xf16>
func.func @drop_zero_bias(%q: tensor<2x4x3x8xf16>, %k: tensor<2x4x5x8xf16>, %v: tensor<2x4x5x8xf16>) -> tensor<2x4x3x8xf16> {
  %m = kiln.constant dense<-0.0> : tensor<1x4x1x5xf16>
  %0 = kiln.attention %q, %k, %v mask(%m : tensor<1x4x1x5xf16>) {causal} : tensor<2x4x3x8xf16>, tensor<2x4x5x8xf16>, tensor<2x4x5x8xf16> -> tensor<2x4x3x8xf16>
  return %0 : tensor<2x4x3x8xf16>
}

// -----

// A non-zero splat bias cancels in the softmax in exact arithmetic, but not
// in floating point (a large one swamps the scores), so it stays.
// CHECK-LABEL: func.func @negative_drop_splat_bias
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x3x8xf32>, %[[K:.*]]: tensor<2x4x5x8xf32>, %[[V:.*]]: tensor<2x4x5x8xf32>)
// CHECK: %[[M:.*]] = kiln.constant dense<1.000000e+00> : tensor<3x5xf32>
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]] : tensor<3x5xf32>)
func.func @negative_drop_splat_bias(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) -> tensor<2x4x3x8xf32> {
  %m = kiln.constant dense<1.0> : tensor<3x5xf32>
  %0 = kiln.attention %q, %k, %v mask(%m : tensor<3x5xf32>) : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return %0 : tensor<2x4x3x8xf32>
}

// -----

// Lengths at or past the sequence length hide nothing.
// CHECK-LABEL: func.func @drop_full_lengths
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x3x8xf32>, %[[K:.*]]: tensor<2x4x5x8xf32>, %[[V:.*]]: tensor<2x4x5x8xf32>)
// CHECK-NOT: kiln.constant
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
func.func @drop_full_lengths(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) -> tensor<2x4x3x8xf32> {
  %kl = kiln.constant dense<[5, 9]> : tensor<2xi64>
  %ql = kiln.constant dense<3> : tensor<2xi32>
  %0 = kiln.attention %q, %k, %v key_lengths(%kl : tensor<2xi64>) query_lengths(%ql : tensor<2xi32>) : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return %0 : tensor<2x4x3x8xf32>
}

// -----

// Only the query lengths are full; the key lengths stay.
// CHECK-LABEL: func.func @drop_full_query_lengths_only
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x3x8xf32>, %[[K:.*]]: tensor<2x4x5x8xf32>, %[[V:.*]]: tensor<2x4x5x8xf32>)
// CHECK: %[[KL:.*]] = kiln.constant dense<[5, 4]> : tensor<2xi64>
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] key_lengths(%[[KL]] : tensor<2xi64>) : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
func.func @drop_full_query_lengths_only(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) -> tensor<2x4x3x8xf32> {
  %kl = kiln.constant dense<[5, 4]> : tensor<2xi64>
  %ql = kiln.constant dense<[3, 7]> : tensor<2xi64>
  %0 = kiln.attention %q, %k, %v key_lengths(%kl : tensor<2xi64>) query_lengths(%ql : tensor<2xi64>) : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return %0 : tensor<2x4x3x8xf32>
}

// -----

// Lengths that are not constants stay.
// CHECK-LABEL: func.func @negative_drop_lengths
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x3x8xf32>, %[[K:.*]]: tensor<2x4x5x8xf32>, %[[V:.*]]: tensor<2x4x5x8xf32>, %[[KL:.*]]: tensor<2xi32>)
// CHECK: kiln.attention %[[Q]], %[[K]], %[[V]] key_lengths(%[[KL]] : tensor<2xi32>)
func.func @negative_drop_lengths(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>, %kl: tensor<2xi32>) -> tensor<2x4x3x8xf32> {
  %0 = kiln.attention %q, %k, %v key_lengths(%kl : tensor<2xi32>) : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return %0 : tensor<2x4x3x8xf32>
}

// -----

// Every row empty: O folds to zeros and the lse to +inf (half types: f32).
// CHECK-LABEL: func.func @fold_lse_false_mask
// CHECK-NOT: kiln.attention
// CHECK-DAG: %[[ZERO:.*]] = kiln.constant dense<0.000000e+00> : tensor<1x2x3x4xf16>
// CHECK-DAG: %[[INF:.*]] = kiln.constant dense<0x7F800000> : tensor<1x2x3xf32>
// CHECK: return %[[ZERO]], %[[INF]]
func.func @fold_lse_false_mask(%q: tensor<1x2x3x4xf16>, %k: tensor<1x2x5x4xf16>, %v: tensor<1x2x5x4xf16>) -> (tensor<1x2x3x4xf16>, tensor<1x2x3xf32>) {
  %m = kiln.constant dense<false> : tensor<3x5xi1>
  %0, %1 = kiln.attention %q, %k, %v mask(%m : tensor<3x5xi1>) : tensor<1x2x3x4xf16>, tensor<1x2x5x4xf16>, tensor<1x2x5x4xf16> -> tensor<1x2x3x4xf16>, tensor<1x2x3xf32>
  return %0, %1 : tensor<1x2x3x4xf16>, tensor<1x2x3xf32>
}

// -----

// An lse result nothing reads is dropped.
// CHECK-LABEL: func.func @drop_unused_lse
// CHECK: %[[O:.*]] = kiln.attention {{.*}} -> tensor<1x2x3x4xf32>{{$}}
// CHECK: return %[[O]]
func.func @drop_unused_lse(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x5x4xf32>, %v: tensor<1x2x5x4xf32>) -> tensor<1x2x3x4xf32> {
  %0, %1 = kiln.attention %q, %k, %v {causal} : tensor<1x2x3x4xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32> -> tensor<1x2x3x4xf32>, tensor<1x2x3xf32>
  return %0 : tensor<1x2x3x4xf32>
}

// -----

// A read lse stays.
// CHECK-LABEL: func.func @negative_drop_lse
// CHECK: %[[O:.*]], %[[L:.*]] = kiln.attention
// CHECK: return %[[O]], %[[L]]
func.func @negative_drop_lse(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x5x4xf32>, %v: tensor<1x2x5x4xf32>) -> (tensor<1x2x3x4xf32>, tensor<1x2x3xf32>) {
  %0, %1 = kiln.attention %q, %k, %v {causal} : tensor<1x2x3x4xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32> -> tensor<1x2x3x4xf32>, tensor<1x2x3xf32>
  return %0, %1 : tensor<1x2x3x4xf32>, tensor<1x2x3xf32>
}

// -----

// ALiBi slopes that are all zero bias nothing: dropped. Non-zero ones stay.
// CHECK-LABEL: func.func @drop_zero_alibi_slopes
// CHECK-SAME: (%[[Q:[^:]*]]: {{[^,]*}}, %[[K:[^:]*]]: {{[^,]*}}, %[[V:[^:]*]]: {{[^)]*}})
// CHECK: %[[HALF:.*]] = kiln.constant dense<5.000000e-01> : tensor<4xf32>
// CHECK: %[[O:.*]] = kiln.attention %[[Q]], %[[K]], %[[V]] {causal} :
// CHECK: %[[P:.*]] = kiln.attention %[[Q]], %[[K]], %[[V]] alibi_slopes(%[[HALF]] : tensor<4xf32>) {causal} :
// CHECK: return %[[O]], %[[P]]
func.func @drop_zero_alibi_slopes(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) -> (tensor<2x4x3x8xf32>, tensor<2x4x3x8xf32>) {
  %zero = kiln.constant dense<-0.0> : tensor<2x4xf32>
  %half = kiln.constant dense<0.5> : tensor<4xf32>
  %0 = kiln.attention %q, %k, %v alibi_slopes(%zero : tensor<2x4xf32>) {causal} : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  %1 = kiln.attention %q, %k, %v alibi_slopes(%half : tensor<4xf32>) {causal} : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return %0, %1 : tensor<2x4x3x8xf32>, tensor<2x4x3x8xf32>
}
