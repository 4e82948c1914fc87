//===- RaiseAttentionConstants.cpp - Constants for kiln-raise-attention ---===//
//
// What kiln-raise-attention reads off kiln.constant ops: splat values,
// additive mask values, provably finite masks.
//
//===----------------------------------------------------------------------===//

#include "RaiseAttentionImpl.h"

namespace mlir::kiln::raise_attention {

/// The dense elements of a kiln.constant, or null.
DenseElementsAttr getConstantElements(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return {};
  return dyn_cast<DenseElementsAttr>(constant.getValue());
}

/// The value of a splat float constant (rank 0 or any shape), or nullopt.
std::optional<APFloat> getSplatFloat(Value value) {
  DenseElementsAttr elements = getConstantElements(value);
  if (!elements || !elements.isSplat() ||
      !isa<FloatType>(elements.getElementType()))
    return std::nullopt;
  return elements.getSplatValue<APFloat>();
}

/// The value of a splat float constant as a double, or nullopt.
std::optional<double> getSplatDouble(Value value) {
  if (std::optional<APFloat> splat = getSplatFloat(value))
    return splat->convertToDouble();
  return std::nullopt;
}

/// True for a splat i1 constant holding `truth`.
bool isSplatBool(Value value, bool truth) {
  DenseElementsAttr elements = getConstantElements(value);
  return elements && elements.isSplat() &&
         elements.getElementType().isInteger(1) &&
         elements.getSplatValue<bool>() == truth;
}

AdditiveKind classifyAdditive(const APFloat &value) {
  if (value.isNaN())
    return AdditiveKind::Other;
  if (value.isZero())
    return AdditiveKind::Visible;
  if (value.isInfinity())
    return value.isNegative() ? AdditiveKind::BlockedInf : AdditiveKind::Other;
  APFloat lowest = APFloat::getLargest(value.getSemantics(), /*Negative=*/true);
  if (value.compare(lowest) != APFloat::cmpGreaterThan)
    return AdditiveKind::BlockedFinite;
  return AdditiveKind::Other;
}

/// True when `value` is provably free of -inf and NaN: built from finite
/// constants by selects and layout ops only (a sum of two finite values can
/// overflow to -inf, so sums do not count).
bool isProvablyFinite(Value value, int depth) {
  if (depth > 32)
    return false;
  Operation *def = value.getDefiningOp();
  if (!def)
    return false;
  if (auto constant = dyn_cast<ConstantOp>(def)) {
    auto elements = dyn_cast<DenseElementsAttr>(constant.getValue());
    if (!elements || !isa<FloatType>(elements.getElementType()))
      return false;
    if (elements.isSplat())
      return elements.getSplatValue<APFloat>().isFinite();
    return llvm::all_of(elements.getValues<APFloat>(),
                        [](const APFloat &v) { return v.isFinite(); });
  }
  if (auto select = dyn_cast<SelectOp>(def))
    return isProvablyFinite(select.getOnTrue(), depth + 1) &&
           isProvablyFinite(select.getOnFalse(), depth + 1);
  if (isa<BroadcastToOp, ReshapeOp, UnsqueezeOp, SqueezeOp, SliceOp,
          TransposeOp, PermuteOp, FlattenOp>(def))
    return isProvablyFinite(def->getOperand(0), depth + 1);
  return false;
}

/// The ranked tensor type of `value`, or null.
RankedTensorType getRankedType(Value value) {
  return dyn_cast<RankedTensorType>(value.getType());
}

} // namespace mlir::kiln::raise_attention
