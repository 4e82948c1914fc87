//===- DecomposeAttention.cpp - Attention as primitive kiln ops -----------===//
//
// kiln.attention and kiln.attention_grad written out as primitive kiln ops
// in the rank-5 grouped-query layout of docs/Attention.md: Q, dO and O are
// viewed as [B, Hkv, R, Sq, D], K and V as [B, Hkv, 1, Sk, D], so the R
// query heads of a group broadcast against their kv head inside kiln.matmul
// (a view, never a repeat) and dK, dV reduce over R with one kiln.sum.
//
// Every op built here has a backward rule, so the decomposed graph can be
// differentiated; kiln.attention_grad's own rule (Rules/AttentionRules.cpp)
// relies on it for second order.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/DecomposeAttention.h"
#include "AttentionDecomposition.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/Autodiff.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"
#include "kiln/Dialect/Kiln/Utils/AttentionUtils.h"

#include "mlir/IR/PatternMatch.h"

#include <limits>

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNDECOMPOSEATTENTIONPASS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::autodiff;

namespace {

/// The forward part shared by both decompositions: the rank-5 operands in
/// the compute type and the attention probabilities built from them.
struct AttentionForward {
  /// [B, Hkv, R, Sq, Dk], [B, Hkv, 1, Sk, Dk], [B, Hkv, 1, Sk, Dv].
  Value query, key, value;
  /// tanh(s / c) of the scaled scores s, when softcapping.
  Value tanhScores;
  /// P and P' = dropout(P), [B, Hkv, R, Sq, Sk]; the same value without
  /// dropout.
  Value probs, droppedProbs;
  /// The sinks' probabilities [B, Hkv, R, Sq, 1], or null without sinks.
  Value sinkProbs;
  /// The softmax's input t (with a sinks column last, when the op has
  /// sinks) with empty rows set to 0, the row max
  /// [B, Hkv, R, Sq, 1] and the i1 empty-row flags (null when no row can be
  /// empty).
  Value logits, rowMax, emptyRows;
};

/// Builds the primitive decomposition of one attention op (kiln.attention
/// or kiln.attention_grad, through AttentionOpInterface).
class AttentionDecomposer {
public:
  AttentionDecomposer(OpBuilder &b, AttentionOpInterface op)
      : b(b), loc(op.getLoc()), op(op) {
    AttentionSizes sizes = AttentionSizes::get(op);
    batch = sizes.batch;
    numQueryHeads = sizes.numHeads;
    numQueries = sizes.numQueries;
    keyDim = sizes.keyDim;
    numKVHeads = sizes.numKVHeads;
    numKeys = sizes.numKeys;
    valueDim = sizes.valueDim;
    groupSize = sizes.groupSize;
    elementType = sizes.elementType;
    computeType = sizes.computeType;
  }

  AttentionForward buildForward();

  /// [B, Hq, Sq, Dv]: the attention's result in the element type.
  Value buildOutput(const AttentionForward &forward);

  /// [B, Hq, Sq]: the row log-sum-exp of the logits in the compute type
  /// (the lse result's type), +inf for an empty row.
  Value buildLse(const AttentionForward &forward);

