//===- GPU.cpp - The kiln-lower-to-nvvm pipeline ---------------------------===//
//
// kiln ops on tensors -> host code in the LLVM dialect calling the mgpu*
// runtime, and gpu.binary ops holding the kernels. See docs/GPUBackend.md.
//
//===----------------------------------------------------------------------===//

#include "kiln/Pipelines/Pipelines.h"

#include "kiln/Conversion/GPUHost/NVPTXTarget.h"
#include "kiln/Conversion/GPUHost/Passes.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUCommon/GPUToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToGPU/SCFToGPUPass.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVM/NVVM/Utils.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/TargetParser/Triple.h"

#include <optional>

extern "C" void LLVMInitializeNVPTXTargetInfo();
extern "C" void LLVMInitializeNVPTXTargetMC();

using namespace mlir;
using namespace mlir::kiln;

/// The CUDA toolkit that gpu-module-to-binary takes ptxas and libdevice
/// from. MLIR looks at $CUDA_ROOT, $CUDA_HOME and $CUDA_PATH (and a path
/// fixed when MLIR was built, empty for Debian's packages); when none is
/// set, the toolkit CMake found when Kiln was configured. An empty result
/// leaves MLIR to search ptxas on $PATH, without libdevice.
static std::string getCUDAToolkitPath() {
  if (!NVVM::getCUDAToolkitPath().empty())
    return "";
#ifdef KILN_CUDA_TOOLKIT_DIR
  if (llvm::sys::fs::is_directory(KILN_CUDA_TOOLKIT_DIR))
    return KILN_CUDA_TOOLKIT_DIR;
#endif
  return "";
}

/// The tensor-core attention kernels use `mma.sync.m16n8k16` with f16 and
/// bf16 inputs, which needs sm_80.
static bool hasTensorCoreMma(StringRef chip) {
  std::optional<unsigned> version = getSMVersion(chip);
  return version && *version >= 80;
}

LogicalResult mlir::kiln::verifyKilnToNVVMPipelineOptions(
    const KilnToNVVMPipelineOptions &options,
    function_ref<LogicalResult(const Twine &)> emitError) {
  // LLVM's NVPTX target decides which chips and PTX versions exist.
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTargetMC();
  llvm::Triple triple("nvptx64-nvidia-cuda");
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return emitError("kiln-lower-to-nvvm needs LLVM's NVPTX target: " + error);
  std::unique_ptr<llvm::MCSubtargetInfo> generic(
      target->createMCSubtargetInfo(triple, "", ""));
  StringRef chip = options.chip;
  if (!getSMVersion(chip) || !generic->isCPUStringValid(chip))
    return emitError("kiln-lower-to-nvvm: 'chip' must name an NVPTX "
                     "processor such as sm_90, got '" +
                     chip + "'");

  StringRef features = options.features;
  if (!features.empty()) {
    std::optional<unsigned> ptx;
    if (features.consume_front("+"))
      ptx = getPTXVersion(features);
    if (!ptx || llvm::none_of(generic->getAllProcessorFeatures(),
                              [&](const llvm::SubtargetFeatureKV &feature) {
                                return StringRef(feature.Key) == features;
                              }))
      return emitError("kiln-lower-to-nvvm: 'features' must be a PTX ISA "
                       "version such as +ptx80, got '" +
                       options.features + "'");
    unsigned minPTX = getMinPTXVersion(chip);
    if (*ptx < minPTX)
      return emitError("kiln-lower-to-nvvm: 'features' " + options.features +
                       " is too old for " + chip + ", which needs +ptx" +
                       Twine(minPTX) + " or newer");
  }

  // gpu-module-to-binary would reject it late, without naming the option.
  if (options.optLevel < 0 || options.optLevel > 3)
    return emitError("kiln-lower-to-nvvm: 'opt-level' must be 0, 1, 2 or 3, "
                     "got " +
                     Twine(options.optLevel));

  if (!options.emulate &&
      !llvm::is_contained({"isa", "bin", "fatbin", "assembly", "binary",
                           "fatbinary", "llvm", "offloading"},
                          StringRef(options.format)))
    return emitError("kiln-lower-to-nvvm: 'format' must be isa, bin or "
                     "fatbin, got '" +
                     options.format + "'");
  return success();
}

