//===- AttentionBackwardMma.cpp - tensor-core attention backward ----------===//
//
// The main kernel of kiln.attention_grad's FlashAttention-2 backward with
// mma.sync.m16n8k16 (f16 or bf16 operands, f32 accumulators), for head dims
// that are multiples of 16 up to 128. The other kernels (zero, preprocess,
// cast) and the SIMT main kernel are in AttentionBackward.cpp; this one reads
// and writes the same buffers.
//
// One block of four warps per (b, kv head g, tile of 64 keys); warp w owns
// keys 16w..16w+15 of the tile, i.e. the M rows of every mma it issues for
// dK and dV. Per tile of Br query rows (staged in workgroup memory):
//
//   S^T  = K Q^T                  (A: K rows, from the K tile)
//   dP^T = V dO^T                 (A: V rows, registers for the whole block)
//   P^T, dS^T elementwise at each accumulator's (key, query)
//   dV  += P'^T dO                (A: P'^T, the C fragments of S^T)
//   dK  += dS^T Q                 (A: dS^T, the C fragments of dS^T)
//   dQ  += dS K                   (dS^T through workgroup memory; one f32
//                                  atomic add per element per key tile)
//
// dK and dV stay in C fragments for the whole block and are written once.
// Every fragment read from a tile is one ldmatrix.x4 (two B fragments, or
// one A fragment); .trans for the B operands of dV, dK and dQ, whose pairs
// are two rows of a column. See docs/GPUAttentionBackward.md.
//
//===----------------------------------------------------------------------===//

#include "AttentionBackward.h"
#include "AttentionKernels.h"
#include "MmaFragments.h"
#include "TileCopy.h"

#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::attention_backward;

/// e^x as 2^(x log2 e): ex2.approx and a multiply on NVPTX, where
/// libdevice's range-reduced expf takes about 11 instructions. Its error, a
/// few ulp of f32, is far below the f16/bf16 rounding of P' and dS that
/// follows.
static Value buildFastExp(KernelBuilder &kb, Value x) {
  return math::Exp2Op::create(kb.b, kb.loc,
                              kb.mulf(x, kb.f32(llvm::numbers::log2e)));
}

/// Warps of a block; warp w owns keys 16w..16w+15 of the block's tile.
static constexpr int64_t kMmaWarps = 4;
static constexpr int64_t kMmaThreads = 32 * kMmaWarps;
/// Keys of a block (Bc).
static constexpr int64_t kMmaKeys = 16 * kMmaWarps;
/// Extra elements per row of the workgroup tiles, so that the eight 16-byte
/// rows of each 8x8 matrix an ldmatrix reads fall in distinct banks: a row
/// of D + 8 halves (D a multiple of 16) is an odd multiple of 16 bytes, and
/// stays 16-byte aligned (buildKernelLaunch aligns the tiles).
static constexpr int64_t kMmaPad = 8;
static constexpr int64_t kMaxMmaHeadDim = 128;
/// Shared memory of the kernel, below the 48 KiB above which a launch must
/// opt in (the CUDA runtime does; more is a tuning choice, not a limit).
static constexpr int64_t kMmaSharedBudget = 40 * 1024;

static FloatType getElementType(const BackwardProblem &p) {
  return cast<FloatType>(cast<MemRefType>(p.query.getType()).getElementType());
}

bool attention_backward::canUseMmaMainKernel(
    const BackwardProblem &problem, const AttentionGPUOptions &options) {
  FloatType element = getElementType(problem);
  return options.tensorCores && options.backwardTensorCores &&
         (element.isF16() || element.isBF16()) && problem.keyDim % 16 == 0 &&
         problem.valueDim % 16 == 0 && problem.keyDim <= kMaxMmaHeadDim &&
         problem.valueDim <= kMaxMmaHeadDim;
}

/// Bytes of workgroup memory for query tiles of `rows` rows: the K tile, the
/// Q, dO and dS tiles (half precision, padded rows), LSE, its correction and
/// D (f32).
static int64_t getSharedBytes(const BackwardProblem &p, int64_t rows) {
  int64_t halves = kMmaKeys * (p.keyDim + kMmaPad) +
                   rows * (p.keyDim + kMmaPad) + rows * (p.valueDim + kMmaPad) +
                   rows * (kMmaKeys + kMmaPad);
  return 2 * halves + 3 * 4 * rows;
}

/// Br: 64, 32 or 16 query rows, the largest whose tiles fit the budget (32
/// for D = 128) and that Sq does not leave more than half empty.
static int64_t getQueryTileRows(const BackwardProblem &p) {
  int64_t rows = 64;
  while (rows > 16 && (getSharedBytes(p, rows) > kMmaSharedBudget ||
                       rows / 2 >= p.numQueries))
    rows /= 2;
  return rows;
}

