//===- DecomposeAttentionTest.cpp - The decomposition against the fused ops ===//
//
// Every case of test/fixtures/attention.json and attention_grad.json runs
// twice in one JIT module: as written (@main, the fused CPU lowering of
// kiln.attention / kiln.attention_grad) and after decomposeAttentionOps
// (@decomposed, primitive kiln ops). The decomposed results must match the
// fused ones (f64: within 1e-12 relative) and the PyTorch references of the
// fixture within its own tolerance.
//
// kiln.attention_grad's backward rule (second order: it differentiates the
// decomposition) is checked against central finite differences in f64, as
// AutodiffTest.cpp checks the first-order rules.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/Autodiff.h"
#include "kiln/Dialect/Kiln/Transforms/DecomposeAttention.h"
#include "kiln/Support/HostTensor.h"
#include "kiln/Execution/JitSession.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "TestSupport/AttentionCases.h"
#include "TestSupport/Fixtures.h"
#include "TestSupport/JitHarness.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace mlir::kiln;
using test::FixtureCase;
using test::TensorData;

namespace {

/// The cases of attention.json and attention_grad.json, in file order.
std::vector<FixtureCase> loadCases() {
  std::vector<FixtureCase> cases;
  for (const char *file : {"attention", "attention_grad"})
    for (FixtureCase &c : test::loadFixtureFile(std::string(KILN_FIXTURES_DIR) +
                                                "/" + file + ".json"))
      cases.push_back(std::move(c));
  return cases;
}

class DecomposeAttentionTest : public ::testing::TestWithParam<FixtureCase> {
protected:
  static JitSession &session() {
    static JitSession instance;
    return instance;
  }
  /// The largest |decomposed - fused| / (1 + |fused|) over the f64 cases.
  static double &worstF64() {
    static double worst = 0;
    return worst;
  }
  static void TearDownTestSuite() {
    std::printf("decomposed vs fused, f64 cases: max |d - f| / (1 + |f|) = "
                "%.3g\n",
                worstF64());
  }
};

TEST_P(DecomposeAttentionTest, MatchesFusedAndPyTorch) {
  const FixtureCase &c = GetParam();
  ASSERT_TRUE(c.error.empty()) << c.file << "/" << c.name << ": " << c.error;
  MLIRContext &context = session().getContext();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(c.source, &context);
  ASSERT_TRUE(module);

  // @decomposed: a clone of @main with its attention ops decomposed.
  auto main = module->lookupSymbol<func::FuncOp>("main");
  ASSERT_TRUE(main);
  func::FuncOp decomposed = main.clone();
  decomposed.setSymName("decomposed");
  module->push_back(decomposed);
  ASSERT_TRUE(succeeded(decomposeAttentionOps(decomposed)));
  bool attentionLeft = false;
  decomposed.walk([&](Operation *op) {
    attentionLeft |= isa<AttentionOp, AttentionGradOp>(op);
  });
  ASSERT_FALSE(attentionLeft);

  auto compiled = session().compile(*module);
  ASSERT_TRUE(succeeded(compiled)) << "compilation failed (see stderr)";
  SmallVector<HostTensor> inputs;
  for (const TensorData &data : c.inputs)
    inputs.push_back(test::makeTensor(data.dtype, data.shape, data.values));
  auto fused = (*compiled)->invoke("main", inputs);
  auto mine = (*compiled)->invoke("decomposed", inputs);
  ASSERT_TRUE(succeeded(fused) && succeeded(mine));
  ASSERT_EQ(mine->size(), c.outputs.size());

  for (auto [index, want] : llvm::enumerate(c.outputs)) {
    SCOPED_TRACE("result #" + std::to_string(index));
    const HostTensor &got = (*mine)[index];
    const HostTensor &ref = (*fused)[index];
    ASSERT_EQ(SmallVector<int64_t>(got.getShape()), want.shape);
    bool isF64 = got.getDType() == DType::F64;
    int failures = 0;
    for (int64_t i = 0; i < got.getNumElements(); ++i) {
      double g = got.getElementAsDouble(i), f = ref.getElementAsDouble(i);
      double w = want.values[i];
      // The lse of an empty row is +inf, in every form.
      if (std::isinf(w)) {
        if ((g != w || f != w) && failures++ < 5)
          ADD_FAILURE() << "element " << i << ": decomposed " << g << ", fused "
                        << f << ", PyTorch " << w;
        continue;
      }
      ASSERT_TRUE(std::isfinite(g)) << "element " << i << " is " << g;
      double relative = std::fabs(g - f) / (1 + std::fabs(f));
      if (isF64)
        worstF64() = std::max(worstF64(), relative);
      // f64 must agree with the fused op to rounding; the other types
      // within the fixture's tolerance of PyTorch, as the fused op does.
      bool closeToFused = isF64 ? relative <= 1e-12
                                : std::fabs(g - f) <= c.atol + c.rtol * std::fabs(f);
      bool closeToTorch = std::fabs(g - w) <= c.atol + c.rtol * std::fabs(w);
      if ((!closeToFused || !closeToTorch) && failures++ < 5)
        ADD_FAILURE() << "element " << i << ": decomposed " << g << ", fused "
                      << f << ", PyTorch " << w;
    }
  }
}

std::string caseName(const ::testing::TestParamInfo<FixtureCase> &info) {
  return test::getFixtureTestName(info.param);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, DecomposeAttentionTest,
                         ::testing::ValuesIn(loadCases()), caseName);

//===----------------------------------------------------------------------===//
// kiln.attention_grad from the forward's O and LSE against the recomputing
// form: every f64 `<name>_saved` case of attention_grad.json against
// `<name>`, the same inputs through the op without out/lse.
//===----------------------------------------------------------------------===//

struct SavedPair {
  FixtureCase saved, recomputed;
};

[[maybe_unused]] void PrintTo(const SavedPair &pair, std::ostream *os) {
  *os << pair.saved.name;
}

std::vector<SavedPair> loadSavedPairs() {
  std::vector<FixtureCase> cases = loadCases();
  std::vector<SavedPair> pairs;
  for (const FixtureCase &saved : cases) {
    StringRef name = saved.name;
    if (saved.file != "attention_grad" || !name.ends_with("_f64_saved"))
      continue;
    StringRef plain = name.drop_back(strlen("_saved"));
    for (const FixtureCase &recomputed : cases)
      if (recomputed.file == "attention_grad" && recomputed.name == plain)
        pairs.push_back({saved, recomputed});
  }
  return pairs;
}

class SavedForwardTest : public ::testing::TestWithParam<SavedPair> {
protected:
  static JitSession &session() {
    static JitSession instance;
    return instance;
  }
  /// The largest max|saved - recomputed| / max|recomputed| of one result.
  static double &worst() {
    static double value = 0;
    return value;
  }
  static void TearDownTestSuite() {
    std::printf("attention_grad with out/lse vs recomputed, f64 cases: max "
                "over results of max|s - r| / max|r| = %.3g\n",
                worst());
  }
};

TEST(SavedForwardCases, EveryF64CaseHasASavedForm) {
  // Every f64 case of attention_grad.json pairs with its `_saved` form.
  std::vector<FixtureCase> cases = loadCases();
  size_t f64Cases = llvm::count_if(cases, [](const FixtureCase &c) {
    return c.file == "attention_grad" && StringRef(c.name).ends_with("_f64");
  });
  EXPECT_GE(f64Cases, 24u);
  EXPECT_EQ(loadSavedPairs().size(), f64Cases);
}

TEST_P(SavedForwardTest, MatchesRecomputedAdjoint) {
  const SavedPair &pair = GetParam();
  MLIRContext &context = session().getContext();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(pair.saved.source, &context);
  OwningOpRef<ModuleOp> other =
      parseSourceString<ModuleOp>(pair.recomputed.source, &context);
  ASSERT_TRUE(module && other);
  // The saved form really reads the forward's O and LSE.
  bool saved = false;
  module->walk([&](AttentionGradOp op) { saved = op.hasSavedForward(); });
  ASSERT_TRUE(saved);
  auto recomputed = other->lookupSymbol<func::FuncOp>("main");
  ASSERT_TRUE(recomputed);
  recomputed->remove();
  recomputed.setSymName("recomputed");
  module->push_back(recomputed);

  auto compiled = session().compile(*module);
  ASSERT_TRUE(succeeded(compiled)) << "compilation failed (see stderr)";
  SmallVector<HostTensor> inputs;
  for (const TensorData &data : pair.saved.inputs)
    inputs.push_back(test::makeTensor(data.dtype, data.shape, data.values));
  auto fromSaved = (*compiled)->invoke("main", inputs);
  auto fromScratch = (*compiled)->invoke("recomputed", inputs);
  ASSERT_TRUE(succeeded(fromSaved) && succeeded(fromScratch));
  ASSERT_EQ(fromSaved->size(), fromScratch->size());
  for (size_t index = 0; index < fromSaved->size(); ++index) {
    SCOPED_TRACE("result #" + std::to_string(index));
    const HostTensor &s = (*fromSaved)[index];
    const HostTensor &r = (*fromScratch)[index];
    ASSERT_EQ(s.getNumElements(), r.getNumElements());
    double maxRef = 0, maxDiff = 0;
    for (int64_t i = 0; i < r.getNumElements(); ++i) {
      double x = s.getElementAsDouble(i), y = r.getElementAsDouble(i);
      ASSERT_TRUE(std::isfinite(x)) << "element " << i << " is " << x;
      maxRef = std::max(maxRef, std::fabs(y));
      maxDiff = std::max(maxDiff, std::fabs(x - y));
    }
    // Exactly equal where the reference is all zero (empty rows, no keys).
    double relative = maxRef == 0 ? maxDiff : maxDiff / maxRef;
    worst() = std::max(worst(), relative);
    EXPECT_LE(relative, 1e-13)
        << "max |diff| " << maxDiff << ", max |ref| " << maxRef;
  }
}

std::string pairName(const ::testing::TestParamInfo<SavedPair> &info) {
  return info.param.saved.name;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, SavedForwardTest,
                         ::testing::ValuesIn(loadSavedPairs()), pairName);

//===----------------------------------------------------------------------===//
// kiln.attention_grad's rule against central differences
//===----------------------------------------------------------------------===//

/// The function of a second-order case, its inputs, and the arguments it is
/// differentiated with respect to.
struct GradFunction {
  std::string source;
  std::vector<test::InputSpec> inputs;
  SmallVector<int64_t> wrt;
};

/// `f(q, k, v, dO, extras..., w...) = sum_r sum(attention_grad(...)[r] *
/// w_r)` over every result r: its gradient is the second-order adjoint.
GradFunction buildGradFunction(const test::AttentionCase &c) {
  const test::AttentionShape &s = c.shape;
  GradFunction fn;
  fn.inputs = {test::f64(s.getQueryShape()), test::f64(s.getKeyShape()),
               test::f64(s.getValueShape()), test::f64(s.getOutputShape())};
  fn.wrt = {0, 1, 2, 3};
  std::string signature, operands, operandTypes, groups;
  for (int i = 0; i < 4; ++i) {
    std::string type = formatTensorType(DType::F64, fn.inputs[i].shape);
    signature += (i ? ", %a" : "%a") + std::to_string(i) + ": " + type;
    operands += (i ? ", %a" : "%a") + std::to_string(i);
    operandTypes += (i ? ", " : "") + type;
  }
  // The results: dQ, dK, dV, then d_mask for an f64 mask.
  std::vector<SmallVector<int64_t>> resultShapes = {
      s.getQueryShape(), s.getKeyShape(), s.getValueShape()};
  std::vector<std::string> names;
  for (const test::AttentionOperand &extra : c.extras) {
    std::string name = "%a" + std::to_string(fn.inputs.size());
    signature += ", " + name + ": " + extra.getType();
    names.push_back(name);
    if (extra.wrt)
      fn.wrt.push_back(fn.inputs.size());
    if (extra.keyword == "mask" && extra.input.dtype == DType::F64)
      resultShapes.push_back(extra.input.shape);
    fn.inputs.push_back(extra.input);
  }
  groups = test::formatOperandGroups(c.extras, names);
  // w_r has the shape of result r.
  size_t numOperands = fn.inputs.size();
  std::string results, types;
  for (auto [r, shape] : llvm::enumerate(resultShapes)) {
    std::string type = formatTensorType(DType::F64, shape);
    signature += ", %a" + std::to_string(fn.inputs.size()) + ": " + type;
    fn.inputs.push_back(test::f64(shape));
    results += (r ? ", %r" : "%r") + std::to_string(r);
    types += (r ? ", " : "") + type;
  }
  std::string body = "func.func @f(" + signature + ") -> tensor<f64> {\n  " +
                     results + " = kiln.attention_grad " + operands + groups +
                     " " + c.attrs + " : " + operandTypes + " -> " + types +
                     "\n";
  std::string total;
  for (auto [r, shape] : llvm::enumerate(resultShapes)) {
    std::string t = formatTensorType(DType::F64, shape);
    std::string n = std::to_string(r);
    std::string axes;
    for (size_t d = 0; d < shape.size(); ++d)
      axes += (d ? ", " : "") + std::to_string(d);
    body += "  %m" + n + " = kiln.mul %r" + n + ", %a" +
            std::to_string(numOperands + r) + " : (" + t + ", " + t + ") -> " +
            t + "\n  %s" + n + " = kiln.sum %m" + n + " {axes = array<i64: " +
            axes + ">} : " + t + " -> tensor<f64>\n";
    if (r == 0) {
      total = "%s0";
    } else {
      body += "  %t" + n + " = kiln.add " + total + ", %s" + n +
              " : (tensor<f64>, tensor<f64>) -> tensor<f64>\n";
      total = "%t" + n;
    }
  }
  fn.source = body + "  return " + total + " : tensor<f64>\n}\n";
  return fn;
}

std::vector<test::AttentionCase> gradCases() {
  using test::given;
  std::vector<double> boolMask = {1, 0, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0};
  return {
      {"plain", {1, 2, 2, 3, 4, 2, 3}, ""},
      {"causal_gqa", {1, 4, 2, 3, 4, 2, 2}, "{causal}"},
      {"mqa_top_left_scale",
       {2, 2, 1, 3, 3, 2, 2},
       "{causal, alignment = #kiln.alignment<top_left>, scale = 0.7 : f64}"},
      {"window_lengths",
       {2, 2, 1, 4, 4, 2, 2},
       "{window_left = 1 : i64, window_right = 1 : i64}",
       {{"key_lengths", given(DType::I64, {2}, {3, 0})},
        {"query_lengths", given(DType::I64, {2}, {2, 4})}}},
      {"bool_mask_empty_row",
       {1, 2, 1, 3, 4, 2, 2},
       "",
       {{"mask", given(DType::I1, {3, 4}, boolMask)}}},
      {"softcap", {1, 2, 2, 3, 3, 2, 2}, "{softcap = 0.8 : f64}"},
      {"additive_mask_softcap_gqa",
       {2, 4, 2, 2, 3, 2, 2},
       "{softcap = 1.5 : f64}",
       {{"mask", test::f64({1, 4, 1, 3}), true}}},
      {"additive_mask_dense",
       {1, 2, 2, 3, 3, 2, 2},
       "{causal}",
       {{"mask", test::f64({1, 2, 3, 3}), true}}},
      {"dropout",
       {1, 2, 1, 3, 4, 2, 2},
       "{dropout_p = 0.3 : f64}",
       {{"seed", given(DType::I64, {}, {77})}}},
      // Packed sequences: the second-order rule differentiates the
      // decomposition's per-sequence visibility (no gradient reaches the
      // offsets).
      {"packed_causal",
       {1, 2, 1, 5, 6, 2, 2},
       "{causal}",
       {{"cu_seqlens_q", given(DType::I64, {3}, {0, 2, 5})},
        {"cu_seqlens_k", given(DType::I64, {3}, {0, 3, 6})}}},
  };
}

class AttentionGradRuleTest
    : public ::testing::TestWithParam<test::AttentionCase> {};

TEST_P(AttentionGradRuleTest, MatchesFiniteDifferences) {
  const test::AttentionCase &c = GetParam();
  GradFunction fn = buildGradFunction(c);
  JitSession &session = test::getAutodiffSession();
  MLIRContext &context = session.getContext();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(fn.source, &context);
  ASSERT_TRUE(module) << fn.source;
  auto f = module->lookupSymbol<func::FuncOp>("f");
  ASSERT_TRUE(succeeded(generateValueAndGrad(*module, f, fn.wrt))) << fn.source;
  auto compiled = session.compile(*module);
  ASSERT_TRUE(succeeded(compiled)) << "compilation failed (see stderr)";
  JitModule &jit = **compiled;

  SmallVector<HostTensor> inputs =
      test::makeInputs(fn.inputs, test::getCaseSeed(c.name));
  auto valueAndGrad = jit.invoke("f_value_and_grad", inputs);
  ASSERT_TRUE(succeeded(valueAndGrad));
  ASSERT_EQ(valueAndGrad->size(), fn.wrt.size() + 1);

  // Where f does not depend on an entry (masked keys, empty rows), the
  // rule must give exactly 0, never a rounding residue or NaN.
  test::CentralDifferenceOptions options;
  options.exactZeros = true;
  test::CentralDifferenceStats stats =
      test::expectGradientsMatchCentralDifferences(
          jit, "f", inputs, fn.wrt, *valueAndGrad, "arg", options);
  EXPECT_GT(stats.dependent, 0);
}

std::string
gradCaseName(const ::testing::TestParamInfo<test::AttentionCase> &info) {
  return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(SecondOrder, AttentionGradRuleTest,
                         ::testing::ValuesIn(gradCases()), gradCaseName);

/// One value passed as both query and key (self-attention on shared
/// projections): the rule's adjoint of that value is the sum of the two
/// operands' adjoints, counted once.
TEST(AttentionGradRuleSameValueTest, QueryIsKey) {
  constexpr const char *kSource = R"mlir(
func.func @f(%x: tensor<1x1x3x2xf64>, %v: tensor<1x1x3x2xf64>, %do: tensor<1x1x3x2xf64>, %w0: tensor<1x1x3x2xf64>, %w1: tensor<1x1x3x2xf64>, %w2: tensor<1x1x3x2xf64>) -> tensor<f64> {
  %dq, %dk, %dv = kiln.attention_grad %x, %x, %v, %do {causal} : tensor<1x1x3x2xf64>, tensor<1x1x3x2xf64>, tensor<1x1x3x2xf64>, tensor<1x1x3x2xf64> -> tensor<1x1x3x2xf64>, tensor<1x1x3x2xf64>, tensor<1x1x3x2xf64>
  %m0 = kiln.mul %dq, %w0 : (tensor<1x1x3x2xf64>, tensor<1x1x3x2xf64>) -> tensor<1x1x3x2xf64>
  %m1 = kiln.mul %dk, %w1 : (tensor<1x1x3x2xf64>, tensor<1x1x3x2xf64>) -> tensor<1x1x3x2xf64>
  %m2 = kiln.mul %dv, %w2 : (tensor<1x1x3x2xf64>, tensor<1x1x3x2xf64>) -> tensor<1x1x3x2xf64>
  %a = kiln.add %m0, %m1 : (tensor<1x1x3x2xf64>, tensor<1x1x3x2xf64>) -> tensor<1x1x3x2xf64>
  %b = kiln.add %a, %m2 : (tensor<1x1x3x2xf64>, tensor<1x1x3x2xf64>) -> tensor<1x1x3x2xf64>
  %s = kiln.sum %b {axes = array<i64: 0, 1, 2, 3>} : tensor<1x1x3x2xf64> -> tensor<f64>
  return %s : tensor<f64>
}
)mlir";
  JitSession &session = test::getAutodiffSession();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kSource, &session.getContext());
  ASSERT_TRUE(module);
  auto f = module->lookupSymbol<func::FuncOp>("f");
  SmallVector<int64_t> wrt = {0, 1, 2};
  ASSERT_TRUE(succeeded(generateValueAndGrad(*module, f, wrt)));
  auto compiled = session.compile(*module);
  ASSERT_TRUE(succeeded(compiled)) << "compilation failed (see stderr)";
  std::vector<test::InputSpec> specs(6, test::f64({1, 1, 3, 2}));
  SmallVector<HostTensor> inputs = test::makeInputs(specs, 31);
  auto valueAndGrad = (*compiled)->invoke("f_value_and_grad", inputs);
  ASSERT_TRUE(succeeded(valueAndGrad));
  test::CentralDifferenceStats stats =
      test::expectGradientsMatchCentralDifferences(**compiled, "f", inputs, wrt,
                                                   *valueAndGrad, "arg");
  EXPECT_GT(stats.dependent, 0);
}

