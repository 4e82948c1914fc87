//===- kiln-compile.cpp - Compile kiln functions into a shared library ----===//
//
// Usage:
//   kiln-compile FILE.mlir -o libfoo.so [--header foo.h] [--emit-object F.o]
//                [--target cpu|cuda|cuda-emulator] [--gpu-chip sm_90]
//                [--gpu-format bin] [--gpu-tensor-cores=false]
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
//===----------------------------------------------------------------------===//

#include "kiln/InitAll.h"
#include "kiln/Pipelines/Pipelines.h"
#include "kiln/Runtime/HostTensor.h"
#include "kiln/Runtime/JitSession.h"

#include "ToolSupport.h"
#include "ToolVersion.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <chrono>
#include <set>
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
namespace {
enum class CompileTarget { CPU, CUDA, CUDAEmulator };
} // namespace
static cl::opt<CompileTarget> compileTarget(
    "target", cl::init(CompileTarget::CPU), cl::cat(kilnCompileCategory),
    cl::desc("What the library runs on"),
    cl::values(clEnumValN(CompileTarget::CPU, "cpu",
                          "the host CPU (kiln-lower-to-cpu; the default)"),
               clEnumValN(CompileTarget::CUDA, "cuda",
                          "an NVIDIA GPU through the CUDA driver "
                          "(kiln-lower-to-nvvm; pointers are device "
                          "pointers)"),
               clEnumValN(CompileTarget::CUDAEmulator, "cuda-emulator",
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
static double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

static constexpr StringLiteral kToolName = "kiln-compile";

static int fail(const Twine &message) {
  return tools::reportError(kToolName, message);
}

namespace {
/// One argument or result: its dtype and static shape.
struct Spec {
  DType dtype;
  SmallVector<int64_t> shape;
  int64_t numElements() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
};

/// A public function of the module and its tensor signature.
struct EntryPoint {
  mlir::Operation *op = nullptr;
  std::string name;
  SmallVector<Spec> inputs, results;
};
} // namespace

/// The C type that holds one element of `dtype` in the library's buffers.
static StringRef getCType(DType dtype) {
  switch (dtype) {
  case DType::F16:
  case DType::BF16:
    return "uint16_t";
  case DType::F32:
    return "float";
  case DType::F64:
    return "double";
  case DType::I1:
    return "uint8_t";
  case DType::I8:
    return "int8_t";
  case DType::I32:
    return "int32_t";
  case DType::I64:
    return "int64_t";
  }
  llvm_unreachable("unknown dtype");
}

static bool isCIdentifier(StringRef name) {
  if (name.empty() || isDigit(name.front()))
    return false;
  return llvm::all_of(name, [](char c) { return isAlnum(c) || c == '_'; });
}

/// `f32[2,3]`, the compact form of the signature strings.
static std::string formatSpec(const Spec &spec) {
  std::string text = stringifyDType(spec.dtype).str() + "[";
  for (auto [i, d] : llvm::enumerate(spec.shape))
    text += (i ? "," : "") + std::to_string(d);
  return text + "]";
}

/// `f32[2,3],f32[3]->f32[2,3]`.
static std::string formatSignature(const EntryPoint &function) {
  std::string text;
  for (auto [i, spec] : llvm::enumerate(function.inputs))
    text += (i ? "," : "") + formatSpec(spec);
  text += "->";
  for (auto [i, spec] : llvm::enumerate(function.results))
    text += (i ? "," : "") + formatSpec(spec);
  return text;
}

/// The C identifiers that the library and its header define for
/// `function`: its functions, typedefs and macros.
static SmallVector<std::string> getIdentifiers(const EntryPoint &function) {
  std::string lower = "kiln_" + function.name;
  std::string upper = "KILN_" + StringRef(function.name).upper();
  SmallVector<std::string> names = {lower, lower + "_signature",
                                    lower + "_last_error",
                                    upper + "_NUM_INPUTS",
                                    upper + "_NUM_OUTPUTS"};
  auto describe = [&](ArrayRef<Spec> specs, StringRef kind) {
    for (auto [i, spec] : llvm::enumerate(specs)) {
      std::string prefix = upper + "_" + kind.str() + std::to_string(i);
      names.push_back(lower + "_" + kind.lower() + std::to_string(i) + "_t");
      for (StringRef suffix :
           {"_DTYPE", "_RANK", "_SHAPE", "_NUM_ELEMENTS", "_NUM_BYTES"})
        names.push_back(prefix + suffix.str());
      for (size_t d = 0; d < spec.shape.size(); ++d)
        names.push_back(prefix + "_DIM" + std::to_string(d));
    }
  };
  describe(function.inputs, "INPUT");
  describe(function.results, "OUTPUT");
  return names;
}

/// Fails (with a diagnostic naming both) when two functions, or a function
/// and kiln-compile's own definitions, would define the same C identifier:
/// `@a` and `@A` both define KILN_A_NUM_INPUTS, `@f_input0_t` the typedef of
/// `@f`'s first input.
static mlir::LogicalResult checkIdentifiers(ArrayRef<EntryPoint> functions) {
  // The name of the function that defines each identifier; "" for the
  // library's own.
  StringMap<std::string> owners;
  for (StringRef own : {"kiln_last_error", "kiln_dtype"})
    owners[own] = "";
  for (const EntryPoint &function : functions) {
    for (const std::string &name : getIdentifiers(function)) {
      auto [it, inserted] = owners.try_emplace(name, function.name);
      if (inserted)
        continue;
      if (it->second.empty())
        return function.op->emitError()
               << "@" << function.name << " would define " << name
               << ", which every kiln-compile library defines itself "
                  "(rename @"
               << function.name << " or make it private)";
      return function.op->emitError()
             << "@" << it->second << " and @" << function.name
             << " would both define " << name
             << " in the library or its header (rename one of them or make "
                "it private)";
    }
  }
  return mlir::success();
}

/// Records the public functions' signatures; fails (with a diagnostic) on a
/// type the C ABI cannot pass or a name that is not a C identifier.
static mlir::LogicalResult collectFunctions(mlir::ModuleOp module,
                                            SmallVectorImpl<EntryPoint> &out) {
  for (auto func : module.getOps<mlir::func::FuncOp>()) {
    if (!func.isPublic() || func.isExternal())
      continue;
    EntryPoint function;
    function.op = func;
    function.name = func.getSymName().str();
    if (!isCIdentifier(function.name))
      return func.emitError()
             << "@" << function.name
             << " is not a C identifier, so kiln-compile cannot name its C "
                "function kiln_"
             << function.name << " (rename it or make it private)";
    auto record = [&](mlir::TypeRange types, StringRef kind,
                      SmallVectorImpl<Spec> &specs) -> mlir::LogicalResult {
      for (auto [i, type] : llvm::enumerate(types)) {
        auto tensor = dyn_cast<mlir::RankedTensorType>(type);
        std::optional<DType> dtype =
            tensor ? getDTypeFor(tensor.getElementType()) : std::nullopt;
        if (!tensor || !tensor.hasStaticShape() || !dtype)
          return func.emitError()
                 << kind << " #" << i << " of @" << function.name
                 << " has type " << type
                 << ", but the C ABI only passes statically shaped tensors "
                    "of f16, bf16, f32, f64, i1, i8, i32 or i64";
        specs.push_back({*dtype, SmallVector<int64_t>(tensor.getShape())});
      }
      return mlir::success();
    };
    if (failed(record(func.getArgumentTypes(), "argument", function.inputs)) ||
        failed(record(func.getResultTypes(), "result", function.results)))
      return mlir::failure();
    out.push_back(std::move(function));
  }
  if (failed(checkIdentifiers(out)))
    return mlir::failure();
  if (out.empty())
    return module.emitError()
           << "the module has no public function with a body to export";
  return mlir::success();
}

/// The generated header: dtype and shape constants per argument, and the
/// prototypes.
static std::string makeHeader(ArrayRef<EntryPoint> functions,
                              StringRef headerName, StringRef source,
                              bool cuda, bool emulated) {
  std::string text;
  raw_string_ostream os(text);
  std::string guard = "KILN_";
  for (char c : sys::path::filename(headerName))
    guard += isAlnum(c) ? toUpper(c) : '_';
  guard += "_";
  os << "/* Generated by kiln-compile from " << sys::path::filename(source)
     << ". Do not edit.\n"
     << " *\n"
     << " * Each public function @name of the module is\n"
     << " *\n"
     << " *   int kiln_name(const void *const *inputs, void *const *outputs);\n"
     << " *\n";
  if (emulated)
    os << " * inputs[i] points at argument i and outputs[j] at result j: dense\n"
       << " * row-major (C order) arrays in host memory of the dtype and shape\n"
       << " * given below. The GPU kernels run on the host, on Kiln's GPU\n"
       << " * emulator (one block at a time, threads as fibers; slow, for\n"
       << " * checking). The caller allocates the outputs; the function reads\n"
       << " * the inputs only and writes every element of every output, and\n"
       << " * returns when done. It returns 0; 1 when inputs, outputs or a\n"
       << " * pointer to a non-empty tensor is NULL or an output overlaps an\n"
       << " * input or another output (then it writes nothing); 2 when the\n"
       << " * emulator stopped a kernel (a deadlock, a misused warp\n"
       << " * collective): kiln_last_error() then returns the message (\"\"\n"
       << " * after a success; per thread).\n";
  else if (cuda)
    os << " * inputs[i] points at argument i and outputs[j] at result j: dense\n"
       << " * row-major (C order) arrays in CUDA device memory of the dtype\n"
       << " * and shape given below (torch: tensor.data_ptr()). The caller\n"
       << " * allocates the outputs; the function reads the inputs only and\n"
       << " * writes every element of every output. It runs in the calling\n"
       << " * thread's current CUDA context (else the primary context of\n"
       << " * device 0), ordered after the work of the legacy default stream,\n"
       << " * and returns when its work has finished. It returns 0; 1 when\n"
       << " * inputs, outputs or a pointer to a non-empty tensor is NULL or an\n"
       << " * output overlaps an input or another output (then it writes\n"
       << " * nothing); 2 when a CUDA call failed (no driver, no\n"
       << " * device, out of memory, a failed kernel): kiln_last_error() then\n"
       << " * returns the message (\"\" after a success; per thread). The\n"
       << " * library opens libcuda.so.1 at the first call.\n";
  else
    os << " * inputs[i] points at argument i and outputs[j] at result j: dense\n"
       << " * row-major (C order) arrays of the dtype and shape given below.\n"
       << " * The caller allocates the outputs; the function reads the inputs\n"
       << " * only and writes every element of every output. It returns 0, or\n"
       << " * 1 when inputs, outputs or a pointer to a non-empty tensor is\n"
       << " * NULL or an output overlaps an input or another output (then it\n"
       << " * writes nothing): kiln_last_error() then returns the message (\"\"\n"
       << " * after a success; per thread).\n";
  os << " * Outputs must not overlap inputs or each other (no in-place calls):\n"
     << " * the code may write an output before it has read all of an input.\n";
  os << " * Element types: f16 and bf16 are\n"
     << " * their 2-byte encodings (uint16_t), i1 one byte holding 0 or 1.\n"
     << " * kiln_name_signature() returns the signature as text, e.g.\n"
     << " * \"f32[2,3],f32[3]->f32[2,3]\". The functions are thread-safe\n"
     << " * (no mutable global state); each call allocates its temporaries\n"
     << (cuda && !emulated ? " * on the device and frees them.\n"
              : " * with malloc and frees them.\n")
     << " */\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <stdint.h>\n\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
     << "#ifndef KILN_DTYPES_DEFINED\n#define KILN_DTYPES_DEFINED\n"
     << "/* Element types, as in KILN_<NAME>_INPUT<i>_DTYPE. */\n"
     << "enum kiln_dtype {\n";
  for (DType dtype : {DType::F16, DType::BF16, DType::F32, DType::F64,
                      DType::I1, DType::I8, DType::I32, DType::I64})
    os << "  KILN_DTYPE_" << stringifyDType(dtype).upper() << " = "
       << unsigned(dtype) << ",\n";
  os << "};\n#endif\n";
  os << "\n/* The message of this thread's last failed call (a nonzero return\n"
     << " * code) of a function of this library, or \"\" when it succeeded.\n"
     << " * Every kiln-compile library defines kiln_last_error: in a program\n"
     << " * that links two, it is the first one's; kiln_<name>_last_error()\n"
     << " * returns the same message under a name of this library. */\n"
     << "const char *kiln_last_error(void);\n";

  for (const EntryPoint &function : functions) {
    std::string upper = "KILN_" + StringRef(function.name).upper();
    os << "\n/* @" << function.name << ": " << formatSignature(function)
       << " */\n"
       << "int kiln_" << function.name
       << "(const void *const *inputs, void *const *outputs);\n"
       << "const char *kiln_" << function.name << "_signature(void);\n"
       << "const char *kiln_" << function.name << "_last_error(void);\n"
       << "#define " << upper << "_NUM_INPUTS " << function.inputs.size()
       << "\n#define " << upper << "_NUM_OUTPUTS " << function.results.size()
       << "\n";
    auto describe = [&](ArrayRef<Spec> specs, StringRef kind) {
      for (auto [i, spec] : llvm::enumerate(specs)) {
        std::string prefix = upper + "_" + kind.str() + std::to_string(i);
        os << "/* " << StringRef(kind).lower() << "s[" << i
           << "]: " << formatTensorType(spec.dtype, spec.shape) << ", "
           << getCType(spec.dtype) << " elements */\n";
        os << "#define " << prefix << "_DTYPE KILN_DTYPE_"
           << stringifyDType(spec.dtype).upper() << "\n";
        os << "typedef " << getCType(spec.dtype) << " kiln_"
           << function.name << "_" << StringRef(kind).lower() << i
           << "_t;\n";
        os << "#define " << prefix << "_RANK " << spec.shape.size() << "\n";
        for (auto [d, size] : llvm::enumerate(spec.shape))
          os << "#define " << prefix << "_DIM" << d << " " << size << "\n";
        if (!spec.shape.empty()) {
          os << "#define " << prefix << "_SHAPE {";
          llvm::interleaveComma(spec.shape, os);
          os << "}\n";
        }
        os << "#define " << prefix << "_NUM_ELEMENTS " << spec.numElements()
           << "\n";
        os << "#define " << prefix << "_NUM_BYTES "
           << spec.numElements() * int64_t(getDTypeSize(spec.dtype)) << "\n";
      }
    };
    describe(function.inputs, "INPUT");
    describe(function.results, "OUTPUT");
  }
  os << "\n#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";
  return text;
}

/// Kiln's host allocator (lib/Runtime/HostAllocator.c, the JIT's too): the
/// _mlir_memref_to_llvm_* functions that the CPU pipeline's memref.alloc and
/// dealloc call, compiled into each CPU library with hidden visibility.
static const char kHostAllocatorSource[] =
#include "HostAllocatorSource.inc"
    ;

/// The C source of the exported wrappers: each builds the memref descriptors
/// of the runtime ABI (docs/CPUBackend.md) and calls _mlir_ciface_<name>.
/// `needsMemrefCopy`: the code calls memrefCopy (from MLIR's C runner
/// utilities), which the wrapper then defines, so the library does not
/// depend on libmlir_c_runner_utils. `needsHostAllocator`: the code calls
/// _mlir_memref_to_llvm_alloc and friends, which the wrapper then defines
/// (kHostAllocatorSource).
static std::string makeWrappers(ArrayRef<EntryPoint> functions,
                                bool needsMemrefCopy, bool needsHostAllocator,
                                bool cuda) {
  std::string text;
  raw_string_ostream os(text);
  os << "/* Generated by kiln-compile: the C entry points. */\n"
     << "#include <stddef.h>\n#include <stdint.h>\n#include <stdio.h>\n"
     << "#include <stdlib.h>\n#include <string.h>\n\n"
     << "#define KILN_EXPORT __attribute__((visibility(\"default\")))\n"
     << "#define KILN_HIDDEN __attribute__((visibility(\"hidden\")))\n\n";
  // The library's error slot: Kiln's CUDA runtime's (lib/Runtime/CUDA,
  // linked in statically with hidden symbols), or a thread-local pointer.
  // kiln_last_error and every kiln_<name>_last_error read it through the
  // static __kiln_last_error, which no other library can interpose.
  if (cuda)
    os << "const char *kilnCudaGetLastError(void);\n"
       << "void kilnCudaClearLastError(void);\n"
       << "void kilnCudaReportError(const char *message);\n\n"
       << "static const char *__kiln_last_error(void) {\n"
       << "  const char *message = kilnCudaGetLastError();\n"
       << "  return message ? message : \"\";\n}\n"
       << "static void __kiln_clear_error(void) { kilnCudaClearLastError(); }\n"
       << "static void __kiln_report(const char *message) {\n"
       << "  kilnCudaReportError(message);\n}\n\n";
  else
    os << "/* The message of this thread's last failed call. */\n"
       << "static _Thread_local const char *__kiln_error = \"\";\n"
       << "static _Thread_local char __kiln_message[512];\n"
       << "static const char *__kiln_last_error(void) { return __kiln_error; }\n"
       << "static void __kiln_clear_error(void) { __kiln_error = \"\"; }\n"
       << "static void __kiln_report(const char *message) {\n"
       << "  snprintf(__kiln_message, sizeof(__kiln_message), \"%s\", "
          "message);\n"
       << "  __kiln_error = __kiln_message;\n}\n\n";
  os << "KILN_EXPORT const char *kiln_last_error(void) {\n"
     << "  return __kiln_last_error();\n}\n";
  // One loop over a table of byte sizes, not one statement per pair: a
  // function with many arguments made a wrapper quadratic in their number
  // (train_step's 78 buffers: 2,223 `if`s, a 45 s link).
  os << R"C(
/* Checks the arguments of the C entry point `function`: the byte size of
 * inputs[i] is bytes[i], that of outputs[j] bytes[numInputs + j] (0: an
 * empty tensor, which may be NULL). Reports the first NULL pointer, or the
 * first output that overlaps an input or an earlier output, and returns 1;
 * returns 0 when the call may proceed. */
static int __kiln_check(const char *function, const void *const *inputs,
                        void *const *outputs, const uint64_t *bytes,
                        int numInputs, int numOutputs) {
  char message[512];
  int i, j;
  if (numInputs && !inputs) {
    snprintf(message, sizeof(message), "%s: inputs is NULL", function);
    goto fail;
  }
  if (numOutputs && !outputs) {
    snprintf(message, sizeof(message), "%s: outputs is NULL", function);
    goto fail;
  }
  for (i = 0; i < numInputs; ++i)
    if (bytes[i] && !inputs[i]) {
      snprintf(message, sizeof(message), "%s: inputs[%d] is NULL", function,
               i);
      goto fail;
    }
  for (j = 0; j < numOutputs; ++j)
    if (bytes[numInputs + j] && !outputs[j]) {
      snprintf(message, sizeof(message), "%s: outputs[%d] is NULL", function,
               j);
      goto fail;
    }
  /* The code may write an output before it has read all of an input or
   * written another output: an in-place call would compute garbage.
   * Inputs may overlap each other (they are only read). */
  for (j = 0; j < numOutputs; ++j) {
    uintptr_t x = (uintptr_t)outputs[j];
    uint64_t m = bytes[numInputs + j];
    for (i = 0; m && i < numInputs + j; ++i) {
      int isInput = i < numInputs;
      uintptr_t y = (uintptr_t)(isInput ? inputs[i] : outputs[i - numInputs]);
      uint64_t n = bytes[i];
      if (n && x < y + n && y < x + m) {
        snprintf(message, sizeof(message), "%s: outputs[%d] overlaps %s[%d]",
                 function, j, isInput ? "inputs" : "outputs",
                 isInput ? i : i - numInputs);
        goto fail;
      }
    }
  }
  return 0;
fail:
  __kiln_report(message);
  return 1;
}

)C";
  // Descriptors are built by one loop over a table of ranks and sizes, not
  // one statement per word: a deep model's backward takes ~1,000 buffers,
  // and `cc -O2` took 6 s on a wrapper written out word by word.
  os << R"C(
/* Writes the ranked memref descriptor of the contiguous row-major buffer
 * `data` with `rank` sizes at `words`: {allocated, aligned, offset 0,
 * sizes, strides}, eight-byte words as _mlir_ciface_ functions take them;
 * returns the word after it. */
static int64_t *__kiln_describe(int64_t *words, const void *data, int rank,
                                const int64_t *sizes) {
  int64_t stride = 1;
  int i;
  words[0] = words[1] = (int64_t)(intptr_t)data;
  words[2] = 0;
  for (i = rank - 1; i >= 0; --i) {
    words[3 + i] = sizes[i];
    words[3 + rank + i] = stride;
    stride *= sizes[i];
  }
  return words + 3 + 2 * rank;
}
)C";
  if (needsHostAllocator)
    os << "\n/* Kiln's host allocator (lib/Runtime/HostAllocator.c). */\n"
       << "#define KILN_HOST_ALLOCATOR_API KILN_HIDDEN\n"
       << kHostAllocatorSource << "\n";
  if (needsMemrefCopy)
    os << R"C(
/* memrefCopy as in MLIR's C runner utilities: copies between two strided
 * memrefs of the same shape, given as {rank, descriptor} pairs. */
typedef struct { int64_t rank; void *descriptor; } __kiln_unranked;
KILN_HIDDEN void memrefCopy(int64_t elemSize, __kiln_unranked *src,
                            __kiln_unranked *dst) {
  int64_t rank = src->rank;
  const int64_t *s = (const int64_t *)src->descriptor;
  const int64_t *d = (const int64_t *)dst->descriptor;
  const char *from = (const char *)(intptr_t)s[1] + s[2] * elemSize;
  char *to = (char *)(intptr_t)d[1] + d[2] * elemSize;
  const int64_t *sizes = s + 3, *srcStrides = s + 3 + rank,
                *dstStrides = d + 3 + rank;
  int64_t total = 1;
  for (int64_t i = 0; i < rank; ++i)
    total *= sizes[i];
  if (total == 0)
    return;
  if (rank == 0) {
    memcpy(to, from, elemSize);
    return;
  }
  int64_t index[64] = {0};
  if (rank > 64)
    return;
  int64_t srcOffset = 0, dstOffset = 0;
  for (;;) {
    memcpy(to + dstOffset * elemSize, from + srcOffset * elemSize, elemSize);
    int64_t axis = rank - 1;
    for (; axis >= 0; --axis) {
      ++index[axis];
      srcOffset += srcStrides[axis];
      dstOffset += dstStrides[axis];
      if (index[axis] < sizes[axis])
        break;
      srcOffset -= index[axis] * srcStrides[axis];
      dstOffset -= index[axis] * dstStrides[axis];
      index[axis] = 0;
    }
    if (axis < 0)
      return;
  }
}
)C";

  for (const EntryPoint &function : functions) {
    size_t numArgs = function.inputs.size() + function.results.size();
    os << "\nvoid _mlir_ciface_" << function.name << "(";
    for (size_t i = 0; i < numArgs; ++i)
      os << (i ? ", " : "") << "void *";
    if (!numArgs)
      os << "void";
    os << ");\n\n";
    os << "KILN_EXPORT const char *kiln_" << function.name
       << "_signature(void) {\n  return \"" << formatSignature(function)
       << "\";\n}\n\n";
    // A name no other library defines: kiln_last_error is the first
    // library's in a program that links two.
    os << "KILN_EXPORT const char *kiln_" << function.name
       << "_last_error(void) {\n  return __kiln_last_error();\n}\n\n";
    os << "KILN_EXPORT int kiln_" << function.name
       << "(const void *const *inputs, void *const *outputs) {\n";
    // A NULL pointer or overlapping buffers return 1 with a message. The
    // byte sizes of the inputs then of the outputs (with a 0 where there
    // are none: a C array cannot be empty).
    size_t numInputs = function.inputs.size();
    size_t numOutputs = function.results.size();
    os << "  static const uint64_t bytes[] = {";
    for (auto [i, spec] :
         llvm::enumerate(llvm::concat<const Spec>(function.inputs,
                                                  function.results)))
      os << (i ? ", " : "")
         << spec.numElements() * int64_t(getDTypeSize(spec.dtype));
    if (!numArgs)
      os << "0";
    os << "};\n"
       << "  __kiln_clear_error();\n"
       << "  if (__kiln_check(\"kiln_" << function.name
       << "\", inputs, outputs, bytes, " << numInputs << ", " << numOutputs
       << "))\n    return 1;\n";
    // The ranks and the concatenated sizes of the arguments (a 0 where
    // there are none: a C array cannot be empty), and the offset of each
    // descriptor in the words the call passes.
    auto specs = llvm::concat<const Spec>(function.inputs, function.results);
    SmallVector<int64_t> offsets;
    int64_t numWords = 0;
    os << "  static const int ranks[] = {";
    for (auto [i, spec] : llvm::enumerate(specs)) {
      os << (i ? ", " : "") << spec.shape.size();
      offsets.push_back(numWords);
      numWords += 3 + 2 * int64_t(spec.shape.size());
    }
    os << (numArgs ? "" : "0") << "};\n  static const int64_t sizes[] = {";
    bool firstSize = true;
    for (const Spec &spec : specs)
      for (int64_t size : spec.shape) {
        os << (firstSize ? "" : ", ") << size;
        firstSize = false;
      }
    os << (firstSize ? "0" : "") << "};\n";
    // On the stack up to 32 KiB; a larger table on the heap.
    bool onHeap = numWords > 4096;
    if (onHeap)
      os << "  int64_t *d = (int64_t *)malloc(" << numWords
         << " * sizeof(int64_t));\n"
         << "  if (!d) {\n    __kiln_report(\"kiln_" << function.name
         << ": out of memory for the argument descriptors\");\n"
         << "    return 1;\n  }\n";
    else
      os << "  int64_t d[" << std::max<int64_t>(numWords, 1) << "];\n";
    os << "  int64_t *w = d;\n  const int64_t *s = sizes;\n  int i;\n"
       << "  for (i = 0; i < " << numArgs << "; s += ranks[i], ++i)\n"
       << "    w = __kiln_describe(w, i < " << numInputs
       << " ? inputs[i] : outputs[i - " << numInputs
       << "], ranks[i], s);\n";
    os << "  _mlir_ciface_" << function.name << "(";
    for (auto [i, offset] : llvm::enumerate(offsets))
      os << (i ? ", " : "") << "d + " << offset;
    os << ");\n";
    if (onHeap)
      os << "  free(d);\n";
    if (cuda)
      os << "  return kilnCudaGetLastError() ? 2 : 0;\n}\n";
    else
      os << "  return 0;\n}\n";
  }
  return text;
}

