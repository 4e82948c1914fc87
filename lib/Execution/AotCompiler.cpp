//===- AotCompiler.cpp - Compile kiln modules into shared libraries -------===//
//
// compileToSharedLibrary: the outputs are reserved, the tools found and the
// options checked before any work; then the kiln pipeline, the translation
// to LLVM IR, LLVM's optimization and code generation, the C entry points
// (AotCSource.cpp) and the link with the C compiler driver; the outputs take
// their names only when all of it succeeded.
//
//===----------------------------------------------------------------------===//

#include "kiln/Execution/AotCompiler.h"
#include "kiln/Support/BackendCrashRecovery.h"

#include "AotCSource.h"
#include "kiln/Execution/Toolchain.h"
#include "kiln/InitAll.h"
#include "kiln/Pipelines/Pipelines.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <chrono>
#include <mutex>

using namespace mlir;
using namespace mlir::kiln;
using llvm::Error;
using llvm::Expected;

static double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

void mlir::kiln::registerAotCompilerDialects(DialectRegistry &registry,
                                             AotTarget target) {
  registerCPUPipelineDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerOpenMPDialectTranslation(registry);
  if (target == AotTarget::CPU)
    return;
  // The GPU pipeline's dialects, interfaces and translations, and the
  // embedding of `gpu.binary` in the host's LLVM IR (#gpu.select_object).
  registerAllDialects(registry);
  registerGPUPipelineDialects(registry);
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
}

/// Writes `text` to `path`.
static Error writeFile(StringRef path, StringRef text) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return llvm::createStringError(ec, "cannot write '" + path +
                                           "': " + ec.message());
  os << text;
  os.close();
  if (os.has_error())
    return llvm::createStringError(os.error(), "cannot write '" + path +
                                                   "': " +
                                                   os.error().message());
  return Error::success();
}

/// Creates the host TargetMachine for `cpuName` ("generic", "native" or an
/// LLVM CPU name), position-independent code for a shared library.
static Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(StringRef cpuName, unsigned level) {
  llvm::Triple triple(llvm::sys::getProcessTriple());
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return llvm::createStringError("no LLVM target for " + triple.str() +
                                   ": " + error);
  std::string cpuString = cpuName.str(), features;
  // An unknown CPU would be "ignored" with a warning and then abort in the
  // backend ("64-bit code requested on a subtarget that doesn't support
  // it"): the subtarget of an unknown name has no features at all.
  if (cpuName != "native" && cpuName != "generic") {
    std::unique_ptr<llvm::MCSubtargetInfo> generic(
        target->createMCSubtargetInfo(triple, "", ""));
    if (!generic || !generic->isCPUStringValid(cpuName))
      return llvm::createStringError(
          "--mcpu '" + cpuName + "' is not a CPU of " + triple.str() +
          " (use 'generic', 'native' or an LLVM CPU name; `llc -mcpu=help` "
          "lists them)");
  }
  if (cpuName == "native") {
    cpuString = llvm::sys::getHostCPUName().str();
    SmallVector<std::string> list;
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      list.push_back((feature.second ? "+" : "-") + feature.getKey().str());
    llvm::sort(list);
    features = llvm::join(list, ",");
  }
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpuString, features, options, llvm::Reloc::PIC_, std::nullopt,
      static_cast<llvm::CodeGenOptLevel>(level)));
  if (!machine)
    return llvm::createStringError(
        "cannot create the LLVM target machine for " + triple.str() +
        " (cpu '" + cpuString + "')");
  return machine;
}

