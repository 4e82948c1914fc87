//===- KernelEffects.cpp - Memory effects of the kernels' effect-less ops -===//
//
// The attention launches exist before bufferization and buffer
// deallocation (kiln-lower-to-nvvm runs convert-kiln-attention-to-gpu
// first). gpu.launch has recursive memory effects, and
// ownership-based-buffer-deallocation rejects any op whose effects are
// unknown ("ops with unknown memory side effects are not supported"). Two
// ops of the kernels declare none in MLIR 22: gpu.barrier and
// nvvm.mma.sync. These external models give them their real effects, so
// that the deallocation (and every other effect-aware pass) can reason
// about the launches.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace {

/// gpu.barrier orders the block's memory accesses: it reads and writes
/// memory (conservatively, all of it), so nothing moves across it.
struct BarrierEffects
    : MemoryEffectOpInterface::ExternalModel<BarrierEffects,
                                             gpu::BarrierOp> {
  void getEffects(Operation *op,
                  SmallVectorImpl<MemoryEffects::EffectInstance> &effects)
      const {
    effects.emplace_back(MemoryEffects::Read::get());
    effects.emplace_back(MemoryEffects::Write::get());
  }
};

/// nvvm.mma.sync works on registers only: no memory effects.
struct MmaEffects
    : MemoryEffectOpInterface::ExternalModel<MmaEffects, NVVM::MmaOp> {
  void getEffects(Operation *op,
                  SmallVectorImpl<MemoryEffects::EffectInstance> &effects)
      const {}
};

} // namespace

void mlir::kiln::registerAttentionKernelEffectModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, gpu::GPUDialect *) {
    gpu::BarrierOp::attachInterface<BarrierEffects>(*context);
  });
  registry.addExtension(+[](MLIRContext *context, NVVM::NVVMDialect *) {
    NVVM::MmaOp::attachInterface<MmaEffects>(*context);
  });
}
