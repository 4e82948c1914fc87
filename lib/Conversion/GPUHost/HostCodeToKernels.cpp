//===- HostCodeToKernels.cpp - one-thread kernels and the host check ------===//
//
// kiln-gpu-host-code-to-kernels moves the host code that still reads or
// writes buffers into one-thread gpu.launch ops; kiln-gpu-check-host-code
// checks that none is left.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/GPUHost/Passes.h"

#include "Utils.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNGPUHOSTCODETOKERNELSPASS
#define GEN_PASS_DEF_KILNGPUCHECKHOSTCODEPASS
#include "kiln/Conversion/GPUHost/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

/// Whether `op` itself (not its regions) reads or writes the contents of a
/// buffer. `gpu` dialect ops are calls into the runtime, which handles
/// device memory, so they never count.
static bool dereferencesBuffer(Operation *op) {
  if (isa<gpu::GPUDialect>(op->getDialect()))
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::any_of(instances, [](const MemoryEffects::EffectInstance &e) {
    if (!isa<MemoryEffects::Read, MemoryEffects::Write>(e.getEffect()))
      return false;
    // An effect on no particular value may touch any buffer.
    Value value = e.getValue();
    return !value || isa<BaseMemRefType>(value.getType());
  });
}

/// Whether `op` or an op in its regions dereferences a buffer outside a
/// `gpu.launch`.
static bool dereferencesBufferOnHost(Operation *op) {
  return op
      ->walk<WalkOrder::PreOrder>([](Operation *nested) {
        if (isa<gpu::LaunchOp>(nested))
          return WalkResult::skip();
        return dereferencesBuffer(nested) ? WalkResult::interrupt()
                                          : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Whether `op` holds, in its regions, an op that only the host can run: a
/// `gpu` dialect op (a launch, an allocation, a copy: calls into the
/// runtime) or a heap allocation or deallocation.
static bool containsHostOnlyOp(Operation *op) {
  return op
      ->walk([&](Operation *nested) {
        if (nested != op && (isa<gpu::GPUDialect>(nested->getDialect()) ||
                             isa<memref::AllocOp, memref::DeallocOp>(nested)))
          return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// Whether `op` may run inside a one-thread kernel: nothing host-only in
/// it, no buffer results (views and allocations stay on the host), not a
/// terminator. A loop whose body allocates stays on the host even without
/// launches (its parallel loops may all have folded away for unit sizes);
/// its body is split into kernels instead.
static bool canMoveToKernel(Operation *op) {
  return !op->hasTrait<OpTrait::IsTerminator>() && !containsHostOnlyOp(op) &&
         !isa<gpu::GPUDialect>(op->getDialect()) &&
         llvm::none_of(op->getResultTypes(), llvm::IsaPred<BaseMemRefType>);
}

namespace {

struct KilnGPUHostCodeToKernelsPass
    : kiln::impl::KilnGPUHostCodeToKernelsPassBase<
          KilnGPUHostCodeToKernelsPass> {
  void runOnOperation() override {
    SmallVector<Block *> worklist;
    for (Block &block : getOperation().getBody())
      worklist.push_back(&block);
    while (!worklist.empty()) {
      Block *block = worklist.pop_back_val();
      for (Operation *op = &block->front(); op;) {
        if (isa<gpu::LaunchOp>(op) || !dereferencesBufferOnHost(op)) {
          op = op->getNextNode();
          continue;
        }
        if (!canMoveToKernel(op)) {
          // Host control flow around launches: look inside.
          for (Region &region : op->getRegions())
            for (Block &nested : region)
              worklist.push_back(&nested);
          op = op->getNextNode();
          continue;
        }
        FailureOr<Operation *> next = moveToKernel(op);
        if (failed(next))
          return signalPassFailure();
        op = *next;
      }
    }
  }

  /// Moves `first` and the ops after it that dereference buffers or use
  /// its results into one one-thread gpu.launch. Returns the op after the
  /// launch.
  FailureOr<Operation *> moveToKernel(Operation *first) {
    SetVector<Operation *> group;
    group.insert(first);
    for (Operation *op = first->getNextNode(); op && canMoveToKernel(op);
         op = op->getNextNode()) {
      bool usesGroup = llvm::any_of(op->getOperands(), [&](Value operand) {
        Operation *def = operand.getDefiningOp();
        return def && group.contains(def);
      });
      if (!usesGroup && !dereferencesBufferOnHost(op))
        break;
      group.insert(op);
    }

    // Results used after the group leave the kernel through device
    // buffers.
    SmallVector<Value> escaping;
    for (Operation *op : group)
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(), [&](Operation *user) {
              return !group.contains(user);
            }))
          escaping.push_back(result);

    Location loc = first->getLoc();
    OpBuilder builder(first);
    SmallVector<Value> buffers;
    for (Value value : escaping)
      buffers.push_back(
          gpu::AllocOp::create(builder, loc, MemRefType::get({}, value.getType()),
                               /*asyncToken=*/Type(), ValueRange(),
                               ValueRange(), ValueRange(), /*hostShared=*/false)
              .getMemref());
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    auto launch =
        gpu::LaunchOp::create(builder, loc, one, one, one, one, one, one);
    Block &body = launch.getBody().front();
    builder.setInsertionPointToEnd(&body);
    auto terminator = gpu::TerminatorOp::create(builder, loc);
    for (Operation *op : group)
      op->moveBefore(terminator);
    builder.setInsertionPoint(terminator);
    for (auto [value, buffer] : llvm::zip(escaping, buffers))
      memref::StoreOp::create(builder, loc, value, buffer, ValueRange());

    // Each launch that uses an escaping value reloads it once.
    for (auto [value, buffer] : llvm::zip(escaping, buffers)) {
      DenseMap<Operation *, Value> reloaded;
      for (OpOperand &use : llvm::make_early_inc_range(value.getUses())) {
        Operation *user = use.getOwner();
        if (user->getParentOfType<gpu::LaunchOp>() == launch)
          continue;
        auto userLaunch = user->getParentOfType<gpu::LaunchOp>();
        if (!userLaunch && canMoveToKernel(user)) {
          // A later host op that a kernel can run (e.g. scalar code on a
          // value read from a buffer, left behind when an allocation ended
          // the group): it reads the value back from the buffer, which
          // makes it host code that dereferences a buffer, so the walk
          // moves it into a kernel of its own when it gets there.
          OpBuilder reload(user);
          use.set(memref::LoadOp::create(reload, loc, buffer, ValueRange()));
          continue;
        }
        if (!userLaunch) {
          InFlightDiagnostic diag =
              user->emitOpError()
              << "uses a value that only a kernel can compute (it reads "
                 "device memory), but runs on the host";
          diag.attachNote(value.getLoc()) << "the value is computed here";
          return failure();
        }
        Value &copy = reloaded[userLaunch];
        if (!copy) {
          OpBuilder reload =
              OpBuilder::atBlockBegin(&userLaunch.getBody().front());
          copy = memref::LoadOp::create(reload, loc, buffer, ValueRange());
        }
        use.set(copy);
      }
      OpBuilder free(launch->getBlock(), getEndOfBody(launch->getBlock()));
      gpu::DeallocOp::create(free, loc, /*asyncToken=*/Type(), ValueRange(),
                             buffer);
    }
    return launch->getNextNode();
  }
};

struct KilnGPUCheckHostCodePass
    : kiln::impl::KilnGPUCheckHostCodePassBase<KilnGPUCheckHostCodePass> {
  void runOnOperation() override {
    bool ok = true;
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::LaunchOp, gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      if (isa<memref::AllocOp, memref::AllocaOp>(op)) {
        op->emitOpError() << "allocates a host buffer, but kernels can only "
                             "read device buffers (use gpu.alloc)";
        ok = false;
      } else if (dereferencesBuffer(op)) {
        op->emitOpError() << "dereferences a buffer on the host, but every "
                             "buffer is device memory here";
        ok = false;
      }
      return WalkResult::advance();
    });
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
