//===- kiln-compile.cpp - Compile kiln functions into a shared library ----===//
//
// Usage:
//   kiln-compile FILE.mlir -o libfoo.so [--header foo.h] [--emit-object F.o]
//                [--target cpu|cuda|cuda-emulator] [--gpu-chip sm_90]
//                [--gpu-format bin] [--gpu-tensor-cores=false] [--gpu-deterministic]
//                [--gpu-software-pipeline[=auto|on|off]]
//                [--mcpu NAME] [--opt-level N] [--openmp] [--cc PATH]
//                [--time]
//
// Ahead-of-time compilation: lowers FILE through the kiln-lower-to-cpu
// pipeline, translates it to LLVM IR, optimizes it and emits a native object
// with an LLVM TargetMachine, then links a shared library with the C
// compiler driver (`cc` on PATH, or --cc). For each public function @name the
// library exports a plain C function
//
//   int kiln_name(const void *const *inputs, void *const *outputs);
//
// whose dtypes and shapes the generated header describes (see docs/AOT.md),
// and kiln_name_last_error, its library's error message. The outputs are
// written to temporaries next to them and renamed once the library links.
// The library needs only libc and libm (and libomp with --openmp) at run
// time, no LLVM or MLIR. Every error is a message and exit code 1.
//
// With --target=cuda the module goes through kiln-lower-to-nvvm instead: the
// kernels are embedded in the object as a cubin (or fatbin, or PTX), the
// host code calls Kiln's CUDA runtime (lib/Runtime/CUDA), which is linked in
// statically and opens libcuda.so.1 at run time, and the pointers passed to
// kiln_name are device pointers (docs/GPURuntime.md). --target=cuda-emulator
// compiles the same kernels for the host instead (kiln-lower-to-nvvm{emulate})
// and links Kiln's GPU emulator (lib/Runtime/GPUEmulator) in place of the CUDA
// runtime: the same C ABI on host pointers, no GPU or CUDA needed
// (docs/GPUEmulator.md).
//
// The work is mlir::kiln::AotCompiler's (kiln/Execution/AotCompiler.h, in
// KilnExecution); this driver maps the flags onto AotOptions.
//
//===----------------------------------------------------------------------===//

#include "kiln/Execution/AotCompiler.h"
#include "kiln/InitAll.h"

#include "ToolSupport.h"
#include "ToolVersion.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

using namespace llvm;
using namespace mlir::kiln;

static cl::OptionCategory kilnCompileCategory("kiln-compile options");

static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::cat(kilnCompileCategory), cl::desc("<input .mlir file>"));
static cl::opt<std::string> outputFile("o", cl::Required,
                                       cl::cat(kilnCompileCategory), cl::desc("The shared library to write"),
                                       cl::value_desc("libfoo.so"));
static cl::opt<std::string>
    headerFile("header", cl::cat(kilnCompileCategory), cl::desc("Write the C header describing the "
                                  "library's functions here"),
               cl::value_desc("foo.h"));
static cl::opt<std::string>
    objectFile("emit-object",
               cl::cat(kilnCompileCategory), cl::desc("Also keep the compiled object file here"),
               cl::value_desc("foo.o"));
static cl::opt<std::string>
    cpu("mcpu", cl::init("generic"),
        cl::cat(kilnCompileCategory), cl::desc("Target CPU: 'generic' (default, runs on any CPU of the "
                 "host's architecture) or 'native' (this machine's CPU and "
                 "features, like the JIT) or an LLVM CPU name"));
static cl::opt<unsigned> optLevel("opt-level", cl::init(2),
                                  cl::cat(kilnCompileCategory), cl::desc("LLVM optimization level (0-3)"));
static cl::opt<bool>
    openMP("openmp", cl::cat(kilnCompileCategory), cl::desc("Run parallel loops on OpenMP threads; the "
                              "library then links libomp"));
static cl::opt<bool> amx(
    "amx", cl::init(AotOptions().amx), cl::cat(kilnCompileCategory),
    cl::desc("Run bf16 matmuls on AMX tiles when the --mcpu CPU has "
             "AMX-BF16 (the default; --amx=false: the vector kernels)"));
static cl::opt<AotTarget> compileTarget(
    "target", cl::init(AotTarget::CPU), cl::cat(kilnCompileCategory),
    cl::desc("What the library runs on"),
    cl::values(clEnumValN(AotTarget::CPU, "cpu",
                          "the host CPU (kiln-lower-to-cpu; the default)"),
               clEnumValN(AotTarget::CUDA, "cuda",
                          "an NVIDIA GPU through the CUDA driver "
                          "(kiln-lower-to-nvvm; pointers are device "
                          "pointers)"),
               clEnumValN(AotTarget::CUDAEmulator, "cuda-emulator",
                          "the GPU kernels run on the host by Kiln's GPU "
                          "emulator (kiln-lower-to-nvvm{emulate}; the C ABI "
                          "of --target=cuda on host pointers)")));
static cl::opt<std::string>
    gpuChip("gpu-chip", cl::init("sm_90"), cl::cat(kilnCompileCategory),
            cl::desc("--target=cuda: the GPU architecture of the kernels"));
static cl::opt<std::string>
    gpuFeatures("gpu-features", cl::init("+ptx80"),
                cl::cat(kilnCompileCategory),
                cl::desc("--target=cuda: the PTX ISA version"));
static cl::opt<std::string> gpuFormat(
    "gpu-format", cl::init("bin"), cl::cat(kilnCompileCategory),
    cl::desc("--target=cuda: how the kernels are embedded: 'bin' (a cubin "
             "for --gpu-chip, the default), 'fatbin' (cubin and PTX) or "
             "'isa' (PTX, compiled by the driver at load)"));
