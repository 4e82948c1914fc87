//===- Attention.cpp - Lower kiln scaled dot-product attention ------------===//
//
// kiln.attention transposes K once ([B, Hkv, Dk, Sk]) and becomes one task
// per query block of kAttentionQueryBlock rows of each (b, h): an
// scf.forall whose iterations own disjoint rows of O and the LSE (the CPU's
// threads; the GPU pipeline's fallback asks for scf.for loops). Each task
// slices Kᵀ[b, g] and V[b, g] of its kv head g = h / R (indexed, never
// repeated), computes the scores on the key tiles that the band lets the
// block see, masks them with the visibility predicate, takes a safe softmax
// on those columns (empty rows give exactly 0), applies dropout, contracts
// with the same tiles of V and inserts the block's rows of O. Only one
// [rows, Sk] block per thread is ever live; nothing of size [B, Hq, Sq, Sk]
// is materialized.
//
// The sizes, the predicate, the logits and the dropout draw are those of
// kiln/Dialect/Kiln/Utils/AttentionUtils.h, the one definition that the
// adjoint (AttentionGrad.cpp), the GPU kernels and the decomposition use
// too.
//
//===----------------------------------------------------------------------===//

#include "Attention.h"
#include "PopulatePatterns.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>

using namespace mlir;
using namespace mlir::kiln;

static Value constIndex(OpBuilder &builder, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(builder, loc, value);
}

//===----------------------------------------------------------------------===//
// What the forward and the adjoint lowering share
//===----------------------------------------------------------------------===//

