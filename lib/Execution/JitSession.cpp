//===- JitSession.cpp - Compile and run kiln modules on the CPU -----------===//

#include "kiln/Execution/JitSession.h"

#include "kiln/Execution/Toolchain.h"
#include "kiln/Pipelines/Pipelines.h"
#include "kiln/Runtime/HostAllocator.h"
#include "kiln/Support/BackendCrashRecovery.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/Passes/OptimizationLevel.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

#include <chrono>
#include <mutex>

using namespace mlir;
using namespace mlir::kiln;

static_assert(sizeof(void *) == sizeof(int64_t),
              "memref descriptors are built from 64-bit words");

/// Binds the allocation functions of the CPU pipeline's code
/// (finalize-memref-to-llvm with use-generic-functions) to Kiln's host
/// allocator, before any lookup materializes code that calls them.
static void registerHostAllocator(ExecutionEngine &engine) {
  engine.registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    auto add = [&](StringRef name, void *address) {
      symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                                 llvm::JITSymbolFlags::Exported};
    };
    add("_mlir_memref_to_llvm_alloc",
        reinterpret_cast<void *>(&_mlir_memref_to_llvm_alloc));
    add("_mlir_memref_to_llvm_aligned_alloc",
        reinterpret_cast<void *>(&_mlir_memref_to_llvm_aligned_alloc));
    add("_mlir_memref_to_llvm_free",
        reinterpret_cast<void *>(&_mlir_memref_to_llvm_free));
    return symbols;
  });
}

/// Seconds elapsed since `start`.
static double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// Applies MLIR's pass manager and timing command-line options
/// (--mlir-print-ir-after-all, --mlir-timing, ...) to `pm` when the program
/// registered them, as kiln-run does; otherwise leaves `pm` alone.
static void applyCLOptions(PassManager &pm) {
  // Fails only when the options are not registered.
  (void)applyPassManagerCLOptions(pm);
  applyDefaultTimingPassManagerCLOptions(pm);
}

/// The dialects, interface models and LLVM IR translations the JIT needs.
static DialectRegistry getJitRegistry() {
  DialectRegistry registry;
  registerGPUPipelineDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerOpenMPDialectTranslation(registry);
  return registry;
}

