//===- AttentionForwardSimt.cpp - SIMT attention forward kernel -----------===//
//
// The SIMT kernel of kiln.attention's flash forward, for every dtype and
// every mask form (AttentionForward.cpp picks it where the tensor-core kernel
// does not apply): one thread per packed query row (RowTile), with its q
// row, its scores of the current key tile and its output accumulator in
// private memory and m and l in registers; all threads of a block stage each
// K/V tile in workgroup memory. A row's sink joins its m and l once, before
// O and LSE are stored. See docs/GPUAttention.md.
//
//===----------------------------------------------------------------------===//

#include "AttentionForward.h"
#include "AttentionKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <array>
#include <limits>
#include <optional>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::attention_forward;

/// Workgroup bytes the SIMT kernel's K and V tiles may take together.
constexpr int64_t kSimtTileBytes = 32 * 1024;

/// Keys per K/V tile of the SIMT kernel: the largest power of two <= 64
/// whose K and V tiles fit in kSimtTileBytes.
static int64_t getSimtKeyTile(const ForwardConfig &c) {
  FloatType element = c.elementType;
  int64_t rowBytes = (c.keyDim + c.valueDim) * element.getWidth() / 8;
  int64_t tile = 64;
  while (tile > 1 && tile * rowBytes > kSimtTileBytes)
    tile /= 2;
  return tile;
}

namespace {
/// The SIMT forward kernel being built: one block of kSimtRows threads per
/// (tile of packed rows, kv head, batch); thread t owns packed row
/// tile * kSimtRows + t, i.e. query row i of head h (RowTile): its q row,
/// its scores of the current key tile and its output accumulator in private
/// memory, m and l in registers. All threads stage each K/V tile in
/// workgroup memory. The phases emit the kernel in order.
struct SimtForwardKernel {
  SimtForwardKernel(OpBuilder &builder, Location loc, const ForwardConfig &c)
      : builder(builder), loc(loc), c(c), keyTile(getSimtKeyTile(c)),
        kb{{builder, loc}, c.computeType} {}

  void build();

private:
  gpu::LaunchOp buildLaunch();
  void bindThread(gpu::LaunchOp launch);
  void loadQueryRow();
  void stageTile(Value source, Value tile, int64_t dim, Value kt, Value count);
  Value buildTileScores(Value kt, Value count);
  SmallVector<Value> buildSoftmaxUpdate(Value kt, Value count, Value m,
                                        Value l, Value tileMax);
  SmallVector<Value> buildKeyTile(Value kt, ValueRange state);
  void storeOutput(Value m, Value l);

  OpBuilder &builder;
  Location loc;
  const ForwardConfig &c;
  int64_t rows = kSimtRows;
  int64_t keyTile;
  KernelBuilder kb;
  Value one, zero;
  // The launch's buffers and the thread's position.
  Value keyTileSmem, valueTileSmem, qRow, acc, scores;
  std::optional<RowTile> tile;
  Value b, g, tid, rowValid, h, i;
  AttentionDropout dropout;
  /// The end of the keys the block sees, and the K/V tile size.
  Value keyEnd, keyTileSize;
};
} // namespace

/// The gpu.launch with the K/V tiles in workgroup memory and the thread's q
/// row, accumulator and scores in private memory.
gpu::LaunchOp SimtForwardKernel::buildLaunch() {
  std::array<int64_t, 3> grid = RowTile::grid(c, rows);
  auto shared = gpu::AddressSpace::Workgroup;
  auto local = gpu::AddressSpace::Private;
  MemRefType tileTypes[] = {
      getGPUMemRefType({keyTile, c.keyDim}, c.elementType, shared),
      getGPUMemRefType({keyTile, c.valueDim}, c.elementType, shared)};
  SmallVector<Type> priv = {
      getGPUMemRefType({c.keyDim}, c.computeType, local),
      getGPUMemRefType({c.valueDim}, c.computeType, local),
      getGPUMemRefType({keyTile}, c.computeType, local)};
  SmallVector<Value> tileViews;
  gpu::LaunchOp launch =
      buildKernelLaunch(builder, loc, grid, rows, tileTypes, priv, tileViews);
  keyTileSmem = tileViews[0];
  valueTileSmem = tileViews[1];
  qRow = launch.getPrivateAttributions()[0];
  acc = launch.getPrivateAttributions()[1];
  scores = launch.getPrivateAttributions()[2];
  return launch;
}

