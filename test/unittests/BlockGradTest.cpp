//===- BlockGradTest.cpp - The transformer block's gradients vs. FD -------===//
//
// examples/transformer_block.mlir turned into float64 by text substitution
// (f32 -> f64), with a @grad that calls `kiln.value_and_grad @loss` with
// respect to every float parameter (arguments 2..13). The module goes through
// the CPU pipeline as written (kiln-lower-to-cpu runs kiln-autodiff first);
// every entry of every gradient (2,944 in all) is compared with the central
// difference (f(x + h e) - f(x - h e)) / 2h, h = 1e-6, of @loss.
//
// In f64 the central difference's truncation error is O(h^2 f''') ~ 1e-12 and
// its rounding error ~ eps |f| / h ~ 2e-16 * 2 / 1e-6 ~ 4e-10, so a tolerance
// of 1e-6 (1 + |fd|) (the one of AutodiffTest.cpp) leaves a wide margin while
// catching any wrong rule (errors of a wrong adjoint are O(|gradient|)). The
// block has no kinks: tanh GELU, RMS norms with eps, a fixed causal mask.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/Autodiff.h"
#include "kiln/Support/HostTensor.h"
#include "kiln/Execution/JitSession.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"

#include "TestSupport/JitHarness.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdio>
#include <random>
#include <string>

using namespace mlir;
using namespace mlir::kiln;