Value mlir::kiln::extractHeadBlock(OpBuilder &builder, Location loc,
                                   Value source, Value b, Value head,
                                   int64_t rows, int64_t cols,
                                   OpFoldResult firstRow) {
  auto type = RankedTensorType::get(
      {rows, cols}, cast<RankedTensorType>(source.getType()).getElementType());
  if (rows == 0 || cols == 0)
    return tensor::EmptyOp::create(builder, loc, type.getShape(),
                                   type.getElementType());
  SmallVector<OpFoldResult> offsets = {
      b, head, firstRow ? firstRow : OpFoldResult(builder.getIndexAttr(0)),
      builder.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {
      builder.getIndexAttr(1), builder.getIndexAttr(1),
      builder.getIndexAttr(rows), builder.getIndexAttr(cols)};
  SmallVector<OpFoldResult> strides(4, builder.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(builder, loc, type, source, offsets,
                                        sizes, strides);
}

Value mlir::kiln::insertHeadBlock(OpBuilder &builder, Location loc, Value block,
                                  Value dest, Value b, Value head,
                                  OpFoldResult firstRow) {
  auto type = cast<RankedTensorType>(block.getType());
  if (type.getNumElements() == 0)
    return dest;
  SmallVector<OpFoldResult> offsets = {
      b, head, firstRow ? firstRow : OpFoldResult(builder.getIndexAttr(0)),
      builder.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {builder.getIndexAttr(1),
                                     builder.getIndexAttr(1),
                                     builder.getIndexAttr(type.getDimSize(0)),
                                     builder.getIndexAttr(type.getDimSize(1))};
  SmallVector<OpFoldResult> strides(4, builder.getIndexAttr(1));
  return tensor::InsertSliceOp::create(builder, loc, block, dest, offsets,
                                       sizes, strides);
}

//===----------------------------------------------------------------------===//
// Query blocks and key tiles
//===----------------------------------------------------------------------===//

// The index arithmetic of the tiles is affine.apply / affine.min /
// affine.max built by upstream's makeComposedFolded* helpers: constants fold
// (a static block gets constant tile bounds and no op), chains of
// applies compose into one map, and lower-affine, which both the CPU and the
// GPU pipeline run, expands what is left.

Value mlir::kiln::getIndexValue(OpBuilder &builder, Location loc,
                                OpFoldResult x) {
  return getValueOrCreateConstantIndexOp(builder, loc, x);
}

OpFoldResult mlir::kiln::addIndex(OpBuilder &builder, Location loc,
                                  OpFoldResult x, OpFoldResult y) {
  AffineExpr d0, d1;
  bindDims(builder.getContext(), d0, d1);
  return affine::makeComposedFoldedAffineApply(builder, loc, d0 + d1, {x, y});
}

Value mlir::kiln::addOffset(OpBuilder &builder, Location loc, Value x,
                            OpFoldResult offset) {
  return getIndexValue(builder, loc, addIndex(builder, loc, x, offset));
}

OpFoldResult mlir::kiln::subIndex(OpBuilder &builder, Location loc,
                                  OpFoldResult x, OpFoldResult y) {
  AffineExpr d0, d1;
  bindDims(builder.getContext(), d0, d1);
  return affine::makeComposedFoldedAffineApply(builder, loc, d0 - d1, {x, y});
}

std::pair<Value, Value>
AttentionBlockPosition::globalIndices(OpBuilder &builder, Location loc, Value i,
                                      Value j) const {
  return {addOffset(builder, loc, i, firstRow),
          addOffset(builder, loc, j, tiles.firstKey)};
}

Value AttentionBlockPosition::buildLogit(OpBuilder &builder, Location loc,
                                         const AttentionLogits &logits,
                                         Value s, Value i, Value j) const {
  // t[i, j] = visible ? cap(scale * s) + mask_add : -inf
  auto [row, key] = globalIndices(builder, loc, i, j);
  return logits.build(builder, loc, s, b, h, row, key);
}

AttentionKeyTiles
mlir::kiln::buildVisibleKeyTiles(OpBuilder &builder, Location loc,
                                 const AttentionVisibility &visibility,
                                 OpFoldResult firstRow, int64_t rows,
                                 bool readSequenceTables) {
  assert(rows > 0 && "expected a block with rows");
  int64_t numKeys = visibility.numKeys;
  int64_t numTiles = llvm::divideCeil(numKeys, kAttentionKeyTile);
  const AttentionBand &band = visibility.band;
  MLIRContext *context = builder.getContext();
  AffineExpr d0, d1;
  bindDims(context, d0, d1);
  // min(max(tile(firstRow), 0), bound).
  auto clampTile = [&](AffineExpr tile, OpFoldResult bound) {
    OpFoldResult atLeast0 = affine::makeComposedFoldedAffineMax(
        builder, loc,
        AffineMap::get(1, 0, {tile, getAffineConstantExpr(0, context)},
                       context),
        {firstRow});
    return affine::makeComposedFoldedAffineMin(
        builder, loc, AffineMap::get(2, 0, {d0, d1}, context),
        {atLeast0, bound});
  };
  // min(tile * T, Sk): the first key of a tile, Sk past the last one.
  auto firstKeyOf = [&](OpFoldResult tile) {
    return affine::makeComposedFoldedAffineMin(
        builder, loc,
        AffineMap::get(1, 0,
                       {d0 * kAttentionKeyTile,
                        getAffineConstantExpr(numKeys, context)},
                       context),
        {tile});
  };

  // Row i sees keys [i + minDistance, i + maxDistance] (AttentionBand), so
  // the block sees [first + minDistance, last + maxDistance]: the tiles from
  // floor((first + minDistance) / T) to floor((last + maxDistance) / T),
  // clamped to the tiles that exist, and the first no later than the end.
  AttentionKeyTiles tiles;
  tiles.endTile = builder.getIndexAttr(numTiles);
  if (band.maxDistance) {
    int64_t lastKey = rows - 1 + *band.maxDistance;
    tiles.endTile = clampTile((d0 + lastKey).floorDiv(kAttentionKeyTile) + 1,
                              tiles.endTile);
  }
  tiles.firstTile = builder.getIndexAttr(0);
  if (band.minDistance) {
    int64_t firstKey = *band.minDistance;
    tiles.firstTile =
        clampTile((d0 + firstKey).floorDiv(kAttentionKeyTile), tiles.endTile);
  }
  // Packed sequences: only the tiles that hold a key of the block's rows'
  // sequences (buildAttentionSequenceKeyRange, read from the row tables).
  if (visibility.sequences && readSequenceTables) {
    Value first = getIndexValue(builder, loc, firstRow);
    Value end = addOffset(builder, loc, first, builder.getIndexAttr(rows));
    auto [lo, hi] =
        buildAttentionSequenceKeyRange(builder, loc, visibility, first, end);
    tiles.endTile = affine::makeComposedFoldedAffineMin(
        builder, loc,
        AffineMap::get(2, 0, {d0, d1.ceilDiv(kAttentionKeyTile)}, context),
        {tiles.endTile, hi});
    tiles.firstTile = affine::makeComposedFoldedAffineMax(
        builder, loc,
        AffineMap::get(2, 0, {d0, d1.floorDiv(kAttentionKeyTile)}, context),
        {tiles.firstTile, lo});
    tiles.firstTile = affine::makeComposedFoldedAffineMin(
        builder, loc, AffineMap::get(2, 0, {d0, d1}, context),
        {tiles.firstTile, tiles.endTile});
  }
  tiles.firstKey = firstKeyOf(tiles.firstTile);
  tiles.endKey = firstKeyOf(tiles.endTile);
  return tiles;
}

SmallVector<Value> mlir::kiln::buildGroupHeadLoop(OpBuilder &builder,
                                                  Location loc, Value g,
                                                  int64_t groupSize,
                                                  ValueRange inits,
                                                  QueryHeadBodyFn body) {
  if (groupSize == 1)
    return body(builder, loc, g, inits);
  Value groupSizeValue = constIndex(builder, loc, groupSize);
  auto loop = scf::ForOp::create(
      builder, loc, constIndex(builder, loc, 0), groupSizeValue,
      constIndex(builder, loc, 1), inits,
      [&](OpBuilder &b, Location l, Value r, ValueRange args) {
        Value h = arith::AddIOp::create(
            b, l, arith::MulIOp::create(b, l, g, groupSizeValue), r);
        scf::YieldOp::create(b, l, body(b, l, h, args));
      });
  return SmallVector<Value>(loop.getResults());
}

SmallVector<Value> mlir::kiln::buildQueryBlockLoop(OpBuilder &builder,
                                                   Location loc,
                                                   int64_t numQueries,
                                                   ValueRange inits,
                                                   QueryBlockBodyFn body) {
  int64_t numFull = numQueries / kAttentionQueryBlock;
  int64_t remainder = numQueries % kAttentionQueryBlock;
  SmallVector<Value> values(inits);
  if (numFull == 1) {
    values = body(builder, loc, builder.getIndexAttr(0), kAttentionQueryBlock,
                  values);
  } else if (numFull > 1) {
    auto loop = scf::ForOp::create(
        builder, loc, constIndex(builder, loc, 0),
        constIndex(builder, loc, numFull * kAttentionQueryBlock),
        constIndex(builder, loc, kAttentionQueryBlock), values,
        [&](OpBuilder &b, Location l, Value firstRow, ValueRange args) {
          scf::YieldOp::create(
              b, l, body(b, l, firstRow, kAttentionQueryBlock, args));
        });
    values.assign(loop.getResults().begin(), loop.getResults().end());
  }
  if (remainder > 0)
    values =
        body(builder, loc, builder.getIndexAttr(numFull * kAttentionQueryBlock),
             remainder, values);
  return values;
}

SmallVector<Value> mlir::kiln::buildKeyTileLoop(OpBuilder &builder,
                                                Location loc, int64_t numKeys,
                                                const AttentionKeyTiles &tiles,
                                                ValueRange inits,
                                                KeyTileBodyFn body) {
  int64_t numFull = numKeys / kAttentionKeyTile;
  int64_t remainder = numKeys % kAttentionKeyTile;
  std::optional<int64_t> firstTile = getConstantIntValue(tiles.firstTile);
  std::optional<int64_t> endTile = getConstantIntValue(tiles.endTile);
  SmallVector<Value> values(inits);
  if (numFull > 0) {
    // The full tiles [firstTile, min(endTile, numFull)), over first keys.
    if (firstTile && endTile && std::min(*endTile, numFull) <= *firstTile + 1) {
      if (*firstTile < std::min(*endTile, numFull))
        values = body(builder, loc,
                      builder.getIndexAttr(*firstTile * kAttentionKeyTile),
                      kAttentionKeyTile, values);
    } else {
      // The first key past the full tiles: min(endTile, numFull) * T.
      MLIRContext *context = builder.getContext();
      AffineExpr d0 = getAffineDimExpr(0, context);
      OpFoldResult end = affine::makeComposedFoldedAffineMin(
          builder, loc,
          AffineMap::get(1, 0,
                         {d0 * kAttentionKeyTile,
                          getAffineConstantExpr(numFull * kAttentionKeyTile,
                                                context)},
                         context),
          {tiles.endTile});
      Value tileSize = constIndex(builder, loc, kAttentionKeyTile);
      auto loop = scf::ForOp::create(
          builder, loc, getIndexValue(builder, loc, tiles.firstKey),
          getIndexValue(builder, loc, end), tileSize, values,
          [&](OpBuilder &b, Location l, Value firstKey, ValueRange args) {
            scf::YieldOp::create(b, l,
                                 body(b, l, firstKey, kAttentionKeyTile, args));
          });
      values.assign(loop.getResults().begin(), loop.getResults().end());
    }
  }
  if (remainder > 0) {
    // The partial last tile, numFull, when firstTile <= numFull < endTile.
    OpFoldResult firstKey = builder.getIndexAttr(numFull * kAttentionKeyTile);
    if (firstTile && endTile) {
      if (*firstTile <= numFull && numFull < *endTile)
        values = body(builder, loc, firstKey, remainder, values);
      return values;
    }
    Value numFullValue = constIndex(builder, loc, numFull);
    Value inRange = arith::AndIOp::create(
        builder, loc,
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sle,
                              getIndexValue(builder, loc, tiles.firstTile),
                              numFullValue),
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sgt,
                              getIndexValue(builder, loc, tiles.endTile),
                              numFullValue));
    auto ifOp = scf::IfOp::create(
        builder, loc, inRange,
        [&](OpBuilder &b, Location l) {
          scf::YieldOp::create(b, l, body(b, l, firstKey, remainder, values));
        },
        [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, values); });
    values.assign(ifOp.getResults().begin(), ifOp.getResults().end());
  }
  return values;
}

//===----------------------------------------------------------------------===//
// Loops whose iterations own disjoint blocks of the results
//===----------------------------------------------------------------------===//

