//===- MapParallelLoops.cpp - kiln-gpu-map-parallel-loops ------------------===//
//
// Collapses each outermost host scf.parallel into one dimension, tiles it by
// the block size and maps the tiles to blocks, the points to threads.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/GPUHost/Passes.h"

#include "Utils.h"

#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNGPUMAPPARALLELLOOPSPASS
#include "kiln/Conversion/GPUHost/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

/// The static trip count of `loop` (the product over its dimensions), or
/// nullopt when a bound or step is not a constant.
static std::optional<int64_t> getStaticTripCount(scf::ParallelOp loop) {
  int64_t count = 1;
  for (auto [lb, ub, step] : llvm::zip(loop.getLowerBound(),
                                       loop.getUpperBound(), loop.getStep())) {
    std::optional<int64_t> l = getConstantIntValue(lb);
    std::optional<int64_t> u = getConstantIntValue(ub);
    std::optional<int64_t> s = getConstantIntValue(step);
    if (!l || !u || !s || *s <= 0)
      return std::nullopt;
    // A count that overflows int64_t is as good as unknown.
    int64_t span;
    if (llvm::SubOverflow(*u, *l, span))
      return std::nullopt;
    int64_t trips = span > 0 ? llvm::divideCeil(span, *s) : 0;
    if (llvm::MulOverflow(count, trips, count))
      return std::nullopt;
  }
  return count;
}

/// Maps every dimension of `loop` to `processor`.
static LogicalResult mapTo(scf::ParallelOp loop, gpu::Processor processor) {
  MLIRContext *context = loop.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(1, context);
  SmallVector<gpu::ParallelLoopDimMappingAttr> mapping(
      loop.getNumLoops(),
      gpu::ParallelLoopDimMappingAttr::get(context, processor, identity,
                                           identity));
  return gpu::setMappingAttr(loop, mapping);
}

/// The most threads a CUDA block can have (every compute capability).
static constexpr int64_t kMaxThreadsPerBlock = 1024;

namespace {

struct KilnGPUMapParallelLoopsPass
    : kiln::impl::KilnGPUMapParallelLoopsPassBase<
          KilnGPUMapParallelLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    // CUDA runs at most 1024 threads per block; a larger block would fail
    // every launch at run time.
    if (blockSize <= 0 || blockSize > kMaxThreadsPerBlock) {
      getOperation().emitError()
          << "kiln-gpu-map-parallel-loops: block-size must be in [1, "
          << kMaxThreadsPerBlock << "], got "
          << static_cast<int64_t>(blockSize);
      return signalPassFailure();
    }
    SmallVector<scf::ParallelOp> roots;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>() && isHostCode(loop))
        roots.push_back(loop);
    });

    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp root : roots) {
      std::optional<int64_t> tripCount = getStaticTripCount(root);
      if (tripCount && *tripCount == 0) {
        rewriter.eraseOp(root);
        continue;
      }

      // One dimension, the last (contiguous) one varying fastest. The loop
      // is rebuilt in place of `root`, right before the op after it (or
      // last in a block without terminator).
      scf::ParallelOp loop = root;
      if (root.getNumLoops() > 1) {
        Block *block = root->getBlock();
        Operation *next = root->getNextNode();
        std::vector<unsigned> dims(root.getNumLoops());
        std::iota(dims.begin(), dims.end(), 0);
        collapseParallelLoops(rewriter, root, {dims});
        loop = cast<scf::ParallelOp>(next ? next->getPrevNode()
                                          : &block->back());
      }

      // Tiles of one block each; a static trip count below the block size
      // gives one smaller block. The point loop keeps a constant bound (the
      // block size) and guards its body, as convert-parallel-loops-to-gpu
      // needs a constant block size.
      int64_t tile = tripCount ? std::min<int64_t>(blockSize, *tripCount)
                               : int64_t(blockSize);
      auto [outer, inner] =
          scf::tileParallelLoop(loop, {tile}, /*noMinMaxBounds=*/true);
      if (failed(mapTo(outer, gpu::Processor::BlockX)) ||
          failed(mapTo(inner, gpu::Processor::ThreadX)))
        return signalPassFailure();
      // Deeper parallel loops run in their thread.
      inner.getBody()->walk([&](scf::ParallelOp nested) {
        (void)mapTo(nested, gpu::Processor::Sequential);
      });
    }
  }
};

} // namespace
