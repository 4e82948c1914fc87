//===- RaiseAttention.cpp - PyTorch attention graphs to kiln.attention ----===//
//
// Four rewrites, each applied only where the equivalence is proven on the
// IR itself (shapes, constants, index arithmetic); anything else is left
// as it is:
//
// - RaiseWrittenOutAttention: matmul(softmax(cap(scale * Q Kᵀ) + mask), V)
//   as PyTorch's eager attention writes it, to kiln.attention.
// - DerepeatKeyValue: kiln.attention on K and V repeated along the heads as
//   Hugging Face's `repeat_kv` does (unsqueeze at 2, broadcast, reshape) reads
//   the unrepeated K and V instead; the op's own grouped-query rule (query
//   head h reads kv head h / R) is what repeat_interleave along dim 1 gives.
// - RaiseAttentionMask: a boolean mask that is a conjunction of band terms
//   (constants checked element by element, or comparisons of iota index
//   expressions) and of terms independent of the query or of the key
//   position becomes band attributes plus the residual terms, un-broadcast;
//   an additive `select(m, 0, -inf)` mask becomes boolean first (and a
//   `select(m, 0, finfo.min)` one with `empty-rows-as-zero`).
//
// The pieces are described in RaiseAttentionImpl.h; this file holds the
// patterns, the driver and the pass.
//
// See docs/Attention.md, "Raising attention from PyTorch graphs".
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/RaiseAttention.h"
#include "RaiseAttentionImpl.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNRAISEATTENTIONPASS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::raise_attention;

namespace {

//===----------------------------------------------------------------------===//
// Patterns and the driver
//===----------------------------------------------------------------------===//

struct RaiseWrittenOutAttention : OpRewritePattern<MatmulOp> {
  RaiseWrittenOutAttention(MLIRContext *context,
                           const RaiseAttentionOptions &options)
      : OpRewritePattern(context), options(options) {}
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    return success(succeeded(raiseWrittenOut(op, rewriter, options)));
  }
  RaiseAttentionOptions options;
};

struct DerepeatKeyValue : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    return derepeatKeyValue(op, rewriter);
  }
};

struct RaiseAttentionMask : OpRewritePattern<AttentionOp> {
  RaiseAttentionMask(MLIRContext *context, const RaiseAttentionOptions &options)
      : OpRewritePattern(context), options(options) {}
  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    return success(succeeded(raiseMask(op, rewriter, options)));
  }
  RaiseAttentionOptions options;
};

/// Erases the ops of `maybeDead`, and then their operands' producers, that
/// have become trivially dead, and nothing else; erased ops leave the set.
struct DeadOpTracker : RewriterBase::Listener {
  void notifyOperationErased(Operation *op) override { maybeDead.remove(op); }
  /// Records the producers of `op`'s operands, before `op` changes.
  void addOperandsOf(Operation *op) {
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        maybeDead.insert(def);
  }
  void eraseDead(RewriterBase &rewriter) {
    while (!maybeDead.empty()) {
      Operation *op = maybeDead.pop_back_val();
      if (!isOpTriviallyDead(op))
        continue;
      addOperandsOf(op);
      rewriter.eraseOp(op);
    }
  }
  llvm::SetVector<Operation *> maybeDead;
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct KilnRaiseAttentionPass
    : public kiln::impl::KilnRaiseAttentionPassBase<KilnRaiseAttentionPass> {
  using Base::Base;

  void runOnOperation() override {
    RaiseAttentionOptions options;
    options.emptyRowsAsZero = emptyRowsAsZero;
    (void)raiseAttention(getOperation(), options);
  }
};

} // namespace

void mlir::kiln::populateRaiseAttentionPatterns(
    RewritePatternSet &patterns, const RaiseAttentionOptions &options) {
  MLIRContext *context = patterns.getContext();
  patterns.add<RaiseWrittenOutAttention, RaiseAttentionMask>(context, options);
  patterns.add<DerepeatKeyValue>(context);
}

LogicalResult mlir::kiln::raiseAttention(Operation *root,
                                         const RaiseAttentionOptions &options) {
  // A walk rather than the greedy driver: nothing is folded and no op is
  // erased but those a rewrite left dead (the greedy driver would also
  // erase the IR's own dead ops and unreachable blocks).
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (op != root && isa<MatmulOp, AttentionOp>(op))
      ops.push_back(op);
  });
  DeadOpTracker tracker;
  PatternRewriter rewriter(root->getContext());
  rewriter.setListener(&tracker);
  // Every rewrite replaces or changes only the op it is given, so the ops
  // still to visit stay valid.
  auto raiseAttentionOp = [&](AttentionOp op) {
    // Each step removes a repeat, or the mask's band and additive terms, so
    // the loop ends; the bound is a guard.
    for (int step = 0; step < 8; ++step) {
      rewriter.setInsertionPoint(op);
      tracker.addOperandsOf(op);
      if (succeeded(derepeatKeyValue(op, rewriter)))
        continue;
      FailureOr<AttentionOp> raised = raiseMask(op, rewriter, options);
      if (failed(raised))
        return;
      op = *raised;
    }
  };
  for (Operation *op : ops) {
    if (auto attention = dyn_cast<AttentionOp>(op)) {
      raiseAttentionOp(attention);
      continue;
    }
    rewriter.setInsertionPoint(op);
    tracker.addOperandsOf(op);
    FailureOr<AttentionOp> raised =
        raiseWrittenOut(cast<MatmulOp>(op), rewriter, options);
    if (succeeded(raised))
      raiseAttentionOp(*raised);
  }
  tracker.eraseDead(rewriter);
  return success();
}