namespace {

/// The builder of a block of the tensor-core main kernel
/// (buildMmaMainKernel): one member function per phase of the block's work,
/// in the order they emit IR, and what the phases share: the problem and its
/// buffers, the tile sizes, the block's workgroup tiles, this thread's place
/// in the mma fragments and its two keys, V's A fragments, and the test of
/// whole tiles.
struct MmaMainKernel {
  /// A query tile being worked on: query head h, the flat index of its row
  /// 0 in the row buffers (rowBase), its first row i0, and whether it sees
  /// every key of the block (buildWholeTile; null when not tested).
  struct QueryTile {
    Value h, rowBase, i0, wholeTile;
  };
  /// Element e of n-tile `half` of a step's S^T: the query row ii of the
  /// tile (and i clamped, ic), the key clamped (jc), whether both exist,
  /// the recomputed logit and P before the predicate.
  struct Entry {
    Value ii, ic, jc, inRange, prob;
    Logit logit;
  };

  const BackwardProblem &p;
  Value lse, correction, delta, dqAcc, dmaskAcc, dk, dv;
  unsigned minBlocksPerSM;
  FloatType element;
  MmaBuilder mb;
  /// Br (getQueryTileRows) and the mma steps and n-tiles of Dk, Dv and Br.
  int64_t rows;
  int64_t keySteps, valueSteps, keyTiles, valueTiles, querySteps;

  // bindTiles: the workgroup tiles.
  Value keyTile, queryTile, doutTile, dsTile, lseTile, deltaTile,
      correctionTile;
  // buildThreadIds: constants, the block and this thread's warp and lane.
  Value zero, one, eight, numQueries, numKeys, lastQuery, lastKey;
  Value tid, g, b, j0, warp, lane, quad, twiceQuadLane;
  // buildLaneAddresses.
  Value matrixRow, aRow, aColumn, matrixColumn;
  // buildKeyIds: this thread's two keys, the zeros and the seed.
  Value tileKeys[2], keys[2], validKeys[2], clampedKeys[2];
  Value elementZero, f32Zero, seed;
  // stageKeyTile, loadValueFragments.
  Value vectorized;
  SmallVector<SmallVector<Value>> valueFrags;
  // planWholeTiles.
  bool wholeTilesPay = false;
  Value lastBlockKey;

  MmaMainKernel(OpBuilder &builder, Location loc, const BackwardProblem &p,
                Value lse, Value correction, Value delta, Value dqAcc,
                Value dmaskAcc, Value dk, Value dv, unsigned minBlocksPerSM)
      : p(p), lse(lse), correction(correction), delta(delta), dqAcc(dqAcc),
        dmaskAcc(dmaskAcc), dk(dk), dv(dv), minBlocksPerSM(minBlocksPerSM),
        element(getElementType(p)), mb{builder, loc, element},
        rows(getQueryTileRows(p)), keySteps(p.keyDim / 16),
        valueSteps(p.valueDim / 16), keyTiles(p.keyDim / 8),
        valueTiles(p.valueDim / 8), querySteps(rows / 16) {}

  /// Emits the body of a block: the ids, the K tile and V's fragments, the
  /// loops over the query heads of kv head g and their query tiles
  /// (buildQueryTile) carrying the dK and dV C fragments, and their stores.
  void build(KernelBuilder &kb, gpu::LaunchOp op, ValueRange tiles) {
    setMinBlocksPerSM(op, minBlocksPerSM);
    bindTiles(tiles);
    buildThreadIds(kb, op);
    buildLaneAddresses(kb);
    buildKeyIds(kb);
    stageKeyTile(kb);
    loadValueFragments(kb);

    auto [firstTile, endTile] = buildQueryTileRange(kb, p, j0, kMmaKeys, rows);
    planWholeTiles(kb);

    // The loop state: the dK then the dV C fragments.
    SmallVector<Value> inits(4 * (keyTiles + valueTiles), f32Zero);
    // The R query heads of kv head g, then the query tiles.
    ValueRange accs = kb.loop(
        zero, kb.index(p.groupSize), one, inits,
        [&](KernelBuilder &kb, Value r,
            ValueRange state) -> SmallVector<Value> {
          Value h = kb.add(kb.mul(g, kb.index(p.groupSize)), r);
          Value rowBase =
              kb.mul(kb.add(kb.mul(b, kb.index(p.numHeads)), h), numQueries);
          ValueRange tiles =
              kb.loop(firstTile, endTile, one, state,
                      [&](KernelBuilder &kb, Value tile,
                          ValueRange state) -> SmallVector<Value> {
                        return buildQueryTile(kb, h, rowBase, tile, state);
                      });
          return SmallVector<Value>(tiles);
        });

    storeKeyGradients(kb, accs);
  }

