//===- Utils.h - Scalar IR helpers every kiln lowering shares ---*- C++ -*-===//
//
// Small builders on scalars that the CPU lowering, the GPU kernels and the
// attention definition (AttentionUtils.h) all use, so each is written once.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_UTILS_UTILS_H
#define KILN_DIALECT_KILN_UTILS_UTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

namespace mlir::kiln {

/// Converts the float scalar `value` to the float `type`: arith.extf to a
/// wider type, arith.truncf to a narrower one, `value` itself if it has
/// `type`.
Value convertFloat(OpBuilder &b, Location loc, Value value, Type type);

} // namespace mlir::kiln

#endif // KILN_DIALECT_KILN_UTILS_UTILS_H
