//===- OpenMP.cpp - The OpenMP stage of the CPU pipeline ------------------===//
//
// `enable-openmp` runs the parallel dims of linalg ops on libomp threads:
//
//   kiln-linalg-to-parallel-loops   linalg (but matmuls, and ops already in
//                                   a parallel loop) -> scf.parallel,
//                                   reduction dims as scf.for inside
//   kiln-matmul-kernels{parallel}   matmuls -> register-tiled kernels, an
//                                   scf.parallel over their column tiles
//                                   where no parallel loop encloses them
//   convert-scf-to-openmp           outermost scf.parallel ->
//                                   omp.parallel { omp.wsloop { loop_nest } }
//   canonicalize                    inlines the memref.alloca_scope that
//                                   convert-scf-to-openmp wraps each body in
//   ...
//   convert-openmp-to-llvm          (with the other LLVM conversions)
//
// Each output element is computed by one thread and each reduction keeps its
// sequential order, so results do not depend on the thread count. The
// scf.parallel ops that bufferized scf.forall ops became (attention's query
// blocks, index_add, cumsum) are the larger parallel regions: the linalg ops
// and matmuls inside run in their thread.
//
//===----------------------------------------------------------------------===//

#include "OpenMP.h"

#include "kiln/Conversion/Passes.h"

#include "mlir/Conversion/OpenMPToLLVM/ConvertOpenMPToLLVM.h"
#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::kiln::addOpenMPLoopPasses(OpPassManager &pm, bool amx) {
  pm.addNestedPass<func::FuncOp>(createKilnLinalgToParallelLoopsPass());
  // Before convert-scf-to-openmp, which then runs their column tiles on
  // threads (the loops stage's run of the pass finds no matmul left).
  KilnMatmulKernelsPassOptions matmuls;
  matmuls.parallel = true;
  matmuls.amx = amx;
  pm.addNestedPass<func::FuncOp>(createKilnMatmulKernelsPass(matmuls));
  pm.addPass(createConvertSCFToOpenMPPass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::kiln::addOpenMPToLLVMPasses(OpPassManager &pm) {
  pm.addPass(createConvertOpenMPToLLVMPass());
}
