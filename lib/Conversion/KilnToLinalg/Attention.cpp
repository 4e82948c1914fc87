//===- Attention.cpp - Lower kiln scaled dot-product attention ------------===//
//
// No pattern yet: the Attention family adds its lowerings here.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;

void mlir::kiln::populateAttentionPatterns(RewritePatternSet &patterns) {}