JitSession::JitSession()
    : context(getJitRegistry(), MLIRContext::Threading::DISABLED) {
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

JitSession::~JitSession() = default;
JitModule::JitModule(MLIRContext *context) : context(context) {}
JitModule::~JitModule() = default;

/// The ExecutionEngine gives every function with a body a packed wrapper
/// `_mlir_<name>(void **)`; the runtime looks up only those of the entry
/// points' C interfaces (`entryPoints`). Erases the other wrappers (one per
/// outlined kernel, and one that would call an entry point's body with
/// every descriptor word again), and folds each C interface called only by
/// its wrapper into it, so that an entry point is compiled once.
static void keepOnlyEntryPoints(llvm::Module &module,
                                ArrayRef<std::string> entryPoints) {
  SmallVector<llvm::Function *> unused;
  for (llvm::Function &function : module) {
    StringRef name = function.getName();
    if (function.isDeclaration() || !name.consume_front("_mlir_") ||
        !function.use_empty())
      continue;
    if (llvm::is_contained(entryPoints, name)) {
      llvm::Function *interface = module.getFunction(name);
      if (interface && !interface->isDeclaration() &&
          interface->hasOneUse()) {
        interface->setLinkage(llvm::GlobalValue::InternalLinkage);
        interface->addFnAttr(llvm::Attribute::AlwaysInline);
      }
      continue;
    }
    // Only a wrapper of a function that has a body of that name.
    llvm::Function *wrapped = module.getFunction(name);
    if (wrapped && !wrapped->isDeclaration())
      unused.push_back(&function);
  }
  for (llvm::Function *function : unused)
    function->eraseFromParent();
}

/// Records the tensor signature of every public function of `lowered`
/// (before lowering changes them) as an entry point of `jit`.
void JitSession::recordSignatures(ModuleOp lowered, JitModule &jit) {
  for (auto func : lowered.getOps<func::FuncOp>()) {
    if (!func.isPublic() || func.isExternal())
      continue;
    JitModule::Entry entry;
    entry.loc = func.getLoc();
    std::optional<FunctionSignature> signature = getFunctionSignature(
        func.getFunctionType(), func.getSymName(), entry.unsupported);
    if (signature)
      entry.signature = std::move(*signature);
    else
      entry.unsupported += (", but the CPU runtime only passes statically "
                            "shaped tensors of " +
                            kAbiElementTypes)
                               .str();
    jit.functions.insert({func.getSymName(), std::move(entry)});
  }
}

/// The shared libraries the compiled code calls: MLIR's C runner utilities
/// (memrefCopy), the OpenMP runtime (__kmpc_fork_call, ...) with
/// `enableOpenMP`, the GPU emulator's runtime (__kiln_emu_*, mgpu*, __nv_*)
/// for JitTarget::GPUEmulator. Fails with an error at `loc` when one is
/// missing.
static FailureOr<SmallVector<std::string>>
findRuntimeLibraries(const JitOptions &options, Location loc) {
  SmallVector<std::string> libraries;
#ifdef KILN_MLIR_C_RUNNER_UTILS
  libraries.push_back(KILN_MLIR_C_RUNNER_UTILS);
#endif
  bool emulated = options.target == JitTarget::GPUEmulator;
  if (options.enableOpenMP) {
    StringRef openMPRuntime;
#ifdef KILN_LIBOMP
    openMPRuntime = KILN_LIBOMP;
#endif
    if (openMPRuntime.empty() || !llvm::sys::fs::exists(openMPRuntime))
      return emitError(loc)
             << "OpenMP needs the OpenMP runtime "
             << (openMPRuntime.empty() ? StringRef("libomp.so")
                                       : openMPRuntime)
             << ", which was not found when Kiln was built or is gone now "
                "(Debian: apt-get install libomp-22-dev)";
    if (!emulated)
      libraries.push_back(openMPRuntime.str());
  }
  if (emulated) {
    SmallVector<std::string, 3> tried;
    std::optional<std::string> found;
#ifdef KILN_GPU_EMULATOR_LIBRARY
    found = findRuntimeLibrary(KILN_GPU_EMULATOR_LIBRARY, &tried);
#endif
    if (!found)
      return emitError(loc)
             << "the GPU emulator needs its runtime libkiln_gpu_emulator.so, "
                "which is not in "
             << (tried.empty() ? "this build of Kiln"
                               : llvm::join(tried, ", "));
    libraries.push_back(*found);
  }
  return libraries;
}

bool mlir::kiln::hostCanUseAMX() {
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  return features.lookup("amx-tile") && features.lookup("amx-bf16") &&
         kilnRequestAMX();
}

/// Fills `pm` with the pipeline `options` select: kiln-lower-to-cpu, or
/// kiln-lower-to-nvvm{emulate} for the GPU emulator.
static void buildJitPipeline(PassManager &pm, const JitOptions &options) {
  applyCLOptions(pm);
  if (options.target == JitTarget::GPUEmulator) {
    KilnToNVVMPipelineOptions pipelineOptions;
    pipelineOptions.emulate = true;
    pipelineOptions.tensorCores = options.tensorCores;
    pipelineOptions.softwarePipeline = options.softwarePipeline;
    pipelineOptions.deterministic = options.deterministic;
    buildKilnToNVVMPipeline(pm, pipelineOptions);
  } else {
    KilnToCPUPipelineOptions pipelineOptions;
    pipelineOptions.enableOpenMP = options.enableOpenMP;
    pipelineOptions.fuseElementwise = options.fuseElementwise;
    pipelineOptions.outlineKernels = options.outlineKernels;
    pipelineOptions.amx = options.amx && hostCanUseAMX();
    buildKilnToCPUPipeline(pm, pipelineOptions);
  }
}

/// Translates the lowered module to LLVM IR, optimizes it for the host and
/// creates `jit`'s ExecutionEngine, with `libraries` loaded.
LogicalResult JitSession::createEngine(ModuleOp lowered,
                                       const JitOptions &options,
                                       ArrayRef<std::string> libraries,
                                       JitModule &jit, Location loc) {
  ExecutionEngineOptions engineOptions;
  unsigned optLevel = std::min(options.optLevel, 3u);
  engineOptions.jitCodeGenOptLevel =
      static_cast<llvm::CodeGenOptLevel>(optLevel);
  // LLVM's optimizer takes its cost models (vector widths, the inliner's
  // and the unroller's costs) from the TargetMachine: without the host's it
  // optimizes for a generic machine with no vector registers.
  llvm::Expected<llvm::orc::JITTargetMachineBuilder> machineBuilder =
      llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!machineBuilder)
    return emitError(loc) << "cannot describe the host to LLVM: "
                          << llvm::toString(machineBuilder.takeError());
  machineBuilder->setCodeGenOptLevel(
      static_cast<llvm::CodeGenOptLevel>(optLevel));
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> targetMachine =
      machineBuilder->createTargetMachine();
  if (!targetMachine)
    return emitError(loc) << "cannot create the host's LLVM target machine: "
                          << llvm::toString(targetMachine.takeError());
  SmallVector<std::string> entryPoints;
  for (auto &item : jit.functions)
    entryPoints.push_back(("_mlir_ciface_" + item.getKey()).str());
  // ExecutionEngineOptions::transformer is a function_ref: the callable
  // must outlive ExecutionEngine::create.
  auto transformer = [&](llvm::Module *module) {
    keepOnlyEntryPoints(*module, entryPoints);
    return optimizeLLVMModule(*module, optLevel, targetMachine->get());
  };
  engineOptions.transformer = transformer;
  engineOptions.enableGDBNotificationListener = false;
  engineOptions.enablePerfNotificationListener = false;
  SmallVector<StringRef> libraryRefs(libraries.begin(), libraries.end());
  engineOptions.sharedLibPaths = libraryRefs;
  llvm::Expected<std::unique_ptr<ExecutionEngine>> engine =
      ExecutionEngine::create(lowered, engineOptions);
  if (!engine)
    return emitError(loc) << "cannot JIT-compile the module: "
                          << llvm::toString(engine.takeError());
  jit.engine = std::move(*engine);
  registerHostAllocator(*jit.engine);
  return success();
}