  /// Names the launch's workgroup tiles (emits nothing).
  void bindTiles(ValueRange tiles) {
    keyTile = tiles[0];
    queryTile = tiles[1];
    doutTile = tiles[2];
    dsTile = tiles[3];
    lseTile = tiles[4];
    deltaTile = tiles[5];
    correctionTile = tiles[6];
  }

  /// Emits the index constants, the block's first key j0, and this thread's
  /// warp, lane, quad (the row of a fragment) and twice its lane in the quad
  /// (the first column of its pair).
  void buildThreadIds(KernelBuilder &kb, gpu::LaunchOp op) {
    zero = kb.index(0);
    one = kb.index(1);
    eight = kb.index(8);
    numQueries = kb.index(p.numQueries);
    numKeys = kb.index(p.numKeys);
    lastQuery = kb.index(p.numQueries - 1);
    lastKey = kb.index(p.numKeys - 1);
    tid = op.getThreadIds().x;
    g = op.getBlockIds().y;
    b = op.getBlockIds().z;
    j0 = kb.mul(op.getBlockIds().x, kb.index(kMmaKeys));
    warp = kb.div(tid, kb.index(32));
    lane = kb.rem(tid, kb.index(32));
    quad = kb.div(lane, kb.index(4));
    twiceQuadLane = kb.mul(kb.rem(lane, kb.index(4)), kb.index(2));
  }

  /// Emits the row and column this lane addresses in an ldmatrix.x4.
  void buildLaneAddresses(KernelBuilder &kb) {
    // What this lane addresses in an ldmatrix (row l % 8 of matrix l / 8):
    // (aRow, aColumn) puts the four matrices in A-fragment order over a
    // 16 x 16 block (rows 0-7 and 8-15 of columns 0-7, then of columns
    // 8-15), which is also the order of the B pairs of two n-tiles in a
    // .trans load; (matrixRow, matrixColumn) puts them side by side over
    // 8 rows and 32 columns (the B pairs of two k-steps of an n-tile).
    matrixRow = kb.rem(lane, eight);
    Value matrix = kb.div(lane, eight);
    aRow = kb.add(matrixRow, kb.mul(kb.rem(matrix, kb.index(2)), eight));
    aColumn = kb.mul(kb.div(matrix, kb.index(2)), eight);
    matrixColumn = kb.mul(matrix, eight);
  }

  /// Emits this thread's two keys (in the tile and in the sequence, whether
  /// each exists and each clamped), the zeros and the dropout seed.
  void buildKeyIds(KernelBuilder &kb) {
    // This thread's two key rows of every C fragment of the warp (g and
    // g + 8 of its 16), in the tile and in the sequence; reads of keys
    // past Sk go to the last one and are masked.
    Value tileKey0 = kb.add(kb.mul(warp, kb.index(16)), quad);
    tileKeys[0] = tileKey0;
    tileKeys[1] = kb.add(tileKey0, eight);
    for (int64_t r = 0; r < 2; ++r) {
      keys[r] = kb.add(j0, tileKeys[r]);
      validKeys[r] = kb.lt(keys[r], numKeys);
      clampedKeys[r] = kb.min(keys[r], lastKey);
    }
    elementZero = arith::ConstantOp::create(kb.b, kb.loc,
                                            kb.b.getFloatAttr(element, 0.0));
    f32Zero = kb.f32(0.0);
    seed = p.seed ? memref::LoadOp::create(kb.b, kb.loc, p.seed, ValueRange{})
                  : Value();
  }

  /// Emits the copy of the block's K rows into the K tile, with the
  /// uniform test of whether tiles are copied 16 bytes at a time.
  void stageKeyTile(KernelBuilder &kb) {
    // Copies tiles with all threads (buildTileCopies): 16 bytes per load
    // when K, Q and dO all start 16-byte aligned (their rows then do
    // too: the head dims are multiples of 16), element by element
    // otherwise; the branch is uniform.
    vectorized = buildAllAligned(kb.b, kb.loc, {p.key, p.query, p.dout}, 16);
    TileCopy keyCopy = {p.key,    {b, g},  j0,      kMmaKeys,
                        p.keyDim, numKeys, lastKey, keyTile};
    buildTileCopies(kb.b, kb.loc, keyCopy, tid, kMmaThreads, vectorized);
  }

