//===- EntryPoints.cpp - The kiln-prepare-entry-points pass ---------------===//

#include "kiln/Conversion/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNPREPAREENTRYPOINTSPASS
#include "kiln/Conversion/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

struct KilnPrepareEntryPointsPass
    : kiln::impl::KilnPrepareEntryPointsPassBase<KilnPrepareEntryPointsPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    StringRef cInterface = LLVM::LLVMDialect::getEmitCWrapperAttrName();
    StringRef writable = bufferization::BufferizationDialect::kWritableAttrName;
    BoolAttr readOnly = BoolAttr::get(context, false);
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func.isPublic() || func.isExternal())
        continue;
      func->setAttr(cInterface, UnitAttr::get(context));
      for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
        if (isa<TensorType>(type))
          func.setArgAttr(i, writable, readOnly);
    }
  }
};

} // namespace
