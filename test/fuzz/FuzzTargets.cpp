//===- FuzzTargets.cpp - libFuzzer entry points over Kiln's input readers -===//
//
// Each target is one `LLVMFuzzerTestOneInput`, selected at build time by
// KILN_FUZZ_TARGET (one executable per target):
//
//   parse       the bytes as MLIR source in a context with every Kiln
//               dialect: parse, then verify (the kiln dialect's parser,
//               printer hooks and verifiers).
//   graph-json  the bytes as a JSON model graph: importGraphJson, then
//               verify what it built, also with --lift-parameters.
//   npy         the bytes as a .npy file: parseNpy, then serialize what it
//               read and parse that again (it must read back equal).
//
// An input may be rejected (with diagnostics, which are swallowed); it must
// never crash, abort, or build IR that fails to verify. The targets link
// with FuzzReplayMain.cpp, a deterministic driver for the ctest slices, or
// with libFuzzer (test/fuzz/libfuzzer.sh).
//
//===----------------------------------------------------------------------===//

#include "kiln/InitAll.h"
#include "kiln/Support/Npy.h"
#include "kiln/Target/GraphJson.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <memory>

using namespace mlir;

namespace {
/// One context for every input: registering the dialects costs more than
/// most inputs take to parse.
MLIRContext &getContext() {
  static std::unique_ptr<MLIRContext> context = [] {
    DialectRegistry registry;
    kiln::registerAllDialects(registry);
    auto context = std::make_unique<MLIRContext>(
        registry, MLIRContext::Threading::DISABLED);
    context->loadAllAvailableDialects();
    context->printOpOnDiagnostic(false);
    context->printStackTraceOnDiagnostic(false);
    return context;
  }();
  return *context;
}

/// Swallows the diagnostics of one input (rejecting it is fine); with
/// KILN_FUZZ_VERBOSE set, prints them, to see what the inputs reach.
struct QuietDiagnostics {
  explicit QuietDiagnostics(MLIRContext &context)
      : handler(&context, [](Diagnostic &diagnostic) {
          static const bool verbose = std::getenv("KILN_FUZZ_VERBOSE");
          if (verbose)
            llvm::errs() << "kiln-fuzz: " << diagnostic.str() << "\n";
          return success();
        }) {}
  ScopedDiagnosticHandler handler;
};

/// A module a Kiln importer built that does not verify is a bug: report it
/// and abort, so that the fuzzer keeps the input.
void checkVerifies(ModuleOp module, const char *what) {
  std::string message;
  {
    ScopedDiagnosticHandler capture(
        module.getContext(), [&](Diagnostic &diagnostic) {
          message += diagnostic.str() + "\n";
          return success();
        });
    if (succeeded(verify(module)))
      return;
  }
  llvm::errs() << what << " built a module that does not verify:\n"
               << message;
  module.print(llvm::errs());
  std::abort();
}

} // namespace

// The targets, one of which LLVMFuzzerTestOneInput calls (external, so the
// others are not "unused").
namespace kiln_fuzz {
/// True when `text` refers to a result number (`%x#N`) above 100,000.
/// Upstream MLIR's parser allocates storage for N results there and aborts
/// with "out of memory" for N = 2^31 (mlir-opt does too, with no Kiln
/// dialect involved): an upstream crash, which the campaign counts apart
/// (docs/Overview.md, Robustness). Skipping such inputs keeps the fuzzer
/// looking for Kiln's own.
bool hasHugeResultNumber(StringRef text) {
  for (size_t pos = text.find('#'); pos != StringRef::npos;
       pos = text.find('#', pos + 1)) {
    StringRef digits = text.drop_front(pos + 1).take_while(llvm::isDigit);
    if (digits.size() > 5)
      return true;
  }
  return false;
}

int fuzzParse(StringRef text) {
  if (hasHugeResultNumber(text))
    return 0;
  MLIRContext &context = getContext();
  QuietDiagnostics quiet(context);
  // A null-terminated copy: the lexer reads up to the terminator. The
  // parser verifies the module it parsed.
  std::string source = text.str();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, ParserConfig(&context));
  (void)module;
  return 0;
}

int fuzzGraphJson(StringRef text) {
  MLIRContext &context = getContext();
  QuietDiagnostics quiet(context);
  Location loc = UnknownLoc::get(&context);
  for (bool lift : {false, true}) {
    kiln::GraphJsonImportOptions options;
    options.liftParameters = lift;
    // Weights files are looked up in a directory that does not exist, so
    // an input names no file of the machine.
    options.weightsDir = "/nonexistent-kiln-fuzz-weights";
    OwningOpRef<ModuleOp> module =
        kiln::importGraphJson(text, &context, loc, options);
    if (module)
      checkVerifies(*module, "importGraphJson");
  }
  return 0;
}

int fuzzNpy(StringRef bytes) {
  llvm::Expected<kiln::HostTensor> tensor = kiln::parseNpy(bytes);
  if (!tensor) {
    llvm::consumeError(tensor.takeError());
    return 0;
  }
  std::string again = kiln::serializeNpy(*tensor);
  llvm::Expected<kiln::HostTensor> reread = kiln::parseNpy(again);
  if (!reread) {
    llvm::errs() << "parseNpy rejects what serializeNpy wrote: "
                 << llvm::toString(reread.takeError()) << "\n";
    std::abort();
  }
  if (reread->getDType() != tensor->getDType() ||
      reread->getShape() != tensor->getShape() ||
      kiln::serializeNpy(*reread) != again) {
    llvm::errs() << "a .npy tensor does not read back as it was written\n";
    std::abort();
  }
  return 0;
}
} // namespace kiln_fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  StringRef input(reinterpret_cast<const char *>(data), size);
#if defined(KILN_FUZZ_PARSE)
  return kiln_fuzz::fuzzParse(input);
#elif defined(KILN_FUZZ_GRAPH_JSON)
  return kiln_fuzz::fuzzGraphJson(input);
#elif defined(KILN_FUZZ_NPY)
  return kiln_fuzz::fuzzNpy(input);
#else
#error "define KILN_FUZZ_PARSE, KILN_FUZZ_GRAPH_JSON or KILN_FUZZ_NPY"
#endif
}
