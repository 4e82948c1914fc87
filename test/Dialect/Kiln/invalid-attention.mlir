// RUN: kiln-opt %s --split-input-file --verify-diagnostics

//===----------------------------------------------------------------------===//
// Ranks and element types of query, key and value
//===----------------------------------------------------------------------===//

func.func @query_rank(%q: tensor<4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) {
  // expected-error @+1 {{'kiln.attention' op query must have rank 4 [B, Hq, Sq, Dk], got rank 3}}
  %0 = kiln.attention %q, %k, %v : tensor<4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @key_rank(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x1x5x8xf32>, %v: tensor<2x4x5x8xf32>) {
  // expected-error @+1 {{'kiln.attention' op key must have rank 4 [B, Hkv, Sk, Dk], got rank 5}}
  %0 = kiln.attention %q, %k, %v : tensor<2x4x3x8xf32>, tensor<2x4x1x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @value_rank(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<8xf32>) {
  // expected-error @+1 {{'kiln.attention' op value must have rank 4 [B, Hkv, Sk, Dv], got rank 1}}
  %0 = kiln.attention %q, %k, %v : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @query_not_float(%q: tensor<2x4x3x8xi32>, %k: tensor<2x4x5x8xi32>, %v: tensor<2x4x5x8xi32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of floating-point values, but got 'tensor<2x4x3x8xi32>'}}
  %0 = kiln.attention %q, %k, %v : tensor<2x4x3x8xi32>, tensor<2x4x5x8xi32>, tensor<2x4x5x8xi32> -> tensor<2x4x3x8xi32>
  return
}

// -----

func.func @dynamic_dim(%q: tensor<2x4x?x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of floating-point values, but got 'tensor<2x4x?x8xf32>'}}
  %0 = kiln.attention %q, %k, %v : tensor<2x4x?x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @key_element_type(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf16>, %v: tensor<2x4x5x8xf32>) {
  // expected-error @+1 {{'kiln.attention' op key element type 'f16' does not match query element type 'f32'}}
  %0 = kiln.attention %q, %k, %v : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf16>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @value_element_type(%q: tensor<2x4x3x8xbf16>, %k: tensor<2x4x5x8xbf16>, %v: tensor<2x4x5x8xf16>) {
  // expected-error @+1 {{'kiln.attention' op value element type 'f16' does not match query element type 'bf16'}}
  %0 = kiln.attention %q, %k, %v : tensor<2x4x3x8xbf16>, tensor<2x4x5x8xbf16>, tensor<2x4x5x8xf16> -> tensor<2x4x3x8xbf16>
  return
}

// -----

func.func @wrong_result_type(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x16xf32>) {
  // expected-error @+1 {{'kiln.attention' op result type 'tensor<2x4x3x8xf32>' must be 'tensor<2x4x3x16xf32>': [B, Hq, Sq, Dv] in the query element type}}
  %0 = kiln.attention %q, %k, %v : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x16xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @wrong_result_element_type(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) {
  // expected-error @+1 {{'kiln.attention' op result type 'tensor<2x4x3x8xf64>' must be 'tensor<2x4x3x8xf32>': [B, Hq, Sq, Dv] in the query element type}}
  %0 = kiln.attention %q, %k, %v : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf64>
  return
}

// -----

func.func @operand_segments(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>) {
  // expected-error @+1 {{'kiln.attention' op 'operandSegmentSizes' must give query, key and value one operand each}}
  %0 = "kiln.attention"(%q, %k, %k) <{operandSegmentSizes = array<i32: 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>}> : (tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32>) -> tensor<2x4x3x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// Shapes of query, key and value
//===----------------------------------------------------------------------===//

// -----

func.func @key_batch(%q: tensor<2x4x3x8xf32>, %k: tensor<3x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) {
  // expected-error @+1 {{'kiln.attention' op key batch size 3 does not match query batch size 2}}
  %0 = kiln.attention %q, %k, %v : tensor<2x4x3x8xf32>, tensor<3x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @value_batch(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<1x4x5x8xf32>) {
  // expected-error @+1 {{'kiln.attention' op value batch size 1 does not match query batch size 2}}
  %0 = kiln.attention %q, %k, %v : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<1x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @key_value_heads(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x4x5x8xf32>) {
  // expected-error @+1 {{'kiln.attention' op value has 4 heads, but key has 2 (both are Hkv)}}
  %0 = kiln.attention %q, %k, %v : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @key_value_seq_len(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x6x8xf32>) {
  // expected-error @+1 {{'kiln.attention' op value sequence length 6 does not match key sequence length 5 (both are Sk)}}
  %0 = kiln.attention %q, %k, %v : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x6x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @query_key_head_dim(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x16xf32>, %v: tensor<2x4x5x16xf32>) {
  // expected-error @+1 {{'kiln.attention' op key head dim 16 does not match query head dim 8 (both are Dk)}}
  %0 = kiln.attention %q, %k, %v : tensor<2x4x3x8xf32>, tensor<2x4x5x16xf32>, tensor<2x4x5x16xf32> -> tensor<2x4x3x16xf32>
  return
}

// -----

func.func @heads_not_multiple(%q: tensor<2x6x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) {
  // expected-error @+1 {{'kiln.attention' op query heads Hq = 6 must be a positive multiple of kv heads Hkv = 4}}
  %0 = kiln.attention %q, %k, %v : tensor<2x6x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x6x3x8xf32>
  return
}

// -----

func.func @fewer_query_heads(%q: tensor<2x2x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) {
  // expected-error @+1 {{'kiln.attention' op query heads Hq = 2 must be a positive multiple of kv heads Hkv = 4}}
  %0 = kiln.attention %q, %k, %v : tensor<2x2x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x2x3x8xf32>
  return
}

// -----

func.func @zero_query_heads(%q: tensor<2x0x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) {
  // expected-error @+1 {{'kiln.attention' op query heads Hq = 0 must be a positive multiple of kv heads Hkv = 4}}
  %0 = kiln.attention %q, %k, %v : tensor<2x0x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x0x3x8xf32>
  return
}

// -----

func.func @zero_kv_heads(%q: tensor<2x4x3x8xf32>, %k: tensor<2x0x5x8xf32>, %v: tensor<2x0x5x8xf32>) {
  // expected-error @+1 {{'kiln.attention' op key and value have 0 heads, but query has 4; each query head needs a kv head}}
  %0 = kiln.attention %q, %k, %v : tensor<2x4x3x8xf32>, tensor<2x0x5x8xf32>, tensor<2x0x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// mask
//===----------------------------------------------------------------------===//

// -----

func.func @mask_rank(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>, %m: tensor<1x2x4x3x5xi1>) {
  // expected-error @+1 {{'kiln.attention' op mask must have rank <= 4, got rank 5}}
  %0 = kiln.attention %q, %k, %v mask(%m : tensor<1x2x4x3x5xi1>) : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @mask_integer_element_type(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>, %m: tensor<3x5xi32>) {
  // expected-error @+1 {{'kiln.attention' op mask element type 'i32' must be i1 or the query element type 'f32'}}
  %0 = kiln.attention %q, %k, %v mask(%m : tensor<3x5xi32>) : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @mask_float_element_type(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>, %m: tensor<3x5xf16>) {
  // expected-error @+1 {{'kiln.attention' op mask element type 'f16' must be i1 or the query element type 'f32'}}
  %0 = kiln.attention %q, %k, %v mask(%m : tensor<3x5xf16>) : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @mask_not_broadcastable(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>, %m: tensor<2x1x3x4xi1>) {
  // expected-error @+1 {{'kiln.attention' op mask shape [2, 1, 3, 4] is not broadcastable to [B, Hq, Sq, Sk] = [2, 4, 3, 5]}}
  %0 = kiln.attention %q, %k, %v mask(%m : tensor<2x1x3x4xi1>) : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @alibi_rank(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>, %s: tensor<2x4x1xf32>) {
  // expected-error @+1 {{'kiln.attention' op 'alibi_slopes' must have rank 1 ([Hq]) or 2 ([B, Hq]), got rank 3}}
  %0 = kiln.attention %q, %k, %v alibi_slopes(%s : tensor<2x4x1xf32>) : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @alibi_element_type(%q: tensor<2x4x3x8xf16>, %k: tensor<2x4x5x8xf16>, %v: tensor<2x4x5x8xf16>, %s: tensor<4xbf16>) {
  // expected-error @+1 {{'kiln.attention' op 'alibi_slopes' element type 'bf16' must be f32 or the query element type 'f16'}}
  %0 = kiln.attention %q, %k, %v alibi_slopes(%s : tensor<4xbf16>) : tensor<2x4x3x8xf16>, tensor<2x4x5x8xf16>, tensor<2x4x5x8xf16> -> tensor<2x4x3x8xf16>
  return
}

// -----

// Slopes per kv head are not enough: the slopes are indexed by query head.
func.func @alibi_kv_heads(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x8xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{'kiln.attention' op 'alibi_slopes' shape [2] is not broadcastable to [B, Hq] = [2, 4]}}
  %0 = kiln.attention %q, %k, %v alibi_slopes(%s : tensor<2xf32>) : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @alibi_batch(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>, %s: tensor<3x4xf32>) {
  // expected-error @+1 {{'kiln.attention' op 'alibi_slopes' shape [3, 4] is not broadcastable to [B, Hq] = [2, 4]}}
  %0 = kiln.attention %q, %k, %v alibi_slopes(%s : tensor<3x4xf32>) : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

// A mask over the kv heads is not enough: the mask is indexed by query head.
func.func @mask_kv_heads(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x8xf32>, %m: tensor<1x2x1x5xf32>) {
  // expected-error @+1 {{'kiln.attention' op mask shape [1, 2, 1, 5] is not broadcastable to [B, Hq, Sq, Sk] = [2, 4, 3, 5]}}
  %0 = kiln.attention %q, %k, %v mask(%m : tensor<1x2x1x5xf32>) : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// key_lengths and query_lengths
//===----------------------------------------------------------------------===//

// -----

func.func @key_lengths_rank(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>, %kl: tensor<2x1xi32>) {
  // expected-error @+1 {{'kiln.attention' op 'key_lengths' must have rank 1 ([B]), got rank 2}}
  %0 = kiln.attention %q, %k, %v key_lengths(%kl : tensor<2x1xi32>) : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @key_lengths_size(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>, %kl: tensor<3xi64>) {
  // expected-error @+1 {{'kiln.attention' op 'key_lengths' has 3 entries, but the batch size B is 2}}
  %0 = kiln.attention %q, %k, %v key_lengths(%kl : tensor<3xi64>) : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @key_lengths_element_type(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>, %kl: tensor<2xf32>) {
  // expected-error @+1 {{operand #3 must be statically shaped tensor of 32/64-bit signless integer values, but got 'tensor<2xf32>'}}
  %0 = kiln.attention %q, %k, %v key_lengths(%kl : tensor<2xf32>) : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @query_lengths_rank(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>, %ql: tensor<i32>) {
  // expected-error @+1 {{'kiln.attention' op 'query_lengths' must have rank 1 ([B]), got rank 0}}
  %0 = kiln.attention %q, %k, %v query_lengths(%ql : tensor<i32>) : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @query_lengths_size(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>, %kl: tensor<2xi32>, %ql: tensor<1xi32>) {
  // expected-error @+1 {{'kiln.attention' op 'query_lengths' has 1 entries, but the batch size B is 2}}
  %0 = kiln.attention %q, %k, %v key_lengths(%kl : tensor<2xi32>) query_lengths(%ql : tensor<1xi32>) : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @query_lengths_element_type(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>, %ql: tensor<2xi8>) {
  // expected-error @+1 {{operand #3 must be statically shaped tensor of 32/64-bit signless integer values, but got 'tensor<2xi8>'}}
  %0 = kiln.attention %q, %k, %v query_lengths(%ql : tensor<2xi8>) : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// The band
//===----------------------------------------------------------------------===//

// -----

func.func @negative_window_left(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) {
  // expected-error @+1 {{'kiln.attention' op 'window_left' must be non-negative, got -1}}
  %0 = kiln.attention %q, %k, %v {window_left = -1 : i64} : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @negative_window_right(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) {
  // expected-error @+1 {{'kiln.attention' op 'window_right' must be non-negative, got -9223372036854775808}}
  %0 = kiln.attention %q, %k, %v {window_right = -9223372036854775808 : i64} : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @causal_window_right(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) {
  // expected-error @+1 {{'kiln.attention' op 'causal' means window_right = 0, but 'window_right' is 1}}
  %0 = kiln.attention %q, %k, %v {causal, window_right = 1 : i64} : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// scale and softcap
//===----------------------------------------------------------------------===//

// -----

func.func @scale_zero(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) {
  // expected-error @+1 {{'kiln.attention' op 'scale' must be non-zero}}
  %0 = kiln.attention %q, %k, %v {scale = 0.0 : f64} : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @scale_negative_zero(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) {
  // expected-error @+1 {{'kiln.attention' op 'scale' must be non-zero}}
  %0 = kiln.attention %q, %k, %v {scale = -0.0 : f64} : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @scale_inf(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) {
  // expected-error @+1 {{'kiln.attention' op 'scale' must be finite, got inf}}
  %0 = kiln.attention %q, %k, %v {scale = 0x7FF0000000000000 : f64} : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @scale_nan(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) {
  // expected-error @+1 {{'kiln.attention' op 'scale' must be finite, got nan}}
  %0 = kiln.attention %q, %k, %v {scale = 0x7FF8000000000000 : f64} : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @softcap_zero(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) {
  // expected-error @+1 {{'kiln.attention' op 'softcap' must be positive and finite, got 0}}
  %0 = kiln.attention %q, %k, %v {softcap = 0.0 : f64} : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @softcap_negative(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) {
  // expected-error @+1 {{'kiln.attention' op 'softcap' must be positive and finite, got -30}}
  %0 = kiln.attention %q, %k, %v {softcap = -30.0 : f64} : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @softcap_inf(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) {
  // expected-error @+1 {{'kiln.attention' op 'softcap' must be positive and finite, got inf}}
  %0 = kiln.attention %q, %k, %v {softcap = 0x7FF0000000000000 : f64} : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// dropout
//===----------------------------------------------------------------------===//

// -----

func.func @dropout_negative(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>, %s: tensor<i64>) {
  // expected-error @+1 {{'kiln.attention' op 'dropout_p' must be in [0, 1), got -0.1}}
  %0 = kiln.attention %q, %k, %v seed(%s : tensor<i64>) {dropout_p = -0.1 : f64} : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @dropout_one(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>, %s: tensor<i64>) {
  // expected-error @+1 {{'kiln.attention' op 'dropout_p' must be in [0, 1), got 1}}
  %0 = kiln.attention %q, %k, %v seed(%s : tensor<i64>) {dropout_p = 1.0 : f64} : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @dropout_nan(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>, %s: tensor<i64>) {
  // expected-error @+1 {{'kiln.attention' op 'dropout_p' must be in [0, 1), got nan}}
  %0 = kiln.attention %q, %k, %v seed(%s : tensor<i64>) {dropout_p = 0x7FF8000000000000 : f64} : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @dropout_without_seed(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) {
  // expected-error @+1 {{'kiln.attention' op 'dropout_p' = 0.5 needs a seed operand}}
  %0 = kiln.attention %q, %k, %v {dropout_p = 0.5 : f64} : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @seed_type(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>, %s: tensor<1xi64>) {
  // expected-error @+1 {{operand #3 must be 0D tensor of 64-bit signless integer values, but got 'tensor<1xi64>'}}
  %0 = kiln.attention %q, %k, %v seed(%s : tensor<1xi64>) {dropout_p = 0.5 : f64} : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @lse_shape(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) {
  // expected-error @+1 {{'kiln.attention' op lse type 'tensor<2x4x5xf32>' must be 'tensor<2x4x3xf32>': [B, Hq, Sq] in f32 for f16 and bf16 queries, else in the query element type}}
  %0, %1 = kiln.attention %q, %k, %v : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>, tensor<2x4x5xf32>
  return
}

// -----

func.func @lse_half_type(%q: tensor<1x1x3x2xf16>, %k: tensor<1x1x5x2xf16>, %v: tensor<1x1x5x2xf16>) {
  // expected-error @+1 {{'kiln.attention' op lse type 'tensor<1x1x3xf16>' must be 'tensor<1x1x3xf32>'}}
  %0, %1 = kiln.attention %q, %k, %v : tensor<1x1x3x2xf16>, tensor<1x1x5x2xf16>, tensor<1x1x5x2xf16> -> tensor<1x1x3x2xf16>, tensor<1x1x3xf16>
  return
}

// -----

func.func @lse_element_type(%q: tensor<1x1x3x2xf64>, %k: tensor<1x1x5x2xf64>, %v: tensor<1x1x5x2xf64>) {
  // expected-error @+1 {{'kiln.attention' op lse type 'tensor<1x1x3xf32>' must be 'tensor<1x1x3xf64>'}}
  %0, %1 = kiln.attention %q, %k, %v : tensor<1x1x3x2xf64>, tensor<1x1x5x2xf64>, tensor<1x1x5x2xf64> -> tensor<1x1x3x2xf64>, tensor<1x1x3xf32>
  return
}

// -----

// Sinks are per query head: [Hq], not [B, Hq] and not per kv head.
func.func @sinks_rank(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>, %s: tensor<2x4xf32>) {
  // expected-error @+1 {{'kiln.attention' op 'sinks' shape [2, 4] must be [Hq] = [4]}}
  %0 = kiln.attention %q, %k, %v sinks(%s : tensor<2x4xf32>) : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @sinks_kv_heads(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x8xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{'kiln.attention' op 'sinks' shape [2] must be [Hq] = [4]}}
  %0 = kiln.attention %q, %k, %v sinks(%s : tensor<2xf32>) : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32> -> tensor<2x4x3x8xf32>
  return
}

// -----

func.func @sinks_element_type(%q: tensor<2x4x3x8xbf16>, %k: tensor<2x4x5x8xbf16>, %v: tensor<2x4x5x8xbf16>, %s: tensor<4xf16>) {
  // expected-error @+1 {{'kiln.attention' op 'sinks' element type 'f16' must be f32 or the query element type 'bf16'}}
  %0 = kiln.attention %q, %k, %v sinks(%s : tensor<4xf16>) : tensor<2x4x3x8xbf16>, tensor<2x4x5x8xbf16>, tensor<2x4x5x8xbf16> -> tensor<2x4x3x8xbf16>
  return
}

// -----

// Packed sequences: cu_seqlens_q and cu_seqlens_k come together (the
// generic form can give one alone).
func.func @cu_seqlens_alone(%q: tensor<1x2x6x4xf32>, %k: tensor<1x2x6x4xf32>, %cq: tensor<3xi32>) {
  // expected-error @+1 {{'kiln.attention' op 'cu_seqlens_q' and 'cu_seqlens_k' must be given together}}
  %0 = "kiln.attention"(%q, %k, %k, %cq) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0>}> : (tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<3xi32>) -> tensor<1x2x6x4xf32>
  return
}

// -----

func.func @cu_seqlens_rank(%q: tensor<1x2x6x4xf32>, %k: tensor<1x2x6x4xf32>, %cq: tensor<1x3xi32>, %ck: tensor<3xi32>) {
  // expected-error @+1 {{'kiln.attention' op 'cu_seqlens_q' must have rank 1 with N + 1 >= 1 entries ([N + 1]), got shape [1, 3]}}
  %0 = kiln.attention %q, %k, %k cu_seqlens(%cq, %ck : tensor<1x3xi32>, tensor<3xi32>) : tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32> -> tensor<1x2x6x4xf32>
  return
}

// -----

func.func @cu_seqlens_empty(%q: tensor<1x2x6x4xf32>, %k: tensor<1x2x6x4xf32>, %cq: tensor<3xi32>, %ck: tensor<0xi64>) {
  // expected-error @+1 {{'kiln.attention' op 'cu_seqlens_k' must have rank 1 with N + 1 >= 1 entries ([N + 1]), got shape [0]}}
  %0 = kiln.attention %q, %k, %k cu_seqlens(%cq, %ck : tensor<3xi32>, tensor<0xi64>) : tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32> -> tensor<1x2x6x4xf32>
  return
}

// -----

func.func @cu_seqlens_count(%q: tensor<1x2x6x4xf32>, %k: tensor<1x2x6x4xf32>, %cq: tensor<3xi32>, %ck: tensor<4xi32>) {
  // expected-error @+1 {{'kiln.attention' op 'cu_seqlens_q' has 3 entries and 'cu_seqlens_k' 4: both are N + 1 for the same N sequences}}
  %0 = kiln.attention %q, %k, %k cu_seqlens(%cq, %ck : tensor<3xi32>, tensor<4xi32>) : tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32> -> tensor<1x2x6x4xf32>
  return
}

// -----

func.func @cu_seqlens_float(%q: tensor<1x2x6x4xf32>, %k: tensor<1x2x6x4xf32>, %cq: tensor<3xf32>, %ck: tensor<3xi32>) {
  // expected-error @+1 {{'kiln.attention' op operand #3 must be statically shaped tensor of}}
  %0 = kiln.attention %q, %k, %k cu_seqlens(%cq, %ck : tensor<3xf32>, tensor<3xi32>) : tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32> -> tensor<1x2x6x4xf32>
  return
}
