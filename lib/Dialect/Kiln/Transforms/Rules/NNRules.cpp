//===- NNRules.cpp - Backward rules of the training-helper ops ------------===//

#include "Rules.h"

#include "mlir/IR/DialectRegistry.h"

#include <limits>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::autodiff;

static LogicalResult dropoutRule(DropoutOp op, RuleContext &c) {
  // dropout(x) = x * mask / (1 - p) is linear in x with a mask that depends
  // only on (seed, position): the adjoint is dropout of the adjoint with the
  // same seed and p, which redraws the same mask.
  c.set(0,
        DropoutOp::create(c.b, c.loc, c.grad(), op.getSeed(), op.getPAttr()));
  return success();
}

static LogicalResult crossEntropyRule(CrossEntropyOp op, RuleContext &c) {
  // (softmax(x) - onehot(label)) * (valid ? factor : 0), where valid masks
  // the ignored samples and factor is the per-sample adjoint (none), the
  // adjoint (sum) or the adjoint over the number of valid samples (mean).
  // The select, not a product with valid, gives an ignored sample exactly
  // 0 as PyTorch does even where factor is not finite: with every sample
  // ignored, mean's factor is g / 0 (the forward's loss is NaN).
  // Labels are compared as i64, as the forward lowering compares them: an
  // ignore_index the label type cannot hold then matches no label, instead
  // of matching the label it truncates to. A sample whose label is neither
  // ignored nor in [0, C) has a NaN loss in the forward, and gets a NaN
  // adjoint row here rather than a finite one that would hide it.
  Value logits = op.getLogits(), labels = op.getLabels();
  auto logitsType = cast<RankedTensorType>(logits.getType());
  Type et = logitsType.getElementType();
  Type i64 = c.b.getI64Type();
  int64_t n = logitsType.getDimSize(0), numClasses = logitsType.getDimSize(1);
  if (!getElementType(labels).isInteger(64))
    labels = ConvertOp::create(c.b, c.loc, labels, i64);
  Value p = SoftmaxOp::create(c.b, c.loc, logits, uint64_t(1));
  Value column = reshapeTo(c.b, c.loc, labels, {n, 1});
  Value iota = IotaOp::create(c.b, c.loc, logitsType.clone(i64), uint64_t(1));
  Value oneHot =
      boolToFloat(c.b, c.loc, EqOp::create(c.b, c.loc, iota, column), et);
  Value isValid = NeOp::create(
      c.b, c.loc, labels, c.intScalar(i64, op.getIgnoreIndexAttr().getInt()));
  // i1 add is a logical or. (Ignored samples are masked below.)
  Value outOfRange =
      add(c.b, c.loc, LtOp::create(c.b, c.loc, labels, c.intScalar(i64, 0)),
          GeOp::create(c.b, c.loc, labels, c.intScalar(i64, numClasses)));
  Value poisoned =
      SelectOp::create(c.b, c.loc, outOfRange,
                       c.scalar(et, std::numeric_limits<double>::quiet_NaN()),
                       c.scalar(et, 0.0));
  Value g = c.grad(), factor;
  switch (op.getReduction()) {
  case LossReduction::none:
    factor = reshapeTo(c.b, c.loc, g, {n, 1});
    break;
  case LossReduction::sum:
    factor = g;
    break;
  case LossReduction::mean:
    factor = divideByCount(c.b, c.loc, g, isValid, ArrayRef<int64_t>{0},
                           /*keepDims=*/false);
    break;
  }
  Value weight = maskOrZero(
      c.b, c.loc, reshapeTo(c.b, c.loc, isValid, {n, 1}),
      add(c.b, c.loc, reshapeTo(c.b, c.loc, poisoned, {n, 1}), factor));
  c.set(0, mul(c.b, c.loc, sub(c.b, c.loc, p, oneHot), weight));
  return success();
}

/// The trailing `rank` axes of a tensor of rank `total`.
static SmallVector<int64_t> trailingAxes(int64_t total, int64_t rank) {
  SmallVector<int64_t> axes;
  for (int64_t i = total - rank; i < total; ++i)
    axes.push_back(i);
  return axes;
}

