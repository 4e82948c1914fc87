//===- AttentionRules.cpp - Backward rules of the attention ops -----------===//
//
// kiln.attention's adjoint is one composite kiln.attention_grad
// (docs/Attention.md, "Adjoint"). When the attention has its lse
// result (kiln-autodiff adds it to every attention it differentiates), the
// adjoint gets the forward's O and LSE and rebuilds the probabilities from
// them; otherwise it recomputes them from Q, K and the masks. The boolean
// mask, the lengths and the seed are inactive by type; an additive mask
// gets the op's d_mask result and the sinks its d_sinks result.
//
// kiln.attention_grad's own adjoint (second order) is not written out by
// hand: the rule expands the op into its primitive decomposition
// (kiln-decompose-attention) and differentiates that through the
// primitives' rules.
//
//===----------------------------------------------------------------------===//

#include "../AttentionDecomposition.h"
#include "Rules.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::autodiff;

static LogicalResult attentionRule(AttentionOp op, RuleContext &c) {
  // A cotangent of the lse result itself would add P[i, j] * dLSE[i] to the
  // logits' adjoint; kiln.attention_grad has no operand for it, and a
  // dropped contribution would be a silently wrong gradient.
  if (op.getLse() && c.grad(1))
    return op.emitError("cannot differentiate through the 'lse' result of "
                        "kiln.attention: only its first result 'O' may reach "
                        "the differentiated output (remat=save-all decomposes "
                        "attention first, and then differentiates through "
                        "its lse)");
  // ALiBi's slopes are constants of the model: their gradient
  // (-sum dT * |j - p(i)| per head) is not computed, and a dropped one would
  // be a silently wrong gradient.
  if (op.getAlibiSlopes() &&
      c.needs(op.getAlibiSlopesMutable()[0].getOperandNumber()))
    return op.emitError("cannot differentiate kiln.attention with respect to "
                        "'alibi_slopes': the slopes get no gradient (make them "
                        "a constant or an input that is not differentiated)");
  Value dout = c.grad();
  if (!dout)
    return success();
  Value mask = op.getMask();
  Type dmaskType = op.hasAdditiveMask() ? mask.getType() : Type();
  Value sinks = op.getSinks();
  Type dsinksType = sinks ? sinks.getType() : Type();
  // With the lse result (the pass adds it before the sweep), the adjoint
  // reads the forward's O and LSE instead of recomputing the row max and
  // sum.
  Value out = op.getLse() ? op.getResult() : Value();
  auto grad = AttentionGradOp::create(
      c.b, c.loc, op.getQuery().getType(), op.getKey().getType(),
      op.getValue().getType(), dmaskType, dsinksType, op.getQuery(),
      op.getKey(), op.getValue(), dout, mask, op.getKeyLengths(),
      op.getQueryLengths(), op.getSeed(), out, op.getLse(),
      op.getAlibiSlopes(), sinks, op.getCuSeqlensQ(), op.getCuSeqlensK(),
      op.getScaleAttr(), op.getCausalAttr(),
      op.getWindowLeftAttr(), op.getWindowRightAttr(), op.getAlignmentAttr(),
      op.getSoftcapAttr(), op.getDropoutPAttr());
  for (unsigned operand = 0; operand < 3; ++operand)
    if (c.needs(operand))
      c.set(operand, grad->getResult(operand));
  // The mask is operand 3 when present; only an additive one is active.
  if (op.hasAdditiveMask() && c.needs(3))
    c.set(3, grad.getDmask());
  if (sinks) {
    unsigned sinksOperand = op.getSinksMutable()[0].getOperandNumber();
    if (c.needs(sinksOperand))
      c.set(sinksOperand, grad.getDsinks());
  }
  return success();
}