/// Looks every entry point up now: the JIT materializes code on lookup, and
/// that belongs to the compile time, not to the first run. On the GPU
/// emulator, also finds its error slot (its kilnCuda* functions).
LogicalResult JitSession::lookUpEntryPoints(JitModule &jit, bool emulated,
                                            Location loc) {
  for (auto &item : jit.functions) {
    StringRef name = item.getKey();
    JitModule::Entry &entry = item.getValue();
    // Code generation runs here, under crash recovery: instruction selection
    // aborts on what the host cannot compile
    // (kiln/Support/BackendCrashRecovery.h).
    std::optional<llvm::Expected<void (*)(void **)>> function;
    if (!runBackendSafely([&] {
          function.emplace(
              jit.engine->lookupPacked(("_mlir_ciface_" + name).str()));
        })) {
      // The JIT's session may hold its locks: never destroyed.
      (void)jit.engine.release();
      return emitError(Location(entry.loc))
             << "LLVM's code generator aborted on @" << name
             << " (its message is above): the lowered module uses something "
                "this CPU cannot compile";
    }
    if (!*function)
      return emitError(Location(entry.loc))
             << "cannot find the compiled code of @" << name << ": "
             << llvm::toString(function->takeError());
    entry.function = **function;
  }
  if (!emulated)
    return success();
  for (auto [name, slot] :
       {std::pair<StringRef, void **>{
            "kilnCudaGetLastError",
            reinterpret_cast<void **>(&jit.getLastError)},
        {"kilnCudaClearLastError",
         reinterpret_cast<void **>(&jit.clearLastError)}}) {
    llvm::Expected<void *> address = jit.engine->lookup(name);
    if (!address)
      return emitError(loc) << "cannot find " << name
                            << " in the GPU emulator runtime: "
                            << llvm::toString(address.takeError());
    *slot = *address;
  }
  return success();
}

FailureOr<std::unique_ptr<JitModule>>
JitSession::compile(ModuleOp module, const JitOptions &options) {
  if (module->getContext() != &context)
    return emitError(module.getLoc())
           << "the module lives in another MLIRContext than the JitSession's "
              "(parse it in JitSession::getContext())";
  auto start = std::chrono::steady_clock::now();
  std::unique_ptr<JitModule> jit(new JitModule(&context));

  // The graph passes run first, on a clone, so that the functions they
  // generate (e.g. kiln-autodiff's) can be invoked too.
  OwningOpRef<ModuleOp> lowered = module.clone();
  if (options.addGraphPasses) {
    PassManager graphPM(&context);
    applyCLOptions(graphPM);
    options.addGraphPasses(graphPM);
    if (failed(graphPM.run(*lowered)))
      return failure();
  }
  recordSignatures(*lowered, *jit);
  FailureOr<SmallVector<std::string>> libraries =
      findRuntimeLibraries(options, module.getLoc());
  if (failed(libraries))
    return failure();

  PassManager pm(&context);
  buildJitPipeline(pm, options);
  if (failed(pm.run(*lowered)))
    return failure();
  if (failed(createEngine(*lowered, options, *libraries, *jit,
                          module.getLoc())) ||
      failed(lookUpEntryPoints(*jit, options.target == JitTarget::GPUEmulator,
                               module.getLoc())))
    return failure();
  jit->timings.compileSeconds = secondsSince(start);
  return jit;
}

FailureOr<std::unique_ptr<JitModule>>
JitSession::compileSource(StringRef source, StringRef bufferName,
                          const JitOptions &options) {
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, ParserConfig(&context), bufferName);
  if (!module)
    return failure();
  return compile(*module, options);
}

