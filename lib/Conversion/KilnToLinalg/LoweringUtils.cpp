//===- LoweringUtils.cpp - Helpers shared by kiln-to-linalg patterns ------===//

#include "LoweringUtils.h"

#include "kiln/Dialect/Kiln/IR/KilnShapeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
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

Type mlir::kiln::getComputeType(Type type) {
  if (type.isF16() || type.isBF16())
    return Float32Type::get(type.getContext());
  return type;
}

Value mlir::kiln::convertFloat(OpBuilder &b, Location loc, Value value,
                               Type type) {
  if (value.getType() == type)
    return value;
  if (type.getIntOrFloatBitWidth() > value.getType().getIntOrFloatBitWidth())
    return arith::ExtFOp::create(b, loc, type, value);
  return arith::TruncFOp::create(b, loc, type, value);
}