  /// dQ, dK, dV and, for an additive mask, d_mask, from `dout`.
  SmallVector<Value> buildGradients(const AttentionForward &forward,
                                    Value dout);

private:
  /// `x` converted to the compute type (a no-op when it has it).
  Value toCompute(Value x, Type computeType) {
    if (getElementType(x) == computeType)
      return x;
    return ConvertOp::create(b, loc, x, computeType);
  }
  /// `x` converted back to `type`'s element type.
  Value fromCompute(Value x, Type type) {
    Type element = cast<RankedTensorType>(type).getElementType();
    if (getElementType(x) == element)
      return x;
    return ConvertOp::create(b, loc, x, element);
  }
  /// A rank-0 i64 constant (broadcasts against anything).
  Value indexScalar(int64_t value) { return createScalar(b, loc, i64(), value); }
  Type i64() { return b.getI64Type(); }
  /// `lhs and rhs` of two broadcastable i1 tensors; null is true.
  Value conjoin(Value lhs, Value rhs) {
    if (!lhs)
      return rhs;
    Value falseValue = ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(RankedTensorType::get({}, b.getI1Type()),
                               false));
    return SelectOp::create(b, loc, lhs, rhs, falseValue);
  }
  /// The shape of a mask of rank <= 4, broadcastable to [B, Hq, Sq, Sk],
  /// in the rank-5 layout: its head dim is split into [Hkv, R] (or [1, 1]).
  SmallVector<int64_t> maskShape5(RankedTensorType maskType);
  /// The shape of ALiBi slopes of rank 1 or 2, broadcastable to [B, Hq], in
  /// the rank-5 layout: those of a [B, Hq, 1, 1] mask.
  SmallVector<int64_t> slopesShape5(RankedTensorType slopesType) {
    SmallVector<int64_t> shape(slopesType.getShape());
    shape.append({1, 1});
    return maskShape5(RankedTensorType::get(shape, slopesType.getElementType()));
  }
  /// ALiBi's bias -slope[b, h] * |j - p(i)| (AttentionLogits), broadcastable
  /// to [B, Hkv, R, Sq, Sk] in the compute type.
  Value buildAlibiBias(Value slopes);
  /// Per-batch lengths [B] as an i64 [B, 1, 1, 1, 1].
  Value lengths5(Value lengths) {
    Value wide = lengths;
    if (getElementType(lengths) != i64())
      wide = ConvertOp::create(b, loc, lengths, i64());
    return reshapeTo(b, loc, wide, {batch, 1, 1, 1, 1});
  }
  /// The i1 visibility of docs/Attention.md, broadcastable to
  /// [B, Hkv, R, Sq, Sk]; null when no term is present.
  Value buildVisible();

  /// Each row's packed sequence (buildAttentionRowSequence), as
  /// [1, 1, 1, Sq, 1] i64 tensors; null without packed sequences.
  struct RowSequences {
    Value keyBegin, keyEnd, position;
  };
  RowSequences buildRowSequences();
  /// p(i) as a [1, 1, 1, Sq, 1] i64 tensor: i + offset, or the row's
  /// position in its packed sequence.
  Value buildPositions();
  /// Cached: built once, read by the predicate and ALiBi.
  std::optional<RowSequences> rowSequences;

  OpBuilder &b;
  Location loc;
  AttentionOpInterface op;
  int64_t batch, numQueryHeads, numQueries, keyDim, numKVHeads, numKeys,
      valueDim, groupSize;
  Type elementType;
  /// f32 for f16 and bf16 (as the fused lowerings), else the element type.
  Type computeType;
};

} // namespace

SmallVector<int64_t>
AttentionDecomposer::maskShape5(RankedTensorType maskType) {
  SmallVector<int64_t> shape4(4 - maskType.getRank(), 1);
  llvm::append_range(shape4, maskType.getShape());
  if (shape4[1] == 1)
    return {shape4[0], 1, 1, shape4[2], shape4[3]};
  return {shape4[0], numKVHeads, groupSize, shape4[2], shape4[3]};
}

