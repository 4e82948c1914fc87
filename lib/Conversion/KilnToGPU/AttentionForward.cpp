//===- AttentionForward.cpp - kiln.attention as a GPU flash kernel --------===//
//
// kiln.attention on tensors becomes a gpu.launch between
// bufferization.to_buffer of its operands and bufferization.to_tensor of a
// fresh result buffer. The kernel is FlashAttention's forward: one block per
// (batch, kv head, tile of query rows), where a tile holds the rows of every
// query head of the group (grouped-query heads packed, so each K/V tile is
// staged in workgroup memory once for the whole group); each query row keeps a
// running max m, a running sum l and its output accumulator, rescaled whenever
// m grows, and writes O = acc / l once (0 for an empty row). No [Sq, Sk] buffer
// exists.
//
// The sizes, the visibility predicate, the logits and the dropout draw are
// those of kiln/Dialect/Kiln/Utils/AttentionUtils.h, called on memrefs, so
// the CPU and the GPU share one definition of every mask form.
//
// See docs/GPUAttention.md.
//
//===----------------------------------------------------------------------===//

#include "AttentionKernels.h"
#include "KernelArith.h"
#include "MmaFragments.h"
#include "PopulatePatterns.h"
#include "TileCopy.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

#include "llvm/Support/Debug.h"
#include "llvm/Support/MathExtras.h"

#include <array>
#include <limits>

#define DEBUG_TYPE "kiln-attention-to-gpu"

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// The largest head dim the kernels keep in registers / workgroup memory.
constexpr int64_t kMaxHeadDim = 256;
/// Query rows per block of the SIMT kernel: one thread per row.
constexpr int64_t kSimtRows = 64;
/// Workgroup bytes the SIMT kernel's K and V tiles may take together.
constexpr int64_t kSimtTileBytes = 32 * 1024;

/// Everything the kernels read from one attention op: static sizes,
/// attributes, and the buffers of its operands.
struct ForwardConfig : AttentionSizes {
  /// The logits and the predicate, on memrefs.
  AttentionLogits logits;
  Value query, key, value, seed, out, lse;
};

/// The forward kernels' IR helpers: KernelArith plus constants and
/// conversions in the compute type, loops and conditionals.
struct KernelBuilder : KernelArith {
  FloatType computeType;

  Value fconst(double value) {
    return arith::ConstantOp::create(b, loc,
                                     b.getFloatAttr(computeType, value));
  }
  Value negInf() { return fconst(-std::numeric_limits<double>::infinity()); }
  /// Extends (or truncates) the float `x` to `type`.
  Value convert(Value x, Type type) { return convertFloat(b, loc, x, type); }

  /// scf.for lb..ub step `step` with `inits`; `body` returns the yielded
  /// values.
  scf::ForOp loop(Value lb, Value ub, Value step, ValueRange inits,
                  function_ref<SmallVector<Value>(Value, ValueRange)> body) {
    return scf::ForOp::create(
        b, loc, lb, ub, step, inits,
        [&](OpBuilder &nested, Location, Value iv, ValueRange args) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToEnd(nested.getInsertionBlock());
          scf::YieldOp::create(b, loc, body(iv, args));
        });
  }
  /// scf.if `cond` without results.
  void ifThen(Value cond, function_ref<void()> body) {
    auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    body();
  }
  /// scf.if `cond` yielding `then()` or `otherwise` (values defined above).
  SmallVector<Value> ifElse(Value cond, ValueRange otherwise,
                            function_ref<SmallVector<Value>()> then) {
    auto ifOp = scf::IfOp::create(b, loc, otherwise.getTypes(), cond,
                                  /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      scf::YieldOp::create(b, loc, then());
      b.setInsertionPointToStart(&ifOp.getElseRegion().front());
      scf::YieldOp::create(b, loc, otherwise);
    }
    return SmallVector<Value>(ifOp.getResults());
  }
};

/// The score t[i, j] of query row `i` and key `j` from the raw dot product:
/// cap(scale * dot) + mask_add if visible, else -inf (AttentionLogits, as
/// the CPU lowering builds it). `masked = false` leaves out the predicate, for
/// entries the caller knows to be visible.
static Value buildLogit(KernelBuilder &kb, const ForwardConfig &c, Value dot,
                        Value b, Value h, Value i, Value j,
                        bool masked = true) {
  if (!masked)
    return c.logits.buildUnmasked(kb.b, kb.loc, dot, b, h, i, j);
  return c.logits.build(kb.b, kb.loc, dot, b, h, i, j);
}

/// A block's query rows. The rows of one kv head's group are packed
/// position-major: packed row p is query position p / R of query head
/// g * R + p % R (R = groupSize, g the kv head), so a block of n packed rows
/// holds every head of the group for about n / R positions and stages each
/// K/V tile once for all of them (FlashAttention-3's "pack GQA"). Position-
/// major keeps a block's positions contiguous, and with them its causal or
/// windowed key range as narrow as without grouping. With R = 1 this is one
/// block per (tile of positions, head).
struct RowTile {
  /// Batch, kv head (the group), and the block's first and last packed rows
  /// (inclusive, last < R * Sq).
  Value batch, kvHead, begin, last;
  /// R * Sq.
  int64_t numPacked;

