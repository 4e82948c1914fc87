//===- Coverage.h - The kiln op coverage matrix ----------------*- C++ -*-===//
//
// Builds the op coverage matrix from the code itself: the ops registered by
// the kiln dialect, the ODS records of those ops (as dumped by
// `llvm-tblgen --dump-json`), the lowering and autodiff hooks linked into
// Kiln, and the numerical fixtures the tests read.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_COVERAGE_H
#define KILN_TOOLS_COVERAGE_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace mlir::kiln {

/// One row of the coverage matrix.
struct OpCoverage {
  /// Full op name, e.g. `kiln.add`.
  std::string name;
  std::string summary;
  /// `custom` (a C++ verifier), `inferred` (result type inference checks the
  /// operands), or `constraints` (ODS type constraints only).
  std::string verifier;
  /// `fold`, `canonicalize`, `fold+canonicalize`, or empty.
  std::string folder;
  /// What kiln-autodiff does with the op.
  enum class Backward {
    /// No AutodiffOpInterface: kiln-autodiff rejects the op.
    None,
    /// A rule builds the operands' adjoints.
    Rule,
    /// Declared non-differentiable: its results are never active, so no
    /// adjoint flows through it (comparisons, argmax, iota, ...).
    NonDifferentiable,
  };
  Backward backward = Backward::None;
  bool cpuLowering = false;
  bool gpuLowering = false;
  bool numericalTest = false;
};

/// Collects one row per op that the kiln dialect registers in `context`.
/// `recordsJson` is the text of the ODS record dump; `numericalOps` lists the
/// ops named by numerical fixtures; `cpuOps` and `gpuOps` the ops that
/// kiln-lower-to-cpu and kiln-lower-to-nvvm lowered (collectOpsLoweredToCPU
/// and collectOpsLoweredToGPU). Fails with a message in `error` when the
/// records are malformed or disagree with the registered ops.
LogicalResult collectCoverage(MLIRContext &context, StringRef recordsJson,
                              ArrayRef<std::string> numericalOps,
                              std::vector<OpCoverage> &rows, std::string &error,
                              ArrayRef<std::string> cpuOps = {},
                              ArrayRef<std::string> gpuOps = {});

/// Returns every `"op": "kiln.*"` string found in the JSON text `fixture`
/// (any depth). Malformed JSON yields an error.
LogicalResult collectFixtureOps(StringRef fixture,
                                std::vector<std::string> &ops,
                                std::string &error);

/// Renders the matrix as pretty-printed JSON (sorted, deterministic).
std::string renderCoverageJson(ArrayRef<OpCoverage> rows);

/// Renders the matrix as a Markdown table with a totals line.
std::string renderCoverageMarkdown(ArrayRef<OpCoverage> rows);

} // namespace mlir::kiln

#endif // KILN_TOOLS_COVERAGE_H