AttentionDecomposer::RowSequences AttentionDecomposer::buildRowSequences() {
  if (rowSequences)
    return *rowSequences;
  // buildAttentionRowSequence on tensors: the sequence of row i is the first
  // s with cu_q[s] <= i < cu_q[s + 1] (the offsets clamped to [0, Sq] and
  // [0, Sk]), found as the least s whose range holds i.
  int64_t numSequences = op.getNumPackedSequences();
  auto iota = [&](ArrayRef<int64_t> shape, uint64_t axis) -> Value {
    return IotaOp::create(b, loc, RankedTensorType::get(shape, i64()), axis);
  };
  // [N] begins and ends of the clamped offsets.
  auto bounds = [&](Value offsets, int64_t size) -> std::pair<Value, Value> {
    Value wide = offsets;
    if (getElementType(offsets) != i64())
      wide = ConvertOp::create(b, loc, offsets, i64());
    wide = MinimumOp::create(b, loc, MaximumOp::create(b, loc, wide,
                                                       indexScalar(0)),
                             indexScalar(size));
    auto slice = [&](int64_t start) -> Value {
      return SliceOp::create(b, loc, wide, ArrayRef<int64_t>{start},
                             ArrayRef<int64_t>{start + numSequences},
                             ArrayRef<int64_t>{1});
    };
    return {slice(0), slice(1)};
  };
  auto [queryBegins, queryEnds] = bounds(op.getCuSeqlensQ(), numQueries);
  auto [keyBegins, keyEnds] = bounds(op.getCuSeqlensK(), numKeys);
  Value rows = iota({numQueries}, 0);
  // [Sq, N]: whether sequence s holds row i; the least such s, N if none.
  Value rows2 = reshapeTo(b, loc, rows, {numQueries, 1});
  Value holds = conjoin(
      LeOp::create(b, loc, reshapeTo(b, loc, queryBegins, {1, numSequences}),
                   rows2),
      LtOp::create(b, loc, rows2,
                   reshapeTo(b, loc, queryEnds, {1, numSequences})));
  Value candidates = SelectOp::create(b, loc, holds, iota({1, numSequences}, 1),
                                      indexScalar(numSequences));
  Value sequence =
      MinOp::create(b, loc, candidates, ArrayRef<int64_t>{1}, false);
  Value inSequence = LtOp::create(b, loc, sequence, indexScalar(numSequences));
  // Each row's sequence's bounds (index_select clamps the N of a row in no
  // sequence; the select then makes its keys empty).
  auto pick = [&](Value perSequence) -> Value {
    return IndexSelectOp::create(b, loc, perSequence, sequence, 0);
  };
  Value keyBegin = pick(keyBegins), keyEnd = pick(keyEnds);
  Value queryBegin = pick(queryBegins), queryEnd = pick(queryEnds);
  // p(i) = keyBegin + (i - queryBegin) + offset_s.
  Value position =
      AddOp::create(b, loc, keyBegin, SubOp::create(b, loc, rows, queryBegin));
  if (op.getAlignment() == AttentionAlignment::bottom_right)
    position = AddOp::create(
        b, loc, position,
        SubOp::create(b, loc, SubOp::create(b, loc, keyEnd, keyBegin),
                      SubOp::create(b, loc, queryEnd, queryBegin)));
  Value zero = indexScalar(0);
  auto rows5 = [&](Value x) {
    return reshapeTo(b, loc, x, {1, 1, 1, numQueries, 1});
  };
  rowSequences = RowSequences{
      rows5(SelectOp::create(b, loc, inSequence, keyBegin, zero)),
      rows5(SelectOp::create(b, loc, inSequence, keyEnd, zero)),
      rows5(position)};
  return *rowSequences;
}

Value AttentionDecomposer::buildPositions() {
  if (op.hasPackedSequences())
    return buildRowSequences().position;
  int64_t offset = AttentionBand::getPositionOffset(numQueries, numKeys,
                                                    op.getAlignment());
  Value rows =
      IotaOp::create(b, loc, RankedTensorType::get({1, 1, 1, numQueries, 1}, i64()), 3);
  return offset == 0 ? rows : AddOp::create(b, loc, rows, indexScalar(offset));
}

