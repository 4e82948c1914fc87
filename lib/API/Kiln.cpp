//===- Kiln.cpp - The public C++ API of Kiln ------------------------------===//

#include "kiln/Kiln.h"
#include "kiln/Dialect/Kiln/Transforms/Autodiff.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;
using namespace mlir::kiln;

StringRef mlir::kiln::getVersionString() { return KILN_VERSION_STRING; }

void mlir::kiln::loadGraphDialects(MLIRContext &context) {
  context.loadDialect<KilnDialect, func::FuncDialect, arith::ArithDialect>();
}

FailureOr<func::FuncOp> mlir::kiln::buildFunction(ModuleOp module,
                                                  StringRef name,
                                                  TypeRange inputs,
                                                  FunctionBodyBuilder body) {
  MLIRContext *context = module.getContext();
  loadGraphDialects(*context);
  Location loc = NameLoc::get(StringAttr::get(context, name), module.getLoc());
  if (SymbolTable::lookupSymbolIn(module, name))
    return emitError(loc) << "the module already has a symbol @" << name;

  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  auto func = func::FuncOp::create(builder, loc, name,
                                   builder.getFunctionType(inputs, {}));
  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToEnd(entry);
  SmallVector<Value> results = body(builder, loc, entry->getArguments());
  func::ReturnOp::create(builder, loc, results);
  func.setFunctionType(
      builder.getFunctionType(inputs, ValueRange(results).getTypes()));
  if (failed(verify(func))) {
    func.erase();
    return failure();
  }
  return func;
}

LogicalResult
mlir::kiln::lowerToCPU(ModuleOp module,
                       const KilnToCPUPipelineOptions &options,
                       function_ref<void(OpPassManager &)> addGraphPasses) {
  MLIRContext *context = module.getContext();
  DialectRegistry registry;
  registerCPUPipelineDialects(registry);
  context->appendDialectRegistry(registry);

  PassManager pm(context);
  if (addGraphPasses)
    addGraphPasses(pm);
  buildKilnToCPUPipeline(pm, options);
  return pm.run(module);
}

LogicalResult
mlir::kiln::lowerToGPU(ModuleOp module, const KilnToNVVMPipelineOptions &options,
                       function_ref<void(OpPassManager &)> addGraphPasses) {
  if (failed(
          verifyKilnToNVVMPipelineOptions(options, [&](const Twine &message) {
            return emitError(module.getLoc(), message);
          })))
    return failure();
  MLIRContext *context = module.getContext();
  DialectRegistry registry;
  registerGPUPipelineDialects(registry);
  context->appendDialectRegistry(registry);

  PassManager pm(context);
  if (addGraphPasses)
    addGraphPasses(pm);
  buildKilnToNVVMPipeline(pm, options);
  return pm.run(module);
}

void mlir::kiln::buildAutodiffPipeline(OpPassManager &pm,
                                       const AutodiffOptions &options) {
  pm.addPass(createKilnAutodiffPass(options));
}

LogicalResult mlir::kiln::differentiate(ModuleOp module,
                                        const AutodiffOptions &options) {
  MLIRContext *context = module.getContext();
  DialectRegistry registry;
  registerAutodiffExternalModels(registry); // the backward rules
  context->appendDialectRegistry(registry);
  PassManager pm(context);
  buildAutodiffPipeline(pm, options);
  return pm.run(module);
}
