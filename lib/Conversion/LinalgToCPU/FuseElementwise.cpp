//===- FuseElementwise.cpp - Elementwise fusion without recomputation -----===//
//
// kiln-fuse-elementwise: upstream's linalg-fuse-elementwise-ops without its
// folding of reshapes by expansion (see the pass description in
// include/kiln/Conversion/Passes.td).
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNFUSEELEMENTWISEPASS
#include "kiln/Conversion/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;

namespace {

/// Upstream's condition: a producer with one use, so that fusing it
/// duplicates nothing.
bool hasOneUseProducer(OpOperand *fusedOperand) {
  Operation *producer = fusedOperand->get().getDefiningOp();
  return producer && producer->hasOneUse();
}

struct KilnFuseElementwisePass
    : public kiln::impl::KilnFuseElementwisePassBase<KilnFuseElementwisePass> {
  void runOnOperation() override {
    Operation *op = getOperation();
    MLIRContext *context = op->getContext();
    RewritePatternSet patterns(context);
    // Not populateFoldReshapeOpsByExpansionPatterns: see the description.
    linalg::populateElementwiseOpsFusionPatterns(patterns, hasOneUseProducer);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, hasOneUseProducer);
    // Top-down, as upstream's pass: the driver's work stays linear in the
    // size of the graph.
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true);
    (void)applyPatternsGreedily(op, std::move(patterns), config);
  }
};

} // namespace