/// Writes `text` to `path`.
static Error writeFile(StringRef path, StringRef text) {
  std::error_code ec;
  raw_fd_ostream os(path, ec, sys::fs::OF_Text);
  if (ec)
    return createStringError(ec, "cannot write '" + path + "': " +
                                     ec.message());
  os << text;
  os.close();
  if (os.has_error())
    return createStringError(os.error(),
                             "cannot write '" + path + "': " +
                                 os.error().message());
  return Error::success();
}

/// Creates the host TargetMachine for `cpuName` ("generic", "native" or an
/// LLVM CPU name), position-independent code for a shared library.
static Expected<std::unique_ptr<TargetMachine>>
createTargetMachine(StringRef cpuName, unsigned level) {
  Triple triple(sys::getProcessTriple());
  std::string error;
  const Target *target = TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return createStringError("no LLVM target for " + triple.str() + ": " +
                             error);
  std::string cpuString = cpuName.str(), features;
  // An unknown CPU would be "ignored" with a warning and then abort in the
  // backend ("64-bit code requested on a subtarget that doesn't support
  // it"): the subtarget of an unknown name has no features at all.
  if (cpuName != "native" && cpuName != "generic") {
    std::unique_ptr<MCSubtargetInfo> generic(
        target->createMCSubtargetInfo(triple, "", ""));
    if (!generic || !generic->isCPUStringValid(cpuName))
      return createStringError("--mcpu '" + cpuName +
                               "' is not a CPU of " + triple.str() +
                               " (use 'generic', 'native' or an LLVM CPU "
                               "name; `llc -mcpu=help` lists them)");
  }
  if (cpuName == "native") {
    cpuString = sys::getHostCPUName().str();
    SmallVector<std::string> list;
    for (const auto &feature : sys::getHostCPUFeatures())
      list.push_back((feature.second ? "+" : "-") + feature.getKey().str());
    llvm::sort(list);
    features = llvm::join(list, ",");
  }
  TargetOptions options;
  std::unique_ptr<TargetMachine> machine(target->createTargetMachine(
      triple, cpuString, features, options, Reloc::PIC_, std::nullopt,
      static_cast<CodeGenOptLevel>(level)));
  if (!machine)
    return createStringError("cannot create the LLVM target machine for " +
                             triple.str() + " (cpu '" + cpuString + "')");
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
  LLVMContext &context = module.getContext();
  auto *type = FunctionType::get(Type::getBFloatTy(context),
                                 {Type::getFloatTy(context)}, false);
  llvm::Function *function = llvm::Function::Create(
      type, GlobalValue::ExternalLinkage, "__truncsfbf2", module);
  function->setVisibility(GlobalValue::HiddenVisibility);
  IRBuilder<> b(BasicBlock::Create(context, "entry", function));
  Value *value = function->getArg(0);
  Value *bits = b.CreateBitCast(value, b.getInt32Ty());
  Value *high = b.CreateLShr(bits, 16);
  // Round to nearest even: add 0x7fff plus the lowest kept bit.
  Value *rounded = b.CreateLShr(
      b.CreateAdd(bits, b.CreateAdd(b.getInt32(0x7fff),
                                    b.CreateAnd(high, b.getInt32(1)))),
      16);
  // A NaN keeps its sign and top payload bits and is made quiet.
  Value *quietNaN = b.CreateOr(high, b.getInt32(0x40));
  Value *isNaN = b.CreateFCmpUNO(value, value);
  Value *result = b.CreateSelect(isNaN, quietNaN, rounded);
  b.CreateRet(b.CreateBitCast(b.CreateTrunc(result, b.getInt16Ty()),
                              b.getBFloatTy()));
}

