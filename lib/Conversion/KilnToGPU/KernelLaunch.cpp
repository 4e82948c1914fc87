//===- KernelLaunch.cpp - the launches of the attention kernels -----------===//
//
// The gpu.launch that every attention kernel starts from, with its workgroup
// tiles carved out of the dynamic shared memory. See AttentionKernels.h.
//
//===----------------------------------------------------------------------===//

#include "AttentionKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::kiln;

/// The alignment of every tile in the dynamic shared memory: what ldmatrix
/// needs of each row address and 16-byte shared accesses of theirs.
static constexpr int64_t kTileAlignment = 16;

void kiln::setMinBlocksPerSM(gpu::LaunchOp launch, unsigned blocks) {
  if (blocks == 0)
    return;
  Builder b(launch.getContext());
  launch->setAttr(KilnDialect::KernelAttributesAttrHelper::getNameStr(),
                  b.getDictionaryAttr(b.getNamedAttr(
                      NVVM::NVVMDialect::getMinctasmAttrName(),
                      b.getI32IntegerAttr(static_cast<int32_t>(blocks)))));
}

gpu::LaunchOp
kiln::buildKernelLaunch(OpBuilder &b, Location loc, std::array<int64_t, 3> grid,
                        int64_t threads, ArrayRef<MemRefType> tiles,
                        TypeRange privates, SmallVectorImpl<Value> &tileViews) {
  SmallVector<int64_t> offsets;
  int64_t bytes = 0;
  for (MemRefType tile : tiles) {
    assert(tile.hasStaticShape() && tile.getLayout().isIdentity() &&
           "a workgroup tile needs a static shape and an identity layout");
    offsets.push_back(bytes);
    int64_t tileBytes = tile.getNumElements() *
                        llvm::divideCeil(tile.getElementTypeBitWidth(), 8);
    bytes = llvm::alignTo(bytes + tileBytes, kTileAlignment);
  }

  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  Value sharedBytes;
  if (bytes > 0)
    sharedBytes = arith::ConstantIntOp::create(b, loc, b.getI32Type(), bytes);
  Value one = index(1);
  auto launch = gpu::LaunchOp::create(
      b, loc, index(grid[0]), index(grid[1]), index(grid[2]), index(threads),
      one, one, sharedBytes, /*asyncTokenType=*/nullptr,
      /*asyncDependencies=*/{}, /*workgroupAttributions=*/{}, privates);
  if (tiles.empty())
    return launch;

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&launch.getBody().front());
  Attribute workgroup = tiles.front().getMemorySpace();
  Value shared = gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                      MemRefLayoutAttrInterface(), workgroup));
  for (auto [tile, offset] : llvm::zip_equal(tiles, offsets)) {
    assert(tile.getMemorySpace() == workgroup &&
           "every tile lives in workgroup memory");
    tileViews.push_back(memref::ViewOp::create(b, loc, tile, shared,
                                               index(offset),
                                               /*sizes=*/ValueRange{}));
  }
  return launch;
}
