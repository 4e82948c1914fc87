//===- KilnShapeUtils.h - Shape helpers shared by kiln ops -----*- C++ -*-===//
//
// Broadcasting and axis helpers used by the verifiers and type inference of
// kiln ops, and by the lowerings that must agree with them.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNSHAPEUTILS_H
#define KILN_DIALECT_KILN_IR_KILNSHAPEUTILS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/ValueRange.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::kiln {

/// A diagnostic to stream a message into that is reported when there is a
/// location and dropped when there is none: type inference may be asked
/// without a location (to query it silently), and streaming into an
/// inactive InFlightDiagnostic is an error (MLIR asserts on it). Like
/// InFlightDiagnostic it converts to failure().
class OptionalDiagnostic {
public:
  OptionalDiagnostic() = default;
  OptionalDiagnostic(InFlightDiagnostic &&diag) : diag(std::move(diag)) {}

  template <typename Arg>
  OptionalDiagnostic &operator<<(Arg &&arg) {
    if (diag)
      *diag << std::forward<Arg>(arg);
    return *this;
  }
  operator LogicalResult() const { return failure(); }
  template <typename T>
  operator FailureOr<T>() const {
    return failure();
  }

private:
  std::optional<InFlightDiagnostic> diag;
};

/// Returns a callback that starts an error at `loc`, or, without a
/// location, one that drops it.
inline auto optionalErrorAt(std::optional<Location> loc) {
  return [loc]() -> OptionalDiagnostic {
    if (loc)
      return OptionalDiagnostic(mlir::emitError(*loc));
    return OptionalDiagnostic();
  };
}

/// Broadcasts two static shapes NumPy-style: the shapes are aligned at their
/// trailing dimension and each pair of sizes must be equal or contain a 1.
/// Returns std::nullopt when they are not broadcast-compatible.
std::optional<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> lhs,
                                                    ArrayRef<int64_t> rhs);

/// Returns true when `from` broadcasts to exactly `to` (trailing-aligned, each
/// dimension of `from` equal to the matching one of `to` or 1, and
/// rank(from) <= rank(to)).
bool isBroadcastableTo(ArrayRef<int64_t> from, ArrayRef<int64_t> to);

/// Formats a shape as `[2, 3, 4]` for diagnostics.
std::string formatShape(ArrayRef<int64_t> shape);

/// Returns true for a rank-0 ranked tensor of a float type: a loss, as
/// kiln.value_and_grad and kiln-autodiff require it.
bool isScalarFloatTensor(Type type);

/// Type inference of a broadcasting op over `operands`: the result has the
/// broadcast shape of all operands and `resultElementType`, or the element
/// type of the operands when that is null (then all operands must agree).
/// Emits a diagnostic at `loc` (when given) and fails otherwise.
LogicalResult
inferBroadcastBinaryResult(std::optional<Location> loc, ValueRange operands,
                           Type resultElementType,
                           SmallVectorImpl<Type> &inferredReturnTypes);

/// Checks that every axis in `axes` is in [0, rank) and appears once.
/// Emits "<what> <axis> is out of range [0, <rank>)" or
/// "<what> <axis> is repeated" through `emitError` on failure.
LogicalResult verifyAxes(function_ref<OptionalDiagnostic()> emitError,
                         ArrayRef<int64_t> axes, int64_t rank,
                         StringRef what = "axis");

} // namespace mlir::kiln

#endif // KILN_DIALECT_KILN_IR_KILNSHAPEUTILS_H
