//===- Elementwise.cpp - Lower elementwise kiln ops to linalg -------------===//
//
// Elementwise ops become one `linalg.generic` each, with parallel iterators
// and broadcasting expressed by the operands' indexing maps.
//
// Binary/comparison ops and unary ops are table-driven: each op is one row
// naming its scalar payload for float, integer (i8/i32/i64) and boolean (i1)
// elements; an entry is missing exactly where the op's ODS type constraint
// (Kiln_Tensor, Kiln_NumericTensor or Kiln_FloatTensor) excludes that element
// type, so verified IR never selects one (the patterns assert it). `select`
// and `convert` have their own patterns.
//
// f16 and bf16 payloads compute in f32 and round once at the end, as
// PyTorch's "opmath" does. For +, -, *, / and sqrt this is the same as the
// correctly rounded half-precision operation (f32 has more than twice the
// precision bits), and it keeps bf16 math away from LLVM intrinsics.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "PopulatePatterns.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>

using namespace mlir;
using namespace mlir::kiln;

using B = ImplicitLocOpBuilder;

//===----------------------------------------------------------------------===//
// Scalar helpers
//===----------------------------------------------------------------------===//

static bool isHalf(Type type) { return isa<Float16Type, BFloat16Type>(type); }

/// A scalar constant of `type` (float or integer) with value `value`; floats
/// are rounded to nearest, ties to even.
static Value constant(B &b, Type type, double value) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, b.getFloatAttr(floatType, value));
  return arith::ConstantOp::create(
      b, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

static Value constantLike(B &b, Value like, double value) {
  return constant(b, like.getType(), value);
}

static Value cmpf(B &b, arith::CmpFPredicate predicate, Value x, Value y) {
  return arith::CmpFOp::create(b, predicate, x, y);
}

static Value cmpi(B &b, arith::CmpIPredicate predicate, Value x, Value y) {
  return arith::CmpIOp::create(b, predicate, x, y);
}

/// Float -> float, going through f32 whenever a half type is involved (an
/// f16 <-> bf16 or f64 -> f16/bf16 conversion rounds through f32, as
/// PyTorch's c10::Half / c10::BFloat16 constructors do; widening is exact).
static Value convertFloat(B &b, Value x, FloatType to) {
  auto from = cast<FloatType>(x.getType());
  if (from == to)
    return x;
  Type f32 = b.getF32Type();
  if ((isHalf(from) || isHalf(to)) && from != f32 && to != f32)
    x = convertFloat(b, x, cast<FloatType>(f32));
  from = cast<FloatType>(x.getType());
  if (from == to)
    return x;
  if (from.getWidth() < to.getWidth())
    return arith::ExtFOp::create(b, to, x);
  return arith::TruncFOp::create(b, to, x);
}

/// Converts a scalar between any two kiln element types, with the semantics
/// of `kiln.convert`.
static Value convertScalar(B &b, Value x, Type to) {
  Type from = x.getType();
  if (from == to)
    return x;
  Type f32 = b.getF32Type();
  // Anything to i1 is `x != 0`: unordered for floats, so NaN gives true.
  if (to.isInteger(1)) {
    if (isa<FloatType>(from)) {
      if (isHalf(from))
        x = convertFloat(b, x, cast<FloatType>(f32));
      return cmpf(b, arith::CmpFPredicate::UNE, x, constantLike(b, x, 0));
    }
    return cmpi(b, arith::CmpIPredicate::ne, x, constantLike(b, x, 0));
  }
  if (auto toFloat = dyn_cast<FloatType>(to)) {
    if (isa<FloatType>(from))
      return convertFloat(b, x, toFloat);
    // Integer -> float. Half types go through f32, as PyTorch does.
    auto via = isHalf(toFloat) ? cast<FloatType>(f32) : toFloat;
    Value y = from.isInteger(1)
                  ? arith::UIToFPOp::create(b, via, x).getResult()
                  : arith::SIToFPOp::create(b, via, x).getResult();
    return convertFloat(b, y, toFloat);
  }
  auto toInt = cast<IntegerType>(to);
  if (isa<FloatType>(from)) {
    // Float -> integer truncates toward zero (f16/bf16 widen exactly first).
    // arith.fptosi (LLVM's fptosi) is poison for NaN and out-of-range
    // values, and a poison index would get past a gather's clamp, so those
    // saturate instead: NaN gives 0, values at or beyond the integer range
    // its bound. The bounds compare against -2^(w-1), exact in every float
    // type (or -inf past its range), and the truncated value is only kept
    // where it fits.
    if (isHalf(from))
      x = convertFloat(b, x, cast<FloatType>(f32));
    auto floatType = cast<FloatType>(x.getType());
    unsigned width = toInt.getWidth();
    APFloat bound(std::ldexp(1.0, static_cast<int>(width) - 1));
    bool losesInfo = false;
    bound.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
    Value upper =
        arith::ConstantOp::create(b, b.getFloatAttr(floatType, bound));
    Value lower =
        arith::ConstantOp::create(b, b.getFloatAttr(floatType, -bound));
    Value intMax = arith::ConstantOp::create(
        b, b.getIntegerAttr(toInt, APInt::getSignedMaxValue(width)));
    Value intMin = arith::ConstantOp::create(
        b, b.getIntegerAttr(toInt, APInt::getSignedMinValue(width)));
    Value zero = arith::ConstantOp::create(b, b.getIntegerAttr(toInt, 0));
    // In range: -2^(w-1) <= x < 2^(w-1) (false for NaN); the operand of
    // fptosi is 0 elsewhere, so no poison is ever made.
    Value inRange =
        arith::AndIOp::create(b, cmpf(b, arith::CmpFPredicate::OGE, x, lower),
                              cmpf(b, arith::CmpFPredicate::OLT, x, upper));
    Value safe = arith::SelectOp::create(b, inRange, x, constantLike(b, x, 0));
    Value truncated = arith::FPToSIOp::create(b, toInt, safe);
    Value saturated = arith::SelectOp::create(
        b, cmpf(b, arith::CmpFPredicate::OGE, x, upper), intMax,
        arith::SelectOp::create(b, cmpf(b, arith::CmpFPredicate::OLT, x, lower),
                                intMin, zero));
    return arith::SelectOp::create(b, inRange, truncated, saturated);
  }
  // Integer -> integer: i1 zero-extends, others sign-extend or wrap.
  unsigned fromWidth = cast<IntegerType>(from).getWidth();
  if (fromWidth > toInt.getWidth())
    return arith::TruncIOp::create(b, toInt, x);
  if (fromWidth == 1)
    return arith::ExtUIOp::create(b, toInt, x);
  return arith::ExtSIOp::create(b, toInt, x);
}

/// Integer division truncating toward zero. Division by zero is undefined in
/// kiln, and INT_MIN / -1 overflows; neither may trap (x86's idiv would
/// raise SIGFPE), so both divide by 1 instead: `x / 0 == x` and
/// `INT_MIN / -1 == INT_MIN` (the wrapped-around quotient).
static Value divTrunc(B &b, Value x, Value y) {
  auto type = cast<IntegerType>(x.getType());
  Value zero = constantLike(b, y, 0);
  Value one = constantLike(b, y, 1);
  Value minusOne = constantLike(b, y, -1);
  Value intMin = arith::ConstantOp::create(
      b, b.getIntegerAttr(type, APInt::getSignedMinValue(type.getWidth())));
  Value overflow =
      arith::AndIOp::create(b, cmpi(b, arith::CmpIPredicate::eq, x, intMin),
                            cmpi(b, arith::CmpIPredicate::eq, y, minusOne));
  Value bad = arith::OrIOp::create(
      b, cmpi(b, arith::CmpIPredicate::eq, y, zero), overflow);
  Value divisor = arith::SelectOp::create(b, bad, one, y);
  return arith::DivSIOp::create(b, x, divisor);
}

/// `exp(x) - 1`, accurate near 0 (math.expm1 lowers to exactly that
/// subtraction, which cancels). Kahan's trick: with u = exp(x),
/// expm1(x) = (u - 1) * (x / log(u)), where the rounding errors of u cancel.
static Value buildExpm1(B &b, Value x) {
  Value one = constantLike(b, x, 1);
  Value u = math::ExpOp::create(b, x);
  Value um1 = arith::SubFOp::create(b, u, one);
  Value ratio = arith::DivFOp::create(b, x, math::LogOp::create(b, u));
  Value r = arith::MulFOp::create(b, um1, ratio);
  // u == 1: x is tiny and is its own expm1 (keeps -0.0); u - 1 == -1: x is
  // so negative that the ratio would be x / -inf; u == inf: x is large.
  Value inf = constantLike(b, x, INFINITY);
  r = arith::SelectOp::create(b, cmpf(b, arith::CmpFPredicate::OEQ, u, inf), u,
                              r);
  r = arith::SelectOp::create(
      b, cmpf(b, arith::CmpFPredicate::OEQ, um1, constantLike(b, x, -1)), um1,
      r);
  return arith::SelectOp::create(b, cmpf(b, arith::CmpFPredicate::OEQ, u, one),
                                 x, r);
}

/// `log(1 + x)`, accurate near 0 (math.log1p lowers to log(1 + x), which
/// loses the low bits of x). Goldberg's trick: with u = 1 + x,
/// log1p(x) = log(u) * (x / (u - 1)).
static Value buildLog1p(B &b, Value x) {
  Value one = constantLike(b, x, 1);
  Value u = arith::AddFOp::create(b, one, x);
  Value ratio = arith::DivFOp::create(b, x, arith::SubFOp::create(b, u, one));
  Value r = arith::MulFOp::create(b, math::LogOp::create(b, u), ratio);
  // u == inf: x is +inf (or huge) and inf / inf would be NaN.
  Value inf = constantLike(b, x, INFINITY);
  r = arith::SelectOp::create(b, cmpf(b, arith::CmpFPredicate::OEQ, u, inf), u,
                              r);
  return arith::SelectOp::create(b, cmpf(b, arith::CmpFPredicate::OEQ, u, one),
                                 x, r);
}

/// `1 / (1 + exp(-x))`.
static Value buildSigmoid(B &b, Value x) {
  Value one = constantLike(b, x, 1);
  Value e = math::ExpOp::create(b, arith::NegFOp::create(b, x));
  return arith::DivFOp::create(b, one, arith::AddFOp::create(b, one, e));
}

/// `(x > 0) - (x < 0)` in x's type: NaN and zeros of either sign give +0.
static Value buildSign(B &b, Value x) {
  bool isFloat = isa<FloatType>(x.getType());
  Value zero = constantLike(b, x, 0);
  Value positive = isFloat ? cmpf(b, arith::CmpFPredicate::OGT, x, zero)
                           : cmpi(b, arith::CmpIPredicate::sgt, x, zero);
  Value negative = isFloat ? cmpf(b, arith::CmpFPredicate::OLT, x, zero)
                           : cmpi(b, arith::CmpIPredicate::slt, x, zero);
  Value r = arith::SelectOp::create(b, negative, constantLike(b, x, -1), zero);
  return arith::SelectOp::create(b, positive, constantLike(b, x, 1), r);
}

/// `alpha` as a constant of x's type (rounded to nearest).
static Value attrConstant(B &b, Value x, const APFloat &value) {
  return constantLike(b, x, value.convertToDouble());
}

/// kiln.gelu: `x * Phi(x)`, exactly or with PyTorch's tanh approximation.
static Value buildGelu(B &b, GeluOp op, Value x) {
  Value half = constantLike(b, x, 0.5);
  Value one = constantLike(b, x, 1);
  Value phi; // 1 + erf(x / sqrt(2)) or 1 + tanh(...), i.e. 2 * Phi(x).
  if (op.getApproximate() == GeluApproximation::tanh) {
    Value x3 = arith::MulFOp::create(b, arith::MulFOp::create(b, x, x), x);
    Value inner = arith::AddFOp::create(
        b, x, arith::MulFOp::create(b, constantLike(b, x, 0.044715), x3));
    inner = arith::MulFOp::create(
        b, constantLike(b, x, M_SQRT2 * M_2_SQRTPI * 0.5), inner);
    phi = arith::AddFOp::create(b, one, math::TanhOp::create(b, inner));
  } else {
    Value scaled = arith::MulFOp::create(b, x, constantLike(b, x, M_SQRT1_2));
    phi = arith::AddFOp::create(b, one, math::ErfOp::create(b, scaled));
  }
  return arith::MulFOp::create(b, arith::MulFOp::create(b, x, half), phi);
}

/// kiln.clamp: `min(max(x, lo), hi)`, NaN-propagating. The bounds are
/// rounded to the op's element type (then widened, exactly, to x's type).
static Value buildClamp(B &b, ClampOp op, Value x) {
  Type elementType = getElementTypeOrSelf(op.getType());
  auto bound = [&](const APFloat &value) {
    return convertFloat(b, constant(b, elementType, value.convertToDouble()),
                        cast<FloatType>(x.getType()));
  };
  Value r = x;
  if (std::optional<APFloat> lo = op.getMin())
    r = arith::MaximumFOp::create(b, r, bound(*lo));
  if (std::optional<APFloat> hi = op.getMax())
    r = arith::MinimumFOp::create(b, r, bound(*hi));
  return r;
}

//===----------------------------------------------------------------------===//
// Table-driven patterns
//===----------------------------------------------------------------------===//

namespace {

/// Payloads of an op for float, integer (i8/i32/i64) and i1 elements; null
/// only where the op's ODS constraint excludes that element type (a row must
/// give a payload for every element type its op accepts). Float payloads see
/// f32 values for f16/bf16 elements.
template <typename Fn> struct Payloads {
  Fn onFloat = nullptr;
  Fn onInt = nullptr;
  Fn onBool = nullptr;

  Fn select(Type elementType) const {
    if (isa<FloatType>(elementType))
      return onFloat;
    if (elementType.isInteger(1))
      return onBool;
    if (elementType.isInteger(8) || elementType.isInteger(32) ||
        elementType.isInteger(64))
      return onInt;
    return nullptr;
  }
};

/// Widens f16/bf16 scalars to f32; others are kept.
static Value promote(B &b, Value x) {
  return isHalf(x.getType()) ? convertFloat(b, x, b.getF32Type()) : x;
}

/// Rounds a payload result back to the result element type.
static Value demote(B &b, Value r, Type resultElementType) {
  if (r.getType() == resultElementType)
    return r;
  return convertFloat(b, r, cast<FloatType>(resultElementType));
}

using BinaryFn = Value (*)(B &, Value, Value);

/// A broadcasting binary op (arithmetic or comparison) lowered to one
/// linalg.generic whose payload is chosen by the operands' element type.
template <typename OpTy> struct BinaryLowering : OpConversionPattern<OpTy> {
  BinaryLowering(MLIRContext *context, Payloads<BinaryFn> payloads)
      : OpConversionPattern<OpTy>(context), payloads(payloads) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    Type lhsType = getElementTypeOrSelf(adaptor.getLhs().getType());
    if (!resultType || lhsType != getElementTypeOrSelf(adaptor.getRhs()))
      return rewriter.notifyMatchFailure(op, "unexpected operand types");
    BinaryFn fn = payloads.select(lhsType);
    assert(fn && "the verifier guarantees an operand element type that the "
                 "op's row in the table has a payload for");
    FailureOr<Value> result = buildBroadcastingElementwise(
        rewriter, op.getLoc(), resultType, adaptor.getOperands(),
        [&](OpBuilder &builder, Location loc, ValueRange args) -> Value {
          B b(loc, builder);
          Value r = fn(b, promote(b, args[0]), promote(b, args[1]));
          return demote(b, r, resultType.getElementType());
        });
    if (failed(result))
      return rewriter.notifyMatchFailure(op, "operands do not broadcast");
    rewriter.replaceOp(op, *result);
    return success();
  }

  Payloads<BinaryFn> payloads;
};

/// An elementwise unary op; its payload may read the op's attributes.
template <typename OpTy> struct UnaryLowering : OpConversionPattern<OpTy> {
  using UnaryFn = Value (*)(B &, OpTy, Value);

  UnaryLowering(MLIRContext *context, Payloads<UnaryFn> payloads)
      : OpConversionPattern<OpTy>(context), payloads(payloads) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    Value operand = adaptor.getOperand();
    if (!resultType ||
        getElementTypeOrSelf(operand) != resultType.getElementType())
      return rewriter.notifyMatchFailure(op, "unexpected operand type");
    UnaryFn fn = payloads.select(resultType.getElementType());
    assert(fn && "the verifier guarantees an element type that the op's row "
                 "in the table has a payload for");
    FailureOr<Value> result = buildBroadcastingElementwise(
        rewriter, op.getLoc(), resultType, operand,
        [&](OpBuilder &builder, Location loc, ValueRange args) -> Value {
          B b(loc, builder);
          Value r = fn(b, op, promote(b, args[0]));
          return demote(b, r, resultType.getElementType());
        });
    if (failed(result))
      return rewriter.notifyMatchFailure(op, "operand has another shape");
    rewriter.replaceOp(op, *result);
    return success();
  }

  Payloads<UnaryFn> payloads;
};

