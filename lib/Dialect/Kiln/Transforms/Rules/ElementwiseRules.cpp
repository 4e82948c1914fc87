//===- ElementwiseRules.cpp - Backward rules of the elementwise ops -------===//
//
// Binary ops reduce their adjoints back to each operand's shape (the forward
// broadcast is undone by a sum). Ties and kinks follow PyTorch's
// derivatives.yaml; see docs/Autodiff.md.
//
//===----------------------------------------------------------------------===//

#include "Rules.h"

#include "mlir/IR/DialectRegistry.h"

#include <cmath>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::autodiff;

//===----------------------------------------------------------------------===//
// Binary arithmetic
//===----------------------------------------------------------------------===//

static LogicalResult addRule(AddOp op, RuleContext &c) {
  if (c.needs(0))
    c.setReduced(0, c.grad(), op.getLhs());
  if (c.needs(1))
    c.setReduced(1, c.grad(), op.getRhs());
  return success();
}

static LogicalResult subRule(SubOp op, RuleContext &c) {
  if (c.needs(0))
    c.setReduced(0, c.grad(), op.getLhs());
  if (c.needs(1))
    c.setReduced(1, NegOp::create(c.b, c.loc, c.grad()), op.getRhs());
  return success();
}

static LogicalResult mulRule(MulOp op, RuleContext &c) {
  if (c.needs(0))
    c.setReduced(0, mul(c.b, c.loc, c.grad(), op.getRhs()), op.getLhs());
  if (c.needs(1))
    c.setReduced(1, mul(c.b, c.loc, c.grad(), op.getLhs()), op.getRhs());
  return success();
}

static LogicalResult divRule(DivOp op, RuleContext &c) {
  // d(a/b)/da = 1/b; d(a/b)/db = -(a/b)/b.
  if (c.needs(0))
    c.setReduced(0, div(c.b, c.loc, c.grad(), op.getRhs()), op.getLhs());
  if (c.needs(1)) {
    Value t =
        div(c.b, c.loc, mul(c.b, c.loc, c.grad(), op.getResult()), op.getRhs());
    c.setReduced(1, NegOp::create(c.b, c.loc, t), op.getRhs());
  }
  return success();
}

static LogicalResult powRule(PowOp op, RuleContext &c) {
  // The branch a select discards is evaluated on a safe value (exponent 1,
  // base 1), not on the one that gives inf: differentiating the rule again
  // multiplies the discarded branch's zero adjoint by its factors, and
  // 0 * inf would be NaN.
  Type et = getElementType(op.getResult());
  Value zero = c.scalar(et, 0.0), one = c.scalar(et, 1.0);
  if (c.needs(0)) {
    // PyTorch: 0 where the exponent is 0, else g * b * a^(b-1).
    Value isZero = EqOp::create(c.b, c.loc, op.getRhs(), zero);
    Value b = SelectOp::create(c.b, c.loc, isZero, one, op.getRhs());
    Value bm1 = addScalar(c.b, c.loc, b, -1.0);
    Value d =
        mul(c.b, c.loc, c.grad(),
            mul(c.b, c.loc, b, PowOp::create(c.b, c.loc, op.getLhs(), bm1)));
    d = SelectOp::create(c.b, c.loc, isZero, zero, d);
    c.setReduced(0, d, op.getLhs());
  }
  if (c.needs(1)) {
    // PyTorch: 0 where a == 0 and b >= 0, else g * a^b * log(a).
    Value baseZero = EqOp::create(c.b, c.loc, op.getLhs(), zero);
    Value expNonNeg = GeOp::create(c.b, c.loc, op.getRhs(), zero);
    Value both = MulOp::create(c.b, c.loc, baseZero, expNonNeg);
    Value a = SelectOp::create(c.b, c.loc, both, one, op.getLhs());
    Value d =
        mul(c.b, c.loc, c.grad(),
            mul(c.b, c.loc, op.getResult(), LogOp::create(c.b, c.loc, a)));
    d = SelectOp::create(c.b, c.loc, both, zero, d);
    c.setReduced(1, d, op.getRhs());
  }
  return success();
}

