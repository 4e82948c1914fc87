//===- LoweringUtils.cpp - Helpers shared by kiln-to-linalg patterns ------===//

#include "LoweringUtils.h"

#include "kiln/Dialect/Kiln/IR/KilnShapeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"

using namespace mlir;
using namespace mlir::kiln;

AffineMap mlir::kiln::getBroadcastIndexingMap(ArrayRef<int64_t> operandShape,
                                              ArrayRef<int64_t> resultShape,
                                              MLIRContext *context) {
  assert(operandShape.size() <= resultShape.size() &&
         "operand has a higher rank than the broadcast result");
  unsigned leading = resultShape.size() - operandShape.size();
  SmallVector<AffineExpr> exprs;
  exprs.reserve(operandShape.size());
  for (auto [i, size] : llvm::enumerate(operandShape)) {
    if (size == 1)
      exprs.push_back(getAffineConstantExpr(0, context));
    else
      exprs.push_back(getAffineDimExpr(leading + i, context));
  }
  return AffineMap::get(resultShape.size(), /*symbolCount=*/0, exprs, context);
}

FailureOr<Value> mlir::kiln::buildBroadcastingElementwise(
    OpBuilder &builder, Location loc, RankedTensorType resultType,
    ValueRange operands, ElementwiseBodyBuilder bodyBuilder) {
  MLIRContext *context = builder.getContext();
  ArrayRef<int64_t> resultShape = resultType.getShape();
  SmallVector<AffineMap> maps;
  for (Value operand : operands) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type || !isBroadcastableTo(type.getShape(), resultShape))
      return failure();
    maps.push_back(
        getBroadcastIndexingMap(type.getShape(), resultShape, context));
  }
  maps.push_back(builder.getMultiDimIdentityMap(resultShape.size()));
  SmallVector<utils::IteratorType> iterators(resultShape.size(),
                                             utils::IteratorType::parallel);
  Value init = tensor::EmptyOp::create(builder, loc, resultShape,
                                       resultType.getElementType());
  auto generic = linalg::GenericOp::create(
      builder, loc, TypeRange{resultType}, operands, ValueRange{init}, maps,
      iterators, [&](OpBuilder &b, Location bodyLoc, ValueRange args) {
        // The last block argument is the (unused) output element.
        Value result = bodyBuilder(b, bodyLoc, args.drop_back());
        linalg::YieldOp::create(b, bodyLoc, result);
      });
  return generic.getResult(0);
}

Value mlir::kiln::floatConstant(OpBuilder &b, Location loc, Type type,
                                double value) {
  return arith::ConstantOp::create(b, loc, FloatAttr::get(type, value));
}

Value mlir::kiln::buildFilled(OpBuilder &b, Location loc,
                              ArrayRef<int64_t> shape, Value value) {
  Value empty = tensor::EmptyOp::create(b, loc, shape, value.getType());
  return linalg::FillOp::create(b, loc, ValueRange{value}, ValueRange{empty})
      .getResult(0);
}

Value mlir::kiln::buildMap(OpBuilder &b, Location loc,
                           RankedTensorType resultType, ValueRange inputs,
                           ArrayRef<AffineMap> inputMaps,
                           ElementwiseBodyBuilder body) {
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(b.getMultiDimIdentityMap(resultType.getRank()));
  SmallVector<utils::IteratorType> iterators(resultType.getRank(),
                                             utils::IteratorType::parallel);
  Value init = tensor::EmptyOp::create(b, loc, resultType.getShape(),
                                       resultType.getElementType());
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc, body(nb, nloc, args.drop_back()));
      });
  return generic.getResult(0);
}

Value mlir::kiln::buildColumnForall(OpBuilder &builder, Location loc,
                                    Value init, int64_t axis,
                                    AxisPartBodyBuilder body) {
  auto type = cast<RankedTensorType>(init.getType());
  int64_t rank = type.getRank();
  int64_t axisSize = type.getDimSize(axis);
  SmallVector<OpFoldResult> upperBounds;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis)
      upperBounds.push_back(builder.getIndexAttr(type.getDimSize(d)));
  if (upperBounds.empty())
    upperBounds.push_back(builder.getIndexAttr(1));
  auto forall = scf::ForallOp::create(builder, loc, upperBounds,
                                      ValueRange{init}, std::nullopt);

  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(forall.getBody());
  SmallVector<Value> ivs = forall.getInductionVars();
  Value shared = forall.getRegionIterArgs().front();
  // The column [..., :, ...] of the position.
  SmallVector<OpFoldResult> offsets, sizes, strides;
  for (int64_t d = 0, outer = 0; d < rank; ++d) {
    strides.push_back(builder.getIndexAttr(1));
    if (d == axis) {
      offsets.push_back(builder.getIndexAttr(0));
      sizes.push_back(builder.getIndexAttr(axisSize));
      continue;
    }
    offsets.push_back(ivs[outer++]);
    sizes.push_back(builder.getIndexAttr(1));
  }
  auto columnType = RankedTensorType::get({axisSize}, type.getElementType());
  Value column = tensor::ExtractSliceOp::create(builder, loc, columnType,
                                                shared, offsets, sizes, strides);
  Value updated = body(builder, loc, ivs, column);

  builder.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(builder, loc, updated, shared, offsets,
                                        sizes, strides);
  return forall.getResult(0);
}

SmallVector<ReassociationIndices>
mlir::kiln::getCollapseAfterAxisGroups(int64_t rank, int64_t axis) {
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d <= axis; ++d)
    groups.push_back({d});
  groups.push_back(llvm::to_vector(llvm::seq<int64_t>(axis + 1, rank)));
  return groups;
}

