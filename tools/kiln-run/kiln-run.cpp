//===- kiln-run.cpp - Run a kiln function on the CPU ----------------------===//
//
// Usage:
//   kiln-run FILE.mlir --entry NAME [--weights-dir DIR] [--input a.npy ...]
//            [--random-inputs [--seed N] [--random-range I:LO:HI ...]]
//            [--output-dir DIR [--named-outputs]] [--print] [--print-limit N]
//            [--time]
//            [--openmp] [--repeat N] [--target cpu|gpu-emulator]
//            [--tensor-cores=false]
//
// Compiles FILE through the kiln-lower-to-cpu pipeline (--target=gpu-emulator:
// through kiln-lower-to-nvvm with the kernels run on the host by Kiln's GPU
// emulator, docs/GPUEmulator.md), calls @NAME on the
// inputs (one .npy file per argument, in order, or seeded random values;
// with --weights-dir, the lifted parameters, arguments with a
// `kiln.parameter` attribute, come from DIR/<name>.npy instead), then prints
// each result (with its name when the function names it) and/or writes it
// to DIR/result<i>.npy (--named-outputs: DIR/<name>.npy). Without
// --output-dir the results are printed. Every error is a message and exit
// code 1.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/InitAll.h"
#include "kiln/Execution/JitSession.h"
#include "kiln/Support/Npy.h"
#include "kiln/Target/GraphJsonNames.h"

#include "ToolSupport.h"
#include "ToolVersion.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <optional>
#include <random>

using namespace llvm;
using namespace mlir::kiln;

static cl::OptionCategory kilnRunCategory("kiln-run options");

static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::cat(kilnRunCategory), cl::desc("<input .mlir file>"));
static cl::opt<std::string> entry("entry", cl::Required,
                                  cl::cat(kilnRunCategory), cl::desc("The public function to run"));
static cl::list<std::string>
    inputs("input", cl::cat(kilnRunCategory), cl::desc("A .npy file holding one argument (repeat, in "
                             "argument order)"));
static cl::opt<bool>
    randomInputs("random-inputs",
                 cl::cat(kilnRunCategory), cl::desc("Run on seeded pseudo-random arguments"));
static cl::opt<uint64_t> seed("seed", cl::init(0),
                              cl::cat(kilnRunCategory), cl::desc("Seed of --random-inputs"));
static cl::list<std::string> randomRanges(
    "random-range",
    cl::cat(kilnRunCategory), cl::desc("I:LO:HI: with --random-inputs, draw argument #I uniformly from "
             "[LO, HI) instead (integers for integer arguments, e.g. token "
             "ids; a float value that rounds to HI in its dtype takes the "
             "greatest one below, and a dtype with no value in [LO, HI) is "
             "an error); repeat per argument"));
static cl::opt<std::string> weightsDir(
    "weights-dir", cl::cat(kilnRunCategory),
    cl::desc("Read each lifted parameter (an argument with a kiln.parameter "
             "= \"<name>\" attribute, kiln-translate --lift-parameters) from "
             "DIR/<name>.npy, the name made a file name as "
             "--graph-json-export-weights-dir makes it; --input or "
             "--random-inputs gives the other arguments"));
static cl::opt<std::string>
    outputDir("output-dir", cl::cat(kilnRunCategory), cl::desc("Write result<i>.npy files here"));
static cl::opt<bool> namedOutputs(
    "named-outputs", cl::cat(kilnRunCategory),
    cl::desc("With --output-dir: write each result the function names "
             "(kiln.output_names; split mode's kiln.output, kiln.residual, "
             "kiln.gradient as output<i>, residual<j>, gradient<k>) to "
             "<name>.npy, the name made a file name as for --weights-dir, "
             "instead of result<i>.npy"));
static cl::opt<bool> print("print", cl::cat(kilnRunCategory), cl::desc("Print the results (the default "
                                             "without --output-dir)"));
static cl::opt<unsigned>
    printLimit("print-limit", cl::init(16),
               cl::cat(kilnRunCategory), cl::desc("How many leading values of each result to print"));
