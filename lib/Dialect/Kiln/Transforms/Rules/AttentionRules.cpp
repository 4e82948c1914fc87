//===- AttentionRules.cpp - Backward rule of kiln.attention ---------------===//
//
// kiln.attention's adjoint is one composite kiln.attention_grad that
// recomputes the probabilities from Q, K and the masks (shared/design/
// attention.md, "Adjoint"). The boolean mask, the lengths and the seed are
// inactive by type; an additive mask gets the op's d_mask result.
//
//===----------------------------------------------------------------------===//

#include "Rules.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::autodiff;

static LogicalResult attentionRule(AttentionOp op, RuleContext &c) {
  Value dout = c.grad();
  if (!dout)
    return success();
  Value mask = op.getMask();
  Type dmaskType = op.hasAdditiveMask() ? mask.getType() : Type();
  auto grad = AttentionGradOp::create(
      c.b, c.loc, op.getQuery().getType(), op.getKey().getType(),
      op.getValue().getType(), dmaskType, op.getQuery(), op.getKey(),
      op.getValue(), dout, mask, op.getKeyLengths(), op.getQueryLengths(),
      op.getSeed(), op.getScaleAttr(), op.getCausalAttr(),
      op.getWindowLeftAttr(), op.getWindowRightAttr(), op.getAlignmentAttr(),
      op.getSoftcapAttr(), op.getDropoutPAttr());
  for (unsigned operand = 0; operand < 3; ++operand)
    if (c.needs(operand))
      c.set(operand, grad->getResult(operand));
  // The mask is operand 3 when present; only an additive one is active.
  if (op.hasAdditiveMask() && c.needs(3))
    c.set(3, grad.getDmask());
  return success();
}

void mlir::kiln::autodiff::registerAttentionRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, KilnDialect *) {
    AttentionOp::attachInterface<RuleModel<AttentionOp, attentionRule>>(
        *context);
  });
}
