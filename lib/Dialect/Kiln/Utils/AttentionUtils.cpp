//===- AttentionUtils.cpp - What an attention op computes -----------------===//
//
// The one definition of attention's rules; see AttentionUtils.h.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Utils/AttentionUtils.h"
#include "kiln/Dialect/Kiln/Utils/Philox.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace mlir::kiln;

static Value constIndex(OpBuilder &builder, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(builder, loc, value);
}

/// x + delta for an index value `x` (`x` itself for delta = 0).
static Value addConstant(OpBuilder &builder, Location loc, Value x,
                         int64_t delta) {
  if (delta == 0)
    return x;
  return arith::AddIOp::create(builder, loc, x,
                               constIndex(builder, loc, delta));
}

//===----------------------------------------------------------------------===//
// Sizes
//===----------------------------------------------------------------------===//

AttentionSizes AttentionSizes::get(AttentionOpInterface op) {
  auto queryType = cast<RankedTensorType>(op.getQuery().getType());
  auto keyType = cast<RankedTensorType>(op.getKey().getType());
  auto valueType = cast<RankedTensorType>(op.getValue().getType());
  assert(queryType.getRank() == 4 && keyType.getRank() == 4 &&
         valueType.getRank() == 4 && "verified attention has rank-4 operands");
  AttentionSizes sizes;
  sizes.batch = queryType.getDimSize(0);
  sizes.numHeads = queryType.getDimSize(1);
  sizes.numQueries = queryType.getDimSize(2);
  sizes.keyDim = queryType.getDimSize(3);
  sizes.numKVHeads = keyType.getDimSize(1);
  sizes.numKeys = keyType.getDimSize(2);
  sizes.valueDim = valueType.getDimSize(3);
  sizes.groupSize = std::max<int64_t>(1, op.getGroupSize());
  sizes.dropout = op.getDropoutProbability();
  sizes.elementType = cast<FloatType>(queryType.getElementType());
  sizes.computeType = cast<FloatType>(getComputeType(sizes.elementType));
  return sizes;
}

//===----------------------------------------------------------------------===//
// The band
//===----------------------------------------------------------------------===//

int64_t AttentionBand::getPositionOffset(int64_t numQueries, int64_t numKeys,
                                         AttentionAlignment alignment) {
  return alignment == AttentionAlignment::bottom_right ? numKeys - numQueries
                                                       : 0;
}

AttentionBand AttentionBand::get(int64_t numQueries, int64_t numKeys,
                                 AttentionAlignment alignment,
                                 std::optional<int64_t> windowLeft,
                                 std::optional<int64_t> windowRight) {
  int64_t offset = getPositionOffset(numQueries, numKeys, alignment);
  auto bounds = [&](std::optional<int64_t> edge) {
    return edge && *edge < numQueries + numKeys;
  };
  AttentionBand band;
  if (bounds(windowLeft))
    band.minDistance = offset - *windowLeft;
  if (bounds(windowRight))
    band.maxDistance = offset + *windowRight;
  return band;
}

AttentionBand AttentionBand::get(AttentionOpInterface op) {
  auto queryType = cast<ShapedType>(op.getQuery().getType());
  auto keyType = cast<ShapedType>(op.getKey().getType());
  return get(queryType.getDimSize(2), keyType.getDimSize(2),
             op.getAlignment(), op.getEffectiveWindowLeft(),
             op.getEffectiveWindowRight());
}

Value AttentionBand::buildFirstKey(OpBuilder &builder, Location loc,
                                   Value row) const {
  return minDistance ? addConstant(builder, loc, row, *minDistance) : Value();
}

Value AttentionBand::buildEndKey(OpBuilder &builder, Location loc,
                                 Value row) const {
  return maxDistance ? addConstant(builder, loc, row, *maxDistance + 1)
                     : Value();
}

Value AttentionBand::buildFirstRow(OpBuilder &builder, Location loc,
                                   Value key) const {
  return maxDistance ? addConstant(builder, loc, key, -*maxDistance) : Value();
}

