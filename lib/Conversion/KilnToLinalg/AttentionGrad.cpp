//===- AttentionGrad.cpp - Lower kiln.attention_grad ----------------------===//
//
// kiln.attention_grad becomes an scf.for over the B * Hkv (batch, kv head)
// pairs around an scf.for over the R query heads of the group: the rank-5
// [B, Hkv, R, Sq, .] view of the adjoint (docs/Attention.md,
// "Adjoint"), and over the query blocks of each head, as in the forward.
// Each block recomputes its probabilities P on the key tiles it can see
// from Q, K, the masks and softcap exactly as the forward lowering does (the
// visibility predicate, the tile range and the dropout draw are the
// builders of Attention.h; nothing is saved by the forward), then
//
//   dV_g += P'^T dO               dP  = (dO V^T) * Z / (1 - p)
//   dS    = P * (dP - rowsum(dP * P))
//   dmask += dS  (reduced to the mask's shape)
//   dS'   = scale * dS * (1 - tanh^2(scale s / c))   (the factor: softcap)
//   dQ_h  = dS' K                 dK_g += dS'^T Q
//
// With the forward's `out` and `lse` the probabilities come from the saved
// row statistics instead, P = exp(t - LSE) (0 where LSE = +inf): no row max
// is recomputed, and the row sum only renormalises the rows whose |LSE| is
// beyond kAttentionSavedLseBound (AttentionUtils.h). rowsum(dP * P) stays (not
// rowsum(dO * O), which the op allows): see the comment at its computation.
//
// dK and dV of kv head g accumulate over its R query heads and their query
// blocks in the loops' iter_args, each key tile only from the blocks that
// see it, and are inserted once: K and V are never repeated.
// Masked entries and empty rows have P = 0, hence dS = 0 and P' = 0: they
// contribute exactly 0 to every result. f16 and bf16 compute in f32 and
// round each result once.
//
//===----------------------------------------------------------------------===//

#include "Attention.h"
#include "PopulatePatterns.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// linalg helpers on the blocks of one (b, h), in the compute type.
struct GradBlockBuilder : AttentionBlockBuilder {
  Type computeType;

  Value constant(OpBuilder &b, Location l, double value) {
    return arith::ConstantOp::create(b, l, b.getFloatAttr(computeType, value));
  }

  /// A fresh 2-D block of the sizes of `like` in the compute type.
  Value elementwise(Value like, ValueRange ins, ArrayRef<AffineMap> inMaps,
                    BlockBodyFn body) {
    return mapBlock(like, computeType, ins, inMaps, body);
  }
};