  /// Emits the loads of V's A fragments (rows: this warp's keys; zeros past
  /// Sk), once for the block, then a barrier (the K tile is staged).
  void loadValueFragments(KernelBuilder &kb) {
    for (int64_t ks = 0; ks < valueSteps; ++ks) {
      Value col = kb.add(twiceQuadLane, kb.index(16 * ks));
      auto pairAt = [&](int64_t r, Value column) {
        auto at = [&](Value c) -> Value {
          Value x = memref::LoadOp::create(kb.b, kb.loc, p.value,
                                           ValueRange{b, g, clampedKeys[r], c});
          return kb.select(validKeys[r], x, elementZero);
        };
        Value lo = at(column);
        return mb.pack(lo, at(kb.add(column, one)));
      };
      Value col8 = kb.add(col, eight);
      valueFrags.push_back(
          {pairAt(0, col), pairAt(1, col), pairAt(0, col8), pairAt(1, col8)});
    }
    kb.barrier();
  }

  /// Decides whether buildWholeTile pays (the predicate has terms, all of
  /// them covered by its test) and emits the block's last key.
  void planWholeTiles(KernelBuilder &kb) {
    const AttentionVisibility &vis = p.logits.visibility;
    const AttentionBand &band = vis.band;
    wholeTilesPay = !vis.hasEntryTerms() &&
                    (band.isBounded() || vis.keyLengths ||
                     p.numKeys % kMmaKeys != 0 || p.numQueries % rows != 0);
    lastBlockKey = kb.add(j0, kb.index(kMmaKeys - 1));
  }

  /// Emits whether every row of the query tile i0 .. i0 + Br - 1 sees every
  /// key of the block: all rows < Sq and keys < Sk and below the key length,
  /// the block's keys inside the band of the tile's first row (right edge)
  /// and last row (left edge). Null when the predicate has terms this does
  /// not cover (AttentionVisibility::hasEntryTerms) or none.
  Value buildWholeTile(KernelBuilder &kb, Value i0) {
    const AttentionVisibility &vis = p.logits.visibility;
    const AttentionBand &band = vis.band;
    if (!wholeTilesPay)
      return Value();
    Value lastRow = kb.add(i0, kb.index(rows - 1));
    Value whole =
        kb.andI(kb.lt(lastRow, numQueries), kb.lt(lastBlockKey, numKeys));
    if (vis.keyLengths)
      whole =
          kb.andI(whole, kb.lt(lastBlockKey,
                               buildClampedLength(kb.b, kb.loc, vis.keyLengths,
                                                  b, p.numKeys)));
    if (Value endKey = band.buildEndKey(kb.b, kb.loc, i0))
      whole = kb.andI(whole, kb.lt(lastBlockKey, endKey));
    if (Value firstKey = band.buildFirstKey(kb.b, kb.loc, lastRow))
      whole = kb.andI(whole, arith::CmpIOp::create(kb.b, kb.loc,
                                                   arith::CmpIPredicate::sge,
                                                   j0, firstKey));
    return whole;
  }

  /// Emits the work of query tile `tile` of query head h: staging, K's
  /// fragments, the steps of 16 query rows (buildQueryStep) that add into
  /// the dK and dV C fragments of `state`, then dQ (unless dqAcc is null:
  /// the deterministic backward). Returns the fragments.
  SmallVector<Value> buildQueryTile(KernelBuilder &kb, Value h, Value rowBase,
                                    Value tile, ValueRange state) {
    QueryTile qt;
    qt.h = h;
    qt.rowBase = rowBase;
    qt.i0 = kb.mul(tile, kb.index(rows));
    qt.wholeTile = buildWholeTile(kb, qt.i0);
    stageQueryTile(kb, qt);
    SmallVector<SmallVector<Value>> keyFrags = loadKeyFragments(kb);
    // Per step of 16 query rows q0..q0+15 (two n-tiles of 8): S^T =
    // K Q^T and dP^T = V dO^T, P' and dS elementwise, then dV += P'^T
    // dO and dK += dS^T Q. A loop rather than unrolled steps: four C
    // fragments of S^T and dP^T are alive instead of 2 Br / 8, and the
    // tile addresses are not hoisted out of the tile loop (registers).
    ValueRange stepped =
        kb.loop(zero, kb.index(rows), kb.index(16), state,
                [&](KernelBuilder &kb, Value q0,
                    ValueRange state) -> SmallVector<Value> {
                  return buildQueryStep(kb, qt, keyFrags, q0, state);
                });
    // The barrier stays without dQ: it keeps the next tile's staging of Q
    // and dO behind this tile's dK, dV mma.
    kb.barrier();
    if (dqAcc)
      accumulateQueryGradient(kb, qt);
    return SmallVector<Value>(stepped);
  }

