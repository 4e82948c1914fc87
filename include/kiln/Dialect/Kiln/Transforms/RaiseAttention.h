//===- RaiseAttention.h - PyTorch attention graphs to kiln.attention -*- C++
//-*-===//
//
// `kiln-raise-attention` recognizes the forms in which PyTorch models
// (Hugging Face transformers through torch.export) spell attention and
// rewrites them into one kiln.attention wherever the equivalence is proven:
// repeated K/V (`repeat_kv`), boolean masks that are bands, additive
// `where(mask, 0, min)` masks, and the written-out (eager) matmul-softmax-
// matmul chain. See docs/Attention.md, "Raising attention from PyTorch
// graphs".
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_TRANSFORMS_RAISEATTENTION_H
#define KILN_DIALECT_KILN_TRANSFORMS_RAISEATTENTION_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace mlir::kiln {

/// What the raising may assume beyond exact equivalence.
struct RaiseAttentionOptions {
  /// Rows in which the mask leaves no key visible may become 0,
  /// kiln.attention's empty-row result, where the written-out graph gives
  /// something else: NaN for a -inf mask, the mean of V over all keys for a
  /// finite `finfo.min` mask. Off by default; it enables the raising of
  /// `where(m, 0, min)` masks to boolean masks and bands, and of the
  /// written-out form with an additive mask that may hold -inf.
  bool emptyRowsAsZero = false;
};

/// Adds the raising patterns (the written-out form, the K/V de-repeat and
/// the mask classification) to `patterns`.
void populateRaiseAttentionPatterns(RewritePatternSet &patterns,
                                    const RaiseAttentionOptions &options = {});

/// Applies the raising patterns to everything nested under `root`, without
/// folding; ops left dead by a rewrite are erased. Never fails on verified
/// IR: what cannot be proven is left unchanged.
LogicalResult raiseAttention(Operation *root,
                             const RaiseAttentionOptions &options = {});

} // namespace mlir::kiln

#endif // KILN_DIALECT_KILN_TRANSFORMS_RAISEATTENTION_H