/// Defines `__truncsfbf2` (float to bfloat, rounding to nearest even, NaNs
/// stay NaN) in `module` with hidden visibility. LLVM's code generator calls
/// it for an f32 -> bf16 truncation on CPUs without a native conversion
/// (x86-64 before AVX512-BF16, so --mcpu generic); libgcc only has it from
/// GCC 13 on, and the JIT finds one in its process, a library would not.
/// Defined in IR, it follows the backend's own bfloat calling convention.
static void defineTruncSFBF2(llvm::Module &module) {
  if (module.getFunction("__truncsfbf2"))
    return;
  llvm::LLVMContext &context = module.getContext();
  auto *type = llvm::FunctionType::get(llvm::Type::getBFloatTy(context),
                                       {llvm::Type::getFloatTy(context)},
                                       false);
  llvm::Function *function = llvm::Function::Create(
      type, llvm::GlobalValue::ExternalLinkage, "__truncsfbf2", module);
  function->setVisibility(llvm::GlobalValue::HiddenVisibility);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", function));
  llvm::Value *value = function->getArg(0);
  llvm::Value *bits = b.CreateBitCast(value, b.getInt32Ty());
  llvm::Value *high = b.CreateLShr(bits, 16);
  // Round to nearest even: add 0x7fff plus the lowest kept bit.
  llvm::Value *rounded = b.CreateLShr(
      b.CreateAdd(bits, b.CreateAdd(b.getInt32(0x7fff),
                                    b.CreateAnd(high, b.getInt32(1)))),
      16);
  // A NaN keeps its sign and top payload bits and is made quiet.
  llvm::Value *quietNaN = b.CreateOr(high, b.getInt32(0x40));
  llvm::Value *isNaN = b.CreateFCmpUNO(value, value);
  llvm::Value *result = b.CreateSelect(isNaN, quietNaN, rounded);
  b.CreateRet(b.CreateBitCast(b.CreateTrunc(result, b.getInt16Ty()),
                              b.getBFloatTy()));
}

namespace {
/// Removes the temporary files it was given when it goes out of scope.
struct TempFiles {
  SmallVector<std::string> paths;
  ~TempFiles() {
    for (const std::string &path : paths)
      llvm::sys::fs::remove(path);
  }
};
} // namespace

/// One compilation: the options, where errors go, and the files it made.
class AotCompiler::Impl {
public:
  Impl(MLIRContext &context, AotOutputs outputs, AotOptions options)
      : context(context), outputs(std::move(outputs)),
        options(std::move(options)) {}

  LogicalResult prepare();
  LogicalResult compile(ModuleOp module, AotTimings *timings);

private:
  /// Reports `message` as options.reportError says; always failure().
  LogicalResult fail(const Twine &message) {
    if (options.reportError)
      options.reportError(message);
    else
      emitError(module ? module.getLoc() : UnknownLoc::get(&context))
          << message;
    return failure();
  }

  LogicalResult checkOutputPaths();
  LogicalResult reserveOutput(StringRef path, SmallString<128> &temp);
  LogicalResult findTools();
  LogicalResult runPipeline();
  LogicalResult emitObject(bool &needsMemrefCopy, bool &needsHostAllocator);
  LogicalResult link();
  LogicalResult renameOutputs();

  bool cuda() const { return options.target != AotTarget::CPU; }
  bool emulated() const { return options.target == AotTarget::CUDAEmulator; }

  MLIRContext &context;
  const AotOutputs outputs;
  const AotOptions options;
  /// The module being compiled, once compile() was called.
  ModuleOp module;
  std::optional<LogicalResult> prepared;
  bool compiled = false;

  TempFiles temps;
  SmallString<128> libraryTemp, headerTemp, objectTemp, objectPath,
      wrapperPath;
  /// The C compiler driver, the static runtime a GPU library links, and the
  /// OpenMP runtime.
  std::string cc, gpuRuntime;
  StringRef libomp;
  std::unique_ptr<llvm::TargetMachine> machine;
};

/// One path for two outputs would keep only the last one written.
LogicalResult AotCompiler::Impl::checkOutputPaths() {
  SmallVector<std::pair<StringRef, SmallString<128>>, 3> seen;
  for (auto [flag, path] : {std::pair<StringRef, StringRef>(
                                "-o", outputs.library),
                            {"--header", outputs.header},
                            {"--emit-object", outputs.object}}) {
    if (path.empty())
      continue;
    SmallString<128> absolute(path);
    llvm::sys::fs::make_absolute(absolute);
    llvm::sys::path::remove_dots(absolute, /*remove_dot_dot=*/true);
    for (auto &[otherFlag, other] : seen)
      if (absolute == other || llvm::sys::fs::equivalent(absolute, other))
        return fail(otherFlag + " and " + flag + " name the same file '" +
                    path + "'");
    seen.push_back({flag, absolute});
  }
  return success();
}

