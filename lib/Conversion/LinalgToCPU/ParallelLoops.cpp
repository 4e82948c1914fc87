//===- ParallelLoops.cpp - Linalg (but matmuls) to scf.parallel ----------===//
//
// kiln-linalg-to-parallel-loops: the enable-openmp stage of the CPU pipeline
// (see the pass description in include/kiln/Conversion/Passes.td).
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNLINALGTOPARALLELLOOPSPASS
#include "kiln/Conversion/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;

/// Whether `op` runs in one thread of an enclosing parallel loop or region.
static bool isInParallelOp(Operation *op) {
  return op->getParentOfType<scf::ParallelOp>() ||
         op->getParentOfType<scf::ForallOp>() ||
         op->getParentOfType<omp::ParallelOp>();
}

namespace {
/// convert-linalg-to-parallel-loops, except for linalg.matmul and
/// linalg.batch_matmul (the pipeline lowers those to register-tiled kernels,
/// or plain loops, after this pass) and for ops already inside a parallel
/// loop, which convert-linalg-to-loops lowers to sequential loops.
struct KilnLinalgToParallelLoopsPass
    : kiln::impl::KilnLinalgToParallelLoopsPassBase<
          KilnLinalgToParallelLoopsPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()) &&
          op.hasPureBufferSemantics() && !isInParallelOp(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      rewriter.setInsertionPoint(op);
      if (failed(linalg::linalgOpToParallelLoops(rewriter, op))) {
        op.emitError("cannot lower to parallel loops");
        return signalPassFailure();
      }
      rewriter.eraseOp(op);
    }
  }
};
} // namespace
