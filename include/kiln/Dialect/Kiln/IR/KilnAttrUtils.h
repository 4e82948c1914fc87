//===- KilnAttrUtils.h - Attribute helpers shared by kiln passes -*- C++ -*-===//
//
// Attribute builders used both by the kiln-level transforms (autodiff, the
// attention decomposition) and by the lowerings, which must build the same
// constants.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNATTRUTILS_H
#define KILN_DIALECT_KILN_IR_KILNATTRUTILS_H

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/Types.h"

namespace mlir::kiln {

/// Returns the scalar constant `value` of the float or integer type `type`.
/// A float type gets `value` rounded to nearest, ties to even (an f16 or bf16
/// 1e-8 becomes its nearest value, a value beyond the type's range an
/// infinity). An integer type gets `value` truncated toward zero, which must
/// be a value the type holds as a signed integer (the op verifiers check the
/// user-given ones; an out-of-range value asserts), except for i1, which is
/// true for any non-zero `value`. Returns null for other types.
TypedAttr getScalarAttr(Type type, double value);

} // namespace mlir::kiln

#endif // KILN_DIALECT_KILN_IR_KILNATTRUTILS_H
