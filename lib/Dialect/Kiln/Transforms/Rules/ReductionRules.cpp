//===- ReductionRules.cpp - Backward rules of reductions and matmul -------===//

#include "Rules.h"

#include "mlir/IR/DialectRegistry.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::autodiff;

/// The number of elements each result element of a reduction over `axes`
/// reduces.
static int64_t reducedCount(RankedTensorType type, ArrayRef<int64_t> axes) {
  int64_t n = 1;
  for (int64_t axis : axes)
    n *= type.getDimSize(axis);
  return n;
}

/// The adjoint of a reduction's result in the keep-dims shape, broadcast to
/// the input's type.
template <typename OpT>
static Value broadcastBack(OpT op, RuleContext &c, Value value) {
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  Value kept = reshapeToKeepDims(c.b, c.loc, value, inputType, op.getAxes());
  if (kept.getType() == inputType)
    return kept;
  return BroadcastToOp::create(c.b, c.loc, inputType, kept);
}

static LogicalResult sumRule(SumOp op, RuleContext &c) {
  c.set(0, broadcastBack(op, c, c.grad()));
  return success();
}

static LogicalResult meanRule(MeanOp op, RuleContext &c) {
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  int64_t n = reducedCount(inputType, op.getAxes());
  Value g = scale(c.b, c.loc, c.grad(), n == 0 ? 0.0 : 1.0 / double(n));
  c.set(0, broadcastBack(op, c, g));
  return success();
}

/// amax/amin as PyTorch: the adjoint is split evenly between the elements
/// equal to the extremum.
template <typename OpT>
static LogicalResult extremumReductionRule(OpT op, RuleContext &c) {
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  Value x = op.getInput();
  Value y =
      reshapeToKeepDims(c.b, c.loc, op.getResult(), inputType, op.getAxes());
  Value g = reshapeToKeepDims(c.b, c.loc, c.grad(), inputType, op.getAxes());
  Value isExtremum = EqOp::create(c.b, c.loc, x, y);
  Value mask = boolToFloat(c.b, c.loc, isExtremum, inputType.getElementType());
  Value share =
      divideByCount(c.b, c.loc, g, isExtremum, op.getAxes(), /*keepDims=*/true);
  c.set(0, mul(c.b, c.loc, mask, share));
  return success();
}

static LogicalResult maxRule(MaxOp op, RuleContext &c) {
  return extremumReductionRule(op, c);
}
static LogicalResult minRule(MinOp op, RuleContext &c) {
  return extremumReductionRule(op, c);
}

static LogicalResult varianceRule(VarianceOp op, RuleContext &c) {
  // 2 (x - mean) / max(0, N - correction), times the adjoint: the forward's
  // divisor. With a positive divisor the factor 2 / divisor is applied to
  // the adjoint as one constant (in f32 for half types, where the divisor
  // itself may not be representable: 70000 is +inf in f16); with a zero
  // divisor the division by 0 gives the forward's inf and NaN.
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  Value x = op.getInput();
  int64_t n = reducedCount(inputType, op.getAxes());
  double divisor = std::max(0.0, double(n) - double(op.getCorrection()));
  Value mean = MeanOp::create(c.b, c.loc, x, op.getAxes(), true);
  Value g = reshapeToKeepDims(c.b, c.loc, c.grad(), inputType, op.getAxes());
  Value centered = sub(c.b, c.loc, x, mean);
  if (divisor > 0.0) {
    c.set(0, mul(c.b, c.loc, scale(c.b, c.loc, g, 2.0 / divisor), centered));
    return success();
  }
  c.set(0, div(c.b, c.loc, scale(c.b, c.loc, mul(c.b, c.loc, g, centered), 2.0),
               c.scalar(inputType.getElementType(), 0.0)));
  return success();
}