SmallVector<Value> mlir::kiln::buildOwnedBlockLoop(
    OpBuilder &builder, Location loc, ArrayRef<int64_t> upperBounds,
    ValueRange inits, bool parallel, OwnedBlockBodyFn body) {
  if (llvm::is_contained(upperBounds, 0))
    return SmallVector<Value>(inits);
  // The loop dims are the bounds above 1; the body sees 0 for the others.
  SmallVector<OpFoldResult> loopBounds;
  for (int64_t bound : upperBounds)
    if (bound > 1)
      loopBounds.push_back(builder.getIndexAttr(bound));
  auto bodyIvs = [&](OpBuilder &b, Location l, ValueRange loopIvs) {
    SmallVector<Value> ivs;
    Value zero;
    unsigned next = 0;
    for (int64_t bound : upperBounds) {
      if (bound > 1) {
        ivs.push_back(loopIvs[next++]);
        continue;
      }
      if (!zero)
        zero = constIndex(b, l, 0);
      ivs.push_back(zero);
    }
    return ivs;
  };
  SmallVector<OwnedSlice> owned;
  if (loopBounds.empty())
    return body(builder, loc, bodyIvs(builder, loc, {}), inits, owned);

  if (!parallel) {
    SmallVector<Value> lbs, ubs, steps;
    for (OpFoldResult bound : loopBounds) {
      lbs.push_back(constIndex(builder, loc, 0));
      ubs.push_back(getIndexValue(builder, loc, bound));
      steps.push_back(constIndex(builder, loc, 1));
    }
    scf::LoopNest nest = scf::buildLoopNest(
        builder, loc, lbs, ubs, steps, inits,
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange args) -> scf::ValueVector {
          SmallVector<OwnedSlice> unused;
          return body(b, l, bodyIvs(b, l, ivs), args, unused);
        });
    return nest.results;
  }

  auto forall = scf::ForallOp::create(builder, loc, loopBounds, inits,
                                      std::nullopt);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(forall.getBody());
  ValueRange shared = forall.getRegionIterArgs();
  SmallVector<Value> results = body(
      builder, loc, bodyIvs(builder, loc, forall.getInductionVars()), shared,
      owned);
  assert(results.size() == shared.size() && owned.size() == shared.size() &&
         "expected a value and an owned slice per shared tensor");
  // The owned slice of each value, extracted in the body (the terminator
  // holds only the inserts). An extract of the slice that the body inserted
  // into the shared tensor has the insert's source type, so that it folds to
  // that source.
  SmallVector<std::pair<unsigned, Value>> parts;
  for (auto [i, result] : llvm::enumerate(results)) {
    const OwnedSlice &slice = owned[i];
    if (result == shared[i] || llvm::any_of(slice.sizes, [](OpFoldResult s) {
          return isZeroInteger(s);
        }))
      continue;
    SmallVector<OpFoldResult> strides(slice.offsets.size(),
                                      builder.getIndexAttr(1));
    auto insert = result.getDefiningOp<tensor::InsertSliceOp>();
    Value part;
    if (insert && insert.getDest() == shared[i] &&
        llvm::equal(insert.getMixedOffsets(), slice.offsets,
                    isEqualConstantIntOrValue) &&
        llvm::equal(insert.getMixedSizes(), slice.sizes,
                    isEqualConstantIntOrValue) &&
        insert.hasUnitStride())
      part = tensor::ExtractSliceOp::create(builder, loc,
                                            insert.getSourceType(), result,
                                            slice.offsets, slice.sizes,
                                            strides);
    else
      part = tensor::ExtractSliceOp::create(builder, loc, result,
                                            slice.offsets, slice.sizes,
                                            strides);
    parts.emplace_back(i, part);
  }
  builder.setInsertionPointToStart(forall.getTerminator().getBody());
  for (auto [i, part] : parts) {
    SmallVector<OpFoldResult> strides(owned[i].offsets.size(),
                                      builder.getIndexAttr(1));
    tensor::ParallelInsertSliceOp::create(builder, loc, part, shared[i],
                                          owned[i].offsets, owned[i].sizes,
                                          strides);
  }
  return SmallVector<Value>(forall.getResults());
}

SmallVector<Value> mlir::kiln::buildQueryBlockTasks(
    OpBuilder &builder, Location loc, int64_t batch, int64_t numHeads,
    int64_t numQueries, ValueRange inits, bool parallel,
    QueryBlockTaskBodyFn body) {
  int64_t numFull = numQueries / kAttentionQueryBlock;
  int64_t remainder = numQueries % kAttentionQueryBlock;
  // [b, h, firstRow : rows, ...] of each carried tensor.
  auto ownRows = [&](OpBuilder &b, ValueRange ivs, OpFoldResult firstRow,
                     int64_t rows, ValueRange args,
                     SmallVectorImpl<OwnedSlice> &owned) {
    for (Value arg : args) {
      auto type = cast<RankedTensorType>(arg.getType());
      OwnedSlice slice;
      slice.offsets = {ivs[0], ivs[1], firstRow};
      slice.sizes = {b.getIndexAttr(1), b.getIndexAttr(1),
                     b.getIndexAttr(rows)};
      for (int64_t d = 3; d < type.getRank(); ++d) {
        slice.offsets.push_back(b.getIndexAttr(0));
        slice.sizes.push_back(b.getIndexAttr(type.getDimSize(d)));
      }
      owned.push_back(std::move(slice));
    }
  };
  SmallVector<Value> values(inits);
  if (numFull > 0)
    values = buildOwnedBlockLoop(
        builder, loc, {batch, numHeads, numFull}, values, parallel,
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange args,
            SmallVectorImpl<OwnedSlice> &owned) {
          // Task t is block t / 2 for an even t, n - 1 - t / 2 for an odd
          // one.
          OpFoldResult firstRow = b.getIndexAttr(0);
          if (numFull > 1) {
            Value two = constIndex(b, l, 2);
            Value half = arith::DivUIOp::create(b, l, ivs[2], two);
            Value odd = arith::CmpIOp::create(
                b, l, arith::CmpIPredicate::ne,
                arith::RemUIOp::create(b, l, ivs[2], two), constIndex(b, l, 0));
            Value mirrored = arith::SubIOp::create(
                b, l, constIndex(b, l, numFull - 1), half);
            Value block = arith::SelectOp::create(b, l, odd, mirrored, half);
            firstRow =
                arith::MulIOp::create(b, l, block,
                                      constIndex(b, l, kAttentionQueryBlock))
                    .getResult();
          }
          ownRows(b, ivs, firstRow, kAttentionQueryBlock, args, owned);
          return body(b, l, ivs[0], ivs[1], firstRow, kAttentionQueryBlock,
                      args);
        });
  if (remainder > 0)
    values = buildOwnedBlockLoop(
        builder, loc, {batch, numHeads}, values, parallel,
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange args,
            SmallVectorImpl<OwnedSlice> &owned) {
          OpFoldResult firstRow =
              b.getIndexAttr(numFull * kAttentionQueryBlock);
          ownRows(b, ivs, firstRow, remainder, args, owned);
          return body(b, l, ivs[0], ivs[1], firstRow, remainder, args);
        });
  return values;
}

//===----------------------------------------------------------------------===//
// AttentionBlockBuilder
//===----------------------------------------------------------------------===//

