//===- ToolSupport.h - What Kiln's command-line tools share -----*- C++ -*-===//
//
// How the command-line tools report an error, read their input module and
// find options they would ignore, so that their messages stay alike. A header
// of inline functions rather than a library: it is a few lines over MLIR's
// parser, which every tool links already, and it is no part of Kiln's installed
// API.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_TOOLSUPPORT_H
#define KILN_TOOLS_TOOLSUPPORT_H

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <initializer_list>
#include <optional>
#include <string>

namespace mlir::kiln::tools {

/// Prints "<tool>: error: <message>" to stderr and returns the exit code 1.
inline int reportError(llvm::StringRef tool, const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), tool) << message << "\n";
  return 1;
}

/// Registers the command-line options of MLIR's context, pass manager,
/// timing and printer (--mlir-print-ir-after-all, --mlir-timing,
/// --mlir-print-debuginfo, ...), which kiln-opt has through MlirOptMain.
/// A pass manager takes them with applyPassManagerCLOptions and
/// applyDefaultTimingPassManagerCLOptions.
inline void registerMLIRDebugCLOptions() {
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  registerAsmPrinterCLOptions();
}

/// The first of `options` given on the command line, or null. The tools
/// reject an option that the rest of the command line makes them ignore
/// (say, a GPU option with a CPU target) rather than ignore it.
inline llvm::cl::Option *
findGivenOption(std::initializer_list<llvm::cl::Option *> options) {
  for (llvm::cl::Option *option : options)
    if (option->getNumOccurrences())
      return option;
  return nullptr;
}

/// The module of a tool's input file. It owns the source buffer and the
/// handler that prints each diagnostic with its source line, so it must
/// live as long as anything (the pipeline included) may report an error at
/// a location in the file.
class InputModule {
public:
  explicit InputModule(MLIRContext &context) : context(context) {}

  /// Opens `path` ("-" is stdin) and parses its module. Returns null once
  /// the error is printed: "<tool>: error: ..." for a file that cannot be
  /// read, the parser's diagnostics for one that does not parse.
  OwningOpRef<ModuleOp> parse(llvm::StringRef tool, llvm::StringRef path) {
    std::string errorMessage;
    std::unique_ptr<llvm::MemoryBuffer> file =
        openInputFile(path, &errorMessage);
    if (!file) {
      reportError(tool, errorMessage);
      return nullptr;
    }
    sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    diagnostics.emplace(sourceMgr, &context);
    return parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  }

private:
  MLIRContext &context;
  llvm::SourceMgr sourceMgr;
  std::optional<SourceMgrDiagnosticHandler> diagnostics;
};

} // namespace mlir::kiln::tools

#endif // KILN_TOOLS_TOOLSUPPORT_H
