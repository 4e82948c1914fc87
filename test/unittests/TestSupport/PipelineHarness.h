//===- PipelineHarness.h - Run pass pipelines in unit tests -----*- C++ -*-===//
//
// The harness of the GoogleTests that run Kiln's pipelines on a module and
// check which ops they lower or which error they report.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TEST_UNITTESTS_TESTSUPPORT_PIPELINEHARNESS_H
#define KILN_TEST_UNITTESTS_TESTSUPPORT_PIPELINEHARNESS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"

#include <string>
#include <vector>

namespace mlir {
class PassManager;
} // namespace mlir

namespace mlir::kiln::test {

/// Registers every dialect Kiln uses (registerAllDialects) in `context` and
/// loads them.
void loadAllDialects(MLIRContext &context);

/// A module whose @f applies `kiln.not_lowered_yet`: an unregistered op of
/// the kiln namespace, which stands in for an op that nothing lowers.
/// Allows unregistered dialects in `context`.
OwningOpRef<ModuleOp> buildModuleWithUnloweredOp(MLIRContext &context);

/// The names of the kiln ops registered in `context` that `names` lacks, in
/// registration order.
std::vector<std::string> getKilnOpsMissingFrom(MLIRContext &context,
                                               const llvm::StringSet<> &names);

/// The outcome of runPasses.
struct PassRun {
  bool succeeded = false;
  /// Every diagnostic the passes emitted, in order.
  SmallVector<std::string> diagnostics;

  /// The diagnostics, one a line.
  std::string getDiagnostics() const;
};

/// Runs the passes `addPasses` adds on `module`, collecting the diagnostics
/// instead of printing them.
PassRun runPasses(ModuleOp module,
                  llvm::function_ref<void(PassManager &)> addPasses);

} // namespace mlir::kiln::test

#endif // KILN_TEST_UNITTESTS_TESTSUPPORT_PIPELINEHARNESS_H
