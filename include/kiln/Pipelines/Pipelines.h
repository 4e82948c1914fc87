//===- Pipelines.h - Kiln lowering pipelines --------------------*- C++ -*-===//
//
// The pass pipelines that take a module of kiln ops to executable form.
// See docs/CPUBackend.md for the stages and the runtime ABI they produce.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PIPELINES_PIPELINES_H
#define KILN_PIPELINES_PIPELINES_H

#include "kiln/Conversion/AttentionSoftwarePipeline.h"

#include "mlir/Pass/PassOptions.h"

#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
class ModuleOp;
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
                     "tensors before bufferization (default on; =false to "
                     "keep them apart)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> outlineKernels{
      *this, "outline-kernels",
      llvm::cl::desc("Outline each loop nest into a noinline kernel "
                     "function shared by identical loop nests "
                     "(kiln-outline-kernels; default on: LLVM compiles each "
                     "distinct kernel once)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> amx{
      *this, "amx",
      llvm::cl::desc("Run bf16 matmuls on AMX tiles (kiln-matmul-kernels' "
                     "`amx`; only for CPUs with AMX-BF16, whose OS lets the "
                     "process use them: the JIT and kiln-compile set it from "
                     "the target, docs/CPUBackend.md)"),
      llvm::cl::init(false)};
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

/// Adds the passes that take kiln's lowered tensor program to buffers with
/// the entry-point ABI both backends share (docs/CPUBackend.md):
/// kiln-prepare-entry-points, one-shot-bufferize across function boundaries
/// with identity layouts (every argument a contiguous row-major memref),
/// scf-forall-to-parallel, and buffer-results-to-out-params (results become
/// caller-allocated outputs).
/// Deallocation is left to the caller's pipeline.
void buildKilnEntryPointBufferizationPipeline(OpPassManager &pm);

