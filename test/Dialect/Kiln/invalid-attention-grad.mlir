// RUN: kiln-opt %s --split-input-file --verify-diagnostics

// kiln.attention_grad shares kiln.attention's checks; these are its own.

func.func @dout_type(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x16xf32>, %do: tensor<2x4x3x8xf32>) {
  // expected-error @+1 {{'kiln.attention_grad' op dout type 'tensor<2x4x3x8xf32>' must be 'tensor<2x4x3x16xf32>': the attention's result type [B, Hq, Sq, Dv]}}
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x16xf32>, tensor<2x4x3x8xf32> -> tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x16xf32>
  return
}

// -----

func.func @dquery_type(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x8xf32>, %do: tensor<2x4x3x8xf32>) {
  // expected-error @+1 {{'kiln.attention_grad' op dquery type 'tensor<2x4x3x8xf16>' must be the query type 'tensor<2x4x3x8xf32>'}}
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>, tensor<2x4x3x8xf32> -> tensor<2x4x3x8xf16>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>
  return
}

// -----

func.func @dkey_type(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x8xf32>, %do: tensor<2x4x3x8xf32>) {
  // expected-error @+1 {{'kiln.attention_grad' op dkey type 'tensor<2x4x5x8xf32>' must be the key type 'tensor<2x2x5x8xf32>'}}
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>, tensor<2x4x3x8xf32> -> tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x2x5x8xf32>
  return
}

// -----

func.func @dvalue_type(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x16xf32>, %do: tensor<2x4x3x16xf32>) {
  // expected-error @+1 {{'kiln.attention_grad' op dvalue type 'tensor<2x2x5x8xf32>' must be the value type 'tensor<2x2x5x16xf32>'}}
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x16xf32>, tensor<2x4x3x16xf32> -> tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>
  return
}

// -----

func.func @dmask_without_additive_mask(%q: tensor<1x1x3x2xf32>, %k: tensor<1x1x5x2xf32>, %v: tensor<1x1x5x2xf32>, %do: tensor<1x1x3x2xf32>, %m: tensor<3x5xi1>) {
  // expected-error @+1 {{'kiln.attention_grad' op has a 'dmask' result if and only if the mask is additive (a float mask)}}
  %dq, %dk, %dv, %dm = kiln.attention_grad %q, %k, %v, %do mask(%m : tensor<3x5xi1>) : tensor<1x1x3x2xf32>, tensor<1x1x5x2xf32>, tensor<1x1x5x2xf32>, tensor<1x1x3x2xf32> -> tensor<1x1x3x2xf32>, tensor<1x1x5x2xf32>, tensor<1x1x5x2xf32>, tensor<3x5xf32>
  return
}

// -----

func.func @missing_dmask(%q: tensor<1x1x3x2xf32>, %k: tensor<1x1x5x2xf32>, %v: tensor<1x1x5x2xf32>, %do: tensor<1x1x3x2xf32>, %m: tensor<3x5xf32>) {
  // expected-error @+1 {{'kiln.attention_grad' op has a 'dmask' result if and only if the mask is additive (a float mask)}}
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do mask(%m : tensor<3x5xf32>) : tensor<1x1x3x2xf32>, tensor<1x1x5x2xf32>, tensor<1x1x5x2xf32>, tensor<1x1x3x2xf32> -> tensor<1x1x3x2xf32>, tensor<1x1x5x2xf32>, tensor<1x1x5x2xf32>
  return
}

// -----

func.func @dmask_type(%q: tensor<1x1x3x2xf32>, %k: tensor<1x1x5x2xf32>, %v: tensor<1x1x5x2xf32>, %do: tensor<1x1x3x2xf32>, %m: tensor<3x5xf32>) {
  // expected-error @+1 {{'kiln.attention_grad' op dmask type 'tensor<1x3x5xf32>' must be the mask type 'tensor<3x5xf32>'}}
  %dq, %dk, %dv, %dm = kiln.attention_grad %q, %k, %v, %do mask(%m : tensor<3x5xf32>) : tensor<1x1x3x2xf32>, tensor<1x1x5x2xf32>, tensor<1x1x5x2xf32>, tensor<1x1x3x2xf32> -> tensor<1x1x3x2xf32>, tensor<1x1x5x2xf32>, tensor<1x1x5x2xf32>, tensor<1x3x5xf32>
  return
}

