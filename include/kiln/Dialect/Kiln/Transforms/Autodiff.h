//===- Autodiff.h - Reverse-mode automatic differentiation -----*- C++ -*-===//
//
// The C++ entry points of `kiln-autodiff` and the helpers backward rules are
// written with. Rules implement AutodiffOpInterface (KilnInterfaces.td) as
// external models, one file per op family under
// lib/Dialect/Kiln/Transforms/Rules/; registerAutodiffExternalModels attaches
// them all. See docs/Autodiff.md.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_TRANSFORMS_AUTODIFF_H
#define KILN_DIALECT_KILN_TRANSFORMS_AUTODIFF_H

#include "kiln/Dialect/Kiln/IR/KilnInterfaces.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::kiln {

/// Attaches the backward rules of every kiln op family that has them.
void registerAutodiffExternalModels(DialectRegistry &registry);

/// The form of the generated gradient code (`kiln-autodiff`'s `mode`).
enum class AutodiffMode {
  /// One function returning the value and the gradients.
  Combined,
  /// A forward function returning the outputs and the residuals, and a
  /// backward function taking the residuals and the output cotangents.
  Split,
};

/// What the backward reads from the forward and what it recomputes
/// (`kiln-autodiff`'s `remat`). See docs/Autodiff.md, "Rematerialization".
enum class RematPolicy {
  /// Nothing is recomputed: every `kiln.attention` is first expanded into
  /// primitive ops (decomposeAttentionOps), so its probabilities are saved.
  SaveAll,
  /// Attention stays fused; `kiln.attention_grad` recomputes the
  /// probabilities from Q, K and V.
  RecomputeAttention,
  /// As RecomputeAttention, and the ops isCheapToRecompute accepts are
  /// recomputed in the backward where that shrinks the residual bytes.
  RecomputeElementwise,
};

/// Options shared by the combined and the split form.
struct GradientGraphOptions {
  RematPolicy remat = RematPolicy::RecomputeAttention;
  /// Emits one remark per residual at the op (or argument) that defines it,
  /// with its type and byte size, and a remark with the total at the
  /// differentiated function.
  bool printResiduals = false;
};

/// Generates, at the end of `module`, a function
/// `@<function>_value_and_grad` (made unique if taken) that takes the
/// arguments of `function` and returns its value followed by its gradient
/// with respect to each argument in `wrt`. Errors are emitted at the op or
/// function they concern; on failure nothing is added to the module.
FailureOr<func::FuncOp>
generateValueAndGrad(ModuleOp module, func::FuncOp function,
                     ArrayRef<int64_t> wrt,
                     const GradientGraphOptions &options = {});

/// The two functions of the split form.
struct SplitForwardBackward {
  /// `@<function>_forward(args...) -> (outputs..., residuals...)`.
  func::FuncOp forward;
  /// `@<function>_backward(residuals..., output cotangents...) ->
  /// (gradients...)`, one gradient per `wrt` entry.
  func::FuncOp backward;
};

/// Generates, at the end of `module`, the split form of the gradient of
/// `function` with respect to the arguments `wrt`: the residuals are exactly
/// the forward values (arguments included) the backward reads, so the
/// backward is self-contained. `function` may return several floating-point
/// tensors of any rank; each gets a cotangent argument. The results and
/// arguments carry `kiln.output`, `kiln.residual`, `kiln.cotangent` and
/// `kiln.gradient` attributes (the index of the output, residual, output and
/// argument of `function` they stand for). On failure nothing is added.
FailureOr<SplitForwardBackward>
generateSplitForwardBackward(ModuleOp module, func::FuncOp function,
                             ArrayRef<int64_t> wrt,
                             const GradientGraphOptions &options = {});