/// Removes the temporary files it was given when it goes out of scope.
namespace {
struct TempFiles {
  SmallVector<std::string> paths;
  ~TempFiles() {
    for (const std::string &path : paths)
      sys::fs::remove(path);
  }
};
} // namespace

/// Creates the temporary file that stands for the output `path` until
/// kiln-compile renames it there at the end: `path` with a unique suffix, in
/// the same directory, removed by `temps` (or on a signal) unless renamed.
/// An output that cannot be written so fails before any work, and a failed
/// compile leaves no partial outputs (the header of a library that failed
/// to link).
static mlir::LogicalResult reserveOutput(StringRef path,
                                         SmallString<128> &temp,
                                         TempFiles &temps) {
  // Renaming over a directory fails late; over a device (/dev/null) it
  // would replace the device.
  sys::fs::file_status status;
  if (!sys::fs::status(path, status) &&
      status.type() != sys::fs::file_type::regular_file) {
    (void)fail("cannot write '" + path + "': it is " +
               (status.type() == sys::fs::file_type::directory_file
                    ? "a directory"
                    : "not a regular file"));
    return mlir::failure();
  }
  int fd;
  if (std::error_code ec =
          sys::fs::createUniqueFile(path + "-%%%%%%.tmp", fd, temp)) {
    (void)fail("cannot write '" + path + "': " + ec.message());
    return mlir::failure();
  }
  sys::Process::SafelyCloseFileDescriptor(fd);
  temps.paths.push_back(temp.str().str());
  sys::RemoveFileOnSignal(temp);
  return mlir::success();
}

