//===- DiagnosticCollector.h - Diagnostics captured by a unit test --------===//
//
// Shared by the GoogleTests that check which error a compile reports.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TEST_UNITTESTS_DIAGNOSTICCOLLECTOR_H
#define KILN_TEST_UNITTESTS_DIAGNOSTICCOLLECTOR_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <string>

namespace mlir::kiln::test {

/// Collects the error messages emitted while it lives.
struct DiagnosticCollector {
  explicit DiagnosticCollector(MLIRContext &context)
      : handler(&context, [this](Diagnostic &diagnostic) {
          messages.push_back(diagnostic.str());
          return success();
        }) {}
  std::string all() const { return llvm::join(messages, "\n"); }

  llvm::SmallVector<std::string> messages;
  ScopedDiagnosticHandler handler;
};

} // namespace mlir::kiln::test

#endif // KILN_TEST_UNITTESTS_DIAGNOSTICCOLLECTOR_H