/// kiln.select -> linalg.generic { arith.select }, the three operands
/// broadcast together.
struct SelectOpLowering : OpConversionPattern<SelectOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SelectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    if (!resultType || !getElementTypeOrSelf(adaptor.getCond()).isInteger(1) ||
        getElementTypeOrSelf(adaptor.getOnTrue()) !=
            resultType.getElementType() ||
        getElementTypeOrSelf(adaptor.getOnFalse()) !=
            resultType.getElementType())
      return rewriter.notifyMatchFailure(op, "unexpected operand types");
    FailureOr<Value> result = buildBroadcastingElementwise(
        rewriter, op.getLoc(), resultType, adaptor.getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          return arith::SelectOp::create(b, loc, args[0], args[1], args[2]);
        });
    if (failed(result))
      return rewriter.notifyMatchFailure(op, "operands do not broadcast");
    rewriter.replaceOp(op, *result);
    return success();
  }
};

/// kiln.convert -> linalg.generic { arith casts } (see convertScalar); a
/// conversion to the same type is the operand itself.
struct ConvertOpLowering : OpConversionPattern<ConvertOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConvertOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    auto operandType =
        dyn_cast<RankedTensorType>(adaptor.getOperand().getType());
    if (!resultType || !operandType ||
        operandType.getShape() != resultType.getShape())
      return rewriter.notifyMatchFailure(op, "unexpected operand type");
    if (operandType == resultType) {
      rewriter.replaceOp(op, adaptor.getOperand());
      return success();
    }
    [[maybe_unused]] auto isElement = [](Type type) {
      return isa<FloatType>(type) || type.isInteger(1) || type.isInteger(8) ||
             type.isInteger(32) || type.isInteger(64);
    };
    Type to = resultType.getElementType();
    assert(isElement(operandType.getElementType()) && isElement(to) &&
           "the verifier guarantees a Kiln_Tensor operand and result");
    FailureOr<Value> result = buildBroadcastingElementwise(
        rewriter, op.getLoc(), resultType, adaptor.getOperand(),
        [&](OpBuilder &builder, Location loc, ValueRange args) -> Value {
          B b(loc, builder);
          return convertScalar(b, args[0], to);
        });
    if (failed(result))
      return rewriter.notifyMatchFailure(op, "operand has another shape");
    rewriter.replaceOp(op, *result);
    return success();
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// The tables
//===----------------------------------------------------------------------===//