Value AttentionBand::buildEndRow(OpBuilder &builder, Location loc,
                                 Value key) const {
  return minDistance ? addConstant(builder, loc, key, 1 - *minDistance)
                     : Value();
}

//===----------------------------------------------------------------------===//
// The visibility predicate
//===----------------------------------------------------------------------===//

AttentionVisibility AttentionVisibility::get(AttentionOpInterface op,
                                             Value mask, Value keyLengths,
                                             Value queryLengths,
                                             AttentionSequenceTables sequences) {
  assert(static_cast<bool>(sequences) == op.hasPackedSequences() &&
         "the tables stand for the op's packed sequences");
  AttentionVisibility visibility;
  visibility.numQueries =
      cast<ShapedType>(op.getQuery().getType()).getDimSize(2);
  visibility.numKeys = cast<ShapedType>(op.getKey().getType()).getDimSize(2);
  if (sequences) {
    visibility.sequences = sequences;
    visibility.sequenceBand = AttentionBand::get(
        visibility.numQueries, visibility.numKeys,
        AttentionAlignment::top_left, op.getEffectiveWindowLeft(),
        op.getEffectiveWindowRight());
  } else {
    visibility.band = AttentionBand::get(op);
  }
  if (op.hasBooleanMask())
    visibility.booleanMask = mask;
  visibility.keyLengths = keyLengths;
  visibility.queryLengths = queryLengths;
  return visibility;
}

/// Reads `source[indices]` from a ranked tensor (tensor.extract) or a memref
/// (memref.load), so that the builders serve both the linalg lowerings and
/// the GPU kernels.
static Value buildRead(OpBuilder &builder, Location loc, Value source,
                       ValueRange indices) {
  if (isa<MemRefType>(source.getType()))
    return memref::LoadOp::create(builder, loc, source, indices);
  return tensor::ExtractOp::create(builder, loc, source, indices);
}

Value mlir::kiln::buildBroadcastRead(OpBuilder &builder, Location loc,
                                     Value source, ValueRange indices) {
  auto type = cast<ShapedType>(source.getType());
  unsigned leading = indices.size() - type.getRank();
  SmallVector<Value> reads;
  for (auto [dim, size] : llvm::enumerate(type.getShape()))
    reads.push_back(size == 1 ? constIndex(builder, loc, 0)
                              : indices[leading + dim]);
  return buildRead(builder, loc, source, reads);
}

Value mlir::kiln::buildClampedLength(OpBuilder &builder, Location loc,
                                     Value lengths, Value b, int64_t bound) {
  Type i64 = builder.getI64Type();
  Value length = buildRead(builder, loc, lengths, b);
  if (!length.getType().isInteger(64))
    length = arith::ExtSIOp::create(builder, loc, i64, length);
  length = arith::MaxSIOp::create(
      builder, loc, length,
      arith::ConstantOp::create(builder, loc, builder.getI64IntegerAttr(0)));
  length = arith::MinSIOp::create(
      builder, loc, length,
      arith::ConstantOp::create(builder, loc,
                                builder.getI64IntegerAttr(bound)));
  return arith::IndexCastOp::create(builder, loc, builder.getIndexType(),
                                    length);
}

//===----------------------------------------------------------------------===//
// Packed sequences
//===----------------------------------------------------------------------===//

