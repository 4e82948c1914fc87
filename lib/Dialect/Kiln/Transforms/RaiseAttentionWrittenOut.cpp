//===- RaiseAttentionWrittenOut.cpp - The written-out attention -----------===//
//
// RaiseWrittenOutAttention: matmul(softmax(cap(scale * Q Kᵀ) + mask), V) as
// PyTorch's eager attention writes it (with an optional dropout, and the
// softmax optionally in a wider float type), to kiln.attention; with
// attention sinks as gpt-oss writes them (a per-head column concatenated to
// the logits, softmaxed with them and sliced off), to its `sinks` operand.
//
//===----------------------------------------------------------------------===//

#include "RaiseAttentionImpl.h"
#include "kiln/Dialect/Kiln/IR/KilnShapeUtils.h"

#include <cmath>

namespace mlir::kiln::raise_attention {

namespace {

/// The scores part of the written-out form: cap(scale * Q Kᵀ).
struct ScoresMatch {
  Value query, key;
  double scale = 1.0;
  std::optional<double> softcap;
};

/// The scalar of `mul(x, c)` / `mul(c, x)` that does not change x's type:
/// returns (x, c).
std::optional<std::pair<Value, double>> matchScalarMul(MulOp mul) {
  for (auto [x, c] : {std::pair(mul.getLhs(), mul.getRhs()),
                      std::pair(mul.getRhs(), mul.getLhs())}) {
    std::optional<double> scalar = getSplatDouble(c);
    if (scalar && x.getType() == mul.getType())
      return std::make_pair(x, *scalar);
  }
  return std::nullopt;
}

/// Matches `[cap * tanh(s / cap)] of [s * c | s / c | s] of
/// matmul(Q, transpose(K, 2, 3))`, every intermediate with one use.
std::optional<ScoresMatch> matchScores(Value scores) {
  ScoresMatch match;
  Value x = scores;
  // Softcap: mul(tanh(div(s, cap)), cap).
  if (auto mul = x.getDefiningOp<MulOp>()) {
    if (std::optional<std::pair<Value, double>> outer = matchScalarMul(mul)) {
      if (auto tanh = outer->first.getDefiningOp<TanhOp>()) {
        auto div = tanh.getOperand().getDefiningOp<DivOp>();
        if (!div || !mul->hasOneUse() || !tanh->hasOneUse() ||
            !div->hasOneUse() || div.getType() != div.getLhs().getType())
          return std::nullopt;
        std::optional<double> inner = getSplatDouble(div.getRhs());
        double cap = outer->second;
        if (!inner || *inner != cap || !(cap > 0) || !std::isfinite(cap))
          return std::nullopt;
        match.softcap = cap;
        x = div.getLhs();
      }
    }
  }
  // Scale: mul by or div by a scalar constant.
  if (auto mul = x.getDefiningOp<MulOp>()) {
    std::optional<std::pair<Value, double>> scaled = matchScalarMul(mul);
    if (!scaled || !mul->hasOneUse())
      return std::nullopt;
    match.scale = scaled->second;
    x = scaled->first;
  } else if (auto div = x.getDefiningOp<DivOp>()) {
    std::optional<double> divisor = getSplatDouble(div.getRhs());
    if (!divisor || !div->hasOneUse() ||
        div.getType() != div.getLhs().getType())
      return std::nullopt;
    match.scale = 1.0 / *divisor;
    x = div.getLhs();
  }
  if (!std::isfinite(match.scale) || match.scale == 0)
    return std::nullopt;
  auto matmul = x.getDefiningOp<MatmulOp>();
  if (!matmul || !matmul->hasOneUse())
    return std::nullopt;
  Value keyT = matmul.getRhs();
  Value key;
  if (auto transpose = keyT.getDefiningOp<TransposeOp>()) {
    if (getRankedType(transpose.getInput()).getRank() == 4 &&
        ((transpose.getDim0() == 2 && transpose.getDim1() == 3) ||
         (transpose.getDim0() == 3 && transpose.getDim1() == 2)))
      key = transpose.getInput();
  } else if (auto permute = keyT.getDefiningOp<PermuteOp>()) {
    if (permute.getPermutation() == ArrayRef<int64_t>{0, 1, 3, 2})
      key = permute.getInput();
  }
  if (!key || !keyT.hasOneUse())
    return std::nullopt;
  match.query = matmul.getLhs();
  match.key = key;
  return match;
}

/// gpt-oss's sinks around the softmax: `slice(softmax(c'))` that drops the
/// first or the last column of the keys' axis, where `c'` is
/// `c - max(c, axis 3, keep_dims)` or `c` itself and
/// `c = concat(t, column)` (or `concat(column, t)`) on axis 3, `column` a
/// [B, Hq, Sq, 1] broadcast of one logit per head. The max subtraction is
/// exact (softmax subtracts its row max again, and the sink column is part
/// of the row). Every intermediate is read by the pattern alone.
struct SinksMatch {
  /// The sinks, [Hq] or (to be reshaped to it) [1, Hq, 1, 1], and the
  /// logits t, [B, Hq, Sq, Sk].
  Value sinks, logits;
};

/// Matches the slice side: returns the value the slice reads and whether
/// it dropped the first column (else the last).
std::optional<std::pair<Value, bool>> matchSinkSlice(SliceOp slice) {
  RankedTensorType in = getRankedType(slice.getInput());
  RankedTensorType out = getRankedType(slice.getResult());
  if (!in || !out || in.getRank() != 4 || !slice->hasOneUse() ||
      in.getDimSize(3) != out.getDimSize(3) + 1)
    return std::nullopt;
  ArrayRef<int64_t> starts = slice.getStarts(), stops = slice.getStops();
  if (llvm::any_of(slice.getStrides(), [](int64_t s) { return s != 1; }))
    return std::nullopt;
  for (int64_t d = 0; d < 3; ++d)
    if (starts[d] != 0 || stops[d] != in.getDimSize(d))
      return std::nullopt;
  bool first = starts[3] == 1 && stops[3] == in.getDimSize(3);
  bool last = starts[3] == 0 && stops[3] == in.getDimSize(3) - 1;
  if (!first && !last)
    return std::nullopt;
  return std::make_pair(slice.getInput(), first);
}

/// The sinks of a [B, Hq, Sq, 1] column broadcast from [1, Hq, 1, 1]: the
/// [Hq] tensor that was reshaped to it, else the [1, Hq, 1, 1] source; or
/// null.
Value matchSinkColumn(Value column) {
  auto broadcast = column.getDefiningOp<BroadcastToOp>();
  RankedTensorType columnType = getRankedType(column);
  if (!broadcast || !broadcast->hasOneUse() || !columnType ||
      columnType.getDimSize(3) != 1)
    return Value();
  Value source = broadcast.getInput();
  RankedTensorType sourceType = getRankedType(source);
  int64_t heads = columnType.getDimSize(1);
  if (!sourceType || sourceType.getRank() != 4 ||
      sourceType.getShape() != ArrayRef<int64_t>{1, heads, 1, 1})
    return Value();
  if (auto reshape = source.getDefiningOp<ReshapeOp>()) {
    RankedTensorType inner = getRankedType(reshape.getInput());
    if (inner && inner.getShape() == ArrayRef<int64_t>{heads})
      return reshape.getInput();
  }
  return source;
}

/// Matches the softmax input `x` of a sink slice (`sinkFirst`: the column
/// the slice dropped) as `[c - max(c)] of concat(t, column)`.
std::optional<SinksMatch> matchSinkLogits(Value x, bool sinkFirst) {
  Value combined = x;
  if (auto sub = x.getDefiningOp<SubOp>()) {
    auto max = sub.getRhs().getDefiningOp<MaxOp>();
    if (!sub->hasOneUse() || !max || !max->hasOneUse() ||
        max.getInput() != sub.getLhs() || !max.getKeepDims() ||
        max.getAxes() != ArrayRef<int64_t>{3} ||
        sub.getType() != sub.getLhs().getType())
      return std::nullopt;
    combined = sub.getLhs();
    // The concat feeds the max and the subtraction, nothing else.
    if (!llvm::all_of(combined.getUsers(), [&](Operation *user) {
          return user == sub || user == max;
        }))
      return std::nullopt;
  } else if (!combined.hasOneUse()) {
    return std::nullopt;
  }
  auto concat = combined.getDefiningOp<ConcatOp>();
  if (!concat || concat.getAxis() != 3 || concat.getInputs().size() != 2)
    return std::nullopt;
  Value logits = concat.getInputs()[sinkFirst ? 1 : 0];
  Value column = concat.getInputs()[sinkFirst ? 0 : 1];
  Value sinks = matchSinkColumn(column);
  if (!sinks)
    return std::nullopt;
  return SinksMatch{sinks, logits};
}

} // namespace

/// Replaces the written-out attention ending in `pv` by a kiln.attention,
/// which is returned.
FailureOr<AttentionOp> raiseWrittenOut(MatmulOp pv, RewriterBase &rewriter,
                                       const RaiseAttentionOptions &options) {
  RankedTensorType outType = getRankedType(pv.getResult());
  RankedTensorType probsType = getRankedType(pv.getLhs());
  RankedTensorType valueType = getRankedType(pv.getRhs());
  if (!outType || !probsType || !valueType || outType.getRank() != 4 ||
      probsType.getRank() != 4 || valueType.getRank() != 4 ||
      !isa<FloatType>(outType.getElementType()))
    return rewriter.notifyMatchFailure(pv, "not a rank-4 float matmul");
  Type elementType = outType.getElementType();

  // [dropout] of [convert] softmax [convert] of the logits.
  Value x = pv.getLhs();
  double dropoutP = 0;
  Value seed;
  if (auto dropout = x.getDefiningOp<DropoutOp>()) {
    if (!dropout->hasOneUse())
      return failure();
    dropoutP = dropout.getP().convertToDouble();
    seed = dropout.getSeed();
    x = dropout.getInput();
  }
  // [slice dropping the sink column of] the probabilities.
  std::optional<std::pair<Value, bool>> sinkSlice;
  if (auto slice = x.getDefiningOp<SliceOp>()) {
    if (!(sinkSlice = matchSinkSlice(slice)))
      return rewriter.notifyMatchFailure(pv, "a slice that drops no sink column");
    x = sinkSlice->first;
  }
  SoftmaxOp softmax;
  Value logits;
  if (auto back = x.getDefiningOp<ConvertOp>()) {
    softmax = back.getOperand().getDefiningOp<SoftmaxOp>();
    if (!softmax || !back->hasOneUse())
      return rewriter.notifyMatchFailure(pv, "no softmax");
    auto forth = softmax.getInput().getDefiningOp<ConvertOp>();
    if (!forth || !forth->hasOneUse() ||
        forth.getOperand().getType() != back.getType())
      return rewriter.notifyMatchFailure(pv, "softmax not in a wider type");
    // The softmax runs in the element type or a wider float type.
    auto wide = dyn_cast<FloatType>(getRankedType(softmax).getElementType());
    auto narrow = cast<FloatType>(elementType);
    if (!wide || (wide != narrow && wide.getWidth() <= narrow.getWidth()))
      return rewriter.notifyMatchFailure(pv, "softmax not in a wider type");
    logits = forth.getOperand();
  } else {
    softmax = x.getDefiningOp<SoftmaxOp>();
    if (!softmax)
      return rewriter.notifyMatchFailure(pv, "no softmax");
    logits = softmax.getInput();
  }
  if (!softmax->hasOneUse() || softmax.getAxis() != 3)
    return rewriter.notifyMatchFailure(pv, "not a softmax over the keys");
  Value sinks;
  if (sinkSlice) {
    std::optional<SinksMatch> match =
        matchSinkLogits(logits, sinkSlice->second);
    if (!match)
      return rewriter.notifyMatchFailure(pv, "no per-head sink column");
    sinks = match->sinks;
    logits = match->logits;
  }

  // [scores + mask].
  Value mask;
  std::optional<ScoresMatch> scores;
  if (auto add = logits.getDefiningOp<AddOp>()) {
    if (!add->hasOneUse())
      return failure();
    for (auto [s, m] : {std::pair(add.getLhs(), add.getRhs()),
                        std::pair(add.getRhs(), add.getLhs())}) {
      if (s.getType() != add.getType())
        continue;
      if ((scores = matchScores(s))) {
        mask = m;
        break;
      }
    }
  } else {
    scores = matchScores(logits);
  }
  if (!scores)
    return rewriter.notifyMatchFailure(pv, "no scaled Q Kᵀ scores");

  // Shapes: Q [B, Hq, Sq, D], K [B, Hkv, Sk, D], V [B, Hkv, Sk, Dv] with
  // Hkv = Hq or 1 (the matmuls broadcast K and V over the heads then), P
  // and the logits [B, Hq, Sq, Sk].
  RankedTensorType queryType = getRankedType(scores->query);
  RankedTensorType keyType = getRankedType(scores->key);
  if (!queryType || !keyType || queryType.getRank() != 4 ||
      keyType.getRank() != 4 || queryType.getElementType() != elementType ||
      keyType.getElementType() != elementType ||
      valueType.getElementType() != elementType)
    return rewriter.notifyMatchFailure(pv, "operand types");
  // The sinks in the logits' type: the query's, or f32 (softmax widened).
  if (sinks) {
    Type sinksElement = getRankedType(sinks).getElementType();
    if (sinksElement != elementType && !sinksElement.isF32())
      return rewriter.notifyMatchFailure(pv, "sinks type");
  }
  int64_t batch = queryType.getDimSize(0), heads = queryType.getDimSize(1);
  int64_t numQueries = queryType.getDimSize(2);
  int64_t numKeys = keyType.getDimSize(2);
  int64_t kvHeads = keyType.getDimSize(1);
  SmallVector<int64_t> probsShape = {batch, heads, numQueries, numKeys};
  if (keyType.getDimSize(0) != batch || valueType.getDimSize(0) != batch ||
      valueType.getDimSize(1) != kvHeads ||
      valueType.getDimSize(2) != numKeys ||
      (kvHeads != heads && kvHeads != 1) ||
      probsType.getShape() != ArrayRef(probsShape) ||
      getRankedType(logits).getShape() != ArrayRef(probsShape) ||
      outType.getDimSize(1) != heads)
    return rewriter.notifyMatchFailure(pv, "shapes");
  if (mask) {
    RankedTensorType maskType = getRankedType(mask);
    if (!maskType || maskType.getRank() > 4 ||
        maskType.getElementType() != elementType ||
        !isBroadcastableTo(maskType.getShape(), probsShape))
      return rewriter.notifyMatchFailure(pv, "mask shape");
    // The written-out softmax of a row blocked by -inf everywhere is NaN,
    // kiln.attention's 0.
    if (!options.emptyRowsAsZero && !isProvablyFinite(mask))
      return rewriter.notifyMatchFailure(
          pv, "mask may block a row with -inf (needs empty-rows-as-zero)");
  }

  MLIRContext *context = rewriter.getContext();
  if (sinks && getRankedType(sinks).getRank() != 1) {
    RankedTensorType sinksType = getRankedType(sinks);
    sinks = ReshapeOp::create(
        rewriter, pv.getLoc(),
        RankedTensorType::get({sinksType.getDimSize(1)},
                              sinksType.getElementType()),
        sinks);
  }
  auto attention = AttentionOp::create(
      rewriter, pv.getLoc(), TypeRange{outType}, scores->query, scores->key,
      pv.getRhs(), mask, /*key_lengths=*/Value(), /*query_lengths=*/Value(),
      dropoutP > 0 ? seed : Value(), /*alibi_slopes=*/Value(), sinks,
      /*cu_seqlens_q=*/Value(), /*cu_seqlens_k=*/Value(),
      rewriter.getF64FloatAttr(scores->scale),
      /*causal=*/UnitAttr(), /*window_left=*/IntegerAttr(),
      /*window_right=*/IntegerAttr(),
      AttentionAlignmentAttr::get(context, AttentionAlignment::bottom_right),
      scores->softcap ? rewriter.getF64FloatAttr(*scores->softcap)
                      : FloatAttr(),
      rewriter.getF64FloatAttr(dropoutP));
  rewriter.replaceOp(pv, attention.getResult());
  return attention;
}

} // namespace mlir::kiln::raise_attention
