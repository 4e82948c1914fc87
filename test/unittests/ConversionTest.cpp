//===- ConversionTest.cpp - The kiln-to-linalg conversion -----------------===//

#include "kiln/Conversion/KilnToLinalg/KilnToLinalg.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include "TestSupport/PipelineHarness.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::kiln;

namespace {

TEST(KilnToLinalgTest, OpsWithCPULowering) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  SmallVector<std::string> names;
  for (OperationName name : getKilnOpsWithCPULowering(&context))
    names.push_back(name.getStringRef().str());
  // Sorted, unique, kiln ops only.
  for (const std::string &name : names)
    EXPECT_TRUE(StringRef(name).starts_with("kiln.")) << name;
  EXPECT_TRUE(llvm::is_sorted(names));
  EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end());
}

/// The coverage matrix's CPU column is complete: every op the dialect
/// registers has a kiln-to-linalg pattern.
TEST(KilnToLinalgTest, EveryKilnOpHasCPULowering) {
  MLIRContext context;
  test::loadAllDialects(context);
  llvm::StringSet<> lowered;
  for (OperationName name : getKilnOpsWithCPULowering(&context))
    lowered.insert(name.getStringRef());
  // kiln.value_and_grad never reaches the conversion: kiln-autodiff, the
  // first pass of kiln-lower-to-cpu, replaces it with generated functions.
  lowered.insert(ValueAndGradOp::getOperationName());
  std::vector<std::string> missing =
      test::getKilnOpsMissingFrom(context, lowered);
  EXPECT_TRUE(missing.empty())
      << "ops without a CPU lowering: " << llvm::join(missing, ", ");
}

TEST(KilnToLinalgTest, OpWithoutLoweringIsNamed) {
  MLIRContext context;
  test::loadAllDialects(context);
  // Every kiln op of this branch has a lowering, so an unregistered op of
  // the kiln namespace stands in for a new op without one.
  OwningOpRef<ModuleOp> module = test::buildModuleWithUnloweredOp(context);
  test::PassRun run = test::runPasses(*module, [](PassManager &pm) {
    pm.addPass(createConvertKilnToLinalgPass());
  });
  EXPECT_FALSE(run.succeeded);
  EXPECT_EQ(run.getDiagnostics(),
            "'kiln.not_lowered_yet' has no CPU lowering yet");
}

} // namespace