AttentionRowSequence mlir::kiln::buildAttentionRowSequence(
    OpBuilder &builder, Location loc, Value cuQ, Value cuK,
    int64_t numSequences, int64_t numQueries, int64_t numKeys,
    AttentionAlignment alignment, Value row) {
  Value zero = constIndex(builder, loc, 0);
  // Sequences from the last to the first, each replacing what a later one
  // chose: the first sequence that holds the row wins.
  auto loop = scf::ForOp::create(
      builder, loc, zero, constIndex(builder, loc, numSequences),
      constIndex(builder, loc, 1), ValueRange{zero, zero, zero},
      [&](OpBuilder &b, Location loc, Value t, ValueRange chosen) {
        Value s = arith::SubIOp::create(
            b, loc, constIndex(b, loc, numSequences - 1), t);
        Value next = addConstant(b, loc, s, 1);
        Value queryBegin = buildClampedLength(b, loc, cuQ, s, numQueries);
        Value queryEnd = buildClampedLength(b, loc, cuQ, next, numQueries);
        Value keyBegin = buildClampedLength(b, loc, cuK, s, numKeys);
        Value keyEnd = buildClampedLength(b, loc, cuK, next, numKeys);
        Value holds = arith::AndIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle,
                                  queryBegin, row),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, row,
                                  queryEnd));
        // p(i) = keyBegin + (i - queryBegin) + offset_s.
        Value position = arith::AddIOp::create(
            b, loc, keyBegin,
            arith::SubIOp::create(b, loc, row, queryBegin));
        if (alignment == AttentionAlignment::bottom_right)
          position = arith::AddIOp::create(
              b, loc, position,
              arith::SubIOp::create(
                  b, loc, arith::SubIOp::create(b, loc, keyEnd, keyBegin),
                  arith::SubIOp::create(b, loc, queryEnd, queryBegin)));
        Value values[] = {keyBegin, keyEnd, position};
        SmallVector<Value> result;
        for (auto [value, previous] : llvm::zip_equal(values, chosen))
          result.push_back(
              arith::SelectOp::create(b, loc, holds, value, previous));
        scf::YieldOp::create(b, loc, result);
      });
  return {loop.getResult(0), loop.getResult(1), loop.getResult(2)};
}

AttentionSequenceTables mlir::kiln::buildAttentionRowSequenceTables(
    OpBuilder &builder, Location loc, AttentionOpInterface op, Value cuQ,
    Value cuK) {
  int64_t numQueries = cast<ShapedType>(op.getQuery().getType()).getDimSize(2);
  int64_t numKeys = cast<ShapedType>(op.getKey().getType()).getDimSize(2);
  int64_t numSequences = op.getNumPackedSequences();
  AttentionAlignment alignment = op.getAlignment();
  Type i64 = builder.getI64Type();
  SmallVector<Value> inits;
  for (int n = 0; n < 3; ++n)
    inits.push_back(tensor::EmptyOp::create(builder, loc, {numQueries}, i64));
  AffineMap identity = builder.getMultiDimIdentityMap(1);
  auto generic = linalg::GenericOp::create(
      builder, loc, TypeRange(inits), ValueRange{}, inits,
      SmallVector<AffineMap>(3, identity),
      {utils::IteratorType::parallel},
      [&](OpBuilder &b, Location loc, ValueRange) {
        Value row = linalg::IndexOp::create(b, loc, 0);
        AttentionRowSequence sequence =
            buildAttentionRowSequence(b, loc, cuQ, cuK, numSequences,
                                      numQueries, numKeys, alignment, row);
        SmallVector<Value> results;
        for (Value value :
             {sequence.keyBegin, sequence.keyEnd, sequence.position})
          results.push_back(arith::IndexCastOp::create(b, loc, i64, value));
        linalg::YieldOp::create(b, loc, results);
      });
  return {generic.getResult(0), generic.getResult(1), generic.getResult(2)};
}

/// Reads entry `row` of a [Sq] i64 table as an index value.
static Value buildTableRead(OpBuilder &builder, Location loc, Value table,
                            Value row) {
  return arith::IndexCastOp::create(builder, loc, builder.getIndexType(),
                                    buildRead(builder, loc, table, row));
}

Value AttentionVisibility::buildPosition(OpBuilder &builder, Location loc,
                                         Value row,
                                         int64_t positionOffset) const {
  if (sequences)
    return buildTableRead(builder, loc, sequences.position, row);
  return addConstant(builder, loc, row, positionOffset);
}

