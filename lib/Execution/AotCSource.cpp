//===- AotCSource.cpp - The C side of an AOT library ----------------------===//
//
// What a library compiled ahead of time shows to C: the entry points a
// module exports (collectAotEntryPoints), the header that describes them
// (generateAotHeader) and the C source of their wrappers
// (generateAotWrappers), whose fixed part is lib/Runtime/AotEntryPoints.c.
//
//===----------------------------------------------------------------------===//

#include "AotCSource.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::kiln;
using llvm::raw_string_ostream;

/// The fixed part of every library's C entry points (lib/Runtime/AotEntryPoints.c).
static const char kEntryPointsSource[] =
#include "AotEntryPointsSource.inc"
    ;

/// Kiln's host allocator (lib/Runtime/HostAllocator.c, the JIT's too): the
/// _mlir_memref_to_llvm_* functions that the CPU pipeline's memref.alloc and
/// dealloc call, compiled into each CPU library with hidden visibility.
static const char kHostAllocatorSource[] =
#include "HostAllocatorSource.inc"
    ;

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
  if (name.empty() || llvm::isDigit(name.front()))
    return false;
  return llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

/// `f32[2,3]`, the compact form of the signature strings.
static std::string formatSpec(const TensorSpec &spec) {
  std::string text = stringifyDType(spec.dtype).str() + "[";
  for (auto [i, d] : llvm::enumerate(spec.shape))
    text += (i ? "," : "") + std::to_string(d);
  return text + "]";
}

/// `f32[2,3],f32[3]->f32[2,3]`.
static std::string formatSignature(const FunctionSignature &signature) {
  std::string text;
  for (auto [i, spec] : llvm::enumerate(signature.inputs))
    text += (i ? "," : "") + formatSpec(spec);
  text += "->";
  for (auto [i, spec] : llvm::enumerate(signature.results))
    text += (i ? "," : "") + formatSpec(spec);
  return text;
}

/// The C identifiers that the library and its header define for
/// `function`: its functions, typedefs and macros.
static SmallVector<std::string> getIdentifiers(const AotEntryPoint &function) {
  std::string lower = "kiln_" + function.name;
  std::string upper = "KILN_" + StringRef(function.name).upper();
  SmallVector<std::string> names = {lower, lower + "_signature",
                                    lower + "_last_error",
                                    upper + "_NUM_INPUTS",
                                    upper + "_NUM_OUTPUTS"};
  auto describe = [&](ArrayRef<TensorSpec> specs, StringRef kind) {
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
  describe(function.signature.inputs, "INPUT");
  describe(function.signature.results, "OUTPUT");
  return names;
}

/// Fails (with a diagnostic naming both) when two functions, or a function
/// and the library's own definitions, would define the same C identifier:
/// `@a` and `@A` both define KILN_A_NUM_INPUTS, `@f_input0_t` the typedef of
/// `@f`'s first input.
static LogicalResult checkIdentifiers(ArrayRef<AotEntryPoint> functions) {
  // The name of the function that defines each identifier; "" for the
  // library's own.
  llvm::StringMap<std::string> owners;
  for (StringRef own : {"kiln_last_error", "kiln_dtype"})
    owners[own] = "";
  for (const AotEntryPoint &function : functions) {
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
  return success();
}

FailureOr<SmallVector<AotEntryPoint>>
mlir::kiln::collectAotEntryPoints(ModuleOp module) {
  SmallVector<AotEntryPoint> out;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func.isPublic() || func.isExternal())
      continue;
    AotEntryPoint function;
    function.op = func;
    function.name = func.getSymName().str();
    if (!isCIdentifier(function.name))
      return func.emitError()
             << "@" << function.name
             << " is not a C identifier, so kiln-compile cannot name its C "
                "function kiln_"
             << function.name << " (rename it or make it private)";
    std::string unsupported;
    std::optional<FunctionSignature> signature = getFunctionSignature(
        func.getFunctionType(), function.name, unsupported);
    if (!signature)
      return func.emitError()
             << unsupported
             << ", but the C ABI only passes statically shaped tensors of "
             << kAbiElementTypes;
    function.signature = std::move(*signature);
    out.push_back(std::move(function));
  }
  if (failed(checkIdentifiers(out)))
    return failure();
  if (out.empty())
    return module.emitError()
           << "the module has no public function with a body to export";
  return out;
}