  /// Emits the staging of Q, dO, LSE, its correction and D of the tile's
  /// rows in workgroup memory, then a barrier.
  void stageQueryTile(KernelBuilder &kb, const QueryTile &qt) {
    double inf = std::numeric_limits<double>::infinity();
    // Stage Q, dO, LSE and D of rows i0 .. i0 + Br (zeros and
    // LSE = +inf past Sq). No barrier is needed before: the previous
    // tile's last readers of these (the dK, dV mma) are behind the dS
    // barrier, and the dS tile is written after the next one.
    TileCopy queryCopy = {p.query,  {b, qt.h},  qt.i0,     rows,
                          p.keyDim, numQueries, lastQuery, queryTile};
    TileCopy doutCopy = {p.dout,     {b, qt.h},  qt.i0,     rows,
                         p.valueDim, numQueries, lastQuery, doutTile};
    TileCopy copies[] = {queryCopy, doutCopy};
    // Thread t < Br stages row t's LSE and D (Br <= 64 < 128
    // threads). Their loads go first, so that they are in flight
    // with Q's and dO's instead of after them; every thread loads
    // (at a clamped row), only t < Br stores.
    static_assert(kMmaThreads >= 64, "one thread per query row");
    Value i = kb.add(qt.i0, tid);
    Value valid = kb.lt(i, numQueries);
    Value row = kb.add(qt.rowBase, kb.min(i, lastQuery));
    Value lseRow = kb.select(valid, kb.load(lse, row), kb.f32(inf));
    Value deltaRow = kb.select(valid, kb.load(delta, row), f32Zero);
    Value correctionRow = kb.select(valid, kb.load(correction, row), f32Zero);
    buildTileCopies(kb.b, kb.loc, copies, tid, kMmaThreads, vectorized);
    kb.ifThen(kb.lt(tid, kb.index(rows)), [&](KernelBuilder &kb) {
      kb.store(lseRow, lseTile, tid);
      kb.store(deltaRow, deltaTile, tid);
      kb.store(correctionRow, correctionTile, tid);
    });
    kb.barrier();
  }

  /// Emits the loads of K's A fragments from the K tile (rows: this warp's
  /// keys), one ldmatrix.x4 each, and returns them.
  SmallVector<SmallVector<Value>> loadKeyFragments(KernelBuilder &kb) {
    Value keyRow = kb.add(kb.mul(warp, kb.index(16)), aRow);
    SmallVector<SmallVector<Value>> keyFrags;
    for (int64_t ks = 0; ks < keySteps; ++ks)
      keyFrags.push_back(mb.loadMatrices(keyTile, keyRow,
                                         kb.add(aColumn, kb.index(16 * ks)), 4,
                                         /*transpose=*/false));
    return keyFrags;
  }

  /// Emits one step of 16 query rows q0..q0+15 of the tile: S^T and dP^T,
  /// P' and dS at each of their elements, and dV, dK added into `state`'s
  /// C fragments; returns the fragments.
  SmallVector<Value> buildQueryStep(KernelBuilder &kb, const QueryTile &qt,
                                    ArrayRef<SmallVector<Value>> keyFrags,
                                    Value q0, ValueRange state) {
    SmallVector<Value> next(state.begin(), state.end());
    SmallVector<Value> probs[2], grads[2];
    for (int64_t half = 0; half < 2; ++half) {
      probs[half] = buildTransposedProduct(kb, keyFrags, queryTile, q0, half);
      grads[half] = buildTransposedProduct(kb, valueFrags, doutTile, q0, half);
    }
    SmallVector<Entry> entries = buildEntries(kb, qt, q0, probs);
    SmallVector<Value> visibleProbs = buildVisibleProbs(kb, qt, entries);
    buildGradients(kb, qt, entries, visibleProbs, probs, grads);
    accumulateKeyGradients(kb, q0, probs, grads, next);
    return next;
  }

  /// Emits the C fragment of n-tile `half` (query rows q0 + 8 half ..) of
  /// A Tᵀ, where T is the Q or dO tile `tileBuffer` and A the K or V
  /// fragments `aFrags`, and returns it.
  SmallVector<Value> buildTransposedProduct(KernelBuilder &kb,
                                            ArrayRef<SmallVector<Value>> aFrags,
                                            Value tileBuffer, Value q0,
                                            int64_t half) {
    // B[k = d][n = i] = Q[i][d]: b{0,1} are two adjacent d of query
    // row g of the n-tile. One ldmatrix.x4 (lane l: row l % 8 of
    // the n-tile, column 8 (l / 8)) gives the B fragments of two
    // k-steps; an odd last one takes an x2.
    Value row = kb.add(q0, kb.add(matrixRow, kb.index(8 * half)));
    SmallVector<Value> acc(4, f32Zero);
    int64_t steps = aFrags.size();
    for (int64_t ks = 0; ks < steps; ks += 2) {
      int64_t count = ks + 1 < steps ? 4 : 2;
      SmallVector<Value> bRegs = mb.loadMatrices(
          tileBuffer, row, kb.add(matrixColumn, kb.index(16 * ks)), count,
          /*transpose=*/false);
      for (int64_t s = 0; 2 * s < count; ++s)
        acc = mb.mma(aFrags[ks + s], ArrayRef(bRegs).slice(2 * s, 2), acc);
    }
    return acc;
  }

