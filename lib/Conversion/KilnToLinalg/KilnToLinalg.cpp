//===- KilnToLinalg.cpp - The convert-kiln-to-linalg pass -----------------===//

#include "kiln/Conversion/KilnToLinalg/KilnToLinalg.h"
#include "PopulatePatterns.h"

#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_CONVERTKILNTOLINALGPASS
#include "kiln/Conversion/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

void mlir::kiln::populateKilnToLinalgConversionPatterns(
    RewritePatternSet &patterns, bool indexAddThreadPerColumn,
    bool sequentialAttention) {
  populateElementwisePatterns(patterns);
  populateTensorPatterns(patterns);
  populateIndexingPatterns(patterns, indexAddThreadPerColumn);
  populateReductionPatterns(patterns, indexAddThreadPerColumn);
  populateContractionPatterns(patterns);
  populateConvPatterns(patterns);
  populateNNPatterns(patterns);
  populateDropoutPatterns(patterns);
  populateAttentionPatterns(patterns, !sequentialAttention);
}

/// Returns the root op names of the native patterns in `patterns`.
static llvm::DenseSet<OperationName> getRootKinds(RewritePatternSet &patterns) {
  llvm::DenseSet<OperationName> roots;
  for (const std::unique_ptr<RewritePattern> &pattern :
       patterns.getNativePatterns())
    if (std::optional<OperationName> root = pattern->getRootKind())
      roots.insert(*root);
  return roots;
}

SmallVector<OperationName>
mlir::kiln::getKilnOpsWithCPULowering(MLIRContext *context) {
  context->getOrLoadDialect<KilnDialect>();
  RewritePatternSet patterns(context);
  populateKilnToLinalgConversionPatterns(patterns);
  SmallVector<OperationName> ops;
  for (OperationName root : getRootKinds(patterns))
    if (root.getDialectNamespace() == KilnDialect::getDialectNamespace())
      ops.push_back(root);
  llvm::sort(ops, [](OperationName a, OperationName b) {
    return a.getStringRef() < b.getStringRef();
  });
  return ops;
}

namespace {

struct ConvertKilnToLinalgPass
    : kiln::impl::ConvertKilnToLinalgPassBase<ConvertKilnToLinalgPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet owningPatterns(context);
    populateKilnToLinalgConversionPatterns(
        owningPatterns, indexAddThreadPerColumn, sequentialAttention);
    lowered = getRootKinds(owningPatterns);
    patterns = FrozenRewritePatternSet(std::move(owningPatterns));
    return success();
  }

  void runOnOperation() override {
    // An op no family lowers yet, or one too large for its family's
    // patterns, gets a precise diagnostic rather than the generic "failed to
    // legalize operation".
    bool refused = false;
    getOperation()->walk([&](Operation *op) {
      if (op->getDialect() && isa<KilnDialect>(op->getDialect()) &&
          !lowered.contains(op->getName())) {
        op->emitError() << "'" << op->getName() << "' has no CPU lowering yet";
        refused = true;
      } else if (failed(checkConvLoweringLimits(op))) {
        refused = true;
      }
    });
    if (refused)
      return signalPassFailure();

    // Everything but kiln stays as it is: the conversion is partial.
    ConversionTarget target(getContext());
    target.addIllegalDialect<KilnDialect>();
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, scf::SCFDialect,
                           tensor::TensorDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(getOperation(), target, patterns)))
      signalPassFailure();
  }

  FrozenRewritePatternSet patterns;
  /// The root ops of `patterns`.
  llvm::DenseSet<OperationName> lowered;
};

} // namespace