/// Binary payloads made of one arith/math op.
template <typename ScalarOp> static Value binary(B &b, Value x, Value y) {
  return ScalarOp::create(b, x, y);
}
template <arith::CmpFPredicate predicate>
static Value compareF(B &b, Value x, Value y) {
  return cmpf(b, predicate, x, y);
}
template <arith::CmpIPredicate predicate>
static Value compareI(B &b, Value x, Value y) {
  return cmpi(b, predicate, x, y);
}

/// Unary payloads made of one math op, or of one helper above.
template <typename ScalarOp, typename OpTy>
static Value unary(B &b, OpTy, Value x) {
  return ScalarOp::create(b, x);
}
template <Value (*build)(B &, Value), typename OpTy>
static Value helper(B &b, OpTy, Value x) {
  return build(b, x);
}

template <typename OpTy>
static void addBinary(RewritePatternSet &patterns, BinaryFn onFloat,
                      BinaryFn onInt, BinaryFn onBool) {
  patterns.add<BinaryLowering<OpTy>>(
      patterns.getContext(), Payloads<BinaryFn>{onFloat, onInt, onBool});
}

template <typename OpTy>
static void addUnary(RewritePatternSet &patterns,
                     typename UnaryLowering<OpTy>::UnaryFn onFloat,
                     typename UnaryLowering<OpTy>::UnaryFn onInt = nullptr) {
  patterns.add<UnaryLowering<OpTy>>(
      patterns.getContext(),
      Payloads<typename UnaryLowering<OpTy>::UnaryFn>{onFloat, onInt, nullptr});
}

