//===- EntryPoints.cpp - kiln-prepare/finalize-entry-points ---------------===//

#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNFINALIZEENTRYPOINTSPASS
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

/// The prefix of the reserved names that function bodies get. C libraries do
/// not define `__kiln_func_*` (names with `__` are the implementation's),
/// and neither do Kiln's runtimes (`kiln_*`, `kilnCuda*`, `__kiln_emu*`).
static constexpr StringLiteral kBodyPrefix = "__kiln_func_";

/// The attribute in which a renamed public function keeps its name.
static constexpr StringLiteral kEntryPointAttrName =
    KilnDialect::EntryPointAttrHelper::getNameStr();

/// The C interface wrapper that convert-func-to-llvm makes for `name`.
static std::string getCInterfaceName(StringRef name) {
  return ("_mlir_ciface_" + name).str();
}

/// Renames `func` to `__kiln_func_<name>`, or `__kiln_func_<name>_<n>` with
/// the first `n` that no symbol of `symbolTable` has, updating its uses.
static LogicalResult renameBody(func::FuncOp func, SymbolTable &symbolTable) {
  std::string base = (kBodyPrefix + func.getSymName()).str();
  std::string name = base;
  for (unsigned n = 0; symbolTable.lookup(name); ++n)
    name = base + "_" + std::to_string(n);
  return symbolTable.rename(func, StringAttr::get(func.getContext(), name));
}

namespace {

struct KilnPrepareEntryPointsPass
    : kiln::impl::KilnPrepareEntryPointsPassBase<KilnPrepareEntryPointsPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    StringRef cInterface = LLVM::LLVMDialect::getEmitCWrapperAttrName();
    StringRef writable = bufferization::BufferizationDialect::kWritableAttrName;
    BoolAttr readOnly = BoolAttr::get(context, false);
    SymbolTable symbolTable(getOperation());
    SmallVector<func::FuncOp> bodies;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      func.walk(copyRepeatedResults);
      dropKilnArgAndResultAttrs(func);
      // Renamed by an earlier run already.
      if (!func->hasAttr(kEntryPointAttrName))
        bodies.push_back(func);
      if (!func.isPublic())
        continue;
      func->setAttr(cInterface, UnitAttr::get(context));
      for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
        if (isa<TensorType>(type))
          func.setArgAttr(i, writable, readOnly);
    }
    for (func::FuncOp func : bodies) {
      if (func.isPublic())
        func->setAttr(kEntryPointAttrName, func.getSymNameAttr());
      if (failed(renameBody(func, symbolTable))) {
        func.emitError() << "cannot rename the body of @" << func.getSymName();
        return signalPassFailure();
      }
    }
  }
};

/// Whether the only call of `callee` in `module` is one call from `caller`
/// and nothing else takes its address. References from the attributes of a
/// function (kiln-autodiff's kiln.forward / kiln.backward pairing of a split
/// step) are metadata that no code reads: they do not count.
static bool onlyCalledBy(LLVM::LLVMFuncOp callee, LLVM::LLVMFuncOp caller,
                         ModuleOp module) {
  std::optional<SymbolTable::UseRange> uses =
      SymbolTable::getSymbolUses(callee.getSymNameAttr(), module);
  if (!uses)
    return false;
  int calls = 0;
  for (const SymbolTable::SymbolUse &use : *uses) {
    Operation *user = use.getUser();
    if (isa<LLVM::LLVMFuncOp>(user))
      continue;
    if (!isa<LLVM::CallOp>(user) ||
        user->getParentOfType<LLVM::LLVMFuncOp>() != caller)
      return false;
    ++calls;
  }
  return calls == 1;
}

struct KilnFinalizeEntryPointsPass
    : kiln::impl::KilnFinalizeEntryPointsPassBase<KilnFinalizeEntryPointsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbolTable(module);
    SmallVector<LLVM::LLVMFuncOp> marked;
    for (auto func : module.getOps<LLVM::LLVMFuncOp>())
      if (func->hasAttr(kEntryPointAttrName))
        marked.push_back(func);
    // The bodies first: a wrapper carries the attribute too, and is the
    // `_mlir_ciface_` function of a marked body.
    for (LLVM::LLVMFuncOp body : marked) {
      auto name = body->getAttrOfType<StringAttr>(kEntryPointAttrName);
      auto wrapper = symbolTable.lookup<LLVM::LLVMFuncOp>(
          getCInterfaceName(body.getSymName()));
      if (!name || !wrapper || !wrapper->hasAttr(kEntryPointAttrName))
        continue;
      std::string publicName = getCInterfaceName(name.getValue());
      if (Operation *existing = symbolTable.lookup(publicName)) {
        existing->emitError()
            << "the C interface of @" << name.getValue() << " would be @"
            << publicName << ", the name of this symbol";
        return signalPassFailure();
      }
      if (failed(symbolTable.rename(
              wrapper, StringAttr::get(&getContext(), publicName))))
        return signalPassFailure();
      // The body takes every memref expanded into its descriptor's words
      // (thousands of arguments for a deep model's training step), and its
      // C interface is its only caller: one call whose instruction
      // selection was superlinear in them. Folded into the wrapper, the
      // entry point takes one pointer per descriptor, as the runtime does.
      if (onlyCalledBy(body, wrapper, module)) {
        body.setLinkage(LLVM::Linkage::Internal);
        body.setAlwaysInline(true);
      }
    }
    for (LLVM::LLVMFuncOp func : marked)
      func->removeAttr(kEntryPointAttrName);
  }
};

} // namespace