/// Registers what lowering to the GPU and translating its result need: the
/// GPU pipeline's dialects, interfaces and translations, and the embedding of
/// `gpu.binary` in the host's LLVM IR (`#gpu.select_object`).
static void registerGPUDialects(mlir::DialectRegistry &registry) {
  registerGPUPipelineDialects(registry);
  mlir::gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
}

/// Adds the lowering to the GPU: kiln-lower-to-nvvm with the --gpu-*
/// options, or the textual --gpu-pipeline instead.
static mlir::LogicalResult addGPUPipeline(mlir::OpPassManager &pm,
                                          bool emulated) {
  if (gpuPipeline.empty()) {
    KilnToNVVMPipelineOptions options;
    options.emulate = emulated;
    options.chip = gpuChip;
    options.features = gpuFeatures;
    options.format = gpuFormat;
    options.tensorCores = gpuTensorCores;
    options.softwarePipeline = gpuSoftwarePipeline;
    if (failed(verifyKilnToNVVMPipelineOptions(options, [](const Twine &msg) {
          tools::reportError(kToolName, msg);
          return mlir::failure();
        })))
      return mlir::failure();
    buildKilnToNVVMPipeline(pm, options);
    return mlir::success();
  }
  std::string pipeline = gpuPipeline;
  std::string message;
  raw_string_ostream errorStream(message);
  if (failed(mlir::parsePassPipeline(pipeline, pm, errorStream))) {
    (void)fail("cannot build the GPU pipeline '" + pipeline + "': " + message);
    return mlir::failure();
  }
  return mlir::success();
}