/// maximum/minimum as torch.maximum/minimum (derivatives.yaml): on a tie
/// each operand gets half of the adjoint, otherwise an operand gets all of
/// it unless it loses. A NaN operand neither ties nor loses, so both
/// operands get the adjoint there.
template <typename OpT, typename LosesOpT>
static LogicalResult extremumRule(OpT op, RuleContext &c) {
  Value lhs = op.getLhs(), rhs = op.getRhs();
  Value zero = c.scalar(getElementType(c.grad()), 0.0);
  Value half = scale(c.b, c.loc, c.grad(), 0.5);
  Value tie = EqOp::create(c.b, c.loc, lhs, rhs);
  auto adjoint = [&](Value self, Value other) -> Value {
    Value loses = LosesOpT::create(c.b, c.loc, self, other);
    return SelectOp::create(
        c.b, c.loc, tie, half,
        SelectOp::create(c.b, c.loc, loses, zero, c.grad()));
  };
  if (c.needs(0))
    c.setReduced(0, adjoint(lhs, rhs), lhs);
  if (c.needs(1))
    c.setReduced(1, adjoint(rhs, lhs), rhs);
  return success();
}

static LogicalResult maximumRule(MaximumOp op, RuleContext &c) {
  return extremumRule<MaximumOp, LtOp>(op, c);
}
static LogicalResult minimumRule(MinimumOp op, RuleContext &c) {
  return extremumRule<MinimumOp, GtOp>(op, c);
}

static LogicalResult selectRule(SelectOp op, RuleContext &c) {
  Value zero = c.scalar(getElementType(c.grad()), 0.0);
  if (c.needs(1))
    c.setReduced(1, SelectOp::create(c.b, c.loc, op.getCond(), c.grad(), zero),
                 op.getOnTrue());
  if (c.needs(2))
    c.setReduced(2, SelectOp::create(c.b, c.loc, op.getCond(), zero, c.grad()),
                 op.getOnFalse());
  return success();
}

//===----------------------------------------------------------------------===//
// Unary math
//===----------------------------------------------------------------------===//

/// Sets the operand's adjoint to `g * factor`.
static LogicalResult chain(RuleContext &c, Value factor) {
  c.set(0, mul(c.b, c.loc, c.grad(), factor));
  return success();
}

/// Sets the adjoint of `operand` to `g * factor`, where `factor` was computed
/// in the compute type (from `c.widen(operand)`): for f16/bf16 the product is
/// taken in f32 and rounded once. For the rules whose intermediate values
/// overflow a half type where the derivative does not (squares, cubes).
static LogicalResult chainWide(RuleContext &c, Value operand, Value factor) {
  c.setReduced(0, mul(c.b, c.loc, c.widen(c.grad()), factor), operand);
  return success();
}