/// layer_norm and rms_norm recompute their statistics and compute their
/// adjoints in f32 for f16/bf16 operands, as the forward lowering and
/// PyTorch's fused kernels do, rounding each operand adjoint once: in f16,
/// (x - mean)^2 overflows for |x - mean| > 256 (rstd = 0, so dx = 0), and in
/// bf16 the mean is rounded before x - mean.
static LogicalResult layerNormRule(LayerNormOp op, RuleContext &c) {
  Value x = c.widen(op.getInput());
  Value weight = op.getWeight() ? c.widen(op.getWeight()) : Value();
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> axes =
      trailingAxes(type.getRank(), op.getNormalizedRank());
  double epsilon = op.getEpsilonAttr().getValueAsDouble();
  unsigned weightIndex = 1, biasIndex = weight ? 2 : 1;
  Value mean = MeanOp::create(c.b, c.loc, x, axes, true);
  Value centered = sub(c.b, c.loc, x, mean);
  Value variance = MeanOp::create(
      c.b, c.loc, mul(c.b, c.loc, centered, centered), axes, true);
  Value rstd =
      RsqrtOp::create(c.b, c.loc, addScalar(c.b, c.loc, variance, epsilon));
  Value xhat = mul(c.b, c.loc, centered, rstd);
  Value g = c.widen(c.grad());
  if (weight && c.needs(weightIndex))
    c.setReduced(weightIndex, mul(c.b, c.loc, g, xhat), op.getWeight());
  if (op.getBias() && c.needs(biasIndex))
    c.setReduced(biasIndex, g, op.getBias());
  if (c.needs(0)) {
    Value gh = weight ? mul(c.b, c.loc, g, weight) : g;
    Value meanG = MeanOp::create(c.b, c.loc, gh, axes, true);
    Value meanGX =
        MeanOp::create(c.b, c.loc, mul(c.b, c.loc, gh, xhat), axes, true);
    Value inner = sub(c.b, c.loc, sub(c.b, c.loc, gh, meanG),
                      mul(c.b, c.loc, xhat, meanGX));
    c.setReduced(0, mul(c.b, c.loc, rstd, inner), op.getInput());
  }
  return success();
}

static LogicalResult rmsNormRule(RmsNormOp op, RuleContext &c) {
  Value x = c.widen(op.getInput());
  Value weight = op.getWeight() ? c.widen(op.getWeight()) : Value();
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> axes =
      trailingAxes(type.getRank(), op.getNormalizedRank());
  double epsilon = op.getEpsilonAttr().getValueAsDouble();
  Value meanSquare =
      MeanOp::create(c.b, c.loc, mul(c.b, c.loc, x, x), axes, true);
  Value r =
      RsqrtOp::create(c.b, c.loc, addScalar(c.b, c.loc, meanSquare, epsilon));
  Value xhat = mul(c.b, c.loc, x, r);
  Value g = c.widen(c.grad());
  if (weight && c.needs(1))
    c.setReduced(1, mul(c.b, c.loc, g, xhat), op.getWeight());
  if (c.needs(0)) {
    Value gh = weight ? mul(c.b, c.loc, g, weight) : g;
    Value meanGX =
        MeanOp::create(c.b, c.loc, mul(c.b, c.loc, gh, xhat), axes, true);
    c.setReduced(
        0,
        mul(c.b, c.loc, r, sub(c.b, c.loc, gh, mul(c.b, c.loc, xhat, meanGX))),
        op.getInput());
  }
  return success();
}

void mlir::kiln::autodiff::registerNNRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, KilnDialect *) {
    DropoutOp::attachInterface<RuleModel<DropoutOp, dropoutRule>>(*context);
    CrossEntropyOp::attachInterface<
        RuleModel<CrossEntropyOp, crossEntropyRule>>(*context);
    LayerNormOp::attachInterface<RuleModel<LayerNormOp, layerNormRule>>(
        *context);
    RmsNormOp::attachInterface<RuleModel<RmsNormOp, rmsNormRule>>(*context);
  });
}