void mlir::kiln::populateElementwisePatterns(RewritePatternSet &patterns) {
  using F = arith::CmpFPredicate;
  using I = arith::CmpIPredicate;

  // Arithmetic. i1 add/mul are or/and (PyTorch's bool + and *); integers
  // wrap; integer division truncates (see divTrunc).
  addBinary<AddOp>(patterns, binary<arith::AddFOp>, binary<arith::AddIOp>,
                   binary<arith::OrIOp>);
  addBinary<SubOp>(patterns, binary<arith::SubFOp>, binary<arith::SubIOp>,
                   nullptr);
  addBinary<MulOp>(patterns, binary<arith::MulFOp>, binary<arith::MulIOp>,
                   binary<arith::AndIOp>);
  addBinary<DivOp>(patterns, binary<arith::DivFOp>, divTrunc, nullptr);
  addBinary<PowOp>(patterns, binary<math::PowFOp>, nullptr, nullptr);
  // NaN-propagating on floats; signed on integers; false < true on i1.
  addBinary<MaximumOp>(patterns, binary<arith::MaximumFOp>,
                       binary<arith::MaxSIOp>, binary<arith::MaxUIOp>);
  addBinary<MinimumOp>(patterns, binary<arith::MinimumFOp>,
                       binary<arith::MinSIOp>, binary<arith::MinUIOp>);

  // Comparisons: ordered on floats except `ne`; unsigned on i1.
  addBinary<LtOp>(patterns, compareF<F::OLT>, compareI<I::slt>,
                  compareI<I::ult>);
  addBinary<LeOp>(patterns, compareF<F::OLE>, compareI<I::sle>,
                  compareI<I::ule>);
  addBinary<GtOp>(patterns, compareF<F::OGT>, compareI<I::sgt>,
                  compareI<I::ugt>);
  addBinary<GeOp>(patterns, compareF<F::OGE>, compareI<I::sge>,
                  compareI<I::uge>);
  addBinary<EqOp>(patterns, compareF<F::OEQ>, compareI<I::eq>, compareI<I::eq>);
  addBinary<NeOp>(patterns, compareF<F::UNE>, compareI<I::ne>, compareI<I::ne>);

  // Unary ops on floats and integers.
  addUnary<NegOp>(patterns, unary<arith::NegFOp>,
                  [](B &b, NegOp, Value x) -> Value {
                    return arith::SubIOp::create(b, constantLike(b, x, 0), x);
                  });
  addUnary<AbsOp>(patterns, unary<math::AbsFOp>, unary<math::AbsIOp>);
  addUnary<SignOp>(patterns, helper<buildSign>, helper<buildSign>);

  // Unary math on floats.
  addUnary<ExpOp>(patterns, unary<math::ExpOp>);
  addUnary<Expm1Op>(patterns, helper<buildExpm1>);
  addUnary<LogOp>(patterns, unary<math::LogOp>);
  addUnary<Log2Op>(patterns, unary<math::Log2Op>);
  addUnary<Log10Op>(patterns, unary<math::Log10Op>);
  addUnary<Log1pOp>(patterns, helper<buildLog1p>);
  addUnary<SqrtOp>(patterns, unary<math::SqrtOp>);
  addUnary<RsqrtOp>(patterns, unary<math::RsqrtOp>);
  addUnary<SinOp>(patterns, unary<math::SinOp>);
  addUnary<CosOp>(patterns, unary<math::CosOp>);
  addUnary<TanhOp>(patterns, unary<math::TanhOp>);
  addUnary<ErfOp>(patterns, unary<math::ErfOp>);
  addUnary<SigmoidOp>(patterns, helper<buildSigmoid>);

  // Activations.
  addUnary<ReluOp>(patterns, [](B &b, ReluOp, Value x) -> Value {
    return arith::MaximumFOp::create(b, x, constantLike(b, x, 0));
  });
  addUnary<LeakyReluOp>(patterns, [](B &b, LeakyReluOp op, Value x) -> Value {
    Value scaled =
        arith::MulFOp::create(b, attrConstant(b, x, op.getAlpha()), x);
    Value keep = cmpf(b, F::OGE, x, constantLike(b, x, 0));
    return arith::SelectOp::create(b, keep, x, scaled);
  });
  addUnary<EluOp>(patterns, [](B &b, EluOp op, Value x) -> Value {
    Value scaled = arith::MulFOp::create(b, attrConstant(b, x, op.getAlpha()),
                                         buildExpm1(b, x));
    Value keep = cmpf(b, F::OGT, x, constantLike(b, x, 0));
    return arith::SelectOp::create(b, keep, x, scaled);
  });
  addUnary<GeluOp>(patterns, buildGelu);
  addUnary<SiluOp>(patterns, [](B &b, SiluOp, Value x) -> Value {
    // x / (1 + exp(-x)), as PyTorch computes it.
    Value one = constantLike(b, x, 1);
    Value e = math::ExpOp::create(b, arith::NegFOp::create(b, x));
    return arith::DivFOp::create(b, x, arith::AddFOp::create(b, one, e));
  });
  addUnary<ClampOp>(patterns, buildClamp);

  patterns.add<SelectOpLowering, ConvertOpLowering>(patterns.getContext());
}