/// Options of the `kiln-lower-to-nvvm` pipeline.
struct KilnToNVVMPipelineOptions
    : public PassPipelineOptions<KilnToNVVMPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("The NVIDIA GPU architecture (sm_XX)"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> features{
      *this, "features", llvm::cl::desc("The PTX ISA version (+ptxXY)"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<int> optLevel{
      *this, "opt-level",
      llvm::cl::desc("Optimization level of the NVPTX backend and ptxas"),
      llvm::cl::init(3)};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("What gpu.binary holds: isa (PTX text), bin (cubin, "
                     "needs ptxas) or fatbin (needs ptxas and fatbinary)"),
      llvm::cl::init("bin")};
  PassOptions::Option<bool> tensorCores{
      *this, "tensor-cores",
      llvm::cl::desc("Let convert-kiln-attention-to-gpu use tensor-core mma "
                     "instructions for f16/bf16 attention on sm_80 and newer "
                     "(default on; =false to use the SIMT kernels, which "
                     "older chips always get)"),
      llvm::cl::init(true)};
  PassOptions::Option<AttentionSoftwarePipeline> softwarePipeline{
      *this, "software-pipeline",
      llvm::cl::desc("convert-kiln-attention-to-gpu's software-pipeline: "
                     "the forward's tensor-core kernel loads the next K/V "
                     "tile while it computes the current one: auto (where "
                     "it was measured to pay), on or off"),
      llvm::cl::init(AttentionSoftwarePipeline::Auto),
      attentionSoftwarePipelineValues()};
  PassOptions::Option<unsigned> forwardMinBlocksPerSM{
      *this, "forward-min-blocks-per-sm",
      llvm::cl::desc("convert-kiln-attention-to-gpu's "
                     "forward-min-blocks-per-sm: an occupancy hint of the "
                     "forward's tensor-core kernel (0: none)"),
      llvm::cl::init(0)};
  PassOptions::Option<unsigned> backwardMinBlocksPerSM{
      *this, "backward-min-blocks-per-sm",
      llvm::cl::desc("convert-kiln-attention-to-gpu's "
                     "backward-min-blocks-per-sm: the same for the "
                     "backward's tensor-core main kernel (0: none)"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> deterministic{
      *this, "deterministic",
      llvm::cl::desc("convert-kiln-attention-to-gpu's deterministic: a "
                     "bitwise reproducible attention backward, without "
                     "float atomics (dQ by a kernel of its own; an op with "
                     "an additive mask goes the generic way)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> emulate{
      *this, "emulate",
      llvm::cl::desc("Compile the kernels for the host CPU and launch them "
                     "on Kiln's GPU emulator (kiln-gpu-emulate-kernels "
                     "instead of gpu-module-to-binary; needs no CUDA "
                     "toolkit)"),
      llvm::cl::init(false)};
};

/// Builds the pipeline from kiln ops on tensors to host code in the LLVM
/// dialect that calls the `mgpu*` runtime functions, plus `gpu.binary` ops
/// holding the kernels: convert-kiln-attention-to-gpu, kiln-autodiff,
/// convert-kiln-to-linalg, bufferization as for the CPU, host buffers moved
/// to the device, linalg to parallel loops mapped to blocks and threads,
/// kernel outlining, NVVM, gpu-module-to-binary and gpu-to-llvm. Public
/// functions keep the CPU's `_mlir_ciface_<name>` entry points, with device
/// pointers in the memref descriptors (docs/GPUBackend.md). With
/// `emulate`, the same kernels are compiled for the host instead and the
/// result is one host LLVM-dialect module for Kiln's GPU emulator
/// (docs/GPUEmulator.md).
void buildKilnToNVVMPipeline(OpPassManager &pm,
                             const KilnToNVVMPipelineOptions &options);

/// Checks the options of `kiln-lower-to-nvvm` that the pipeline would
/// otherwise hand on to a crash or a fatal error in the NVPTX backend or the
/// `#nvvm.target` verifier: `chip` must be an NVPTX processor (`sm_XX`),
/// `features` empty or a PTX ISA version (`+ptxXY`) new enough for `chip`,
/// and `format` one of `isa`, `bin` and `fatbin` (unchecked with `emulate`).
/// Reports the first violation through `emitError`.
LogicalResult verifyKilnToNVVMPipelineOptions(
    const KilnToNVVMPipelineOptions &options,
    llvm::function_ref<LogicalResult(const llvm::Twine &)> emitError);

/// Runs the pipeline that `buildPipeline` builds on a copy of `module`
/// (kiln functions, e.g. the instances of the ops in a test file) and, when
/// it succeeds, appends the name of every kiln op in `module` to `ops`: ops
/// that pipeline really lowers. On failure, `error` holds the pipeline's
/// diagnostics and `ops` is unchanged.
LogicalResult
collectOpsLoweredBy(ModuleOp module,
                    llvm::function_ref<void(OpPassManager &)> buildPipeline,
                    std::vector<std::string> &ops, std::string &error);

/// collectOpsLoweredBy with kiln-lower-to-cpu: the coverage matrix's CPU
/// column.
LogicalResult collectOpsLoweredToCPU(ModuleOp module,
                                     std::vector<std::string> &ops,
                                     std::string &error);

/// collectOpsLoweredBy with kiln-lower-to-nvvm{format=isa}: the coverage
/// matrix's GPU column.
LogicalResult collectOpsLoweredToGPU(ModuleOp module,
                                     std::vector<std::string> &ops,
                                     std::string &error);

/// Registers `kiln-lower-to-cpu` and `kiln-lower-to-nvvm` with the global
/// pass pipeline registry.
void registerKilnPipelines();

/// Registers the dialects and the external interface models (bufferization,
/// buffer deallocation) that the CPU pipeline needs in a context.
void registerCPUPipelineDialects(DialectRegistry &registry);

/// Registers what the GPU pipeline needs on top of the CPU pipeline's
/// dialects: the gpu, nvgpu and NVVM dialects, the `#nvvm.target`
/// serialization, and the LLVM IR translations that gpu-module-to-binary
/// and the host's translation to LLVM IR use.
void registerGPUPipelineDialects(DialectRegistry &registry);

} // namespace mlir::kiln

#endif // KILN_PIPELINES_PIPELINES_H
