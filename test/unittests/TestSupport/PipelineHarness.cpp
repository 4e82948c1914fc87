//===- PipelineHarness.cpp - Run pass pipelines in unit tests -------------===//

#include "TestSupport/PipelineHarness.h"

#include "DiagnosticCollector.h"

#include "kiln/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::kiln;

void test::loadAllDialects(MLIRContext &context) {
  DialectRegistry registry;
  registerAllDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
}

OwningOpRef<ModuleOp> test::buildModuleWithUnloweredOp(MLIRContext &context) {
  context.allowUnregisteredDialects();
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
  return module;
}

std::vector<std::string>
test::getKilnOpsMissingFrom(MLIRContext &context,
                            const llvm::StringSet<> &names) {
  std::vector<std::string> missing;
  for (RegisteredOperationName name : context.getRegisteredOperations())
    if (name.getDialectNamespace() == "kiln" &&
        !names.contains(name.getStringRef()))
      missing.push_back(name.getStringRef().str());
  return missing;
}

std::string test::PassRun::getDiagnostics() const {
  return llvm::join(diagnostics, "\n");
}

test::PassRun
test::runPasses(ModuleOp module,
                llvm::function_ref<void(PassManager &)> addPasses) {
  DiagnosticCollector collector(*module.getContext());
  PassManager pm(module.getContext());
  addPasses(pm);
  PassRun run;
  run.succeeded = succeeded(pm.run(module));
  run.diagnostics = std::move(collector.messages);
  return run;
}
