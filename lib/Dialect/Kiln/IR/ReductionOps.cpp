//===- ReductionOps.cpp - Reduction kiln ops ----------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::kiln;

#define GET_OP_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnReductionOps.cpp.inc"