const FunctionSignature *JitModule::lookupSignature(StringRef name) const {
  auto it = functions.find(name);
  return it == functions.end() ? nullptr : &it->second.signature;
}

SmallVector<StringRef> JitModule::getFunctionNames() const {
  SmallVector<StringRef> names;
  for (const auto &entry : functions)
    names.push_back(entry.getKey());
  llvm::sort(names);
  return names;
}

/// Returns the ranked memref descriptor of a contiguous row-major buffer:
/// {allocated ptr, aligned ptr, offset, sizes[rank], strides[rank]}, each an
/// 8-byte word, as `_mlir_ciface_` functions expect it.
static SmallVector<int64_t> makeDescriptor(const char *data,
                                           ArrayRef<int64_t> shape) {
  SmallVector<int64_t> words;
  auto pointer = static_cast<int64_t>(reinterpret_cast<intptr_t>(data));
  words.push_back(pointer);
  words.push_back(pointer);
  words.push_back(0);
  words.append(shape.begin(), shape.end());
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = int64_t(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  words.append(strides.begin(), strides.end());
  return words;
}

FailureOr<SmallVector<HostTensor>>
JitModule::invoke(StringRef name, ArrayRef<HostTensor> inputs) {
  auto it = functions.find(name);
  if (it == functions.end()) {
    InFlightDiagnostic diag = emitError(UnknownLoc::get(context))
                              << "no public function named '@" << name
                              << "' in the module";
    SmallVector<StringRef> names = getFunctionNames();
    if (names.empty()) {
      diag << " (it has none)";
    } else {
      diag << " (it has ";
      llvm::interleaveComma(names, diag,
                            [&](StringRef n) { diag << "@" << n; });
      diag << ")";
    }
    return failure();
  }
  const Entry &entry = it->second;
  Location loc = entry.loc ? Location(entry.loc) : UnknownLoc::get(context);
  if (!entry.unsupported.empty())
    return emitError(loc) << entry.unsupported;
  const FunctionSignature &signature = entry.signature;
  if (inputs.size() != signature.inputs.size())
    return emitError(loc) << "@" << name << " takes " << signature.inputs.size()
                          << " inputs, got " << inputs.size();
  for (auto [i, input, spec] : llvm::enumerate(inputs, signature.inputs)) {
    if (input.getDType() != spec.dtype ||
        input.getShape() != ArrayRef(spec.shape))
      return emitError(loc)
             << "input #" << i << " of @" << name << " is "
             << input.getTypeString() << ", expected " << spec.getTypeString();
  }

  SmallVector<HostTensor> results;
  for (auto [i, spec] : llvm::enumerate(signature.results)) {
    llvm::Expected<HostTensor> result =
        HostTensor::allocate(spec.dtype, spec.shape);
    if (!result)
      return emitError(loc)
             << "cannot allocate result #" << i << " of @" << name << ": "
             << llvm::toString(result.takeError());
    results.push_back(std::move(*result));
  }

  // _mlir_ciface_<name>(desc *in0, ..., desc *out0, ...), called through
  // the engine's packed wrapper: args[i] points at the i-th argument, here a
  // descriptor pointer.
  SmallVector<SmallVector<int64_t>> descriptors;
  for (const HostTensor &input : inputs)
    descriptors.push_back(makeDescriptor(input.getData(), input.getShape()));
  for (const HostTensor &result : results)
    descriptors.push_back(makeDescriptor(result.getData(), result.getShape()));
  SmallVector<void *> descriptorPointers;
  for (SmallVector<int64_t> &words : descriptors)
    descriptorPointers.push_back(words.data());
  SmallVector<void *> args;
  for (void *&pointer : descriptorPointers)
    args.push_back(&pointer);

  if (clearLastError)
    clearLastError();
  auto start = std::chrono::steady_clock::now();
  // Under a recovery point: a temporary the machine has no memory for ends
  // the call with an error (HostAllocator.c).
  size_t failedBytes = kilnHostAllocatorCall(entry.function, args.data());
  timings.runSeconds = secondsSince(start);
  if (failedBytes)
    return emitError(loc) << "@" << name
                          << ": out of memory: its compiled code could not "
                             "allocate a temporary of "
                          << failedBytes << " bytes";
  // The emulator stops a launch that deadlocks or misuses a collective and
  // records why; the results are then incomplete.
  if (getLastError) {
    const char *message = getLastError();
    if (message && *message)
      return emitError(loc) << "@" << name << " failed on the GPU emulator: "
                            << message;
  }
  return results;
}