/// The static runtime library built at `buildPath` (empty: not built) that
/// a GPU library links: mlir::kiln::findRuntimeLibrary's search, shared with
/// the JIT.
static std::string findLinkedRuntime(StringRef buildPath) {
  if (buildPath.empty())
    return "";
  return mlir::kiln::findRuntimeLibrary(buildPath).value_or("");
}

/// The static library of Kiln's CUDA runtime that a --target=cuda library
/// links.
static std::string findCudaRuntimeLibrary() {
#ifdef KILN_CUDA_RUNTIME_LIBRARY
  return findLinkedRuntime(KILN_CUDA_RUNTIME_LIBRARY);
#else
  return findLinkedRuntime("");
#endif
}

/// The static library of Kiln's GPU emulator that a --target=cuda-emulator
/// library links.
static std::string findGPUEmulatorLibrary() {
#ifdef KILN_GPU_EMULATOR_STATIC_LIBRARY
  return findLinkedRuntime(KILN_GPU_EMULATOR_STATIC_LIBRARY);
#else
  return findLinkedRuntime("");
#endif
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
  InitializeNativeTarget();
  InitializeNativeTargetAsmPrinter();
  if (optLevel > 3)
    return fail("--opt-level must be 0, 1, 2 or 3, not " + Twine(optLevel));
  // An empty path would mean "not requested" and be ignored.
  for (cl::opt<std::string> *path : {&headerFile, &objectFile})
    if (path->getNumOccurrences() && path->empty())
      return fail("--" + path->ArgStr + " needs a file name");

  // One path for two outputs would keep only the last one written.
  {
    auto flag = [](StringRef name) {
      return (name.size() == 1 ? "-" : "--") + name.str();
    };
    SmallVector<std::pair<std::string, SmallString<128>>, 3> paths;
    for (cl::opt<std::string> *path : {&outputFile, &headerFile, &objectFile}) {
      if (path->empty())
        continue;
      SmallString<128> absolute(*path);
      sys::fs::make_absolute(absolute);
      sys::path::remove_dots(absolute, /*remove_dot_dot=*/true);
      for (auto &[option, other] : paths)
        if (absolute == other || sys::fs::equivalent(absolute, other))
          return fail(option + " and " + flag(path->ArgStr) +
                      " name the same file '" + *path + "'");
      paths.push_back({flag(path->ArgStr), absolute});
    }
  }

  // Every output is written to a temporary next to it first (see
  // reserveOutput): an unwritable one fails here, not at the link.
  TempFiles temps;
  SmallString<128> libraryTemp, headerTemp, objectTemp;
  if (failed(reserveOutput(outputFile, libraryTemp, temps)) ||
      (!headerFile.empty() &&
       failed(reserveOutput(headerFile, headerTemp, temps))) ||
      (!objectFile.empty() &&
       failed(reserveOutput(objectFile, objectTemp, temps))))
    return 1;

  // Find the C compiler first: a missing one fails before any work.
  std::string cc = ccPath;
  if (cc.empty()) {
    ErrorOr<std::string> found = sys::findProgramByName("cc");
    if (!found)
      return fail("no C compiler 'cc' on PATH: kiln-compile links the "
                  "shared library with it (install gcc or clang, or pass "
                  "--cc PATH)");
    cc = *found;
  } else if (!StringRef(cc).contains('/')) {
    // A bare name ("clang") is looked up on PATH, as a shell would.
    ErrorOr<std::string> found = sys::findProgramByName(cc);
    if (!found)
      return fail("--cc '" + cc + "' is not on PATH");
    cc = *found;
  } else if (!sys::fs::can_execute(cc)) {
    return fail("--cc '" + cc + "' is not an executable file");
  }
  // The emulated GPU library has the CUDA one's C ABI and wrappers; only
  // the pipeline's `emulate` and the runtime it links differ.
  bool emulated = compileTarget == CompileTarget::CUDAEmulator;
  bool cuda = compileTarget == CompileTarget::CUDA || emulated;
  std::string cudaRuntime;
  if (!cuda) {
    // The GPU options do nothing for the CPU: a typo for --target=cuda.
    if (cl::Option *option = tools::findGivenOption(
            {&gpuChip, &gpuFeatures, &gpuFormat, &gpuTensorCores,
             &gpuSoftwarePipeline, &gpuPipeline}))
      return fail("--" + option->ArgStr +
                  " is for --target=cuda and --target=cuda-emulator only");
  }
  if (cuda) {
    if (openMP)
      return fail("--openmp is for --target=cpu only");
    if (gpuFormat != "bin" && gpuFormat != "fatbin" && gpuFormat != "isa")
      return fail("--gpu-format must be 'bin', 'fatbin' or 'isa', not '" +
                  gpuFormat + "'");
    cudaRuntime =
        emulated ? findGPUEmulatorLibrary() : findCudaRuntimeLibrary();
    if (cudaRuntime.empty())
      return fail(emulated
                      ? "--target=cuda-emulator needs Kiln's GPU emulator "
                        "library libKilnGPUEmulator.a, which was not found"
                      : "--target=cuda needs Kiln's CUDA runtime, which was "
                        "not built: configure Kiln where the CUDA toolkit "
                        "(cuda.h) is found");
  }
  StringRef libomp;
  if (openMP) {
#ifdef KILN_LIBOMP
    libomp = KILN_LIBOMP;
#endif
    if (libomp.empty() || !sys::fs::exists(libomp))
      return fail("--openmp needs the OpenMP runtime libomp, which was not "
                  "found when Kiln was built (apt-get install libomp-22-dev)");
  }

  mlir::DialectRegistry registry;
  registerCPUPipelineDialects(registry);
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerOpenMPDialectTranslation(registry);
  if (cuda) {
    mlir::kiln::registerAllDialects(registry);
    registerGPUDialects(registry);
  }
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.printOpOnDiagnostic(false);

  tools::InputModule input(context);
  mlir::OwningOpRef<mlir::ModuleOp> module = input.parse(kToolName, inputFile);
  if (!module)
    return 1;

  SmallVector<EntryPoint> functions;
  if (failed(collectFunctions(*module, functions)))
    return 1;

  // The target machine first: a bad --mcpu fails before any work.
  unsigned level = optLevel;
  Expected<std::unique_ptr<TargetMachine>> machine =
      createTargetMachine(cpu, level);
  if (!machine)
    return fail(toString(machine.takeError()));

  auto pipelineStart = std::chrono::steady_clock::now();
  mlir::PassManager pm(&context);
  if (failed(mlir::applyPassManagerCLOptions(pm)))
    return 1;
  mlir::applyDefaultTimingPassManagerCLOptions(pm);
  if (cuda) {
    if (failed(addGPUPipeline(pm, emulated)))
      return 1;
  } else {
    KilnToCPUPipelineOptions pipelineOptions;
    pipelineOptions.enableOpenMP = openMP;
    buildKilnToCPUPipeline(pm, pipelineOptions);
  }
  if (failed(pm.run(*module)))
    return 1;
  double pipelineMs = msSince(pipelineStart);
  auto llvmStart = std::chrono::steady_clock::now();


  LLVMContext llvmContext;
  std::unique_ptr<Module> llvmModule =
      mlir::translateModuleToLLVMIR(*module, llvmContext, inputFile);
  if (!llvmModule)
    return fail("cannot translate the lowered module to LLVM IR");
  llvmModule->setTargetTriple((*machine)->getTargetTriple());
  llvmModule->setDataLayout((*machine)->createDataLayout());
  defineTruncSFBF2(*llvmModule);
  if (Error error = optimizeLLVMModule(*llvmModule, level, machine->get()))
    return fail("LLVM optimization failed: " + toString(std::move(error)));

  // Only the C entry points are exported; the compiled functions and the
  // C interface wrappers stay internal to the library.
  bool needsMemrefCopy = false, needsHostAllocator = false;
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
      function.setVisibility(GlobalValue::HiddenVisibility);
  }
  // Host code that copies memrefs with memrefCopy would dereference device
  // pointers on the host: the GPU pipeline must use gpu.memcpy.
  if (cuda && needsMemrefCopy)
    return fail("the lowered host code calls memrefCopy, which cannot copy "
                "device memory (a bug in the GPU pipeline)");

  // The object, the wrappers, then `cc -shared`.
  SmallString<128> objectPath(objectTemp);
  if (objectPath.empty()) {
    int fd;
    if (std::error_code ec =
            sys::fs::createTemporaryFile("kiln-compile", "o", fd, objectPath))
      return fail("cannot create a temporary file: " + ec.message());
    sys::Process::SafelyCloseFileDescriptor(fd);
    temps.paths.push_back(objectPath.str().str());
  }
  {
    std::error_code ec;
    raw_fd_ostream os(objectPath, ec, sys::fs::OF_None);
    if (ec)
      return fail("cannot write '" + objectPath + "': " + ec.message());
    legacy::PassManager codegen;
    if ((*machine)->addPassesToEmitFile(codegen, os, nullptr,
                                        CodeGenFileType::ObjectFile))
      return fail("the LLVM target cannot emit object files");
    codegen.run(*llvmModule);
    os.close();
    if (os.has_error())
      return fail("cannot write '" + objectPath + "': " +
                  os.error().message());
  }

  double llvmMs = msSince(llvmStart);

  SmallString<128> wrapperPath;
  {
    int fd;
    if (std::error_code ec = sys::fs::createTemporaryFile(
            "kiln-compile-entry", "c", fd, wrapperPath))
      return fail("cannot create a temporary file: " + ec.message());
    sys::Process::SafelyCloseFileDescriptor(fd);
    temps.paths.push_back(wrapperPath.str().str());
  }
  if (Error error =
          writeFile(wrapperPath,
                    makeWrappers(functions, needsMemrefCopy,
                                 needsHostAllocator, cuda)))
    return fail(toString(std::move(error)));

  if (!headerFile.empty())
    if (Error error = writeFile(
            headerTemp,
            makeHeader(functions, headerFile, inputFile, cuda, emulated)))
      return fail(toString(std::move(error)));

  std::string libompDir =
      libomp.empty() ? "" : sys::path::parent_path(libomp).str();
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
  if (cuda) {
    // The CUDA runtime opens libcuda.so.1 with dlopen and uses pthreads;
    // the emulator uses pthreads (and libm).
    args.push_back(cudaRuntime);
    if (!emulated)
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
  auto linkStart = std::chrono::steady_clock::now();
  std::string linkError;
  int status = sys::ExecuteAndWait(cc, argRefs, /*Env=*/std::nullopt,
                                   /*Redirects=*/{}, /*SecondsToWait=*/0,
                                   /*MemoryLimit=*/0, &linkError);
  if (status != 0) {
    std::string reason = linkError.empty()
                             ? "exit code " + std::to_string(status)
                             : linkError;
    return fail("linking the library failed (" + reason +
                "); the command was: " + llvm::join(args, " "));
  }
  // All built: the outputs take their names.
  for (auto [temp, path] : {std::pair<StringRef, StringRef>(libraryTemp,
                                                            outputFile),
                            {headerTemp, headerFile},
                            {objectTemp, objectFile}}) {
    if (path.empty())
      continue;
    if (std::error_code ec = sys::fs::rename(temp, path))
      return fail("cannot write '" + path + "': " + ec.message());
    sys::DontRemoveFileOnSignal(temp);
    llvm::erase(temps.paths, temp.str());
  }
  if (showTimes)
    outs() << format("pipeline: %.3f ms, llvm: %.3f ms, link: %.3f ms\n",
                     pipelineMs, llvmMs, msSince(linkStart));
  return 0;
}
