//===- ExpandMath.cpp - f32 math ops as arithmetic LLVM can vectorize -----===//
//
// kiln-expand-math: the CPU pipeline's f32 exp, tanh and small integer
// powers (see the pass description in include/kiln/Conversion/Passes.td).
// As math ops they become calls to the C library (expf, tanhf, powf), which
// LLVM's loop vectorizer cannot widen, so every softmax, SiLU, GELU and
// attention row ran one scalar call per element. The expansions are plain
// arithmetic (the same for a scalar and for every lane of a vector), so the
// vectorized and the scalar remainder iterations of a loop give the same
// bits.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNEXPANDMATHPASS
#include "kiln/Conversion/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;

namespace {

/// exp(x) for f32 (or a vector of f32), x = k ln2 + r:
///   k = the integer nearest x / ln2, r = x - k ln2 in two FMAs (Cody and Waite: ln2
///   split into a high part with 15 significant bits, so k * ln2_hi is exact
///   for |k| <= 2^9, and the rest), |r| <= ln2 / 2 (plus rounding);
///   exp(r) by its Taylor polynomial of degree 7 in Horner form: the
///   truncation error is r^8 / 8! <= 5.3e-9 relative, well under half an
///   f32 ulp (6e-8), so the result is within about 1 ulp (the rounding of
///   the Horner steps and of r);
///   exp(x) = (p * 2^k2) * 2^k1 with k = k1 + k2, k1 = clamp(k, -126, 127):
///   p * 2^k2 is exact (k2 in [-24, 1] keeps it a normal number), and the
///   one product with 2^k1 rounds once, to a subnormal below 2^-126 and to
///   +inf above the largest float.
/// x is clamped to [-104, 89] first (exp(-104) rounds to 0, exp(89) to
/// +inf), so -inf gives 0 and +inf gives +inf; NaN gives NaN.
static Value buildExpF32(ImplicitLocOpBuilder &b, Value x) {
  Type type = x.getType();
  Type i32Type = b.getI32Type();
  if (auto vectorType = dyn_cast<VectorType>(type))
    i32Type = vectorType.clone(i32Type);
  auto f = [&](float value) -> Value {
    TypedAttr attr = b.getF32FloatAttr(value);
    if (auto vectorType = dyn_cast<VectorType>(type))
      attr = DenseElementsAttr::get(vectorType, attr);
    return arith::ConstantOp::create(b, attr);
  };
  auto i = [&](int32_t value) -> Value {
    TypedAttr attr = b.getI32IntegerAttr(value);
    if (auto vectorType = dyn_cast<VectorType>(i32Type))
      attr = DenseElementsAttr::get(vectorType, attr);
    return arith::ConstantOp::create(b, attr);
  };
  auto fma = [&](Value a, Value m, Value c) -> Value {
    return math::FmaOp::create(b, a, m, c);
  };
  // 2^e for an integer e in [-126, 127]: the exponent field e + 127.
  auto pow2 = [&](Value e) -> Value {
    Value biased = arith::AddIOp::create(b, e, i(127));
    return arith::BitcastOp::create(
        b, type, arith::ShLIOp::create(b, biased, i(23)));
  };

  // maxnumf/minnumf take the number of a NaN pair, so a NaN x becomes -104
  // here and the final select gives it back.
  Value clamped = arith::MinNumFOp::create(
      b, arith::MaxNumFOp::create(b, x, f(-104.0f)), f(89.0f));
  // k = roundeven(x / ln2) by adding and subtracting 1.5 * 2^23, which
  // rounds to an integer in the default rounding mode (|x / ln2| < 2^22);
  // math.roundeven would be a libm call on CPUs without SSE4.1 (the AOT
  // default, --mcpu generic), which the vectorizer cannot widen.
  Value shifter = f(12582912.0f);
  Value kf = arith::SubFOp::create(
      b,
      arith::AddFOp::create(
          b, arith::MulFOp::create(b, clamped, f(1.44269504088896341f)),
          shifter),
      shifter);
  // ln2 = 0x3f317200 + 0x35bfbe8e.
  Value r = fma(kf, f(-0.693145751953125f), clamped);
  r = fma(kf, f(-1.428606765330187e-06f), r);
  Value p = f(1.0f / 5040.0f);
  for (float c : {1.0f / 720.0f, 1.0f / 120.0f, 1.0f / 24.0f, 1.0f / 6.0f,
                  0.5f, 1.0f, 1.0f})
    p = fma(p, r, f(c));

  Value k = arith::FPToSIOp::create(b, i32Type, kf);
  Value k1 = arith::MinSIOp::create(
      b, arith::MaxSIOp::create(b, k, i(-126)), i(127));
  Value k2 = arith::SubIOp::create(b, k, k1);
  Value result = arith::MulFOp::create(
      b, arith::MulFOp::create(b, p, pow2(k2)), pow2(k1));
  Value isNaN =
      arith::CmpFOp::create(b, arith::CmpFPredicate::UNO, x, x);
  return arith::SelectOp::create(b, isNaN, x, result);
}

struct ExpandF32Exp : OpRewritePattern<math::ExpOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::ExpOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32())
      return rewriter.notifyMatchFailure(op, "not f32");
    if (auto vectorType = dyn_cast<VectorType>(type);
        vectorType && vectorType.isScalable())
      return rewriter.notifyMatchFailure(op, "scalable vector");
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    rewriter.replaceOp(op, buildExpF32(b, op.getOperand()));
    return success();
  }
};

/// x^2 = x * x (one rounding, as powf) and x^3 = (x * x) * x (two), for an
/// f32 math.powf whose exponent is the constant 2 or 3 (GPT-2's GELU has
/// pow(x, 3)); NaN, infinities and signed zeros come out as powf's.
struct ExpandF32SmallPower : OpRewritePattern<math::PowFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::PowFOp op,
                                PatternRewriter &rewriter) const override {
    if (!getElementTypeOrSelf(op.getType()).isF32())
      return rewriter.notifyMatchFailure(op, "not f32");
    FloatAttr scalar;
    DenseFPElementsAttr splat;
    std::optional<APFloat> exponent;
    if (matchPattern(op.getRhs(), m_Constant(&scalar)))
      exponent = scalar.getValue();
    else if (matchPattern(op.getRhs(), m_Constant(&splat)) && splat.isSplat())
      exponent = splat.getSplatValue<APFloat>();
    if (!exponent ||
        !(exponent->isExactlyValue(2.0) || exponent->isExactlyValue(3.0)))
      return rewriter.notifyMatchFailure(op, "not a constant 2 or 3");
    Value x = op.getLhs();
    Value result = arith::MulFOp::create(rewriter, op.getLoc(), x, x);
    if (exponent->isExactlyValue(3.0))
      result = arith::MulFOp::create(rewriter, op.getLoc(), result, x);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct KilnExpandMathPass
    : kiln::impl::KilnExpandMathPassBase<KilnExpandMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandF32Exp, ExpandF32SmallPower>(&getContext());
    // tanh: upstream's rational approximation (f32; measured in
    // test/unittests/ExpandMathTest.cpp).
    populatePolynomialApproximateTanhPattern(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
