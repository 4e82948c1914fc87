//===- EntryPoints.cpp - The kiln-prepare-entry-points pass ---------------===//

#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNPREPAREENTRYPOINTSPASS
#include "kiln/Conversion/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

/// Makes every tensor that `returnOp` returns more than once a distinct
/// value, by returning a copy for each repeat. buffer-results-to-out-params
/// (with hoist-static-allocs) replaces a returned allocation by its out-param
/// and erases it, so one allocation returned twice would be erased twice.
static void copyRepeatedResults(func::ReturnOp returnOp) {
  OpBuilder builder(returnOp);
  llvm::SmallDenseSet<Value> seen;
  for (OpOperand &operand : returnOp->getOpOperands()) {
    Value value = operand.get();
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (seen.insert(value).second || !type || !type.hasStaticShape())
      continue;
    operand.set(bufferization::AllocTensorOp::create(
        builder, returnOp.getLoc(), type, /*dynamicSizes=*/ValueRange(),
        /*copy=*/value));
  }
}

/// Drops the `kiln.*` attributes of `func`'s arguments and results: those of
/// split mode (`kiln.output`, `kiln.residual`, `kiln.cotangent`,
/// `kiln.gradient`) describe the function to its callers and mean nothing
/// below the kiln dialect, and the LLVM IR translation, which has no
/// interface for kiln attributes, would warn about each on every compile.
static void dropKilnArgAndResultAttrs(func::FuncOp func) {
  Dialect *kiln = func.getContext()->getLoadedDialect<KilnDialect>();
  auto kilnNames = [&](DictionaryAttr attrs) {
    SmallVector<StringAttr> names;
    if (!attrs || !kiln)
      return names;
    for (NamedAttribute attr : attrs)
      if (attr.getNameDialect() == kiln)
        names.push_back(attr.getName());
    return names;
  };
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    for (StringAttr name : kilnNames(func.getArgAttrDict(i)))
      func.removeArgAttr(i, name);
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
    for (StringAttr name : kilnNames(func.getResultAttrDict(i)))
      func.removeResultAttr(i, name);
}

namespace {

struct KilnPrepareEntryPointsPass
    : kiln::impl::KilnPrepareEntryPointsPassBase<KilnPrepareEntryPointsPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    StringRef cInterface = LLVM::LLVMDialect::getEmitCWrapperAttrName();
    StringRef writable = bufferization::BufferizationDialect::kWritableAttrName;
    BoolAttr readOnly = BoolAttr::get(context, false);
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      func.walk(copyRepeatedResults);
      dropKilnArgAndResultAttrs(func);
      if (!func.isPublic())
        continue;
      func->setAttr(cInterface, UnitAttr::get(context));
      for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
        if (isa<TensorType>(type))
          func.setArgAttr(i, writable, readOnly);
    }
  }
};

} // namespace
