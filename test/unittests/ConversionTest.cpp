//===- ConversionTest.cpp - The kiln-to-linalg conversion -----------------===//

#include "kiln/Conversion/KilnToLinalg/KilnToLinalg.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

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
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  llvm::StringSet<> lowered;
  for (OperationName name : getKilnOpsWithCPULowering(&context))
    lowered.insert(name.getStringRef());
  std::vector<std::string> missing;
  for (RegisteredOperationName name : context.getRegisteredOperations())
    if (name.getDialectNamespace() == "kiln" &&
        !lowered.contains(name.getStringRef()))
      missing.push_back(name.getStringRef().str());
  EXPECT_TRUE(missing.empty())
      << "ops without a CPU lowering: " << llvm::join(missing, ", ");
}

TEST(KilnToLinalgTest, OpWithoutLoweringIsNamed) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.allowUnregisteredDialects();

  // Every kiln op of this branch has a lowering, so an unregistered op of
  // the kiln namespace stands in for a new op without one.
  OpBuilder builder(&context);
  Location loc = builder.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());
  auto type = RankedTensorType::get({2}, builder.getF32Type());
  auto func = func::FuncOp::create(builder, loc, "f",
                                   builder.getFunctionType({type}, {type}));
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToEnd(body);
  OperationState state(loc, "kiln.not_lowered_yet");
  state.addOperands(body->getArgument(0));
  state.addTypes(type);
  Operation *op = builder.create(state);
  func::ReturnOp::create(builder, loc, op->getResult(0));

  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    message = diagnostic.str();
    return success();
  });
  PassManager pm(&context);
  pm.addPass(createConvertKilnToLinalgPass());
  EXPECT_TRUE(failed(pm.run(*module)));
  EXPECT_EQ(message, "'kiln.not_lowered_yet' has no CPU lowering yet");
}

} // namespace
