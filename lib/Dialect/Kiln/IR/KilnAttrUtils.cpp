//===- KilnAttrUtils.cpp - Attribute helpers shared by kiln passes --------===//

#include "kiln/Dialect/Kiln/IR/KilnAttrUtils.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"

#include <algorithm>
#include <cassert>
#include <cmath>

using namespace mlir;

TypedAttr mlir::kiln::getScalarAttr(Type type, double value) {
  if (auto floatType = dyn_cast<FloatType>(type)) {
    APFloat converted(value);
    bool losesInfo = false;
    converted.convert(floatType.getFloatSemantics(),
                      APFloat::rmNearestTiesToEven, &losesInfo);
    return FloatAttr::get(floatType, converted);
  }
  if (auto intType = dyn_cast<IntegerType>(type)) {
    unsigned width = intType.getWidth();
    if (width == 1)
      return IntegerAttr::get(intType, APInt(1, value != 0.0 ? 1 : 0));
    double truncated = std::trunc(value);
    [[maybe_unused]] double bound = std::ldexp(1.0, std::min(width, 64u) - 1);
    assert(truncated >= -bound && truncated < bound &&
           "the integer type does not hold the value");
    return IntegerAttr::get(intType,
                            APInt(width, static_cast<int64_t>(truncated),
                                  /*isSigned=*/true));
  }
  return {};
}