static cl::opt<bool> showTimes("time", cl::cat(kilnRunCategory), cl::desc("Print compile and run times"));
static cl::opt<unsigned> optLevel("opt-level", cl::init(2),
                                  cl::cat(kilnRunCategory), cl::desc("LLVM optimization level (0-3)"));
static cl::opt<unsigned>
    repeat("repeat", cl::init(1),
           cl::cat(kilnRunCategory), cl::desc("Run the function N times (N >= 1); --time then reports "
                    "the fastest run"));
static cl::opt<bool>
    openMP("openmp", cl::cat(kilnRunCategory), cl::desc("Run parallel loops on OpenMP threads "
                              "(OMP_NUM_THREADS sets their number)"));

static cl::opt<bool> amx(
    "amx", cl::init(JitOptions().amx), cl::cat(kilnRunCategory),
    cl::desc("Run bf16 matmuls on AMX tiles when the host has AMX-BF16 and "
             "the OS lets the process use them (the default; --amx=false: "
             "the vector kernels)"));

static cl::opt<bool> outlineKernels(
    "outline-kernels", cl::init(JitOptions().outlineKernels),
    cl::cat(kilnRunCategory),
    cl::desc("--target=cpu: one shared function per distinct loop nest, "
             "kiln-lower-to-cpu's outline-kernels (=false inlines them all "
             "into the entry points)"));

static cl::opt<JitTarget> target(
    "target", cl::init(JitTarget::CPU), cl::cat(kilnRunCategory),
    cl::desc("What runs the function"),
    cl::values(clEnumValN(JitTarget::CPU, "cpu",
                          "the host CPU (kiln-lower-to-cpu; the default)"),
               clEnumValN(JitTarget::GPUEmulator, "gpu-emulator",
                          "the GPU pipeline's kernels on Kiln's GPU emulator "
                          "(kiln-lower-to-nvvm{emulate}; slow, no GPU "
                          "needed)")));
static cl::opt<bool> tensorCores(
    "tensor-cores", cl::init(true), cl::cat(kilnRunCategory),
    cl::desc("--target=gpu-emulator: the tensor-core attention kernels for "
             "f16/bf16, kiln-lower-to-nvvm's tensor-cores (default on; "
             "=false to use the SIMT kernels)"));

static constexpr StringLiteral kToolName = "kiln-run";

static int fail(const Twine &message) {
  return tools::reportError(kToolName, message);
}

/// A --random-range: argument `index` drawn from [low, high).
struct RandomRange {
  unsigned index;
  int64_t low, high;
};

/// Parses "I:LO:HI" with integer LO < HI.
static Expected<RandomRange> parseRandomRange(StringRef text) {
  SmallVector<StringRef, 3> parts;
  text.split(parts, ':');
  RandomRange range;
  if (parts.size() != 3 || parts[0].getAsInteger(10, range.index) ||
      parts[1].getAsInteger(10, range.low) ||
      parts[2].getAsInteger(10, range.high) || range.low >= range.high)
    return createStringError("--random-range '" + text +
                             "' is not I:LO:HI with integers LO < HI");
  return range;
}

/// The values of an integer dtype (i1: 0 and 1), as [min, max].
static std::pair<int64_t, int64_t> getIntegerRange(DType dtype) {
  switch (dtype) {
  case DType::I1:
    return {0, 1};
  case DType::I8:
    return {INT8_MIN, INT8_MAX};
  case DType::I32:
    return {INT32_MIN, INT32_MAX};
  default:
    return {INT64_MIN, INT64_MAX};
  }
}