  /// Emits, for each element of the step's S^T fragments `probs`, its
  /// indices, logit and P (before the predicate), and returns them.
  SmallVector<Entry> buildEntries(KernelBuilder &kb, const QueryTile &qt,
                                  Value q0,
                                  ArrayRef<SmallVector<Value>> probs) {
    // Element e of n-tile `half` is key keys[e / 2] and query row
    // i0 + q0 + 8 half + 2t + e % 2: P' and dS there (overwriting
    // probs and grads), exactly as the SIMT kernel computes them.
    // Only the predicate depends on the tile: a tile that sees
    // every key of the block (`whole`) skips it, in a uniform
    // scf.if around the eight predicates alone.
    SmallVector<Entry> entries;
    for (int64_t half = 0; half < 2; ++half) {
      for (int64_t e = 0; e < 4; ++e) {
        Entry entry;
        entry.ii =
            kb.add(kb.add(q0, twiceQuadLane), kb.index(8 * half + e % 2));
        Value i = kb.add(qt.i0, entry.ii);
        entry.ic = kb.min(i, lastQuery);
        entry.jc = clampedKeys[e / 2];
        entry.inRange = kb.andI(kb.lt(i, numQueries), validKeys[e / 2]);
        entry.logit =
            buildLogit(kb, p, probs[half][e], b, qt.h, entry.ic, entry.jc);
        Value rowLse = memref::LoadOp::create(kb.b, kb.loc, lseTile, entry.ii);
        Value rowCorrection =
            memref::LoadOp::create(kb.b, kb.loc, correctionTile, entry.ii);
        entry.prob = buildFastExp(
            kb, kb.subf(kb.subf(entry.logit.logit, rowLse), rowCorrection));
        entries.push_back(entry);
      }
    }
    return entries;
  }

  /// Emits P of each entry where it is in range and visible, 0 elsewhere.
  SmallVector<Value> buildMaskedProbs(KernelBuilder &kb, const QueryTile &qt,
                                      ArrayRef<Entry> entries) {
    SmallVector<Value> masked;
    for (const Entry &entry : entries)
      masked.push_back(kb.select(
          kb.andI(entry.inRange,
                  buildAttentionVisible(kb.b, kb.loc, p.logits.visibility, b,
                                        qt.h, entry.ic, entry.jc)),
          entry.prob, f32Zero));
    return masked;
  }