namespace autodiff {

/// A rank-0 tensor constant of `elementType` holding `value`.
Value createScalar(OpBuilder &b, Location loc, Type elementType, double value);

/// A constant tensor of `type` (a ranked float tensor) filled with `value`.
Value createSplat(OpBuilder &b, Location loc, Type type, double value);

/// Reduces `grad` (of a shape `target` broadcasts to) back to the type
/// `target`: sums over the leading dims `target` lacks and over the dims
/// where `target` has size 1, then reshapes. Returns `grad` when the types
/// already match.
Value reduceToType(OpBuilder &b, Location loc, Value grad, Type target);

/// Reshapes `value`, the result of reducing a tensor of `inputType` over
/// `axes` without keeping dims, to the keep-dims shape (reduced dims of
/// size 1). Returns `value` when it already has that shape.
Value reshapeToKeepDims(OpBuilder &b, Location loc, Value value,
                        RankedTensorType inputType, ArrayRef<int64_t> axes);

/// Reshapes `value` to `shape`, keeping its element type (no-op when equal).
Value reshapeTo(OpBuilder &b, Location loc, Value value,
                ArrayRef<int64_t> shape);

/// `lhs op rhs` with broadcasting; thin wrappers over the kiln ops.
Value add(OpBuilder &b, Location loc, Value lhs, Value rhs);
Value sub(OpBuilder &b, Location loc, Value lhs, Value rhs);
Value mul(OpBuilder &b, Location loc, Value lhs, Value rhs);
Value div(OpBuilder &b, Location loc, Value lhs, Value rhs);
/// `value * scalar`, with `scalar` a constant of `value`'s element type.
/// For f16/bf16 values and a `scalar` those types cannot hold exactly (say
/// 1 / N), the product is computed in f32 and rounded once: an f16 constant
/// would round `scalar` first, or underflow or overflow.
Value scale(OpBuilder &b, Location loc, Value value, double scalar);
/// `value / count`, where `count` is the number of true entries of `mask`
/// (i1) over `axes` (kept as size-1 dims when `keepDims`), which `value`
/// broadcasts against. The count is taken in i64 and the division done in
/// f32 for f16/bf16 values: a half-type count overflows past 65504 (and
/// the quotient would then be 0).
Value divideByCount(OpBuilder &b, Location loc, Value value, Value mask,
                    ArrayRef<int64_t> axes, bool keepDims);
/// Rules compute in kiln::getComputeType (KilnOps.h) of their operands'
/// element type: f32 for f16 and bf16 (PyTorch's opmath type, which its fused
/// backward kernels and Kiln's forward lowerings use).
using ::mlir::kiln::getComputeType;
/// `value` converted to element type `elementType` (itself if it has it).
Value convertTo(OpBuilder &b, Location loc, Value value, Type elementType);
/// `value + scalar`.
Value addScalar(OpBuilder &b, Location loc, Value value, double scalar);
/// `cond ? value : 0`, broadcast to their common shape.
Value maskOrZero(OpBuilder &b, Location loc, Value cond, Value value);
/// `cond` (i1) converted to `value`'s element type.
Value boolToFloat(OpBuilder &b, Location loc, Value cond, Type elementType);

/// The element type of a ranked tensor value.
Type getElementType(Value value);

/// Returns true for the ops `remat=recompute-elementwise` may recompute in
/// the backward instead of saving their result: the single-result
/// elementwise ops (arithmetic, comparisons, select, unary functions,
/// convert) and the layout ops (broadcast_to, reshape, flatten, squeeze,
/// unsqueeze, transpose, permute). All are pure and cost one pass over
/// their data, less than storing and reloading it. The ops say so
/// themselves: the Kiln_CheapToRecompute trait in their ODS definition.
bool isCheapToRecompute(Operation *op);

/// The bytes a value of `type`, a statically shaped tensor, occupies: its
/// element count times its element size rounded up to whole bytes (i1 takes
/// one byte, as in the CPU backend's buffers).
int64_t getSizeInBytes(Type type);

} // namespace autodiff
} // namespace mlir::kiln

#endif // KILN_DIALECT_KILN_TRANSFORMS_AUTODIFF_H
