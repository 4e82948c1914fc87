//===- AttentionSoftwarePipeline.h - software-pipeline option ---*- C++ -*-===//
//
// The values of the `software-pipeline` option of
// convert-kiln-attention-to-gpu (and of kiln-lower-to-nvvm, JitOptions and
// kiln-compile's --gpu-software-pipeline): whether the forward's tensor-core
// attention kernel loads key tile kt + 64 into registers while it computes
// tile kt. See docs/GPUAttention.md.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CONVERSION_ATTENTIONSOFTWAREPIPELINE_H
#define KILN_CONVERSION_ATTENTIONSOFTWAREPIPELINE_H

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"

#include <cstdint>

namespace mlir::kiln {

enum class AttentionSoftwarePipeline {
  /// Where bench/gpu measured that it pays on the H200: head dims above 64
  /// and up to 128 (shouldSoftwarePipelineAttention).
  Auto,
  /// Always (where the kernel's tile copy unrolls).
  On,
  /// Never.
  Off,
};

/// The option's spellings: auto, on, off, and true/false (the spelling of
/// the bool option it was before) for on/off. The first name of a value is
/// the one a printed pass pipeline uses.
inline llvm::cl::ValuesClass attentionSoftwarePipelineValues() {
  return llvm::cl::values(
      clEnumValN(AttentionSoftwarePipeline::Auto, "auto",
                 "where it was measured to pay (head dims in (64, 128])"),
      clEnumValN(AttentionSoftwarePipeline::On, "on", "always"),
      clEnumValN(AttentionSoftwarePipeline::Off, "off", "never"),
      clEnumValN(AttentionSoftwarePipeline::On, "true", "same as on"),
      clEnumValN(AttentionSoftwarePipeline::Off, "false", "same as off"));
}

/// Whether the forward's tensor-core kernel for key and value head dims
/// `keyDim` and `valueDim` software-pipelines its K/V tiles under `mode`.
/// Auto: when the larger head dim is in (64, 128]. On the H200 (bench/gpu,
/// bf16, B=4, 16 query heads over 4 kv heads, 2026-11-30) D = 128 ran
/// 1.14-1.26x faster pipelined and D = 64 0.96-1.03x (its 132 -> 174
/// registers cost a block per multiprocessor); larger head dims are
/// unmeasured.
inline bool shouldSoftwarePipelineAttention(AttentionSoftwarePipeline mode,
                                            int64_t keyDim,
                                            int64_t valueDim) {
  switch (mode) {
  case AttentionSoftwarePipeline::On:
    return true;
  case AttentionSoftwarePipeline::Off:
    return false;
  case AttentionSoftwarePipeline::Auto: {
    int64_t dim = keyDim > valueDim ? keyDim : valueDim;
    return dim > 64 && dim <= 128;
  }
  }
  llvm_unreachable("unknown AttentionSoftwarePipeline");
}

} // namespace mlir::kiln

#endif // KILN_CONVERSION_ATTENTIONSOFTWAREPIPELINE_H
