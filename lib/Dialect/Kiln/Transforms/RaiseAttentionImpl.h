//===- RaiseAttentionImpl.h - Pieces of kiln-raise-attention ----*- C++ -*-===//
//
// Private to lib/Dialect/Kiln/Transforms. What the files of
// `kiln-raise-attention` share:
//
// - RaiseAttention.cpp: the patterns, the driver (raiseAttention) and the
//   pass.
// - RaiseAttentionWrittenOut.cpp: the matcher of the written-out form,
//   matmul(softmax(cap(scale * Q Kᵀ) + mask), V), and its rewrite.
// - RaiseAttentionRepeatKV.cpp: K and V repeated along the heads
//   (`repeat_kv`), and their de-repeat.
// - RaiseAttentionMaskTerms.cpp: the mask analysis, which proves what a mask
//   is: band terms (causal, windows) and terms independent of the query or
//   of the key position.
// - RaiseAttentionMask.cpp: the mask rewrite, band attributes plus the
//   residual terms.
// - RaiseAttentionConstants.cpp: what the pieces read off constants.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_DIALECT_KILN_TRANSFORMS_RAISEATTENTIONIMPL_H
#define KILN_LIB_DIALECT_KILN_TRANSFORMS_RAISEATTENTIONIMPL_H

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/RaiseAttention.h"

#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mlir::kiln::raise_attention {

//===----------------------------------------------------------------------===//
// Constants (RaiseAttentionConstants.cpp)
//===----------------------------------------------------------------------===//

/// The dense elements of a kiln.constant, or null.
DenseElementsAttr getConstantElements(Value value);

/// The value of a splat float constant (rank 0 or any shape), or nullopt.
std::optional<APFloat> getSplatFloat(Value value);

/// The value of a splat float constant as a double, or nullopt.
std::optional<double> getSplatDouble(Value value);

/// True for a splat i1 constant holding `truth`.
bool isSplatBool(Value value, bool truth);

/// How an additive mask value acts: 0 (visible), a blocking value (-inf, or
/// a finite value at or below the type's lowest finite one, finfo.min), or
/// anything else.
enum class AdditiveKind : uint8_t { Visible, BlockedInf, BlockedFinite, Other };

AdditiveKind classifyAdditive(const APFloat &value);

/// True when `value` is provably free of -inf and NaN: built from finite
/// constants by selects and layout ops only (a sum of two finite values can
/// overflow to -inf, so sums do not count).
bool isProvablyFinite(Value value, int depth = 0);

/// The ranked tensor type of `value`, or null.
RankedTensorType getRankedType(Value value);

//===----------------------------------------------------------------------===//
// Values seen from the attention's [B, Hq, Sq, Sk]
//===----------------------------------------------------------------------===//

/// The attention dims a dim of a mask term can stand for. `None`: the term
/// is read at index 0 of that dim whatever the attention index (a size-1
/// dim, or one a prefix slice cuts to size 1).
enum AttentionDim : int8_t {
  None = -1,
  DimB = 0,
  DimH = 1,
  DimQ = 2,
  DimK = 3
};

/// A value feeding the attention's mask, with the attention dim each of its
/// dims stands for. A dim mapped to X has at least the size of X (more under
/// a prefix slice, whose cut-off elements are never read).
struct Mapped {
  Value value;
  SmallVector<int8_t, 4> dims;

  RankedTensorType getType() const { return getRankedType(value); }
  bool has(int8_t dim) const { return llvm::is_contained(dims, dim); }
};

/// The attention's sizes.
struct AttentionShape {
  int64_t sizes[4]; // B, Hq, Sq, Sk

  int64_t numQueries() const { return sizes[DimQ]; }
  int64_t numKeys() const { return sizes[DimK]; }
};

/// A band `lo <= j - i <= hi` (an absent edge is unbounded), the
/// conjunction of the band terms of a mask.
struct Band {
  std::optional<int64_t> lo, hi;

  void intersect(std::optional<int64_t> termLo, std::optional<int64_t> termHi) {
    if (termLo)
      lo = lo ? std::max(*lo, *termLo) : *termLo;
    if (termHi)
      hi = hi ? std::min(*hi, *termHi) : *termHi;
  }
};

/// What a mask is made of.
struct MaskTerms {
  Band band;
  /// A band term or an all-true term was found (so raising makes progress).
  bool foundBand = false;
  /// Boolean terms independent of the query or of the key position, kept
  /// as the mask.
  SmallVector<Mapped> residual;
  /// Additive constants (0 or blocking) independent of the query or of the
  /// key position, kept as the boolean `value == 0`.
  SmallVector<std::pair<Mapped, DenseElementsAttr>> residualAdditive;
  /// A finite blocking value was read as "not visible".
  bool usesFiniteBlock = false;
};

//===----------------------------------------------------------------------===//
// The mask analysis (RaiseAttentionMaskTerms.cpp)
//===----------------------------------------------------------------------===//

/// The attention's mask, aligned with [B, Hq, Sq, Sk] at its trailing dim.
Mapped mapMask(Value mask);

/// Collects the terms of a boolean mask: `kiln.mul` (and) and
/// `select(a, b, false)` split it, layout ops are looked through, and a
/// term that does not depend on both the query and the key position is
/// kept whole. Fails on a term that depends on both and is no band.
LogicalResult collectBoolean(const Mapped &node, const AttentionShape &shape,
                             MaskTerms &terms, int depth);

/// Collects the terms of an additive mask: sums of `select(m, 0, C)` and of
/// constants holding only 0 and C, C = -inf or at most finfo.min, through
/// layout ops; m is collected as a boolean mask. Fails on anything else.
LogicalResult collectAdditive(const Mapped &node, const AttentionShape &shape,
                              MaskTerms &terms, int depth);

//===----------------------------------------------------------------------===//
// The rewrites
//===----------------------------------------------------------------------===//

// RaiseAttentionMask.cpp
/// Raises the mask of `op` to band attributes plus the residual terms (and
/// an additive mask to a boolean one); returns the new op, which replaced
/// `op`.
FailureOr<AttentionOp> raiseMask(AttentionOp op, RewriterBase &rewriter,
                                 const RaiseAttentionOptions &options);

// RaiseAttentionRepeatKV.cpp
/// Makes `op` read the unrepeated K and V, in place.
LogicalResult derepeatKeyValue(AttentionOp op, RewriterBase &rewriter);

// RaiseAttentionWrittenOut.cpp
/// Replaces the written-out attention ending in `pv` by a kiln.attention,
/// which is returned.
FailureOr<AttentionOp> raiseWrittenOut(MatmulOp pv, RewriterBase &rewriter,
                                       const RaiseAttentionOptions &options);

} // namespace mlir::kiln::raise_attention

#endif // KILN_LIB_DIALECT_KILN_TRANSFORMS_RAISEATTENTIONIMPL_H