namespace {

struct Param {
  const char *name;
  SmallVector<int64_t> shape;
  /// Entries are `offset + scale * N(0, 1)`.
  double offset, scale;
};

/// The block's float parameters (arguments 2..13 of @loss), in order, with
/// the scales their entries are drawn with.
SmallVector<Param> blockParams() {
  const double d = 16, ff = 32;
  return {
      {"embed", {32, 16}, 0.0, 1.0},
      {"attn_norm", {16}, 1.0, 0.1},
      {"wq", {16, 16}, 0.0, 1 / std::sqrt(d)},
      {"wk", {16, 8}, 0.0, 1 / std::sqrt(d)},
      {"wv", {16, 8}, 0.0, 1 / std::sqrt(d)},
      {"wo", {16, 16}, 0.0, 1 / std::sqrt(d)},
      {"ffn_norm", {16}, 1.0, 0.1},
      {"w_gate", {16, 32}, 0.0, 1 / std::sqrt(d)},
      {"w_up", {16, 32}, 0.0, 1 / std::sqrt(d)},
      {"w_down", {32, 16}, 0.0, 1 / std::sqrt(ff)},
      {"final_norm", {16}, 1.0, 0.1},
      {"w_head", {16, 5}, 0.0, 1 / std::sqrt(d)},
  };
}

TEST(BlockGradTest, EveryGradientEntryMatchesFiniteDifferences) {
  std::string source =
      test::readAsF64(KILN_EXAMPLES_DIR "/transformer_block.mlir");
  ASSERT_FALSE(source.empty());

  const SmallVector<Param> params = blockParams();

  std::mt19937_64 rng(20261129);
  SmallVector<HostTensor> inputs;
  auto push = [&](DType dtype, ArrayRef<int64_t> shape,
                  ArrayRef<double> values) {
    inputs.push_back(test::makeTensor(dtype, shape, values));
  };
  // Tokens [2, 8] in [0, 32) with a repeated token (the embedding's adjoint
  // adds repeated rows up), labels [2] in [0, 5).
  std::uniform_int_distribution<int> token(0, 31), label(0, 4);
  std::vector<double> tokens(16);
  for (double &t : tokens)
    t = token(rng);
  tokens[5] = tokens[1];
  push(DType::I64, {2, 8}, tokens);
  push(DType::I64, {2}, {double(label(rng)), double(label(rng))});
  std::normal_distribution<double> normal;
  std::string types = "tensor<2x8xi64>, tensor<2xi64>";
  std::string resultTypes = "tensor<f64>";
  for (const Param &p : params) {
    int64_t n = 1;
    std::string type = "tensor<";
    for (int64_t s : p.shape) {
      n *= s;
      type += std::to_string(s) + "x";
    }
    type += "f64>";
    types += ", " + type;
    resultTypes += ", " + type;
    std::vector<double> values(n);
    for (double &v : values)
      v = p.offset + p.scale * normal(rng);
    push(DType::F64, p.shape, values);
  }

  std::string args, operands, results = "%l";
  for (int i = 0; i < 14; ++i) {
    auto type = inputs[i].getTypeString();
    args += (i ? ", " : "") + std::string("%a") + std::to_string(i) + ": " +
            type;
    operands += (i ? ", " : "") + std::string("%a") + std::to_string(i);
    if (i >= 2)
      results += ", %g" + std::to_string(i);
  }
  source += "\nfunc.func @grad(" + args + ") -> (" + resultTypes + ") {\n  " +
            results + " = kiln.value_and_grad @loss(" + operands +
            ") {wrt = array<i64: 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13>} : (" +
            types + ") -> (" + resultTypes + ")\n  return " + results + " : " +
            resultTypes + "\n}\n";

  JitSession session;
  auto compiled = session.compileSource(source, "transformer_block_f64");
  ASSERT_TRUE(succeeded(compiled)) << "compilation failed (see stderr)";
  JitModule &jit = **compiled;

  auto valueAndGrad = jit.invoke("grad", inputs);
  ASSERT_TRUE(succeeded(valueAndGrad));
  ASSERT_EQ(valueAndGrad->size(), 13u);
  auto value = jit.invoke("loss", inputs);
  ASSERT_TRUE(succeeded(value));
  double loss = (*value)[0].getElementAsDouble(0);
  EXPECT_NEAR((*valueAndGrad)[0].getElementAsDouble(0), loss, 1e-12);
  EXPECT_TRUE(std::isfinite(loss) && loss > 0);

  int64_t checked = 0;
  for (int k = 0; k < 12; ++k) {
    test::CentralDifferenceStats stats = test::expectMatchesCentralDifferences(
        jit, "loss", inputs, k + 2, (*valueAndGrad)[k + 1],
        std::string("d loss / d ") + params[k].name);
    // The class token is the last position, which attends to every token,
    // so no gradient is identically zero (a test of nothing).
    EXPECT_GT(stats.largestAnalytic, 1e-3) << params[k].name;
    checked += stats.checked;
  }
  EXPECT_EQ(checked, 2944);
}

/// Second order through attention (reverse over reverse): with g = grad of
/// @loss with respect to the twelve parameters, @h(x, v) = sum_k <g_k(x),
/// v_k> is built from a clone of the generated backward graph (which holds
/// kiln.attention_grad) and differentiated again, giving the Hessian-vector
/// product H v. Every entry is compared with the central difference of the
/// gradient along v, (g(x + e v) - g(x - e v)) / 2e, e = 1e-5: its
/// truncation error is O(e^2) ~ 1e-10 and its rounding error
/// ~ eps |g| / e ~ 1e-11, far inside 1e-6 (1 + |fd|).
TEST(BlockGradTest, HessianVectorProductMatchesFiniteDifferences) {
  std::string source =
      test::readAsF64(KILN_EXAMPLES_DIR "/transformer_block.mlir");
  ASSERT_FALSE(source.empty());

  JitSession session;
  MLIRContext &context = session.getContext();
  test::appendAutodiffRegistry(context);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  ASSERT_TRUE(module);
  auto loss = module->lookupSymbol<func::FuncOp>("loss");
  ASSERT_TRUE(loss);
  SmallVector<int64_t> wrt;
  for (int64_t i = 2; i < 14; ++i)
    wrt.push_back(i);
  FailureOr<func::FuncOp> grad = generateValueAndGrad(*module, loss, wrt);
  ASSERT_TRUE(succeeded(grad));

  // @h(tokens, labels, params..., v...) = sum_k sum(g_k * v_k).
  func::FuncOp h = test::buildGradientDotProduct(loss, *grad, "h");
  FailureOr<func::FuncOp> hessian = generateValueAndGrad(*module, h, wrt);
  ASSERT_TRUE(succeeded(hessian));
  // The second sweep went through kiln.attention_grad's rule.
  bool hasAttentionGrad = false;
  h.walk([&](AttentionGradOp) { hasAttentionGrad = true; });
  EXPECT_TRUE(hasAttentionGrad);

  auto compiled = session.compile(*module);
  ASSERT_TRUE(succeeded(compiled)) << "compilation failed (see stderr)";
  JitModule &jit = **compiled;

  const SmallVector<Param> params = blockParams();
  std::mt19937_64 rng(20261130);
  std::uniform_int_distribution<int> token(0, 31), label(0, 4);
  std::normal_distribution<double> normal;
  SmallVector<HostTensor> inputs;
  auto push = [&](DType dtype, ArrayRef<int64_t> shape,
                  ArrayRef<double> values) {
    inputs.push_back(test::makeTensor(dtype, shape, values));
  };
  std::vector<double> tokens(16);
  for (double &t : tokens)
    t = token(rng);
  push(DType::I64, {2, 8}, tokens);
  push(DType::I64, {2}, {double(label(rng)), double(label(rng))});
  for (bool direction : {false, true})
    for (const Param &p : params) {
      int64_t n = 1;
      for (int64_t s : p.shape)
        n *= s;
      std::vector<double> values(n);
      for (double &v : values)
        v = direction ? normal(rng) : p.offset + p.scale * normal(rng);
      push(DType::F64, p.shape, values);
    }

  auto hv = jit.invoke("h_value_and_grad", inputs);
  ASSERT_TRUE(succeeded(hv));
  ASSERT_EQ(hv->size(), 13u);

  // g(x + s e v) for s = +1, -1.
  const double e = 1e-5;
  auto shifted = [&](double sign) {
    SmallVector<HostTensor> at;
    for (int i = 0; i < 14; ++i) {
      at.push_back(inputs[i]);
      if (i < 2)
        continue;
      for (int64_t j = 0; j < at[i].getNumElements(); ++j)
        at[i].setElementFromDouble(
            j, inputs[i].getElementAsDouble(j) +
                   sign * e * inputs[12 + i].getElementAsDouble(j));
    }
    return jit.invoke("loss_value_and_grad", at);
  };
  auto plus = shifted(1), minus = shifted(-1);
  ASSERT_TRUE(succeeded(plus) && succeeded(minus));
  int64_t checked = 0;
  double worst = 0;
  for (int k = 0; k < 12; ++k) {
    const HostTensor &product = (*hv)[k + 1];
    double largest = 0;
    for (int64_t i = 0; i < product.getNumElements(); ++i) {
      double numeric = ((*plus)[k + 1].getElementAsDouble(i) -
                        (*minus)[k + 1].getElementAsDouble(i)) /
                       (2 * e);
      double analytic = product.getElementAsDouble(i);
      largest = std::max(largest, std::fabs(analytic));
      worst = std::max(worst, std::fabs(analytic - numeric) /
                                  (1 + std::fabs(numeric)));
      EXPECT_NEAR(analytic, numeric, 1e-6 * (1 + std::fabs(numeric)))
          << "(H v) of " << params[k].name << "[" << i << "]";
      ++checked;
    }
    EXPECT_GT(largest, 1e-3) << params[k].name;
  }
  EXPECT_EQ(checked, 2944);
  std::printf("H v vs central differences: max |hv - fd| / (1 + |fd|) = "
              "%.3g\n",
              worst);
}

} // namespace
