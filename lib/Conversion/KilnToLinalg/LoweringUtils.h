//===- LoweringUtils.h - Helpers for kiln-to-linalg patterns ----*- C++ -*-===//
//
// Private to the KilnToLinalg library: building blocks that several op
// families need, such as broadcasting elementwise `linalg.generic` ops.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CONVERSION_KILNTOLINALG_LOWERINGUTILS_H
#define KILN_LIB_CONVERSION_KILNTOLINALG_LOWERINGUTILS_H

#include "kiln/Dialect/Kiln/Utils/Utils.h"

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
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


//===----------------------------------------------------------------------===//
// Threads along an axis (kiln.index_add, kiln.cumsum)
//===----------------------------------------------------------------------===//
//
// Ops that update a tensor sequentially along one axis split the other
// positions among the threads of an `scf.forall` (which kiln's pipelines
// turn into OpenMP or GPU threads): each thread takes its part of the shared
// result, updates it with loops of its own and inserts it back; no two
// threads touch the same element.

/// Updates one thread's part of the result; returns the updated part.
/// `outerIvs` are the thread's positions in the dims before (for the column
/// form: other than) the axis.
using AxisPartBodyBuilder =
    function_ref<Value(OpBuilder &, Location, ValueRange outerIvs, Value part)>;

/// One thread per position of the dims of `init` other than `axis` (one
/// thread for rank 1); its part is the column [..., :, ...] (rank 1).
/// Returns the forall's result.
Value buildColumnForall(OpBuilder &builder, Location loc, Value init,
                        int64_t axis, AxisPartBodyBuilder body);

/// The groups that collapse the dims after `axis` of a rank-`rank` shape
/// into one: [d0, ..., axis, inner].
SmallVector<ReassociationIndices> getCollapseAfterAxisGroups(int64_t rank,
                                                             int64_t axis);

/// A row-chunk thread's share of the inner positions, and the index
/// constants the forall made for it.
struct RowChunk {
  /// The chunk [start, start + width) of the inner positions; only the last
  /// chunk of a row may be narrower than `size`.
  OpFoldResult start;
  Value width;
  int64_t size;
  /// Whether every chunk has `size` positions.
  bool even;
  Value zero, one, sizeValue;
};

/// Updates one row-chunk thread's part ([axis, width] of the result).
using RowChunkBodyBuilder = function_ref<Value(
    OpBuilder &, Location, ValueRange outerIvs, const RowChunk &, Value part)>;

/// One thread per position of the dims before the axis of `init`, shaped
/// [d0, ..., axis, inner] (getCollapseAfterAxisGroups), and chunk of at most
/// `maxChunk` contiguous inner positions. Returns the forall's result.
Value buildRowChunkForall(OpBuilder &builder, Location loc, Value init,
                          int64_t maxChunk, RowChunkBodyBuilder body);

/// Returns a `tensor.empty` of `type`.
Value createEmpty(OpBuilder &builder, Location loc, RankedTensorType type);

/// Reinterprets `input` (row-major) as `resultType` with a collapse or an
/// expand of the same elements. `groups` say which dims of the higher-rank
/// side make up each dim of the lower-rank side.
Value reassociate(OpBuilder &builder, Location loc, Value input,
                  RankedTensorType resultType,
                  ArrayRef<ReassociationIndices> groups);

/// Creates a parallel `linalg.generic` over `resultType` with the given
/// inputs and their indexing maps; the output is an unused `tensor.empty`.
/// `body` gets the scalar inputs and returns the element.
Value buildIndexGeneric(
    OpBuilder &builder, Location loc, RankedTensorType resultType,
    ValueRange inputs, ArrayRef<AffineMap> inputMaps,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body);

/// An integer constant of `type` with value `value`.
Value intConstant(OpBuilder &b, Location loc, Type type, const APInt &value);

/// `tensor` with its float elements converted to `elementType`.
Value convertElements(OpBuilder &b, Location loc, Value tensor,
                      Type elementType);

} // namespace mlir::kiln

#endif // KILN_LIB_CONVERSION_KILNTOLINALG_LOWERINGUTILS_H
