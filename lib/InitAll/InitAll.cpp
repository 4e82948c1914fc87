//===- InitAll.cpp - Register everything Kiln provides --------------------===//

#include "kiln/InitAll.h"
#include "kiln/Conversion/GPUHost/Passes.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/Transforms/Autodiff.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"
#include "kiln/Pipelines/Pipelines.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

void mlir::kiln::registerAllDialects(DialectRegistry &registry) {
  registry.insert<KilnDialect, func::FuncDialect, arith::ArithDialect>();
  // `--inline` of func.call into kiln functions.
  func::registerInlinerExtension(registry);
  registerGPUPipelineDialects(registry);
  // What kiln-lower-to-cpu{enable-openmp} produces (omp.parallel and its
  // kin, lowered to the LLVM dialect but still omp ops).
  registry.insert<omp::OpenMPDialect>();
  // The backward rules of the kiln ops (AutodiffOpInterface external models).
  registerAutodiffExternalModels(registry);
}

void mlir::kiln::registerAllPasses() {
  registerKilnPasses();
  registerKilnConversionPasses();
  registerKilnGPUHostPasses();
  registerKilnPipelines();

  // Upstream passes kiln-opt users reach for on kiln graphs.
  registerCanonicalizerPass();
  registerCSEPass();
  registerInlinerPass();
  registerSymbolDCEPass();
  registerSCCPPass();

  // Every other upstream pass that kiln-lower-to-cpu (enable-openmp too) and
  // kiln-lower-to-nvvm run, so that their --dump-pass-pipeline parses back.
  // One by one rather than by group: a group links every pass it holds.
  arith::registerArithExpandOpsPass();
  bufferization::registerBufferDeallocationSimplificationPass();
  bufferization::registerBufferResultsToOutParamsPass();
  bufferization::registerLowerDeallocationsPass();
  bufferization::registerOneShotBufferizePass();
  bufferization::registerOptimizeAllocationLivenessPass();
  bufferization::registerOwnershipBasedBufferDeallocationPass();
  LLVM::registerNVVMOptimizeForTargetPass();
  memref::registerExpandReallocPass();
  memref::registerExpandStridedMetadataPass();
  registerArithToLLVMConversionPass();
  registerConvertControlFlowToLLVMPass();
  registerConvertElementwiseToLinalgPass();
  registerConvertFuncToLLVMPass();
  registerConvertGpuOpsToNVVMOpsPass();
  registerConvertIndexToLLVMPass();
  registerConvertLinalgToLoopsPass();
  registerConvertLinalgToParallelLoopsPass();
  registerConvertMathToLLVMPass();
  registerConvertMathToLibmPass();
  registerConvertNVGPUToNVVMPass();
  registerConvertNVVMToLLVMPass();
  registerConvertOpenMPToLLVMPass();
  registerConvertParallelLoopToGpuPass();
  registerConvertSCFToOpenMPPass();
  registerConvertVectorToLLVMPass();
  registerConvertVectorToSCFPass();
  registerFinalizeMemRefToLLVMConversionPass();
  registerGpuAsyncRegionPass();
  registerGpuKernelOutliningPass();
  registerGpuLaunchSinkIndexComputationsPass();
  registerGpuModuleToBinaryPass();
  registerGpuNVVMAttachTargetPass();
  registerGpuToLLVMConversionPass();
  registerLinalgElementwiseOpFusionPass();
  registerLowerAffinePass();
  registerReconcileUnrealizedCastsPass();
  registerSCFForallToParallelLoopPass();
  registerSCFToControlFlowPass();
  registerStripDebugInfoPass();
  registerUBToLLVMConversionPass();
}