/// The least and the greatest value of the float dtype `dtype` in
/// [low, high), or nullopt when it holds none (f16 has no value in
/// [4097, 4098)).
static std::optional<std::pair<double, double>>
getFloatRange(DType dtype, int64_t low, int64_t high) {
  const fltSemantics &semantics =
      dtype == DType::F16    ? APFloat::IEEEhalf()
      : dtype == DType::BF16 ? APFloat::BFloat()
      : dtype == DType::F32  ? APFloat::IEEEsingle()
                             : APFloat::IEEEdouble();
  APFloat least(semantics), greatest(semantics);
  least.convertFromAPInt(APInt(64, low, /*isSigned=*/true), /*IsSigned=*/true,
                         APFloat::rmTowardPositive);
  if (greatest.convertFromAPInt(APInt(64, high, /*isSigned=*/true),
                                /*IsSigned=*/true, APFloat::rmTowardNegative) ==
      APFloat::opOK)
    greatest.next(/*nextDown=*/true);
  if (greatest < least)
    return std::nullopt;
  bool losesInfo;
  least.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                &losesInfo);
  greatest.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                   &losesInfo);
  return std::make_pair(least.convertToDouble(), greatest.convertToDouble());
}

/// A tensor of values uniform in [low, high) from `seed`: integers for the
/// integer dtypes (and i1), reals for the float ones, which must hold a value
/// in [low, high) (getFloatRange). Like HostTensor::random, it draws from
/// mt19937_64 with its own conversions, so every platform draws the same
/// values.
static Expected<HostTensor> randomInRange(DType dtype, ArrayRef<int64_t> shape,
                                          uint64_t seed, int64_t low,
                                          int64_t high) {
  Expected<HostTensor> tensor = HostTensor::allocate(dtype, shape);
  if (!tensor)
    return tensor.takeError();
  std::optional<std::pair<double, double>> floatRange;
  if (isFloatDType(dtype)) {
    floatRange = getFloatRange(dtype, low, high);
    assert(floatRange && "the dtype holds no value in the range");
  }
  std::mt19937_64 engine(seed);
  uint64_t span = uint64_t(high) - uint64_t(low);
  for (int64_t i = 0; i < tensor->getNumElements(); ++i) {
    uint64_t bits = engine();
    // Integers in integer arithmetic: a double would round those above 2^53,
    // possibly out of [low, high).
    if (!isFloatDType(dtype)) {
      tensor->setElementFromInt64(i, int64_t(uint64_t(low) + bits % span));
      continue;
    }
    // A real drawn from [low, high) can round to high in the dtype (f16
    // rounds 1 - 2^-12 up to 1): clamped to the dtype's values in the range,
    // it rounds to the greatest one instead. Values that round into the
    // range are unchanged.
    double value = double(low) + double(bits >> 11) * 0x1.0p-53 * double(span);
    tensor->setElementFromDouble(
        i, std::clamp(value, floatRange->first, floatRange->second));
  }
  return tensor;
}

/// The names of the `numResults` results of `func` (null: a function the
/// pipeline generated), empty for a result without one: its
/// `kiln.output_names` when that holds one string per result (the graph JSON
/// import's outputs), else split mode's roles (docs/Autodiff.md):
/// `kiln.output = i` is `output<i>`, `kiln.residual = j` `residual<j>` and
/// `kiln.gradient = k` `gradient<k>`.
static SmallVector<std::string> getResultNames(mlir::func::FuncOp func,
                                               size_t numResults) {
  SmallVector<std::string> names(numResults);
  if (!func || func.getNumResults() != numResults)
    return names;
  if (auto outputNames =
          func->getAttrOfType<mlir::ArrayAttr>(
              KilnDialect::OutputNamesAttrHelper::getNameStr());
      outputNames && outputNames.size() == numResults &&
      llvm::all_of(outputNames, llvm::IsaPred<mlir::StringAttr>)) {
    for (auto [name, attr] : llvm::zip_equal(names, outputNames))
      name = cast<mlir::StringAttr>(attr).str();
    return names;
  }
  for (auto [i, name] : llvm::enumerate(names))
    for (auto [role, attr] :
         {std::pair<StringRef, StringRef>(
              "output", KilnDialect::OutputAttrHelper::getNameStr()),
          {"residual", KilnDialect::ResidualAttrHelper::getNameStr()},
          {"gradient", KilnDialect::GradientAttrHelper::getNameStr()}})
      if (auto index = func.getResultAttrOfType<mlir::IntegerAttr>(i, attr))
        name = (role + Twine(index.getInt())).str();
  return names;
}

