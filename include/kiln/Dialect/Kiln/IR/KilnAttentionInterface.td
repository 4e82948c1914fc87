//===- KilnAttentionInterface.td - What an attention op means -*- tablegen -*-===//
//
// The one description of an attention op's semantics, shared by
// kiln.attention and kiln.attention_grad (the adjoint carries its forward's
// operands and attributes). Every lowering (CPU loops, GPU kernels, the
// decomposition into primitive ops) reads an attention op through this
// interface and through the builders of kiln/Dialect/Kiln/Utils/
// AttentionUtils.h, never through a copy of the rules. docs/Attention.md is
// the contract.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNATTENTIONINTERFACE_TD
#define KILN_DIALECT_KILN_IR_KILNATTENTIONINTERFACE_TD

include "mlir/IR/OpBase.td"

def Kiln_AttentionOpInterface : OpInterface<"AttentionOpInterface"> {
  let cppNamespace = "::mlir::kiln";
  let description = [{
    An op that computes (or differentiates) scaled dot-product attention of
    `query` [B, Hq, Sq, Dk] against `key` [B, Hkv, Sk, Dk] and `value`
    [B, Hkv, Sk, Dv], with the optional `mask` (boolean or additive),
    `key_lengths`/`query_lengths`, dropout `seed`, ALiBi `alibi_slopes`,
    attention `sinks`, packed sequences `cu_seqlens_q`/`cu_seqlens_k`, and
    the attributes
    `scale`, `causal`, `window_left`, `window_right`, `alignment`, `softcap`
    and `dropout_p` of docs/Attention.md.

    The methods without a default are the ops' own ODS accessors. The
    others derive the quantities every backend needs from them; the ops get
    them as members through the interface's trait.
  }];
  let methods = [
    // The operands and attributes, by the ops' ODS accessors.
    InterfaceMethod<"The query, [B, Hq, Sq, Dk].", "::mlir::Value",
                    "getQuery">,
    InterfaceMethod<"The keys, [B, Hkv, Sk, Dk].", "::mlir::Value", "getKey">,
    InterfaceMethod<"The values, [B, Hkv, Sk, Dv].", "::mlir::Value",
                    "getValue">,
    InterfaceMethod<"The boolean or additive mask, or null.", "::mlir::Value",
                    "getMask">,
    InterfaceMethod<"The [B] key lengths, or null.", "::mlir::Value",
                    "getKeyLengths">,
    InterfaceMethod<"The [B] query lengths, or null.", "::mlir::Value",
                    "getQueryLengths">,
    InterfaceMethod<"The rank-0 i64 dropout seed, or null.", "::mlir::Value",
                    "getSeed">,
    InterfaceMethod<"The ALiBi slopes, broadcastable to [B, Hq], or null.",
                    "::mlir::Value", "getAlibiSlopes">,
    InterfaceMethod<"The [Hq] sink logits, or null.", "::mlir::Value",
                    "getSinks">,
    InterfaceMethod<"The [N + 1] query offsets of packed sequences, or null.",
                    "::mlir::Value", "getCuSeqlensQ">,
    InterfaceMethod<"The [N + 1] key offsets of packed sequences, or null.",
                    "::mlir::Value", "getCuSeqlensK">,
    InterfaceMethod<"The `scale` attribute, or null.", "::mlir::FloatAttr",
                    "getScaleAttr">,
    InterfaceMethod<"Whether `causal` is set.", "bool", "getCausal">,
    InterfaceMethod<"The `window_left` attribute, or null.",
                    "::mlir::IntegerAttr", "getWindowLeftAttr">,
    InterfaceMethod<"The `window_right` attribute, or null.",
                    "::mlir::IntegerAttr", "getWindowRightAttr">,
    InterfaceMethod<"Where query row i sits among the keys.",
                    "::mlir::kiln::AttentionAlignment", "getAlignment">,
    InterfaceMethod<"The `softcap` attribute, or null.", "::mlir::FloatAttr",
                    "getSoftcapAttr">,
    InterfaceMethod<"The `dropout_p` attribute.", "::mlir::FloatAttr",
                    "getDropoutPAttr">,

    // What they mean.
    InterfaceMethod<"Hq, the number of query heads (dim 1 of the query).",
      "int64_t", "getNumQueryHeads", (ins), [{}], [{
        return ::llvm::cast<::mlir::ShapedType>($_op.getQuery().getType())
            .getDimSize(1);
      }]>,
    InterfaceMethod<"Hkv, the number of key/value heads (dim 1 of the key).",
      "int64_t", "getNumKVHeads", (ins), [{}], [{
        return ::llvm::cast<::mlir::ShapedType>($_op.getKey().getType())
            .getDimSize(1);
      }]>,
    InterfaceMethod<[{
        R = Hq / Hkv, the number of query heads that share one kv head;
        query head `h` reads kv head `h / R`. 1 for the degenerate
        Hq = Hkv = 0 (the verifier rejects Hkv = 0 < Hq).
      }],
      "int64_t", "getGroupSize", (ins), [{}], [{
        int64_t numKVHeads = $_op.getNumKVHeads();
        return numKVHeads == 0 ? 1 : $_op.getNumQueryHeads() / numKVHeads;
      }]>,
    InterfaceMethod<[{
        The `scale` attribute, or 1/sqrt(Dk) when it is absent (1 when
        Dk = 0: every score is then 0 whatever the scale).
      }],
      "double", "getEffectiveScale", (ins), [{}], [{
        return ::mlir::kiln::detail::getEffectiveAttentionScale(
            $_op.getScaleAttr(), $_op.getQuery().getType());
      }]>,
    InterfaceMethod<"The left edge L of the band, std::nullopt when unbounded.",
      "std::optional<int64_t>", "getEffectiveWindowLeft", (ins), [{}], [{
        if (::mlir::IntegerAttr left = $_op.getWindowLeftAttr())
          return left.getInt();
        return std::nullopt;
      }]>,
    InterfaceMethod<[{
        The right edge R of the band: 0 when `causal`, else the
        `window_right` attribute, or std::nullopt when unbounded.
      }],
      "std::optional<int64_t>", "getEffectiveWindowRight", (ins), [{}], [{
        if ($_op.getCausal())
          return 0;
        if (::mlir::IntegerAttr right = $_op.getWindowRightAttr())
          return right.getInt();
        return std::nullopt;
      }]>,
    InterfaceMethod<"The softcap c, std::nullopt when scores are not capped.",
      "std::optional<double>", "getSoftcapValue", (ins), [{}], [{
        if (::mlir::FloatAttr cap = $_op.getSoftcapAttr())
          return cap.getValueAsDouble();
        return std::nullopt;
      }]>,
    InterfaceMethod<"The dropout probability, in [0, 1) once verified.",
      "double", "getDropoutProbability", (ins), [{}], [{
        return $_op.getDropoutPAttr().getValueAsDouble();
      }]>,
    InterfaceMethod<[{
        Whether the queries and keys are packed sequences (`cu_seqlens_q`
        and `cu_seqlens_k`, which the verifier requires together).
      }],
      "bool", "hasPackedSequences", (ins), [{}], [{
        return static_cast<bool>($_op.getCuSeqlensQ());
      }]>,
    InterfaceMethod<"N, the number of packed sequences (0 without them).",
      "int64_t", "getNumPackedSequences", (ins), [{}], [{
        ::mlir::Value offsets = $_op.getCuSeqlensQ();
        if (!offsets)
          return 0;
        int64_t size =
            ::llvm::cast<::mlir::ShapedType>(offsets.getType()).getDimSize(0);
        return size > 0 ? size - 1 : 0;
      }]>,
    InterfaceMethod<"Whether the mask is a boolean (i1) mask.",
      "bool", "hasBooleanMask", (ins), [{}], [{
        ::mlir::Value mask = $_op.getMask();
        return mask && ::llvm::cast<::mlir::ShapedType>(mask.getType())
                           .getElementType().isInteger(1);
      }]>,
    InterfaceMethod<"Whether the mask is an additive (float) mask.",
      "bool", "hasAdditiveMask", (ins), [{}], [{
        ::mlir::Value mask = $_op.getMask();
        return mask && ::llvm::isa<::mlir::FloatType>(
                           ::llvm::cast<::mlir::ShapedType>(mask.getType())
                               .getElementType());
      }]>,
  ];
}

#endif // KILN_DIALECT_KILN_IR_KILNATTENTIONINTERFACE_TD