static LogicalResult attentionGradRule(AttentionGradOp op, RuleContext &c) {
  // The decomposition is built at the rule's insertion point: the ops
  // between the one before it and it are exactly those just built.
  Block *block = c.b.getInsertionBlock();
  Block::iterator end = c.b.getInsertionPoint();
  Block::iterator begin =
      end == block->begin() ? block->end() : std::prev(end);
  SmallVector<Value> outputs = buildAttentionGradDecomposition(c.b, op);
  begin = begin == block->end() ? block->begin() : std::next(begin);
  SmallVector<Operation *> ops;
  for (Operation &built : llvm::make_range(begin, end))
    ops.push_back(&built);

  // The decomposition differentiated by the pass's own sweep.
  SmallVector<unsigned> neededOperands;
  SmallVector<Value> inputs;
  for (auto [i, operand] : llvm::enumerate(op->getOperands()))
    if (c.needs(i)) {
      neededOperands.push_back(i);
      inputs.push_back(operand);
    }
  FailureOr<SmallVector<Value>> adjoints =
      buildReverseSweep(c.b, ops, inputs, outputs, [&](unsigned output) {
        return c.resultAdjoints[output];
      });
  if (failed(adjoints))
    return failure();
  // The adjoints are per value: a value passed as two operands (q = k)
  // gets its whole adjoint once, at its first operand, as the pass sums the
  // operands' adjoints per value.
  llvm::DenseSet<Value> assigned;
  for (auto [i, operand, adjoint] :
       llvm::zip(neededOperands, inputs, *adjoints))
    if (assigned.insert(operand).second)
      c.set(i, adjoint);
  return success();
}

namespace {
/// kiln.attention: its rule, and how its forward is kept. Under save-all it
/// is expanded, so that its probabilities are forward values like any
/// other; otherwise it gets its `lse` result before the sweep, so that its
/// rule hands the forward's O and LSE to kiln.attention_grad
/// (FlashAttention-2's residuals) instead of recomputing each row's max and
/// sum, and loses it after the sweep where nothing read it (an attention
/// that was not differentiated).
struct AttentionModel
    : public AutodiffOpInterface::ExternalModel<AttentionModel, AttentionOp> {
  LogicalResult buildAdjoints(Operation *op, OpBuilder &builder,
                              ArrayRef<Value> resultAdjoints,
                              ArrayRef<bool> neededOperands,
                              SmallVectorImpl<Value> &operandAdjoints) const {
    return applyRule<AttentionOp, attentionRule>(
        op, builder, resultAdjoints, neededOperands, operandAdjoints);
  }
  SmallVector<Value> expandForSaveAll(Operation *op,
                                      OpBuilder &builder) const {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(op);
    return buildAttentionDecomposition(builder, cast<AttentionOp>(op));
  }
  Operation *addResiduals(Operation *op, OpBuilder &builder) const {
    auto attention = cast<AttentionOp>(op);
    if (attention.getLse())
      return nullptr;
    return attention.cloneWithLse(builder, /*withLse=*/true);
  }
  Operation *dropUnreadResiduals(Operation *op, OpBuilder &builder) const {
    auto attention = cast<AttentionOp>(op);
    if (!attention.getLse() || !attention.getLse().use_empty())
      return nullptr;
    return attention.cloneWithLse(builder, /*withLse=*/false);
  }
};

/// kiln.attention_grad: its rule; under save-all it is expanded like
/// kiln.attention.
struct AttentionGradModel
    : public AutodiffOpInterface::ExternalModel<AttentionGradModel,
                                                AttentionGradOp> {
  LogicalResult buildAdjoints(Operation *op, OpBuilder &builder,
                              ArrayRef<Value> resultAdjoints,
                              ArrayRef<bool> neededOperands,
                              SmallVectorImpl<Value> &operandAdjoints) const {
    return applyRule<AttentionGradOp, attentionGradRule>(
        op, builder, resultAdjoints, neededOperands, operandAdjoints);
  }
  SmallVector<Value> expandForSaveAll(Operation *op,
                                      OpBuilder &builder) const {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(op);
    return buildAttentionGradDecomposition(builder,
                                           cast<AttentionGradOp>(op));
  }
};
} // namespace

void mlir::kiln::autodiff::registerAttentionRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, KilnDialect *) {
    AttentionOp::attachInterface<AttentionModel>(*context);
    AttentionGradOp::attachInterface<AttentionGradModel>(*context);
  });
}