/// The thread's row: batch, kv head, packed row, whether it is a row, its
/// head and query index; and the dropout.
void SimtForwardKernel::bindThread(gpu::LaunchOp launch) {
  tile = RowTile::get(kb, c, launch, rows);
  b = tile->batch;
  g = tile->kvHead;
  tid = launch.getThreadIds().x;
  zero = kb.index(0);
  Value packedRow = kb.add(tile->begin, tid);
  rowValid = kb.lt(packedRow, kb.index(tile->numPacked));
  std::tie(h, i) = tile->unpack(kb, c, packedRow);
  dropout = AttentionDropout::get(builder, loc, c, c.seed);
}

/// The q row in the compute type, and the accumulator at 0.
void SimtForwardKernel::loadQueryRow() {
  kb.ifThen(rowValid, [&] {
    kb.loop(zero, kb.index(c.keyDim), one, {}, [&](Value d, ValueRange) {
      Value x = memref::LoadOp::create(builder, loc, c.query,
                                       ValueRange{b, h, i, d});
      memref::StoreOp::create(builder, loc, kb.convert(x, c.computeType),
                              qRow, d);
      return SmallVector<Value>{};
    });
    kb.loop(zero, kb.index(c.valueDim), one, {}, [&](Value d, ValueRange) {
      memref::StoreOp::create(builder, loc, kb.fconst(0.0), acc, d);
      return SmallVector<Value>{};
    });
  });
}

/// Stages rows [kt, kt + count) of `source` (K or V of [b, g]) in `tile`,
/// all threads cooperatively (consecutive threads read consecutive
/// elements).
void SimtForwardKernel::stageTile(Value source, Value tileSmem, int64_t dim,
                                  Value kt, Value count) {
  kb.loop(tid, kb.index(keyTile * dim), kb.index(rows), {},
          [&](Value e, ValueRange) {
            Value dimValue = kb.index(dim);
            Value r = arith::DivUIOp::create(builder, loc, e, dimValue);
            Value d = arith::RemUIOp::create(builder, loc, e, dimValue);
            kb.ifThen(kb.lt(r, count), [&] {
              Value x = memref::LoadOp::create(
                  builder, loc, source, ValueRange{b, g, kb.add(kt, r), d});
              memref::StoreOp::create(builder, loc, x, tileSmem,
                                      ValueRange{r, d});
            });
            return SmallVector<Value>{};
          });
}

/// t[r] for the keys of the tile, stored in `scores`; returns their max.
Value SimtForwardKernel::buildTileScores(Value kt, Value count) {
  return kb
      .loop(zero, count, one, {kb.negInf()},
            [&](Value r, ValueRange mx) -> SmallVector<Value> {
              Value dot =
                  kb.loop(zero, kb.index(c.keyDim), one, {kb.fconst(0.0)},
                          [&](Value d, ValueRange sum) -> SmallVector<Value> {
                            Value k = memref::LoadOp::create(
                                builder, loc, keyTileSmem, ValueRange{r, d});
                            Value q =
                                memref::LoadOp::create(builder, loc, qRow, d);
                            return {kb.addf(
                                sum[0],
                                kb.mulf(q, kb.convert(k, c.computeType)))};
                          })
                      .getResult(0);
              Value t = buildLogit(kb, c, dot, b, h, i, kb.add(kt, r));
              memref::StoreOp::create(builder, loc, t, scores, r);
              return {arith::MaximumFOp::create(builder, loc, mx[0], t)};
            })
      .getResult(0);
}

/// Online softmax: rescale by exp(m - m'), where m' = max(m, tile max);
/// nothing to rescale while the row has seen no visible key. Then adds the
/// tile's p to l and its weighted V rows to the accumulator; returns
/// {m', l'}.
SmallVector<Value> SimtForwardKernel::buildSoftmaxUpdate(Value kt, Value count,
                                                         Value m, Value l,
                                                         Value tileMax) {
  Value newMax = arith::MaximumFOp::create(builder, loc, m, tileMax);
  Value stillEmpty = kb.eqf(newMax, kb.negInf());
  Value alpha =
      kb.select(stillEmpty, kb.fconst(1.0), kb.exp(kb.subf(m, newMax)));
  kb.loop(zero, kb.index(c.valueDim), one, {}, [&](Value d, ValueRange) {
    Value a = memref::LoadOp::create(builder, loc, acc, d);
    memref::StoreOp::create(builder, loc, kb.mulf(a, alpha), acc, d);
    return SmallVector<Value>{};
  });
  Value newSum =
      kb.loop(
            zero, count, one, {kb.mulf(l, alpha)},
            [&](Value r, ValueRange sum) -> SmallVector<Value> {
              Value t = memref::LoadOp::create(builder, loc, scores, r);
              Value p = kb.select(kb.eqf(t, kb.negInf()), kb.fconst(0.0),
                                  kb.exp(kb.subf(t, newMax)));
              // l sums every p; the dropout keep bit only weighs
              // the contribution to O (P' = P * Z / (1 - p)).
              Value w = dropout.apply(builder, loc, p, b, h, i, kb.add(kt, r));
              kb.loop(zero, kb.index(c.valueDim), one, {},
                      [&](Value d, ValueRange) {
                        Value v = memref::LoadOp::create(
                            builder, loc, valueTileSmem, ValueRange{r, d});
                        Value a = memref::LoadOp::create(builder, loc, acc, d);
                        memref::StoreOp::create(
                            builder, loc,
                            kb.addf(a, kb.mulf(w, kb.convert(v, c.computeType))),
                            acc, d);
                        return SmallVector<Value>{};
                      });
              return {kb.addf(sum[0], p)};
            })
          .getResult(0);
  return {newMax, newSum};
}