/// Prints `tensor`'s type, its name when it has one, and its first values.
static void printResult(raw_ostream &os, unsigned index, StringRef name,
                        const HostTensor &tensor) {
  os << "result" << index << ": " << tensor.getTypeString();
  if (!name.empty()) {
    os << " (";
    printEscapedString(name, os);
    os << ")";
  }
  os << "\n  [";
  int64_t shown = std::min<int64_t>(tensor.getNumElements(), printLimit);
  for (int64_t i = 0; i < shown; ++i) {
    if (i)
      os << ", ";
    if (isFloatDType(tensor.getDType()))
      os << format("%.6g", tensor.getElementAsDouble(i));
    else if (tensor.getDType() == DType::I1)
      os << (tensor.getElementAsInt64(i) ? "true" : "false");
    else
      os << tensor.getElementAsInt64(i);
  }
  if (shown < tensor.getNumElements())
    os << (shown ? ", " : "") << "... (" << tensor.getNumElements()
       << " values)";
  os << "]\n";
}

/// Rejects flag combinations that would be ignored or contradict each
/// other, before any work.
static Error checkFlags() {
  if (randomInputs && !inputs.empty())
    return createStringError("--input and --random-inputs are exclusive");
  if (!randomRanges.empty() && !randomInputs)
    return createStringError("--random-range needs --random-inputs");
  if (optLevel > 3)
    return createStringError("--opt-level must be 0, 1, 2 or 3, not " +
                             Twine(optLevel));
  if (tensorCores.getNumOccurrences() && target != JitTarget::GPUEmulator)
    return createStringError(
        "--tensor-cores is for --target=gpu-emulator only");
  if (seed.getNumOccurrences() && !randomInputs)
    return createStringError("--seed needs --random-inputs");
  if (printLimit.getNumOccurrences() && !outputDir.empty() && !print)
    return createStringError("--print-limit does nothing with --output-dir "
                             "unless --print is given");
  if (outputDir.getNumOccurrences() && outputDir.empty())
    return createStringError("--output-dir needs a directory name");
  if (namedOutputs && outputDir.empty())
    return createStringError("--named-outputs needs --output-dir");
  if (weightsDir.getNumOccurrences() && weightsDir.empty())
    return createStringError("--weights-dir needs a directory name");
  if (!weightsDir.empty() && !sys::fs::is_directory(weightsDir))
    return createStringError("--weights-dir: '" + weightsDir +
                             "' is not a directory");
  if (openMP && target == JitTarget::GPUEmulator)
    return createStringError("--openmp is for --target=cpu only");
  if (repeat < 1)
    return createStringError("--repeat must be at least 1");
  return Error::success();
}

/// The --random-range flags, by argument index (nothing where none).
static Expected<SmallVector<std::optional<RandomRange>>> parseRandomRanges() {
  SmallVector<std::optional<RandomRange>> ranges;
  for (const std::string &text : randomRanges) {
    Expected<RandomRange> range = parseRandomRange(text);
    if (!range)
      return range.takeError();
    if (ranges.size() <= range->index)
      ranges.resize(range->index + 1);
    if (ranges[range->index])
      return createStringError("--random-range '" + text +
                               "' names argument #" + Twine(range->index) +
                               " again");
    ranges[range->index] = *range;
  }
  return ranges;
}

namespace {
/// Where each argument of the entry point comes from: the lifted
/// parameters from --weights-dir (their files and names; empty for the
/// other arguments), the others from --input or --random-inputs.
struct ArgumentSources {
  SmallVector<std::string> parameterFiles, parameterNames;
  SmallVector<unsigned> otherArguments;
  size_t getNumParameters() const {
    return parameterFiles.size() - otherArguments.size();
  }
};
} // namespace

