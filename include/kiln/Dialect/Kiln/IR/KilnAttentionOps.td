//===- KilnAttentionOps.td - Attention kiln ops ---------------------------===//
//
// Scaled dot-product attention with grouped-query heads, boolean and additive
// masks, per-batch key/query lengths, causal and sliding-window bands, score
// soft-capping and dropout. The semantics contract is
// docs/Attention.md.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNATTENTIONOPS_TD
#define KILN_DIALECT_KILN_IR_KILNATTENTIONOPS_TD

include "kiln/Dialect/Kiln/IR/KilnBase.td"
include "kiln/Dialect/Kiln/IR/KilnAttrs.td"
include "kiln/Dialect/Kiln/IR/KilnAttentionInterface.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Kiln_AttentionOp : Kiln_Op<"attention", [Pure, AttrSizedOperandSegments,
    Kiln_AttentionOpInterface,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "scaled dot-product attention";
  let description = [{
    Computes `softmax(scale * Q·Kᵀ + masks) · V` per batch and query head,
    with the shapes

    - `query`: `[B, Hq, Sq, Dk]`, `key`: `[B, Hkv, Sk, Dk]`,
      `value`: `[B, Hkv, Sk, Dv]`, all of one floating-point element type;
    - `result`: `[B, Hq, Sq, Dv]`, inferred from `query` and `value`.

    Grouped-query attention: `Hq = R * Hkv` with `R >= 1`, and query head `h`
    reads kv head `h / R` (contiguous groups). `R = Hq` is multi-query
    attention. Any of `B`, `Sq`, `Sk` may be 0; a query row that sees no key
    produces exactly 0.

    Optional operands, each in its own keyword group:

    - `mask`: rank <= 4, broadcastable (trailing-aligned) to
      `[B, Hq, Sq, Sk]`. With `i1` elements, `true` means "may attend"; with
      the query's float type it is added to the scores (`-inf` blocks a key).
    - `key_lengths`, `query_lengths`: `[B]` of i32 or i64; key `j` (query `i`)
      of batch `b` takes part only if `j < key_lengths[b]`
      (`i < query_lengths[b]`). Values are clamped to `[0, Sk]` (`[0, Sq]`).
    - `seed`: rank-0 i64, keys the counter-based dropout generator; required
      when `dropout_p > 0`.
    - `alibi_slopes`: ALiBi's per-head slopes, rank 1 or 2 of any float type,
      broadcastable (trailing-aligned) to `[B, Hq]`: the logit of entry
      `(b, h, i, j)` gets `-alibi_slopes[b, h] * |j - p(i)|` added, with the
      position `p(i)` of `alignment` below (FlashAttention's `alibi_slopes`
      with the default alignment). The bias is computed, never stored as
      `[Sq, Sk]`; the slopes are constants of the model and get no gradient.
    - `sinks`: attention sinks (gpt-oss), `[Hq]` of f32 or the query's type:
      a learnable logit `sinks[h]` that joins the softmax of every row of
      query head `h` with no value. The probabilities become
      `P[i, j] = exp(t[i, j]) / (exp(sinks[h]) + sum_j exp(t[i, j]))`, so a
      row's probabilities sum to less than 1. The sink is neither scaled,
      capped, biased nor masked, and dropout leaves it alone (it weighs no
      value). A row that sees no key still produces exactly 0.
    - `cu_seqlens_q`, `cu_seqlens_k`: packed variable-length sequences
      (FlashAttention's and PyTorch's `varlen` layout, `[total, H, D]`
      stored as `[B, H, total, D]`), both rank 1 with `N + 1` entries of
      i32 or i64, given together: sequence `s` holds query rows
      `[cu_seqlens_q[s], cu_seqlens_q[s + 1])` and keys
      `[cu_seqlens_k[s], cu_seqlens_k[s + 1])`, the same in every batch
      entry. A query sees only the keys of its own sequence, and the band
      (`causal`, windows, `alignment`) and ALiBi's distance apply within
      the sequence, as if each were its own attention. Entries are clamped
      to `[0, Sq]` (`[0, Sk]`); a row in no sequence sees no key (a row in
      several, of a decreasing array, belongs to the first).

    Attributes:

    - `scale`: multiplies `Q·Kᵀ`; absent means `1/sqrt(Dk)`
      (see `getEffectiveScale()`). Must be finite and non-zero.
    - `causal`: key `j` is visible to query `i` only if `j <= p(i)`; the same
      as `window_right = 0`.
    - `window_left = L`, `window_right = R`: key `j` is visible only if
      `p(i) - L <= j <= p(i) + R` (inclusive band, both non-negative).
    - `alignment`: how `p(i)` places query `i` among the keys:
      `bottom_right` (default) is `p(i) = i + Sk - Sq`, `top_left` is
      `p(i) = i`.
    - `softcap = c`: scores become `c * tanh(s / c)` after scaling and before
      the masks; `c` must be positive and finite.
    - `dropout_p`: probability of dropping an entry of the attention
      probabilities, in `[0, 1)`; kept entries are scaled by
      `1 / (1 - dropout_p)`.

    The op is pure: its dropout draws are a function of `seed` and the
    position `(b, h, i, j)`.

    An optional second result `lse` holds each row's log-sum-exp of the
    logits, `LSE[b, h, i] = m_i + log sum_j exp(t[i, j] - m_i)` with
    `m_i = max_j t[i, j]`, and `+inf` for an empty row; with `sinks` the
    sink joins the sum (`LSE = log(exp(sinks[h]) + sum_j exp(t[i, j]))`,
    `sinks[h]` for an empty row). Its shape is
    `[B, Hq, Sq]`; its element type is f32 for f16 and bf16 queries, else
    the query's. The adjoint (`kiln.attention_grad` with `out` and `lse`)
    rebuilds the probabilities from it as `P = exp(t - LSE)` instead of
    recomputing each row's max and sum. Type inference gives the one-result
    form; the two-result form is built with explicit result types
    (`getLseType()`).

    ```mlir
    %o = kiln.attention %q, %k, %v
           mask(%m : tensor<2x1x3x5xi1>) key_lengths(%kl : tensor<2xi32>)
           {alignment = #kiln.alignment<top_left>, causal, window_left = 2 : i64}
           : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x16xf32>
           -> tensor<2x4x3x16xf32>
    %o2, %lse = kiln.attention %q, %k, %v {causal}
           : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x16xf32>
           -> tensor<2x4x3x16xf32>, tensor<2x4x3xf32>
    ```
  }];

  let arguments = (ins
    Kiln_FloatTensor:$query,
    Kiln_FloatTensor:$key,
    Kiln_FloatTensor:$value,
    Optional<Kiln_Tensor>:$mask,
    Optional<Kiln_IndexTensor>:$key_lengths,
    Optional<Kiln_IndexTensor>:$query_lengths,
    Optional<Kiln_SeedTensor>:$seed,
    Optional<Kiln_FloatTensor>:$alibi_slopes,
    Optional<Kiln_FloatTensor>:$sinks,
    Optional<Kiln_IndexTensor>:$cu_seqlens_q,
    Optional<Kiln_IndexTensor>:$cu_seqlens_k,
    OptionalAttr<F64Attr>:$scale,
    UnitAttr:$causal,
    OptionalAttr<I64Attr>:$window_left,
    OptionalAttr<I64Attr>:$window_right,
    DefaultValuedAttr<Kiln_AttentionAlignmentAttr,
                      "::mlir::kiln::AttentionAlignment::bottom_right">:$alignment,
    OptionalAttr<F64Attr>:$softcap,
    DefaultValuedAttr<F64Attr, "0.0">:$dropout_p
  );
  let results = (outs Kiln_FloatTensor:$result,
                      Optional<Kiln_FloatTensor>:$lse);

  let assemblyFormat = [{
    $query `,` $key `,` $value
    (`mask` `(` $mask^ `:` type($mask) `)`)?
    (`key_lengths` `(` $key_lengths^ `:` type($key_lengths) `)`)?
    (`query_lengths` `(` $query_lengths^ `:` type($query_lengths) `)`)?
    (`seed` `(` $seed^ `:` type($seed) `)`)?
    (`alibi_slopes` `(` $alibi_slopes^ `:` type($alibi_slopes) `)`)?
    (`sinks` `(` $sinks^ `:` type($sinks) `)`)?
    (`cu_seqlens` `(` $cu_seqlens_q^ `,` $cu_seqlens_k `:`
       type($cu_seqlens_q) `,` type($cu_seqlens_k) `)`)?
    attr-dict `:` type($query) `,` type($key) `,` type($value)
    `->` type($result) (`,` type($lse)^)?
  }];

  let builders = [
    // Plain attention: no optional operands, every attribute at its default.
    OpBuilder<(ins "::mlir::Value":$query, "::mlir::Value":$key,
                   "::mlir::Value":$value)>
  ];

  let hasVerifier = 1;
  // Folds to zeros when every row is empty; canonicalizes away optional
  // operands and attributes that cannot change the result.
  let hasFolder = 1;
  let hasCanonicalizer = 1;

  // getGroupSize, getEffectiveScale, getEffectiveWindowRight, hasBooleanMask
  // and the other derived accessors come from Kiln_AttentionOpInterface.
  let extraClassDeclaration = [{
    /// InferTypeOpInterface: inference gives the one-result form [O]; the
    /// types [O, LSE] are compatible with it too (verify() checks LSE).
    static bool isCompatibleReturnTypes(::mlir::TypeRange inferred,
                                        ::mlir::TypeRange actual);
    /// Returns the type of the optional `lse` result for a rank-4 query
    /// type [B, Hq, Sq, Dk]: [B, Hq, Sq] in f32 for f16 and bf16, else in
    /// the query's element type.
    static ::mlir::RankedTensorType getLseType(::mlir::RankedTensorType queryType);
    /// Returns a copy of this op, at its position, with the `lse` result
    /// when `withLse` is true and without it otherwise; the caller replaces
    /// and erases this op.
    AttentionOp cloneWithLse(::mlir::OpBuilder &builder, bool withLse);
  }];
}