Value mlir::kiln::buildRowChunkForall(OpBuilder &builder, Location loc,
                                      Value init, int64_t maxChunk,
                                      RowChunkBodyBuilder body) {
  auto type = cast<RankedTensorType>(init.getType());
  ArrayRef<int64_t> shape = type.getShape();
  int64_t axis = type.getRank() - 2;
  int64_t axisSize = shape[axis];
  int64_t inner = shape.back();
  RowChunk chunk;
  chunk.size = std::min(inner, maxChunk);
  int64_t numChunks = llvm::divideCeil(inner, chunk.size);
  chunk.even = inner % chunk.size == 0;
  SmallVector<OpFoldResult> upperBounds;
  for (int64_t d = 0; d < axis; ++d)
    upperBounds.push_back(builder.getIndexAttr(shape[d]));
  upperBounds.push_back(builder.getIndexAttr(numChunks));
  auto forall = scf::ForallOp::create(builder, loc, upperBounds,
                                      ValueRange{init}, std::nullopt);

  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(forall.getBody());
  SmallVector<Value> ivs = forall.getInductionVars();
  ValueRange outerIvs = ValueRange(ivs).drop_back();
  Value shared = forall.getRegionIterArgs().front();
  chunk.zero = arith::ConstantIndexOp::create(builder, loc, 0);
  chunk.one = arith::ConstantIndexOp::create(builder, loc, 1);
  chunk.sizeValue = arith::ConstantIndexOp::create(builder, loc, chunk.size);
  chunk.start = builder.getIndexAttr(0);
  if (numChunks > 1)
    chunk.start =
        arith::MulIOp::create(builder, loc, ivs.back(), chunk.sizeValue)
            .getResult();
  chunk.width = chunk.sizeValue;
  if (!chunk.even) {
    Value innerSize = arith::ConstantIndexOp::create(builder, loc, inner);
    Value rest = arith::SubIOp::create(builder, loc, innerSize,
                                       cast<Value>(chunk.start));
    chunk.width = arith::MinSIOp::create(builder, loc, rest, chunk.sizeValue);
  }
  OpFoldResult widthFold =
      chunk.even ? OpFoldResult(builder.getIndexAttr(chunk.size)) : chunk.width;

  // The thread's part of the result: [axis, width] at its position.
  SmallVector<OpFoldResult> offsets(outerIvs),
      sizes(axis, builder.getIndexAttr(1));
  offsets.append({builder.getIndexAttr(0), chunk.start});
  sizes.append({builder.getIndexAttr(axisSize), widthFold});
  SmallVector<OpFoldResult> strides(offsets.size(), builder.getIndexAttr(1));
  auto partType = RankedTensorType::get(
      {axisSize, chunk.even ? chunk.size : ShapedType::kDynamic},
      type.getElementType());
  Value part = tensor::ExtractSliceOp::create(builder, loc, partType, shared,
                                              offsets, sizes, strides);
  Value updated = body(builder, loc, outerIvs, chunk, part);

  builder.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(builder, loc, updated, shared, offsets,
                                        sizes, strides);
  return forall.getResult(0);
}

/// Returns a `tensor.empty` of `type`.
Value mlir::kiln::createEmpty(OpBuilder &builder, Location loc,
                         RankedTensorType type) {
  return tensor::EmptyOp::create(builder, loc, type.getShape(),
                                 type.getElementType());
}

/// Reinterprets `input` (row-major) as `resultType` with a collapse or an
/// expand of the same elements. `groups` say which dims of the higher-rank
/// side make up each dim of the lower-rank side.
Value mlir::kiln::reassociate(OpBuilder &builder, Location loc, Value input,
                         RankedTensorType resultType,
                         ArrayRef<ReassociationIndices> groups) {
  auto inputType = cast<RankedTensorType>(input.getType());
  if (inputType == resultType)
    return input;
  if (resultType.getRank() <= inputType.getRank())
    return tensor::CollapseShapeOp::create(builder, loc, resultType, input,
                                           groups);
  return tensor::ExpandShapeOp::create(builder, loc, resultType, input,
                                       groups);
}

/// Creates a parallel `linalg.generic` over `resultType` with the given
/// inputs and their indexing maps; the output is an unused `tensor.empty`.
/// `body` gets the scalar inputs and returns the element.
Value mlir::kiln::buildIndexGeneric(
    OpBuilder &builder, Location loc, RankedTensorType resultType,
    ValueRange inputs, ArrayRef<AffineMap> inputMaps,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  int64_t rank = resultType.getRank();
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(builder.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Value init = createEmpty(builder, loc, resultType);
  auto generic = linalg::GenericOp::create(
      builder, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps,
      iterators, [&](OpBuilder &b, Location bodyLoc, ValueRange args) {
        linalg::YieldOp::create(b, bodyLoc, body(b, bodyLoc, args.drop_back()));
      });
  return generic.getResult(0);
}

/// An integer constant of `type` with value `value`.
Value mlir::kiln::intConstant(OpBuilder &b, Location loc, Type type,
                         const APInt &value) {
  return arith::ConstantOp::create(b, loc, IntegerAttr::get(type, value));
}

/// `tensor` with its float elements converted to `elementType`.
Value mlir::kiln::convertElements(OpBuilder &b, Location loc, Value tensor,
                             Type elementType) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (type.getElementType() == elementType)
    return tensor;
  return buildMap(b, loc, type.clone(elementType), tensor,
                  b.getMultiDimIdentityMap(type.getRank()),
                  [&](OpBuilder &nb, Location nloc, ValueRange args) {
                    return convertFloat(nb, nloc, args[0], elementType);
                  });
}