Value AttentionDecomposer::buildVisible() {
  // The terms and their order are those of buildAttentionVisible
  // (kiln/Dialect/Kiln/Utils/AttentionUtils.h), on index tensors instead of
  // scalars: i is an iota along Sq, j along Sk.
  Value visible;
  AttentionBand band;
  if (!op.hasPackedSequences())
    band = AttentionBand::get(op);
  bool hasLeft = band.minDistance.has_value();
  bool hasRight = band.maxDistance.has_value();
  auto iota = [&](ArrayRef<int64_t> shape, uint64_t axis) -> Value {
    return IotaOp::create(b, loc, RankedTensorType::get(shape, i64()), axis);
  };
  Value rows, columns;
  if (hasLeft || hasRight || op.getQueryLengths())
    rows = iota({1, 1, 1, numQueries, 1}, 3);
  if (hasLeft || hasRight || op.getKeyLengths())
    columns = iota({1, 1, 1, 1, numKeys}, 4);

  if (hasLeft || hasRight) {
    // minDistance <= j - i <= maxDistance (AttentionBand).
    Value distance = SubOp::create(b, loc, columns, rows);
    if (hasLeft)
      visible = conjoin(visible, GeOp::create(b, loc, distance,
                                              indexScalar(*band.minDistance)));
    if (hasRight)
      visible = conjoin(visible, LeOp::create(b, loc, distance,
                                              indexScalar(*band.maxDistance)));
  }
  // j < clamp(kl, 0, Sk) is j < kl for every 0 <= j < Sk: the comparison
  // needs no clamp (likewise for the query lengths).
  if (Value keyLengths = op.getKeyLengths())
    visible = conjoin(visible,
                      LtOp::create(b, loc, columns, lengths5(keyLengths)));
  if (Value queryLengths = op.getQueryLengths())
    visible = conjoin(visible,
                      LtOp::create(b, loc, rows, lengths5(queryLengths)));
  if (op.hasBooleanMask()) {
    Value mask = op.getMask();
    visible = conjoin(
        visible,
        reshapeTo(b, loc, mask,
                  maskShape5(cast<RankedTensorType>(mask.getType()))));
  }
  if (op.hasPackedSequences()) {
    // N = 0: no row is in a sequence (the ops below would slice nothing).
    if (op.getNumPackedSequences() == 0)
      return conjoin(visible,
                     ConstantOp::create(b, loc,
                                        DenseElementsAttr::get(
                                            RankedTensorType::get(
                                                {1, 1, 1, 1, 1},
                                                b.getI1Type()),
                                            false)));
    // keyBegin[i] <= j < keyEnd[i], and the band within the sequence on
    // j - p(i).
    RowSequences sequences = buildRowSequences();
    Value keys = IotaOp::create(
        b, loc, RankedTensorType::get({1, 1, 1, 1, numKeys}, i64()), 4);
    visible = conjoin(visible, GeOp::create(b, loc, keys, sequences.keyBegin));
    visible = conjoin(visible, LtOp::create(b, loc, keys, sequences.keyEnd));
    AttentionBand sequenceBand = AttentionBand::get(
        numQueries, numKeys, AttentionAlignment::top_left,
        op.getEffectiveWindowLeft(), op.getEffectiveWindowRight());
    if (sequenceBand.isBounded()) {
      Value distance = SubOp::create(b, loc, keys, sequences.position);
      if (sequenceBand.minDistance)
        visible = conjoin(
            visible, GeOp::create(b, loc, distance,
                                  indexScalar(*sequenceBand.minDistance)));
      if (sequenceBand.maxDistance)
        visible = conjoin(
            visible, LeOp::create(b, loc, distance,
                                  indexScalar(*sequenceBand.maxDistance)));
    }
  }
  return visible;
}

Value AttentionDecomposer::buildAlibiBias(Value slopes) {
  auto iota = [&](ArrayRef<int64_t> shape, uint64_t axis) -> Value {
    return IotaOp::create(b, loc, RankedTensorType::get(shape, i64()), axis);
  };
  // |j - p(i)|, exact in i64 and rounded once.
  Value distance =
      SubOp::create(b, loc, iota({1, 1, 1, 1, numKeys}, 4), buildPositions());
  distance = ConvertOp::create(b, loc, AbsOp::create(b, loc, distance),
                               computeType);
  Value slopes5 =
      reshapeTo(b, loc, toCompute(slopes, computeType),
                slopesShape5(cast<RankedTensorType>(slopes.getType())));
  return NegOp::create(b, loc, mul(b, loc, slopes5, distance));
}