  /// Grid and ids of a launch of `rows` packed rows per block: blocks
  /// (ceil(R * Sq / rows), Hkv, B).
  static std::array<int64_t, 3> grid(const ForwardConfig &c, int64_t rows) {
    return {static_cast<int64_t>(
                llvm::divideCeil(c.groupSize * c.numQueries, rows)),
            c.numHeads / c.groupSize, c.batch};
  }
  static RowTile get(KernelBuilder &kb, const ForwardConfig &c,
                     gpu::LaunchOp launch, int64_t rows) {
    RowTile tile;
    tile.numPacked = c.groupSize * c.numQueries;
    tile.batch = launch.getBlockIds().z;
    tile.kvHead = launch.getBlockIds().y;
    tile.begin = kb.mul(launch.getBlockIds().x, kb.index(rows));
    tile.last = kb.min(kb.add(tile.begin, kb.index(rows - 1)),
                       kb.index(tile.numPacked - 1));
    return tile;
  }
  /// The query head and position of packed row `p`.
  std::pair<Value, Value> unpack(KernelBuilder &kb, const ForwardConfig &c,
                                 Value p) const {
    Value at = position(kb, c, p);
    Value group = kb.index(c.groupSize);
    Value member = arith::RemUIOp::create(kb.b, kb.loc, p, group);
    return {kb.add(kb.mul(kvHead, group), member), at};
  }
  /// The query position of packed row `p`.
  Value position(KernelBuilder &kb, const ForwardConfig &c, Value p) const {
    return arith::DivUIOp::create(kb.b, kb.loc, p, kb.index(c.groupSize));
  }
};

/// Returns the block-uniform key range [lo, hi) that can hold a key visible
/// to a query row of `tile` (positions begin / R to last / R): the band's
/// edges and the key length. The per-entry predicate still decides; this
/// only skips key tiles that no row of the block sees (half of them under
/// `causal`).
static std::pair<Value, Value>
buildKeyRange(KernelBuilder &kb, const ForwardConfig &c, const RowTile &tile) {
  const AttentionVisibility &vis = c.logits.visibility;
  Value batchIndex = tile.batch;
  Value rowBegin = tile.position(kb, c, tile.begin);
  Value rowEnd = tile.position(kb, c, tile.last);
  Value lo = kb.index(0);
  Value hi = kb.index(c.numKeys);
  if (Value firstKey = vis.band.buildFirstKey(kb.b, kb.loc, rowBegin))
    lo = kb.max(lo, firstKey);
  if (Value endKey = vis.band.buildEndKey(kb.b, kb.loc, rowEnd))
    hi = kb.min(hi, endKey);
  if (vis.keyLengths)
    hi = kb.min(hi, buildClampedLength(kb.b, kb.loc, vis.keyLengths,
                                       batchIndex, c.numKeys));
  return {lo, hi};
}

//===----------------------------------------------------------------------===//
// The SIMT kernel: every dtype, every mask form
//===----------------------------------------------------------------------===//

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

