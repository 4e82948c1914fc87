//===- LoweringUtils.h - Helpers for kiln-to-linalg patterns ----*- C++ -*-===//
//
// Private to the KilnToLinalg library: building blocks that several op
// families need, such as broadcasting elementwise `linalg.generic` ops.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CONVERSION_KILNTOLINALG_LOWERINGUTILS_H
#define KILN_LIB_CONVERSION_KILNTOLINALG_LOWERINGUTILS_H

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

namespace mlir::kiln {

/// Returns the indexing map that reads an operand of shape `operandShape`
/// inside a loop nest over `resultShape`, broadcasting NumPy-style: operand
/// dims align with the trailing result dims, a missing leading dim is not
/// indexed, and a size-1 dim is indexed by the constant 0.
AffineMap getBroadcastIndexingMap(ArrayRef<int64_t> operandShape,
                                  ArrayRef<int64_t> resultShape,
                                  MLIRContext *context);

/// Builds the payload of an elementwise op: `args` are the scalar operands
/// (one per tensor operand, in order); returns the scalar result.
using ElementwiseBodyBuilder =
    function_ref<Value(OpBuilder &, Location, ValueRange args)>;

/// Creates a `linalg.generic` with parallel iterators that computes
/// `resultType` from `operands`, broadcasting each operand to the result
/// shape (see getBroadcastIndexingMap). Returns the result tensor, or
/// failure (creating nothing) when an operand is not a ranked tensor that
/// broadcasts to the result shape.
FailureOr<Value> buildBroadcastingElementwise(OpBuilder &builder, Location loc,
                                              RankedTensorType resultType,
                                              ValueRange operands,
                                              ElementwiseBodyBuilder body);

/// A float constant of `type` with value `value`.
Value floatConstant(OpBuilder &b, Location loc, Type type, double value);

/// A tensor of `shape` filled with `value`.
Value buildFilled(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                  Value value);

/// A parallel generic over `resultType` reading `inputs` through `inputMaps`.
Value buildMap(OpBuilder &b, Location loc, RankedTensorType resultType,
               ValueRange inputs, ArrayRef<AffineMap> inputMaps,
               ElementwiseBodyBuilder body);

/// The type the statistics and the normalized values of `type` are computed
/// in: f32 for f16 and bf16 (as PyTorch does), the type itself otherwise.
Type getComputeType(Type type);

/// Converts the float scalar `value` to `type` (extending or truncating).
Value convertFloat(OpBuilder &b, Location loc, Value value, Type type);

} // namespace mlir::kiln

#endif // KILN_LIB_CONVERSION_KILNTOLINALG_LOWERINGUTILS_H