/// Creates the temporary file that stands for the output `path` until
/// renameOutputs renames it there: `path` with a unique suffix, in the same
/// directory, removed by `temps` (or on a signal) unless renamed. An output
/// that cannot be written so fails before any work, and a failed compile
/// leaves no partial outputs (the header of a library that failed to link).
LogicalResult AotCompiler::Impl::reserveOutput(StringRef path,
                                            SmallString<128> &temp) {
  // Renaming over a directory fails late; over a device (/dev/null) it
  // would replace the device.
  llvm::sys::fs::file_status status;
  if (!llvm::sys::fs::status(path, status) &&
      status.type() != llvm::sys::fs::file_type::regular_file)
    return fail("cannot write '" + path + "': it is " +
                (status.type() == llvm::sys::fs::file_type::directory_file
                     ? "a directory"
                     : "not a regular file"));
  int fd;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(
          path + "-%%%%%%.tmp", fd, temp))
    return fail("cannot write '" + path + "': " + ec.message());
  llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  temps.paths.push_back(temp.str().str());
  llvm::sys::RemoveFileOnSignal(temp);
  return success();
}

/// The static library Kiln's build wrote at `buildPath` (empty: not built)
/// that a GPU library links.
static std::string findLinkedRuntime(StringRef buildPath) {
  if (buildPath.empty())
    return "";
  return findRuntimeLibrary(buildPath).value_or("");
}

/// Finds the C compiler, the runtimes the target links and libomp, and
/// checks the options that need no module: a missing tool fails before any
/// work.
LogicalResult AotCompiler::Impl::findTools() {
  if (options.optLevel > 3)
    return fail("--opt-level must be 0, 1, 2 or 3, not " +
                Twine(options.optLevel));
  cc = options.cc;
  if (cc.empty()) {
    llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName("cc");
    if (!found)
      return fail("no C compiler 'cc' on PATH: kiln-compile links the "
                  "shared library with it (install gcc or clang, or pass "
                  "--cc PATH)");
    cc = *found;
  } else if (!StringRef(cc).contains('/')) {
    // A bare name ("clang") is looked up on PATH, as a shell would.
    llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName(cc);
    if (!found)
      return fail("--cc '" + cc + "' is not on PATH");
    cc = *found;
  } else if (!llvm::sys::fs::can_execute(cc)) {
    return fail("--cc '" + cc + "' is not an executable file");
  }
  if (cuda()) {
    if (options.enableOpenMP)
      return fail("--openmp is for --target=cpu only");
    if (options.gpuFormat != "bin" && options.gpuFormat != "fatbin" &&
        options.gpuFormat != "isa")
      return fail("--gpu-format must be 'bin', 'fatbin' or 'isa', not '" +
                  options.gpuFormat + "'");
#ifdef KILN_GPU_EMULATOR_STATIC_LIBRARY
    StringRef emulatorLibrary = KILN_GPU_EMULATOR_STATIC_LIBRARY;
#else
    StringRef emulatorLibrary;
#endif
#ifdef KILN_CUDA_RUNTIME_LIBRARY
    StringRef cudaLibrary = KILN_CUDA_RUNTIME_LIBRARY;
#else
    StringRef cudaLibrary;
#endif
    gpuRuntime = findLinkedRuntime(emulated() ? emulatorLibrary : cudaLibrary);
    if (gpuRuntime.empty())
      return fail(emulated()
                      ? "--target=cuda-emulator needs Kiln's GPU emulator "
                        "library libKilnGPUEmulator.a, which was not found"
                      : "--target=cuda needs Kiln's CUDA runtime, which was "
                        "not built: configure Kiln where the CUDA toolkit "
                        "(cuda.h) is found");
  }
  if (options.enableOpenMP) {
#ifdef KILN_LIBOMP
    libomp = KILN_LIBOMP;
#endif
    if (libomp.empty() || !llvm::sys::fs::exists(libomp))
      return fail("--openmp needs the OpenMP runtime libomp, which was not "
                  "found when Kiln was built (apt-get install libomp-22-dev)");
  }
  return success();
}

