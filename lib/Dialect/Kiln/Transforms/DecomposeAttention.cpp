//===- DecomposeAttention.cpp - Placeholder for kiln-decompose-attention --===//
//
// TEMPORARY: kiln-decompose-attention is written in another branch, whose
// DecomposeAttention.cpp replaces this file at merge. Until then
// `kiln-autodiff{remat=save-all}` on a function holding kiln.attention
// reports this error.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/DecomposeAttention.h"

using namespace mlir;

LogicalResult mlir::kiln::decomposeAttentionOps(Operation *root) {
  return root->emitError("save-all needs kiln-decompose-attention");
}
