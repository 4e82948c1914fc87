//===- kiln-translate.cpp - Kiln's translation driver ---------------------===//
//
// An mlirTranslateMain driver with the JSON model-graph translations
// (docs/GraphJson.md):
//
//   kiln-translate --import-graph-json graph.json     JSON -> kiln IR
//       [--lift-parameters]                            parameters as arguments
//   kiln-translate --export-graph-json graph.mlir     kiln IR -> JSON
//       [--graph-json-export-weights-dir DIR]          parameters as DIR/*.npy
//
// `"file"` weights of an imported graph are read relative to the JSON file's
// directory (or --graph-json-weights-dir).
//
//===----------------------------------------------------------------------===//

#include "kiln/InitAll.h"
#include "kiln/Target/GraphJson.h"

#include "ToolSupport.h"
#include "ToolVersion.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

static llvm::cl::opt<std::string> weightsDir(
    "graph-json-weights-dir",
    llvm::cl::desc("Directory of the .npy weights of --import-graph-json "
                   "(default: the JSON file's directory)"),
    llvm::cl::init(""));

static llvm::cl::opt<bool> liftParameters(
    "lift-parameters",
    llvm::cl::desc("--import-graph-json makes the parameters the function's "
                   "leading arguments (named by kiln.parameter argument "
                   "attributes) instead of constants"),
    llvm::cl::init(false));

static llvm::cl::opt<std::string> exportWeightsDir(
    "graph-json-export-weights-dir",
    llvm::cl::desc("--export-graph-json writes the parameters as .npy files "
                   "here (the directory the JSON goes to) instead of inline"),
    llvm::cl::init(""));

static llvm::cl::opt<int64_t> exportMinFileElements(
    "graph-json-export-min-file-elements",
    llvm::cl::desc("With --graph-json-export-weights-dir, parameters with "
                   "fewer elements stay inline"),
    llvm::cl::init(1));

static constexpr llvm::StringLiteral kToolName = "kiln-translate";

/// Fails with an error when one of `options`, which the other translation
/// reads, was given: it would be ignored.
static LogicalResult
checkOptionsOf(StringRef translation,
               std::initializer_list<llvm::cl::Option *> options) {
  if (llvm::cl::Option *option = kiln::tools::findGivenOption(options)) {
    kiln::tools::reportError(
        kToolName, "--" + option->ArgStr + " does nothing with " + translation);
    return failure();
  }
  return success();
}

static void registerGraphJsonTranslations() {
  TranslateToMLIRRegistration importGraph(
      "import-graph-json", "import a JSON model graph as kiln IR",
      [](llvm::SourceMgr &sourceMgr,
         MLIRContext *context) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        StringRef file = buffer->getBufferIdentifier();
        if (failed(checkOptionsOf("--import-graph-json",
                                  {&exportWeightsDir, &exportMinFileElements})))
          return nullptr;
        Location loc = FileLineColLoc::get(context, file, 0, 0);
        kiln::GraphJsonImportOptions options;
        options.liftParameters = liftParameters;
        if (!weightsDir.empty())
          options.weightsDir = weightsDir;
        else {
          StringRef parent = llvm::sys::path::parent_path(file);
          options.weightsDir = parent.empty() ? "." : parent.str();
        }
        OwningOpRef<ModuleOp> module =
            kiln::importGraphJson(buffer->getBuffer(), context, loc, options);
        if (!module)
          return nullptr;
        return OwningOpRef<Operation *>(module.release());
      },
      [](DialectRegistry &registry) { kiln::registerAllDialects(registry); });

  TranslateFromMLIRRegistration exportGraph(
      "export-graph-json", "export kiln IR as a JSON model graph",
      [](Operation *op, raw_ostream &os) -> LogicalResult {
        if (failed(checkOptionsOf("--export-graph-json",
                                  {&weightsDir, &liftParameters})))
          return failure();
        if (exportMinFileElements < 0) {
          kiln::tools::reportError(
              kToolName,
              "--graph-json-export-min-file-elements must not be "
              "negative, got " +
                  Twine(static_cast<int64_t>(exportMinFileElements)));
          return failure();
        }
        if (exportMinFileElements.getNumOccurrences() &&
            exportWeightsDir.empty()) {
          kiln::tools::reportError(
              kToolName, "--graph-json-export-min-file-elements needs "
                         "--graph-json-export-weights-dir");
          return failure();
        }
        kiln::GraphJsonExportOptions options;
        options.weightsDir = exportWeightsDir;
        options.minFileElements = exportMinFileElements;
        return kiln::exportGraphJson(op, os, options);
      },
      [](DialectRegistry &registry) { kiln::registerAllDialects(registry); });
}

int main(int argc, char **argv) {
  kiln::tools::addKilnVersionPrinter();
  registerGraphJsonTranslations();
  return failed(mlirTranslateMain(argc, argv, "Kiln translation driver"));
}
