//===- DecomposeAttention.h - Expand kiln.attention -------------*- C++ -*-===//
//
// The C++ entry point of `kiln-decompose-attention`, which `kiln-autodiff`
// calls under `remat=save-all` so that the softmax probabilities are a saved
// forward value like any other.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_TRANSFORMS_DECOMPOSEATTENTION_H
#define KILN_DIALECT_KILN_TRANSFORMS_DECOMPOSEATTENTION_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

namespace mlir::kiln {

/// Expands every `kiln.attention` nested under `root` into primitive kiln
/// ops. Errors are emitted at the op they concern.
LogicalResult decomposeAttentionOps(Operation *root);

} // namespace mlir::kiln

#endif // KILN_DIALECT_KILN_TRANSFORMS_DECOMPOSEATTENTION_H