static cl::opt<bool> gpuTensorCores(
    "gpu-tensor-cores", cl::init(true), cl::cat(kilnCompileCategory),
    cl::desc("--target=cuda: the tensor-core attention kernels for f16/bf16 "
             "(kiln-lower-to-nvvm's tensor-cores; default on; =false to use "
             "the SIMT kernels)"));
static cl::opt<bool> gpuDeterministic(
    "gpu-deterministic", cl::init(false), cl::cat(kilnCompileCategory),
    cl::desc("--target=cuda: an attention backward without float atomics, "
             "bitwise reproducible run to run (kiln-lower-to-nvvm's "
             "deterministic: dQ by a kernel of its own, an additive mask's "
             "gradient the generic way; slower)"));
static cl::opt<mlir::kiln::AttentionSoftwarePipeline> gpuSoftwarePipeline(
    "gpu-software-pipeline",
    cl::init(mlir::kiln::AttentionSoftwarePipeline::Auto), cl::ValueOptional,
    cl::cat(kilnCompileCategory),
    cl::desc("--target=cuda: whether the forward tensor-core attention "
             "kernel loads the next K/V tile while it computes the current "
             "one (kiln-lower-to-nvvm's software-pipeline; default auto, "
             "where it was measured to pay; the flag alone means on)"),
    mlir::kiln::attentionSoftwarePipelineValues(),
    cl::values(clEnumValN(mlir::kiln::AttentionSoftwarePipeline::On, "",
                          "(the flag alone) same as on")));
static cl::opt<std::string> gpuPipeline(
    "gpu-pipeline", cl::Hidden, cl::cat(kilnCompileCategory),
    cl::desc("--target=cuda: the textual pass pipeline to run instead of "
             "kiln-lower-to-nvvm{chip features format} (e.g. to pass "
             "other pipeline options)"));
static cl::opt<bool>
    showTimes("time", cl::cat(kilnCompileCategory), cl::desc("Print the time of each stage: the kiln "
                               "pipeline, LLVM optimization and code "
                               "generation, and the link"));
static cl::opt<std::string>
    ccPath("cc", cl::cat(kilnCompileCategory), cl::desc("The C compiler driver that links the library: "
                          "a path, or a name looked up on PATH (default: "
                          "cc)"));

/// Milliseconds since `start`.

static constexpr StringLiteral kToolName = "kiln-compile";

static int fail(const Twine &message) {
  return tools::reportError(kToolName, message);
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(kilnCompileCategory);
  // MLIR's debugging options (--mlir-print-ir-after-all, --mlir-timing,
  // ...) for the pass manager below; registered after HideUnrelatedOptions,
  // so --help lists them. The passes are registered for the ones that name
  // a pass (--mlir-print-ir-after=) and for --gpu-pipeline.
  mlir::kiln::registerAllPasses();
  tools::registerMLIRDebugCLOptions();
  tools::addKilnVersionPrinter();
  cl::ParseCommandLineOptions(
      argc, argv,
      "Compile the public functions of a kiln module into a shared library "
      "with a C ABI\n");
  // An empty path would mean "not requested" and be ignored.
  for (cl::opt<std::string> *path : {&headerFile, &objectFile})
    if (path->getNumOccurrences() && path->empty())
      return fail("--" + path->ArgStr + " needs a file name");
  // The GPU options do nothing for the CPU: a typo for --target=cuda.
  if (compileTarget == AotTarget::CPU)
    if (cl::Option *option = tools::findGivenOption(
            {&gpuChip, &gpuFeatures, &gpuFormat, &gpuTensorCores,
             &gpuDeterministic, &gpuSoftwarePipeline, &gpuPipeline}))
      return fail("--" + option->ArgStr +
                  " is for --target=cuda and --target=cuda-emulator only");

  AotOptions options;
  options.target = compileTarget;
  options.cpu = cpu;
  options.optLevel = optLevel;
  options.enableOpenMP = openMP;
  options.amx = amx;
  options.gpuChip = gpuChip;
  options.gpuFeatures = gpuFeatures;
  options.gpuFormat = gpuFormat;
  options.gpuTensorCores = gpuTensorCores;
  options.gpuDeterministic = gpuDeterministic;
  options.gpuSoftwarePipeline = gpuSoftwarePipeline;
  options.gpuPipeline = gpuPipeline;
  options.cc = ccPath;
  options.sourceName = inputFile;
  options.configurePassManager = [](mlir::PassManager &pm) {
    if (failed(mlir::applyPassManagerCLOptions(pm)))
      return mlir::failure();
    mlir::applyDefaultTimingPassManagerCLOptions(pm);
    return mlir::success();
  };
  options.reportError = [](const Twine &message) { (void)fail(message); };
  AotTarget target = options.target;

  mlir::DialectRegistry registry;
  registerAotCompilerDialects(registry, target);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.printOpOnDiagnostic(false);
  // The tools, the CPU and the outputs first: a missing C compiler or an
  // unwritable output fails before the input is read.
  AotCompiler compiler(context, {outputFile, headerFile, objectFile},
                       std::move(options));
  if (failed(compiler.prepare()))
    return 1;
  tools::InputModule input(context);
  mlir::OwningOpRef<mlir::ModuleOp> module = input.parse(kToolName, inputFile);
  if (!module)
    return 1;
  AotTimings timings;
  if (failed(compiler.compile(*module, &timings)))
    return 1;
  if (showTimes)
    outs() << format("pipeline: %.3f ms, llvm: %.3f ms, link: %.3f ms\n",
                     timings.pipelineMs, timings.llvmMs, timings.linkMs);
  return 0;
}
