//===- Pipelines.cpp - Kiln lowering pipelines ----------------------------===//

#include "kiln/Pipelines/Pipelines.h"

#include "OpenMP.h"

#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/Transforms/Autodiff.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/AMX/Transforms.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/ControlFlow/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/ControlFlow/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/AllocationOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::kiln;

void mlir::kiln::buildKilnEntryPointBufferizationPipeline(
    OpPassManager &pm) {
  pm.addPass(createKilnPrepareEntryPointsPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Bufferized scf.forall (kiln.index_add) -> scf.parallel, which the
  // OpenMP and GPU stages map to threads.
  pm.addPass(createForallToParallelLoopPass());
  // A returned buffer that is still carried through a loop (an scf.for
  // iter_arg yielded unchanged, as bufferization leaves a tensor loop that
  // updated its buffer in place) is no allocation to hoist into the
  // out-param, so buffer-results-to-out-params would copy it out: fold
  // such loop results to their buffers first.
  pm.addPass(createCanonicalizerPass());
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
}

void mlir::kiln::buildKilnToCPUPipeline(
    OpPassManager &pm, const KilnToCPUPipelineOptions &options) {
  // Expand kiln.value_and_grad into generated gradient functions, so a
  // training step compiles as written; a no-op on modules without it.
  pm.addPass(createKilnAutodiffPass());
  // kiln -> linalg/tensor/arith/math on tensors; upstream elementwise ops
  // on tensors (arith, math) to linalg.generic, which bufferizes.
  pm.addPass(createConvertKilnToLinalgPass());
  pm.addPass(createConvertElementwiseToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  if (options.fuseElementwise) {
    pm.addPass(createKilnFuseElementwisePass());
    pm.addPass(createCanonicalizerPass());
  }

  // Tensors -> buffers. Function boundaries get identity layouts, so every
  // argument is a plain contiguous row-major memref; results become
  // caller-allocated out-params, and arguments are read-only (the runtime ABI,
  // see docs/CPUBackend.md).
  buildKilnEntryPointBufferizationPipeline(pm);
  // Upstream's buffer-deallocation-pipeline (buildBufferDeallocationPipeline),
  // with kiln-split-deallocs before the simplification, which is quadratic
  // in the memrefs of one dealloc (the whole step's, at the end of an entry
  // function).
  memref::ExpandReallocPassOptions expandRealloc;
  expandRealloc.emitDeallocs = false;
  pm.addPass(memref::createExpandReallocPass(expandRealloc));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(bufferization::createOwnershipBasedBufferDeallocationPass());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createKilnSplitDeallocsPass());
  pm.addPass(bufferization::createBufferDeallocationSimplificationPass());
  pm.addPass(bufferization::createLowerDeallocationsPass());
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  // Ownership-based deallocation frees every buffer at the end of its block:
  // in a graph's flat entry function, every temporary of the step would stay
  // alive to the end. Each dealloc moves right after the last user of its
  // buffer (or of a view of it), so that the host allocator hands the block
  // on within the step.
  pm.addNestedPass<func::FuncOp>(
      bufferization::createOptimizeAllocationLivenessPass());
  // One function per distinct loop nest, shared by every layer, so LLVM's
  // work grows with the distinct kernels, not with the graph's depth.
  if (options.outlineKernels)
    pm.addPass(createKilnOutlineKernelsPass());
  if (options.enableOpenMP)
    addOpenMPLoopPasses(pm, options.amx);

  // Buffers -> loops -> the LLVM dialect. Matmuls become register-tiled
  // vector kernels first, every other linalg op plain loops.
  KilnMatmulKernelsPassOptions matmuls;
  matmuls.amx = options.amx;
  pm.addNestedPass<func::FuncOp>(createKilnMatmulKernelsPass(matmuls));
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  // f32 exp, tanh and powers by 2 or 3 as arithmetic the loop vectorizer
  // widens, not calls to the C library.
  pm.addPass(createKilnExpandMathPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertVectorToLLVMPass());
  // memref.alloc / dealloc call _mlir_memref_to_llvm_alloc / _free, which
  // Kiln's host allocator defines (lib/Runtime/HostAllocator.c, in the JIT and
  // in every kiln-compile'd library): it keeps freed blocks for reuse, so
  // that temporaries allocated per call or per loop iteration touch no new
  // pages in a program's steady state (docs/CPUBackend.md, "Host memory").
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createKilnFinalizeEntryPointsPass());
  if (options.amx) {
    // AMX tiles are loop-carried values (the accumulators of a matmul's
    // K loop): the branches that carry them and the amx ops convert in one
    // pass, whose type converter knows both !amx.tile and the block
    // arguments (convert-control-flow-to-llvm's alone does not know tiles).
    ConvertToLLVMPassOptions toLLVM;
    toLLVM.filterDialects = {"amx", "cf"};
    pm.addPass(createConvertToLLVMPass(toLLVM));
  } else {
    pm.addPass(createConvertControlFlowToLLVMPass());
  }
  pm.addPass(createUBToLLVMConversionPass());
  if (options.enableOpenMP)
    addOpenMPToLLVMPasses(pm);
  pm.addPass(createReconcileUnrealizedCastsPass());
}