static LogicalResult softmaxRule(SoftmaxOp op, RuleContext &c) {
  // y (g - sum(g y))
  Value y = op.getResult();
  int64_t axis = op.getAxis();
  Value dot = SumOp::create(c.b, c.loc, mul(c.b, c.loc, c.grad(), y),
                            ArrayRef<int64_t>{axis}, true);
  c.set(0, mul(c.b, c.loc, y, sub(c.b, c.loc, c.grad(), dot)));
  return success();
}

static LogicalResult logSoftmaxRule(LogSoftmaxOp op, RuleContext &c) {
  // g - exp(y) sum(g)
  int64_t axis = op.getAxis();
  Value total =
      SumOp::create(c.b, c.loc, c.grad(), ArrayRef<int64_t>{axis}, true);
  Value p = ExpOp::create(c.b, c.loc, op.getResult());
  c.set(0, sub(c.b, c.loc, c.grad(), mul(c.b, c.loc, p, total)));
  return success();
}

static LogicalResult cumsumRule(CumsumOp op, RuleContext &c) {
  // Each input feeds the outputs at and after it along the axis (before it
  // when reversed): the adjoint is the cumulative sum of g the other way.
  c.set(0,
        CumsumOp::create(c.b, c.loc, c.grad(), op.getAxis(), !op.getReverse()));
  return success();
}

static Value swapLastTwo(RuleContext &c, Value value) {
  int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
  return TransposeOp::create(c.b, c.loc, value, uint64_t(rank - 2),
                             uint64_t(rank - 1));
}

static LogicalResult matmulRule(MatmulOp op, RuleContext &c) {
  // Promote rank-1 operands to matrices as the forward does, so that
  // dA = g B^T and dB = A^T g, each reduced over the broadcast batch dims.
  Value lhs = op.getLhs(), rhs = op.getRhs();
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  Value a = lhs, bm = rhs;
  if (lhsType.getRank() == 1)
    a = reshapeTo(c.b, c.loc, lhs, {1, lhsType.getDimSize(0)});
  if (rhsType.getRank() == 1)
    bm = reshapeTo(c.b, c.loc, rhs, {rhsType.getDimSize(0), 1});
  auto gType = cast<RankedTensorType>(c.grad().getType());
  SmallVector<int64_t> full(gType.getShape());
  if (lhsType.getRank() == 1)
    full.insert(full.end() - (rhsType.getRank() == 1 ? 0 : 1), 1);
  if (rhsType.getRank() == 1)
    full.push_back(1);
  Value g = reshapeTo(c.b, c.loc, c.grad(), full);
  if (c.needs(0)) {
    Value d = MatmulOp::create(c.b, c.loc, g, swapLastTwo(c, bm));
    d = reduceToType(c.b, c.loc, d, a.getType());
    c.set(0, reshapeTo(c.b, c.loc, d, lhsType.getShape()));
  }
  if (c.needs(1)) {
    Value d = MatmulOp::create(c.b, c.loc, swapLastTwo(c, a), g);
    d = reduceToType(c.b, c.loc, d, bm.getType());
    c.set(1, reshapeTo(c.b, c.loc, d, rhsType.getShape()));
  }
  return success();
}

void mlir::kiln::autodiff::registerReductionRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, KilnDialect *) {
    SumOp::attachInterface<RuleModel<SumOp, sumRule>>(*context);
    MeanOp::attachInterface<RuleModel<MeanOp, meanRule>>(*context);
    MaxOp::attachInterface<RuleModel<MaxOp, maxRule>>(*context);
    MinOp::attachInterface<RuleModel<MinOp, minRule>>(*context);
    VarianceOp::attachInterface<RuleModel<VarianceOp, varianceRule>>(*context);
    SoftmaxOp::attachInterface<RuleModel<SoftmaxOp, softmaxRule>>(*context);
    LogSoftmaxOp::attachInterface<RuleModel<LogSoftmaxOp, logSoftmaxRule>>(
        *context);
    CumsumOp::attachInterface<RuleModel<CumsumOp, cumsumRule>>(*context);
    MatmulOp::attachInterface<RuleModel<MatmulOp, matmulRule>>(*context);
    attachNonDifferentiable<ArgmaxOp>(context);
  });
}
