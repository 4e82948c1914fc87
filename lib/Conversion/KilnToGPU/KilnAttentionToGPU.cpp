//===- KilnAttentionToGPU.cpp - convert-kiln-attention-to-gpu -------------===//

#include "AttentionKernels.h"
#include "PopulatePatterns.h"

#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_CONVERTKILNATTENTIONTOGPUPASS
#include "kiln/Conversion/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

/// The most resident blocks of a CUDA multiprocessor (every compute
/// capability up to 9.0).
static constexpr unsigned kMaxBlocksPerSM = 32;

namespace {

struct ConvertKilnAttentionToGPUPass
    : kiln::impl::ConvertKilnAttentionToGPUPassBase<
          ConvertKilnAttentionToGPUPass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registerAttentionKernelEffectModels(registry);
  }

  LogicalResult initialize(MLIRContext *context) override {
    // No CUDA multiprocessor holds more than 32 resident blocks. Checked
    // before any IR is touched: the option is at fault, not the module.
    for (auto [name, blocks] :
         {std::pair<StringRef, unsigned>{"forward-min-blocks-per-sm",
                                         forwardMinBlocksPerSM},
          {"backward-min-blocks-per-sm", backwardMinBlocksPerSM}})
      if (blocks > kMaxBlocksPerSM)
        return emitError(UnknownLoc::get(context))
               << "convert-kiln-attention-to-gpu: " << name
               << " must be at most " << kMaxBlocksPerSM
               << " (the most blocks a multiprocessor holds), got " << blocks;
    RewritePatternSet owningPatterns(context);
    AttentionGPUOptions options;
    options.tensorCores = tensorCores;
    options.backwardTensorCores = backwardTensorCores;
    options.softwarePipeline = softwarePipeline;
    options.forwardMinBlocksPerSM = forwardMinBlocksPerSM;
    options.backwardMinBlocksPerSM = backwardMinBlocksPerSM;
    options.deterministic = deterministic;
    populateAttentionForwardToGPUPatterns(owningPatterns, options);
    populateAttentionBackwardToGPUPatterns(owningPatterns, options);
    patterns = FrozenRewritePatternSet(std::move(owningPatterns));
    return success();
  }

  void runOnOperation() override {
    // Each pattern replaces one attention op by a launch; nothing it creates
    // matches again, so one top-down sweep without folding suffices.
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true).enableFolding(false);
    if (failed(applyPatternsGreedily(getOperation(), patterns, config)))
      signalPassFailure();
  }

  FrozenRewritePatternSet patterns;
};

} // namespace
