//===- Toolchain.cpp - What the JIT and the AOT compiler share ------------===//
//
// Toolchain.h, and the signature functions of Signature.h.
//
//===----------------------------------------------------------------------===//

#include "kiln/Execution/Toolchain.h"
#include "kiln/Execution/Signature.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/Passes/OptimizationLevel.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

using namespace mlir;
using namespace mlir::kiln;

std::optional<FunctionSignature>
mlir::kiln::getFunctionSignature(FunctionType type, StringRef name,
                                 std::string &unsupported) {
  FunctionSignature signature;
  for (auto [kind, types, specs] :
       {std::make_tuple(StringRef("argument"), type.getInputs(),
                        &signature.inputs),
        std::make_tuple(StringRef("result"), type.getResults(),
                        &signature.results)}) {
    for (auto [i, t] : llvm::enumerate(types)) {
      std::optional<TensorSpec> spec = getTensorSpec(t);
      if (!spec) {
        llvm::raw_string_ostream os(unsupported);
        os << kind << " #" << i << " of @" << name << " has type '" << t
           << "'";
        return std::nullopt;
      }
      specs->push_back(std::move(*spec));
    }
  }
  return signature;
}

std::optional<TensorSpec> mlir::kiln::getTensorSpec(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return std::nullopt;
  std::optional<DType> dtype = getDTypeFor(tensor.getElementType());
  if (!dtype)
    return std::nullopt;
  return TensorSpec{*dtype, SmallVector<int64_t>(tensor.getShape())};
}

std::optional<std::string>
mlir::kiln::findRuntimeLibrary(StringRef buildPath,
                               SmallVectorImpl<std::string> *tried) {
  StringRef name = llvm::sys::path::filename(buildPath);
  std::string executable = llvm::sys::fs::getMainExecutable(
      nullptr, reinterpret_cast<void *>(&findRuntimeLibrary));
  SmallString<256> beside(
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(executable)));
  llvm::sys::path::append(beside, "lib", name);
  SmallVector<std::string, 3> candidates = {std::string(beside),
                                            buildPath.str()};
#ifdef KILN_INSTALL_LIBDIR
  SmallString<256> installed(KILN_INSTALL_LIBDIR);
  llvm::sys::path::append(installed, name);
  candidates.push_back(std::string(installed));
#endif
  for (const std::string &path : candidates)
    if (llvm::sys::fs::exists(path))
      return path;
  if (tried)
    for (const std::string &path : candidates)
      if (!llvm::is_contained(*tried, path))
        tried->push_back(path);
  return std::nullopt;
}

llvm::Error mlir::kiln::optimizeLLVMModule(llvm::Module &module,
                                           unsigned optLevel,
                                           llvm::TargetMachine *targetMachine) {
  llvm::OptimizationLevel level;
  switch (optLevel) {
  case 0:
    level = llvm::OptimizationLevel::O0;
    break;
  case 1:
    level = llvm::OptimizationLevel::O1;
    break;
  case 2:
    level = llvm::OptimizationLevel::O2;
    break;
  case 3:
    level = llvm::OptimizationLevel::O3;
    break;
  default:
    return llvm::createStringError("invalid LLVM optimization level " +
                                   std::to_string(optLevel));
  }
  // Kernels whose every call passes distinct buffers (kiln-outline-kernels).
  for (llvm::Function &function : module) {
    if (!function.hasFnAttribute("kiln-noalias-arguments"))
      continue;
    function.removeFnAttr("kiln-noalias-arguments");
    for (llvm::Argument &argument : function.args())
      if (argument.getType()->isPointerTy())
        argument.addAttr(llvm::Attribute::NoAlias);
  }
  // With AVX-512, LLVM's tuning for most Intel CPUs prefers 256-bit
  // vectors in the vectorizers (TuningPrefer256Bit); Kiln's matmul kernels
  // use 512-bit registers anyway, and the loops around them (the softmax,
  // the exponentials) ran at half their width.
  if (targetMachine &&
      targetMachine->getTargetFeatureString().contains("+avx512f"))
    for (llvm::Function &function : module)
      if (!function.isDeclaration() &&
          !function.hasFnAttribute("prefer-vector-width"))
        function.addFnAttr("prefer-vector-width", "512");
  {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    // As mlir::makeOptimizingTransformer.
    llvm::PipelineTuningOptions tuning;
    tuning.LoopUnrolling = true;
    tuning.LoopInterleaving = true;
    tuning.LoopVectorization = true;
    tuning.SLPVectorization = true;
    llvm::PassInstrumentationCallbacks instrumentation;
    instrumentation.registerShouldRunOptionalPassCallback(
        [](StringRef pass, llvm::Any) {
          return pass != "CalledValuePropagationPass";
        });
    llvm::PassBuilder builder(targetMachine, tuning, std::nullopt,
                              &instrumentation);
    builder.registerModuleAnalyses(mam);
    builder.registerCGSCCAnalyses(cgam);
    builder.registerFunctionAnalyses(fam);
    builder.registerLoopAnalyses(lam);
    builder.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::ModulePassManager passes =
        optLevel == 0 ? builder.buildO0DefaultPipeline(level)
                      : builder.buildPerModuleDefaultPipeline(level);
    passes.run(module, mam);
  }
  return llvm::Error::success();
}
