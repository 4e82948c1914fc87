//===- ElementwiseOps.cpp - Elementwise kiln ops --------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/APFloat.h"

using namespace mlir;
using namespace mlir::kiln;

/// Type inference of the comparison ops: the broadcast shape of the operands,
/// which must share an element type, with `i1` elements.
static LogicalResult
inferCompareResult(MLIRContext *context, std::optional<Location> loc,
                   ValueRange operands,
                   SmallVectorImpl<Type> &inferredReturnTypes) {
  if (operands.size() != 2)
    return emitOptionalError(loc, "expected 2 operands, got ", operands.size());
  SmallVector<Type, 1> broadcast;
  if (failed(inferBroadcastBinaryResult(loc, operands,
                                        /*resultElementType=*/nullptr,
                                        broadcast)))
    return failure();
  inferredReturnTypes.push_back(cast<RankedTensorType>(broadcast.front())
                                    .clone(IntegerType::get(context, 1)));
  return success();
}

#define GET_OP_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnElementwiseOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Folding helpers
//===----------------------------------------------------------------------===//

/// Returns true when `value` is a splat constant equal to `splat` (a float or
/// an integer constant, matched by value; `i1` reads as 0 or 1, and a float
/// zero of either sign matches 0).
static bool isSplatConstant(Attribute value, int64_t splat) {
  auto elements = dyn_cast_if_present<SplatElementsAttr>(value);
  if (!elements)
    return false;
  Type elementType = elements.getElementType();
  if (isa<FloatType>(elementType))
    return elements.getSplatValue<APFloat>().convertToDouble() ==
           static_cast<double>(splat);
  if (isa<IntegerType>(elementType)) {
    APInt integer = elements.getSplatValue<APInt>();
    if (integer.getBitWidth() == 1)
      return static_cast<int64_t>(integer.getZExtValue()) == splat;
    return integer.getSExtValue() == splat;
  }
  return false;
}

/// Returns true when `value` is a splat constant of float `-0.0`.
static bool isSplatNegativeZero(Attribute value) {
  auto elements = dyn_cast_if_present<SplatElementsAttr>(value);
  if (!elements || !isa<FloatType>(elements.getElementType()))
    return false;
  APFloat splat = elements.getSplatValue<APFloat>();
  return splat.isZero() && splat.isNegative();
}

/// Folds `lhs (op) rhs` when both are float splat constants of the element
/// type of `resultType`, to a splat of `resultType` (broadcasting a splat is
/// free). Returns null otherwise.
static Attribute
foldFloatSplats(Attribute lhs, Attribute rhs, Type resultType,
                function_ref<APFloat(const APFloat &, const APFloat &)> fn) {
  auto lhsSplat = dyn_cast_if_present<SplatElementsAttr>(lhs);
  auto rhsSplat = dyn_cast_if_present<SplatElementsAttr>(rhs);
  auto type = dyn_cast<RankedTensorType>(resultType);
  if (!lhsSplat || !rhsSplat || !type ||
      !isa<FloatType>(type.getElementType()) ||
      lhsSplat.getElementType() != type.getElementType() ||
      rhsSplat.getElementType() != type.getElementType())
    return {};
  APFloat result = fn(lhsSplat.getSplatValue<APFloat>(),
                      rhsSplat.getSplatValue<APFloat>());
  return DenseElementsAttr::get(type, ArrayRef<APFloat>(result));
}

//===----------------------------------------------------------------------===//
// Binary arithmetic
//===----------------------------------------------------------------------===//

/// Returns true when `value` is a splat of the additive identity: integer 0,
/// or float -0.0 (x + (+0.0) is not x for x = -0.0).
static bool isSplatAdditiveIdentity(Attribute value) {
  auto elements = dyn_cast_if_present<SplatElementsAttr>(value);
  if (elements && isa<FloatType>(elements.getElementType()))
    return isSplatNegativeZero(value);
  return isSplatConstant(value, 0);
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  // x + 0 -> x, only when no broadcast changes x's shape.
  if (isSplatAdditiveIdentity(adaptor.getRhs()) &&
      getLhs().getType() == getType())
    return getLhs();
  if (isSplatAdditiveIdentity(adaptor.getLhs()) &&
      getRhs().getType() == getType())
    return getRhs();
  return foldFloatSplats(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APFloat &a, const APFloat &b) { return a + b; });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  // x - (+0) -> x is exact for every x; x - (-0) is not (-0 - -0 = +0).
  if (isSplatConstant(adaptor.getRhs(), 0) &&
      !isSplatNegativeZero(adaptor.getRhs()) &&
      getLhs().getType() == getType())
    return getLhs();
  return foldFloatSplats(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APFloat &a, const APFloat &b) { return a - b; });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  // x * 1 -> x, only when no broadcast changes x's shape.
  if (isSplatConstant(adaptor.getRhs(), 1) && getLhs().getType() == getType())
    return getLhs();
  if (isSplatConstant(adaptor.getLhs(), 1) && getRhs().getType() == getType())
    return getRhs();
  return foldFloatSplats(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APFloat &a, const APFloat &b) { return a * b; });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  // x / 1 -> x, only when no broadcast changes x's shape.
  if (isSplatConstant(adaptor.getRhs(), 1) && getLhs().getType() == getType())
    return getLhs();
  // Only floats fold, so a zero divisor gives an IEEE infinity or NaN.
  return foldFloatSplats(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APFloat &a, const APFloat &b) { return a / b; });
}