/// Finds the lifted parameters of `func` (null: a function the pipeline
/// generated) for --weights-dir, and checks that the --input flags give the
/// other arguments.
static Expected<ArgumentSources> findArgumentSources(mlir::func::FuncOp func,
                                                     size_t numArguments) {
  ArgumentSources sources;
  sources.parameterFiles.resize(numArguments);
  sources.parameterNames.resize(numArguments);
  if (!weightsDir.empty() && func && func.getNumArguments() == numArguments) {
    sources.parameterFiles = getLiftedParameterFileNames(func);
    for (unsigned i = 0; i < numArguments; ++i)
      if (auto name =
              func.getArgAttrOfType<mlir::StringAttr>(
                  i, KilnDialect::ParameterAttrHelper::getNameStr()))
        sources.parameterNames[i] = name.str();
  }
  for (unsigned i = 0; i < numArguments; ++i)
    if (sources.parameterFiles[i].empty())
      sources.otherArguments.push_back(i);
  size_t numParameters = sources.getNumParameters();
  if (!weightsDir.empty() && numParameters == 0)
    return createStringError(
        "--weights-dir: no argument of @" + entry +
        " is a lifted parameter (an argument with a kiln.parameter "
        "attribute, as kiln-translate --import-graph-json "
        "--lift-parameters makes them)");
  if (!weightsDir.empty() && !randomInputs &&
      inputs.size() != sources.otherArguments.size()) {
    // The other arguments, by kiln.input_names when it names them.
    auto inputNames = func->getAttrOfType<mlir::ArrayAttr>(
        KilnDialect::InputNamesAttrHelper::getNameStr());
    std::string others;
    for (auto [k, i] : llvm::enumerate(sources.otherArguments)) {
      others += others.empty() ? "" : ", ";
      auto name = inputNames && k < inputNames.size()
                      ? dyn_cast<mlir::StringAttr>(inputNames[k])
                      : nullptr;
      others += name ? name.str() : "#" + std::to_string(i);
    }
    return createStringError(
        "@" + entry + " takes " + Twine(sources.otherArguments.size()) +
        " arguments besides its " + Twine(numParameters) +
        " parameters from --weights-dir" +
        (others.empty() ? "" : " (" + others + ")") + ", got " +
        Twine(inputs.size()) + " --input");
  }
  return sources;
}

/// Reads lifted parameter #i from --weights-dir, checking its type.
static Expected<HostTensor> readParameter(const ArgumentSources &sources,
                                          const FunctionSignature &signature,
                                          unsigned i) {
  std::string what = ("--weights-dir: parameter '" +
                      sources.parameterNames[i] + "' (argument #" + Twine(i) +
                      " of @" + entry + "): ")
                         .str();
  SmallString<128> path(weightsDir);
  sys::path::append(path, sources.parameterFiles[i]);
  Expected<HostTensor> tensor = readNpy(path);
  if (!tensor)
    return createStringError(what + toString(tensor.takeError()));
  const TensorSpec &spec = signature.inputs[i];
  if (tensor->getDType() != spec.dtype ||
      tensor->getShape() != ArrayRef(spec.shape))
    return createStringError(what + "'" + path + "' holds " +
                             tensor->getTypeString() + ", expected " +
                             spec.getTypeString());
  return tensor;
}

