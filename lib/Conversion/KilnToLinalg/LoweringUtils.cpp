//===- LoweringUtils.cpp - Helpers shared by kiln-to-linalg patterns ------===//

#include "LoweringUtils.h"

#include "kiln/Dialect/Kiln/IR/KilnShapeUtils.h"

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
