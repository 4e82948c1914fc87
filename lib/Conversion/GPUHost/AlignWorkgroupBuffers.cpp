//===- AlignWorkgroupBuffers.cpp - kiln-gpu-align-workgroup-buffers -------===//
//
// Gives the workgroup attributions of outlined kernels an `llvm.align`, which
// gpu.launch cannot express (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/GPUHost/Passes.h"

#include "llvm/Support/MathExtras.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNGPUALIGNWORKGROUPBUFFERSPASS
#include "kiln/Conversion/GPUHost/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {
struct KilnGPUAlignWorkgroupBuffersPass
    : kiln::impl::KilnGPUAlignWorkgroupBuffersPassBase<
          KilnGPUAlignWorkgroupBuffersPass> {
  using Base::Base;

  void runOnOperation() override {
    if (alignment <= 0 || !llvm::isPowerOf2_64(alignment)) {
      getOperation().emitError()
          << "kiln-gpu-align-workgroup-buffers: alignment "
          << alignment.getValue() << " is not a positive power of two";
      return signalPassFailure();
    }
    Builder builder(&getContext());
    StringAttr name =
        builder.getStringAttr(LLVM::LLVMDialect::getAlignAttrName());
    getOperation().walk([&](gpu::GPUFuncOp func) {
      for (unsigned i = 0, e = func.getNumWorkgroupAttributions(); i < e; ++i) {
        auto current = dyn_cast_if_present<IntegerAttr>(
            func.getWorkgroupAttributionAttr(i, name));
        if (current && current.getInt() >= alignment)
          continue;
        func.setWorkgroupAttributionAttr(i, name,
                                         builder.getI64IntegerAttr(alignment));
      }
    });
  }
};
} // namespace
