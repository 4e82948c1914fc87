//===- Pipelines.h - Kiln lowering pipelines --------------------*- C++ -*-===//
//
// The pass pipelines that take a module of kiln ops to executable form.
// See docs/CPUBackend.md for the stages and the runtime ABI they produce.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PIPELINES_PIPELINES_H
#define KILN_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class DialectRegistry;
class OpPassManager;
} // namespace mlir

namespace mlir::kiln {

/// Options of the `kiln-lower-to-cpu` pipeline.
struct KilnToCPUPipelineOptions
    : public PassPipelineOptions<KilnToCPUPipelineOptions> {
  PassOptions::Option<bool> enableOpenMP{
      *this, "enable-openmp",
      llvm::cl::desc("Run the parallel dims of linalg ops on OpenMP threads "
                     "(the code then calls libomp)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> fuseElementwise{
      *this, "fuse-elementwise",
      llvm::cl::desc("Fuse producer/consumer elementwise linalg ops on "
                     "tensors before bufferization"),
      llvm::cl::init(true)};
};

/// Builds the pipeline from kiln ops on tensors to the LLVM dialect:
/// convert-kiln-to-linalg, canonicalize, linalg elementwise fusion,
/// one-shot-bufferize (function boundaries, identity layouts),
/// buffer-results-to-out-params, buffer deallocation, linalg to loops, and
/// the conversions to the LLVM dialect. Public functions get
/// `llvm.emit_c_interface`, so each has a `_mlir_ciface_<name>` entry point
/// whose arguments are pointers to memref descriptors: the inputs, then one
/// caller-allocated output per result.
void buildKilnToCPUPipeline(OpPassManager &pm,
                            const KilnToCPUPipelineOptions &options);

/// Registers `kiln-lower-to-cpu` with the global pass pipeline registry.
void registerKilnPipelines();

/// Registers the dialects and the external interface models (bufferization,
/// buffer deallocation) that the CPU pipeline needs in a context.
void registerCPUPipelineDialects(DialectRegistry &registry);

} // namespace mlir::kiln

#endif // KILN_PIPELINES_PIPELINES_H