LogicalResult mlir::kiln::collectOpsLoweredBy(
    ModuleOp module, llvm::function_ref<void(OpPassManager &)> buildPipeline,
    std::vector<std::string> &ops, std::string &error) {
  MLIRContext *context = module.getContext();
  OwningOpRef<ModuleOp> copy(module.clone());
  llvm::raw_string_ostream os(error);
  ScopedDiagnosticHandler handler(context, [&](Diagnostic &diagnostic) {
    os << diagnostic.getLocation() << ": " << diagnostic << "\n";
    for (const Diagnostic &note : diagnostic.getNotes())
      os << note.getLocation() << ": note: " << note << "\n";
    return success();
  });
  PassManager pm(context);
  buildPipeline(pm);
  if (failed(pm.run(*copy)))
    return failure();
  module.walk([&](Operation *op) {
    if (op->getDialect() &&
        op->getDialect()->getNamespace() == KilnDialect::getDialectNamespace())
      ops.push_back(op->getName().getStringRef().str());
  });
  return success();
}

LogicalResult mlir::kiln::collectOpsLoweredToCPU(ModuleOp module,
                                                 std::vector<std::string> &ops,
                                                 std::string &error) {
  return collectOpsLoweredBy(
      module,
      [](OpPassManager &pm) {
        buildKilnToCPUPipeline(pm, KilnToCPUPipelineOptions());
      },
      ops, error);
}

void mlir::kiln::registerKilnPipelines() {
  PassPipelineRegistration<KilnToCPUPipelineOptions>(
      "kiln-lower-to-cpu",
      "Lower kiln ops to the LLVM dialect for the CPU (JIT) runtime",
      buildKilnToCPUPipeline);
  // Not PassPipelineRegistration: its builder cannot reject options, and
  // an impossible chip or PTX version only fails deep in the NVPTX backend.
  registerPassPipeline(
      "kiln-lower-to-nvvm",
      "Lower kiln ops to NVIDIA GPU kernels (gpu.binary) and host code in "
      "the LLVM dialect that calls the mgpu* runtime",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        KilnToNVVMPipelineOptions options;
        if (failed(options.parseFromString(text)) ||
            failed(verifyKilnToNVVMPipelineOptions(options, errorHandler)))
          return failure();
        buildKilnToNVVMPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optionHandler) {
        optionHandler(KilnToNVVMPipelineOptions());
      });
}

void mlir::kiln::registerCPUPipelineDialects(DialectRegistry &registry) {
  registry.insert<KilnDialect, amx::AMXDialect, arith::ArithDialect,
                  bufferization::BufferizationDialect, cf::ControlFlowDialect,
                  func::FuncDialect, linalg::LinalgDialect, LLVM::LLVMDialect,
                  math::MathDialect, memref::MemRefDialect, scf::SCFDialect,
                  tensor::TensorDialect, vector::VectorDialect>();
  // convert-to-llvm{filter-dialects=amx,cf} (the `amx` option).
  registerConvertAMXToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  // The pipeline starts with kiln-autodiff, which needs the backward rules.
  registerAutodiffExternalModels(registry);
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  arith::registerBufferDeallocationOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  cf::registerBufferizableOpInterfaceExternalModels(registry);
  cf::registerBufferDeallocationOpInterfaceExternalModels(registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  memref::registerAllocationOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferDeallocationOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  vector::registerBufferizableOpInterfaceExternalModels(registry);
}