/// populateDecomposeAttentionPatterns under the greedy driver expands both
/// ops, as the pass does.
TEST(DecomposeAttentionPatternsTest, GreedyDriverExpandsBothOps) {
  MLIRContext context;
  context.loadDialect<func::FuncDialect, KilnDialect>();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
func.func @f(%q: tensor<1x4x3x2xf32>, %k: tensor<1x2x5x2xf32>, %v: tensor<1x2x5x2xf32>, %do: tensor<1x4x3x2xf32>)
    -> (tensor<1x4x3x2xf32>, tensor<1x4x3x2xf32>, tensor<1x2x5x2xf32>, tensor<1x2x5x2xf32>) {
  %o = kiln.attention %q, %k, %v {causal} : tensor<1x4x3x2xf32>, tensor<1x2x5x2xf32>, tensor<1x2x5x2xf32> -> tensor<1x4x3x2xf32>
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do {causal} : tensor<1x4x3x2xf32>, tensor<1x2x5x2xf32>, tensor<1x2x5x2xf32>, tensor<1x4x3x2xf32>
      -> tensor<1x4x3x2xf32>, tensor<1x2x5x2xf32>, tensor<1x2x5x2xf32>
  return %o, %dq, %dk, %dv : tensor<1x4x3x2xf32>, tensor<1x4x3x2xf32>, tensor<1x2x5x2xf32>, tensor<1x2x5x2xf32>
}
)mlir",
                                                               &context);
  ASSERT_TRUE(module);
  RewritePatternSet patterns(&context);
  populateDecomposeAttentionPatterns(patterns);
  ASSERT_TRUE(succeeded(applyPatternsGreedily(*module, std::move(patterns))));
  int attention = 0, softmax = 0;
  module->walk([&](Operation *op) {
    attention += isa<AttentionOp, AttentionGradOp>(op);
    softmax += isa<SoftmaxOp>(op);
  });
  EXPECT_EQ(attention, 0);
  // One forward each: the grad recomputes P.
  EXPECT_EQ(softmax, 2);
}

} // namespace
