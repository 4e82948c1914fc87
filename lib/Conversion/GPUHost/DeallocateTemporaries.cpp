//===- DeallocateTemporaries.cpp - kiln-gpu-deallocate-temporaries --------===//
//
// Frees each host temporary at the end of its block (see Passes.td for why
// the GPU pipeline does not use ownership-based buffer deallocation).
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/GPUHost/Passes.h"

#include "Utils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNGPUDEALLOCATETEMPORARIESPASS
#include "kiln/Conversion/GPUHost/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

/// Whether `alloc`'s buffer can outlive its block: it, or a view of it,
/// is an operand of a terminator (returned or yielded).
static bool escapesBlock(memref::AllocOp alloc) {
  SmallVector<Value> worklist = {alloc.getResult()};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (user->hasTrait<OpTrait::IsTerminator>())
        return true;
      if (auto view = dyn_cast<ViewLikeOpInterface>(user))
        if (view.getViewSource() == value)
          llvm::append_range(worklist, user->getResults());
    }
  }
  return false;
}

namespace {

struct KilnGPUDeallocateTemporariesPass
    : kiln::impl::KilnGPUDeallocateTemporariesPassBase<
          KilnGPUDeallocateTemporariesPass> {
  void runOnOperation() override {
    SmallVector<memref::AllocOp> allocs;
    getOperation().walk([&](memref::AllocOp alloc) {
      if (isHostCode(alloc) && !escapesBlock(alloc))
        allocs.push_back(alloc);
    });
    for (memref::AllocOp alloc : allocs) {
      Block *block = alloc->getBlock();
      OpBuilder builder(block, getEndOfBody(block));
      memref::DeallocOp::create(builder, alloc.getLoc(), alloc.getResult());
    }
  }
};

} // namespace