AttentionForward AttentionDecomposer::buildForward() {
  AttentionForward forward;
  forward.query =
      reshapeTo(b, loc, toCompute(op.getQuery(), computeType),
                {batch, numKVHeads, groupSize, numQueries, keyDim});
  forward.key = reshapeTo(b, loc, toCompute(op.getKey(), computeType),
                          {batch, numKVHeads, 1, numKeys, keyDim});
  forward.value = reshapeTo(b, loc, toCompute(op.getValue(), computeType),
                            {batch, numKVHeads, 1, numKeys, valueDim});

  // s = scale * Q·Kᵀ: K broadcasts over R inside the matmul.
  Value keyT = TransposeOp::create(b, loc, forward.key, uint64_t(3),
                                   uint64_t(4));
  Value scores = MatmulOp::create(b, loc, forward.query, keyT);
  scores = scale(b, loc, scores, op.getEffectiveScale());
  if (FloatAttr softcap = op.getSoftcapAttr()) {
    Value cap = createScalar(b, loc, computeType, softcap.getValueAsDouble());
    forward.tanhScores = TanhOp::create(b, loc, div(b, loc, scores, cap));
    scores = mul(b, loc, forward.tanhScores, cap);
  }

  // t = visible ? s + mask_add - alibi * |j - p(i)| : -inf.
  Value t = scores;
  bool additive = op.hasAdditiveMask();
  if (additive) {
    Value mask = op.getMask();
    t = add(b, loc, t,
            reshapeTo(b, loc, toCompute(mask, computeType),
                      maskShape5(cast<RankedTensorType>(mask.getType()))));
  }
  if (Value slopes = op.getAlibiSlopes())
    t = add(b, loc, t, buildAlibiBias(slopes));
  double inf = std::numeric_limits<double>::infinity();
  Value visible = buildVisible();
  Value negInf;
  if (visible || additive)
    negInf = createScalar(b, loc, computeType, -inf);
  if (visible)
    t = SelectOp::create(b, loc, visible, t, negInf);

  // Sinks: each row's softmax gets the column sinks[h] (a logit with no
  // value), which is split off again after it.
  Value sinks = op.getSinks();
  int64_t width = numKeys;
  if (sinks) {
    Value sinks5 = reshapeTo(b, loc, toCompute(sinks, computeType),
                             {1, numKVHeads, groupSize, 1, 1});
    auto columnType = RankedTensorType::get(
        {batch, numKVHeads, groupSize, numQueries, 1}, computeType);
    t = ConcatOp::create(
        b, loc, ValueRange{t, BroadcastToOp::create(b, loc, columnType, sinks5)},
        uint64_t(4));
    width = numKeys + 1;
    if (!negInf)
      negInf = createScalar(b, loc, computeType, -inf);
  }

  // P = softmax(t), with empty rows (max = -inf) exactly 0: they take the
  // softmax of 0 instead of exp(-inf - -inf), and are zeroed after. Without
  // keys (Sk = 0) P is empty and there is no row max to take.
  Value probs;
  if ((visible || additive || sinks) && width > 0) {
    Value rowMax = MaxOp::create(b, loc, t, ArrayRef<int64_t>{4},
                                 /*keep_dims=*/true);
    Value empty = EqOp::create(b, loc, rowMax, negInf);
    Value zero = createScalar(b, loc, computeType, 0.0);
    t = SelectOp::create(b, loc, empty, zero, t);
    probs = SoftmaxOp::create(b, loc, t, uint64_t(4));
    probs = SelectOp::create(b, loc, empty, zero, probs);
    forward.rowMax = SelectOp::create(b, loc, empty, zero, rowMax);
    forward.emptyRows = empty;
  } else {
    probs = SoftmaxOp::create(b, loc, t, uint64_t(4));
  }
  forward.logits = t;
  if (sinks) {
    auto split = SplitOp::create(b, loc, probs, uint64_t(4),
                                 ArrayRef<int64_t>{numKeys, 1});
    probs = split.getResult(0);
    forward.sinkProbs = split.getResult(1);
  }
  forward.probs = probs;
  // kiln.dropout on [B, Hkv, R, Sq, Sk] numbers its elements as the fused
  // op numbers [B, Hq, Sq, Sk] (h = g * R + r), so it draws the same Z.
  forward.droppedProbs = probs;
  if (op.getDropoutProbability() > 0)
    forward.droppedProbs = DropoutOp::create(b, loc, probs, op.getSeed(),
                                             op.getDropoutPAttr());
  return forward;
}