void mlir::kiln::buildKilnToNVVMPipeline(
    OpPassManager &pm, const KilnToNVVMPipelineOptions &options) {
  // Gradients first, so that attention_grad ops that kiln-autodiff makes
  // reach the attention kernels too.
  pm.addPass(createKilnAutodiffPass());
  ConvertKilnAttentionToGPUPassOptions attention;
  // Chips before sm_80 get the SIMT kernels, as f32 attention does.
  attention.tensorCores = options.tensorCores && hasTensorCoreMma(options.chip);
  attention.softwarePipeline = options.softwarePipeline;
  attention.forwardMinBlocksPerSM = options.forwardMinBlocksPerSM;
  attention.backwardMinBlocksPerSM = options.backwardMinBlocksPerSM;
  attention.deterministic = options.deterministic;
  pm.addPass(createConvertKilnAttentionToGPUPass(attention));

  // Everything else goes the CPU's way to linalg on tensors, then to
  // buffers with the CPU's entry-point ABI (identity layouts, results as
  // caller-allocated out-params); kiln.index_add with one thread per
  // column, which coalesces.
  ConvertKilnToLinalgPassOptions toLinalg;
  toLinalg.indexAddThreadPerColumn = true;
  // The attention ops the kernels above do not take (f64, say) keep scf.for
  // loops of linalg ops: the loop mapping below runs each linalg op as its
  // own grid, and would run a whole forall body (allocations, matmuls) in
  // one thread.
  toLinalg.sequentialAttention = true;
  pm.addPass(createConvertKilnToLinalgPass(toLinalg));
  pm.addPass(createConvertElementwiseToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createLinalgElementwiseOpFusionPass());
  pm.addPass(createCanonicalizerPass());
  buildKilnEntryPointBufferizationPipeline(pm);
  // Bufferization copies each thread's column of kiln.index_add onto itself
  // (tensor.parallel_insert_slice of the slice it extracted): CSE makes the
  // two subviews one, and the canonicalizer erases the self-copy. (The CPU
  // pipeline's deallocation stage runs both.)
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  // Not upstream's ownership-based deallocation: it rejects the attention
  // kernels' gpu.launch bodies (see kiln-gpu-deallocate-temporaries).
  pm.addNestedPass<func::FuncOp>(createKilnGPUDeallocateTemporariesPass());

  // Buffers to the device, linalg to kernels: each linalg op becomes one
  // flat grid of threads, one per point of its parallel dims (reductions
  // run sequentially in the thread); host code that still touches a buffer
  // becomes a one-thread kernel; then nothing on the host may dereference
  // a buffer.
  pm.addPass(createKilnGPUHostToDevicePass());
  pm.addPass(createConvertLinalgToParallelLoopsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createKilnGPUMapParallelLoopsPass());
  pm.addPass(createConvertParallelLoopToGpuPass());
  pm.addNestedPass<func::FuncOp>(createKilnGPUHostCodeToKernelsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createKilnGPUCheckHostCodePass());

  // Kernels: outlining, the NVVM target, NVVM (the tail of upstream's
  // gpu-lower-to-nvvm-pipeline, with Kiln's options and toolkit path).
  pm.addPass(createConvertNVGPUToNVVMPass());
  // Constants and index computations that the canonicalizer hoisted out of
  // the launch bodies go back in before outlining; otherwise every one of
  // them becomes a kernel parameter, and NVPTX sees runtime values where
  // the strides, offsets and loop bounds are constants (no folding into
  // addressing, no unrolling, every address live in a register).
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createKilnGPUKernelOutliningPass());
  // gpu-to-llvm lowers gpu.alloc, gpu.dealloc and gpu.memcpy only in their
  // async form: each function gets one stream that orders its launches,
  // allocations and copies, and waits for it before returning (the call is
  // synchronous, the ABI of docs/GPUBackend.md).
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createKilnFinalizeEntryPointsPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(createKilnGPUCheckTargetSupportPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  pm.addNestedPass<gpu::GPUModuleOp>(createStripDebugInfoPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps());
  // CUDA's `extern __shared__` for the attention kernels' tiles.
  pm.addNestedPass<gpu::GPUModuleOp>(
      createKilnGPUExternDynamicSharedMemoryPass());
  pm.addNestedPass<gpu::GPUModuleOp>(LLVM::createNVVMOptimizeForTargetPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCanonicalizerPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());

  // Host: launches become mgpu* runtime calls, kernels become gpu.binary;
  // or, emulated, the very same NVVM kernels become host functions that
  // Kiln's GPU emulator launches (no toolkit, ptxas or libdevice involved).
  pm.addPass(createGpuToLLVMConversionPass());
  if (options.emulate) {
    pm.addPass(createKilnGPUEmulateKernelsPass());
  } else {
    // gpu-module-to-binary, with an abort of the NVPTX backend as an error.
    KilnGPUModuleToBinaryPassOptions binary;
    binary.format = options.format;
    binary.toolkit = getCUDAToolkitPath();
    pm.addPass(createKilnGPUModuleToBinaryPass(binary));
  }
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

LogicalResult mlir::kiln::collectOpsLoweredToGPU(ModuleOp module,
                                                 std::vector<std::string> &ops,
                                                 std::string &error) {
  return collectOpsLoweredBy(
      module,
      [](OpPassManager &pm) {
        KilnToNVVMPipelineOptions options;
        options.format = "isa";
        buildKilnToNVVMPipeline(pm, options);
      },
      ops, error);
}

void mlir::kiln::registerGPUPipelineDialects(DialectRegistry &registry) {
  registerCPUPipelineDialects(registry);
  registry.insert<affine::AffineDialect, gpu::GPUDialect, index::IndexDialect,
                  NVVM::NVVMDialect, nvgpu::NVGPUDialect, ub::UBDialect>();
  // The dialect conversions that convert-gpu-to-nvvm and gpu-to-llvm look
  // up through ConvertToLLVMPatternInterface.
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  gpu::registerConvertGpuToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
  // #nvvm.target serialization, and the LLVM IR translations it (kernels)
  // and the host's translation (gpu.binary, launches) need.
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}
