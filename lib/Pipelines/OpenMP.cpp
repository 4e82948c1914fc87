//===- OpenMP.cpp - The OpenMP stage of the CPU pipeline ------------------===//
//
// `enable-openmp` runs the parallel dims of linalg ops on libomp threads:
//
//   kiln-linalg-to-parallel-loops   linalg (but matmuls) -> scf.parallel,
//                                   reduction dims as scf.for inside
//   convert-scf-to-openmp           outermost scf.parallel ->
//                                   omp.parallel { omp.wsloop { loop_nest } }
//   canonicalize                    inlines the memref.alloca_scope that
//                                   convert-scf-to-openmp wraps each body in
//   ...
//   convert-openmp-to-llvm          (with the other LLVM conversions)
//
// Each output element is computed by one thread and each reduction keeps its
// sequential order, so results do not depend on the thread count.
//
//===----------------------------------------------------------------------===//

#include "OpenMP.h"

#include "mlir/Conversion/OpenMPToLLVM/ConvertOpenMPToLLVM.h"
#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace {
/// convert-linalg-to-parallel-loops, except for linalg.matmul and
/// linalg.batch_matmul: the pipeline lowers those to register-tiled kernels
/// (or plain loops) after this pass.
struct KilnLinalgToParallelLoopsPass
    : public PassWrapper<KilnLinalgToParallelLoopsPass,
                         OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(KilnLinalgToParallelLoopsPass)

  StringRef getArgument() const final {
    return "kiln-linalg-to-parallel-loops";
  }
  StringRef getDescription() const final {
    return "Lower linalg ops on buffers (but matmuls) to scf.parallel over "
           "their parallel dims";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<affine::AffineDialect, arith::ArithDialect,
                    memref::MemRefDialect, scf::SCFDialect>();
  }

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()) &&
          op.hasPureBufferSemantics())
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

void mlir::kiln::addOpenMPLoopPasses(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(
      std::make_unique<KilnLinalgToParallelLoopsPass>());
  pm.addPass(createConvertSCFToOpenMPPass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::kiln::addOpenMPToLLVMPasses(OpPassManager &pm) {
  pm.addPass(createConvertOpenMPToLLVMPass());
}
