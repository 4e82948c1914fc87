//===- ElementwiseOps.cpp - Elementwise kiln ops --------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::kiln;

#define GET_OP_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnElementwiseOps.cpp.inc"

/// Returns true when `value` is a splat constant equal to `splat` (a float or
/// an integer constant, matched by value).
static bool isSplatConstant(Attribute value, double splat) {
  auto elements = dyn_cast_if_present<SplatElementsAttr>(value);
  if (!elements)
    return false;
  Type elementType = elements.getElementType();
  if (isa<FloatType>(elementType))
    return elements.getSplatValue<APFloat>().convertToDouble() == splat;
  if (isa<IntegerType>(elementType))
    return elements.getSplatValue<APInt>().getSExtValue() ==
           static_cast<int64_t>(splat);
  return false;
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  // x + 0 -> x, only when no broadcast changes x's shape.
  if (isSplatConstant(adaptor.getRhs(), 0.0) &&
      getLhs().getType() == getType())
    return getLhs();
  if (isSplatConstant(adaptor.getLhs(), 0.0) &&
      getRhs().getType() == getType())
    return getRhs();
  return {};
}