/// O = acc / l, exactly 0 for an empty row (l = 0); LSE = m + log l.
void SimtForwardKernel::storeOutput(Value m, Value l) {
  kb.ifThen(rowValid, [&] {
    Value empty = kb.eqf(l, kb.fconst(0.0));
    kb.loop(zero, kb.index(c.valueDim), one, {}, [&](Value d, ValueRange) {
      Value a = memref::LoadOp::create(builder, loc, acc, d);
      Value o = kb.select(empty, kb.fconst(0.0),
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
static void buildSimtKernel(OpBuilder &builder, Location loc,
                            const ForwardConfig &c) {
  SimtForwardKernel(builder, loc, c).build();
}

//===----------------------------------------------------------------------===//
// The tensor-core kernel: f16/bf16, head dims multiples of 16 up to 128
//===----------------------------------------------------------------------===//

/// Warps per block of the mma kernel; each owns 16 query rows.
constexpr int64_t kMmaWarps = 4;
constexpr int64_t kMmaRows = 16 * kMmaWarps;
/// Keys per K/V tile of the mma kernel.
constexpr int64_t kMmaKeys = 64;
/// Extra elements (16 bytes) per row of the K/V tiles: rows stay 16-byte
/// aligned for ldmatrix and 16-byte stores, and the 8 rows of an 8 x 8
/// matrix that an ldmatrix reads at once fall in distinct banks.
constexpr int64_t kMmaPad = 8;
constexpr int64_t kMaxMmaHeadDim = 128;

/// Returns true if the tensor-core kernel computes `c`.
static bool useMmaKernel(const ForwardConfig &c,
                         const AttentionGPUOptions &options) {
  return options.tensorCores &&
         (c.elementType.isF16() || c.elementType.isBF16()) &&
         c.keyDim % 16 == 0 && c.valueDim % 16 == 0 &&
         c.keyDim <= kMaxMmaHeadDim && c.valueDim <= kMaxMmaHeadDim;
}

/// The tensor-core kernel's builder: one member function per phase of the
/// kernel, in the order they emit IR (buildMmaKernel calls them), and the
/// state they share: the builders and sizes, the launch's K/V tiles, this
/// thread's place in the mma fragments and its two query rows, Q's
/// fragments, the key range and how each K/V tile is staged, and the
/// constants of the scores and their mask.
struct MmaForwardKernel {
  static constexpr int64_t keyTiles = kMmaKeys / 8, pvSteps = kMmaKeys / 16;
  static constexpr int64_t threads = 32 * kMmaWarps;

  OpBuilder &builder;
  Location loc;
  const ForwardConfig &c;
  const AttentionGPUOptions &options;
  KernelBuilder kb;
  MmaBuilder mb;
  int64_t keySteps, valueTiles;
  Value one;

  // buildThreadLayout: the K/V tiles, the block's rows, this thread.
  Value keyTileSmem, valueTileSmem;
  RowTile tile;
  Value b, g, tid, lane, quadLane, twiceQuadLane;
  Value rows[2], heads[2], positions[2];
  AttentionDropout dropout;

  // buildQueryFragments.
  SmallVector<SmallVector<Value>> queryFrags;

  // buildKeyBounds, buildLaneAddresses, planTileStaging.
  Value keyBegin, keyEnd, keyTileSize, vectorized, lastKey;
  Value matrixRow, matrixColumn, pairRow, pairColumn;
  bool prefetch = false;
  SmallVector<TileChunk> chunks;

  // buildScoreConstants.
  Value f32Zero, f32NegInf;
  Type f32;
  bool rawScores = false;
  Value exponentScale;
  bool wholeTilesPay = false;
  Value firstPosition, lastPosition;

  // buildKeyTileLoop: the loop state's m, l and O accumulators come first.
  int64_t numAccumulators = 0;

  /// The online-softmax update of one key tile, for the thread's rows 0
  /// and 1.
  struct SoftmaxUpdate {
    Value newMax[2], pivots[2], pivotTerm[2], alpha[2], sums[2];
  };

  MmaForwardKernel(OpBuilder &builder, Location loc, const ForwardConfig &c,
                   const AttentionGPUOptions &options)
      : builder(builder), loc(loc), c(c), options(options),
        kb{{builder, loc}, c.computeType}, mb{builder, loc, c.elementType},
        keySteps(c.keyDim / 16), valueTiles(c.valueDim / 8) {}

  /// Emits the index constant `one` (before the launch, in the host code)
  /// and the gpu.launch of the kernel with its workgroup K and V tiles, and
  /// returns the launch.
  gpu::LaunchOp buildLaunch() {
    one = kb.index(1);
    // K and V tiles as they lie in memory, rows padded by kMmaPad elements;
    // every B fragment comes from them by ldmatrix (buildKernelLaunch aligns
    // the tiles to 16 bytes, as ldmatrix needs).
    auto shared = gpu::AddressSpace::Workgroup;
    MemRefType tileTypes[] = {
        getGPUMemRefType({kMmaKeys, c.keyDim + kMmaPad}, c.elementType, shared),
        getGPUMemRefType({kMmaKeys, c.valueDim + kMmaPad}, c.elementType,
                         shared)};
    std::array<int64_t, 3> grid = RowTile::grid(c, kMmaRows);
    SmallVector<Value> tileViews;
    gpu::LaunchOp launch =
        buildKernelLaunch(builder, loc, grid, 32 * kMmaWarps, tileTypes,
                          /*privates=*/{}, tileViews);
    setMinBlocksPerSM(launch, options.forwardMinBlocksPerSM);
    keyTileSmem = tileViews[0];
    valueTileSmem = tileViews[1];
    return launch;
  }

  /// Emits, at the start of the kernel, the block's rows (RowTile), this
  /// thread's warp, lane and quad, its two packed rows with their query
  /// heads and positions, and the dropout's seed.
  void buildThreadLayout(gpu::LaunchOp launch) {
    tile = RowTile::get(kb, c, launch, kMmaRows);
    b = tile.batch;
    g = tile.kvHead;
    tid = launch.getThreadIds().x;
    Value warp = arith::DivUIOp::create(builder, loc, tid, kb.index(32));
    lane = arith::RemUIOp::create(builder, loc, tid, kb.index(32));
    Value quad = arith::DivUIOp::create(builder, loc, lane, kb.index(4));
    quadLane = arith::RemUIOp::create(builder, loc, lane, kb.index(4));
    twiceQuadLane = kb.mul(quadLane, kb.index(2));
    // This thread's two packed rows (g and g + 8 of its warp's 16), and the
    // same clamped into [0, R * Sq) for reads: rows past the end compute
    // garbage that is never written, but must not read out of bounds. Each
    // row's query head and position.
    Value lastRow = kb.index(tile.numPacked - 1);
    Value row0 = kb.add(kb.add(tile.begin, kb.mul(warp, kb.index(16))), quad);
    rows[0] = row0;
    rows[1] = kb.add(row0, kb.index(8));
    for (int64_t r = 0; r < 2; ++r)
      std::tie(heads[r], positions[r]) =
          tile.unpack(kb, c, kb.min(rows[r], lastRow));
    dropout = AttentionDropout::get(builder, loc, c, c.seed);
  }

  /// Emits the loads of Q's A fragments, which stay in registers for the
  /// whole kernel.
  void buildQueryFragments() {
    // Q's A fragments, for every 16-column step of Dk.
    for (int64_t ks = 0; ks < keySteps; ++ks) {
      Value col = kb.add(twiceQuadLane, kb.index(16 * ks));
      auto pairAt = [&](int64_t r, Value column) {
        Value x0 = memref::LoadOp::create(
            builder, loc, c.query,
            ValueRange{b, heads[r], positions[r], column});
        Value x1 = memref::LoadOp::create(
            builder, loc, c.query,
            ValueRange{b, heads[r], positions[r], kb.add(column, one)});
        return mb.pack(x0, x1);
      };
      Value col8 = kb.add(col, kb.index(8));
      queryFrags.push_back(
          {pairAt(0, col), pairAt(1, col), pairAt(0, col8), pairAt(1, col8)});
    }
  }

  /// Emits the block's key range (buildKeyRange), the uniform test of
  /// whether K and V can be staged 16 bytes at a time, and the last key.
  void buildKeyBounds() {
    std::tie(keyBegin, keyEnd) = buildKeyRange(kb, c, tile);
    keyTileSize = kb.index(kMmaKeys);

    // K and V are staged 8 elements (16 bytes) per load when both start
    // 16-byte aligned (their rows then do too: Dk and Dv are multiples of
    // 16), else element by element; the branch is uniform.
    vectorized = buildAllAligned(builder, loc, {c.key, c.value}, 16);
    lastKey = kb.index(c.numKeys - 1);
  }

  /// Emits the row and column this lane addresses in the ldmatrix.x4 reads
  /// of the K and V tiles.
  void buildLaneAddresses() {
    // What this lane addresses in an ldmatrix.x4 (row l % 8 of matrix
    // l / 8): (matrixRow, matrixColumn) puts the four matrices side by side
    // over 8 rows and 32 columns (the B fragments of two k-steps of Kᵀ's
    // n-tile); (pairRow, pairColumn) in A-fragment order over a 16 x 16
    // block, which with .trans is the B fragments of two n-tiles of V.
    Value eight = kb.index(8);
    matrixRow = arith::RemUIOp::create(builder, loc, lane, eight);
    Value matrix = arith::DivUIOp::create(builder, loc, lane, eight);
    matrixColumn = kb.mul(matrix, eight);
    pairRow =
        kb.add(matrixRow,
               kb.mul(arith::RemUIOp::create(builder, loc, matrix, kb.index(2)),
                      eight));
    pairColumn = kb.mul(
        arith::DivUIOp::create(builder, loc, matrix, kb.index(2)), eight);
  }

  /// The copies of K and V rows kt..kt+63 into the workgroup tiles.
  SmallVector<TileCopy, 2> tileCopies(Value kt) {
    // K and V rows kt..kt+63, zeros past keyEnd (a garbage V row times a
    // zero probability could still be NaN).
    TileCopy key = {c.key,    {b, g}, kt,      kMmaKeys,
                    c.keyDim, keyEnd, lastKey, keyTileSmem};
    TileCopy value = {c.value,    {b, g}, kt,      kMmaKeys,
                      c.valueDim, keyEnd, lastKey, valueTileSmem};
    return {key, value};
  }

  /// Decides whether the K/V tiles are software pipelined and, if so, emits
  /// this thread's chunks of a tile.
  void planTileStaging() {
    // Software pipelining (option software-pipeline, where the copy
    // unrolls): the loads of key tile kt + 64 are issued right after tile kt
    // is stored in shared memory and travel in registers (loop-carried)
    // while tile kt is computed; the next iteration only stores them. It
    // costs the chunks' registers (D = 64: 132 -> 174, one block per SM
    // fewer at 128 threads; D = 128: 171 -> 251); by default (auto) it is on
    // where the H200 measured a gain, D = 128
    // (shouldSoftwarePipelineAttention; bench/gpu/bench_attention_fwd.py
    // times both). Otherwise each iteration copies its tile (loads, then
    // stores) before computing it.
    prefetch = shouldSoftwarePipelineAttention(options.softwarePipeline,
                                               c.keyDim, c.valueDim) &&
               canUnrollTileCopies(tileCopies(keyBegin), threads);
    if (prefetch)
      chunks = getTileChunks(builder, loc, tileCopies(keyBegin), tid, threads);
  }

  /// Emits this thread's loads of its chunks of tile kt.
  SmallVector<Value> loadTiles(Value kt) {
    // This thread's chunks of tile kt: 16-byte loads when K and V are
    // aligned, element by element otherwise (a uniform branch).
    return buildTileLoads(builder, loc, tileCopies(kt), chunks, vectorized);
  }

  /// Emits the f32 constants of the scores and the exponent's scale, and
  /// the block's first and last query positions (for buildWholeTile).
  void buildScoreConstants() {
    f32Zero =
        arith::ConstantOp::create(builder, loc, builder.getF32FloatAttr(0.0));
    f32NegInf = kb.negInf();
    f32 = builder.getF32Type();
    // Without softcap and bias (additive mask, ALiBi), the scores stay raw (q.k): max
    // commutes with a positive scale, so the scale joins log2 e in the
    // exponent, p = 2^(s k - m k) with k = scale log2 e, one fma and one
    // ex2.approx per element. Otherwise t is the logit and k = log2 e. The
    // fma's error (|m k| 2^-24 in the exponent, about 1e-5 relative for
    // logits near 100) is far below the f16/bf16 rounding of P.
    rawScores =
        !c.logits.softcap && !c.logits.hasBias() && c.logits.scale > 0;
    exponentScale =
        kb.fconst((rawScores ? c.logits.scale : 1.0) * llvm::numbers::log2e);
    // Whether buildWholeTile pays: the predicate has terms, all of them
    // covered by its test.
    const AttentionVisibility &vis = c.logits.visibility;
    const AttentionBand &band = vis.band;
    wholeTilesPay =
        !vis.booleanMask && !vis.queryLengths &&
        (band.isBounded() || vis.keyLengths || c.numKeys % kMmaKeys != 0);
    firstPosition = tile.position(kb, c, tile.begin);
    lastPosition = tile.position(kb, c, tile.last);
  }

  /// Emits whether every row of the block sees every key of tile
  /// kt..kt+63, so that the tile needs no predicate: the tile lies below
  /// keyEnd (Sk, the key length, the band's right edge at the last row) and
  /// inside the band of the first row (right edge) and of the last row (left
  /// edge). Null when the predicate has terms that this does not cover (a
  /// boolean mask, query lengths) or none at all.
  Value buildWholeTile(Value kt) {
    const AttentionBand &band = c.logits.visibility.band;
    if (!wholeTilesPay)
      return Value();
    Value last = kb.add(kt, kb.index(kMmaKeys - 1));
    Value whole = kb.lt(last, keyEnd);
    if (Value endKey = band.buildEndKey(builder, loc, firstPosition))
      whole = arith::AndIOp::create(builder, loc, whole, kb.lt(last, endKey));
    if (Value firstKey = band.buildFirstKey(builder, loc, lastPosition))
      whole = arith::AndIOp::create(
          builder, loc, whole,
          arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sge, kt,
                                firstKey));
    return whole;
  }

  /// Emits the loop over the block's key tiles (buildKeyTile) and returns
  /// it.
  scf::ForOp buildKeyTileLoop() {
    // Loop state: m and l of rows 0 and 1 (l per thread: the quad's partial
    // sums, reduced after the loop), the O accumulator fragments, then (with
    // prefetch) this thread's chunks of the tile to stage.
    SmallVector<Value> inits = {f32NegInf, f32NegInf, f32Zero, f32Zero};
    inits.append(4 * valueTiles, f32Zero);
    numAccumulators = inits.size();
    if (prefetch)
      llvm::append_range(inits, loadTiles(keyBegin));
    return kb.loop(keyBegin, keyEnd, keyTileSize, inits,
                   [&](Value kt, ValueRange state) -> SmallVector<Value> {
                     return buildKeyTile(kt, state);
                   });
  }

  /// Emits the body of the key-tile loop for tile kt..kt+63 and returns
  /// the values it yields.
  SmallVector<Value> buildKeyTile(Value kt, ValueRange state) {
    SmallVector<Value> prefetched = buildTileStaging(kt, state);
    SmallVector<SmallVector<Value>> scores = buildScoreMma();
    SmallVector<Value> logits = buildMaskedLogits(kt, scores);
    SoftmaxUpdate update = buildSoftmaxUpdate(state, logits, scores);
    buildProbabilities(kt, update, scores);
    SmallVector<Value> next = {update.newMax[0], update.newMax[1],
                               update.sums[0], update.sums[1]};
    SmallVector<SmallVector<Value>> out =
        buildOutputMma(state, update.alpha, scores);
    for (ArrayRef<Value> acc : out)
      next.append(acc.begin(), acc.end());
    llvm::append_range(next, prefetched);
    return next;
  }

  /// Emits the staging of K and V rows kt..kt+63 in workgroup memory
  /// between barriers: with prefetch, the stores of the chunks loaded by
  /// the previous iteration (or before the loop) and the loads of the next
  /// tile, which it returns; otherwise the whole copy.
  SmallVector<Value> buildTileStaging(Value kt, ValueRange state) {
    // Stage K and V rows kt..kt+63.
    gpu::BarrierOp::create(builder, loc);
    SmallVector<Value> prefetched;
    if (prefetch) {
      buildTileStores(builder, loc, tileCopies(kt), chunks,
                      state.drop_front(numAccumulators));
      gpu::BarrierOp::create(builder, loc);
      // The next tile's loads, in flight during this tile's compute.
      Value nextKt = kb.add(kt, keyTileSize);
      ValueRange current = state.drop_front(numAccumulators);
      auto ifNext = scf::IfOp::create(builder, loc, current.getTypes(),
                                      kb.lt(nextKt, keyEnd),
                                      /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPointToEnd(ifNext.thenBlock());
        scf::YieldOp::create(builder, loc, loadTiles(nextKt));
        // Past the last tile: nothing to load (the values are unused).
        builder.setInsertionPointToEnd(ifNext.elseBlock());
        scf::YieldOp::create(builder, loc, current);
      }
      prefetched.assign(ifNext.getResults().begin(), ifNext.getResults().end());
    } else {
      buildTileCopies(builder, loc, tileCopies(kt), tid, threads, vectorized);
      gpu::BarrierOp::create(builder, loc);
    }
    return prefetched;
  }

  /// Emits S = Q Kᵀ of the staged key tile, keyTiles m16n8 C fragments,
  /// and returns them.
  SmallVector<SmallVector<Value>> buildScoreMma() {
    // S = Q Kᵀ: B[k = d][n = key] = K[key][d], so b{0,1} are the two
    // adjacent d of key row g.
    SmallVector<SmallVector<Value>> scores;
    for (int64_t n = 0; n < keyTiles; ++n) {
      SmallVector<Value> acc(4, f32Zero);
      // B[k = d][n = key] = K[key][d]: b{0,1} are two adjacent d of key
      // row 8n + g. One ldmatrix.x4 gives those of two k-steps (columns
      // 16 ks .. 16 ks + 31), an x2 an odd last one.
      Value keyRow = kb.add(matrixRow, kb.index(8 * n));
      for (int64_t ks = 0; ks < keySteps; ks += 2) {
        int64_t count = ks + 1 < keySteps ? 4 : 2;
        SmallVector<Value> bRegs = mb.loadMatrices(
            keyTileSmem, keyRow, kb.add(matrixColumn, kb.index(16 * ks)), count,
            /*transpose=*/false);
        for (int64_t s = 0; 2 * s < count; ++s)
          acc =
              mb.mma(queryFrags[ks + s], ArrayRef(bRegs).slice(2 * s, 2), acc);
      }
      scores.push_back(acc);
    }
    return scores;
  }

  /// The score t of the raw dot product `dot` at (h, i, j); with
  /// rawScores, t is the raw q.k (scale applied in the exponent).
  Value logitOf(Value dot, Value h, Value i, Value j, bool masked) {
    if (!rawScores)
      return buildLogit(kb, c, dot, b, h, i, j, masked);
    if (!masked)
      return dot;
    return kb.select(
        buildAttentionVisible(builder, loc, c.logits.visibility, b, h, i, j),
        dot, f32NegInf);
  }

  /// Emits t of every element of `scores` for tile kt, with the predicate
  /// (and -inf past keyEnd) or, `masked = false`, without.
  SmallVector<Value> buildScores(Value kt, ArrayRef<SmallVector<Value>> scores,
                                 bool masked) {
    SmallVector<Value> t;
    for (int64_t n = 0; n < keyTiles; ++n) {
      for (int64_t e = 0; e < 4; ++e) {
        Value j = kb.add(kt, kb.add(twiceQuadLane, kb.index(8 * n + e % 2)));
        if (!masked) {
          t.push_back(logitOf(scores[n][e], heads[e / 2], positions[e / 2], j,
                              /*masked=*/false));
          continue;
        }
        Value x = logitOf(scores[n][e], heads[e / 2], positions[e / 2],
                          kb.min(j, lastKey), /*masked=*/true);
        t.push_back(kb.select(kb.lt(j, keyEnd), x, f32NegInf));
      }
    }
    return t;
  }

  /// Emits the masking, scale and softcap of the score fragments: t per
  /// element, unmasked on a tile every row sees whole (an scf.if on
  /// buildWholeTile), and returns the 4 * keyTiles values of t.
  SmallVector<Value> buildMaskedLogits(Value kt,
                                       ArrayRef<SmallVector<Value>> scores) {
    // t per element, at row rows[e / 2] and key kt + 8n + 2t + e % 2;
    // without the predicate on a tile that every row of the block sees
    // whole (FlashAttention's unmasked interior tiles).
    // With rawScores, t is the raw q.k (scale applied in the exponent).
    SmallVector<Value> logits;
    if (Value whole = buildWholeTile(kt)) {
      auto ifWhole = scf::IfOp::create(
          builder, loc, SmallVector<Type>(4 * keyTiles, f32), whole,
          /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(&ifWhole.getThenRegion().front());
      scf::YieldOp::create(builder, loc,
                           buildScores(kt, scores, /*masked=*/false));
      builder.setInsertionPointToStart(&ifWhole.getElseRegion().front());
      scf::YieldOp::create(builder, loc,
                           buildScores(kt, scores, /*masked=*/true));
      logits.assign(ifWhole.getResults().begin(), ifWhole.getResults().end());
    } else {
      logits = buildScores(kt, scores, /*masked=*/true);
    }
    return logits;
  }

  /// Emits the online-softmax update of rows 0 and 1: the tile's row max
  /// (over the quad), the new max m', the pivot of the exponent, the
  /// rescale factor alpha of the old state and l rescaled by it. Puts the
  /// logits into `scores`.
  SoftmaxUpdate buildSoftmaxUpdate(ValueRange state, ArrayRef<Value> logits,
                                   MutableArrayRef<SmallVector<Value>> scores) {
    Value tileMax[2] = {f32NegInf, f32NegInf};
    for (int64_t n = 0; n < keyTiles; ++n) {
      for (int64_t e = 0; e < 4; ++e) {
        Value t = logits[4 * n + e];
        scores[n][e] = t;
        tileMax[e / 2] =
            arith::MaximumFOp::create(builder, loc, tileMax[e / 2], t);
      }
    }
    // pivot is the row's max, or 0 while the row has seen no visible
    // key (every t is then -inf): p = 2^(t k - pivot k) is exactly 0 for
    // t = -inf either way, with no per-element test.
    SoftmaxUpdate u;
    for (int64_t r = 0; r < 2; ++r) {
      Value quadMax = mb.quadReduce(tileMax[r], [&](Value x, Value y) {
        return arith::MaximumFOp::create(builder, loc, x, y);
      });
      u.newMax[r] = arith::MaximumFOp::create(builder, loc, state[r], quadMax);
      Value empty = kb.eqf(u.newMax[r], f32NegInf);
      Value pivot = kb.select(empty, f32Zero, u.newMax[r]);
      u.pivots[r] = pivot;
      u.pivotTerm[r] =
          arith::NegFOp::create(builder, loc, kb.mulf(pivot, exponentScale));
      u.alpha[r] =
          kb.select(empty, kb.fconst(1.0),
                    math::Exp2Op::create(builder, loc,
                                         kb.mulf(kb.subf(state[r], u.newMax[r]),
                                                 exponentScale)));
      u.sums[r] = kb.mulf(state[2 + r], u.alpha[r]);
    }
    return u;
  }

  /// Emits P of tile kt in place of the logits in `scores`, adding it to
  /// the rows' sums l (in `u`) before dropout.
  void buildProbabilities(Value kt, SoftmaxUpdate &u,
                          MutableArrayRef<SmallVector<Value>> scores) {
    // P (unnormalized, then dropped out for O only): one fma and
    // ex2.approx per element. With a bias (additive mask, ALiBi) t - pivot is
    // formed first: a huge finite bias (-1e30, finfo.min) makes t and
    // the pivot huge and nearly equal, and the fma would keep the
    // rounding of pivot * k (up to half an ulp of it, 4e22 at -1e30) in
    // the exponent, giving P = inf or 0; the difference is exact there.
    for (int64_t n = 0; n < keyTiles; ++n) {
      for (int64_t e = 0; e < 4; ++e) {
        Value t = scores[n][e];
        Value exponent =
            c.logits.hasBias()
                ? kb.mulf(kb.subf(t, u.pivots[e / 2]), exponentScale)
                : Value(math::FmaOp::create(builder, loc, t, exponentScale,
                                            u.pivotTerm[e / 2]));
        Value p = math::Exp2Op::create(builder, loc, exponent);
        u.sums[e / 2] = kb.addf(u.sums[e / 2], p);
        if (dropout.isActive()) {
          Value j = kb.add(kt, kb.add(twiceQuadLane, kb.index(8 * n + e % 2)));
          p = dropout.apply(builder, loc, p, b, heads[e / 2], positions[e / 2],
                            kb.min(j, lastKey));
        }
        scores[n][e] = p;
      }
    }
  }

  /// Emits the O accumulators of the loop state rescaled by `alpha`, plus
  /// P V by mma with P's A fragments taken from `probs`, and returns them.
  SmallVector<SmallVector<Value>>
  buildOutputMma(ValueRange state, ArrayRef<Value> alpha,
                 ArrayRef<SmallVector<Value>> probs) {
    SmallVector<SmallVector<Value>> out;
    for (int64_t dn = 0; dn < valueTiles; ++dn) {
      SmallVector<Value> acc;
      for (int64_t e = 0; e < 4; ++e)
        acc.push_back(kb.mulf(state[4 + 4 * dn + e], alpha[e / 2]));
      out.push_back(acc);
    }
    // O += P V: P's A fragment of keys 16kk..16kk+15 is the C fragments
    // of S tiles 2kk and 2kk+1; B[k = key][n = d] = V[key][d], so
    // b{0,1} are keys 2t, 2t+1 (+8) of column g.
    for (int64_t kk = 0; kk < pvSteps; ++kk) {
      ArrayRef<Value> lo = probs[2 * kk], hi = probs[2 * kk + 1];
      std::array<Value, 4> aRegs = mb.aFromAccumulators(lo, hi);
      // B[k = key][n = d] = V[key][d]: b{0,1} are keys 2t, 2t + 1 (+8)
      // of column 8 dn + g, two rows of a column: one ldmatrix.x4.trans
      // gives those of n-tiles dn and dn + 1.
      Value keyRow = kb.add(pairRow, kb.index(16 * kk));
      for (int64_t dn = 0; dn < valueTiles; dn += 2) {
        SmallVector<Value> bRegs = mb.loadMatrices(
            valueTileSmem, keyRow, kb.add(pairColumn, kb.index(8 * dn)), 4,
            /*transpose=*/true);
        for (int64_t n = 0; n < 2; ++n)
          out[dn + n] =
              mb.mma(aRegs, ArrayRef(bRegs).slice(2 * n, 2), out[dn + n]);
      }
    }
    return out;
  }

  /// Emits the epilogue after the key-tile loop `tiles`: O = acc / l and
  /// the LSE of each of the thread's rows that exists.
  void buildEpilogue(scf::ForOp tiles) {
    // O = acc (1 / l) (l summed over the quad), 0 for an empty row; LSE.
    // One division per row, not per element: a division is a long
    // instruction sequence, and Dv / 4 of them per row took as many
    // instructions as a few key tiles. The product differs from acc / l by
    // at most an f32 ulp, far below the f16/bf16 rounding of O.
    Value sums[2];
    for (int64_t r = 0; r < 2; ++r)
      sums[r] = mb.quadReduce(tiles.getResult(2 + r),
                              [&](Value x, Value y) { return kb.addf(x, y); });
    Value numPacked = kb.index(tile.numPacked);
    for (int64_t r = 0; r < 2; ++r) {
      kb.ifThen(kb.lt(rows[r], numPacked), [&] {
        Value empty = kb.eqf(sums[r], f32Zero);
        Value inverse = kb.select(
            empty, f32Zero,
            arith::DivFOp::create(builder, loc, kb.fconst(1.0), sums[r]));
        for (int64_t dn = 0; dn < valueTiles; ++dn) {
          for (int64_t e = 2 * r; e < 2 * r + 2; ++e) {
            Value a = tiles.getResult(4 + 4 * dn + e);
            Value o = kb.mulf(a, inverse);
            Value col = kb.add(twiceQuadLane, kb.index(8 * dn + e % 2));
            memref::StoreOp::create(builder, loc, kb.convert(o, c.elementType),
                                    c.out,
                                    ValueRange{b, heads[r], positions[r], col});
          }
        }
        if (c.lse) {
          kb.ifThen(kb.lt(quadLane, one), [&] {
            // m in natural units: scale m for raw scores.
            Value m = tiles.getResult(r);
            if (rawScores)
              m = kb.mulf(m, kb.fconst(c.logits.scale));
            Value lse = kb.select(
                empty, kb.fconst(std::numeric_limits<double>::infinity()),
                kb.addf(m, math::LogOp::create(builder, loc, sums[r])));
            Type lseType = cast<MemRefType>(c.lse.getType()).getElementType();
            memref::StoreOp::create(builder, loc, kb.convert(lse, lseType),
                                    c.lse,
                                    ValueRange{b, heads[r], positions[r]});
          });
        }
      });
    }
  }
};

/// One block of four warps per (tile of 64 packed rows, kv head, batch);
/// warp w owns packed rows 16w..16w+15 of the tile (RowTile). Q fragments stay
/// in registers for the whole block; per tile of 64 keys, S = Q Kᵀ is 8 m16n8
/// tiles of mma, masked per element at its (row, col), and O += P V reuses S's
/// C fragments as P's A fragments (FlashAttention-2's register layout).
static void buildMmaKernel(OpBuilder &builder, Location loc,
                           const ForwardConfig &c,
                           const AttentionGPUOptions &options) {
  MmaForwardKernel k(builder, loc, c, options);
  gpu::LaunchOp launch = k.buildLaunch();
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(&launch.getBody().front());
  k.buildThreadLayout(launch);
  k.buildQueryFragments();
  k.buildKeyBounds();
  k.buildLaneAddresses();
  k.planTileStaging();
  k.buildScoreConstants();
  scf::ForOp tiles = k.buildKeyTileLoop();
  k.buildEpilogue(tiles);
  gpu::TerminatorOp::create(builder, loc);
}

//===----------------------------------------------------------------------===//
// The pattern
//===----------------------------------------------------------------------===//

/// kiln.attention on tensors -> to_buffer, gpu.launch, to_tensor.
struct AttentionForwardToGPU : OpRewritePattern<AttentionOp> {
  AttentionForwardToGPU(MLIRContext *context,
                        const AttentionGPUOptions &options)
      : OpRewritePattern(context), options(options) {}

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    std::string reason;
    if (failed(canBuildAttentionForward(op, reason))) {
      LLVM_DEBUG(llvm::dbgs() << "kiln.attention left to the generic path: "
                              << reason << "\n");
      return rewriter.notifyMatchFailure(op, reason);
    }
    Location loc = op.getLoc();
    SmallVector<Value> memrefs;
    for (Value operand : op->getOperands()) {
      auto type = cast<RankedTensorType>(operand.getType());
      memrefs.push_back(bufferization::ToBufferOp::create(
          rewriter, loc, MemRefType::get(type.getShape(), type.getElementType()),
          operand, /*read_only=*/true));
    }
    auto resultType = cast<RankedTensorType>(op.getResult().getType());
    auto outType =
        MemRefType::get(resultType.getShape(), resultType.getElementType());
    Value out = memref::AllocOp::create(rewriter, loc, outType);
    // The optional lse result: both kernels store it when given a buffer.
    RankedTensorType lseType;
    Value lse;
    if (op.getLse()) {
      lseType = cast<RankedTensorType>(op.getLse().getType());
      lse = memref::AllocOp::create(
          rewriter, loc,
          MemRefType::get(lseType.getShape(), lseType.getElementType()));
    }
    if (failed(buildAttentionForwardLaunch(rewriter, loc, op, memrefs, out, lse,
                                           options)))
      return failure();
    SmallVector<Value> results = {bufferization::ToTensorOp::create(
        rewriter, loc, resultType, out, /*restrict=*/true, /*writable=*/true)};
    if (lse)
      results.push_back(bufferization::ToTensorOp::create(
          rewriter, loc, lseType, lse, /*restrict=*/true, /*writable=*/true));
    rewriter.replaceOp(op, results);
    return success();
  }

  AttentionGPUOptions options;
};

} // namespace

LogicalResult mlir::kiln::canBuildAttentionForward(AttentionOp op,
                                                   std::string &reason) {
  for (Value value : op->getOperands())
    if (auto type = dyn_cast<RankedTensorType>(value.getType());
        !type || !type.hasStaticShape()) {
      reason = "expected statically shaped tensor operands";
      return failure();
    }
  auto resultType = dyn_cast<RankedTensorType>(op.getResult().getType());
  if (!resultType || !resultType.hasStaticShape() ||
      resultType.getRank() != 4) {
    reason = "expected a statically shaped rank-4 result";
    return failure();
  }
  if (resultType.getNumElements() == 0) {
    reason = "empty result: nothing to launch";
    return failure();
  }
  Type element = resultType.getElementType();
  if (!element.isF16() && !element.isBF16() && !element.isF32() &&
      !element.isF64()) {
    reason = "element type other than f16, bf16, f32, f64";
    return failure();
  }
  auto keyType = cast<RankedTensorType>(op.getKey().getType());
  int64_t keyDim = keyType.getDimSize(3);
  int64_t valueDim = resultType.getDimSize(3);
  if (keyDim < 1 || keyDim > kMaxHeadDim || valueDim > kMaxHeadDim) {
    reason = "head dim outside [1, 256]";
    return failure();
  }
  // The grid of RowTile: (ceil(R * Sq / rows), Hkv, B).
  int64_t numKvHeads = keyType.getDimSize(1);
  int64_t packedRows = resultType.getDimSize(1) /
                       std::max<int64_t>(1, numKvHeads) *
                       resultType.getDimSize(2);
  int64_t grid = llvm::divideCeil(packedRows, kSimtRows);
  if (grid > std::numeric_limits<int32_t>::max() || numKvHeads > 65535 ||
      resultType.getDimSize(0) > 65535) {
    reason = "grid too large";
    return failure();
  }
  return success();
}

LogicalResult mlir::kiln::buildAttentionForwardLaunch(
    OpBuilder &b, Location loc, AttentionOp op, ValueRange operandMemrefs,
    Value outMemref, Value lseMemref, const AttentionGPUOptions &options) {
  std::string reason;
  if (failed(canBuildAttentionForward(op, reason)) ||
      operandMemrefs.size() != op->getNumOperands())
    return failure();
  ForwardConfig c;
  static_cast<AttentionSizes &>(c) = AttentionSizes::get(op);
  // Operands are matched by position, not by value: the same tensor may be
  // passed as two operands (q = k).
  auto operandBuffer = [&](unsigned odsIndex) -> Value {
    auto [start, length] = op.getODSOperandIndexAndLength(odsIndex);
    return length ? operandMemrefs[start] : Value();
  };
  c.query = operandBuffer(0);
  c.key = operandBuffer(1);
  c.value = operandBuffer(2);
  c.logits = AttentionLogits::get(op, operandBuffer(3), operandBuffer(4),
                                  operandBuffer(5), operandBuffer(7));
  c.seed = operandBuffer(6);
  c.out = outMemref;
  c.lse = lseMemref;
  if (useMmaKernel(c, options))
    buildMmaKernel(b, loc, c, options);
  else
    buildSimtKernel(b, loc, c);
  return success();
}

void mlir::kiln::populateAttentionForwardToGPUPatterns(
    RewritePatternSet &patterns, const AttentionGPUOptions &options) {
  patterns.add<AttentionForwardToGPU>(patterns.getContext(), options);
}