/// Lowers the module: kiln-lower-to-cpu, kiln-lower-to-nvvm with the GPU
/// options, or the textual GPU pipeline.
LogicalResult AotCompiler::Impl::runPipeline() {
  PassManager pm(module.getContext());
  if (options.configurePassManager &&
      failed(options.configurePassManager(pm)))
    return failure();
  if (!cuda()) {
    KilnToCPUPipelineOptions pipelineOptions;
    pipelineOptions.enableOpenMP = options.enableOpenMP;
    pipelineOptions.amx =
        options.amx &&
        machine->getMCSubtargetInfo()->checkFeatures("+amx-tile,+amx-bf16");
    buildKilnToCPUPipeline(pm, pipelineOptions);
  } else if (options.gpuPipeline.empty()) {
    KilnToNVVMPipelineOptions pipelineOptions;
    pipelineOptions.emulate = emulated();
    pipelineOptions.chip = options.gpuChip;
    pipelineOptions.features = options.gpuFeatures;
    pipelineOptions.format = options.gpuFormat;
    pipelineOptions.tensorCores = options.gpuTensorCores;
    pipelineOptions.deterministic = options.gpuDeterministic;
    pipelineOptions.softwarePipeline = options.gpuSoftwarePipeline;
    if (failed(verifyKilnToNVVMPipelineOptions(
            pipelineOptions, [&](const Twine &message) {
              return fail(message);
            })))
      return failure();
    buildKilnToNVVMPipeline(pm, pipelineOptions);
  } else {
    std::string message;
    llvm::raw_string_ostream errorStream(message);
    if (failed(parsePassPipeline(options.gpuPipeline, pm, errorStream)))
      return fail("cannot build the GPU pipeline '" + options.gpuPipeline +
                  "': " + message);
  }
  return pm.run(module);
}

/// Translates the lowered module to LLVM IR, optimizes it and writes the
/// object file. Only the C entry points will be exported: the compiled
/// functions and their C interfaces are made hidden. Sets what the entry
/// points' C source must define.
LogicalResult AotCompiler::Impl::emitObject(bool &needsMemrefCopy,
                                            bool &needsHostAllocator) {
  // On the heap: a code generator that crashes leaves them to its parked
  // thread (kiln/Support/BackendCrashRecovery.h).
  auto llvmContext = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, *llvmContext, options.sourceName);
  if (!llvmModule)
    return fail("cannot translate the lowered module to LLVM IR");
  llvmModule->setTargetTriple(machine->getTargetTriple());
  llvmModule->setDataLayout(machine->createDataLayout());
  defineTruncSFBF2(*llvmModule);
  if (Error error =
          optimizeLLVMModule(*llvmModule, options.optLevel, machine.get()))
    return fail("LLVM optimization failed: " + toString(std::move(error)));

  for (llvm::Function &function : llvmModule->functions()) {
    if (function.isDeclaration()) {
      if (function.getName() == "memrefCopy" && !function.use_empty())
        needsMemrefCopy = true;
      if (function.getName().starts_with("_mlir_memref_to_llvm_") &&
          !function.use_empty())
        needsHostAllocator = true;
      continue;
    }
    // Local functions (the GPU modules' load/unload constructors) must keep
    // the default visibility.
    if (!function.hasLocalLinkage())
      function.setVisibility(llvm::GlobalValue::HiddenVisibility);
  }
  // Host code that copies memrefs with memrefCopy would dereference device
  // pointers on the host: the GPU pipeline must use gpu.memcpy.
  if (cuda() && needsMemrefCopy)
    return fail("the lowered host code calls memrefCopy, which cannot copy "
                "device memory (a bug in the GPU pipeline)");

  objectPath = objectTemp;
  if (objectPath.empty()) {
    int fd;
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "kiln-compile", "o", fd, objectPath))
      return fail("cannot create a temporary file: " + ec.message());
    llvm::sys::Process::SafelyCloseFileDescriptor(fd);
    temps.paths.push_back(objectPath.str().str());
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(objectPath, ec, llvm::sys::fs::OF_None);
  if (ec)
    return fail("cannot write '" + objectPath + "': " + ec.message());
  auto codegen = std::make_unique<llvm::legacy::PassManager>();
  if (machine->addPassesToEmitFile(*codegen, os, nullptr,
                                  llvm::CodeGenFileType::ObjectFile))
    return fail("the LLVM target cannot emit object files");
  // Under crash recovery: instruction selection aborts on what the target
  // cannot compile (kiln/Support/BackendCrashRecovery.h).
  if (!runBackendSafely([&] { codegen->run(*llvmModule); })) {
    (void)codegen.release();
    (void)llvmModule.release();
    (void)llvmContext.release();
    return fail("LLVM's code generator aborted (its message is above): the "
                "lowered module uses something that " +
                machine->getTargetTriple().str() + " with --mcpu " +
                machine->getTargetCPU().str() + " cannot compile");
  }
  os.close();
  if (os.has_error())
    return fail("cannot write '" + objectPath + "': " + os.error().message());
  return success();
}