std::pair<Value, Value> mlir::kiln::buildAttentionSequenceKeyRange(
    OpBuilder &builder, Location loc, const AttentionVisibility &visibility,
    Value firstRow, Value endRow) {
  const AttentionSequenceTables &tables = visibility.sequences;
  assert(tables && "expected packed sequences");
  const AttentionBand &band = visibility.sequenceBand;
  // Start from the empty range [Sk, 0) and widen it by each row whose own
  // range [max(keyBegin, p - L), min(keyEnd, p + R + 1)) is not empty.
  auto loop = scf::ForOp::create(
      builder, loc, firstRow, endRow, constIndex(builder, loc, 1),
      ValueRange{constIndex(builder, loc, visibility.numKeys),
                 constIndex(builder, loc, 0)},
      [&](OpBuilder &b, Location loc, Value row, ValueRange range) {
        Value first = buildTableRead(b, loc, tables.keyBegin, row);
        Value end = buildTableRead(b, loc, tables.keyEnd, row);
        if (band.isBounded()) {
          Value position = buildTableRead(b, loc, tables.position, row);
          if (Value bandFirst = band.buildFirstKey(b, loc, position))
            first = arith::MaxSIOp::create(b, loc, first, bandFirst);
          if (Value bandEnd = band.buildEndKey(b, loc, position))
            end = arith::MinSIOp::create(b, loc, end, bandEnd);
        }
        Value sees = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                           first, end);
        Value begin = arith::SelectOp::create(
            b, loc, sees, arith::MinSIOp::create(b, loc, range[0], first),
            range[0]);
        Value endKey = arith::SelectOp::create(
            b, loc, sees, arith::MaxSIOp::create(b, loc, range[1], end),
            range[1]);
        scf::YieldOp::create(b, loc, ValueRange{begin, endKey});
      });
  return {loop.getResult(0), loop.getResult(1)};
}

Value mlir::kiln::buildAttentionVisible(OpBuilder &builder, Location loc,
                                        const AttentionVisibility &visibility,
                                        Value b, Value h, Value i, Value j) {
  Value visible;
  auto conjoin = [&](Value term) {
    visible =
        visible ? arith::AndIOp::create(builder, loc, visible, term) : term;
  };

  // The band: firstKey(i) <= j < endKey(i).
  const AttentionBand &band = visibility.band;
  if (Value firstKey = band.buildFirstKey(builder, loc, i))
    conjoin(arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sge, j,
                                  firstKey));
  if (Value endKey = band.buildEndKey(builder, loc, i))
    conjoin(arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, j,
                                  endKey));

  if (visibility.keyLengths) {
    Value length = buildClampedLength(builder, loc, visibility.keyLengths, b,
                                      visibility.numKeys);
    conjoin(arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, j,
                                  length));
  }
  if (visibility.queryLengths) {
    Value length = buildClampedLength(builder, loc, visibility.queryLengths,
                                      b, visibility.numQueries);
    conjoin(arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, i,
                                  length));
  }
  if (visibility.booleanMask)
    conjoin(buildBroadcastRead(builder, loc, visibility.booleanMask,
                               ValueRange{b, h, i, j}));

  // Packed sequences: the keys of row i's sequence, and the band within it
  // on j - p(i).
  if (const AttentionSequenceTables &tables = visibility.sequences) {
    Value keyBegin = buildTableRead(builder, loc, tables.keyBegin, i);
    Value keyEnd = buildTableRead(builder, loc, tables.keyEnd, i);
    conjoin(arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sge, j,
                                  keyBegin));
    conjoin(arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, j,
                                  keyEnd));
    const AttentionBand &band = visibility.sequenceBand;
    if (band.isBounded()) {
      Value position = visibility.buildPosition(builder, loc, i, 0);
      if (Value firstKey = band.buildFirstKey(builder, loc, position))
        conjoin(arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sge,
                                      j, firstKey));
      if (Value endKey = band.buildEndKey(builder, loc, position))
        conjoin(arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt,
                                      j, endKey));
    }
  }

  if (!visible)
    visible =
        arith::ConstantOp::create(builder, loc, builder.getBoolAttr(true));
  return visible;
}

//===----------------------------------------------------------------------===//
// The logits
//===----------------------------------------------------------------------===//

