//===- AttentionRules.cpp - Backward rules of the attention ops -----------===//
//
// kiln.attention's adjoint is one composite kiln.attention_grad
// (shared/design/attention.md, "Adjoint"). When the attention has its lse
// result (kiln-autodiff adds it to every attention it differentiates), the
// adjoint gets the forward's O and LSE and rebuilds the probabilities from
// them; otherwise it recomputes them from Q, K and the masks. The boolean
// mask, the lengths and the seed are inactive by type; an additive mask
// gets the op's d_mask result.
//
// kiln.attention_grad's own adjoint (second order) is not written out by
// hand: the rule expands the op into its primitive decomposition
// (kiln-decompose-attention) and differentiates that through the
// primitives' rules.
//
//===----------------------------------------------------------------------===//

#include "../AttentionDecomposition.h"
#include "Rules.h"

#include "llvm/ADT/DenseMap.h"
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
                        "the differentiated output");
  Value dout = c.grad();
  if (!dout)
    return success();
  Value mask = op.getMask();
  Type dmaskType = op.hasAdditiveMask() ? mask.getType() : Type();
  // With the lse result (the pass adds it before the sweep), the adjoint
  // reads the forward's O and LSE instead of recomputing the row max and
  // sum.
  Value out = op.getLse() ? op.getResult() : Value();
  auto grad = AttentionGradOp::create(
      c.b, c.loc, op.getQuery().getType(), op.getKey().getType(),
      op.getValue().getType(), dmaskType, op.getQuery(), op.getKey(),
      op.getValue(), dout, mask, op.getKeyLengths(), op.getQueryLengths(),
      op.getSeed(), out, op.getLse(), op.getScaleAttr(), op.getCausalAttr(),
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

static bool isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

/// The reverse sweep over `ops`, a straight-line graph just built by the
/// rule: seeds the adjoints of `outputs` with `outputAdjoints` (null is
/// zero), asks each active op's AutodiffOpInterface for its operands'
/// adjoints in reverse order, and returns the adjoint of each value of
/// `inputs` (null for zero). Activity is as in the pass: a value is active
/// when it depends on `inputs` and reaches an output with an adjoint.
static FailureOr<llvm::DenseMap<Value, Value>>
differentiateThrough(OpBuilder &builder, ArrayRef<Operation *> ops,
                     ArrayRef<Value> inputs, ArrayRef<Value> outputs,
                     ArrayRef<Value> outputAdjoints) {
  llvm::DenseSet<Value> varied(inputs.begin(), inputs.end()), useful;
  for (Operation *op : ops) {
    auto rule = dyn_cast<AutodiffOpInterface>(op);
    if ((rule && rule.isNonDifferentiable()) ||
        llvm::none_of(op->getOperands(),
                      [&](Value v) { return varied.contains(v); }))
      continue;
    for (Value result : op->getResults())
      if (isFloatTensor(result.getType()))
        varied.insert(result);
  }
  llvm::DenseMap<Value, Value> adjoints;
  for (auto [output, adjoint] : llvm::zip(outputs, outputAdjoints)) {
    if (!adjoint)
      continue;
    useful.insert(output);
    adjoints[output] = adjoint;
  }
  for (Operation *op : llvm::reverse(ops))
    if (llvm::any_of(op->getResults(),
                     [&](Value v) { return useful.contains(v); }))
      for (Value operand : op->getOperands())
        if (isFloatTensor(operand.getType()))
          useful.insert(operand);
  auto isActive = [&](Value v) {
    return varied.contains(v) && useful.contains(v);
  };

  for (Operation *op : llvm::reverse(ops)) {
    SmallVector<Value> resultAdjoints;
    for (Value result : op->getResults())
      resultAdjoints.push_back(isActive(result) ? adjoints.lookup(result)
                                                : Value());
    if (llvm::none_of(resultAdjoints, [](Value v) { return bool(v); }))
      continue;
    SmallVector<bool> needed;
    for (Value operand : op->getOperands())
      needed.push_back(isActive(operand));
    if (llvm::none_of(needed, [](bool b) { return b; }))
      continue;
    auto rule = dyn_cast<AutodiffOpInterface>(op);
    if (!rule)
      return op->emitError("'") << op->getName() << "' has no backward rule";
    SmallVector<Value> operandAdjoints;
    if (failed(rule.buildAdjoints(builder, resultAdjoints, needed,
                                  operandAdjoints)))
      return failure();
    for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
      Value adjoint = operandAdjoints[i];
      if (!needed[i] || !adjoint)
        continue;
      Value &slot = adjoints[operand];
      slot = slot ? AddOp::create(builder, op->getLoc(), slot, adjoint)
                  : adjoint;
    }
  }
  return adjoints;
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

  SmallVector<Value> inputs;
  for (auto [i, operand] : llvm::enumerate(op->getOperands()))
    if (c.needs(i))
      inputs.push_back(operand);
  FailureOr<llvm::DenseMap<Value, Value>> adjoints =
      differentiateThrough(c.b, ops, inputs, outputs, c.resultAdjoints);
  if (failed(adjoints))
    return failure();
  // The adjoints are per value: a value passed as two operands (q = k)
  // gets its whole adjoint once, at its first operand, as the pass sums the
  // operands' adjoints per value.
  llvm::DenseSet<Value> assigned;
  for (auto [i, operand] : llvm::enumerate(op->getOperands()))
    if (c.needs(i) && assigned.insert(operand).second)
      c.set(i, adjoints->lookup(operand));
  return success();
}

void mlir::kiln::autodiff::registerAttentionRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, KilnDialect *) {
    AttentionOp::attachInterface<RuleModel<AttentionOp, attentionRule>>(
        *context);
    AttentionGradOp::attachInterface<
        RuleModel<AttentionGradOp, attentionGradRule>>(*context);
  });
}
