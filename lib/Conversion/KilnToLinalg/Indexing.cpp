//===- Indexing.cpp - Lower the gathers and index_add ---------------------===//
//
// Gathers (kiln.gather, kiln.index_select) are a `linalg.generic` over the
// result that clamps each index to [0, size) of the gathered axis, so an
// out-of-range index reads the first or last slice, never out of bounds.
// index_add, their adjoint, clamps the same way and is an `scf.forall`
// whose threads own chunks of rows (the CPU's form) or columns (the GPU's)
// and add their updates in index order.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "PopulatePatterns.h"

#include "kiln/Dialect/Kiln/IR/KilnAttrUtils.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::kiln;

namespace {

//===----------------------------------------------------------------------===//
// Gathers
//===----------------------------------------------------------------------===//

/// kiln.gather / kiln.index_select -> linalg.generic over the result that
/// reads the index through its indexing map, clamps it to [0, size) of the
/// axis and `tensor.extract`s the data element. The verifier rejects indices
/// into an axis of size 0, so there the result is empty; it is built without
/// a clamp to [0, -1).
template <typename OpTy>
struct IndexingOpLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpTy>::OpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value data = adaptor.getData();
    Value indices = adaptor.getIndices();
    auto dataType = cast<RankedTensorType>(data.getType());
    auto indicesType = cast<RankedTensorType>(indices.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t axis = op.getAxis();
    int64_t dataRank = dataType.getRank();
    int64_t indexRank = indicesType.getRank();
    if (axis < 0 || axis >= dataRank ||
        resultType.getRank() != dataRank - 1 + indexRank ||
        !isa<IntegerType>(indicesType.getElementType()))
      return rewriter.notifyMatchFailure(op, "unsupported operand types");
    Location loc = op.getLoc();
    int64_t axisSize = dataType.getDimSize(axis);

    if (axisSize == 0) {
      TypedAttr zeroAttr = getScalarAttr(resultType.getElementType(), 0.0);
      assert(zeroAttr && "the verifier guarantees a Kiln_Tensor result, "
                         "whose float or integer element type "
                         "getScalarAttr handles");
      Value zero = arith::ConstantOp::create(rewriter, loc, zeroAttr);
      Value init = createEmpty(rewriter, loc, resultType);
      rewriter.replaceOp(
          op, linalg::FillOp::create(rewriter, loc, zero, init).getResult(0));
      return success();
    }

    // The result loops are data dims before the axis, the index dims, then
    // the data dims after the axis.
    MLIRContext *context = rewriter.getContext();
    SmallVector<AffineExpr> indexExprs;
    for (int64_t d = 0; d < indexRank; ++d)
      indexExprs.push_back(getAffineDimExpr(axis + d, context));
    AffineMap indicesMap =
        AffineMap::get(resultType.getRank(), 0, indexExprs, context);
    Value result = buildIndexGeneric(
        rewriter, loc, resultType, indices, {indicesMap},
        [&](OpBuilder &b, Location bodyLoc, ValueRange args) -> Value {
          Value index = arith::IndexCastOp::create(b, bodyLoc,
                                                   b.getIndexType(), args[0]);
          Value lowest = arith::ConstantIndexOp::create(b, bodyLoc, 0);
          Value highest =
              arith::ConstantIndexOp::create(b, bodyLoc, axisSize - 1);
          index = arith::MaxSIOp::create(b, bodyLoc, index, lowest);
          index = arith::MinSIOp::create(b, bodyLoc, index, highest);
          SmallVector<Value> position;
          for (int64_t d = 0; d < dataRank; ++d) {
            if (d < axis)
              position.push_back(linalg::IndexOp::create(b, bodyLoc, d));
            else if (d == axis)
              position.push_back(index);
            else
              position.push_back(
                  linalg::IndexOp::create(b, bodyLoc, d - 1 + indexRank));
          }
          return tensor::ExtractOp::create(b, bodyLoc, data, position);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// index_add
//===----------------------------------------------------------------------===//

/// Returns a `linalg.generic` that converts every element of the float
/// tensor `input` to `elementType` (extf or truncf).
static Value convertFloats(OpBuilder &builder, Location loc, Value input,
                           FloatType elementType) {
  auto inputType = cast<RankedTensorType>(input.getType());
  auto inputElement = cast<FloatType>(inputType.getElementType());
  AffineMap identity = builder.getMultiDimIdentityMap(inputType.getRank());
  return buildIndexGeneric(
      builder, loc, inputType.clone(elementType), input, {identity},
      [&](OpBuilder &b, Location bodyLoc, ValueRange args) -> Value {
        if (inputElement.getWidth() < elementType.getWidth())
          return arith::ExtFOp::create(b, bodyLoc, elementType, args[0]);
        return arith::TruncFOp::create(b, bodyLoc, elementType, args[0]);
      });
}

/// Returns `indices[position]` as an index clamped to [`zero`, `last`].
static Value loadClampedIndex(OpBuilder &b, Location loc, Value indices,
                              ValueRange position, Value zero, Value last) {
  Value index = tensor::ExtractOp::create(b, loc, indices, position);
  index = arith::IndexCastOp::create(b, loc, b.getIndexType(), index);
  index = arith::MaxSIOp::create(b, loc, index, zero);
  return arith::MinSIOp::create(b, loc, index, last);
}

/// Returns `current + update` in the accumulator type of `current`: an
/// f16/bf16 update is widened first; integers wrap; i1 adds with a logical
/// or.
static Value addUpdate(OpBuilder &b, Location loc, Value current,
                       Value update) {
  if (update.getType() != current.getType())
    update = arith::ExtFOp::create(b, loc, current.getType(), update);
  Type accType = getElementTypeOrSelf(current.getType());
  if (isa<FloatType>(accType))
    return arith::AddFOp::create(b, loc, current, update);
  if (accType.isInteger(1))
    return arith::OrIOp::create(b, loc, current, update);
  return arith::AddIOp::create(b, loc, current, update);
}

/// The number of contiguous elements of a row that one thread of the row
/// form owns (the last thread of a row may own fewer).
static constexpr int64_t kIndexAddRowChunk = 128;

/// The width of the row form's vector adds: 512 bits, as the matmul
/// kernels'; LLVM splits them on narrower targets.
static constexpr int64_t kIndexAddVectorBits = 512;

/// kiln.index_add -> an `scf.forall` whose threads own disjoint parts of the
/// result and add `source`'s entries into them in index order: each takes
/// its part (`tensor.extract_slice` of the shared output), runs an `scf.for`
/// over the indices that reads the index, clamps it to the axis and adds the
/// matching entries of `source`, and writes the part back
/// (`tensor.parallel_insert_slice`). Every element of the result thus gets
/// its updates in index order, in either form and however the threads are
/// scheduled: no atomics, no race, the same bits sequentially, under OpenMP
/// and on the GPU (after bufferization, kiln's pipelines turn the forall
/// into an `scf.parallel`). The work is O(N x row), and nothing larger than
/// `dest` is built.
///
/// The two forms split the result differently:
/// - columns (`threadPerColumn`, for the GPU): one thread per position of
///   the non-axis dims, which owns that column `dest[a, :, b]` and adds one
///   element per index (`tensor.extract`/`insert`). Consecutive threads
///   touch consecutive elements (coalesced), but a thread walks its column
///   a row apart.
/// - row chunks (for the CPU): with dest seen as [outer, axis, inner] (the
///   dims before the axis, the axis, the dims after it), one thread per
///   outer position and chunk of `kIndexAddRowChunk` contiguous inner
///   positions, which per index adds that chunk of the source row into the
///   dest row at the index: whole vectors of `kIndexAddVectorBits`
///   (`vector.transfer_read`/`write`, in bounds), then the rest element by
///   element. The vectors are explicit so that the add is vectorized
///   whatever LLVM pipeline follows (the JIT optimizes without the host's
///   target description, and LLVM then leaves scalar loops scalar). With no
///   dims after the axis (inner = 1) a column is contiguous and the column
///   form is used.
///
/// f16 and bf16 accumulate in f32 (one copy of `dest` widened, one rounding
/// at the end); integers wrap; i1 adds with a logical or.
struct IndexAddOpLowering : OpConversionPattern<IndexAddOp> {
  IndexAddOpLowering(MLIRContext *context, bool threadPerColumn)
      : OpConversionPattern(context), threadPerColumn(threadPerColumn) {}

  LogicalResult
  matchAndRewrite(IndexAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value dest = adaptor.getDest();
    Value indices = adaptor.getIndices();
    Value source = adaptor.getSource();
    auto destType = cast<RankedTensorType>(dest.getType());
    auto indicesType = cast<RankedTensorType>(indices.getType());
    auto sourceType = cast<RankedTensorType>(source.getType());
    int64_t axis = op.getAxis();
    int64_t rank = destType.getRank();
    Type elementType = destType.getElementType();
    if (axis < 0 || axis >= rank || indicesType.getRank() != 1 ||
        sourceType.getRank() != rank ||
        !isa<IntegerType>(indicesType.getElementType()) ||
        !isa<FloatType, IntegerType>(elementType))
      return rewriter.notifyMatchFailure(op, "unsupported operand types");
    Location loc = op.getLoc();

    // Nothing to add (the verifier rejects indices into an empty axis).
    if (sourceType.getNumElements() == 0) {
      rewriter.replaceOp(op, dest);
      return success();
    }

    auto floatType = dyn_cast<FloatType>(elementType);
    bool widen = floatType && floatType.getWidth() < 32;
    Value init = buildAccumulator(rewriter, loc, dest, widen);

    int64_t inner = ShapedType::getNumElements(
        destType.getShape().drop_front(axis + 1));
    Value result =
        threadPerColumn || inner == 1
            ? buildColumns(rewriter, loc, init, indices, source, axis)
            : buildRowChunks(rewriter, loc, init, indices, source, axis);
    if (widen)
      result = convertFloats(rewriter, loc, result, floatType);
    rewriter.replaceOp(op, result);
    return success();
  }

private:
  /// The accumulator that the threads add into: `dest`, widened to f32 when
  /// `widen` (f16 and bf16 are widened once).
  static Value buildAccumulator(OpBuilder &builder, Location loc, Value dest,
                                bool widen) {
    // The accumulator: f16 and bf16 are widened to f32 once. A splat dest
    // (the zeros of an adjoint) is filled, not copied from a constant of
    // dest's size.
    auto destType = cast<RankedTensorType>(dest.getType());
    Type accType = widen ? builder.getF32Type() : destType.getElementType();
    auto accTensorType = destType.clone(accType);
    SplatElementsAttr splat;
    if (matchPattern(dest, m_Constant(&splat))) {
      TypedAttr value = splat.getSplatValue<TypedAttr>();
      if (widen)
        value = builder.getF32FloatAttr(
            splat.getSplatValue<APFloat>().convertToDouble());
      Value scalar = arith::ConstantOp::create(builder, loc, value);
      return linalg::FillOp::create(builder, loc, scalar,
                                    createEmpty(builder, loc, accTensorType))
          .getResult(0);
    }
    if (widen)
      return convertFloats(builder, loc, dest, builder.getF32Type());
    return dest;
  }

  /// The column form: one thread per position of the non-axis dims (one
  /// thread for a rank-1 dest, whose only dim is the axis).
  static Value buildColumns(OpBuilder &builder, Location loc, Value init,
                            Value indices, Value source, int64_t axis) {
    auto accTensorType = cast<RankedTensorType>(init.getType());
    int64_t rank = accTensorType.getRank();
    int64_t axisSize = accTensorType.getDimSize(axis);
    int64_t numIndices = cast<RankedTensorType>(indices.getType()).getDimSize(0);
    auto addColumn = [&](OpBuilder &builder, Location loc, ValueRange ivs,
                         Value column) -> Value {
      Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
      Value last = arith::ConstantIndexOp::create(builder, loc, axisSize - 1);
      Value count = arith::ConstantIndexOp::create(builder, loc, numIndices);
      Value one = arith::ConstantIndexOp::create(builder, loc, 1);
      auto loop = scf::ForOp::create(
          builder, loc, zero, count, one, ValueRange{column},
          [&](OpBuilder &b, Location bodyLoc, Value i, ValueRange iterArgs) {
            Value index =
                loadClampedIndex(b, bodyLoc, indices, i, zero, last);
            SmallVector<Value> position;
            for (int64_t d = 0, outer = 0; d < rank; ++d)
              position.push_back(d == axis ? i : Value(ivs[outer++]));
            Value update =
                tensor::ExtractOp::create(b, bodyLoc, source, position);
            Value current =
                tensor::ExtractOp::create(b, bodyLoc, iterArgs[0], index);
            Value sum = addUpdate(b, bodyLoc, current, update);
            Value next =
                tensor::InsertOp::create(b, bodyLoc, sum, iterArgs[0], index);
            scf::YieldOp::create(b, bodyLoc, next);
          });
      return loop.getResult(0);
    };
    return buildColumnForall(builder, loc, init, axis, addColumn);
  }

  /// What the row-chunk form's threads share: the indices, the source
  /// collapsed to [d0, ..., axis, inner], and the sizes of the adds.
  struct RowChunkOperands {
    Value indices;
    Value collapsedSource;
    Type sourceElement;
    Type accType;
    int64_t axisSize;
    int64_t numIndices;
    /// The elements of one vector add; 0: every add is scalar.
    int64_t lanes;
  };

  /// How one thread's chunk splits into vector adds, over [0, vectorEnd),
  /// and scalar adds, over [vectorEnd, width), and which of the two loops
  /// it needs.
  struct ChunkSplit {
    Value vectorEnd;
    bool vectorLoop;
    bool scalarLoop;
    /// The padding values of the vector reads (null without vector loop).
    Value sourcePadding, accPadding;
  };

  /// The row-chunk form: one thread per position of the dims before the
  /// axis and chunk of the positions after it, which `init` and `source`
  /// collapse into one contiguous dim.
  static Value buildRowChunks(OpBuilder &builder, Location loc, Value init,
                              Value indices, Value source, int64_t axis) {
    auto accTensorType = cast<RankedTensorType>(init.getType());
    auto sourceType = cast<RankedTensorType>(source.getType());
    Type accType = accTensorType.getElementType();
    ArrayRef<int64_t> shape = accTensorType.getShape();
    int64_t rank = accTensorType.getRank();
    int64_t inner = ShapedType::getNumElements(shape.drop_front(axis + 1));

    // [d0, ..., axis, inner]: a reshape only with several dims after the
    // axis (a view of the same buffer, but the result is then computed in
    // a buffer of its own and copied out).
    SmallVector<ReassociationIndices> groups =
        getCollapseAfterAxisGroups(rank, axis);
    auto collapsed = [&](RankedTensorType type) {
      SmallVector<int64_t> dims(type.getShape().take_front(axis + 1));
      dims.push_back(inner);
      return RankedTensorType::get(dims, type.getElementType());
    };
    Value collapsedInit =
        reassociate(builder, loc, init, collapsed(accTensorType), groups);
    Value collapsedSource =
        reassociate(builder, loc, source, collapsed(sourceType), groups);

    // Per index, `lanes` elements at a time while whole vectors fit, then
    // one at a time. i1 (a byte per element in memory, a bit per lane in a
    // vector) goes one at a time.
    int64_t lanes = accType.isInteger(1)
                        ? 0
                        : kIndexAddVectorBits / accType.getIntOrFloatBitWidth();
    RowChunkOperands operands;
    operands.indices = indices;
    operands.collapsedSource = collapsedSource;
    operands.sourceElement = sourceType.getElementType();
    operands.accType = accType;
    operands.axisSize = shape[axis];
    operands.numIndices = sourceType.getDimSize(axis);
    operands.lanes = lanes;
    auto addPart = [&](OpBuilder &builder, Location loc, ValueRange outerIvs,
                       const RowChunk &rowChunk, Value part) -> Value {
      return buildChunkAdds(builder, loc, operands, outerIvs, rowChunk, part);
    };
    Value result = buildRowChunkForall(builder, loc, collapsedInit,
                                       kIndexAddRowChunk, addPart);
    return reassociate(builder, loc, result, accTensorType, groups);
  }

  /// The split of the chunk `rowChunk` between vector and scalar adds, and
  /// the constants that it needs (the end of the vector part where it is not
  /// the chunk size, the vector reads' padding values).
  static ChunkSplit splitChunk(OpBuilder &builder, Location loc,
                               const RowChunkOperands &operands,
                               const RowChunk &rowChunk) {
    int64_t lanes = operands.lanes;
    Type accType = operands.accType;
    Value zero = rowChunk.zero;
    Value chunkSize = rowChunk.sizeValue, width = rowChunk.width;
    int64_t chunk = rowChunk.size;
    bool evenChunks = rowChunk.even;
    Value vectorEnd = zero;
    if (lanes > 0 && evenChunks) {
      vectorEnd = chunk % lanes == 0
                      ? chunkSize
                      : arith::ConstantIndexOp::create(builder, loc,
                                                       chunk - chunk % lanes);
    } else if (lanes > 0) {
      Value laneCount = arith::ConstantIndexOp::create(builder, loc, lanes);
      Value tail = arith::RemUIOp::create(builder, loc, width, laneCount);
      vectorEnd = arith::SubIOp::create(builder, loc, width, tail);
    }
    bool vectorLoop = lanes > 0 && !(evenChunks && chunk < lanes);
    bool scalarLoop = lanes == 0 || !evenChunks || chunk % lanes != 0;
    Type sourceElement = operands.sourceElement;
    // transfer_read wants a padding value, which in-bounds reads never use.
    Value sourcePadding, accPadding;
    if (vectorLoop) {
      sourcePadding = arith::ConstantOp::create(
          builder, loc, getScalarAttr(sourceElement, 0.0));
      accPadding = sourceElement == accType
                       ? sourcePadding
                       : arith::ConstantOp::create(builder, loc,
                                                   getScalarAttr(accType, 0.0))
                             .getResult();
    }
    return {vectorEnd, vectorLoop, scalarLoop, sourcePadding, accPadding};
  }

  /// One row-chunk thread's adds into its `part` ([axis, width] of the
  /// result): an scf.for over the indices that clamps each index and adds
  /// the chunk of the source row into the part's row at the index, whole
  /// vectors first, then element by element.
  static Value buildChunkAdds(OpBuilder &builder, Location loc,
                              const RowChunkOperands &operands,
                              ValueRange outerIvs, const RowChunk &rowChunk,
                              Value part) {
    Value zero = rowChunk.zero, one = rowChunk.one;
    Value width = rowChunk.width;
    int64_t lanes = operands.lanes;
    ChunkSplit split = splitChunk(builder, loc, operands, rowChunk);
    Value vectorEnd = split.vectorEnd;

    Value last =
        arith::ConstantIndexOp::create(builder, loc, operands.axisSize - 1);
    Value count =
        arith::ConstantIndexOp::create(builder, loc, operands.numIndices);
    auto loop = scf::ForOp::create(
        builder, loc, zero, count, one, ValueRange{part},
        [&](OpBuilder &b, Location bodyLoc, Value i, ValueRange iterArgs) {
          Value index =
              loadClampedIndex(b, bodyLoc, operands.indices, i, zero, last);
          SmallVector<Value> sourceRow(outerIvs);
          sourceRow.push_back(i);
          auto addRow = [&](Value acc, Value from, Value to,
                            int64_t step) -> Value {
            return buildRowAdds(b, bodyLoc, operands, split, sourceRow,
                                rowChunk.start, index, acc, from, to, step);
          };
          Value row = iterArgs[0];
          if (split.vectorLoop)
            row = addRow(row, zero, vectorEnd, lanes);
          if (split.scalarLoop)
            row = addRow(row, vectorEnd, width, 1);
          scf::YieldOp::create(b, bodyLoc, row);
        });
    return loop.getResult(0);
  }

  /// part[index, j] += source[..., i, start + j] for j in [from, to),
  /// `step` elements at a time (vector reads and writes for step > 1):
  /// `acc` is the part, `sourceRow` the source's indices before the
  /// collapsed inner dim (the outer positions and i).
  static Value buildRowAdds(OpBuilder &b, Location bodyLoc,
                            const RowChunkOperands &operands,
                            const ChunkSplit &split, ValueRange sourceRow,
                            OpFoldResult start, Value index, Value acc,
                            Value from, Value to, int64_t step) {
    Value collapsedSource = operands.collapsedSource;
    Type sourceElement = operands.sourceElement, accType = operands.accType;
    Value stepSize = arith::ConstantIndexOp::create(b, bodyLoc, step);
    auto rowLoop = scf::ForOp::create(
        b, bodyLoc, from, to, stepSize, ValueRange{acc},
        [&](OpBuilder &rb, Location rowLoc, Value j, ValueRange rowArgs) {
          SmallVector<Value> position(sourceRow);
          if (auto offset = dyn_cast<Value>(start))
            position.push_back(arith::AddIOp::create(rb, rowLoc, offset, j));
          else
            position.push_back(j);
          Value row = rowArgs[0];
          SmallVector<Value> target = {index, j};
          Value next;
          if (step == 1) {
            Value update = tensor::ExtractOp::create(rb, rowLoc,
                                                     collapsedSource, position);
            Value current = tensor::ExtractOp::create(rb, rowLoc, row, target);
            Value sum = addUpdate(rb, rowLoc, current, update);
            next = tensor::InsertOp::create(rb, rowLoc, sum, row, target);
          } else {
            SmallVector<bool> inBounds = {true};
            Value update = vector::TransferReadOp::create(
                rb, rowLoc, VectorType::get({step}, sourceElement),
                collapsedSource, position, split.sourcePadding, inBounds);
            Value current = vector::TransferReadOp::create(
                rb, rowLoc, VectorType::get({step}, accType), row, target,
                split.accPadding, inBounds);
            Value sum = addUpdate(rb, rowLoc, current, update);
            next = vector::TransferWriteOp::create(rb, rowLoc, sum, row, target,
                                                   inBounds)
                       .getResult();
          }
          scf::YieldOp::create(rb, rowLoc, next);
        });
    return rowLoop.getResult(0);
  }

  bool threadPerColumn;
};

/// kiln.gather_pages -> one linalg.generic over the result [B, H, M * T, D]
/// that reads pages[clamp(table[b, j / T], 0, P - 1), h, j % T, d].
struct GatherPagesOpLowering : OpConversionPattern<GatherPagesOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GatherPagesOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getResult().getType());
    auto pagesType = cast<RankedTensorType>(op.getPages().getType());
    int64_t pageSize = pagesType.getDimSize(2);
    int64_t lastPage = pagesType.getDimSize(0) - 1;
    Value pages = adaptor.getPages(), table = adaptor.getBlockTable();
    Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                         resultType.getElementType());
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType}, ValueRange{}, ValueRange{init},
        ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(4)},
        SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location loc, ValueRange) {
          SmallVector<Value> at;
          for (int64_t d = 0; d < 4; ++d)
            at.push_back(linalg::IndexOp::create(b, loc, d));
          Value size = arith::ConstantIndexOp::create(b, loc, pageSize);
          Value slot = arith::DivUIOp::create(b, loc, at[2], size);
          Value offset = arith::RemUIOp::create(b, loc, at[2], size);
          Value zero = arith::ConstantIndexOp::create(b, loc, 0);
          Value last = arith::ConstantIndexOp::create(b, loc, lastPage);
          Value page = loadClampedIndex(b, loc, table, ValueRange{at[0], slot},
                                        zero, last);
          Value value = tensor::ExtractOp::create(
              b, loc, pages, ValueRange{page, at[1], offset, at[3]});
          linalg::YieldOp::create(b, loc, value);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

} // namespace

void mlir::kiln::populateIndexingPatterns(RewritePatternSet &patterns,
                                          bool indexAddThreadPerColumn) {
  patterns.add<GatherPagesOpLowering>(patterns.getContext());
  patterns.add<IndexingOpLowering<GatherOp>,
               IndexingOpLowering<IndexSelectOp>>(patterns.getContext());
  patterns.add<IndexAddOpLowering>(patterns.getContext(),
                                   indexAddThreadPerColumn);
}