AttentionLogits AttentionLogits::get(AttentionOpInterface op, Value mask,
                                     Value keyLengths, Value queryLengths,
                                     Value alibiSlopes,
                                     AttentionSequenceTables sequences) {
  AttentionLogits logits;
  logits.visibility = AttentionVisibility::get(op, mask, keyLengths,
                                               queryLengths, sequences);
  logits.scale = op.getEffectiveScale();
  logits.softcap = op.getSoftcapValue();
  if (op.hasAdditiveMask())
    logits.additiveMask = mask;
  assert(bool(alibiSlopes) == bool(op.getAlibiSlopes()) &&
         "the slopes to read stand for the op's alibi_slopes");
  logits.alibiSlopes = alibiSlopes;
  logits.positionOffset = AttentionBand::getPositionOffset(
      logits.visibility.numQueries, logits.visibility.numKeys,
      op.getAlignment());
  return logits;
}

Value AttentionLogits::buildUnmasked(OpBuilder &builder, Location loc, Value s,
                                     Value b, Value h, Value i, Value j,
                                     Value *capDerivative) const {
  Type type = s.getType();
  auto constant = [&](double value) -> Value {
    return arith::ConstantOp::create(builder, loc,
                                     builder.getFloatAttr(type, value));
  };
  if (capDerivative)
    *capDerivative = Value();
  Value x = arith::MulFOp::create(builder, loc, s, constant(scale));
  if (softcap) {
    Value cap = constant(*softcap);
    Value tanh = math::TanhOp::create(
        builder, loc, arith::DivFOp::create(builder, loc, x, cap));
    x = arith::MulFOp::create(builder, loc, cap, tanh);
    if (capDerivative)
      *capDerivative = arith::SubFOp::create(
          builder, loc, constant(1.0),
          arith::MulFOp::create(builder, loc, tanh, tanh));
  }
  if (additiveMask) {
    Value bias =
        buildBroadcastRead(builder, loc, additiveMask, ValueRange{b, h, i, j});
    x = arith::AddFOp::create(builder, loc, x,
                              convertFloat(builder, loc, bias, type));
  }
  if (alibiSlopes) {
    // - slope[b, h] * |j - p(i)|, the distance exact in i64 and then
    // rounded once to the compute type.
    Value slope = convertFloat(
        builder, loc,
        buildBroadcastRead(builder, loc, alibiSlopes, ValueRange{b, h}),
        type);
    Value distance = arith::SubIOp::create(
        builder, loc, j,
        visibility.buildPosition(builder, loc, i, positionOffset));
    distance = math::AbsIOp::create(
        builder, loc,
        arith::IndexCastOp::create(builder, loc, builder.getI64Type(),
                                   distance));
    Value penalty = arith::MulFOp::create(
        builder, loc, slope,
        arith::SIToFPOp::create(builder, loc, type, distance));
    x = arith::SubFOp::create(builder, loc, x, penalty);
  }
  return x;
}

Value AttentionLogits::build(OpBuilder &builder, Location loc, Value s,
                             Value b, Value h, Value i, Value j) const {
  Value x = buildUnmasked(builder, loc, s, b, h, i, j);
  Value visible = buildAttentionVisible(builder, loc, visibility, b, h, i, j);
  return arith::SelectOp::create(
      builder, loc, visible, x,
      arith::ConstantOp::create(
          builder, loc,
          builder.getFloatAttr(s.getType(),
                               -std::numeric_limits<double>::infinity())));
}

//===----------------------------------------------------------------------===//
// Dropout, the softmax numerator, the saved LSE
//===----------------------------------------------------------------------===//

Value mlir::kiln::buildAttentionDropoutKeep(OpBuilder &builder, Location loc,
                                            Value seed, double p,
                                            ArrayRef<int64_t> shape, Value b,
                                            Value h, Value i, Value j) {
  assert(shape.size() == 4 && "expected [B, Hq, Sq, Sk]");
  // ((b * Hq + h) * Sq + i) * Sk + j
  Value flat = b;
  Value coords[] = {h, i, j};
  for (auto [size, coord] : llvm::zip(shape.drop_front(), coords)) {
    flat = arith::MulIOp::create(builder, loc, flat,
                                 constIndex(builder, loc, size));
    flat = arith::AddIOp::create(builder, loc, flat, coord);
  }
  flat = arith::IndexCastOp::create(builder, loc, builder.getI64Type(), flat);
  return buildDropoutKeep(builder, loc, seed, flat, p);
}

