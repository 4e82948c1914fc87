//===- AttentionBackward.cpp - kiln attention backward pass on the GPU -----------===//

#include "PopulatePatterns.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::kiln;

void mlir::kiln::populateAttentionBackwardToGPUPatterns(
    RewritePatternSet &patterns) {}