/// The rank-1 [rows] slice of a rank-3 tensor at (b, head, firstRow).
Value slice1(OpBuilder &builder, Location loc, Value source, Value b,
             Value head, OpFoldResult firstRow, int64_t rows) {
  auto type = RankedTensorType::get(
      {rows}, cast<RankedTensorType>(source.getType()).getElementType());
  SmallVector<OpFoldResult> offsets = {b, head, firstRow};
  SmallVector<OpFoldResult> sizes = {builder.getIndexAttr(1),
                                     builder.getIndexAttr(1),
                                     builder.getIndexAttr(rows)};
  SmallVector<OpFoldResult> strides(3, builder.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(builder, loc, type, source, offsets,
                                        sizes, strides);
}

/// What the phases of one kiln.attention_grad's lowering share: its sizes,
/// converted operands and forward parameters.
struct GradContext {
  AttentionSizes sizes;
  /// The forward's logits, recomputed from the same parameters.
  AttentionLogits logitParams;
  /// The forward's dropout draw; read (the seed) only once the op is known
  /// to have scores.
  AttentionDropout dropout;
  /// The converted Q, K, V, dO and, with the saved forward, LSE; the [Hq]
  /// sinks or null.
  Value query, key, value, dout, lse, sinks;
  /// The forward's O and LSE, when given (the verifier pairs them).
  bool saved = false;
  /// Whether key tiles narrow by the packed sequences' row tables
  /// (buildVisibleKeyTiles): not in the GPU pipeline's sequential lowering.
  bool readSequenceTables = false;
  /// The mask's type; null without a mask.
  RankedTensorType maskType;
  /// The additive mask's adjoint accumulates in the compute type in its
  /// rank-4 form [1.., mask dims]; empty without an additive mask.
  SmallVector<int64_t> mask4Shape;

  /// Whether the op has a d_mask result (its mask is additive).
  bool hasMaskAdjoint() const { return bool(logitParams.additiveMask); }
  /// The loop-carried values are dQ, dK, dV, then d_mask (with an additive
  /// mask), then d_sinks ([Hq] in the compute type, with sinks).
  unsigned getSinksAdjointIndex() const { return 3 + hasMaskAdjoint(); }

  /// The block helpers at the builder's point, in the compute type.
  GradBlockBuilder blocks(OpBuilder &builder, Location loc) const {
    return {{builder, loc}, sizes.computeType};
  }
};

/// Reads the sizes, converted operands and forward parameters of `op`; its
/// dropout is left inactive (AttentionDropout::get reads the seed, which the
/// lowering does only once the op has scores). Builds nothing; `sequences`
/// are the tables of the op's packed sequences, if it has them.
static GradContext getGradContext(AttentionGradOp op,
                                  AttentionGradOp::Adaptor adaptor,
                                  AttentionSequenceTables sequences) {
  GradContext ctx;
  ctx.sizes = AttentionSizes::get(op);
  // The verifier proved the shapes static and the mask of rank <= 4.
  if (Value mask = op.getMask())
    ctx.maskType = cast<RankedTensorType>(mask.getType());

  // The forward's logits, recomputed from the same parameters.
  ctx.logitParams =
      AttentionLogits::get(op, adaptor.getMask(), adaptor.getKeyLengths(),
                           adaptor.getQueryLengths(), adaptor.getAlibiSlopes(),
                           sequences);
  ctx.query = adaptor.getQuery();
  ctx.key = adaptor.getKey();
  ctx.value = adaptor.getValue();
  ctx.dout = adaptor.getDout();
  ctx.lse = adaptor.getLse();
  ctx.sinks = adaptor.getSinks();
  // The forward's O and LSE, when given (the verifier pairs them).
  ctx.saved = op.hasSavedForward();

  // The additive mask's adjoint accumulates in the compute type in its
  // rank-4 form [1.., mask dims].
  if (ctx.hasMaskAdjoint()) {
    ctx.mask4Shape.assign(4 - ctx.maskType.getRank(), 1);
    llvm::append_range(ctx.mask4Shape, ctx.maskType.getShape());
  }
  return ctx;
}

/// Replaces `op` with dQ, dK and dV (`grads`) and, with an additive mask,
/// d_mask: `dmask4Final` (the rank-4 accumulator) rounded to the mask's
/// element type and collapsed to the mask's shape.
static void replaceWithAdjoints(ConversionPatternRewriter &rewriter,
                                Location loc, AttentionGradOp op,
                                const GradContext &ctx, ValueRange grads,
                                Value dmask4Final, Value dsinksFinal) {
  GradBlockBuilder top = ctx.blocks(rewriter, loc);
  RankedTensorType maskType = ctx.maskType;
  SmallVector<Value> results = llvm::to_vector(grads);
  if (ctx.hasMaskAdjoint()) {
    Value dmask = top.round(dmask4Final, maskType.getElementType());
    if (maskType.getRank() < 4) {
      SmallVector<ReassociationIndices> groups;
      int64_t rank = maskType.getRank();
      if (rank > 0) {
        ReassociationIndices first;
        for (int64_t d = 0; d <= 4 - rank; ++d)
          first.push_back(d);
        groups.push_back(first);
        for (int64_t d = 4 - rank + 1; d < 4; ++d)
          groups.push_back({d});
      }
      dmask = tensor::CollapseShapeOp::create(rewriter, loc, maskType, dmask,
                                              groups);
    }
    results.push_back(dmask);
  }
  if (ctx.sinks)
    results.push_back(top.round(
        dsinksFinal,
        cast<RankedTensorType>(op.getSinks().getType()).getElementType()));
  rewriter.replaceOp(op, results);
}

/// A query block's probabilities: P [rows, width] and, with a sink, the
/// sink's own probability per row ([rows]; null without).
struct BlockProbabilities {
  Value probs, sinkProbs;
};

/// The probabilities of a query block from the forward's saved LSE
/// (`logits`: the block's recomputed logits t; `sink`: the head's sink
/// logit, or null).
static BlockProbabilities
buildSavedProbabilities(OpBuilder &builder, Location loc,
                        const GradContext &ctx, Value logits, Value sink,
                        Value b, Value h, OpFoldResult firstRow, int64_t rows) {
  GradBlockBuilder bb = ctx.blocks(builder, loc);
  AffineMap id2 = bb.map(2, {0, 1});
  AffineMap row = bb.map(2, {0});
  double negInf = -std::numeric_limits<double>::infinity();
  // e = exp(t - LSE), and 0 in an empty row (LSE = +inf); an
  // invisible entry has t = -inf, hence e = 0. P = e, except in a row
  // whose |LSE| is too large for its rounding to leave P right
  // (buildSavedLseNeedsRenormalization): there P = e / sum_j e, which
  // is exact. The row sum is a pass over the block, as the row max of
  // the recomputing path; the whole row is in the block here. It is
  // taken for every block, not under an scf.if on the block's LSE: the
  // GPU pipeline runs this lowering too (f64), where that branch would
  // read device memory on the host (kiln-gpu-check-host-code rejects
  // it).
  Value lse = slice1(builder, loc, ctx.lse, b, h, firstRow, rows);
  // e in place of the logits (read for their sizes only from here on), and
  // its row sum, in one pass.
  auto [exps, rowSum] = bb.mapAndRowSum(
      logits, lse,
      [&](OpBuilder &pb, Location pl, ValueRange a, Value, Value) -> Value {
        return buildGuardedExp(pb, pl, a[0], a[1], -negInf);
      });
  if (!sink)
    return {bb.elementwise(
        logits, ValueRange{exps, lse, rowSum}, {id2, row, row},
        [&](OpBuilder &pb, Location pl, ValueRange a, Value, Value) -> Value {
          Value renormalize = arith::AndIOp::create(
              pb, pl, buildSavedLseNeedsRenormalization(pb, pl, a[1]),
              arith::CmpFOp::create(pb, pl, arith::CmpFPredicate::OGT, a[2],
                                    bb.constant(pb, pl, 0.0)));
          return arith::SelectOp::create(
              pb, pl, renormalize, arith::DivFOp::create(pb, pl, a[0], a[2]),
              a[0]);
        })};

  // With a sink, the renormalising sum holds it too (AttentionSinkFold with
  // m = LSE): P = e * w and P_sink = exp(s - m') / l' in the rows beyond the
  // bound, P = e and P_sink = exp(s - LSE) in the others.
  auto [foldMax, foldSum, scale] = bb.foldSinkIntoRows(lse, rowSum, sink);
  Value rowScale = bb.mapRows(
      {lse, scale}, [&](OpBuilder &pb, Location pl, ValueRange a) -> Value {
        return arith::SelectOp::create(
            pb, pl, buildSavedLseNeedsRenormalization(pb, pl, a[0]), a[1],
            bb.constant(pb, pl, 1.0));
      });
  Value sinkProbs = bb.mapRows(
      {lse, foldMax, foldSum},
      [&](OpBuilder &pb, Location pl, ValueRange a) -> Value {
        Value renormalized = arith::DivFOp::create(
            pb, pl, buildGuardedExp(pb, pl, sink, a[1], negInf), a[2]);
        return arith::SelectOp::create(
            pb, pl, buildSavedLseNeedsRenormalization(pb, pl, a[0]),
            renormalized, buildGuardedExp(pb, pl, sink, a[0], -negInf));
      });
  Value probs = bb.elementwise(
      logits, ValueRange{exps, rowScale}, {id2, row},
      [&](OpBuilder &pb, Location pl, ValueRange a, Value, Value) -> Value {
        return arith::MulFOp::create(pb, pl, a[0], a[1]);
      });
  return {probs, sinkProbs};
}

/// The probabilities of a query block recomputed from its logits `logits`
/// as the forward does: its row max, exponentials and row sum, and the sink
/// `sink` (null without) folded in.
static BlockProbabilities
buildRecomputedProbabilities(OpBuilder &builder, Location loc,
                             const GradContext &ctx, Value logits,
                             Value sink) {
  GradBlockBuilder bb = ctx.blocks(builder, loc);
  AffineMap id2 = bb.map(2, {0, 1});
  AffineMap row = bb.map(2, {0});
  double negInf = -std::numeric_limits<double>::infinity();
  Value rowMax = bb.rowMax(logits);
  // e in place of the logits (read for their sizes only from here on), and
  // its row sum, in one pass.
  auto [exps, rowSum] = bb.mapAndRowSum(
      logits, rowMax,
      [&](OpBuilder &pb, Location pl, ValueRange a, Value, Value) -> Value {
        return buildGuardedExp(pb, pl, a[0], a[1], negInf);
      });
  if (!sink)
    // P = e / l, 0 in an empty row.
    return {bb.elementwise(
        logits, ValueRange{exps, rowSum}, {id2, row},
        [&](OpBuilder &pb, Location pl, ValueRange a, Value, Value) -> Value {
          Value zeroValue = bb.constant(pb, pl, 0.0);
          Value empty = arith::CmpFOp::create(
              pb, pl, arith::CmpFPredicate::OEQ, a[1], zeroValue);
          Value p = arith::DivFOp::create(pb, pl, a[0], a[1]);
          return arith::SelectOp::create(pb, pl, empty, zeroValue, p);
        })};

  // P = e * w (w = rescale / l', 0 in an empty row), P_sink = exp(s - m') w
  // / rescale = exp(s - m') / l'.
  auto [foldMax, foldSum, scale] = bb.foldSinkIntoRows(rowMax, rowSum, sink);
  Value probs = bb.elementwise(
      logits, ValueRange{exps, scale}, {id2, row},
      [&](OpBuilder &pb, Location pl, ValueRange a, Value, Value) -> Value {
        return arith::MulFOp::create(pb, pl, a[0], a[1]);
      });
  Value sinkProbs = bb.mapRows(
      {foldMax, foldSum}, [&](OpBuilder &pb, Location pl, ValueRange a) -> Value {
        Value zeroValue = bb.constant(pb, pl, 0.0);
        Value empty = arith::CmpFOp::create(pb, pl, arith::CmpFPredicate::OEQ,
                                            a[1], zeroValue);
        Value p = arith::DivFOp::create(
            pb, pl, buildGuardedExp(pb, pl, sink, a[0], negInf), a[1]);
        return arith::SelectOp::create(pb, pl, empty, zeroValue, p);
      });
  return {probs, sinkProbs};
}

/// acc[j, d] += sum_i block[i, j] x[i, d] on each visible key tile of
/// the [Sk, D] accumulator `acc` (block: [rows, width]).
static Value accumulateTransposed(OpBuilder &builder, Location loc,
                                  int64_t numKeys,
                                  const AttentionKeyTiles &tiles, Value block,
                                  Value x, Value acc) {
  return buildKeyTileLoop(
      builder, loc, numKeys, tiles, acc,
      [&](OpBuilder &builder, Location loc, OpFoldResult firstKey, int64_t keys,
          ValueRange tileArgs) -> SmallVector<Value> {
        AttentionBlockBuilder tb{builder, loc};
        OpFoldResult column = subIndex(builder, loc, firstKey, tiles.firstKey);
        Value blockTile = tb.columns(block, column, builder.getIndexAttr(keys));
        Value accTile = tb.rows(tileArgs[0], firstKey, keys);
        Value tile = tb.contract(blockTile, tb.map(3, {2, 0}), x,
                                 tb.map(3, {2, 1}), accTile);
        return {tb.insertRows(tile, tileArgs[0], firstKey)};
      })[0];
}

/// dS = P * (dP - rowsum(dP * P)) of a query block (`logits` gives its
/// sizes): the adjoint of the logits, hence of the additive mask. Also
/// returns rowsum(dP * P) ([rows]), which the sink's adjoint reads.
static std::pair<Value, Value> buildScoreAdjoint(OpBuilder &builder,
                                                 Location loc,
                                                 const GradContext &ctx,
                                                 Value logits, Value probs,
                                                 Value dprobs) {
  GradBlockBuilder bb = ctx.blocks(builder, loc);
  AffineMap id2 = bb.map(2, {0, 1});
  AffineMap row = bb.map(2, {0});
  // rowsum(dP * P), also with the saved forward: not the cheaper
  // rowsum(dO * O) over Dv. dP comes from the matmul kernels' fused
  // multiply-adds, dO * O would be rounded apart from it, and in a row
  // whose one visible key makes P = 1 (a gradient exactly 0) the two
  // would not cancel exactly. The [Sq, Sk] product is about 1 / (5 D)
  // of the block's work. The products are summed as they are made, never
  // stored.
  Value rowDot =
      bb.mapAndRowSum(
            dprobs, {},
            [&](OpBuilder &pb, Location pl, ValueRange a, Value,
                Value) -> Value {
              return arith::MulFOp::create(pb, pl, a[0], a[1]);
            },
            probs, /*writeBack=*/false)
          .second;
  // dS = P * (dP - rowsum(dP * P)): the adjoint of the logits, hence of
  // the additive mask.
  Value dscores = bb.elementwise(
      logits, ValueRange{probs, dprobs, rowDot}, {id2, id2, row},
      [&](OpBuilder &pb, Location pl, ValueRange a, Value, Value) -> Value {
        return arith::MulFOp::create(pb, pl, a[0],
                                     arith::SubFOp::create(pb, pl, a[1], a[2]));
      });
  return {dscores, rowDot};
}

/// d_sinks[h] -= sum_i P_sink[i] * rowsum(dP * P)[i] over the rows of a
/// query block of head h: the sink's logit gets P_sink (0 - D) per row, its
/// value being 0. `acc` is the [Hq] accumulator; returns it updated.
static Value accumulateSinkAdjoint(OpBuilder &builder, Location loc,
                                   const GradContext &ctx, Value h,
                                   Value sinkProbs, Value rowDot, Value acc) {
  GradBlockBuilder bb = ctx.blocks(builder, loc);
  Type computeType = ctx.sizes.computeType;
  auto scalarType = RankedTensorType::get({}, computeType);
  Value init = bb.filled({}, computeType, 0.0);
  Value dot =
      linalg::GenericOp::create(
          builder, loc, TypeRange{scalarType}, ValueRange{sinkProbs, rowDot},
          ValueRange{init},
          SmallVector<AffineMap>{bb.map(1, {0}), bb.map(1, {0}),
                                 AffineMap::get(1, 0, builder.getContext())},
          {utils::IteratorType::reduction},
          [&](OpBuilder &pb, Location pl, ValueRange a) {
            linalg::YieldOp::create(
                pb, pl,
                Value(arith::AddFOp::create(
                    pb, pl, a[2], arith::MulFOp::create(pb, pl, a[0], a[1]))));
          })
          .getResult(0);
  Value sum = arith::SubFOp::create(
      builder, loc, tensor::ExtractOp::create(builder, loc, acc, ValueRange{h}),
      tensor::ExtractOp::create(builder, loc, dot, ValueRange{}));
  return tensor::InsertOp::create(builder, loc, sum, acc, ValueRange{h});
}

/// Adds the block's dS (`dscores`: [rows, width], the visible columns of
/// the block at `at`) into the rank-4 d_mask accumulator `acc`; returns the
/// updated accumulator.
static Value accumulateMaskAdjoint(OpBuilder &builder, Location loc,
                                   const GradContext &ctx,
                                   const AttentionBlockPosition &at,
                                   int64_t rows, OpFoldResult width,
                                   Value dscores, Value acc) {
  std::optional<int64_t> staticWidth = getConstantIntValue(width);
  // No visible key: nothing to add.
  if (staticWidth == 0)
    return acc;
  // dmask[b', h', i', j'] += dS[i, j], a broadcast (size-1) dim of
  // the mask summing its indices: the slice at (b or 0, h or 0, the
  // block's rows or 0, its visible columns or 0) without its size-1
  // dims.
  ArrayRef<int64_t> mask4Shape = ctx.mask4Shape;
  Type computeType = ctx.sizes.computeType;
  Value b = at.b, h = at.h;
  OpFoldResult firstRow = at.firstRow;
  GradBlockBuilder bb = ctx.blocks(builder, loc);
  AffineMap id2 = bb.map(2, {0, 1});
  auto maskAt = [&](int64_t dim, OpFoldResult index) -> OpFoldResult {
    if (mask4Shape[dim] == 1)
      return builder.getIndexAttr(0);
    return index;
  };
  SmallVector<OpFoldResult> offsets = {maskAt(0, b), maskAt(1, h),
                                       maskAt(2, firstRow),
                                       maskAt(3, at.tiles.firstKey)};
  SmallVector<OpFoldResult> sizes = {
      builder.getIndexAttr(1), builder.getIndexAttr(1),
      builder.getIndexAttr(mask4Shape[2] == 1 ? 1 : rows),
      mask4Shape[3] == 1 ? OpFoldResult(builder.getIndexAttr(1)) : width};
  SmallVector<OpFoldResult> strides(4, builder.getIndexAttr(1));
  SmallVector<int64_t> kept;
  SmallVector<unsigned> keptDims;
  for (unsigned d = 0; d < 2; ++d)
    if (mask4Shape[2 + d] != 1) {
      kept.push_back(d == 0 ? rows
                            : staticWidth.value_or(ShapedType::kDynamic));
      keptDims.push_back(d);
    }
  auto sliceType = RankedTensorType::get(kept, computeType);
  Value part = tensor::ExtractSliceOp::create(builder, loc, sliceType, acc,
                                              offsets, sizes, strides);
  SmallVector<utils::IteratorType> iterators(2, utils::IteratorType::reduction);
  for (unsigned d : keptDims)
    iterators[d] = utils::IteratorType::parallel;
  SmallVector<AffineMap> maps = {id2, bb.map(2, keptDims)};
  part = linalg::GenericOp::create(
             builder, loc, TypeRange{sliceType}, ValueRange{dscores},
             ValueRange{part}, maps, iterators,
             [&](OpBuilder &pb, Location pl, ValueRange a) {
               linalg::YieldOp::create(
                   pb, pl, Value(arith::AddFOp::create(pb, pl, a[1], a[0])));
             })
             .getResult(0);
  return tensor::InsertSliceOp::create(builder, loc, part, acc, offsets, sizes,
                                       strides);
}

/// dS' = scale * dS * (1 - tanh^2(scale s / c)) of a query block, from its
/// dS (`dscores`) and raw scores s (`scores`): the adjoint of s.
static Value buildLogitAdjoint(OpBuilder &builder, Location loc,
                               const GradContext &ctx, Value logits,
                               Value dscores, Value scores) {
  GradBlockBuilder bb = ctx.blocks(builder, loc);
  AffineMap id2 = bb.map(2, {0, 1});
  double scale = ctx.logitParams.scale;
  std::optional<double> softcap = ctx.logitParams.softcap;
  // dS' = scale * dS * (1 - tanh^2(scale s / c)).
  return bb.elementwise(
      logits, ValueRange{dscores, scores}, {id2, id2},
      [&](OpBuilder &pb, Location pl, ValueRange a, Value, Value) -> Value {
        Value x = a[0];
        if (softcap) {
          Value t = math::TanhOp::create(
              pb, pl,
              arith::MulFOp::create(pb, pl, a[1],
                                    bb.constant(pb, pl, scale / *softcap)));
          Value factor =
              arith::SubFOp::create(pb, pl, bb.constant(pb, pl, 1.0),
                                    arith::MulFOp::create(pb, pl, t, t));
          x = arith::MulFOp::create(pb, pl, x, factor);
        }
        return arith::MulFOp::create(pb, pl, x, bb.constant(pb, pl, scale));
      });
}

/// One query block of query head h of kv head g: dQ of its rows, and its
/// contributions to the group's dK and dV accumulators (args[1],
/// args[2]) and to d_mask (args[3], with an additive mask). `k` is the
/// group's K, `kt` and `vt` its Kᵀ and Vᵀ. Returns the updated args.
static SmallVector<Value>
buildQueryBlockAdjoints(OpBuilder &builder, Location loc,
                        const GradContext &ctx, Value b, Value h, Value k,
                        Value kt, Value vt, OpFoldResult firstRow, int64_t rows,
                        ValueRange args) {
  const AttentionSizes &sizes = ctx.sizes;
  int64_t numKeys = sizes.numKeys;
  Type computeType = sizes.computeType;
  const AttentionDropout &dropout = ctx.dropout;
  GradBlockBuilder bb = ctx.blocks(builder, loc);
  Value q = extractHeadBlock(builder, loc, ctx.query, b, h, rows, sizes.keyDim,
                             firstRow);
  Value dout = extractHeadBlock(builder, loc, ctx.dout, b, h, rows,
                                sizes.valueDim, firstRow);
  AffineMap id2 = bb.map(2, {0, 1});
  AttentionBlockPosition at{b, h, firstRow,
                            buildVisibleKeyTiles(builder, loc,
                                                 ctx.logitParams.visibility,
                                                 firstRow, rows,
                                                 ctx.readSequenceTables)};
  const AttentionKeyTiles &tiles = at.tiles;
  OpFoldResult width = subIndex(builder, loc, tiles.endKey, tiles.firstKey);

  // s[i, j] = sum_d Q[i, d] K[j, d] on the visible columns, and the
  // forward's logits t = visible ? cap(scale s) + mask_add : -inf in a
  // fresh block: softcap's derivative reads s again.
  Value scores = bb.visibleProduct(q, kt, tiles, numKeys, computeType);
  Value logits = bb.blockLogits(ctx.logitParams, scores, at);
  Value sink = ctx.sinks ? buildSinkRead(builder, loc, ctx.sinks, h,
                                         computeType)
                         : Value();
  auto [probs, sinkProbs] =
      ctx.saved ? buildSavedProbabilities(builder, loc, ctx, logits, sink, b,
                                          h, firstRow, rows)
                : buildRecomputedProbabilities(builder, loc, ctx, logits, sink);
  // x * Z / (1 - p): dropout's keep bit, redrawn from the seed at the
  // forward's (b, h, i, j).
  auto dropped = [&](Value block) -> Value {
    if (!dropout.isActive())
      return block;
    return bb.elementwise(block, block, {id2},
                          [&](OpBuilder &pb, Location pl, ValueRange a, Value i,
                              Value j) -> Value {
                            auto [row, key] = at.globalIndices(pb, pl, i, j);
                            return dropout.apply(pb, pl, a[0], b, h, row, key);
                          });
  };
  Value droppedProbs = dropped(probs);

  // dV_g[j, d] += sum_i P'[i, j] dO[i, d]
  Value dvAcc = accumulateTransposed(builder, loc, numKeys, tiles, droppedProbs,
                                     dout, args[2]);
  // dP[i, j] = (sum_d dO[i, d] V[j, d]) * Z / (1 - p)
  Value dprobs =
      dropped(bb.visibleProduct(dout, vt, tiles, numKeys, computeType));
  auto [dscores, rowDot] =
      buildScoreAdjoint(builder, loc, ctx, logits, probs, dprobs);

  Value dmaskAcc;
  if (ctx.hasMaskAdjoint())
    dmaskAcc = accumulateMaskAdjoint(builder, loc, ctx, at, rows, width,
                                     dscores, args[3]);

  Value dlogits = buildLogitAdjoint(builder, loc, ctx, logits, dscores, scores);
  // dQ_h[i, d] = sum_j dS'[i, j] K[j, d] over the visible tiles.
  Value dqBlock = bb.accumulateVisible(
      dlogits, k, bb.filled({rows, sizes.keyDim}, computeType, 0.0), tiles,
      numKeys);
  // dK_g[j, d] += sum_i dS'[i, j] Q[i, d]
  Value dkAcc =
      accumulateTransposed(builder, loc, numKeys, tiles, dlogits, q, args[1]);
  SmallVector<Value> yields;
  yields.push_back(insertHeadBlock(builder, loc,
                                   bb.round(dqBlock, sizes.elementType),
                                   args[0], b, h, firstRow));
  yields.push_back(dkAcc);
  yields.push_back(dvAcc);
  if (dmaskAcc)
    yields.push_back(dmaskAcc);
  if (ctx.sinks)
    yields.push_back(accumulateSinkAdjoint(builder, loc, ctx, h, sinkProbs,
                                           rowDot,
                                           args[ctx.getSinksAdjointIndex()]));
  return yields;
}

/// The body of one (batch, kv head) pair (b, g): K and V of the group and
/// their transposes, the loops over its R query heads and their query
/// blocks, and the group's dK and dV rounded and inserted once.
/// `outerArgs` are dQ, dK, dV and, with an additive mask, d_mask; returns
/// their next values.
static SmallVector<Value> buildKVHeadAdjoints(OpBuilder &builder, Location loc,
                                              const GradContext &ctx, Value b,
                                              Value g, ValueRange outerArgs) {
  const AttentionSizes &sizes = ctx.sizes;
  Type computeType = sizes.computeType;
  GradBlockBuilder gb = ctx.blocks(builder, loc);
  Value k = extractHeadBlock(builder, loc, ctx.key, b, g, sizes.numKeys,
                             sizes.keyDim);
  Value v = extractHeadBlock(builder, loc, ctx.value, b, g, sizes.numKeys,
                             sizes.valueDim);
  // Kᵀ and Vᵀ once per (b, g): the score and dO·Vᵀ tiles read their
  // [D, Tk] blocks with contiguous rows (a transposed operand would
  // be repacked by every query block).
  Value kt = gb.transpose(k);
  Value vt = gb.transpose(v);

  // The R query heads h = g * R + r of the group, and the query
  // blocks of each; dK and dV of the group accumulate in the
  // iter_args, each key tile getting only the contributions of the
  // query blocks that see it (the others would add P = 0 and
  // dS = 0).
  SmallVector<Value> innerInits = {
      outerArgs[0], gb.filled({sizes.numKeys, sizes.keyDim}, computeType, 0.0),
      gb.filled({sizes.numKeys, sizes.valueDim}, computeType, 0.0)};
  if (ctx.hasMaskAdjoint())
    innerInits.push_back(outerArgs[3]);
  if (ctx.sinks)
    innerInits.push_back(outerArgs[ctx.getSinksAdjointIndex()]);
  SmallVector<Value> inner = buildGroupHeadLoop(
      builder, loc, g, sizes.groupSize, innerInits,
      [&](OpBuilder &builder, Location loc, Value h, ValueRange args) {
        return buildQueryBlockLoop(
            builder, loc, sizes.numQueries, args,
            [&](OpBuilder &builder, Location loc, OpFoldResult firstRow,
                int64_t rows, ValueRange blockArgs) {
              return buildQueryBlockAdjoints(builder, loc, ctx, b, h, k, kt, vt,
                                             firstRow, rows, blockArgs);
            });
      });

  SmallVector<Value> yields = {
      inner[0],
      insertHeadBlock(builder, loc, gb.round(inner[1], sizes.elementType),
                      outerArgs[1], b, g),
      insertHeadBlock(builder, loc, gb.round(inner[2], sizes.elementType),
                      outerArgs[2], b, g)};
  if (ctx.hasMaskAdjoint())
    yields.push_back(inner[3]);
  if (ctx.sinks)
    yields.push_back(inner[ctx.getSinksAdjointIndex()]);
  return yields;
}

/// Partial results beyond which d_mask's partials (SharedAdjoint) are not
/// worth their memory: the (b, g) loop then stays sequential.
constexpr int64_t kMaxMaskAdjointPartials = int64_t(1) << 22;

/// How the (b, g) iterations of the adjoint loop write an adjoint that
/// some of them add to in common: d_mask (a size-1 batch dim of the mask
/// sums over b, a size-1 head dim over every head) and d_sinks (its [Hq]
/// sums over b). In a parallel loop, each set of iterations that would add
/// to the same elements gets a partial adjoint of its own, zeros first,
/// [numPartials, adjoint dims], and the partials are summed in their order
/// after the loop, so the result does not depend on the thread count.
struct SharedAdjoint {
  /// Whether the iterations of different b, or of different g, add to the
  /// same elements (each then gets its own partial).
  bool acrossBatch = false, acrossKVHeads = false;
  /// B (if acrossBatch) times Hkv (if acrossKVHeads); 1 accumulates in
  /// the adjoint itself.
  int64_t numPartials = 1;

  static SharedAdjoint get(const AttentionSizes &sizes, bool acrossBatch,
                           bool acrossKVHeads) {
    SharedAdjoint shared;
    shared.acrossBatch = acrossBatch && sizes.batch > 1;
    shared.acrossKVHeads = acrossKVHeads && sizes.numKVHeads > 1;
    shared.numPartials = (shared.acrossBatch ? sizes.batch : 1) *
                         (shared.acrossKVHeads ? sizes.numKVHeads : 1);
    return shared;
  }

  /// The zeros of the partials of an adjoint shaped `shape`, or `init`
  /// itself for one partial.
  Value buildInit(GradBlockBuilder &top, Value init,
                  ArrayRef<int64_t> shape) const {
    if (numPartials == 1)
      return init;
    SmallVector<int64_t> partialShape = {numPartials};
    llvm::append_range(partialShape, shape);
    return top.filled(partialShape, top.computeType, 0.0);
  }

  /// The partial of iteration (b, g) in `partials` (rank-reduced to the
  /// adjoint's shape), or `partials` itself for one partial; its offsets
  /// are returned in `offsets`.
  Value extract(OpBuilder &builder, Location loc, const AttentionSizes &sizes,
                Value partials, Value b, Value g,
                SmallVectorImpl<OpFoldResult> &offsets) const {
    if (numPartials == 1)
      return partials;
    Value p = arith::ConstantIndexOp::create(builder, loc, 0);
    if (acrossBatch)
      p = b;
    if (acrossKVHeads)
      p = acrossBatch
              ? arith::AddIOp::create(
                    builder, loc,
                    arith::MulIOp::create(builder, loc, b,
                                          arith::ConstantIndexOp::create(
                                              builder, loc, sizes.numKVHeads)),
                    g)
                    .getResult()
              : g;
    auto type = cast<RankedTensorType>(partials.getType());
    offsets.assign(type.getRank(), builder.getIndexAttr(0));
    offsets[0] = p;
    SmallVector<OpFoldResult> partialSizes = {builder.getIndexAttr(1)};
    for (int64_t d = 1; d < type.getRank(); ++d)
      partialSizes.push_back(builder.getIndexAttr(type.getDimSize(d)));
    SmallVector<OpFoldResult> strides(type.getRank(), builder.getIndexAttr(1));
    return tensor::ExtractSliceOp::create(
        builder, loc,
        RankedTensorType::get(type.getShape().drop_front(),
                              type.getElementType()),
        partials, offsets, partialSizes, strides);
  }

  /// Puts the iteration's `updated` partial back into `partials` at
  /// `offsets` (from extract), and returns the whole; `owned` (of the
  /// adjoint) becomes the slice of the partials it owns.
  Value insert(OpBuilder &builder, Location loc, Value updated,
               Value partials, ArrayRef<OpFoldResult> offsets,
               OwnedSlice &owned) const {
    if (numPartials == 1)
      return updated;
    auto type = cast<RankedTensorType>(partials.getType());
    SmallVector<OpFoldResult> partialSizes = {builder.getIndexAttr(1)};
    for (int64_t d = 1; d < type.getRank(); ++d)
      partialSizes.push_back(builder.getIndexAttr(type.getDimSize(d)));
    SmallVector<OpFoldResult> strides(type.getRank(), builder.getIndexAttr(1));
    owned.offsets.insert(owned.offsets.begin(), offsets[0]);
    owned.sizes.insert(owned.sizes.begin(), builder.getIndexAttr(1));
    return tensor::InsertSliceOp::create(builder, loc, updated, partials,
                                         offsets, partialSizes, strides);
  }

  /// The adjoint: the sum of the partials in their order into `zeros`
  /// (0 + p_0 + p_1 ...), or `partials` itself for one partial.
  Value reduce(GradBlockBuilder &top, Value partials, Value zeros) const {
    if (numPartials == 1)
      return partials;
    OpBuilder &builder = top.builder;
    auto type = cast<RankedTensorType>(partials.getType());
    int64_t rank = type.getRank();
    SmallVector<unsigned> kept;
    for (int64_t d = 1; d < rank; ++d)
      kept.push_back(d);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators[0] = utils::IteratorType::reduction;
    SmallVector<unsigned> all = {0};
    llvm::append_range(all, kept);
    return linalg::GenericOp::create(
               builder, top.loc, TypeRange{zeros.getType()},
               ValueRange{partials}, ValueRange{zeros},
               SmallVector<AffineMap>{top.map(rank, all), top.map(rank, kept)},
               iterators,
               [&](OpBuilder &pb, Location pl, ValueRange a) {
                 linalg::YieldOp::create(
                     pb, pl, Value(arith::AddFOp::create(pb, pl, a[1], a[0])));
               })
        .getResult(0);
  }
};

/// The (b, g) loop of the adjoint, around buildKVHeadAdjoints: with
/// `parallel`, an scf.forall whose iteration (b, g) owns dK and dV of kv
/// head g, the dQ rows of its R query heads, and its slices of d_mask and
/// d_sinks (or of their partials, SharedAdjoint); else scf.for loops.
/// `inits` are dQ, dK, dV and, with an additive mask, the rank-4 d_mask and,
/// with sinks, d_sinks; returns their final values.
static SmallVector<Value> buildKVHeadAdjointLoop(OpBuilder &builder,
                                                 Location loc,
                                                 const GradContext &ctx,
                                                 ValueRange inits,
                                                 bool parallel) {
  const AttentionSizes &sizes = ctx.sizes;
  int64_t groupSize = sizes.groupSize;
  ArrayRef<int64_t> mask4Shape = ctx.mask4Shape;
  SharedAdjoint maskShare, sinksShare;
  if (parallel && ctx.hasMaskAdjoint()) {
    maskShare = SharedAdjoint::get(sizes, mask4Shape[0] == 1,
                                   mask4Shape[1] == 1);
    // Too many partials: sequential, accumulating in place.
    if (maskShare.numPartials > 1 &&
        maskShare.numPartials * ShapedType::getNumElements(mask4Shape) >
            kMaxMaskAdjointPartials) {
      parallel = false;
      maskShare = SharedAdjoint();
    }
  }
  if (parallel && ctx.sinks)
    sinksShare = SharedAdjoint::get(sizes, /*acrossBatch=*/true,
                                    /*acrossKVHeads=*/false);

  GradBlockBuilder top = ctx.blocks(builder, loc);
  unsigned maskIndex = 3, sinksIndex = ctx.getSinksAdjointIndex();
  SmallVector<Value> loopInits(inits);
  if (ctx.hasMaskAdjoint())
    loopInits[maskIndex] =
        maskShare.buildInit(top, inits[maskIndex], mask4Shape);
  if (ctx.sinks)
    loopInits[sinksIndex] =
        sinksShare.buildInit(top, inits[sinksIndex], {sizes.numHeads});

  SmallVector<Value> results = buildOwnedBlockLoop(
      builder, loc, {sizes.batch, sizes.numKVHeads}, loopInits, parallel,
      [&](OpBuilder &builder, Location loc, ValueRange ivs, ValueRange args,
          SmallVectorImpl<OwnedSlice> &owned) {
        Value b = ivs[0], g = ivs[1];
        auto index = [&](int64_t value) -> OpFoldResult {
          return builder.getIndexAttr(value);
        };
        // The first query head of the group, g * R.
        OpFoldResult firstHead = g;
        if (groupSize > 1)
          firstHead = arith::MulIOp::create(
                          builder, loc, g,
                          arith::ConstantIndexOp::create(builder, loc,
                                                         groupSize))
                          .getResult();
        SmallVector<Value> adjointArgs(args);
        SmallVector<OpFoldResult> maskOffsets, sinksOffsets;
        if (ctx.hasMaskAdjoint())
          adjointArgs[maskIndex] = maskShare.extract(
              builder, loc, sizes, args[maskIndex], b, g, maskOffsets);
        if (ctx.sinks)
          adjointArgs[sinksIndex] = sinksShare.extract(
              builder, loc, sizes, args[sinksIndex], b, g, sinksOffsets);
        SmallVector<Value> yields =
            buildKVHeadAdjoints(builder, loc, ctx, b, g, adjointArgs);

        // dQ[b, g * R : R], dK[b, g], dV[b, g].
        auto type = [&](unsigned i) {
          return cast<RankedTensorType>(args[i].getType());
        };
        owned.push_back({{b, firstHead, index(0), index(0)},
                         {index(1), index(groupSize),
                          index(type(0).getDimSize(2)),
                          index(type(0).getDimSize(3))}});
        for (unsigned i : {1u, 2u})
          owned.push_back({{b, g, index(0), index(0)},
                           {index(1), index(1), index(type(i).getDimSize(2)),
                            index(type(i).getDimSize(3))}});
        // d_mask at (b or 0, g * R or 0) with R heads or 1, every row and
        // column.
        if (ctx.hasMaskAdjoint()) {
          bool perHead = mask4Shape[1] != 1;
          OwnedSlice slice{
              {mask4Shape[0] == 1 ? index(0) : OpFoldResult(b),
               perHead ? firstHead : index(0), index(0), index(0)},
              {index(1), index(perHead ? groupSize : 1), index(mask4Shape[2]),
               index(mask4Shape[3])}};
          yields[maskIndex] = maskShare.insert(builder, loc, yields[maskIndex],
                                               args[maskIndex], maskOffsets,
                                               slice);
          owned.push_back(std::move(slice));
        }
        // d_sinks at the R heads of the group.
        if (ctx.sinks) {
          OwnedSlice slice{{firstHead}, {index(groupSize)}};
          yields[sinksIndex] = sinksShare.insert(builder, loc,
                                                 yields[sinksIndex],
                                                 args[sinksIndex], sinksOffsets,
                                                 slice);
          owned.push_back(std::move(slice));
        }
        return yields;
      });
  if (ctx.hasMaskAdjoint())
    results[maskIndex] =
        maskShare.reduce(top, results[maskIndex], inits[maskIndex]);
  if (ctx.sinks)
    results[sinksIndex] =
        sinksShare.reduce(top, results[sinksIndex], inits[sinksIndex]);
  return results;
}

struct AttentionGradOpLowering : OpConversionPattern<AttentionGradOp> {
  AttentionGradOpLowering(MLIRContext *context, bool parallel)
      : OpConversionPattern(context), parallel(parallel) {}

  LogicalResult
  matchAndRewrite(AttentionGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    AttentionSequenceTables sequences;
    if (op.hasPackedSequences())
      sequences = buildAttentionRowSequenceTables(
          rewriter, op.getLoc(), op, adaptor.getCuSeqlensQ(),
          adaptor.getCuSeqlensK());
    GradContext ctx = getGradContext(op, adaptor, sequences);
    ctx.readSequenceTables = parallel;
    const AttentionSizes &sizes = ctx.sizes;
    auto queryType = cast<RankedTensorType>(op.getQuery().getType());
    auto keyType = cast<RankedTensorType>(op.getKey().getType());
    auto valueType = cast<RankedTensorType>(op.getValue().getType());
    GradBlockBuilder top = ctx.blocks(rewriter, loc);

    Value dq = top.filled(queryType.getShape(), sizes.elementType, 0.0);
    Value dk = top.filled(keyType.getShape(), sizes.elementType, 0.0);
    Value dv = top.filled(valueType.getShape(), sizes.elementType, 0.0);
    Value dmask4;
    if (ctx.hasMaskAdjoint())
      dmask4 = top.filled(ctx.mask4Shape, sizes.computeType, 0.0);
    Value dsinks;
    if (ctx.sinks)
      dsinks = top.filled({sizes.numHeads}, sizes.computeType, 0.0);

    // No score: every adjoint is 0 (with Sk = 0 each row's sink has P = 1,
    // but D = 0).
    if (sizes.batch * sizes.numHeads * sizes.numQueries * sizes.numKeys == 0) {
      replaceWithAdjoints(rewriter, loc, op, ctx, {dq, dk, dv}, dmask4,
                          dsinks);
      return success();
    }

    ctx.dropout =
        AttentionDropout::get(rewriter, loc, sizes, adaptor.getSeed());

    SmallVector<Value> outerInits = {dq, dk, dv};
    if (dmask4)
      outerInits.push_back(dmask4);
    if (dsinks)
      outerInits.push_back(dsinks);
    SmallVector<Value> results =
        buildKVHeadAdjointLoop(rewriter, loc, ctx, outerInits, parallel);
    replaceWithAdjoints(rewriter, loc, op, ctx,
                        ArrayRef<Value>(results).take_front(3),
                        dmask4 ? results[3] : Value(),
                        dsinks ? results[ctx.getSinksAdjointIndex()] : Value());
    return success();
  }

  /// Whether the (b, g) loop is an scf.forall (buildKVHeadAdjointLoop).
  bool parallel;
};

} // namespace

void mlir::kiln::populateAttentionGradPatterns(RewritePatternSet &patterns,
                                               bool parallel) {
  patterns.add<AttentionGradOpLowering>(patterns.getContext(), parallel);
}
