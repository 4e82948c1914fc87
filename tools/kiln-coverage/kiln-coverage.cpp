//===- kiln-coverage.cpp - Generate the kiln op coverage matrix -----------===//
//
// Usage:
//   kiln-coverage --records KilnOps.records.json [--fixtures DIR]...
//                 [--json FILE] [--markdown FILE]
//
// Writes the coverage matrix (see kiln/Tools/Coverage.h) as JSON and/or
// Markdown. With --check, compares against the given files instead of
// writing them and exits non-zero when they are stale.
//
//===----------------------------------------------------------------------===//

#include "kiln/InitAll.h"
#include "kiln/Pipelines/Pipelines.h"
#include "kiln/Tools/Coverage.h"

#include "ToolVersion.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace llvm;

static cl::OptionCategory kilnCoverageCategory("kiln-coverage options");

static cl::opt<std::string> recordsPath("records", cl::Required,
                                        cl::cat(kilnCoverageCategory), cl::desc("ODS record dump (JSON)"));
static cl::list<std::string>
    fixtureDirs("fixtures", cl::cat(kilnCoverageCategory), cl::desc("Directory of numerical fixtures (JSON)"));
static cl::list<std::string> instances(
    "instances", cl::cat(kilnCoverageCategory),
    cl::desc("MLIR file of kiln functions to lower through "
             "kiln-lower-to-cpu and kiln-lower-to-nvvm; the ops of a file "
             "that lowers fill that pipeline's column"));
static cl::opt<std::string> jsonPath("json", cl::cat(kilnCoverageCategory), cl::desc("JSON output file"));
static cl::opt<std::string> markdownPath("markdown",
                                         cl::cat(kilnCoverageCategory), cl::desc("Markdown output file"));
static cl::opt<bool> check("check",
                           cl::cat(kilnCoverageCategory), cl::desc("Fail if the outputs differ from the "
                                    "files instead of writing them"));

static int fail(const Twine &message) {
  WithColor::error(errs(), "kiln-coverage") << message << "\n";
  return 1;
}

/// Writes `text` to `path`, or with --check compares it; returns an exit code.
static int emit(StringRef path, StringRef text) {
  if (path.empty())
    return 0;
  if (check) {
    auto existing = MemoryBuffer::getFile(path, /*IsText=*/true);
    if (!existing || (*existing)->getBuffer() != text)
      return fail(path + " is stale: regenerate it with "
                         "`cmake --build build --target kiln-update-coverage`");
    return 0;
  }
  std::error_code ec;
  raw_fd_ostream os(path, ec);
  if (ec)
    return fail("cannot write " + path + ": " + ec.message());
  os << text;
  return 0;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(kilnCoverageCategory);
  mlir::kiln::tools::addKilnVersionPrinter();
  cl::ParseCommandLineOptions(argc, argv, "Kiln op coverage matrix\n");

  auto records = MemoryBuffer::getFile(recordsPath, /*IsText=*/true);
  if (!records)
    return fail("cannot read " + recordsPath + ": " +
                records.getError().message());

  // Every fixture file under the given directories, in sorted order.
  std::vector<std::string> numericalOps;
  for (const std::string &dir : fixtureDirs) {
    std::error_code ec;
    std::vector<std::string> files;
    for (sys::fs::recursive_directory_iterator it(dir, ec), end;
         it != end && !ec; it.increment(ec))
      if (sys::path::extension(it->path()) == ".json")
        files.push_back(it->path());
    if (ec)
      return fail("cannot list " + dir + ": " + ec.message());
    std::sort(files.begin(), files.end());
    for (const std::string &file : files) {
      auto buffer = MemoryBuffer::getFile(file, /*IsText=*/true);
      if (!buffer)
        return fail("cannot read " + file);
      std::string error;
      if (failed(mlir::kiln::collectFixtureOps((*buffer)->getBuffer(),
                                               numericalOps, error)))
        return fail(file + ": " + error);
    }
  }

  mlir::DialectRegistry registry;
  mlir::kiln::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  // The CPU and GPU columns: what each pipeline really lowers. A file that
  // fails contributes nothing to that column (and says why), so the matrix
  // shows the gap.
  std::vector<std::string> cpuOps, gpuOps;
  context.loadAllAvailableDialects();
  for (const std::string &file : instances) {
    llvm::SourceMgr sourceMgr;
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceFile<mlir::ModuleOp>(file, sourceMgr,
                                              mlir::ParserConfig(&context));
    if (!module)
      return fail("cannot parse " + file);
    std::string error;
    if (failed(mlir::kiln::collectOpsLoweredToCPU(*module, cpuOps, error)))
      WithColor::warning(errs(), "kiln-coverage")
          << file << " does not lower to the CPU:\n"
          << error;
    error.clear();
    if (failed(mlir::kiln::collectOpsLoweredToGPU(*module, gpuOps, error)))
      WithColor::warning(errs(), "kiln-coverage")
          << file << " does not lower to PTX:\n"
          << error;
  }

  std::vector<mlir::kiln::OpCoverage> rows;
  std::string error;
  if (failed(mlir::kiln::collectCoverage(context, (*records)->getBuffer(),
                                         numericalOps, rows, error, cpuOps,
                                         gpuOps)))
    return fail(error);

  if (int rc = emit(jsonPath, mlir::kiln::renderCoverageJson(rows)))
    return rc;
  return emit(markdownPath, mlir::kiln::renderCoverageMarkdown(rows));
}
