//===- AotCompiler.h - Compile kiln modules into shared libraries -*- C++ -*-===//
//
// Ahead-of-time compilation: a kiln module's public functions become a shared
// library with a plain C ABI (and, optionally, the C header that describes
// it), which needs neither LLVM nor MLIR at run time. The module goes through
// kiln-lower-to-cpu (or kiln-lower-to-nvvm for a GPU target), is translated
// to LLVM IR, optimized and emitted as a native object with an LLVM
// TargetMachine, and linked with the C compiler driver together with the
// generated C entry points (docs/AOT.md describes the ABI).
//
// kiln-compile is a command-line driver of AotCompiler; a program that
// embeds Kiln (kiln/Kiln.h) uses it, or compileToSharedLibrary, directly.
//
// Errors are MLIR diagnostics at the op they concern (a function whose
// signature the C ABI cannot pass) or reported through
// AotOptions::reportError. Their texts name the options by kiln-compile's
// flags (--mcpu, --cc, ...), which is how most users meet them.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_EXECUTION_AOTCOMPILER_H
#define KILN_EXECUTION_AOTCOMPILER_H

#include "kiln/Conversion/AttentionSoftwarePipeline.h"
#include "kiln/Execution/Signature.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/Twine.h"

#include <functional>
#include <memory>
#include <string>

namespace mlir {
class DialectRegistry;
class MLIRContext;
class ModuleOp;
class PassManager;
} // namespace mlir