AffineMap AttentionBlockBuilder::map(unsigned numDims,
                                     ArrayRef<unsigned> dims) {
  MLIRContext *context = builder.getContext();
  SmallVector<AffineExpr> exprs;
  for (unsigned dim : dims)
    exprs.push_back(getAffineDimExpr(dim, context));
  return AffineMap::get(numDims, 0, exprs, context);
}

Value AttentionBlockBuilder::reduceRows(
    Value block, Value init,
    function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  SmallVector<AffineMap> maps = {map(2, {0, 1}), map(2, {0})};
  SmallVector<utils::IteratorType> iterators = {
      utils::IteratorType::parallel, utils::IteratorType::reduction};
  auto generic = linalg::GenericOp::create(
      builder, loc, TypeRange{init.getType()}, ValueRange{block},
      ValueRange{init}, maps, iterators,
      [&](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(b, l, combine(b, l, args[0], args[1]));
      });
  return generic.getResult(0);
}

Value AttentionBlockBuilder::reduceRows(
    Value block, double initValue,
    function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  auto type = cast<RankedTensorType>(block.getType());
  return reduceRows(
      block, filled({type.getDimSize(0)}, type.getElementType(), initValue),
      combine);
}

std::pair<Value, Value> AttentionBlockBuilder::mapAndReduceRowsByLanes(
    Value block, ValueRange blockIns, ValueRange rowIns, BlockBodyFn mapFn,
    bool writeBack, double identity,
    function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  auto type = cast<RankedTensorType>(block.getType());
  int64_t rows = type.getDimSize(0);
  Type elementType = type.getElementType();
  MLIRContext *context = builder.getContext();
  AffineExpr d0 = getAffineDimExpr(0, context);
  constexpr int64_t lanes = kAttentionRowLanes;
  writeBack = writeBack && mapFn;
  SmallVector<Value> blocks = {block};
  llvm::append_range(blocks, blockIns);

  // One generic over columns `first` on of the blocks: `chunks` (one per
  // block) are either [rows, n / lanes, lanes] (iterators i, jb, l: column
  // first + jb * lanes + l, lane l) or [rows, n] with n <= lanes (iterators
  // i, l: column first + l, lane l). x = mapFn(the chunks' elements,
  // rowIns[i]...) is written back into the first chunk (with writeBack) and
  // acc[i, l] = combine(x, acc[i, l]), acc being [rows, lanes] or its
  // [rows, n] corner. Returns {the first chunk', acc'}.
  auto step = [&](ArrayRef<Value> chunks, OpFoldResult first,
                  Value acc) -> std::pair<Value, Value> {
    bool byLanes = cast<RankedTensorType>(chunks[0].getType()).getRank() == 3;
    unsigned numDims = byLanes ? 3 : 2;
    unsigned laneDim = numDims - 1;
    AffineMap chunkMap = AffineMap::getMultiDimIdentityMap(numDims, context);
    // ins: the chunks read (all, or all but the first with writeBack),
    // then rowIns; outs: the first chunk (with writeBack), acc.
    SmallVector<Value> ins(writeBack ? chunks.drop_front() : chunks);
    size_t numChunkIns = ins.size();
    llvm::append_range(ins, rowIns);
    SmallVector<AffineMap> maps(numChunkIns, chunkMap);
    maps.append(rowIns.size(), map(numDims, {0}));
    SmallVector<Value> outs;
    if (writeBack) {
      outs.push_back(chunks[0]);
      maps.push_back(chunkMap);
    }
    outs.push_back(acc);
    maps.push_back(map(numDims, {0, laneDim}));
    SmallVector<utils::IteratorType> iterators(numDims,
                                               utils::IteratorType::parallel);
    if (byLanes)
      iterators[1] = utils::IteratorType::reduction;
    auto generic = linalg::GenericOp::create(
        builder, loc, TypeRange(ValueRange(outs)), ins, outs, maps, iterators,
        [&](OpBuilder &gb, Location gl, ValueRange args) {
          // The chunks' elements in block order, then the rows'.
          SmallVector<Value> values;
          if (writeBack)
            values.push_back(args[ins.size()]);
          llvm::append_range(values, args.take_front(ins.size()));
          Value x = values[0];
          if (mapFn) {
            Value i = linalg::IndexOp::create(gb, gl, 0);
            Value j = linalg::IndexOp::create(gb, gl, laneDim);
            if (byLanes)
              j = arith::AddIOp::create(
                  gb, gl,
                  arith::MulIOp::create(gb, gl,
                                        linalg::IndexOp::create(gb, gl, 1),
                                        arith::ConstantIndexOp::create(
                                            gb, gl, lanes)),
                  j);
            j = addOffset(gb, gl, j, first);
            x = mapFn(gb, gl, values, i, j);
          }
          Value combined = combine(gb, gl, x, args.back());
          if (writeBack)
            linalg::YieldOp::create(gb, gl, ValueRange{x, combined});
          else
            linalg::YieldOp::create(gb, gl, combined);
        });
    if (writeBack)
      return {generic.getResult(0), generic.getResult(1)};
    return {chunks[0], generic.getResult(0)};
  };

  Value partial = filled({rows, lanes}, elementType, identity);
  OpFoldResult width = tensor::getMixedSize(builder, loc, block, 1);
  OpFoldResult whole = affine::makeComposedFoldedAffineApply(
      builder, loc, d0.floorDiv(lanes) * lanes, {width});
  SmallVector<OpFoldResult> origin(2, builder.getIndexAttr(0));
  // Runs `stepFn` (which returns the next {block, partial}) on `size`
  // columns: directly for a static size, under an scf.if size > 0 for a
  // dynamic one (the GPU pipeline maps a generic's parallel dims to a grid,
  // and a grid with a dimension 0 does not launch). Nothing for size 0.
  auto guarded = [&](OpFoldResult size,
                     function_ref<std::pair<Value, Value>()> stepFn) {
    std::optional<int64_t> staticSize = getConstantIntValue(size);
    if (staticSize == 0)
      return;
    if (staticSize) {
      std::tie(block, partial) = stepFn();
      return;
    }
    Value nonEmpty = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::sgt,
        getIndexValue(builder, loc, size), constIndex(builder, loc, 0));
    auto ifOp = scf::IfOp::create(builder, loc,
                                  TypeRange{block.getType(), partial.getType()},
                                  nonEmpty, /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(&ifOp.getElseRegion().front());
      scf::YieldOp::create(builder, loc, ValueRange{block, partial});
      builder.setInsertionPointToStart(&ifOp.getThenRegion().front());
      auto [nextBlock, nextPartial] = stepFn();
      scf::YieldOp::create(builder, loc, ValueRange{nextBlock, nextPartial});
    }
    block = ifOp.getResult(0);
    partial = ifOp.getResult(1);
  };

  // The whole groups of lanes columns, as [rows, whole / lanes, lanes]: the
  // loops run i, then jb, then l, along the blocks' rows.
  guarded(whole, [&]() -> std::pair<Value, Value> {
    SmallVector<OpFoldResult> bodySizes = {builder.getIndexAttr(rows), whole};
    OpFoldResult groups = affine::makeComposedFoldedAffineApply(
        builder, loc, d0.floorDiv(lanes), {whole});
    SmallVector<OpFoldResult> expandedSizes = {
        builder.getIndexAttr(rows), groups, builder.getIndexAttr(lanes)};
    SmallVector<ReassociationIndices> groupsOfDims = {{0}, {1, 2}};
    SmallVector<Value> chunks;
    for (Value b : blocks) {
      Value body = slice(b, origin, bodySizes);
      auto [staticSizes, dynamicSizes] = decomposeMixedValues(expandedSizes);
      auto expandedType = RankedTensorType::get(
          staticSizes, cast<RankedTensorType>(b.getType()).getElementType());
      chunks.push_back(tensor::ExpandShapeOp::create(
          builder, loc, expandedType, body, groupsOfDims, expandedSizes));
    }
    auto [mapped, acc] = step(chunks, builder.getIndexAttr(0), partial);
    Value next = block;
    if (writeBack) {
      Value collapsed = tensor::CollapseShapeOp::create(builder, loc, mapped,
                                                        groupsOfDims);
      next = insert(collapsed, block, origin);
    }
    return {next, acc};
  });
  // The last width mod lanes columns go to the first lanes.
  OpFoldResult tail = subIndex(builder, loc, width, whole);
  guarded(tail, [&]() -> std::pair<Value, Value> {
    SmallVector<OpFoldResult> tailSizes = {builder.getIndexAttr(rows), tail};
    SmallVector<OpFoldResult> offsets = {builder.getIndexAttr(0), whole};
    SmallVector<Value> chunks;
    chunks.push_back(slice(block, offsets, tailSizes));
    for (Value b : blockIns)
      chunks.push_back(slice(b, offsets, tailSizes));
    auto [mapped, acc] =
        step(chunks, whole, slice(partial, origin, tailSizes));
    Value next = block;
    if (writeBack)
      next = insert(mapped, block, offsets);
    return {next, insert(acc, partial, origin)};
  });
  return {block, reduceRows(partial, identity, combine)};
}

