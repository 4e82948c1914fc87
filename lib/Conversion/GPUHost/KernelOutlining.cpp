//===- KernelOutlining.cpp - kiln-gpu-kernel-outlining ---------------------===//
//
// Upstream's gpu-kernel-outlining, plus the transfer of each launch's
// `kiln.kernel_attributes` to the kernel function it becomes (see
// Passes.td).
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/GPUHost/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNGPUKERNELOUTLININGPASS
#include "kiln/Conversion/GPUHost/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

/// The discardable attribute of a gpu.launch whose entries the outlined
/// gpu.func gets.
static constexpr llvm::StringLiteral kKernelAttributes =
    KilnDialect::KernelAttributesAttrHelper::getNameStr();

namespace {
struct KilnGPUKernelOutliningPass
    : kiln::impl::KilnGPUKernelOutliningPassBase<KilnGPUKernelOutliningPass> {
  using Base::Base;

  static void addOutlining(OpPassManager &pm) {
    pm.addPass(createGpuKernelOutliningPass());
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    OpPassManager pm(ModuleOp::getOperationName());
    addOutlining(pm);
    pm.getDependentDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Outlining replaces each gpu.launch by a gpu.launch_func at the same
    // place, so the new launch_funcs, walked in the same order, pair up with
    // the launches walked before.
    SmallVector<DictionaryAttr> launchAttributes;
    bool any = false;
    module.walk([&](gpu::LaunchOp launch) {
      auto attributes =
          launch->getAttrOfType<DictionaryAttr>(kKernelAttributes);
      launchAttributes.push_back(attributes);
      any |= attributes && !attributes.empty();
    });
    llvm::DenseSet<Operation *> before;
    if (any)
      module.walk([&](gpu::LaunchFuncOp op) { before.insert(op); });

    OpPassManager pm(ModuleOp::getOperationName());
    addOutlining(pm);
    if (failed(runPipeline(pm, module)))
      return signalPassFailure();
    if (!any)
      return;

    SmallVector<gpu::LaunchFuncOp> outlined;
    module.walk([&](gpu::LaunchFuncOp op) {
      if (!before.contains(op))
        outlined.push_back(op);
    });
    if (outlined.size() != launchAttributes.size()) {
      module.emitError() << "kiln-gpu-kernel-outlining: " << outlined.size()
                         << " kernel launches after outlining, "
                         << launchAttributes.size() << " before";
      return signalPassFailure();
    }
    for (auto [launch, attributes] :
         llvm::zip_equal(outlined, launchAttributes)) {
      if (!attributes)
        continue;
      auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          launch, launch.getKernel());
      if (!kernel) {
        launch.emitError() << "kiln-gpu-kernel-outlining: no kernel "
                           << launch.getKernel();
        return signalPassFailure();
      }
      for (NamedAttribute attribute : attributes)
        kernel->setAttr(attribute.getName(), attribute.getValue());
    }
  }
};
} // namespace