/// Links the object and the entry points' C source into the library with
/// `cc -shared`.
LogicalResult AotCompiler::Impl::link() {
  std::string libompDir =
      libomp.empty() ? "" : llvm::sys::path::parent_path(libomp).str();
  SmallVector<std::string> args = {cc,
                                   "-shared",
                                   "-fPIC",
                                   "-O2",
                                   "-o",
                                   libraryTemp.str().str(),
                                   objectPath.str().str(),
                                   wrapperPath.str().str(),
                                   "-Wl,--no-undefined",
                                   "-Wl,--as-needed",
                                   "-lm",
                                   "-lpthread"};
#ifdef KILN_SANITIZE_CFLAGS
  // A sanitized Kiln instruments the C it compiles here like its own code,
  // and the runtimes linked below are instrumented (cmake/KilnSanitize.cmake).
  SmallVector<StringRef> sanitizeFlags;
  StringRef(KILN_SANITIZE_CFLAGS).split(sanitizeFlags, ' ', -1, false);
  for (StringRef flag : sanitizeFlags)
    args.push_back(flag.str());
#endif
  if (cuda()) {
    // The CUDA runtime opens libcuda.so.1 with dlopen and uses pthreads;
    // the emulator uses pthreads (and libm).
    args.push_back(gpuRuntime);
    if (!emulated())
      args.push_back("-ldl");
    args.push_back("-lpthread");
    args.push_back("-lm");
  }
  if (!libomp.empty()) {
    args.push_back("-L" + libompDir);
    args.push_back("-Wl,-rpath," + libompDir);
    args.push_back("-lomp");
  }
  SmallVector<StringRef> argRefs(args.begin(), args.end());
  std::string linkError;
  int status = llvm::sys::ExecuteAndWait(
      cc, argRefs, /*Env=*/std::nullopt, /*Redirects=*/{},
      /*SecondsToWait=*/0, /*MemoryLimit=*/0, &linkError);
  if (status == 0)
    return success();
  std::string reason =
      linkError.empty() ? "exit code " + std::to_string(status) : linkError;
  return fail("linking the library failed (" + reason +
              "); the command was: " + llvm::join(args, " "));
}

/// All built: the outputs take their names.
LogicalResult AotCompiler::Impl::renameOutputs() {
  for (auto [temp, path] :
       {std::pair<StringRef, StringRef>(libraryTemp, outputs.library),
        {headerTemp, outputs.header},
        {objectTemp, outputs.object}}) {
    if (path.empty())
      continue;
    if (std::error_code ec = llvm::sys::fs::rename(temp, path))
      return fail("cannot write '" + path + "': " + ec.message());
    llvm::sys::DontRemoveFileOnSignal(temp);
    llvm::erase(temps.paths, temp.str());
  }
  return success();
}