OpFoldResult MaximumOp::fold(FoldAdaptor adaptor) {
  // maximum(x, x) -> x: equal operands have the result's type.
  if (getLhs() == getRhs())
    return getLhs();
  return foldFloatSplats(adaptor.getLhs(), adaptor.getRhs(), getType(),
                         [](const APFloat &a, const APFloat &b) {
                           return llvm::maximum(a, b);
                         });
}

OpFoldResult MinimumOp::fold(FoldAdaptor adaptor) {
  // minimum(x, x) -> x: equal operands have the result's type.
  if (getLhs() == getRhs())
    return getLhs();
  return foldFloatSplats(adaptor.getLhs(), adaptor.getRhs(), getType(),
                         [](const APFloat &a, const APFloat &b) {
                           return llvm::minimum(a, b);
                         });
}

//===----------------------------------------------------------------------===//
// SelectOp
//===----------------------------------------------------------------------===//

LogicalResult SelectOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> loc, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties,
    RegionRange regions, SmallVectorImpl<Type> &inferredReturnTypes) {
  if (operands.size() != 3)
    return emitOptionalError(loc, "expected 3 operands, got ", operands.size());
  auto onTrue = dyn_cast<RankedTensorType>(operands[1].getType());
  auto onFalse = dyn_cast<RankedTensorType>(operands[2].getType());
  if (onTrue && onFalse &&
      onTrue.getElementType() != onFalse.getElementType())
    return emitOptionalError(
        loc, "'on_true' and 'on_false' must have the same element type, got ",
        onTrue.getElementType(), " and ", onFalse.getElementType());
  // The condition's `i1` elements do not take part: the result has the
  // element type of the chosen values.
  Type elementType = onTrue ? onTrue.getElementType() : Type();
  if (!elementType)
    return emitOptionalError(loc, "operand #1 must be a ranked tensor");
  return inferBroadcastBinaryResult(loc, operands, elementType,
                                    inferredReturnTypes);
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  // select(c, x, x) -> x.
  if (getOnTrue() == getOnFalse() && getOnTrue().getType() == getType())
    return getOnTrue();
  // select(splat, x, y) -> x or y, when no broadcast changes its type.
  auto cond = dyn_cast_if_present<SplatElementsAttr>(adaptor.getCond());
  if (!cond || !cond.getElementType().isInteger(1))
    return {};
  Value chosen = cond.getSplatValue<bool>() ? getOnTrue() : getOnFalse();
  if (chosen.getType() == getType())
    return chosen;
  return {};
}

//===----------------------------------------------------------------------===//
// Unary math
//===----------------------------------------------------------------------===//

/// Formats a non-finite float attribute value as `nan`, `inf` or `-inf`.
static StringRef formatNonFinite(const APFloat &value) {
  if (value.isNaN())
    return "nan";
  return value.isNegative() ? "-inf" : "inf";
}

/// Checks that the `alpha` attribute of `op` is finite.
static LogicalResult verifyFiniteAlpha(Operation *op, const APFloat &alpha) {
  if (!alpha.isFinite())
    return op->emitOpError("'alpha' must be finite, got ")
           << formatNonFinite(alpha);
  return success();
}

LogicalResult LeakyReluOp::verify() {
  return verifyFiniteAlpha(*this, getAlpha());
}

LogicalResult EluOp::verify() { return verifyFiniteAlpha(*this, getAlpha()); }

LogicalResult ClampOp::verify() {
  std::optional<APFloat> min = getMin();
  std::optional<APFloat> max = getMax();
  if (!min && !max)
    return emitOpError("at least one of 'min' and 'max' must be set");
  if (min && min->isNaN())
    return emitOpError("'min' must not be NaN");
  if (max && max->isNaN())
    return emitOpError("'max' must not be NaN");
  if (min && max && min->compare(*max) == APFloat::cmpGreaterThan)
    return emitOpError("'min' ")
           << min->convertToDouble() << " must not be greater than 'max' "
           << max->convertToDouble();
  return success();
}

OpFoldResult ReluOp::fold(FoldAdaptor adaptor) {
  // relu(relu(x)) -> relu(x).
  if (getOperand().getDefiningOp<ReluOp>())
    return getOperand();
  return {};
}

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  // neg(neg(x)) -> x, also for wrapping integers.
  if (auto inner = getOperand().getDefiningOp<NegOp>())
    return inner.getOperand();
  return {};
}

OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  // abs(abs(x)) -> abs(x).
  if (getOperand().getDefiningOp<AbsOp>())
    return getOperand();
  return {};
}

//===----------------------------------------------------------------------===//
// ConvertOp
//===----------------------------------------------------------------------===//

/// Builds a conversion of `operand`, a ranked tensor, to `elementType`.
void ConvertOp::build(OpBuilder &builder, OperationState &state, Value operand,
                      Type elementType) {
  auto type = cast<RankedTensorType>(operand.getType());
  build(builder, state, type.clone(elementType), operand);
}

LogicalResult ConvertOp::verify() {
  ArrayRef<int64_t> operandShape = getOperand().getType().getShape();
  ArrayRef<int64_t> resultShape = getType().getShape();
  if (operandShape != resultShape)
    return emitOpError("result shape ")
           << formatShape(resultShape) << " must equal operand shape "
           << formatShape(operandShape);
  return success();
}

OpFoldResult ConvertOp::fold(FoldAdaptor adaptor) {
  // A conversion to the operand's own type is a no-op.
  if (getOperand().getType() == getType())
    return getOperand();
  return {};
}