/// --random-inputs: argument #i drawn from seed + i (in its --random-range,
/// which its dtype must hold), or read from --weights-dir for a parameter.
static Expected<SmallVector<HostTensor>>
makeRandomArguments(const FunctionSignature &signature,
                    const ArgumentSources &sources,
                    ArrayRef<std::optional<RandomRange>> ranges) {
  if (ranges.size() > signature.inputs.size())
    return createStringError("--random-range names argument #" +
                             Twine(ranges.size() - 1) + ", but @" + entry +
                             " takes " + Twine(signature.inputs.size()));
  SmallVector<HostTensor> arguments;
  for (auto [i, spec] : llvm::enumerate(signature.inputs)) {
    std::optional<RandomRange> range =
        i < ranges.size() ? ranges[i] : std::nullopt;
    auto flag = [&, i = i]() -> std::string {
      return ("--random-range " + Twine(i) + ":" + Twine(range->low) + ":" +
              Twine(range->high) + ": argument #" + Twine(i) + " of @" + entry)
          .str();
    };
    if (!sources.parameterFiles[i].empty()) {
      if (range)
        return createStringError(flag() + " is parameter '" +
                                 sources.parameterNames[i] +
                                 "', read from --weights-dir");
      Expected<HostTensor> tensor = readParameter(sources, signature, i);
      if (!tensor)
        return tensor.takeError();
      arguments.push_back(std::move(*tensor));
      continue;
    }
    // Values a float dtype cannot hold would round to infinity. Only
    // f16's largest finite value, 65504, is below the int64_t bounds.
    constexpr int64_t maxF16 = 65504;
    if (range && spec.dtype == DType::F16 &&
        (range->low < -maxF16 || range->high > maxF16))
      return createStringError(
          flag() + " is f16, whose finite values lie in [-65504, 65504]");
    // A float dtype must hold a value in the range (bf16 has none in
    // [257, 258)).
    if (range && isFloatDType(spec.dtype) &&
        !getFloatRange(spec.dtype, range->low, range->high))
      return createStringError(flag() + " is " + stringifyDType(spec.dtype) +
                               ", which holds no value in that range");
    // Values an integer dtype cannot hold would be clamped: not uniform.
    if (range && !isFloatDType(spec.dtype)) {
      auto [min, max] = getIntegerRange(spec.dtype);
      if (range->low < min || range->high - 1 > max)
        return createStringError(flag() + " is " +
                                 stringifyDType(spec.dtype) + ", which holds " +
                                 Twine(min) + " to " + Twine(max));
    }
    Expected<HostTensor> tensor =
        range ? randomInRange(spec.dtype, spec.shape, seed + i, range->low,
                              range->high)
              : HostTensor::random(spec.dtype, spec.shape, seed + i);
    if (!tensor)
      return createStringError("argument #" + Twine(i) + ": " +
                               toString(tensor.takeError()));
    arguments.push_back(std::move(*tensor));
  }
  return arguments;
}

/// The arguments from --input files, with the parameters from --weights-dir
/// in their places (their count was checked by findArgumentSources).
static Expected<SmallVector<HostTensor>>
readArguments(const FunctionSignature &signature,
              const ArgumentSources &sources) {
  SmallVector<HostTensor> arguments;
  if (sources.getNumParameters()) {
    auto nextInput = inputs.begin();
    for (unsigned i = 0; i < sources.parameterFiles.size(); ++i) {
      Expected<HostTensor> tensor = sources.parameterFiles[i].empty()
                                        ? readNpy(*nextInput++)
                                        : readParameter(sources, signature, i);
      if (!tensor)
        return tensor.takeError();
      arguments.push_back(std::move(*tensor));
    }
    return arguments;
  }
  for (const std::string &path : inputs) {
    Expected<HostTensor> tensor = readNpy(path);
    if (!tensor)
      return tensor.takeError();
    arguments.push_back(std::move(*tensor));
  }
  return arguments;
}

