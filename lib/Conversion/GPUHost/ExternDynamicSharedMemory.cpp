//===- ExternDynamicSharedMemory.cpp - kiln-gpu-extern-dynamic-shared-memory =//
//
// Turns the zero-sized shared-memory globals of NVVM kernels into external
// declarations, CUDA's `extern __shared__` (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/GPUHost/Passes.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNGPUEXTERNDYNAMICSHAREDMEMORYPASS
#include "kiln/Conversion/GPUHost/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {
struct KilnGPUExternDynamicSharedMemoryPass
    : kiln::impl::KilnGPUExternDynamicSharedMemoryPassBase<
          KilnGPUExternDynamicSharedMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    for (auto global : getOperation().getOps<LLVM::GlobalOp>()) {
      auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
      if (global.getAddrSpace() !=
              static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared) ||
          !array || array.getNumElements() != 0 ||
          global.getLinkage() == LLVM::Linkage::External)
        continue;
      // A declaration: external linkage and no initializer.
      global.setLinkage(LLVM::Linkage::External);
      global.removeValueAttr();
      global.getInitializerRegion().getBlocks().clear();
      global.setDsoLocal(false);
    }
  }
};
} // namespace
