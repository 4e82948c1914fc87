//===- Reduction.cpp - Lower kiln reductions and contractions -------------===//
//
// No pattern yet: the Reduction family adds its lowerings here.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;

void mlir::kiln::populateReductionPatterns(RewritePatternSet &patterns) {}