std::string mlir::kiln::generateAotHeader(ArrayRef<AotEntryPoint> functions,
                                          AotTarget target,
                                          StringRef headerName,
                                          StringRef sourceName) {
  bool emulated = target == AotTarget::CUDAEmulator;
  bool cuda = target != AotTarget::CPU;
  std::string text;
  raw_string_ostream os(text);
  std::string guard = "KILN_";
  for (char c : llvm::sys::path::filename(headerName))
    guard += llvm::isAlnum(c) ? llvm::toUpper(c) : '_';
  guard += "_";
  os << "/* Generated by Kiln's AOT compiler from "
     << llvm::sys::path::filename(sourceName)
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
       << " * writes nothing); 3 when a temporary could not be allocated (out\n"
       << " * of memory; the outputs are then incomplete): kiln_last_error()\n"
       << " * then returns the message (\"\" after a success; per thread); 4\n"
       << " * when the library runs AMX tiles (compiled for a CPU with\n"
       << " * AMX-BF16) and this CPU or its OS does not let the process use\n"
       << " * them (kiln_last_error() says so).\n";
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

  for (const AotEntryPoint &function : functions) {
    std::string upper = "KILN_" + StringRef(function.name).upper();
    os << "\n/* @" << function.name << ": " << formatSignature(function.signature)
       << " */\n"
       << "int kiln_" << function.name
       << "(const void *const *inputs, void *const *outputs);\n"
       << "const char *kiln_" << function.name << "_signature(void);\n"
       << "const char *kiln_" << function.name << "_last_error(void);\n"
       << "#define " << upper << "_NUM_INPUTS " << function.signature.inputs.size()
       << "\n#define " << upper << "_NUM_OUTPUTS " << function.signature.results.size()
       << "\n";
    auto describe = [&](ArrayRef<TensorSpec> specs, StringRef kind) {
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
        os << "#define " << prefix << "_NUM_ELEMENTS " << spec.getNumElements()
           << "\n";
        os << "#define " << prefix << "_NUM_BYTES "
           << spec.getNumBytes() << "\n";
      }
    };
    describe(function.signature.inputs, "INPUT");
    describe(function.signature.results, "OUTPUT");
  }
  os << "\n#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";
  return text;
}