LogicalResult AotCompiler::Impl::prepare() {
  if (prepared)
    return *prepared;
  prepared = failure();
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  if (outputs.library.empty())
    return fail("no shared library to write (-o)");
  // Every output is written to a temporary next to it first: an unwritable
  // one fails here, not at the link.
  if (failed(checkOutputPaths()) ||
      failed(reserveOutput(outputs.library, libraryTemp)) ||
      (!outputs.header.empty() &&
       failed(reserveOutput(outputs.header, headerTemp))) ||
      (!outputs.object.empty() &&
       failed(reserveOutput(outputs.object, objectTemp))) ||
      failed(findTools()))
    return failure();
  Expected<std::unique_ptr<llvm::TargetMachine>> created =
      createTargetMachine(options.cpu, options.optLevel);
  if (!created)
    return fail(toString(created.takeError()));
  machine = std::move(*created);
  prepared = success();
  return success();
}

LogicalResult AotCompiler::Impl::compile(ModuleOp moduleToCompile,
                                         AotTimings *timings) {
  assert(moduleToCompile->getContext() == &context &&
         "the module must live in the compiler's context");
  module = moduleToCompile;
  if (compiled)
    return fail("this AotCompiler has compiled a module already (use one "
                "per set of outputs)");
  compiled = true;
  if (failed(prepare()))
    return failure();

  FailureOr<SmallVector<AotEntryPoint>> functions =
      collectAotEntryPoints(module);
  if (failed(functions))
    return failure();

  auto pipelineStart = std::chrono::steady_clock::now();
  if (failed(runPipeline()))
    return failure();
  double pipelineMs = msSince(pipelineStart);
  // A library with AMX code asks the OS for the tiles before it runs.
  bool usesAMX = false;
  module->walk([&](LLVM::CallIntrinsicOp call) {
    StringRef name = call.getIntrin();
    if (name.starts_with("llvm.x86.t") && name.ends_with(".internal"))
      usesAMX = true;
  });

  auto llvmStart = std::chrono::steady_clock::now();
  bool needsMemrefCopy = false, needsHostAllocator = false;
  if (failed(emitObject(needsMemrefCopy, needsHostAllocator)))
    return failure();
  double llvmMs = msSince(llvmStart);

  {
    int fd;
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "kiln-compile-entry", "c", fd, wrapperPath))
      return fail("cannot create a temporary file: " + ec.message());
    llvm::sys::Process::SafelyCloseFileDescriptor(fd);
    temps.paths.push_back(wrapperPath.str().str());
  }
  if (Error error = writeFile(
          wrapperPath, generateAotWrappers(*functions, needsMemrefCopy,
                                           needsHostAllocator, cuda(),
                                           usesAMX)))
    return fail(toString(std::move(error)));
  if (!outputs.header.empty())
    if (Error error = writeFile(
            headerTemp, generateAotHeader(*functions, options.target,
                                          outputs.header, options.sourceName)))
      return fail(toString(std::move(error)));

  auto linkStart = std::chrono::steady_clock::now();
  if (failed(link()) || failed(renameOutputs()))
    return failure();
  if (timings)
    *timings = {pipelineMs, llvmMs, msSince(linkStart)};
  return success();
}

AotCompiler::AotCompiler(MLIRContext &context, AotOutputs outputs,
                         AotOptions options)
    : impl(std::make_unique<Impl>(context, std::move(outputs),
                                  std::move(options))) {}
AotCompiler::~AotCompiler() = default;

LogicalResult AotCompiler::prepare() { return impl->prepare(); }

LogicalResult AotCompiler::compile(ModuleOp module, AotTimings *timings) {
  return impl->compile(module, timings);
}

LogicalResult mlir::kiln::compileToSharedLibrary(ModuleOp module,
                                                 const AotOutputs &outputs,
                                                 const AotOptions &options,
                                                 AotTimings *timings) {
  return AotCompiler(*module->getContext(), outputs, options)
      .compile(module, timings);
}
