//===- AttentionForward.cpp - kiln attention forward pass on the GPU -----------===//

#include "PopulatePatterns.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::kiln;

void mlir::kiln::populateAttentionForwardToGPUPatterns(
    RewritePatternSet &patterns) {}
