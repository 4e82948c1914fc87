//===- RaiseAttentionMask.cpp - Masks to band attributes ------------------===//
//
// RaiseAttentionMask: a boolean mask that is a conjunction of band terms and
// of terms independent of the query or of the key position becomes band
// attributes (causal, window_left, window_right, alignment) plus the
// residual terms, un-broadcast; an additive `select(m, 0, -inf)` mask
// becomes boolean first (and a `select(m, 0, finfo.min)` one with
// `empty-rows-as-zero`). RaiseAttentionMaskTerms.cpp proves what the mask
// is made of.
//
//===----------------------------------------------------------------------===//

#include "RaiseAttentionImpl.h"
#include "kiln/Dialect/Kiln/Transforms/Autodiff.h"

namespace mlir::kiln::raise_attention {

namespace {

//===----------------------------------------------------------------------===//
// Residual terms
//===----------------------------------------------------------------------===//

/// A residual term as a mask operand: cut to the attention's sizes (when it
/// comes from under a slice) and laid out trailing-aligned with
/// [B, Hq, Sq, Sk], each dim of its own size or 1, never broadcast.
Value materializeResidual(RewriterBase &rewriter, Location loc,
                          const Mapped &node, const AttentionShape &shape) {
  Value value = node.value;
  ArrayRef<int64_t> dims = node.getType().getShape();
  int64_t rank = static_cast<int64_t>(dims.size());
  SmallVector<int64_t> stops;
  bool cut = false;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = node.dims[d] == None ? 1 : shape.sizes[node.dims[d]];
    stops.push_back(size);
    cut |= size != dims[d];
  }
  if (cut)
    value = SliceOp::create(rewriter, loc, value, SmallVector<int64_t>(rank, 0),
                            stops, SmallVector<int64_t>(rank, 1));
  bool aligned = rank <= 4;
  for (int64_t d = 0; d < rank && aligned; ++d)
    aligned = node.dims[d] == None || node.dims[d] == 4 - rank + d;
  if (aligned)
    return value;
  SmallVector<int64_t> shape4(4, 1);
  for (int64_t d = 0; d < rank; ++d)
    if (node.dims[d] != None)
      shape4[node.dims[d]] = shape.sizes[node.dims[d]];
  return autodiff::reshapeTo(rewriter, loc, value, shape4);
}

/// The mapped dims of a residual must come in the attention's order for a
/// reshape to lay them out (they always do: layout ops keep the order).
bool isOrdered(const Mapped &node) {
  int8_t last = None;
  for (int8_t dim : node.dims) {
    if (dim == None)
      continue;
    if (dim <= last)
      return false;
    last = dim;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// RaiseAttentionMask
//===----------------------------------------------------------------------===//

AttentionShape getAttentionShape(AttentionOp op) {
  auto queryType = cast<RankedTensorType>(op.getQuery().getType());
  auto keyType = cast<RankedTensorType>(op.getKey().getType());
  return {{queryType.getDimSize(0), queryType.getDimSize(1),
           queryType.getDimSize(2), keyType.getDimSize(2)}};
}

/// Band attributes of kiln.attention.
struct BandAttrs {
  AttentionAlignment alignment;
  std::optional<int64_t> windowLeft, windowRight; // windowRight 0: causal
};

/// The band `lo <= j - i <= hi` (restricted to the op's index ranges) as
/// attributes, in the preferred alignment when it is representable there
/// (window edges >= 0), else in the other; nullopt when neither holds.
std::optional<BandAttrs> representBand(Band band, const AttentionShape &shape,
                                       AttentionAlignment preferred) {
  int64_t sq = shape.numQueries(), sk = shape.numKeys();
  // j - i lies in [-(Sq - 1), Sk - 1]: an edge beyond excludes nothing.
  if (band.lo && *band.lo <= -(sq - 1))
    band.lo.reset();
  if (band.hi && *band.hi >= sk - 1)
    band.hi.reset();
  if (band.lo && band.hi && *band.lo > *band.hi)
    return std::nullopt;
  AttentionAlignment other = preferred == AttentionAlignment::top_left
                                 ? AttentionAlignment::bottom_right
                                 : AttentionAlignment::top_left;
  // Prefer a form with `causal` (window_right = 0), then `preferred`.
  std::optional<BandAttrs> chosen;
  for (AttentionAlignment alignment : {preferred, other}) {
    // p(i) = i + offset; the band is offset - L <= j - i <= offset + R.
    int64_t offset =
        alignment == AttentionAlignment::bottom_right ? sk - sq : 0;
    BandAttrs attrs{alignment, std::nullopt, std::nullopt};
    if (band.lo)
      attrs.windowLeft = offset - *band.lo;
    if (band.hi)
      attrs.windowRight = *band.hi - offset;
    if ((attrs.windowLeft && *attrs.windowLeft < 0) ||
        (attrs.windowRight && *attrs.windowRight < 0))
      continue;
    bool causal = attrs.windowRight == 0;
    if (!chosen || (causal && chosen->windowRight != 0))
      chosen = attrs;
  }
  return chosen;
}

/// kiln.attention `op` rebuilt with another key, value, mask and band; every
/// other operand, attribute and result type kept.
AttentionOp rebuildAttention(RewriterBase &rewriter, AttentionOp op, Value mask,
                             const BandAttrs &band) {
  MLIRContext *context = op.getContext();
  IntegerAttr windowLeft, windowRight;
  UnitAttr causal;
  if (band.windowLeft)
    windowLeft = rewriter.getI64IntegerAttr(*band.windowLeft);
  if (band.windowRight && *band.windowRight == 0)
    causal = rewriter.getUnitAttr();
  else if (band.windowRight)
    windowRight = rewriter.getI64IntegerAttr(*band.windowRight);
  auto attention = AttentionOp::create(
      rewriter, op.getLoc(), op->getResultTypes(), op.getQuery(), op.getKey(),
      op.getValue(), mask, op.getKeyLengths(), op.getQueryLengths(),
      op.getSeed(), op.getAlibiSlopes(), op.getSinks(), op.getCuSeqlensQ(),
      op.getCuSeqlensK(), op.getScaleAttr(), causal,
      windowLeft, windowRight,
      AttentionAlignmentAttr::get(context, band.alignment), op.getSoftcapAttr(),
      op.getDropoutPAttr());
  attention->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  return attention;
}

} // namespace

/// Raises the mask of `op` to band attributes plus the residual terms (and
/// an additive mask to a boolean one); returns the new op, which replaced
/// `op`.
FailureOr<AttentionOp> raiseMask(AttentionOp op, RewriterBase &rewriter,
                                 const RaiseAttentionOptions &options) {
  Value mask = op.getMask();
  if (!mask)
    return rewriter.notifyMatchFailure(op, "no mask");
  // With packed sequences the band applies within each sequence, and a
  // global band term of the mask is none of it.
  if (op.hasPackedSequences())
    return rewriter.notifyMatchFailure(op, "packed sequences");
  AttentionShape shape = getAttentionShape(op);
  if (shape.numQueries() == 0 || shape.numKeys() == 0)
    return rewriter.notifyMatchFailure(op, "no query or no key");

  MaskTerms terms;
  bool additive = op.hasAdditiveMask();
  Mapped root = mapMask(mask);
  if (additive) {
    if (failed(collectAdditive(root, shape, terms, 0)))
      return rewriter.notifyMatchFailure(
          op, "additive mask is not a sum of select(m, 0, -inf) terms");
    if (terms.usesFiniteBlock && !options.emptyRowsAsZero)
      return rewriter.notifyMatchFailure(
          op, "finite blocking values need empty-rows-as-zero");
  } else {
    if (failed(collectBoolean(root, shape, terms, 0)))
      return rewriter.notifyMatchFailure(op, "mask has a term that is no band");
    if (!terms.foundBand)
      return rewriter.notifyMatchFailure(op, "mask has no band term");
  }
  if (!llvm::all_of(terms.residual, isOrdered) ||
      !llvm::all_of(terms.residualAdditive,
                    [](const auto &term) { return isOrdered(term.first); }))
    return rewriter.notifyMatchFailure(op, "residual dims out of order");

  // The op's own band, in terms of j - i.
  int64_t sq = shape.numQueries(), sk = shape.numKeys();
  int64_t offset =
      op.getAlignment() == AttentionAlignment::bottom_right ? sk - sq : 0;
  Band band = terms.band;
  std::optional<int64_t> ownLo, ownHi;
  if (IntegerAttr left = op.getWindowLeftAttr())
    if (left.getInt() < sq + sk)
      ownLo = offset - left.getInt();
  if (std::optional<int64_t> right = op.getEffectiveWindowRight())
    if (*right < sq + sk)
      ownHi = offset + *right;
  band.intersect(ownLo, ownHi);
  bool hasOwnBand = op.getWindowLeftAttr() || op.getEffectiveWindowRight();
  std::optional<BandAttrs> attrs = representBand(
      band, shape,
      hasOwnBand ? op.getAlignment() : AttentionAlignment::top_left);
  if (!attrs)
    return rewriter.notifyMatchFailure(op, "band is not representable");
  if (!attrs->windowLeft && !attrs->windowRight)
    attrs->alignment = op.getAlignment();

  Location loc = op.getLoc();
  Value newMask;
  auto conjoin = [&](Value term) {
    newMask = newMask ? MulOp::create(rewriter, loc, newMask, term).getResult()
                      : term;
  };
  for (const Mapped &term : terms.residual) {
    if (isSplatBool(term.value, true))
      continue;
    conjoin(materializeResidual(rewriter, loc, term, shape));
  }
  for (const auto &[term, elements] : terms.residualAdditive) {
    SmallVector<bool> visible;
    for (const APFloat &value : elements.getValues<APFloat>())
      visible.push_back(value.isZero());
    auto type =
        RankedTensorType::get(term.getType().getShape(), rewriter.getI1Type());
    Value constant = ConstantOp::create(rewriter, loc,
                                        DenseElementsAttr::get(type, visible));
    conjoin(
        materializeResidual(rewriter, loc, Mapped{constant, term.dims}, shape));
  }
  AttentionOp attention = rebuildAttention(rewriter, op, newMask, *attrs);
  rewriter.replaceOp(op, attention);
  return attention;
}

} // namespace mlir::kiln::raise_attention
