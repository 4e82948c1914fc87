//===- Rules.h - Shared machinery of the backward rules ---------*- C++ -*-===//
//
// Private to lib/Dialect/Kiln/Transforms. Each Rules/<Family>Rules.cpp writes
// one function per op, `LogicalResult rule(FooOp, RuleContext &)`, and
// attaches it with `FooOp::attachInterface<RuleModel<FooOp, rule>>`.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_DIALECT_KILN_TRANSFORMS_RULES_RULES_H
#define KILN_LIB_DIALECT_KILN_TRANSFORMS_RULES_RULES_H

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/Autodiff.h"

namespace mlir::kiln::autodiff {

/// What one rule invocation reads and writes.
struct RuleContext {
  OpBuilder &b;
  Location loc;
  /// One per result; null is a symbolic zero.
  ArrayRef<Value> resultAdjoints;
  /// One per operand: whether its adjoint is wanted.
  ArrayRef<bool> neededOperands;
  /// One per operand, preset to null.
  SmallVectorImpl<Value> &operandAdjoints;

  Value grad(unsigned result = 0) const { return resultAdjoints[result]; }
  bool needs(unsigned operand) const { return neededOperands[operand]; }
  /// Sets the adjoint of `operand` to `adjoint` reduced to `target`'s shape,
  /// then converted to its element type: a rule that computes in f32 for a
  /// half type (getComputeType) sums in f32 and rounds once, here.
  void setReduced(unsigned operand, Value adjoint, Value target) {
    auto targetType = cast<RankedTensorType>(target.getType());
    Value reduced = reduceToType(b, loc, adjoint,
                                 targetType.clone(getElementType(adjoint)));
    operandAdjoints[operand] =
        convertTo(b, loc, reduced, targetType.getElementType());
  }
  /// `value` in the type this rule computes in (getComputeType): converted
  /// to f32 if it is f16 or bf16.
  Value widen(Value value) {
    return convertTo(b, loc, value, getComputeType(getElementType(value)));
  }
  void set(unsigned operand, Value adjoint) {
    operandAdjoints[operand] = adjoint;
  }
  Value scalar(Type elementType, double value) {
    return createScalar(b, loc, elementType, value);
  }
  /// A rank-0 integer constant (exact for every int64_t).
  Value intScalar(Type elementType, int64_t value) {
    auto type = RankedTensorType::get({}, elementType);
    return ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(type, IntegerAttr::get(elementType, value)));
  }
};

/// Calls `Rule` on `op` as AutodiffOpInterface::buildAdjoints does.
template <typename OpT, LogicalResult (*Rule)(OpT, RuleContext &)>
LogicalResult applyRule(Operation *op, OpBuilder &builder,
                        ArrayRef<Value> resultAdjoints,
                        ArrayRef<bool> neededOperands,
                        SmallVectorImpl<Value> &operandAdjoints) {
  operandAdjoints.assign(op->getNumOperands(), Value());
  RuleContext context{builder, op->getLoc(), resultAdjoints, neededOperands,
                      operandAdjoints};
  return Rule(cast<OpT>(op), context);
}

/// Attaches `Rule` to `OpT` as its AutodiffOpInterface.
template <typename OpT, LogicalResult (*Rule)(OpT, RuleContext &)>
struct RuleModel
    : public AutodiffOpInterface::ExternalModel<RuleModel<OpT, Rule>, OpT> {
  LogicalResult buildAdjoints(Operation *op, OpBuilder &builder,
                              ArrayRef<Value> resultAdjoints,
                              ArrayRef<bool> neededOperands,
                              SmallVectorImpl<Value> &operandAdjoints) const {
    return applyRule<OpT, Rule>(op, builder, resultAdjoints, neededOperands,
                                operandAdjoints);
  }
};

/// Declares an op non-differentiable: its results are never active.
template <typename OpT>
struct NonDifferentiableModel
    : public AutodiffOpInterface::ExternalModel<NonDifferentiableModel<OpT>,
                                                OpT> {
  LogicalResult buildAdjoints(Operation *op, OpBuilder &, ArrayRef<Value>,
                              ArrayRef<bool>,
                              SmallVectorImpl<Value> &operandAdjoints) const {
    operandAdjoints.assign(op->getNumOperands(), Value());
    return success();
  }
  static bool isNonDifferentiable() { return true; }
};

template <typename... OpTs> void attachNonDifferentiable(MLIRContext *context) {
  (OpTs::template attachInterface<NonDifferentiableModel<OpTs>>(*context), ...);
}

/// The reverse sweep of kiln-autodiff (Autodiff.cpp) over `ops`, straight
/// -line ops in program order: seeds each active value of `outputs` with
/// `getSeed(index)` (null: no cotangent; an output listed twice gets the sum),
/// asks each active op's AutodiffOpInterface for its operands' adjoints in
/// reverse order, summing fan-out, and returns the adjoint of each value of
/// `inputs` (null for zero). A value is active when it depends on an input
/// and reaches an output. Fails, with an error at the op, when an op has no
/// rule or its rule fails or returns adjoints of the wrong number or type.
FailureOr<SmallVector<Value>>
buildReverseSweep(OpBuilder &builder, ArrayRef<Operation *> ops,
                  ArrayRef<Value> inputs, ArrayRef<Value> outputs,
                  function_ref<Value(unsigned)> getSeed);

void registerElementwiseRules(DialectRegistry &registry);
void registerTensorRules(DialectRegistry &registry);
void registerReductionRules(DialectRegistry &registry);
void registerNNRules(DialectRegistry &registry);
void registerAttentionRules(DialectRegistry &registry);
void registerConvRules(DialectRegistry &registry);

} // namespace mlir::kiln::autodiff

#endif // KILN_LIB_DIALECT_KILN_TRANSFORMS_RULES_RULES_H
