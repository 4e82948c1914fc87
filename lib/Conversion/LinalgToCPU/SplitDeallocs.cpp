//===- SplitDeallocs.cpp - One dealloc per distinct allocation ------------===//
//
// kiln-split-deallocs: a bufferization.dealloc that retains nothing and
// frees only results of distinct memref.alloc ops becomes one dealloc per
// memref (see the pass description in include/kiln/Conversion/Passes.td).
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNSPLITDEALLOCSPASS
#include "kiln/Conversion/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;

namespace {

/// Whether `op` frees buffers that cannot alias one another and reports no
/// ownership: every memref the result of its own memref.alloc, none listed
/// twice, nothing retained.
bool freesDistinctAllocations(bufferization::DeallocOp op) {
  if (!op.getRetained().empty() || op.getMemrefs().size() < 2)
    return false;
  llvm::SmallPtrSet<Operation *, 16> allocations;
  for (Value memref : op.getMemrefs()) {
    auto alloc = memref.getDefiningOp<memref::AllocOp>();
    if (!alloc || !allocations.insert(alloc).second)
      return false;
  }
  return true;
}

struct KilnSplitDeallocsPass
    : public kiln::impl::KilnSplitDeallocsPassBase<KilnSplitDeallocsPass> {
  void runOnOperation() override {
    SmallVector<bufferization::DeallocOp> ops;
    getOperation().walk([&](bufferization::DeallocOp op) {
      if (freesDistinctAllocations(op))
        ops.push_back(op);
    });
    for (bufferization::DeallocOp op : ops) {
      OpBuilder builder(op);
      for (auto [memref, condition] :
           llvm::zip_equal(op.getMemrefs(), op.getConditions()))
        bufferization::DeallocOp::create(builder, op.getLoc(),
                                         ValueRange{memref},
                                         ValueRange{condition}, ValueRange{});
      op.erase();
    }
  }
};

} // namespace
