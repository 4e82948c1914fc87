//===- Conv.cpp - Lower kiln convolutions and pooling ---------------------===//
//
// No pattern yet: the Conv family adds its lowerings here.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;

void mlir::kiln::populateConvPatterns(RewritePatternSet &patterns) {}