// -----

// The shared checks apply: Hq must be a multiple of Hkv.
func.func @heads(%q: tensor<1x3x3x2xf32>, %k: tensor<1x2x5x2xf32>, %v: tensor<1x2x5x2xf32>, %do: tensor<1x3x3x2xf32>) {
  // expected-error @+1 {{'kiln.attention_grad' op query heads Hq = 3 must be a positive multiple of kv heads Hkv = 2}}
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do : tensor<1x3x3x2xf32>, tensor<1x2x5x2xf32>, tensor<1x2x5x2xf32>, tensor<1x3x3x2xf32> -> tensor<1x3x3x2xf32>, tensor<1x2x5x2xf32>, tensor<1x2x5x2xf32>
  return
}

// -----

func.func @dropout_without_seed(%q: tensor<1x1x3x2xf32>, %k: tensor<1x1x5x2xf32>, %v: tensor<1x1x5x2xf32>, %do: tensor<1x1x3x2xf32>) {
  // expected-error @+1 {{'kiln.attention_grad' op 'dropout_p' = 0.5 needs a seed operand}}
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do {dropout_p = 0.5 : f64} : tensor<1x1x3x2xf32>, tensor<1x1x5x2xf32>, tensor<1x1x5x2xf32>, tensor<1x1x3x2xf32> -> tensor<1x1x3x2xf32>, tensor<1x1x5x2xf32>, tensor<1x1x5x2xf32>
  return
}

// -----

func.func @out_without_lse(%q: tensor<1x1x3x2xf32>, %k: tensor<1x1x5x2xf32>, %v: tensor<1x1x5x2xf32>, %do: tensor<1x1x3x2xf32>) {
  // expected-error @+1 {{'kiln.attention_grad' op 'out' and 'lse' must be given together (the forward's O and LSE), got only 'out'}}
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do out(%do : tensor<1x1x3x2xf32>) : tensor<1x1x3x2xf32>, tensor<1x1x5x2xf32>, tensor<1x1x5x2xf32>, tensor<1x1x3x2xf32> -> tensor<1x1x3x2xf32>, tensor<1x1x5x2xf32>, tensor<1x1x5x2xf32>
  return
}

// -----

func.func @lse_without_out(%q: tensor<1x1x3x2xf32>, %k: tensor<1x1x5x2xf32>, %v: tensor<1x1x5x2xf32>, %do: tensor<1x1x3x2xf32>, %l: tensor<1x1x3xf32>) {
  // expected-error @+1 {{'kiln.attention_grad' op 'out' and 'lse' must be given together (the forward's O and LSE), got only 'lse'}}
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do lse(%l : tensor<1x1x3xf32>) : tensor<1x1x3x2xf32>, tensor<1x1x5x2xf32>, tensor<1x1x5x2xf32>, tensor<1x1x3x2xf32> -> tensor<1x1x3x2xf32>, tensor<1x1x5x2xf32>, tensor<1x1x5x2xf32>
  return
}

// -----

func.func @out_type(%q: tensor<1x1x3x2xf32>, %k: tensor<1x1x5x2xf32>, %v: tensor<1x1x5x2xf32>, %do: tensor<1x1x3x2xf32>, %o: tensor<1x1x3x4xf32>, %l: tensor<1x1x3xf32>) {
  // expected-error @+1 {{'kiln.attention_grad' op out type 'tensor<1x1x3x4xf32>' must be 'tensor<1x1x3x2xf32>': the attention's result type [B, Hq, Sq, Dv]}}
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do out(%o : tensor<1x1x3x4xf32>) lse(%l : tensor<1x1x3xf32>) : tensor<1x1x3x2xf32>, tensor<1x1x5x2xf32>, tensor<1x1x5x2xf32>, tensor<1x1x3x2xf32> -> tensor<1x1x3x2xf32>, tensor<1x1x5x2xf32>, tensor<1x1x5x2xf32>
  return
}

// -----

