//===- CoverageTest.cpp - The coverage-matrix generator -------------------===//

#include "kiln/Tools/Coverage.h"
#include "kiln/Dialect/Kiln/IR/KilnInterfaces.h"
#include "kiln/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/ADT/StringSet.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::kiln;

namespace {

TEST(CoverageTest, FixtureOpsAtAnyDepth) {
  std::vector<std::string> ops;
  std::string error;
  ASSERT_TRUE(succeeded(collectFixtureOps(
      R"({"op": "kiln.add", "cases": [{"op": "kiln.exp"}, {"op": "torch.x"}],
          "nested": {"deeper": [{"op": "kiln.sum", "other": 1}]}})",
      ops, error)));
  std::sort(ops.begin(), ops.end());
  EXPECT_EQ(ops, (std::vector<std::string>{"kiln.add", "kiln.exp", "kiln.sum"}));
}

TEST(CoverageTest, MalformedFixtureIsAnError) {
  std::vector<std::string> ops;
  std::string error;
  EXPECT_TRUE(failed(collectFixtureOps("{\"op\": ", ops, error)));
  EXPECT_EQ(error, "malformed JSON");
}

/// A registered kiln op without an ODS record is reported, never skipped.
TEST(CoverageTest, RegisteredOpWithoutRecordIsAnError) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  std::vector<OpCoverage> rows;
  std::string error;
  EXPECT_TRUE(failed(collectCoverage(
      context, R"({"!instanceof": {"Op": []}})", {}, rows, error)));
  EXPECT_NE(error.find("is registered but has no ODS record"),
            std::string::npos);
}

TEST(CoverageTest, MalformedRecordsAreAnError) {
  MLIRContext context;
  std::vector<OpCoverage> rows;
  std::string error;
  EXPECT_TRUE(failed(collectCoverage(context, "[1, 2", {}, rows, error)));
  EXPECT_TRUE(failed(collectCoverage(context, "{}", {}, rows, error)));
}

TEST(CoverageTest, MarkdownCountsColumns) {
  OpCoverage a;
  a.name = "kiln.a";
  a.verifier = "custom";
  a.backward = OpCoverage::Backward::Rule;
  a.numericalTest = true;
  OpCoverage b;
  b.name = "kiln.b";
  b.verifier = "inferred";
  b.folder = "fold";
  OpCoverage c;
  c.name = "kiln.c";
  c.verifier = "inferred";
  c.backward = OpCoverage::Backward::NonDifferentiable;
  c.cpuLowering = true;
  std::string text = renderCoverageMarkdown({a, b, c});
  EXPECT_NE(text.find("| `kiln.a` | custom | — | rule | — | — | yes |"),
            std::string::npos);
  EXPECT_NE(text.find("| `kiln.b` | inferred | fold | — |"), std::string::npos);
  EXPECT_NE(text.find("| `kiln.c` | inferred | — | not differentiable | yes |"),
            std::string::npos);
  EXPECT_NE(text.find("3 ops: 1 with a backward rule, 1 not differentiable, "
                      "1 with a CPU lowering, 0 with a GPU lowering, 1 with a "
                      "numerical test."),
            std::string::npos);
  std::string json = renderCoverageJson({a, b, c});
  EXPECT_NE(json.find("\"op\": \"kiln.b\""), std::string::npos);
  EXPECT_NE(json.find("\"backward\": \"not differentiable\""),
            std::string::npos);
  EXPECT_NE(json.find("\"backward\": \"none\""), std::string::npos);
}

/// Non-differentiability is a property of the op, readable from its name
/// alone, which is what the coverage matrix has.
TEST(CoverageTest, NonDifferentiableAtTheOpName) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  auto nonDifferentiable = [&](StringRef opName) {
    std::optional<RegisteredOperationName> name =
        RegisteredOperationName::lookup(opName, &context);
    EXPECT_TRUE(name) << opName.str();
    auto *autodiff = name ? name->getInterface<AutodiffOpInterface>() : nullptr;
    EXPECT_TRUE(autodiff) << opName.str();
    return autodiff && autodiff->isNonDifferentiable();
  };
  for (StringRef op : {"kiln.lt", "kiln.eq", "kiln.argmax", "kiln.iota",
                       "kiln.sign", "kiln.constant"})
    EXPECT_TRUE(nonDifferentiable(op)) << op.str();
  for (StringRef op :
       {"kiln.add", "kiln.attention", "kiln.index_add", "kiln.max"})
    EXPECT_FALSE(nonDifferentiable(op)) << op.str();
}

/// The backward column is complete: every registered kiln op either has a
/// backward rule or is declared non-differentiable (both through
/// AutodiffOpInterface), except the ops listed here, each for its reason.
/// An op listed here that gains a rule fails the test, so the list only
/// shrinks.
TEST(CoverageTest, EveryDifferentiableOpHasABackwardRule) {
  const llvm::StringSet<> withoutRule = {
      // kiln-autodiff expands it (inlined where it is differentiated
      // through) before any rule is asked for.
      "kiln.value_and_grad",
  };
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  int64_t kilnOps = 0;
  for (RegisteredOperationName name : context.getRegisteredOperations()) {
    if (name.getDialectNamespace() != "kiln")
      continue;
    ++kilnOps;
    bool hasRule = name.hasInterface<AutodiffOpInterface>();
    if (withoutRule.contains(name.getStringRef()))
      EXPECT_FALSE(hasRule) << name.getStringRef().str()
                            << " has a rule now: remove it from the list";
    else
      EXPECT_TRUE(hasRule) << name.getStringRef().str()
                           << " has no backward rule and is not declared "
                              "non-differentiable";
  }
  EXPECT_GT(kilnOps, 0);
}

} // namespace
