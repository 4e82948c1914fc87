//===- AttentionForwardMma.cpp - tensor-core attention forward ------------===//
//
// The tensor-core kernel of kiln.attention's flash forward, with
// mma.sync.m16n8k16 (f16 or bf16 operands, f32 accumulators), for head dims
// that are multiples of 16 up to 128 (AttentionForward.cpp picks it; the
// SIMT kernel, AttentionForwardSimt.cpp, computes the rest). One block of
// four warps per (tile of 64 packed query rows, kv head, batch): Q's
// fragments stay in registers, each K/V tile of 64 keys is staged in
// workgroup memory (software pipelined where it pays), S = Q Kᵀ and
// O += P V are mma, and P's A fragments are S's C fragments
// (FlashAttention-2's register layout). A row's sink joins its m and l in
// the epilogue. See docs/GPUAttention.md.
//
//===----------------------------------------------------------------------===//

#include "AttentionForward.h"
#include "AttentionKernels.h"
#include "MmaFragments.h"
#include "TileCopy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/Support/MathExtras.h"

#include <array>
#include <limits>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::attention_forward;

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
bool attention_forward::useMmaKernel(const ForwardConfig &c,
                                     const AttentionGPUOptions &options) {
  return options.tensorCores &&
         (c.elementType.isF16() || c.elementType.isBF16()) &&
         c.keyDim % 16 == 0 && c.valueDim % 16 == 0 &&
         c.keyDim <= kMaxMmaHeadDim && c.valueDim <= kMaxMmaHeadDim;
}

namespace {

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
        !vis.hasEntryTerms() &&
        (band.isBounded() || vis.keyLengths || c.numKeys % kMmaKeys != 0);
    firstPosition = tile.position(kb, c, tile.begin);
    lastPosition = tile.position(kb, c, tile.last);
  }

  /// Emits whether every row of the block sees every key of tile
  /// kt..kt+63, so that the tile needs no predicate: the tile lies below
  /// keyEnd (Sk, the key length, the band's right edge at the last row) and
  /// inside the band of the first row (right edge) and of the last row (left
  /// edge). Null when the predicate has terms that this does not cover
  /// (AttentionVisibility::hasEntryTerms) or none at all.
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
    // With sinks, row r's sink sinks[heads[r]] joins its m (in natural
    // units) and l first (AttentionSinkFold): 1 / l becomes rescale / l'
    // and the LSE m' + log(l').
    Value sums[2];
    for (int64_t r = 0; r < 2; ++r)
      sums[r] = mb.quadReduce(tiles.getResult(2 + r),
                              [&](Value x, Value y) { return kb.addf(x, y); });
    // Row r's m in natural units: scale m for raw scores.
    auto rowMax = [&](int64_t r) {
      Value m = tiles.getResult(r);
      if (rawScores)
        m = kb.mulf(m, kb.fconst(c.logits.scale));
      return m;
    };
    Value numPacked = kb.index(tile.numPacked);
    for (int64_t r = 0; r < 2; ++r) {
      kb.ifThen(kb.lt(rows[r], numPacked), [&] {
        Value sum = sums[r], max, inverse;
        if (c.sinks) {
          Value sink = buildSinkRead(builder, loc, c.sinks, heads[r], f32);
          AttentionSinkFold fold =
              AttentionSinkFold::build(builder, loc, rowMax(r), sum, sink);
          inverse = fold.buildProbabilityScale(builder, loc);
          max = fold.max;
          sum = fold.sum;
        }
        Value empty = kb.eqf(sum, f32Zero);
        if (!inverse)
          inverse = kb.select(
              empty, f32Zero,
              arith::DivFOp::create(builder, loc, kb.fconst(1.0), sum));
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
            Value m = max ? max : rowMax(r);
            Value lse = kb.select(
                empty, kb.fconst(std::numeric_limits<double>::infinity()),
                kb.addf(m, math::LogOp::create(builder, loc, sum)));
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

} // namespace

/// One block of four warps per (tile of 64 packed rows, kv head, batch);
/// warp w owns packed rows 16w..16w+15 of the tile (RowTile). Q fragments stay
/// in registers for the whole block; per tile of 64 keys, S = Q Kᵀ is 8 m16n8
/// tiles of mma, masked per element at its (row, col), and O += P V reuses S's
/// C fragments as P's A fragments (FlashAttention-2's register layout).
void attention_forward::buildMmaKernel(OpBuilder &builder, Location loc,
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
