//===- HostToDevice.cpp - kiln-gpu-host-to-device --------------------------===//
//
// Moves the buffers of bufferized host code to the device: allocations,
// deallocations, constant globals and copies.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/GPUHost/Passes.h"

#include "Utils.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNGPUHOSTTODEVICEPASS
#include "kiln/Conversion/GPUHost/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

struct KilnGPUHostToDevicePass
    : kiln::impl::KilnGPUHostToDevicePassBase<KilnGPUHostToDevicePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<memref::AllocOp, memref::DeallocOp, memref::GetGlobalOp,
              memref::CopyOp>(op) &&
          isHostCode(op))
        ops.push_back(op);
    });

    SymbolTableCollection symbols;
    IRRewriter rewriter(&getContext());
    for (Operation *op : ops) {
      rewriter.setInsertionPoint(op);
      Location loc = op->getLoc();
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        auto device = gpu::AllocOp::create(
            rewriter, loc, alloc.getType(), /*asyncToken=*/Type(),
            /*asyncDependencies=*/ValueRange(), alloc.getDynamicSizes(),
            alloc.getSymbolOperands(), /*hostShared=*/false);
        rewriter.replaceOp(alloc, device.getMemref());
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        gpu::DeallocOp::create(rewriter, loc, /*asyncToken=*/Type(),
                               ValueRange(), dealloc.getMemref());
        rewriter.eraseOp(dealloc);
      } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        rewriter.replaceOpWithNewOp<linalg::CopyOp>(
            copy, ValueRange{copy.getSource()}, ValueRange{copy.getTarget()});
      } else if (auto getGlobal = dyn_cast<memref::GetGlobalOp>(op)) {
        auto global = symbols.lookupNearestSymbolFrom<memref::GlobalOp>(
            getGlobal, getGlobal.getNameAttr());
        if (!global || !global.getConstant()) {
          getGlobal.emitOpError()
              << "reads the mutable global " << getGlobal.getNameAttr()
              << ", which cannot be copied to the device";
          return signalPassFailure();
        }
        // A device copy of the constant, filled from the host global, for
        // the uses in the rest of the block; freed at the block's end.
        MemRefType type = getGlobal.getType();
        rewriter.setInsertionPointAfter(getGlobal);
        auto device = gpu::AllocOp::create(
            rewriter, loc, type, /*asyncToken=*/Type(), ValueRange(),
            ValueRange(), ValueRange(), /*hostShared=*/false);
        Value buffer = device.getMemref();
        rewriter.replaceAllUsesWith(getGlobal.getResult(), buffer);
        gpu::MemcpyOp::create(rewriter, loc, /*asyncToken=*/Type(),
                              ValueRange(), buffer, getGlobal.getResult());
        Block *block = getGlobal->getBlock();
        rewriter.setInsertionPoint(block, getEndOfBody(block));
        gpu::DeallocOp::create(rewriter, loc, /*asyncToken=*/Type(),
                               ValueRange(), buffer);
      }
    }
  }
};

} // namespace