def Kiln_AttentionGradOp : Kiln_Op<"attention_grad", [Pure,
    AttrSizedOperandSegments, AttrSizedResultSegments,
    Kiln_AttentionOpInterface]> {
  let summary = "the adjoint of kiln.attention (from O and LSE, or recomputed)";
  let description = [{
    The reverse-mode adjoint of `kiln.attention` with the same operands and
    attributes, plus `dout`, the adjoint of the attention's result
    (`[B, Hq, Sq, Dv]`). Results: `dQ`, `dK`, `dV` in the types of `query`,
    `key` and `value`, only when the mask is additive (float) `d_mask` in
    the mask's own type, and only with `sinks` `d_sinks` in the sinks' type.
    The boolean mask, the lengths, the seed, the ALiBi slopes and the
    sequence offsets get no gradient.

    The optional operands `out` (the forward's result O, `[B, Hq, Sq, Dv]`
    in the query's type) and `lse` (the forward's `lse` result, `[B, Hq,
    Sq]`, f32 for half types) come together or not at all. Without them the
    attention probabilities are recomputed from `query`, `key`, the masks
    and `softcap`, each row's max and sum included. With them (by contract
    the values the forward computed from the same operands) no row max or
    sum is recomputed:

    ```
    P[i, j] = exp(t[i, j] - LSE[i] - c[i])   (0 where j is not visible or LSE = +inf)
    D[i]    = rowsum(dO[i, :] * O[i, :])
    ```

    where `c[i] = log sum_j exp(t[i, j] - LSE[i])` over the visible keys
    (plus `exp(sinks[h] - LSE[i])` with sinks)
    when `|LSE[i]|` is finite and above 256, else 0: beyond that bound the
    rounding of LSE would make `exp(t - LSE)` arbitrarily wrong (a row whose
    every key carries a bias of -1e30 has LSE = its max in f32), and the
    row is renormalised; docs/Attention.md, "Adjoint".

    and `D` may replace `rowsum(dP * P)` below (the GPU kernels use it; the
    CPU lowering keeps `rowsum(dP * P)`, see docs/Attention.md). This holds
    with dropout too:
    `O[i, :] = sum_j P'[i, j] V[j, :]` with `P' = P * Z / (1 - dropout_p)`,
    so `sum_d dO[i, d] O[i, d] = sum_j P'[i, j] (dO · Vᵀ)[i, j]
    = sum_j P[i, j] dP[i, j]` with `dP = (dO · Vᵀ) * Z / (1 - dropout_p)`.
    In every case dropout's keep mask is redrawn from `seed` exactly as the
    forward draws it:

    ```
    dV     = P'ᵀ · dO                 (summed over the R query heads of a kv head)
    dP     = (dO · Vᵀ) * Z / (1 - dropout_p)
    dS     = P * (dP - rowsum(dP * P))
    d_mask = dS summed down to the mask's shape
    dS'    = dS * (1 - tanh²(scale * s / c))   (softcap only)
    dQ     = scale * dS' · K
    dK     = scale * dS'ᵀ · Q         (summed over the R query heads of a kv head)
    d_sinks[h] = -sum_{b, i} P_sink[b, h, i] * rowsum(dP * P)[b, h, i]
    ```

    where `P_sink = exp(sinks[h] - LSE[i])` is the sink's probability (its
    value is 0, so its dP is 0 and it changes neither D nor dS).

    Masked entries and empty rows contribute exactly 0 to every result.
    The contract is the "Adjoint" section of docs/Attention.md.

    ```mlir
    %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do {causal}
           : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x16xf32>,
             tensor<2x4x3x16xf32>
           -> tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x16xf32>
    ```
  }];

  let arguments = (ins
    Kiln_FloatTensor:$query,
    Kiln_FloatTensor:$key,
    Kiln_FloatTensor:$value,
    Kiln_FloatTensor:$dout,
    Optional<Kiln_Tensor>:$mask,
    Optional<Kiln_IndexTensor>:$key_lengths,
    Optional<Kiln_IndexTensor>:$query_lengths,
    Optional<Kiln_SeedTensor>:$seed,
    Optional<Kiln_FloatTensor>:$out,
    Optional<Kiln_FloatTensor>:$lse,
    Optional<Kiln_FloatTensor>:$alibi_slopes,
    Optional<Kiln_FloatTensor>:$sinks,
    Optional<Kiln_IndexTensor>:$cu_seqlens_q,
    Optional<Kiln_IndexTensor>:$cu_seqlens_k,
    OptionalAttr<F64Attr>:$scale,
    UnitAttr:$causal,
    OptionalAttr<I64Attr>:$window_left,
    OptionalAttr<I64Attr>:$window_right,
    DefaultValuedAttr<Kiln_AttentionAlignmentAttr,
                      "::mlir::kiln::AttentionAlignment::bottom_right">:$alignment,
    OptionalAttr<F64Attr>:$softcap,
    DefaultValuedAttr<F64Attr, "0.0">:$dropout_p
  );
  let results = (outs Kiln_FloatTensor:$dquery, Kiln_FloatTensor:$dkey,
                      Kiln_FloatTensor:$dvalue,
                      Optional<Kiln_FloatTensor>:$dmask,
                      Optional<Kiln_FloatTensor>:$dsinks);

  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $dout
    (`mask` `(` $mask^ `:` type($mask) `)`)?
    (`key_lengths` `(` $key_lengths^ `:` type($key_lengths) `)`)?
    (`query_lengths` `(` $query_lengths^ `:` type($query_lengths) `)`)?
    (`seed` `(` $seed^ `:` type($seed) `)`)?
    (`alibi_slopes` `(` $alibi_slopes^ `:` type($alibi_slopes) `)`)?
    (`sinks` `(` $sinks^ `:` type($sinks) `)`)?
    (`cu_seqlens` `(` $cu_seqlens_q^ `,` $cu_seqlens_k `:`
       type($cu_seqlens_q) `,` type($cu_seqlens_k) `)`)?
    (`out` `(` $out^ `:` type($out) `)`)?
    (`lse` `(` $lse^ `:` type($lse) `)`)?
    attr-dict `:` type($query) `,` type($key) `,` type($value) `,` type($dout)
    `->` type($dquery) `,` type($dkey) `,` type($dvalue)
    `` custom<AttentionGradOptionalResultTypes>(type($dmask), type($dsinks),
                                             ref(type($mask)), ref(type($sinks)))
  }];

  let hasVerifier = 1;

  let extraClassDeclaration = [{
    /// Returns true when the forward's `out` and `lse` are given.
    bool hasSavedForward() { return getOut() && getLse(); }
  }];
}

#endif // KILN_DIALECT_KILN_IR_KILNATTENTIONOPS_TD
