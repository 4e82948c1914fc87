//===- Utils.cpp - Scalar IR helpers every kiln lowering shares -----------===//

#include "kiln/Dialect/Kiln/Utils/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

Value mlir::kiln::convertFloat(OpBuilder &b, Location loc, Value value,
                               Type type) {
  if (value.getType() == type)
    return value;
  if (type.getIntOrFloatBitWidth() > value.getType().getIntOrFloatBitWidth())
    return arith::ExtFOp::create(b, loc, type, value);
  return arith::TruncFOp::create(b, loc, type, value);
}
