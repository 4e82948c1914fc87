//===- OpenMP.h - The OpenMP stage of the CPU pipeline ----------*- C++ -*-===//
//
// Private to lib/Pipelines: the passes `enable-openmp` adds to
// kiln-lower-to-cpu. See docs/AOT.md#openmp.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_PIPELINES_OPENMP_H
#define KILN_LIB_PIPELINES_OPENMP_H

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace mlir::kiln {

/// Runs on buffers, before the linalg ops become loops: every linalg op
/// except matmul and batch_matmul (left to the matmul kernels and
/// convert-linalg-to-loops) becomes an scf.parallel over its parallel dims,
/// with its reduction dims as sequential scf.for loops inside; then each
/// outermost scf.parallel becomes an OpenMP work-sharing loop nest.
/// With `amx`, the matmuls it lowers to kernels use AMX tiles for bf16.
void addOpenMPLoopPasses(OpPassManager &pm, bool amx);

/// Runs with the other conversions to the LLVM dialect: converts the types
/// in the omp regions.
void addOpenMPToLLVMPasses(OpPassManager &pm);

} // namespace mlir::kiln

#endif // KILN_LIB_PIPELINES_OPENMP_H
