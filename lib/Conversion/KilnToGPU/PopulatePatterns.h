//===- PopulatePatterns.h - kiln attention-to-GPU patterns ------*- C++ -*-===//
//
// Private to the KilnToGPU library: the forward and the backward attention
// kernels each come from their own file and expose one populate function.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CONVERSION_KILNTOGPU_POPULATEPATTERNS_H
#define KILN_LIB_CONVERSION_KILNTOGPU_POPULATEPATTERNS_H

namespace mlir {
class DialectRegistry;
class RewritePatternSet;
} // namespace mlir

namespace mlir::kiln {

struct AttentionGPUOptions;

/// AttentionForward.cpp: kiln.attention -> gpu.launch (flash forward).
void populateAttentionForwardToGPUPatterns(RewritePatternSet &patterns,
                                           const AttentionGPUOptions &options);
/// AttentionBackward.cpp: kiln.attention_grad -> gpu.launch (flash backward).
void populateAttentionBackwardToGPUPatterns(RewritePatternSet &patterns,
                                            const AttentionGPUOptions &options);
/// KernelEffects.cpp: memory effects for the kernels' ops that declare none
/// (gpu.barrier, nvvm.mma.sync), which buffer deallocation needs.
void registerAttentionKernelEffectModels(DialectRegistry &registry);

} // namespace mlir::kiln

#endif // KILN_LIB_CONVERSION_KILNTOGPU_POPULATEPATTERNS_H
