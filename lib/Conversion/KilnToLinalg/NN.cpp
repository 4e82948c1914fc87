//===- NN.cpp - Lower kiln training helpers -------------------------------===//
//
// No pattern yet: the NN family adds its lowerings here.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;

void mlir::kiln::populateNNPatterns(RewritePatternSet &patterns) {}