static Value combineMax(OpBuilder &b, Location l, Value x, Value acc) {
  return arith::MaximumFOp::create(b, l, x, acc);
}

static Value combineSum(OpBuilder &b, Location l, Value x, Value acc) {
  return arith::AddFOp::create(b, l, acc, x);
}

std::pair<Value, Value>
AttentionBlockBuilder::mapAndRowMax(Value block, ValueRange rowIns,
                                    BlockBodyFn mapFn, ValueRange blockIns,
                                    bool writeBack) {
  return mapAndReduceRowsByLanes(block, blockIns, rowIns, mapFn, writeBack,
                                 -std::numeric_limits<double>::infinity(),
                                 combineMax);
}

std::pair<Value, Value>
AttentionBlockBuilder::mapAndRowSum(Value block, ValueRange rowIns,
                                    BlockBodyFn mapFn, ValueRange blockIns,
                                    bool writeBack) {
  return mapAndReduceRowsByLanes(block, blockIns, rowIns, mapFn, writeBack,
                                 0.0, combineSum);
}

Value AttentionBlockBuilder::rowMax(Value block) {
  return mapAndRowMax(block, {}, nullptr).second;
}

Value AttentionBlockBuilder::rowSum(Value block) {
  return mapAndRowSum(block, {}, nullptr).second;
}

// Into a fresh tensor, not in place: the LSE written into `rowMax` (which
// the block updates read too) came out wrong when the (b, h) loop has a
// single iteration (the `ties` case of attention_grad.json caught it),
// apparently the elementwise-fusion issue of the P'·V comment below.
Value AttentionBlockBuilder::mapRows(
    ValueRange rows,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  auto type = cast<RankedTensorType>(rows[0].getType());
  Value init = tensor::EmptyOp::create(builder, loc, type.getShape(),
                                       type.getElementType());
  SmallVector<AffineMap> maps(rows.size() + 1, map(1, {0}));
  auto generic = linalg::GenericOp::create(
      builder, loc, TypeRange{type}, rows, ValueRange{init}, maps,
      {utils::IteratorType::parallel},
      [&](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(b, l, body(b, l, args.drop_back()));
      });
  return generic.getResult(0);
}

std::array<Value, 3> AttentionBlockBuilder::foldSinkIntoRows(Value rowMax,
                                                             Value rowSum,
                                                             Value sink) {
  auto type = cast<RankedTensorType>(rowMax.getType());
  SmallVector<Value> inits;
  for (int i = 0; i < 3; ++i)
    inits.push_back(tensor::EmptyOp::create(builder, loc, type.getShape(),
                                            type.getElementType()));
  SmallVector<AffineMap> maps(5, map(1, {0}));
  auto generic = linalg::GenericOp::create(
      builder, loc, TypeRange{type, type, type}, ValueRange{rowMax, rowSum},
      inits, maps, {utils::IteratorType::parallel},
      [&](OpBuilder &b, Location l, ValueRange args) {
        auto fold = AttentionSinkFold::build(b, l, args[0], args[1], sink);
        linalg::YieldOp::create(
            b, l,
            ValueRange{fold.max, fold.sum, fold.buildProbabilityScale(b, l)});
      });
  return {generic.getResult(0), generic.getResult(1), generic.getResult(2)};
}

Value AttentionBlockBuilder::blockGeneric(Value init, bool readInit,
                                          ValueRange ins,
                                          ArrayRef<AffineMap> inMaps,
                                          BlockBodyFn body) {
  SmallVector<AffineMap> maps(inMaps);
  maps.push_back(map(2, {0, 1}));
  SmallVector<utils::IteratorType> iterators(2, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      builder, loc, TypeRange{init.getType()}, ins, ValueRange{init}, maps,
      iterators, [&](OpBuilder &b, Location l, ValueRange args) {
        Value i = linalg::IndexOp::create(b, l, 0);
        Value j = linalg::IndexOp::create(b, l, 1);
        SmallVector<Value> values;
        if (readInit)
          values.push_back(args.back());
        llvm::append_range(values, args.drop_back());
        linalg::YieldOp::create(b, l, body(b, l, values, i, j));
      });
  return generic.getResult(0);
}

Value AttentionBlockBuilder::updateBlock(Value block, ValueRange ins,
                                         ArrayRef<AffineMap> inMaps,
                                         BlockBodyFn body) {
  return blockGeneric(block, /*readInit=*/true, ins, inMaps, body);
}

Value AttentionBlockBuilder::mapBlock(Value like, Type type, ValueRange ins,
                                      ArrayRef<AffineMap> inMaps,
                                      BlockBodyFn body) {
  Value init = tensor::EmptyOp::create(
      builder, loc, tensor::getMixedSizes(builder, loc, like), type);
  return blockGeneric(init, /*readInit=*/false, ins, inMaps, body);
}

Value AttentionBlockBuilder::blockLogits(const AttentionLogits &logits,
                                         Value scores,
                                         const AttentionBlockPosition &at) {
  auto body = [&](OpBuilder &b, Location l, ValueRange args, Value i,
                  Value j) -> Value {
    return at.buildLogit(b, l, logits, args[0], i, j);
  };
  Type type = cast<RankedTensorType>(scores.getType()).getElementType();
  return mapBlock(scores, type, scores, {map(2, {0, 1})}, body);
}