std::string mlir::kiln::generateAotWrappers(ArrayRef<AotEntryPoint> functions,
                                            bool needsMemrefCopy,
                                            bool needsHostAllocator,
                                            bool cudaErrors, bool usesAMX) {
  std::string text;
  raw_string_ostream os(text);
  os << "/* Generated by Kiln's AOT compiler: the C entry points. */\n"
     << "#define KILN_AOT_CUDA_ERRORS " << (cudaErrors ? 1 : 0) << "\n"
     << "#define KILN_AOT_MEMREF_COPY " << (needsMemrefCopy ? 1 : 0) << "\n"
     << kEntryPointsSource << "\n";
  if (needsHostAllocator)
    os << "\n/* Kiln's host allocator (lib/Runtime/HostAllocator.c). */\n"
       << "#define KILN_HOST_ALLOCATOR_API KILN_HIDDEN\n"
       << kHostAllocatorSource << "\n";

  for (const AotEntryPoint &function : functions) {
    ArrayRef<TensorSpec> inputs = function.signature.inputs;
    ArrayRef<TensorSpec> results = function.signature.results;
    size_t numArgs = inputs.size() + results.size();
    auto specs = llvm::concat<const TensorSpec>(inputs, results);
    os << "\nvoid _mlir_ciface_" << function.name << "(";
    for (size_t i = 0; i < numArgs; ++i)
      os << (i ? ", " : "") << "void *";
    if (!numArgs)
      os << "void";
    os << ");\n\n";
    os << "KILN_EXPORT const char *kiln_" << function.name
       << "_signature(void) {\n  return \""
       << formatSignature(function.signature) << "\";\n}\n\n";
    // A name no other library defines: kiln_last_error is the first
    // library's in a program that links two.
    os << "KILN_EXPORT const char *kiln_" << function.name
       << "_last_error(void) {\n  return __kiln_last_error();\n}\n\n";
    os << "KILN_EXPORT int kiln_" << function.name
       << "(const void *const *inputs, void *const *outputs) {\n";
    // Tables of the byte sizes, the ranks and the concatenated sizes of the
    // inputs then the outputs (with a 0 where there are none: a C array
    // cannot be empty), and the offset of each descriptor in the words the
    // call passes.
    os << "  static const uint64_t bytes[] = {";
    for (auto [i, spec] : llvm::enumerate(specs))
      os << (i ? ", " : "") << spec.getNumBytes();
    os << (numArgs ? "" : "0") << "};\n  static const int ranks[] = {";
    SmallVector<int64_t> offsets;
    int64_t numWords = 0;
    for (auto [i, spec] : llvm::enumerate(specs)) {
      os << (i ? ", " : "") << spec.shape.size();
      offsets.push_back(numWords);
      numWords += 3 + 2 * int64_t(spec.shape.size());
    }
    os << (numArgs ? "" : "0") << "};\n  static const int64_t sizes[] = {";
    bool firstSize = true;
    for (const TensorSpec &spec : specs)
      for (int64_t size : spec.shape) {
        os << (firstSize ? "" : ", ") << size;
        firstSize = false;
      }
    os << (firstSize ? "0" : "") << "};\n";
    // A NULL pointer or overlapping buffers return 1 with a message.
    os << "  __kiln_clear_error();\n"
       << "  if (__kiln_check(\"kiln_" << function.name
       << "\", inputs, outputs, bytes, " << inputs.size() << ", "
       << results.size() << "))\n    return 1;\n";
    // AMX code (always with the host allocator, whose file asks for it)
    // raises SIGILL in a process the OS has not given the tiles.
    if (usesAMX)
      os << "  if (!kilnRequestAMX()) {\n    __kiln_report(\"kiln_"
         << function.name
         << ": this library runs bf16 matmuls on AMX tiles (it was compiled "
            "for a CPU with AMX-BF16), and this CPU or its operating system "
            "does not let the process use them (rebuild with --amx=false or "
            "--mcpu for this CPU)\");\n    return 4;\n  }\n";
    // The descriptors on the stack up to 32 KiB; a larger table on the heap.
    bool onHeap = numWords > 4096;
    if (onHeap)
      os << "  int64_t *d = (int64_t *)malloc(" << numWords
         << " * sizeof(int64_t));\n"
         << "  if (!d) {\n    __kiln_report(\"kiln_" << function.name
         << ": out of memory for the argument descriptors\");\n"
         << "    return 1;\n  }\n";
    else
      os << "  int64_t d[" << std::max<int64_t>(numWords, 1) << "];\n";
    os << "  __kiln_describe_all(d, inputs, outputs, " << inputs.size()
       << ", " << numArgs << ", ranks, sizes);\n";
    // Under a recovery point where the code allocates on the host: a
    // temporary the machine has no memory for returns 3 (HostAllocator.c).
    if (needsHostAllocator)
      os << "  KilnRecovery recovery;\n"
         << "  if (setjmp(recovery.target) == 0) {\n"
         << "    kilnRecoveryBegin(&recovery);\n  ";
    os << "  _mlir_ciface_" << function.name << "(";
    for (auto [i, offset] : llvm::enumerate(offsets))
      os << (i ? ", " : "") << "d + " << offset;
    os << ");\n";
    if (needsHostAllocator)
      os << "  }\n"
         << "  size_t failed = kilnRecoveryEnd(&recovery);\n";
    if (onHeap)
      os << "  free(d);\n";
    if (needsHostAllocator)
      os << "  if (failed) {\n"
         << "    __kiln_report_out_of_memory(\"kiln_" << function.name
         << "\", failed);\n    return 3;\n  }\n";
    os << "  return __kiln_status();\n}\n";
  }
  return text;
}
