//===- DecomposeAttention.h - Attention as primitive kiln ops ---*- C++ -*-===//
//
// `kiln-decompose-attention` rewrites kiln.attention and kiln.attention_grad
// into primitive kiln ops (matmul, softmax, select, dropout, ...) in the
// rank-5 grouped-query layout [B, Hkv, R, Sq, .] of docs/Attention.md. Every
// op of the decomposition has a backward rule, so the decomposed graph can
// itself be differentiated. See docs/Attention.md, "Decomposition".
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_TRANSFORMS_DECOMPOSEATTENTION_H
#define KILN_DIALECT_KILN_TRANSFORMS_DECOMPOSEATTENTION_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace mlir::kiln {

/// Expands every kiln.attention and kiln.attention_grad nested under `root`
/// (not `root` itself) into primitive kiln ops. Succeeds on every verified
/// input: each form of the ops has a decomposition.
LogicalResult decomposeAttentionOps(Operation *root);

/// Adds the patterns that expand kiln.attention and kiln.attention_grad.
void populateDecomposeAttentionPatterns(RewritePatternSet &patterns);

} // namespace mlir::kiln

#endif // KILN_DIALECT_KILN_TRANSFORMS_DECOMPOSEATTENTION_H
