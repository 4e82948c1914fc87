//===- OutlineKernels.cpp - Loop nests into shared kernel functions -------===//
//
// kiln-outline-kernels: every linalg op on buffers and every op with regions
// directly in a function body becomes a call of a private, noinline kernel
// function; structurally identical kernels are one function (see the pass
// description in include/kiln/Conversion/Passes.td).
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMAttrs.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNOUTLINEKERNELSPASS
#include "kiln/Conversion/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;

namespace {

/// The ops worth a kernel: loop nests. Linalg ops on buffers become loops
/// later; an op with regions (scf loops, the attention and index_add
/// lowerings' loops) is one already.
static bool isKernelRoot(Operation *op) {
  if (isa<func::FuncOp, func::ReturnOp>(op))
    return false;
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    return linalgOp.hasPureBufferSemantics();
  return op->getNumRegions() > 0;
}

/// The buffer a memref value views: through subview, reshape and cast ops to
/// an allocation, a global or a function argument; null if unknown (a loop
/// or call result).
static Value getRootBuffer(Value value) {
  while (true) {
    if (isa<BlockArgument>(value))
      return isa<func::FuncOp>(value.getParentRegion()->getParentOp())
                 ? value
                 : Value();
    Operation *def = value.getDefiningOp();
    if (isa<memref::AllocOp, memref::AllocaOp, memref::GetGlobalOp>(def))
      return value;
    if (auto view = dyn_cast<ViewLikeOpInterface>(def)) {
      value = view.getViewSource();
      continue;
    }
    if (isa<memref::CastOp, memref::ReinterpretCastOp>(def)) {
      value = def->getOperand(0);
      continue;
    }
    return Value();
  }
}

/// Whether the memref arguments of a kernel call view pairwise different
/// buffers (entry-point arguments are distinct buffers by the runtime ABI;
/// inputs may share one, but are only read), so the kernel's memref
/// arguments may be `llvm.noalias`: inlined, LLVM knew that its buffers
/// came from different mallocs, and without it could not keep a reduction
/// in a register or vectorize it.
static bool haveDistinctBuffers(ArrayRef<Value> arguments) {
  llvm::SmallPtrSet<void *, 8> roots;
  for (Value argument : arguments) {
    if (!isa<MemRefType>(argument.getType()))
      continue;
    Value root = getRootBuffer(argument);
    if (!root || !roots.insert(root.getAsOpaquePointer()).second)
      return false;
  }
  return true;
}

struct KilnOutlineKernelsPass
    : kiln::impl::KilnOutlineKernelsPassBase<KilnOutlineKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    SymbolTable symbols(module);

    SmallVector<Operation *> roots;
    for (auto function : module.getOps<func::FuncOp>()) {
      if (function.isExternal())
        continue;
      for (Block &block : function.getBody())
        for (Operation &op : block)
          if (isKernelRoot(&op))
            roots.push_back(&op);
    }

    // Printed kernel (under a fixed name) -> its function.
    llvm::StringMap<func::FuncOp> kernels;
    // Kernels are built detached, printed, and inserted only if new.
    OpBuilder detachedBuilder(context);
    Attribute noinlineName = StringAttr::get(context, "noinline");
    Attribute noaliasArguments = ArrayAttr::get(
        context, {StringAttr::get(context, "kiln-noalias-arguments"),
                  StringAttr::get(context, "true")});
    auto internal = LLVM::LinkageAttr::get(context, LLVM::Linkage::Internal);
    unsigned counter = 0;
    for (Operation *root : roots) {
      // The kernel's arguments: the distinct values the op uses that are
      // defined outside it (its operands first), constants excepted.
      llvm::SetVector<Value> arguments;
      llvm::SetVector<Operation *> constants;
      auto addUse = [&](Value value) {
        Operation *def = value.getDefiningOp();
        if (def && def->getNumOperands() == 0 && def->getNumRegions() == 0 &&
            matchPattern(value, m_Constant())) {
          constants.insert(def);
          return;
        }
        arguments.insert(value);
      };
      for (Value operand : root->getOperands())
        addUse(operand);
      root->walk([&](Operation *nested) {
        if (nested == root)
          return;
        for (Value operand : nested->getOperands()) {
          Region *defRegion = operand.getParentRegion();
          if (!root->isProperAncestor(defRegion->getParentOp()) &&
              defRegion->getParentOp() != root)
            addUse(operand);
        }
      });

      SmallVector<Type> argumentTypes;
      for (Value value : arguments)
        argumentTypes.push_back(value.getType());
      auto type = FunctionType::get(context, argumentTypes,
                                    root->getResultTypes());
      auto kernel = func::FuncOp::create(detachedBuilder, root->getLoc(),
                                         "__kiln_kernel", type);
      kernel.setPrivate();
      // convert-func-to-llvm drops `llvm.noalias` from memref arguments
      // (they become several): the function attribute asks
      // kiln::optimizeLLVMModule to mark every pointer argument noalias.
      if (haveDistinctBuffers(arguments.getArrayRef()))
        kernel->setAttr("passthrough",
                        ArrayAttr::get(context,
                                       {noinlineName, noaliasArguments}));
      else
        kernel->setAttr("passthrough", ArrayAttr::get(context, noinlineName));
      Block *entry = kernel.addEntryBlock();
      OpBuilder bodyBuilder = OpBuilder::atBlockEnd(entry);
      IRMapping mapping;
      for (auto [value, argument] :
           llvm::zip_equal(arguments, entry->getArguments()))
        mapping.map(value, argument);
      for (Operation *constant : constants)
        bodyBuilder.clone(*constant, mapping);
      Operation *clone = bodyBuilder.clone(*root, mapping);
      func::ReturnOp::create(bodyBuilder, root->getLoc(), clone->getResults());

      std::string key;
      {
        llvm::raw_string_ostream os(key);
        kernel->print(os, OpPrintingFlags().useLocalScope());
      }
      auto [it, inserted] = kernels.try_emplace(key, kernel);
      if (inserted) {
        std::string name = "__kiln_kernel_" + std::to_string(counter++);
        kernel.setSymName(name);
        symbols.insert(kernel);
        kernel->setAttr("llvm.linkage", internal);
      } else {
        kernel.erase();
      }

      OpBuilder callBuilder(root);
      auto call = func::CallOp::create(callBuilder, root->getLoc(),
                                       it->second, arguments.getArrayRef());
      root->replaceAllUsesWith(call.getResults());
      root->erase();
    }
  }
};

} // namespace
