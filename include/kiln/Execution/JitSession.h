//===- JitSession.h - Compile and run kiln modules on the CPU ---*- C++ -*-===//
//
// A JitSession owns an MLIRContext with everything the CPU pipeline needs.
// It compiles kiln modules (ModuleOp or source text) through
// `kiln-lower-to-cpu` (or, for JitTarget::GPUEmulator, the GPU pipeline with
// emulated kernels) into a JitModule backed by an mlir::ExecutionEngine,
// whose public functions are then invoked on HostTensors.
//
// Errors are MLIR diagnostics: compile and invoke report them through the
// context's diagnostic engine (at the function's location where there is
// one) and return failure. See docs/CPUBackend.md for the calling ABI.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_EXECUTION_JITSESSION_H
#define KILN_EXECUTION_JITSESSION_H

#include "kiln/Conversion/AttentionSoftwarePipeline.h"
#include "kiln/Execution/Signature.h"
#include "kiln/Execution/Toolchain.h"
#include "kiln/Support/HostTensor.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringMap.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace mlir {
class ExecutionEngine;
class ModuleOp;
class OpPassManager;
} // namespace mlir

namespace mlir::kiln {

/// Wall-clock seconds spent compiling and running.
struct JitTimings {
  /// The CPU pipeline plus LLVM code generation.
  double compileSeconds = 0;
  /// The last invoke: the call of the compiled function only, not the
  /// argument checks or the output allocation.
  double runSeconds = 0;
};

/// What a JitSession compiles for.
enum class JitTarget {
  /// The host CPU: kiln-lower-to-cpu.
  CPU,
  /// The GPU pipeline's kernels run on the host by Kiln's GPU emulator:
  /// kiln-lower-to-nvvm{emulate}, with libkiln_gpu_emulator.so loaded
  /// (docs/GPUEmulator.md). Slow, but it computes exactly what the GPU
  /// kernels compute; no GPU or CUDA toolkit is needed.
  GPUEmulator,
};

/// Options of the CPU compilation: the `kiln-lower-to-cpu` pipeline's
/// (KilnToCPUPipelineOptions, which are not copyable, hence mirrored here),
/// graph passes to run before it, and LLVM's.
struct JitOptions {
  /// LLVM code generation optimization level, 0 to 3.
  unsigned optLevel = 2;
  /// Runs the parallel loops on OpenMP threads (the pipeline's
  /// `enable-openmp`); the JIT then loads the OpenMP runtime, libomp. The
  /// thread count is libomp's: OMP_NUM_THREADS, or one per core.
  bool enableOpenMP = false;
  /// CPU: runs bf16 matmuls on AMX tiles (kiln-lower-to-cpu's `amx`) when
  /// the host has AMX-BF16 and the OS lets the process use the tiles.
  bool amx = true;
  /// Fuses elementwise linalg ops (the pipeline's `fuse-elementwise`).
  bool fuseElementwise = true;
  /// The pipeline's `outline-kernels`: one shared function per distinct
  /// loop nest, so that LLVM's work grows with the distinct kernels, not
  /// with the depth of the graph.
  bool outlineKernels = true;
  /// The target; the GPU emulator ignores `enableOpenMP` and
  /// `fuseElementwise` (the GPU pipeline always fuses).
  JitTarget target = JitTarget::CPU;
  /// GPUEmulator: the tensor-core (mma) attention kernels for f16/bf16 (the
  /// GPU pipeline's `tensor-cores`).
  bool tensorCores = true;
  /// GPUEmulator: the forward tensor-core kernel's software pipelining (the
  /// GPU pipeline's `software-pipeline`).
  AttentionSoftwarePipeline softwarePipeline = AttentionSoftwarePipeline::Auto;
  /// GPUEmulator: the attention backward without float atomics (the GPU
  /// pipeline's `deterministic`).
  bool deterministic = false;
  /// When set, adds passes that run on the kiln graph before the pipeline,
  /// e.g. kiln-autodiff with options (buildAutodiffPipeline in kiln/Kiln.h).
  std::function<void(OpPassManager &)> addGraphPasses;
};

/// Whether this process can run AMX tiles (JitOptions::amx): the host has
/// AMX-BF16 and the OS granted the tile state (asked once per process).
bool hostCanUseAMX();

/// A kiln module compiled for the host CPU. It reports diagnostics through
/// its JitSession's context, so it must not outlive the session.
class JitModule {
public:
  ~JitModule();

  /// Calls the public function `name` on `inputs`. The inputs must match
  /// the function's tensor signature in count, dtype and shape. Returns one
  /// newly allocated tensor per result.
  FailureOr<SmallVector<HostTensor>> invoke(StringRef name,
                                            ArrayRef<HostTensor> inputs);

  /// The signature of the public function `name`, or null.
  const FunctionSignature *lookupSignature(StringRef name) const;

  /// The names of the callable (public, defined) functions, sorted.
  SmallVector<StringRef> getFunctionNames() const;

  /// The compile time, and the run time of the last invoke.
  const JitTimings &getTimings() const { return timings; }

private:
  friend class JitSession;
  explicit JitModule(MLIRContext *context);

  MLIRContext *context;
  std::unique_ptr<ExecutionEngine> engine;
  struct Entry {
    FunctionSignature signature;
    /// Set when a type of the signature is not a static tensor of a kiln
    /// element type; invoking the function then reports it.
    std::string unsupported;
    /// The function's location, for diagnostics.
    LocationAttr loc;
    /// The packed wrapper of `_mlir_ciface_<name>`: one pointer per argument.
    void (*function)(void **) = nullptr;
  };
  llvm::StringMap<Entry> functions;
  JitTimings timings;
  /// GPUEmulator: the emulator runtime's error slot (kilnCudaGetLastError
  /// and kilnCudaClearLastError), checked after each call.
  const char *(*getLastError)() = nullptr;
  void (*clearLastError)() = nullptr;
};

/// Compiles kiln modules for the host CPU.
class JitSession {
public:
  JitSession();
  ~JitSession();

  /// The context modules given to `compile` must live in.
  MLIRContext &getContext() { return context; }

  /// Compiles `module`, which must live in getContext(); it is left
  /// unchanged (the graph passes and the pipeline run on a clone). The
  /// functions that `options.addGraphPasses` generates can be invoked too.
  FailureOr<std::unique_ptr<JitModule>> compile(ModuleOp module,
                                                const JitOptions &options = {});

  /// Parses and compiles MLIR source text; `bufferName` names it in
  /// diagnostics.
  FailureOr<std::unique_ptr<JitModule>>
  compileSource(StringRef source, StringRef bufferName = "<source>",
                const JitOptions &options = {});

private:
  // The phases of compile() that fill a JitModule.
  void recordSignatures(ModuleOp lowered, JitModule &jit);
  LogicalResult createEngine(ModuleOp lowered, const JitOptions &options,
                             ArrayRef<std::string> libraries, JitModule &jit,
                             Location loc);
  LogicalResult lookUpEntryPoints(JitModule &jit, bool emulated,
                                  Location loc);

  MLIRContext context;
};

} // namespace mlir::kiln

#endif // KILN_EXECUTION_JITSESSION_H