func.func @lse_type(%q: tensor<1x1x3x2xbf16>, %k: tensor<1x1x5x2xbf16>, %v: tensor<1x1x5x2xbf16>, %do: tensor<1x1x3x2xbf16>, %l: tensor<1x1x3xbf16>) {
  // expected-error @+1 {{'kiln.attention_grad' op lse type 'tensor<1x1x3xbf16>' must be 'tensor<1x1x3xf32>': [B, Hq, Sq] in f32 for f16 and bf16 queries, else in the query element type}}
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do out(%do : tensor<1x1x3x2xbf16>) lse(%l : tensor<1x1x3xbf16>) : tensor<1x1x3x2xbf16>, tensor<1x1x5x2xbf16>, tensor<1x1x5x2xbf16>, tensor<1x1x3x2xbf16> -> tensor<1x1x3x2xbf16>, tensor<1x1x5x2xbf16>, tensor<1x1x5x2xbf16>
  return
}

// -----

// The adjoint carries its forward's slopes, checked by the same rule.
func.func @grad_alibi_kv_heads(%q: tensor<1x4x3x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>, %do: tensor<1x4x3x8xf32>, %s: tensor<1x2xf32>) {
  // expected-error @+1 {{'kiln.attention_grad' op 'alibi_slopes' shape [1, 2] is not broadcastable to [B, Hq] = [1, 4]}}
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do alibi_slopes(%s : tensor<1x2xf32>) : tensor<1x4x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>, tensor<1x4x3x8xf32> -> tensor<1x4x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>
  return
}

// -----

// Sinks have a d_sinks result.
func.func @grad_sinks_without_dsinks(%q: tensor<1x2x3x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>, %do: tensor<1x2x3x8xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{'kiln.attention_grad' op has a 'dsinks' result if and only if it has 'sinks'}}
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do sinks(%s : tensor<2xf32>) : tensor<1x2x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x3x8xf32> -> tensor<1x2x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>
  return
}

// -----

func.func @grad_dsinks_type(%q: tensor<1x2x3x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>, %do: tensor<1x2x3x8xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{'kiln.attention_grad' op dsinks type 'tensor<2xf64>' must be the sinks type 'tensor<2xf32>'}}
  %dq, %dk, %dv, %ds = kiln.attention_grad %q, %k, %v, %do sinks(%s : tensor<2xf32>) : tensor<1x2x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x3x8xf32> -> tensor<1x2x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>, tensor<2xf64>
  return
}

// -----

// A d_sinks type without sinks is read as d_mask and rejected as one.
func.func @grad_dsinks_without_sinks(%q: tensor<1x2x3x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>, %do: tensor<1x2x3x8xf32>) {
  // expected-error @+1 {{'kiln.attention_grad' op has a 'dmask' result if and only if the mask is additive (a float mask)}}
  %dq, %dk, %dv, %ds = kiln.attention_grad %q, %k, %v, %do : tensor<1x2x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x3x8xf32> -> tensor<1x2x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>, tensor<2xf32>
  return
}

// -----

// The adjoint carries its forward's sinks, checked by the same rule.
func.func @grad_sinks_heads(%q: tensor<1x4x3x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>, %do: tensor<1x4x3x8xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{'kiln.attention_grad' op 'sinks' shape [2] must be [Hq] = [4]}}
  %dq, %dk, %dv, %ds = kiln.attention_grad %q, %k, %v, %do sinks(%s : tensor<2xf32>) : tensor<1x4x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>, tensor<1x4x3x8xf32> -> tensor<1x4x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>, tensor<2xf32>
  return
}

// -----

// The adjoint checks packed sequences as the forward does.
func.func @cu_seqlens_count(%q: tensor<1x1x3x2xf32>, %k: tensor<1x1x5x2xf32>, %do: tensor<1x1x3x2xf32>, %cq: tensor<2xi32>, %ck: tensor<3xi32>) {
  // expected-error @+1 {{'kiln.attention_grad' op 'cu_seqlens_q' has 2 entries and 'cu_seqlens_k' 3: both are N + 1 for the same N sequences}}
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %k, %do cu_seqlens(%cq, %ck : tensor<2xi32>, tensor<3xi32>) : tensor<1x1x3x2xf32>, tensor<1x1x5x2xf32>, tensor<1x1x5x2xf32>, tensor<1x1x3x2xf32> -> tensor<1x1x3x2xf32>, tensor<1x1x5x2xf32>, tensor<1x1x5x2xf32>
  return
}
