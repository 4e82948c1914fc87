//===- AutodiffUtils.cpp - Helpers of the backward rules ------------------===//

#include "kiln/Dialect/Kiln/IR/KilnAttrUtils.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/Autodiff.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::kiln;

Type autodiff::getElementType(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

Value autodiff::createScalar(OpBuilder &b, Location loc, Type elementType,
                             double value) {
  auto type = RankedTensorType::get({}, elementType);
  return ConstantOp::create(
      b, loc, DenseElementsAttr::get(type, getScalarAttr(elementType, value)));
}

Value autodiff::createSplat(OpBuilder &b, Location loc, Type type,
                            double value) {
  auto tensorType = cast<RankedTensorType>(type);
  return ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(
          tensorType, getScalarAttr(tensorType.getElementType(), value)));
}

Value autodiff::reshapeTo(OpBuilder &b, Location loc, Value value,
                          ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  return ReshapeOp::create(b, loc, type.clone(shape), value);
}

Value autodiff::reduceToType(OpBuilder &b, Location loc, Value grad,
                             Type target) {
  auto gradType = cast<RankedTensorType>(grad.getType());
  auto targetType = cast<RankedTensorType>(target);
  if (gradType == targetType)
    return grad;
  int64_t lead = gradType.getRank() - targetType.getRank();
  SmallVector<int64_t> axes;
  for (int64_t i = 0; i < lead; ++i)
    axes.push_back(i);
  for (int64_t j = 0; j < targetType.getRank(); ++j)
    if (targetType.getDimSize(j) == 1 && gradType.getDimSize(lead + j) != 1)
      axes.push_back(lead + j);
  Value reduced = grad;
  if (!axes.empty())
    reduced = SumOp::create(b, loc, grad, axes, /*keep_dims=*/false);
  return reshapeTo(b, loc, reduced, targetType.getShape());
}

Value autodiff::reshapeToKeepDims(OpBuilder &b, Location loc, Value value,
                                  RankedTensorType inputType,
                                  ArrayRef<int64_t> axes) {
  SmallVector<int64_t> shape(inputType.getShape());
  for (int64_t axis : axes)
    shape[axis] = 1;
  return reshapeTo(b, loc, value, shape);
}

Value autodiff::add(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return AddOp::create(b, loc, lhs, rhs);
}
Value autodiff::sub(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return SubOp::create(b, loc, lhs, rhs);
}
Value autodiff::mul(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return MulOp::create(b, loc, lhs, rhs);
}
Value autodiff::div(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return DivOp::create(b, loc, lhs, rhs);
}

static bool isHalfType(Type type) { return type.isF16() || type.isBF16(); }

/// Whether the float type `type` holds `value` exactly.
static bool isExactIn(Type type, double value) {
  APFloat converted(value);
  bool losesInfo = false;
  converted.convert(cast<FloatType>(type).getFloatSemantics(),
                    APFloat::rmNearestTiesToEven, &losesInfo);
  return !losesInfo;
}

Value autodiff::scale(OpBuilder &b, Location loc, Value value, double scalar) {
  Type elementType = autodiff::getElementType(value);
  if (isHalfType(elementType) && !isExactIn(elementType, scalar)) {
    Type f32 = b.getF32Type();
    Value wide = ConvertOp::create(b, loc, value, f32);
    wide = mul(b, loc, wide, createScalar(b, loc, f32, scalar));
    return ConvertOp::create(b, loc, wide, elementType);
  }
  return mul(b, loc, value, createScalar(b, loc, elementType, scalar));
}

Value autodiff::convertTo(OpBuilder &b, Location loc, Value value,
                          Type elementType) {
  if (autodiff::getElementType(value) == elementType)
    return value;
  return ConvertOp::create(b, loc, value, elementType);
}

Value autodiff::divideByCount(OpBuilder &b, Location loc, Value value,
                              Value mask, ArrayRef<int64_t> axes,
                              bool keepDims) {
  Type elementType = autodiff::getElementType(value);
  Type computeType = getComputeType(elementType);
  Value ones = convertTo(b, loc, mask, b.getI64Type());
  Value count = convertTo(b, loc, SumOp::create(b, loc, ones, axes, keepDims),
                          computeType);
  Value quotient = div(b, loc, convertTo(b, loc, value, computeType), count);
  return convertTo(b, loc, quotient, elementType);
}

Value autodiff::addScalar(OpBuilder &b, Location loc, Value value,
                          double scalar) {
  return add(b, loc, value,
             createScalar(b, loc, getElementType(value), scalar));
}

Value autodiff::maskOrZero(OpBuilder &b, Location loc, Value cond,
                           Value value) {
  return SelectOp::create(b, loc, cond, value,
                          createScalar(b, loc, getElementType(value), 0.0));
}

Value autodiff::boolToFloat(OpBuilder &b, Location loc, Value cond,
                            Type elementType) {
  return ConvertOp::create(b, loc, cond, elementType);
}

bool autodiff::isCheapToRecompute(Operation *op) {
  return op->hasTrait<OpTrait::kiln::CheapToRecompute>();
}

int64_t autodiff::getSizeInBytes(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  int64_t elementBytes = (tensor.getElementTypeBitWidth() + 7) / 8;
  return tensor.getNumElements() * elementBytes;
}