  /// Emits the visible P of the entries: masked (buildMaskedProbs), or on a
  /// tile that may be whole, an scf.if yielding them unmasked where it is.
  SmallVector<Value> buildVisibleProbs(KernelBuilder &kb, const QueryTile &qt,
                                       ArrayRef<Entry> entries) {
    if (!qt.wholeTile)
      return buildMaskedProbs(kb, qt, entries);
    auto ifWhole =
        scf::IfOp::create(kb.b, kb.loc, SmallVector<Type>(8, kb.b.getF32Type()),
                          qt.wholeTile, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(kb.b);
    kb.b.setInsertionPointToStart(ifWhole.thenBlock());
    SmallVector<Value> unmasked;
    for (const Entry &entry : entries)
      unmasked.push_back(entry.prob);
    scf::YieldOp::create(kb.b, kb.loc, unmasked);
    kb.b.setInsertionPointToStart(ifWhole.elseBlock());
    scf::YieldOp::create(kb.b, kb.loc, buildMaskedProbs(kb, qt, entries));
    return SmallVector<Value>(ifWhole.getResults());
  }

  /// Emits, for each entry, P' (dropped out) in place of S^T in `probs`, dT
  /// (added into d_mask) and dS in place of dP^T in `grads`, with dS stored
  /// in the dS tile.
  void buildGradients(KernelBuilder &kb, const QueryTile &qt,
                      ArrayRef<Entry> entries, ArrayRef<Value> visibleProbs,
                      MutableArrayRef<SmallVector<Value>> probs,
                      MutableArrayRef<SmallVector<Value>> grads) {
    for (int64_t half = 0; half < 2; ++half) {
      for (int64_t e = 0; e < 4; ++e) {
        const Entry &entry = entries[4 * half + e];
        Value prob = visibleProbs[4 * half + e];
        Value dp = grads[half][e];
        Value droppedProb = prob;
        if (Value z =
                buildDropoutScale(kb, p, seed, b, qt.h, entry.ic, entry.jc)) {
          droppedProb = kb.mulf(prob, z);
          dp = kb.mulf(dp, z);
        }
        Value rowDelta =
            memref::LoadOp::create(kb.b, kb.loc, deltaTile, entry.ii);
        Value dt = kb.mulf(prob, kb.subf(dp, rowDelta));
        if (dmaskAcc) {
          // d_mask[broadcast(b, h, i, j)] += dT.
          Value flat =
              buildMaskAdjointIndex(kb, p, b, qt.h, entry.ic, entry.jc);
          kb.ifThen(entry.inRange, [&](KernelBuilder &kb) {
            kb.atomicAdd(dt, dmaskAcc, flat);
          });
        }
        Value ds = buildScoreGradient(kb, p, dt, entry.logit);
        probs[half][e] = droppedProb;
        grads[half][e] = ds;
        // dS (rounded as the mma reads it) for dQ = dS K; the
        // deterministic backward (no dqAcc) computes dQ apart.
        if (dqAcc)
          kb.store(ds, dsTile, {entry.ii, tileKeys[e / 2]});
      }
    }
  }

  /// Emits dV += P'^T dO and dK += dS^T Q over the step's 16 rows, into the
  /// C fragments in `next`.
  void accumulateKeyGradients(KernelBuilder &kb, Value q0,
                              ArrayRef<SmallVector<Value>> probs,
                              ArrayRef<SmallVector<Value>> grads,
                              MutableArrayRef<Value> next) {
    // The A fragment is the C fragments of the two n-tiles; B[k = i][n =
    // d] = dO[i][d], so b{0,1} are rows 2t, 2t+1 (+8) of column g
    // of the n-tile: one ldmatrix.x4.trans gives those of two
    // n-tiles.
    Value row = kb.add(q0, aRow);
    auto accumulate = [&](ArrayRef<Value> a, Value tileBuffer, int64_t tiles,
                          int64_t offset) {
      for (int64_t dn = 0; dn < tiles; dn += 2) {
        SmallVector<Value> bRegs =
            mb.loadMatrices(tileBuffer, row, kb.add(aColumn, kb.index(8 * dn)),
                            4, /*transpose=*/true);
        for (int64_t n = 0; n < 2; ++n) {
          MutableArrayRef<Value> acc(next.data() + offset + 4 * (dn + n), 4);
          SmallVector<Value> sum =
              mb.mma(a, ArrayRef(bRegs).slice(2 * n, 2), acc);
          llvm::copy(sum, acc.begin());
        }
      }
    };
    accumulate(mb.aFromAccumulators(grads[0], grads[1]), queryTile, keyTiles,
               /*offset=*/0);
    accumulate(mb.aFromAccumulators(probs[0], probs[1]), doutTile, valueTiles,
               /*offset=*/4 * keyTiles);
  }

  /// Emits dQ += dS K over the block's 64 keys for the staged tile, one f32
  /// atomic add per element.
  void accumulateQueryGradient(KernelBuilder &kb, const QueryTile &qt) {
    // Warp w takes the 16 query rows of m-tile w % (Br / 16) and every
    // (4 / (Br / 16))-th n-tile of Dk; A = dS rows from the dS tile,
    // B[k = j][n = d] = K[j][d].
    int64_t mTiles = querySteps, warpsPerRow = kMmaWarps / mTiles;
    Value rowTile = kb.rem(warp, kb.index(mTiles));
    Value firstColTile = kb.div(warp, kb.index(mTiles));
    Value row0 = kb.add(kb.mul(rowTile, kb.index(16)), quad);
    Value row8 = kb.add(row0, eight);
    Value dsRow = kb.add(kb.mul(rowTile, kb.index(16)), aRow);
    SmallVector<SmallVector<Value>> dsFrags;
    for (int64_t ks = 0; ks < kMmaKeys / 16; ++ks)
      dsFrags.push_back(mb.loadMatrices(dsTile, dsRow,
                                        kb.add(aColumn, kb.index(16 * ks)), 4,
                                        /*transpose=*/false));
    Value keyDim = kb.index(p.keyDim);
    Value rowPair[2] = {row0, row8};
    for (int64_t s = 0, e = ceilDiv(keyTiles, warpsPerRow); s < e; ++s) {
      Value colTile = kb.add(firstColTile, kb.index(s * warpsPerRow));
      auto build = [&](KernelBuilder &kb) {
        buildQueryGradientTile(kb, qt, dsFrags, rowPair, keyDim, colTile);
      };
      if (keyTiles % warpsPerRow == 0)
        build(kb);
      else // The condition is uniform in the warp, as mma needs.
        kb.ifThen(kb.lt(colTile, kb.index(keyTiles)), build);
    }
  }

  /// Emits dS K of n-tile `colTile` of Dk for this warp's 16 query rows
  /// (this thread's rows `rowPair` of them) and its atomic adds into dQ.
  void buildQueryGradientTile(KernelBuilder &kb, const QueryTile &qt,
                              ArrayRef<SmallVector<Value>> dsFrags,
                              ArrayRef<Value> rowPair, Value keyDim,
                              Value colTile) {
    // B[k = j][n = d]: b{0,1} are keys 2t, 2t+1 (+8) of column g of
    // the n-tile; one ldmatrix.x4.trans (lane l: key 32p + l) gives
    // those of two k-steps.
    Value col = kb.mul(colTile, eight);
    SmallVector<Value> acc(4, f32Zero);
    for (int64_t ks = 0; ks < kMmaKeys / 16; ks += 2) {
      SmallVector<Value> bRegs =
          mb.loadMatrices(keyTile, kb.add(lane, kb.index(16 * ks)), col, 4,
                          /*transpose=*/true);
      for (int64_t s = 0; s < 2; ++s)
        acc = mb.mma(dsFrags[ks + s], ArrayRef(bRegs).slice(2 * s, 2), acc);
    }
    for (int64_t e = 0; e < 4; ++e) {
      Value i = kb.add(qt.i0, rowPair[e / 2]);
      Value d = kb.add(kb.mul(colTile, eight),
                       kb.add(twiceQuadLane, kb.index(e % 2)));
      kb.ifThen(kb.lt(i, numQueries), [&](KernelBuilder &kb) {
        Value flat = kb.add(kb.mul(kb.add(qt.rowBase, i), keyDim), d);
        kb.atomicAdd(acc[e], dqAcc, flat);
      });
    }
  }

  /// Emits the stores of dK and dV from the loop's C fragments `accs`,
  /// rounded once: element e of n-tile dn is key keys[e / 2], column
  /// 8dn + 2t + e % 2.
  void storeKeyGradients(KernelBuilder &kb, ValueRange accs) {
    auto write = [&](Value result, int64_t tiles, int64_t offset) {
      for (int64_t r = 0; r < 2; ++r) {
        kb.ifThen(validKeys[r], [&](KernelBuilder &kb) {
          for (int64_t dn = 0; dn < tiles; ++dn) {
            for (int64_t e = 2 * r; e < 2 * r + 2; ++e) {
              Value col = kb.add(twiceQuadLane, kb.index(8 * dn + e % 2));
              kb.store(accs[offset + 4 * dn + e], result, {b, g, keys[r], col});
            }
          }
        });
      }
    };
    write(dk, keyTiles, /*offset=*/0);
    write(dv, valueTiles, /*offset=*/4 * keyTiles);
  }
};

} // namespace

void attention_backward::buildMmaMainKernel(OpBuilder &builder, Location loc,
                                            const BackwardProblem &problem,
                                            Value lse, Value correction,
                                            Value delta, Value dqAcc,
                                            Value dmaskAcc, Value dk, Value dv,
                                            unsigned minBlocksPerSM) {
  const BackwardProblem &p = problem;
  FloatType element = getElementType(p);
  Type f32 = builder.getF32Type();
  int64_t rows = getQueryTileRows(p);
  auto shared = gpu::AddressSpace::Workgroup;
  MemRefType workgroup[] = {
      getGPUMemRefType({kMmaKeys, p.keyDim + kMmaPad}, element, shared),
      getGPUMemRefType({rows, p.keyDim + kMmaPad}, element, shared),
      getGPUMemRefType({rows, p.valueDim + kMmaPad}, element, shared),
      getGPUMemRefType({rows, kMmaKeys + kMmaPad}, element, shared),
      getGPUMemRefType({rows}, f32, shared),
      getGPUMemRefType({rows}, f32, shared),
      getGPUMemRefType({rows}, f32, shared)};
  MmaMainKernel kernel(builder, loc, p, lse, correction, delta, dqAcc, dmaskAcc,
                       dk, dv, minBlocksPerSM);
  buildLaunch(builder, loc,
              {ceilDiv(p.numKeys, kMmaKeys), p.numKVHeads, p.batch},
              kMmaThreads, workgroup, /*privates=*/{},
              [&](KernelBuilder &kb, gpu::LaunchOp op, ValueRange tiles) {
                kernel.build(kb, op, tiles);
              });
}