Value AttentionBlockBuilder::round(Value tensor, Type type) {
  auto tensorType = cast<RankedTensorType>(tensor.getType());
  if (tensorType.getElementType() == type)
    return tensor;
  unsigned rank = tensorType.getRank();
  Value init =
      tensor::EmptyOp::create(builder, loc, tensorType.getShape(), type);
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, builder.getContext());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      builder, loc, TypeRange{init.getType()}, ValueRange{tensor},
      ValueRange{init}, SmallVector<AffineMap>{id, id}, iterators,
      [&](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(
            b, l, Value(arith::TruncFOp::create(b, l, type, args[0])));
      });
  return generic.getResult(0);
}

Value AttentionBlockBuilder::filled(ArrayRef<int64_t> shape, Type type,
                                    double value) {
  Value empty = tensor::EmptyOp::create(builder, loc, shape, type);
  Value scalar = arith::ConstantOp::create(builder, loc,
                                           builder.getFloatAttr(type, value));
  return linalg::FillOp::create(builder, loc, scalar, empty).getResult(0);
}

Value AttentionBlockBuilder::filledInPlace(Value dest, double value) {
  Type type = cast<RankedTensorType>(dest.getType()).getElementType();
  Value scalar = arith::ConstantOp::create(builder, loc,
                                           builder.getFloatAttr(type, value));
  return linalg::FillOp::create(builder, loc, scalar, dest).getResult(0);
}

