//===- ModuleToBinary.cpp - gpu-module-to-binary under crash recovery ----===//
//
// kiln-gpu-module-to-binary: upstream's gpu-module-to-binary, whose NVPTX
// instruction selection aborts the process on what the chip cannot run,
// made to fail with an error instead (Passes.td).
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/GPUHost/Passes.h"
#include "kiln/Support/BackendCrashRecovery.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNGPUMODULETOBINARYPASS
#include "kiln/Conversion/GPUHost/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

struct KilnGPUModuleToBinaryPass
    : public kiln::impl::KilnGPUModuleToBinaryPassBase<
          KilnGPUModuleToBinaryPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // On the heap: a code generator that crashes leaves it to its parked
    // thread (kiln/Support/BackendCrashRecovery.h).
    auto pipeline =
        std::make_unique<OpPassManager>(ModuleOp::getOperationName());
    GpuModuleToBinaryPassOptions binary;
    binary.compilationTarget = format;
    binary.toolkitPath = toolkit;
    pipeline->addPass(createGpuModuleToBinaryPass(binary));
    // The names and chips of what is about to be compiled: the gpu.modules
    // are gpu.binary ops once the pipeline has run, or half done.
    std::string what;
    llvm::raw_string_ostream os(what);
    llvm::interleaveComma(
        module.getOps<gpu::GPUModuleOp>(), os, [&](gpu::GPUModuleOp gpuModule) {
          os << "@" << gpuModule.getSymName();
          llvm::SetVector<StringRef> chips;
          ArrayAttr targets = gpuModule.getTargetsAttr();
          for (Attribute attr :
               targets ? targets.getValue() : ArrayRef<Attribute>())
            if (auto target = dyn_cast<NVVM::NVVMTargetAttr>(attr))
              chips.insert(target.getChip());
          if (chips.empty())
            return;
          os << " (";
          llvm::interleaveComma(chips, os);
          os << ")";
        });
    LogicalResult result = failure();
    if (!runBackendSafely([&] { result = runPipeline(*pipeline, module); })) {
      (void)pipeline.release();
      module.emitError()
          << "LLVM's NVPTX code generator aborted (its message is above) "
             "while compiling "
          << (what.empty() ? std::string("the GPU modules") : what)
          << ": a kernel uses something its chip cannot run";
      return signalPassFailure();
    }
    if (failed(result))
      signalPassFailure();
  }
};

} // namespace
