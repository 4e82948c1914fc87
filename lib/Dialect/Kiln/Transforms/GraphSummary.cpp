//===- GraphSummary.cpp - Print a summary of kiln functions ---------------===//

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNGRAPHSUMMARYPASS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

/// Number of elements of a statically shaped tensor, 0 for anything else.
static int64_t numElements(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return 0;
  return tensor.getNumElements();
}

namespace {
struct KilnGraphSummaryPass
    : public kiln::impl::KilnGraphSummaryPassBase<KilnGraphSummaryPass> {
  using Base::Base;

  /// Opens the output file before the pass runs, so that an unwritable
  /// `output` is an error about the option rather than one at the module.
  LogicalResult initialize(MLIRContext *context) override {
    std::string error;
    file = openOutputFile(output, &error);
    if (!file)
      return emitError(UnknownLoc::get(context))
             << "kiln-graph-summary: output=" << output << ": " << error;
    return success();
  }

  void runOnOperation() override {
    raw_ostream &os = file->os();
    for (auto func : getOperation().getOps<func::FuncOp>())
      summarize(func, os);
    os.flush();
    file->keep();
  }

  void summarize(func::FuncOp func, raw_ostream &os) {
    FunctionType type = func.getFunctionType();
    int64_t argElements = 0;
    for (Type input : type.getInputs())
      argElements += numElements(input);
    os << "func @" << func.getSymName() << ": " << type.getNumInputs()
       << " args (" << argElements << " elements), " << type.getNumResults()
       << (type.getNumResults() == 1 ? " result\n" : " results\n");
    os << "  results:";
    llvm::interleaveComma(type.getResults(), os << ' ');
    os << "\n";

    // Insertion-ordered so the listing is deterministic (first use first).
    llvm::MapVector<StringRef, int64_t> counts;
    int64_t numKilnOps = 0;
    Value largest;
    func.walk([&](Operation *op) {
      if (!isa<KilnDialect>(op->getDialect()))
        return;
      ++numKilnOps;
      ++counts[op->getName().stripDialect()];
      for (Value result : op->getResults())
        if (!largest ||
            numElements(result.getType()) > numElements(largest.getType()))
          largest = result;
    });
    os << "  ops: " << numKilnOps << " kiln";
    if (!counts.empty()) {
      os << " (";
      llvm::interleaveComma(counts, os, [&](const auto &entry) {
        os << entry.first << ' ' << entry.second;
      });
      os << ')';
    }
    os << "\n";
    if (largest)
      os << "  largest value: " << largest.getType() << " ("
         << numElements(largest.getType()) << " elements) from "
         << largest.getDefiningOp()->getName() << "\n";
  }

  /// The summary's destination, opened by initialize; shared by the clones
  /// of the pass.
  std::shared_ptr<llvm::ToolOutputFile> file;
};

} // namespace
