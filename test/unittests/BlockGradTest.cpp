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

#include "kiln/Runtime/HostTensor.h"
#include "kiln/Runtime/JitSession.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <cmath>
#include <random>
#include <string>

using namespace mlir;
using namespace mlir::kiln;

namespace {

std::string replaceAll(std::string text, const std::string &from,
                       const std::string &to) {
  for (size_t pos = text.find(from); pos != std::string::npos;
       pos = text.find(from, pos + to.size()))
    text.replace(pos, from.size(), to);
  return text;
}

struct Param {
  const char *name;
  SmallVector<int64_t> shape;
  /// Entries are `offset + scale * N(0, 1)`.
  double offset, scale;
};

TEST(BlockGradTest, EveryGradientEntryMatchesFiniteDifferences) {
  auto buffer = llvm::MemoryBuffer::getFile(KILN_EXAMPLES_DIR
                                            "/transformer_block.mlir");
  ASSERT_TRUE(bool(buffer)) << "cannot read transformer_block.mlir";
  std::string source =
      replaceAll((*buffer)->getBuffer().str(), "f32", "f64");

  const double d = 16, ff = 32;
  const SmallVector<Param> params = {
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

  std::mt19937_64 rng(20261129);
  SmallVector<HostTensor> inputs;
  auto push = [&](DType dtype, ArrayRef<int64_t> shape,
                  ArrayRef<double> values) {
    auto tensor = HostTensor::fromDoubles(dtype, shape, values);
    ASSERT_TRUE(bool(tensor)) << llvm::toString(tensor.takeError());
    inputs.push_back(std::move(*tensor));
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

  const double h = 1e-6;
  int64_t checked = 0;
  for (int k = 0; k < 12; ++k) {
    const HostTensor &gradient = (*valueAndGrad)[k + 1];
    HostTensor &x = inputs[k + 2];
    ASSERT_EQ(gradient.getShape(), x.getShape()) << params[k].name;
    double largest = 0;
    for (int64_t i = 0; i < x.getNumElements(); ++i) {
      double saved = x.getElementAsDouble(i);
      x.setElementFromDouble(i, saved + h);
      auto plus = jit.invoke("loss", inputs);
      x.setElementFromDouble(i, saved - h);
      auto minus = jit.invoke("loss", inputs);
      x.setElementFromDouble(i, saved);
      ASSERT_TRUE(succeeded(plus) && succeeded(minus));
      double numeric = ((*plus)[0].getElementAsDouble(0) -
                        (*minus)[0].getElementAsDouble(0)) /
                       (2 * h);
      double analytic = gradient.getElementAsDouble(i);
      largest = std::max(largest, std::fabs(analytic));
      EXPECT_NEAR(analytic, numeric, 1e-6 * (1 + std::fabs(numeric)))
          << "d loss / d " << params[k].name << "[" << i << "]";
      ++checked;
    }
    // The class token is the last position, which attends to every token,
    // so no gradient is identically zero (a test of nothing).
    EXPECT_GT(largest, 1e-3) << params[k].name;
  }
  EXPECT_EQ(checked, 2944);
}

} // namespace