Value AttentionDecomposer::buildOutput(const AttentionForward &forward) {
  Value out = MatmulOp::create(b, loc, forward.droppedProbs, forward.value);
  out = reshapeTo(b, loc, out, {batch, numQueryHeads, numQueries, valueDim});
  return fromCompute(out, op.getQuery().getType());
}

Value AttentionDecomposer::buildLse(const AttentionForward &forward) {
  auto lseType =
      RankedTensorType::get({batch, numQueryHeads, numQueries}, computeType);
  double inf = std::numeric_limits<double>::infinity();
  // Sk = 0 without sinks: every row is empty (and the max over no key is
  // not -inf everywhere kiln.max could be asked).
  if (numKeys == 0 && !op.getSinks())
    return ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(lseType, b.getFloatAttr(computeType, inf)));
  // LSE = m + log sum exp(t - m); an empty row has t = m = 0 here and is
  // set to +inf after, so exp(-inf - -inf) is never computed.
  Value rowMax = forward.rowMax;
  if (!rowMax)
    rowMax = MaxOp::create(b, loc, forward.logits, ArrayRef<int64_t>{4},
                           /*keep_dims=*/true);
  Value sum = SumOp::create(
      b, loc, ExpOp::create(b, loc, sub(b, loc, forward.logits, rowMax)),
      ArrayRef<int64_t>{4}, /*keep_dims=*/true);
  Value lse = add(b, loc, rowMax, LogOp::create(b, loc, sum));
  if (forward.emptyRows)
    lse = SelectOp::create(b, loc, forward.emptyRows,
                           createScalar(b, loc, computeType, inf), lse);
  return reshapeTo(b, loc, lse, lseType.getShape());
}

SmallVector<Value>
AttentionDecomposer::buildGradients(const AttentionForward &forward,
                                         Value dout) {
  Value dout5 = reshapeTo(b, loc, toCompute(dout, computeType),
                          {batch, numKVHeads, groupSize, numQueries, valueDim});
  auto transposeLast = [&](Value x) -> Value {
    return TransposeOp::create(b, loc, x, uint64_t(3), uint64_t(4));
  };

  // dV = P'ᵀ · dO, summed over the R query heads of each kv head.
  Value dvalue = MatmulOp::create(b, loc, transposeLast(forward.droppedProbs),
                                  dout5);
  dvalue = SumOp::create(b, loc, dvalue, ArrayRef<int64_t>{2},
                         /*keep_dims=*/false);

  // dP = (dO · Vᵀ) * Z / (1 - p): dropout is linear in its input.
  Value dprobs = MatmulOp::create(b, loc, dout5, transposeLast(forward.value));
  if (op.getDropoutProbability() > 0)
    dprobs = DropoutOp::create(b, loc, dprobs, op.getSeed(),
                               op.getDropoutPAttr());
  // dT = P * (dP - rowsum(dP * P)). The sink's value is 0, so its dP is 0:
  // rowsum(dP * P) over the keys alone is the whole row's.
  Value rowDot = SumOp::create(b, loc, mul(b, loc, dprobs, forward.probs),
                               ArrayRef<int64_t>{4}, /*keep_dims=*/true);
  Value dt = mul(b, loc, forward.probs, sub(b, loc, dprobs, rowDot));

  // dS = dT * (1 - tanh²(s / c)) with softcap; the mask's gradient is dT.
  Value ds = dt;
  if (forward.tanhScores) {
    Value one = createScalar(b, loc, computeType, 1.0);
    ds = mul(b, loc, dt,
             sub(b, loc, one,
                 mul(b, loc, forward.tanhScores, forward.tanhScores)));
  }

  // dQ = scale * dS · K, dK = scale * dSᵀ · Q summed over R.
  double scaleValue = op.getEffectiveScale();
  Value dquery = scale(b, loc, MatmulOp::create(b, loc, ds, forward.key),
                       scaleValue);
  dquery = reshapeTo(b, loc, dquery,
                     {batch, numQueryHeads, numQueries, keyDim});
  Value dkey = scale(b, loc,
                     MatmulOp::create(b, loc, transposeLast(ds), forward.query),
                     scaleValue);
  dkey = SumOp::create(b, loc, dkey, ArrayRef<int64_t>{2},
                       /*keep_dims=*/false);

  SmallVector<Value> results = {
      fromCompute(dquery, op.getQuery().getType()),
      fromCompute(dkey, op.getKey().getType()),
      fromCompute(dvalue, op.getValue().getType())};
  if (op.hasAdditiveMask()) {
    Type maskType = op.getMask().getType();
    Value dt4 = reshapeTo(b, loc, dt,
                          {batch, numQueryHeads, numQueries, numKeys});
    Type maskCompute = cast<RankedTensorType>(maskType).clone(computeType);
    results.push_back(
        fromCompute(reduceToType(b, loc, dt4, maskCompute), maskType));
  }
  if (Value sinks = op.getSinks()) {
    // d_sinks[h] = sum_{b, i} P_sink (0 - rowsum(dP * P)).
    Value dsinks = NegOp::create(b, loc, mul(b, loc, forward.sinkProbs, rowDot));
    dsinks = SumOp::create(b, loc, dsinks, ArrayRef<int64_t>{0, 3, 4},
                           /*keep_dims=*/false);
    dsinks = reshapeTo(b, loc, dsinks, {numQueryHeads});
    results.push_back(fromCompute(dsinks, sinks.getType()));
  }
  return results;
}

