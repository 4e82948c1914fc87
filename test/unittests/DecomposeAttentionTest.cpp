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
#include "kiln/Runtime/HostTensor.h"
#include "kiln/Runtime/JitSession.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>

using namespace mlir;
using namespace mlir::kiln;
using json = nlohmann::json;

namespace {

struct TensorData {
  DType dtype = DType::F64;
  SmallVector<int64_t> shape;
  std::vector<double> values;
};

struct Case {
  std::string file, name, source;
  std::vector<TensorData> inputs, outputs;
  double rtol = 0, atol = 0;
};

[[maybe_unused]] void PrintTo(const Case &c, std::ostream *os) {
  *os << c.file << "/" << c.name;
}

double decodeValue(const json &value) {
  if (value.is_number())
    return value.get<double>();
  const std::string &text = value.get_ref<const std::string &>();
  if (text == "nan")
    return std::numeric_limits<double>::quiet_NaN();
  return text == "inf" ? std::numeric_limits<double>::infinity()
                       : -std::numeric_limits<double>::infinity();
}

TensorData decodeTensor(const json &value) {
  TensorData data;
  data.dtype = *parseDType(value["dtype"].get<std::string>());
  for (const json &dim : value["shape"])
    data.shape.push_back(dim.get<int64_t>());
  for (const json &element : value["data"])
    data.values.push_back(decodeValue(element));
  return data;
}

HostTensor makeTensor(DType dtype, ArrayRef<int64_t> shape,
                      ArrayRef<double> values) {
  auto tensor = HostTensor::fromDoubles(dtype, shape, values);
  if (!tensor) {
    ADD_FAILURE() << llvm::toString(tensor.takeError());
    return HostTensor();
  }
  return std::move(*tensor);
}

std::vector<Case> loadCases() {
  std::vector<Case> cases;
  for (const char *file : {"attention", "attention_grad"}) {
    std::string path = std::string(KILN_FIXTURES_DIR) + "/" + file + ".json";
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
    if (!buffer) {
      cases.push_back(Case{file, "unreadable"});
      continue;
    }
    json root = json::parse((*buffer)->getBuffer().begin(),
                            (*buffer)->getBuffer().end());
    for (const json &value : root["cases"]) {
      Case c{file, value["name"].get<std::string>(),
             value["source"].get<std::string>()};
      for (const json &tensor : value["inputs"])
        c.inputs.push_back(decodeTensor(tensor));
      for (const json &tensor : value["outputs"])
        c.outputs.push_back(decodeTensor(tensor));
      c.rtol = value["rtol"].get<double>();
      c.atol = value["atol"].get<double>();
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

class DecomposeAttentionTest : public ::testing::TestWithParam<Case> {
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
  const Case &c = GetParam();
  ASSERT_FALSE(c.source.empty()) << c.file << ".json is unreadable";
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
    inputs.push_back(makeTensor(data.dtype, data.shape, data.values));
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

std::string caseName(const ::testing::TestParamInfo<Case> &info) {
  std::string name = info.param.file + "_" + info.param.name;
  for (char &ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)))
      ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, DecomposeAttentionTest,
                         ::testing::ValuesIn(loadCases()), caseName);

//===----------------------------------------------------------------------===//
// kiln.attention_grad from the forward's O and LSE against the recomputing
// form: every f64 `<name>_saved` case of attention_grad.json against
// `<name>`, the same inputs through the op without out/lse.
//===----------------------------------------------------------------------===//

struct SavedPair {
  Case saved, recomputed;
};

[[maybe_unused]] void PrintTo(const SavedPair &pair, std::ostream *os) {
  *os << pair.saved.name;
}

std::vector<SavedPair> loadSavedPairs() {
  std::vector<Case> cases = loadCases();
  std::vector<SavedPair> pairs;
  for (const Case &saved : cases) {
    StringRef name = saved.name;
    if (saved.file != "attention_grad" || !name.ends_with("_f64_saved"))
      continue;
    StringRef plain = name.drop_back(strlen("_saved"));
    for (const Case &recomputed : cases)
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
  // 22 f64 cases in attention_grad.json, each with its `_saved` form.
  EXPECT_EQ(loadSavedPairs().size(), 22u);
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
    inputs.push_back(makeTensor(data.dtype, data.shape, data.values));
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

/// One f64 or integer argument of a second-order case: random uniform in
/// [-1, 1) when `values` is empty.
struct GradArg {
  std::string keyword; // "" for q, k, v, dout; else the operand group.
  DType dtype;
  SmallVector<int64_t> shape;
  std::vector<double> values = {};
  bool wrt = true;
};

struct GradCase {
  std::string name;
  /// B, Hq, Hkv, Sq, Sk, Dk, Dv.
  int64_t b, hq, hkv, sq, sk, dk, dv;
  std::string attrs;
  std::vector<GradArg> extras;
};

[[maybe_unused]] void PrintTo(const GradCase &c, std::ostream *os) {
  *os << c.name;
}

std::string typeOf(ArrayRef<int64_t> shape, DType dtype) {
  return formatTensorType(dtype, shape);
}

/// `f(q, k, v, dO, extras..., w...) = sum_r sum(attention_grad(...)[r] *
/// w_r)` over every result r: its gradient is the second-order adjoint.
std::string gradSource(const GradCase &c, std::vector<GradArg> &args) {
  args = {GradArg{"", DType::F64, {c.b, c.hq, c.sq, c.dk}},
          GradArg{"", DType::F64, {c.b, c.hkv, c.sk, c.dk}},
          GradArg{"", DType::F64, {c.b, c.hkv, c.sk, c.dv}},
          GradArg{"", DType::F64, {c.b, c.hq, c.sq, c.dv}}};
  for (const GradArg &extra : c.extras)
    args.push_back(extra);
  std::vector<std::string> resultTypes;
  for (int i = 0; i < 3; ++i)
    resultTypes.push_back(typeOf(args[i].shape, DType::F64));
  for (const GradArg &extra : c.extras)
    if (extra.keyword == "mask" && extra.dtype == DType::F64)
      resultTypes.push_back(typeOf(extra.shape, DType::F64));
  size_t numOperands = args.size();
  for (const std::string &type : resultTypes) {
    (void)type;
    args.push_back(GradArg{"w", DType::F64, {}});
  }
  // w_r has the shape of result r: dQ, dK, dV, then d_mask.
  size_t maskIndex = 4;
  while (maskIndex < numOperands && args[maskIndex].keyword != "mask")
    ++maskIndex;
  for (size_t r = 0; r < resultTypes.size(); ++r)
    args[numOperands + r].shape = args[r < 3 ? r : maskIndex].shape;

  std::string signature, operands, groups;
  for (auto [i, arg] : llvm::enumerate(args)) {
    std::string name = "%a" + std::to_string(i);
    std::string type = typeOf(arg.shape, arg.dtype);
    signature += (i ? ", " : "") + name + ": " + type;
    if (i < 4)
      operands += (i ? ", " : "") + name;
    else if (i < numOperands)
      groups += " " + arg.keyword + "(" + name + " : " + type + ")";
  }
  std::string results, types;
  for (size_t r = 0; r < resultTypes.size(); ++r) {
    results += (r ? ", %r" : "%r") + std::to_string(r);
    types += (r ? ", " : "") + resultTypes[r];
  }
  std::string body = "func.func @f(" + signature + ") -> tensor<f64> {\n  " +
                     results + " = kiln.attention_grad " + operands + groups +
                     " " + c.attrs + " : ";
  for (int i = 0; i < 4; ++i)
    body += (i ? ", " : "") + typeOf(args[i].shape, DType::F64);
  body += " -> " + types + "\n";
  std::string total;
  for (size_t r = 0; r < resultTypes.size(); ++r) {
    const std::string &t = resultTypes[r];
    std::string n = std::to_string(r);
    int64_t rank = args[numOperands + r].shape.size();
    std::string axes;
    for (int64_t d = 0; d < rank; ++d)
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
  return body + "  return " + total + " : tensor<f64>\n}\n";
}

std::vector<GradCase> gradCases() {
  std::vector<double> boolMask = {1, 0, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0};
  return {
      {"plain", 1, 2, 2, 3, 4, 2, 3, ""},
      {"causal_gqa", 1, 4, 2, 3, 4, 2, 2, "{causal}"},
      {"mqa_top_left_scale", 2, 2, 1, 3, 3, 2, 2,
       "{causal, alignment = #kiln.alignment<top_left>, scale = 0.7 : f64}"},
      {"window_lengths", 2, 2, 1, 4, 4, 2, 2,
       "{window_left = 1 : i64, window_right = 1 : i64}",
       {{"key_lengths", DType::I64, {2}, {3, 0}, false},
        {"query_lengths", DType::I64, {2}, {2, 4}, false}}},
      {"bool_mask_empty_row", 1, 2, 1, 3, 4, 2, 2, "",
       {{"mask", DType::I1, {3, 4}, boolMask, false}}},
      {"softcap", 1, 2, 2, 3, 3, 2, 2, "{softcap = 0.8 : f64}"},
      {"additive_mask_softcap_gqa", 2, 4, 2, 2, 3, 2, 2,
       "{softcap = 1.5 : f64}", {{"mask", DType::F64, {1, 4, 1, 3}}}},
      {"additive_mask_dense", 1, 2, 2, 3, 3, 2, 2, "{causal}",
       {{"mask", DType::F64, {1, 2, 3, 3}}}},
      {"dropout", 1, 2, 1, 3, 4, 2, 2, "{dropout_p = 0.3 : f64}",
       {{"seed", DType::I64, {}, {77}, false}}},
  };
}

class AttentionGradRuleTest : public ::testing::TestWithParam<GradCase> {};

TEST_P(AttentionGradRuleTest, MatchesFiniteDifferences) {
  const GradCase &c = GetParam();
  std::vector<GradArg> args;
  std::string source = gradSource(c, args);
  static JitSession *session = [] {
    auto *s = new JitSession();
    DialectRegistry registry;
    registry.insert<func::FuncDialect, KilnDialect>();
    registerAutodiffExternalModels(registry);
    s->getContext().appendDialectRegistry(registry);
    return s;
  }();
  MLIRContext &context = session->getContext();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  ASSERT_TRUE(module) << source;
  SmallVector<int64_t> wrt;
  for (auto [i, arg] : llvm::enumerate(args))
    if (arg.wrt && arg.keyword != "w")
      wrt.push_back(i);
  auto f = module->lookupSymbol<func::FuncOp>("f");
  ASSERT_TRUE(succeeded(generateValueAndGrad(*module, f, wrt))) << source;
  auto compiled = session->compile(*module);
  ASSERT_TRUE(succeeded(compiled)) << "compilation failed (see stderr)";
  JitModule &jit = **compiled;

  std::mt19937_64 rng(std::hash<std::string>()(c.name) & 0xffff);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  SmallVector<HostTensor> inputs;
  for (const GradArg &arg : args) {
    int64_t n = 1;
    for (int64_t d : arg.shape)
      n *= d;
    std::vector<double> values = arg.values;
    if (values.empty())
      for (int64_t i = 0; i < n; ++i)
        values.push_back(uniform(rng));
    inputs.push_back(makeTensor(arg.dtype, arg.shape, values));
  }
  auto valueAndGrad = jit.invoke("f_value_and_grad", inputs);
  ASSERT_TRUE(succeeded(valueAndGrad));
  ASSERT_EQ(valueAndGrad->size(), wrt.size() + 1);

  const double h = 1e-6;
  int64_t nonZero = 0;
  for (auto [k, argIndex] : llvm::enumerate(wrt)) {
    const HostTensor &gradient = (*valueAndGrad)[k + 1];
    HostTensor &x = inputs[argIndex];
    for (int64_t i = 0; i < x.getNumElements(); ++i) {
      double saved = x.getElementAsDouble(i);
      x.setElementFromDouble(i, saved + h);
      double plus = (*jit.invoke("f", inputs))[0].getElementAsDouble(0);
      x.setElementFromDouble(i, saved - h);
      double minus = (*jit.invoke("f", inputs))[0].getElementAsDouble(0);
      x.setElementFromDouble(i, saved);
      double numeric = (plus - minus) / (2 * h);
      double analytic = gradient.getElementAsDouble(i);
      // Where f does not depend on an entry (masked keys, empty rows), the
      // rule must give exactly 0, never a rounding residue or NaN.
      if (plus == minus)
        EXPECT_EQ(analytic, 0.0) << "arg" << argIndex << "[" << i << "]";
      else
        ++nonZero;
      EXPECT_NEAR(analytic, numeric, 1e-6 * (1 + std::fabs(numeric)))
          << "arg" << argIndex << "[" << i << "]";
    }
  }
  EXPECT_GT(nonZero, 0);
}

std::string gradCaseName(const ::testing::TestParamInfo<GradCase> &info) {
  return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(SecondOrder, AttentionGradRuleTest,
                         ::testing::ValuesIn(gradCases()), gradCaseName);

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