Value AttentionBlockBuilder::slice(Value source, ArrayRef<OpFoldResult> offsets,
                                   ArrayRef<OpFoldResult> sizes) {
  auto type = cast<RankedTensorType>(source.getType());
  SmallVector<int64_t> shape;
  SmallVector<Value> dynamicSizes;
  bool empty = false;
  for (auto [dim, size] : llvm::enumerate(sizes)) {
    std::optional<int64_t> staticSize = getConstantIntValue(size);
    shape.push_back(staticSize ? *staticSize : ShapedType::kDynamic);
    if (!staticSize)
      dynamicSizes.push_back(cast<Value>(size));
    empty |= staticSize == 0 || type.getDimSize(dim) == 0;
  }
  auto sliceType = RankedTensorType::get(shape, type.getElementType());
  if (empty)
    return tensor::EmptyOp::create(builder, loc, Type(sliceType), dynamicSizes);
  // The whole of `source` (a single block or tile): no slice.
  if (sliceType == type && llvm::all_of(offsets, [](OpFoldResult offset) {
        return isConstantIntValue(offset, 0);
      }))
    return source;
  SmallVector<OpFoldResult> strides(sizes.size(), builder.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(builder, loc, sliceType, source,
                                        offsets, sizes, strides);
}

Value AttentionBlockBuilder::insert(Value tile, Value dest,
                                    ArrayRef<OpFoldResult> offsets) {
  auto type = cast<RankedTensorType>(tile.getType());
  if (llvm::is_contained(type.getShape(), 0))
    return dest;
  // All of `dest`: the tile replaces it.
  if (type == dest.getType() && llvm::all_of(offsets, [](OpFoldResult offset) {
        return isConstantIntValue(offset, 0);
      }))
    return tile;
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(builder, loc, tile);
  SmallVector<OpFoldResult> strides(sizes.size(), builder.getIndexAttr(1));
  return tensor::InsertSliceOp::create(builder, loc, tile, dest, offsets, sizes,
                                       strides);
}

Value AttentionBlockBuilder::columns(Value block, OpFoldResult first,
                                     OpFoldResult count) {
  int64_t rows = cast<RankedTensorType>(block.getType()).getDimSize(0);
  return slice(block, {builder.getIndexAttr(0), first},
               {builder.getIndexAttr(rows), count});
}

Value AttentionBlockBuilder::rows(Value block, OpFoldResult first,
                                  int64_t count) {
  int64_t cols = cast<RankedTensorType>(block.getType()).getDimSize(1);
  return slice(block, {first, builder.getIndexAttr(0)},
               {builder.getIndexAttr(count), builder.getIndexAttr(cols)});
}

Value AttentionBlockBuilder::insertColumns(Value tile, Value block,
                                           OpFoldResult first) {
  return insert(tile, block, {builder.getIndexAttr(0), first});
}

Value AttentionBlockBuilder::insertRows(Value tile, Value block,
                                        OpFoldResult first) {
  return insert(tile, block, {first, builder.getIndexAttr(0)});
}

Value AttentionBlockBuilder::visibleProduct(Value lhs, Value rhs,
                                            const AttentionKeyTiles &tiles,
                                            int64_t numKeys, Type type) {
  int64_t rows = cast<RankedTensorType>(lhs.getType()).getDimSize(0);
  Value block = tensor::EmptyOp::create(builder, loc,
                                        ArrayRef<int64_t>{rows, numKeys}, type);
  block = buildKeyTileLoop(
      builder, loc, numKeys, tiles, block,
      [&](OpBuilder &b, Location l, OpFoldResult firstKey, int64_t keys,
          ValueRange tileArgs) -> SmallVector<Value> {
        AttentionBlockBuilder tb{b, l};
        // The tile is computed in the block's own columns.
        Value init = tb.filledInPlace(
            tb.columns(tileArgs[0], firstKey, b.getIndexAttr(keys)), 0.0);
        Value rhsTile = tb.columns(rhs, firstKey, b.getIndexAttr(keys));
        Value tile = tb.contract(lhs, tb.map(3, {0, 2}), rhsTile,
                                 tb.map(3, {2, 1}), init);
        return {tb.insertColumns(tile, tileArgs[0], firstKey)};
      })[0];
  return columns(block, tiles.firstKey,
                 subIndex(builder, loc, tiles.endKey, tiles.firstKey));
}

Value AttentionBlockBuilder::accumulateVisible(Value block, Value x, Value acc,
                                               const AttentionKeyTiles &tiles,
                                               int64_t numKeys) {
  return buildKeyTileLoop(
      builder, loc, numKeys, tiles, acc,
      [&](OpBuilder &b, Location l, OpFoldResult firstKey, int64_t keys,
          ValueRange tileArgs) -> SmallVector<Value> {
        AttentionBlockBuilder tb{b, l};
        OpFoldResult column = subIndex(b, l, firstKey, tiles.firstKey);
        Value blockTile = tb.columns(block, column, b.getIndexAttr(keys));
        Value xTile = tb.rows(x, firstKey, keys);
        return {tb.contract(blockTile, tb.map(3, {0, 2}), xTile,
                            tb.map(3, {2, 1}), tileArgs[0])};
      })[0];
}

Value AttentionBlockBuilder::transpose(Value matrix) {
  auto type = cast<RankedTensorType>(matrix.getType());
  Value init = tensor::EmptyOp::create(builder, loc,
                                       {type.getDimSize(1), type.getDimSize(0)},
                                       type.getElementType());
  return linalg::TransposeOp::create(builder, loc, matrix, init,
                                     ArrayRef<int64_t>{1, 0})
      .getResult()
      .front();
}

Value AttentionBlockBuilder::contract(Value lhs, AffineMap lhsMap, Value rhs,
                                      AffineMap rhsMap, Value init) {
  // A named linalg.matmul with these maps rather than a linalg.generic: the
  // CPU pipeline's kiln-matmul-kernels takes it (f32, f64), and elementwise
  // fusion never fuses an in-place update into it (see the P'·V comment in
  // AttentionOpLowering). Its body extends half-precision inputs to the
  // accumulator's type.
  SmallVector<Attribute> maps = {AffineMapAttr::get(lhsMap),
                                 AffineMapAttr::get(rhsMap),
                                 AffineMapAttr::get(map(3, {0, 1}))};
  auto matmul = linalg::MatmulOp::create(
      builder, loc, TypeRange{init.getType()}, ValueRange{lhs, rhs},
      ValueRange{init},
      {builder.getNamedAttr("indexing_maps", builder.getArrayAttr(maps))});
  return matmul.getResult(0);
}

//===----------------------------------------------------------------------===//
// kiln.attention
//===----------------------------------------------------------------------===//

namespace {

/// What every query block of one kiln.attention reads: its sizes, logit
/// parameters and dropout, the query operand and whether it has the lse.
struct ForwardContext {
  AttentionSizes sizes;
  AttentionLogits logitParams;
  AttentionDropout dropout;
  Value query;
  bool hasLse;
  /// The [Hq] sinks, or null.
  Value sinks;
  /// Whether key tiles narrow by the packed sequences' row tables
  /// (buildVisibleKeyTiles): not in the GPU pipeline's sequential lowering.
  bool readSequenceTables;
};

/// The probabilities of a block from its scores s, unnormalized:
/// e'[i, j] = e * Z / (1 - p) with t the logits of s and e = exp(t - m) (0 in
/// an empty row), so that P' = e' * w. Also the rows' m (the max; -inf marks
/// an empty row, also a block that sees no key), l (the sum of e: 0 exactly
/// for an empty row, >= 1 otherwise) and, with a sink, w = rescale / l' (null
/// without one, where w = 1 / l). The block is read and written twice (t and
/// m, then e and l); the normalization is applied to the [rows, Dv] output
/// (normalizeRows), not to the [rows, Sk] block.
struct BlockProbabilities {
  Value exps, rowMax, rowSum, weight;
};

static BlockProbabilities buildProbabilities(AttentionBlockBuilder &bb,
                                             const ForwardContext &c,
                                             const AttentionBlockPosition &at,
                                             Value scores) {
  Type computeType = c.sizes.computeType;
  // t = the logits of the scores, in place, and m = max_j t, in one pass.
  auto [logits, rowMax] = bb.mapAndRowMax(
      scores, {},
      [&](OpBuilder &pb, Location pl, ValueRange args, Value i,
          Value j) -> Value {
        return at.buildLogit(pb, pl, c.logitParams, args[0], i, j);
      });

  // e[i, j] = exp(t - m), and 0 in an empty row (exp(-inf - -inf) is never
  // evaluated into the result), in place, and l = sum_j e, in one pass.
  double negInf = -std::numeric_limits<double>::infinity();
  auto [exps, rowSum] = bb.mapAndRowSum(
      logits, rowMax,
      [&](OpBuilder &pb, Location pl, ValueRange args, Value, Value) -> Value {
        return buildGuardedExp(pb, pl, args[0], args[1], negInf);
      });
  if (c.dropout.isActive())
    exps = bb.updateBlock(exps, ValueRange{}, {},
                          [&](OpBuilder &pb, Location pl, ValueRange args,
                              Value i, Value j) -> Value {
                            auto [row, key] = at.globalIndices(pb, pl, i, j);
                            return c.dropout.apply(pb, pl, args[0], at.b, at.h,
                                                   row, key);
                          });

  // With a sink: P = e * w, w = rescale / l' (0 for an empty row), and the
  // LSE from the folded m' and l'.
  if (c.sinks) {
    Value sink = buildSinkRead(bb.builder, bb.loc, c.sinks, at.h, computeType);
    auto [sinkMax, sinkSum, weight] =
        bb.foldSinkIntoRows(rowMax, rowSum, sink);
    return {exps, sinkMax, sinkSum, weight};
  }
  return {exps, rowMax, rowSum, Value()};
}

/// O[i, d] = acc[i, d] * w[i] with a sink, else acc[i, d] / l[i], and 0 for
/// an empty row (l = 0), in place on the [rows, Dv] accumulator of
/// sum_j e'[i, j] * V[j, d].
static Value normalizeRows(AttentionBlockBuilder &bb, const ForwardContext &c,
                           const BlockProbabilities &probs, Value acc) {
  Type computeType = c.sizes.computeType;
  if (probs.weight)
    return bb.updateBlock(acc, probs.weight, bb.map(2, {0}),
                          [&](OpBuilder &pb, Location pl, ValueRange args,
                              Value, Value) -> Value {
                            return arith::MulFOp::create(pb, pl, args[0],
                                                         args[1]);
                          });
  return bb.updateBlock(
      acc, probs.rowSum, bb.map(2, {0}),
      [&](OpBuilder &pb, Location pl, ValueRange args, Value,
          Value) -> Value {
        Value zeroValue = arith::ConstantOp::create(
            pb, pl, pb.getFloatAttr(computeType, 0.0));
        Value empty = arith::CmpFOp::create(pb, pl, arith::CmpFPredicate::OEQ,
                                            args[1], zeroValue);
        Value o = arith::DivFOp::create(pb, pl, args[0], args[1]);
        return arith::SelectOp::create(pb, pl, empty, zeroValue, o);
      });
}

/// LSE[i] = m + log(l) of a block's rows, and +inf for an empty row
/// (m = -inf, l = 0), inserted into `lseAcc` at the block's rows.
static Value insertBlockLse(AttentionBlockBuilder &bb, const ForwardContext &c,
                            const AttentionBlockPosition &at, int64_t rows,
                            Value rowMax, Value rowSum, Value lseAcc) {
  OpBuilder &builder = bb.builder;
  Type computeType = c.sizes.computeType;
  double negInf = -std::numeric_limits<double>::infinity();
  Value rowLse = bb.mapRows(
      {rowMax, rowSum}, [&](OpBuilder &pb, Location pl, ValueRange ml) -> Value {
        Value m = ml[0], l = ml[1];
        Value empty = arith::CmpFOp::create(
            pb, pl, arith::CmpFPredicate::OEQ, m,
            arith::ConstantOp::create(pb, pl,
                                      pb.getFloatAttr(computeType, negInf)));
        Value lse =
            arith::AddFOp::create(pb, pl, m, math::LogOp::create(pb, pl, l));
        return arith::SelectOp::create(
            pb, pl, empty,
            arith::ConstantOp::create(pb, pl,
                                      pb.getFloatAttr(computeType, -negInf)),
            lse);
      });
  SmallVector<OpFoldResult> lseOffsets = {at.b, at.h, at.firstRow};
  SmallVector<OpFoldResult> lseSizes = {builder.getIndexAttr(1),
                                        builder.getIndexAttr(1),
                                        builder.getIndexAttr(rows)};
  SmallVector<OpFoldResult> lseStrides(3, builder.getIndexAttr(1));
  return tensor::InsertSliceOp::create(builder, bb.loc, rowLse, lseAcc,
                                       lseOffsets, lseSizes, lseStrides);
}

/// One query block of query head h: its rows of O (and of the LSE), given
/// Kᵀ and V of its kv head; `args` are the O (and LSE) accumulators.
static SmallVector<Value>
buildQueryBlock(OpBuilder &builder, Location loc, const ForwardContext &c,
                Value b, Value h, Value kt, Value v, OpFoldResult firstRow,
                int64_t rows, ValueRange args) {
  const AttentionSizes &sizes = c.sizes;
  AttentionBlockBuilder bb{builder, loc};
  Value q =
      extractHeadBlock(builder, loc, c.query, b, h, rows, sizes.keyDim, firstRow);
  // The key tiles some row of the block may see; every other key has
  // P = 0 in every row, so it is neither scored nor summed.
  AttentionBlockPosition at{b, h, firstRow,
                            buildVisibleKeyTiles(builder, loc,
                                                 c.logitParams.visibility,
                                                 firstRow, rows,
                                                 c.readSequenceTables)};
  const AttentionKeyTiles &tiles = at.tiles;

  // s[i, j] = sum_d Q[i, d] * K[j, d] on the visible columns
  // [firstKey, endKey), tile by tile, then the logits t in place. The
  // softmax runs on these columns alone, in place: an invisible key
  // would add exp(-inf) = 0 to the row sum and nothing to the row max,
  // so the rows' m, l and P are those of the whole row.
  BlockProbabilities probs = buildProbabilities(
      bb, c, at,
      bb.visibleProduct(q, kt, tiles, sizes.numKeys, sizes.computeType));

  SmallVector<Value> yields;
  // O[i, d] = w[i] * sum_j e'[i, j] * V[j, d] over the visible tiles, as
  // named linalg.matmuls (V extended to the compute type by their cast).
  // They must not be linalg.generics: linalg-fuse-elementwise-ops would
  // fuse an in-place update of the block (the dropout) into them, and
  // since it reads its own init, the fused op would apply it once per d.
  // The other in-place updates of the block each have another user (the
  // slices of a row reduction), so they are never fused.
  if (sizes.valueDim == 0) {
    yields.push_back(args[0]);
  } else {
    Value out = bb.filled({rows, sizes.valueDim}, sizes.computeType, 0.0);
    out = bb.accumulateVisible(probs.exps, v, out, tiles, sizes.numKeys);
    out = normalizeRows(bb, c, probs, out);
    yields.push_back(insertHeadBlock(builder, loc,
                                     bb.round(out, sizes.elementType), args[0],
                                     b, h, firstRow));
  }
  if (c.hasLse)
    yields.push_back(
        insertBlockLse(bb, c, at, rows, probs.rowMax, probs.rowSum, args[1]));
  return yields;
}

/// kiln.attention -> one task per query block of each (b, h) (an scf.forall
/// whose iterations own their rows of O and the LSE, or scf.for loops), of
/// linalg on [rows, Sk] blocks. f16 and bf16 compute in f32 (scores, softmax and the P·V
/// accumulation) and round the output once; f32 and f64 compute in their own
/// type.
struct AttentionOpLowering : OpConversionPattern<AttentionOp> {
  AttentionOpLowering(MLIRContext *context, bool parallel)
      : OpConversionPattern(context), parallel(parallel) {}

  LogicalResult
  matchAndRewrite(AttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    AttentionSizes sizes = AttentionSizes::get(op);
    auto resultType = cast<RankedTensorType>(op.getResult().getType());
    AttentionSequenceTables sequences;
    if (op.hasPackedSequences())
      sequences = buildAttentionRowSequenceTables(rewriter, loc, op,
                                                  adaptor.getCuSeqlensQ(),
                                                  adaptor.getCuSeqlensK());
    AttentionLogits logitParams = AttentionLogits::get(
        op, adaptor.getMask(), adaptor.getKeyLengths(),
        adaptor.getQueryLengths(), adaptor.getAlibiSlopes(), sequences);

    Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                         sizes.elementType);
    // The optional lse result [B, Hq, Sq], in the compute type (f32 for half
    // types, as AttentionOp::getLseType says).
    RankedTensorType lseType;
    Value lseInit;
    if (Value lse = op.getLse()) {
      lseType = cast<RankedTensorType>(lse.getType());
      lseInit = tensor::EmptyOp::create(rewriter, loc, lseType.getShape(),
                                        lseType.getElementType());
    }
    // An empty result has nothing to compute (and a static slice offset 0 of
    // a size-0 dim would not verify). Only Dv = 0 leaves O empty and the lse
    // not.
    if (resultType.getNumElements() == 0 &&
        (!lseType || lseType.getNumElements() == 0)) {
      SmallVector<Value> results = {init};
      if (lseInit)
        results.push_back(lseInit);
      rewriter.replaceOp(op, results);
      return success();
    }
    ForwardContext c{
        sizes, logitParams,
        AttentionDropout::get(rewriter, loc, sizes, adaptor.getSeed()),
        adaptor.getQuery(), bool(lseInit), adaptor.getSinks(),
        /*readSequenceTables=*/parallel};
    SmallVector<Value> inits = {init};
    if (lseInit)
      inits.push_back(lseInit);

    // Kᵀ of every (b, g) at once, [B, Hkv, Dk, Sk], so that each score
    // tile reads its [Dk, Tk] block with contiguous rows (a transposed
    // operand would be repacked by every query block); the kv head is
    // indexed, never repeated.
    auto keyType = cast<RankedTensorType>(adaptor.getKey().getType());
    Value keysT = linalg::TransposeOp::create(
                      rewriter, loc, adaptor.getKey(),
                      tensor::EmptyOp::create(
                          rewriter, loc,
                          {sizes.batch, sizes.numKVHeads, sizes.keyDim,
                           sizes.numKeys},
                          keyType.getElementType()),
                      ArrayRef<int64_t>{0, 1, 3, 2})
                      .getResult()
                      .front();
    // Each query block of each (b, h) is a task that owns its rows of O
    // (and of the LSE): an scf.forall over them when `parallel`.
    SmallVector<Value> results = buildQueryBlockTasks(
        rewriter, loc, sizes.batch, sizes.numHeads, sizes.numQueries, inits,
        parallel,
        [&](OpBuilder &builder, Location loc, Value b, Value h,
            OpFoldResult firstRow, int64_t rows, ValueRange args) {
          // kv head g = h / R.
          Value g = h;
          if (sizes.numKVHeads == 1)
            g = constIndex(builder, loc, 0);
          else if (sizes.groupSize > 1)
            g = arith::DivUIOp::create(
                builder, loc, h, constIndex(builder, loc, sizes.groupSize));
          Value kt = extractHeadBlock(builder, loc, keysT, b, g, sizes.keyDim,
                                      sizes.numKeys);
          Value v = extractHeadBlock(builder, loc, adaptor.getValue(), b, g,
                                     sizes.numKeys, sizes.valueDim);
          return buildQueryBlock(builder, loc, c, b, h, kt, v, firstRow, rows,
                                 args);
        });
    rewriter.replaceOp(op, results);
    return success();
  }

  /// Whether the query-block tasks are an scf.forall (else scf.for loops).
  bool parallel;
};

} // namespace

void mlir::kiln::populateAttentionPatterns(RewritePatternSet &patterns,
                                           bool parallel) {
  patterns.add<AttentionOpLowering>(patterns.getContext(), parallel);
  populateAttentionGradPatterns(patterns, parallel);
}