static LogicalResult expRule(ExpOp op, RuleContext &c) {
  return chain(c, op.getResult());
}
static LogicalResult expm1Rule(Expm1Op op, RuleContext &c) {
  return chain(c, addScalar(c.b, c.loc, op.getResult(), 1.0));
}
static LogicalResult logRule(LogOp op, RuleContext &c) {
  c.set(0, div(c.b, c.loc, c.grad(), op.getOperand()));
  return success();
}
static LogicalResult log2Rule(Log2Op op, RuleContext &c) {
  c.set(0,
        div(c.b, c.loc, c.grad(), scale(c.b, c.loc, op.getOperand(), M_LN2)));
  return success();
}
static LogicalResult log10Rule(Log10Op op, RuleContext &c) {
  // In f32 for half types: x ln(10) overflows f16 for x > 28448.
  Value x = c.widen(op.getOperand());
  c.setReduced(0,
               div(c.b, c.loc, c.widen(c.grad()), scale(c.b, c.loc, x, M_LN10)),
               op.getOperand());
  return success();
}
static LogicalResult log1pRule(Log1pOp op, RuleContext &c) {
  c.set(0,
        div(c.b, c.loc, c.grad(), addScalar(c.b, c.loc, op.getOperand(), 1.0)));
  return success();
}
static LogicalResult sqrtRule(SqrtOp op, RuleContext &c) {
  // g / (2 sqrt(x))
  c.set(0, div(c.b, c.loc, c.grad(), scale(c.b, c.loc, op.getResult(), 2.0)));
  return success();
}
static LogicalResult rsqrtRule(RsqrtOp op, RuleContext &c) {
  // -0.5 * g * rsqrt(x)^3, in f32 for half types: y^3 overflows f16 for
  // y > 40.3 (x < 6.2e-4), where g y^3 / 2 may not.
  Value y = c.widen(op.getResult());
  Value y3 = mul(c.b, c.loc, mul(c.b, c.loc, y, y), y);
  return chainWide(c, op.getOperand(), scale(c.b, c.loc, y3, -0.5));
}
static LogicalResult sinRule(SinOp op, RuleContext &c) {
  return chain(c, CosOp::create(c.b, c.loc, op.getOperand()));
}
static LogicalResult cosRule(CosOp op, RuleContext &c) {
  return chain(
      c, NegOp::create(c.b, c.loc, SinOp::create(c.b, c.loc, op.getOperand())));
}
static LogicalResult tanhRule(TanhOp op, RuleContext &c) {
  // 1 - y^2
  Value y = op.getResult();
  Value one = c.scalar(getElementType(y), 1.0);
  return chain(c, sub(c.b, c.loc, one, mul(c.b, c.loc, y, y)));
}
static LogicalResult sigmoidRule(SigmoidOp op, RuleContext &c) {
  // y (1 - y)
  Value y = op.getResult();
  Value one = c.scalar(getElementType(y), 1.0);
  return chain(c, mul(c.b, c.loc, y, sub(c.b, c.loc, one, y)));
}
static LogicalResult erfRule(ErfOp op, RuleContext &c) {
  // 2/sqrt(pi) exp(-x^2)
  Value x = op.getOperand();
  Value e = ExpOp::create(c.b, c.loc,
                          NegOp::create(c.b, c.loc, mul(c.b, c.loc, x, x)));
  return chain(c, scale(c.b, c.loc, e, M_2_SQRTPI));
}
static LogicalResult reluRule(ReluOp op, RuleContext &c) {
  // PyTorch's threshold_backward: the adjoint is dropped where the result
  // is <= 0, so relu'(0) = 0 and a NaN passes it.
  Value zero = c.scalar(getElementType(op.getResult()), 0.0);
  Value dropped = LeOp::create(c.b, c.loc, op.getResult(), zero);
  c.set(0, SelectOp::create(c.b, c.loc, dropped, zero, c.grad()));
  return success();
}
static LogicalResult siluRule(SiluOp op, RuleContext &c) {
  // s (1 + x (1 - s)), s = sigmoid(x)
  Value x = op.getOperand();
  Value s = SigmoidOp::create(c.b, c.loc, x);
  Value one = c.scalar(getElementType(x), 1.0);
  Value t = add(c.b, c.loc, one, mul(c.b, c.loc, x, sub(c.b, c.loc, one, s)));
  return chain(c, mul(c.b, c.loc, s, t));
}
static LogicalResult leakyReluRule(LeakyReluOp op, RuleContext &c) {
  // PyTorch: x > 0 ? g : g * alpha (so the slope at 0 is alpha).
  Value x = op.getOperand();
  Value positive =
      GtOp::create(c.b, c.loc, x, c.scalar(getElementType(x), 0.0));
  double alpha = op.getAlphaAttr().getValueAsDouble();
  c.set(0, SelectOp::create(c.b, c.loc, positive, c.grad(),
                            scale(c.b, c.loc, c.grad(), alpha)));
  return success();
}
static LogicalResult eluRule(EluOp op, RuleContext &c) {
  // PyTorch's elu_backward: x <= 0 ? g * alpha * exp(x) : g, so a NaN
  // passes g. exp reads x < 0 ? x : 0: exp(x) of a large x is inf, and
  // differentiating this rule again would multiply the discarded branch's
  // zero adjoint by it (NaN). The strict select (not min(x, 0), whose tie
  // would halve it) also gives elu''(0) = 0, as PyTorch's double backward.
  Value x = op.getOperand();
  Value zero = c.scalar(getElementType(x), 0.0);
  Value nonPositive = LeOp::create(c.b, c.loc, x, zero);
  Value negative = LtOp::create(c.b, c.loc, x, zero);
  double alpha = op.getAlphaAttr().getValueAsDouble();
  Value e = ExpOp::create(c.b, c.loc,
                          SelectOp::create(c.b, c.loc, negative, x, zero));
  Value slope = mul(c.b, c.loc, c.grad(), scale(c.b, c.loc, e, alpha));
  c.set(0, SelectOp::create(c.b, c.loc, nonPositive, slope, c.grad()));
  return success();
}
static LogicalResult geluRule(GeluOp op, RuleContext &c) {
  // In f32 for half types, as PyTorch's GeluBackward kernel (opmath): in
  // f16, x * x is inf for |x| >= 256 and the tanh form's 0 * inf was NaN.
  Value x = c.widen(op.getOperand());
  Type et = getElementType(x);
  Value one = c.scalar(et, 1.0);
  if (op.getApproximate() == GeluApproximation::none) {
    // Phi(x) + x phi(x)
    Value cdf = scale(
        c.b, c.loc,
        addScalar(c.b, c.loc,
                  ErfOp::create(c.b, c.loc, scale(c.b, c.loc, x, M_SQRT1_2)),
                  1.0),
        0.5);
    Value pdf =
        scale(c.b, c.loc,
              ExpOp::create(c.b, c.loc,
                            scale(c.b, c.loc, mul(c.b, c.loc, x, x), -0.5)),
              M_2_SQRTPI * M_SQRT1_2 * 0.5);
    return chainWide(c, op.getOperand(),
                     add(c.b, c.loc, cdf, mul(c.b, c.loc, x, pdf)));
  }
  // PyTorch's GeluBackward with approximate='tanh'.
  const double beta = M_SQRT2 * M_2_SQRTPI * 0.5, kappa = 0.044715;
  Value x2 = mul(c.b, c.loc, x, x);
  Value x3 = mul(c.b, c.loc, x2, x);
  Value inner =
      scale(c.b, c.loc, add(c.b, c.loc, x, scale(c.b, c.loc, x3, kappa)), beta);
  Value t = TanhOp::create(c.b, c.loc, inner);
  Value left = scale(c.b, c.loc, x, 0.5);
  Value right = add(c.b, c.loc, one, t);
  Value leftDerivative = scale(c.b, c.loc, right, 0.5);
  Value dtanh = sub(c.b, c.loc, one, mul(c.b, c.loc, t, t));
  Value dinner =
      scale(c.b, c.loc,
            addScalar(c.b, c.loc, scale(c.b, c.loc, x2, 3 * kappa), 1.0), beta);
  Value rightDerivative = mul(c.b, c.loc, left, mul(c.b, c.loc, dtanh, dinner));
  return chainWide(c, op.getOperand(),
                   add(c.b, c.loc, leftDerivative, rightDerivative));
}
static LogicalResult clampRule(ClampOp op, RuleContext &c) {
  // PyTorch 2's clamp backward: the adjoint passes where min < x < max,
  // the bounds themselves excluded (torch 1.13 included them), and not at
  // NaN.
  Value x = op.getOperand();
  Type et = getElementType(x);
  Value d = c.grad();
  if (FloatAttr lo = op.getMinAttr())
    d = maskOrZero(
        c.b, c.loc,
        GtOp::create(c.b, c.loc, x, c.scalar(et, lo.getValueAsDouble())), d);
  if (FloatAttr hi = op.getMaxAttr())
    d = maskOrZero(
        c.b, c.loc,
        LtOp::create(c.b, c.loc, x, c.scalar(et, hi.getValueAsDouble())), d);
  c.set(0, d);
  return success();
}
static LogicalResult negRule(NegOp, RuleContext &c) {
  c.set(0, NegOp::create(c.b, c.loc, c.grad()));
  return success();
}
static LogicalResult absRule(AbsOp op, RuleContext &c) {
  // g * sign(x): abs'(0) = 0, as PyTorch.
  return chain(c, SignOp::create(c.b, c.loc, op.getOperand()));
}
static LogicalResult convertRule(ConvertOp op, RuleContext &c) {
  // Only float -> float conversions are active (the pass never asks for an
  // integer operand's adjoint, and an integer result is never active).
  Type et = getElementType(op.getOperand());
  if (!isa<FloatType>(et))
    return success();
  c.set(0, ConvertOp::create(c.b, c.loc, c.grad(), et));
  return success();
}