namespace mlir::kiln {

/// What a library compiled ahead of time runs on.
enum class AotTarget {
  /// The host CPU (kiln-lower-to-cpu).
  CPU,
  /// An NVIDIA GPU through the CUDA driver (kiln-lower-to-nvvm): the
  /// pointers the C functions take are device pointers, and the library
  /// links Kiln's CUDA runtime (docs/GPURuntime.md).
  CUDA,
  /// The GPU kernels, compiled for the host and run by Kiln's GPU emulator
  /// (kiln-lower-to-nvvm{emulate}): the C ABI of CUDA on host pointers
  /// (docs/GPUEmulator.md).
  CUDAEmulator,
};

/// The files compileToSharedLibrary writes. Each is first written to a
/// temporary next to it and renamed once the library has linked, so a
/// failed compile leaves none of them behind.
struct AotOutputs {
  /// The shared library (required).
  std::string library;
  /// The C header describing its functions; empty: none.
  std::string header;
  /// The native object the library links; empty: not kept.
  std::string object;
};

/// Options of an ahead-of-time compilation, with kiln-compile's defaults.
struct AotOptions {
  AotTarget target = AotTarget::CPU;
  /// The CPU the code is compiled for: "generic" (any CPU of the host's
  /// architecture), "native" (this machine's CPU and features) or an LLVM
  /// CPU name.
  std::string cpu = "generic";
  /// LLVM optimization level, 0 to 3.
  unsigned optLevel = 2;
  /// CPU: runs the parallel loops on OpenMP threads (kiln-lower-to-cpu's
  /// enable-openmp); the library then links libomp.
  bool enableOpenMP = false;
  /// CPU: runs bf16 matmuls on AMX tiles when `cpu` has AMX-BF16
  /// (kiln-lower-to-cpu's `amx`); the library then asks the OS for the
  /// tiles at its first call, and returns 4 where it may not use them.
  bool amx = true;
  /// The GPU targets: kiln-lower-to-nvvm's chip, features, format ("bin",
  /// "fatbin" or "isa"), tensor-cores, deterministic and software-pipeline.
  std::string gpuChip = "sm_90";
  std::string gpuFeatures = "+ptx80";
  std::string gpuFormat = "bin";
  bool gpuTensorCores = true;
  bool gpuDeterministic = false;
  AttentionSoftwarePipeline gpuSoftwarePipeline =
      AttentionSoftwarePipeline::Auto;
  /// The GPU targets: a textual pass pipeline to run instead of
  /// kiln-lower-to-nvvm with the options above; empty: none.
  std::string gpuPipeline;
  /// The C compiler driver that links the library: a path, or a name looked
  /// up on PATH; empty: `cc` on PATH.
  std::string cc;
  /// The name of the module's source, for the header's first comment.
  std::string sourceName = "<module>";
  /// When set, called on the pass manager before the pipeline is added
  /// (e.g. to apply MLIR's --mlir-print-ir-* and --mlir-timing options);
  /// a failure stops the compilation.
  std::function<LogicalResult(PassManager &)> configurePassManager;
  /// How errors that concern no op of the module are reported (a missing C
  /// compiler, an unknown CPU, a file that cannot be written); when empty,
  /// as an error diagnostic at the module's location.
  std::function<void(const Twine &)> reportError;
};

/// Wall-clock milliseconds of each stage of the last compilation.
struct AotTimings {
  /// The kiln pipeline (kiln-lower-to-cpu or kiln-lower-to-nvvm).
  double pipelineMs = 0;
  /// Translation to LLVM IR, LLVM optimization and code generation.
  double llvmMs = 0;
  /// The C compiler driver's link.
  double linkMs = 0;
};

/// One public function of a module as the library exports it: `kiln_<name>`
/// takes pointers to buffers of these dtypes and shapes.
struct AotEntryPoint {
  Operation *op = nullptr;
  std::string name;
  FunctionSignature signature;
};

/// Registers what compiling for `target` needs in the context of the module:
/// the pipeline's dialects and interfaces and the LLVM IR translations.
void registerAotCompilerDialects(DialectRegistry &registry, AotTarget target);

/// The public functions of `module` that a library exports, in order. Fails,
/// with a diagnostic at the function, on a type the C ABI cannot pass, on a
/// name that is not a C identifier or whose C identifiers clash with
/// another's, and when there is no such function.
FailureOr<SmallVector<AotEntryPoint>> collectAotEntryPoints(ModuleOp module);

/// The C header of a library exporting `functions` for `target`: the
/// prototypes and the dtype and shape constants of each argument.
/// `headerName` gives the include guard.
std::string generateAotHeader(ArrayRef<AotEntryPoint> functions,
                              AotTarget target, StringRef headerName,
                              StringRef sourceName);

/// Compiles kiln modules into shared libraries: one compiler per set of
/// outputs. prepare() does everything that needs no module, so that a
/// missing C compiler, an unknown CPU or an output that cannot be written
/// fails before any work (kiln-compile calls it before it reads its input);
/// compile() then lowers the module and writes the outputs. When the
/// compiler is destroyed, the temporaries of outputs that were not written
/// are removed.
class AotCompiler {
public:
  /// Errors are reported through `options.reportError`, else as diagnostics
  /// in `context` (at the module's location once there is one).
  AotCompiler(MLIRContext &context, AotOutputs outputs,
              AotOptions options = {});
  ~AotCompiler();
  AotCompiler(const AotCompiler &) = delete;
  AotCompiler &operator=(const AotCompiler &) = delete;

  /// Checks the options, finds the C compiler and the runtimes the target
  /// links, creates the LLVM target machine, and reserves each output (a
  /// temporary next to it). Runs once; later calls return its result.
  LogicalResult prepare();

  /// Compiles the public functions of `module` (which lives in the
  /// compiler's context and is lowered in place) into the outputs; calls
  /// prepare() first if needed. On failure every error has been reported
  /// and no output has been written. A compiler compiles one module.
  LogicalResult compile(ModuleOp module, AotTimings *timings = nullptr);

private:
  class Impl;
  std::unique_ptr<Impl> impl;
};

/// Compiles the public functions of `module` into the shared library
/// `outputs.library` (and writes `outputs.header` and `outputs.object` when
/// named): an AotCompiler's prepare() and compile().
LogicalResult compileToSharedLibrary(ModuleOp module, const AotOutputs &outputs,
                                     const AotOptions &options = {},
                                     AotTimings *timings = nullptr);

} // namespace mlir::kiln

#endif // KILN_EXECUTION_AOTCOMPILER_H