/// One K/V tile at kt: staged by every thread, then scored and accumulated
/// by the threads that own a row; `state` is {m, l}.
SmallVector<Value> SimtForwardKernel::buildKeyTile(Value kt,
                                                   ValueRange state) {
  Value count = kb.min(keyTileSize, kb.sub(keyEnd, kt));
  gpu::BarrierOp::create(builder, loc);
  stageTile(c.key, keyTileSmem, c.keyDim, kt, count);
  stageTile(c.value, valueTileSmem, c.valueDim, kt, count);
  gpu::BarrierOp::create(builder, loc);
  return kb.ifElse(rowValid, state, [&]() -> SmallVector<Value> {
    Value tileMax = buildTileScores(kt, count);
    return buildSoftmaxUpdate(kt, count, state[0], state[1], tileMax);
  });
}

/// O = acc / l, exactly 0 for an empty row (l = 0); LSE = m + log l. With
/// sinks, sinks[h] joins m and l first (AttentionSinkFold): O = acc * w with
/// w = rescale / l' (0 for l' = 0), LSE = m' + log l', +inf only for l' = 0.
void SimtForwardKernel::storeOutput(Value m, Value l) {
  kb.ifThen(rowValid, [&] {
    Value weight;
    if (c.sinks) {
      Value sink = buildSinkRead(builder, loc, c.sinks, h, c.computeType);
      AttentionSinkFold fold =
          AttentionSinkFold::build(builder, loc, m, l, sink);
      weight = fold.buildProbabilityScale(builder, loc);
      m = fold.max;
      l = fold.sum;
    }
    Value empty = kb.eqf(l, kb.fconst(0.0));
    kb.loop(zero, kb.index(c.valueDim), one, {}, [&](Value d, ValueRange) {
      Value a = memref::LoadOp::create(builder, loc, acc, d);
      Value o = weight ? kb.mulf(a, weight)
                       : kb.select(empty, kb.fconst(0.0),
                                   arith::DivFOp::create(builder, loc, a, l));
      memref::StoreOp::create(builder, loc, kb.convert(o, c.elementType),
                              c.out, ValueRange{b, h, i, d});
      return SmallVector<Value>{};
    });
    if (c.lse) {
      Value lse =
          kb.select(empty, kb.fconst(std::numeric_limits<double>::infinity()),
                    kb.addf(m, math::LogOp::create(builder, loc, l)));
      Type lseType = cast<MemRefType>(c.lse.getType()).getElementType();
      memref::StoreOp::create(builder, loc, kb.convert(lse, lseType), c.lse,
                              ValueRange{b, h, i});
    }
  });
}

void SimtForwardKernel::build() {
  one = kb.index(1);
  gpu::LaunchOp launch = buildLaunch();
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(&launch.getBody().front());
  bindThread(launch);
  loadQueryRow();
  Value keyBegin;
  std::tie(keyBegin, keyEnd) = buildKeyRange(kb, c, *tile);
  keyTileSize = kb.index(keyTile);
  auto tiles = kb.loop(keyBegin, keyEnd, keyTileSize,
                       {kb.negInf(), kb.fconst(0.0)},
                       [&](Value kt, ValueRange state) -> SmallVector<Value> {
                         return buildKeyTile(kt, state);
                       });
  storeOutput(tiles.getResult(0), tiles.getResult(1));
  gpu::TerminatorOp::create(builder, loc);
}

/// The SIMT kernel (SimtForwardKernel).
void attention_forward::buildSimtKernel(OpBuilder &builder, Location loc,
                                        const ForwardConfig &c) {
  SimtForwardKernel(builder, loc, c).build();
}