void mlir::kiln::autodiff::registerElementwiseRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, KilnDialect *) {
    AddOp::attachInterface<RuleModel<AddOp, addRule>>(*context);
    SubOp::attachInterface<RuleModel<SubOp, subRule>>(*context);
    MulOp::attachInterface<RuleModel<MulOp, mulRule>>(*context);
    DivOp::attachInterface<RuleModel<DivOp, divRule>>(*context);
    PowOp::attachInterface<RuleModel<PowOp, powRule>>(*context);
    MaximumOp::attachInterface<RuleModel<MaximumOp, maximumRule>>(*context);
    MinimumOp::attachInterface<RuleModel<MinimumOp, minimumRule>>(*context);
    SelectOp::attachInterface<RuleModel<SelectOp, selectRule>>(*context);
    ExpOp::attachInterface<RuleModel<ExpOp, expRule>>(*context);
    Expm1Op::attachInterface<RuleModel<Expm1Op, expm1Rule>>(*context);
    LogOp::attachInterface<RuleModel<LogOp, logRule>>(*context);
    Log2Op::attachInterface<RuleModel<Log2Op, log2Rule>>(*context);
    Log10Op::attachInterface<RuleModel<Log10Op, log10Rule>>(*context);
    Log1pOp::attachInterface<RuleModel<Log1pOp, log1pRule>>(*context);
    SqrtOp::attachInterface<RuleModel<SqrtOp, sqrtRule>>(*context);
    RsqrtOp::attachInterface<RuleModel<RsqrtOp, rsqrtRule>>(*context);
    SinOp::attachInterface<RuleModel<SinOp, sinRule>>(*context);
    CosOp::attachInterface<RuleModel<CosOp, cosRule>>(*context);
    TanhOp::attachInterface<RuleModel<TanhOp, tanhRule>>(*context);
    SigmoidOp::attachInterface<RuleModel<SigmoidOp, sigmoidRule>>(*context);
    ErfOp::attachInterface<RuleModel<ErfOp, erfRule>>(*context);
    ReluOp::attachInterface<RuleModel<ReluOp, reluRule>>(*context);
    SiluOp::attachInterface<RuleModel<SiluOp, siluRule>>(*context);
    LeakyReluOp::attachInterface<RuleModel<LeakyReluOp, leakyReluRule>>(
        *context);
    EluOp::attachInterface<RuleModel<EluOp, eluRule>>(*context);
    GeluOp::attachInterface<RuleModel<GeluOp, geluRule>>(*context);
    ClampOp::attachInterface<RuleModel<ClampOp, clampRule>>(*context);
    NegOp::attachInterface<RuleModel<NegOp, negRule>>(*context);
    AbsOp::attachInterface<RuleModel<AbsOp, absRule>>(*context);
    ConvertOp::attachInterface<RuleModel<ConvertOp, convertRule>>(*context);
    attachNonDifferentiable<LtOp, LeOp, GtOp, GeOp, EqOp, NeOp, SignOp>(
        context);
  });
}