/// --output-dir: each result as result<i>.npy, or with --named-outputs as
/// `<name>.npy`, made a file name and unique as the graph JSON export makes
/// parameter files (a result without a name keeps `result<i>`, in the same
/// namespace).
static Error writeResults(ArrayRef<HostTensor> results,
                          ArrayRef<std::string> resultNames) {
  if (std::error_code ec = sys::fs::create_directories(outputDir))
    return createStringError("cannot create '" + outputDir +
                             "': " + ec.message());
  StringSet<> usedFiles;
  for (auto [i, result] : llvm::enumerate(results)) {
    SmallString<128> path(outputDir);
    std::string stem = namedOutputs && !resultNames[i].empty()
                           ? resultNames[i]
                           : "result" + std::to_string(i);
    sys::path::append(path, namedOutputs
                                ? getGraphJsonFileName(stem, usedFiles)
                                : stem + ".npy");
    if (Error error = writeNpy(result, path))
      return error;
  }
  return Error::success();
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(kilnRunCategory);
  // MLIR's debugging options (--mlir-print-ir-after-all, --mlir-timing,
  // ...), which the JitSession applies to its pass managers; registered
  // after HideUnrelatedOptions, so --help lists them. The passes are
  // registered for the options that name one (--mlir-print-ir-after=).
  registerAllPasses();
  tools::registerMLIRDebugCLOptions();
  tools::addKilnVersionPrinter();
  cl::ParseCommandLineOptions(argc, argv, "Run a kiln function on the CPU\n");
  if (Error error = checkFlags())
    return fail(toString(std::move(error)));
  Expected<SmallVector<std::optional<RandomRange>>> ranges =
      parseRandomRanges();
  if (!ranges)
    return fail(toString(ranges.takeError()));

  JitSession session;
  mlir::MLIRContext &context = session.getContext();
  tools::InputModule input(context);
  mlir::OwningOpRef<mlir::ModuleOp> module = input.parse(kToolName, inputFile);
  if (!module)
    return 1;
  JitOptions options;
  options.optLevel = optLevel;
  options.enableOpenMP = openMP;
  options.amx = amx;
  options.target = target;
  options.tensorCores = tensorCores;
  options.outlineKernels = outlineKernels;
  mlir::FailureOr<std::unique_ptr<JitModule>> jit =
      session.compile(*module, options);
  if (mlir::failed(jit))
    return 1;

  const FunctionSignature *signature = (*jit)->lookupSignature(entry);
  if (!signature) {
    SmallVector<StringRef> names = (*jit)->getFunctionNames();
    std::string known = names.empty() ? "none" : "@" + join(names, ", @");
    return fail("--entry: " + inputFile + " has no public function @" +
                entry + " (its public functions: " + known + ")");
  }

  // The parsed module is intact (the JIT compiled a clone); a function that
  // the pipeline generated is not in it, and has no attributes to read.
  auto func = module->lookupSymbol<mlir::func::FuncOp>(entry);
  SmallVector<std::string> resultNames =
      getResultNames(func, signature->results.size());
  if (namedOutputs && llvm::all_of(resultNames, [](const std::string &name) {
        return name.empty();
      }))
    return fail("--named-outputs: @" + entry +
                " names none of its results (no kiln.output_names with one "
                "name per result, no kiln.output, kiln.residual or "
                "kiln.gradient result attribute)");
  Expected<ArgumentSources> sources =
      findArgumentSources(func, signature->inputs.size());
  if (!sources)
    return fail(toString(sources.takeError()));
  Expected<SmallVector<HostTensor>> arguments =
      randomInputs ? makeRandomArguments(*signature, *sources, *ranges)
                   : readArguments(*signature, *sources);
  if (!arguments)
    return fail(toString(arguments.takeError()));

  mlir::FailureOr<SmallVector<HostTensor>> results =
      (*jit)->invoke(entry, *arguments);
  if (mlir::failed(results))
    return 1;
  double bestRunSeconds = (*jit)->getTimings().runSeconds;
  for (unsigned i = 1; i < repeat; ++i) {
    results = (*jit)->invoke(entry, *arguments);
    if (mlir::failed(results))
      return 1;
    bestRunSeconds = std::min(bestRunSeconds, (*jit)->getTimings().runSeconds);
  }

  if (!outputDir.empty())
    if (Error error = writeResults(*results, resultNames))
      return fail(toString(std::move(error)));
  if (print || outputDir.empty())
    for (auto [i, result] : llvm::enumerate(*results))
      printResult(outs(), i, resultNames[i], result);
  if (showTimes) {
    const JitTimings &timings = (*jit)->getTimings();
    outs() << format("compile: %.3f ms, run: %.3f ms",
                     timings.compileSeconds * 1e3, bestRunSeconds * 1e3);
    if (repeat > 1)
      outs() << " (best of " << repeat << ")";
    outs() << "\n";
  }
  return 0;
}