SmallVector<Value> mlir::kiln::buildAttentionDecomposition(OpBuilder &builder,
                                                           AttentionOp op) {
  AttentionDecomposer decomposer(builder, op);
  AttentionForward forward = decomposer.buildForward();
  SmallVector<Value> results = {decomposer.buildOutput(forward)};
  if (op.getLse())
    results.push_back(decomposer.buildLse(forward));
  return results;
}

SmallVector<Value>
mlir::kiln::buildAttentionGradDecomposition(OpBuilder &builder,
                                            AttentionGradOp op) {
  // `out` and `lse` are by contract the forward's O and LSE of these very
  // operands, so the decomposition recomputes P from the scores and leaves
  // them unread: a plain softmax is the form whose derivatives (second
  // order) are those of the op as a function of Q, K, V and the mask.
  AttentionDecomposer decomposer(builder, op);
  return decomposer.buildGradients(decomposer.buildForward(), op.getDout());
}

//===----------------------------------------------------------------------===//
// Patterns and the pass
//===----------------------------------------------------------------------===//

namespace {
struct DecomposeAttention : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, buildAttentionDecomposition(rewriter, op));
    return success();
  }
};

struct DecomposeAttentionGrad : OpRewritePattern<AttentionGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionGradOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, buildAttentionGradDecomposition(rewriter, op));
    return success();
  }
};

struct KilnDecomposeAttentionPass
    : public kiln::impl::KilnDecomposeAttentionPassBase<
          KilnDecomposeAttentionPass> {
  void runOnOperation() override {
    if (failed(decomposeAttentionOps(getOperation())))
      signalPassFailure();
  }
};
} // namespace

void mlir::kiln::populateDecomposeAttentionPatterns(
    RewritePatternSet &patterns) {
  patterns.add<DecomposeAttention, DecomposeAttentionGrad>(
      patterns.getContext());
}

LogicalResult mlir::kiln::decomposeAttentionOps(Operation *root) {
  // A plain walk rather than a pattern driver: the rewrites always apply and
  // create no attention op, and unreachable blocks are expanded too.
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (op != root && isa<AttentionOp, AttentionGradOp>(op))
      ops.push_back(op);
  });
  IRRewriter rewriter(root->getContext());
  for (Operation *op : ops) {
    rewriter.setInsertionPoint(op);
    if (auto attention = dyn_cast<AttentionOp>(op))
      rewriter.replaceOp(op, buildAttentionDecomposition(rewriter, attention));
    else
      rewriter.replaceOp(op, buildAttentionGradDecomposition(
                                 rewriter, cast<AttentionGradOp>(op)));
  }
  return success();
}
