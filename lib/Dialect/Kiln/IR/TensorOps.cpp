//===- TensorOps.cpp - Creation, layout and shape kiln ops ----------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::kiln;

#define GET_OP_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnTensorOps.cpp.inc"

OpFoldResult ConstantOp::fold(FoldAdaptor adaptor) { return getValueAttr(); }