AttentionDropout AttentionDropout::get(OpBuilder &builder, Location loc,
                                       const AttentionSizes &sizes,
                                       Value seed) {
  AttentionDropout dropout;
  dropout.p = sizes.dropout;
  dropout.shape = sizes.getScoresShape();
  if (dropout.isActive())
    dropout.seed = buildRead(builder, loc, seed, ValueRange{});
  return dropout;
}

Value AttentionDropout::apply(OpBuilder &builder, Location loc, Value x,
                              Value b, Value h, Value i, Value j) const {
  if (!isActive())
    return x;
  Type type = x.getType();
  Value keep =
      buildAttentionDropoutKeep(builder, loc, seed, p, shape, b, h, i, j);
  Value scaled = arith::MulFOp::create(
      builder, loc, x,
      arith::ConstantOp::create(builder, loc,
                                builder.getFloatAttr(type, 1.0 / (1.0 - p))));
  return arith::SelectOp::create(
      builder, loc, keep, scaled,
      arith::ConstantOp::create(builder, loc, builder.getFloatAttr(type, 0.0)));
}

Value mlir::kiln::buildGuardedExp(OpBuilder &builder, Location loc, Value x,
                                  Value m, double emptyRow) {
  Type type = x.getType();
  Value empty = arith::CmpFOp::create(
      builder, loc, arith::CmpFPredicate::OEQ, m,
      arith::ConstantOp::create(builder, loc,
                                builder.getFloatAttr(type, emptyRow)));
  Value e = math::ExpOp::create(builder, loc,
                                arith::SubFOp::create(builder, loc, x, m));
  return arith::SelectOp::create(
      builder, loc, empty,
      arith::ConstantOp::create(builder, loc, builder.getFloatAttr(type, 0.0)),
      e);
}

Value mlir::kiln::buildSinkRead(OpBuilder &builder, Location loc, Value sinks,
                                Value h, Type type) {
  return convertFloat(builder, loc,
                      buildBroadcastRead(builder, loc, sinks, ValueRange{h}),
                      type);
}

AttentionSinkFold AttentionSinkFold::build(OpBuilder &builder, Location loc,
                                           Value m, Value l, Value sink) {
  double negInf = -std::numeric_limits<double>::infinity();
  AttentionSinkFold fold;
  fold.max = arith::MaximumFOp::create(builder, loc, m, sink);
  fold.rescale = buildGuardedExp(builder, loc, m, fold.max, negInf);
  fold.sum = arith::AddFOp::create(
      builder, loc, arith::MulFOp::create(builder, loc, l, fold.rescale),
      buildGuardedExp(builder, loc, sink, fold.max, negInf));
  return fold;
}

Value AttentionSinkFold::buildProbabilityScale(OpBuilder &builder,
                                               Location loc) const {
  Type type = sum.getType();
  Value zero =
      arith::ConstantOp::create(builder, loc, builder.getFloatAttr(type, 0.0));
  Value empty = arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::OEQ,
                                      sum, zero);
  return arith::SelectOp::create(
      builder, loc, empty, zero,
      arith::DivFOp::create(builder, loc, rescale, sum));
}

Value mlir::kiln::buildSavedLseNeedsRenormalization(OpBuilder &builder,
                                                    Location loc, Value lse) {
  Type type = lse.getType();
  auto constant = [&](double value) -> Value {
    return arith::ConstantOp::create(builder, loc,
                                     builder.getFloatAttr(type, value));
  };
  Value magnitude = math::AbsFOp::create(builder, loc, lse);
  Value large = arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::OGT,
                                      magnitude,
                                      constant(kAttentionSavedLseBound));
  Value finite = arith::CmpFOp::create(
      builder, loc, arith::CmpFPredicate::OLT, magnitude,
      constant(std::numeric_limits<double>::infinity()));
  return arith::AndIOp::create(builder, loc, large, finite);
}
