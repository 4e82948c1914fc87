//===- AttentionBackward.cpp - kiln.attention_grad as GPU kernels ---------===//
//
// kiln.attention_grad on tensors becomes FlashAttention-2's backward pass: a
// few gpu.launch ops between bufferization.to_buffer of the operands and
// bufferization.to_tensor of dQ, dK, dV (and d_mask, d_sinks). Nothing of size
// [Sq, Sk] is ever stored outside a block's shared memory.
//
//  1. zero: the f32 accumulators of dQ (and of an additive mask's adjoint).
//  2. preprocess: one thread per (b, h, query row i) walks the keys once with
//     the online-softmax rescaling and writes the row's max m_i (as LSE_i),
//     c_i = log(l_i) and D_i = sum_j P_ij dP_ij (= rowsum(dP * P)
//     with dP = (dO_i . V_j) * Z_ij / (1 - p)): m and log(l) apart, since
//     their sum would lose log(l) to rounding when |m| is huge. An empty row
//     gets LSE = +inf, c = 0 and D = 0, so that every P of the row is 0.
//  3. main: one block per (b, kv head g, tile of Bc keys), one thread per key
//     row j. K_j, V_j and the dK_j, dV_j accumulators live in the thread's
//     private memory; the block loops over the R query heads of the group
//     and over tiles of Br query rows, staging Q, dO, LSE and D in shared
//     memory, so K and V are read once per group. For each (i, j):
//       P    = visible ? exp(t_ij - LSE_i - c_i) : 0, P' = P * Z / (1 - p)
//       dV_j += P' dO_i,   dP = Z / (1 - p) * (dO_i . V_j)
//       dT   = P (dP - D_i)                     (d_mask += dT, atomically)
//       dS   = scale * dT * (1 - tanh^2)        (the factor only for softcap)
//       dK_j += dS Q_i
//     dS goes to shared memory; after a barrier the block sums
//     dQ_i += sum_j dS_ij K_j over its keys and adds each element of the
//     tile once, atomically, into the f32 dQ accumulator.
//     (With backward-tensor-cores, f16/bf16 with Dk, Dv multiples of 16 up
//     to 128 use the mma.sync kernel of AttentionBackwardMma.cpp instead.)
//  4. cast: the f32 accumulators of dQ (and d_mask) to the result types.
//
// With the pass option `deterministic`, nothing is added atomically: the
// main kernels skip dQ (no zero, no cast, no dS K atomics), a dQ kernel
// after them (AttentionBackwardDq.cpp) computes dQ_i = sum_j dS_ij K_j with
// one thread per query row walking its keys in order, and an op with an
// additive mask (whose d_mask the main kernels add atomically) goes the
// generic way. dK and dV are deterministic either way: one block owns a
// key tile and loops over the query heads and tiles in a fixed order.
//
// With attention sinks the preprocess folds each row's sink into its
// statistics (so the main kernels' P includes it), and a kernel after it
// sums d_sinks[h] = -sum_{b, i} P_sink D over each head's rows in order.
//
// With the forward's `out` and `lse` operands (FlashAttention-2's saved
// residuals) the preprocess walks no key: one thread per row computes
// D_i = rowsum(dO_i * O_i) over Dv (equal to rowsum(dP * P), dropout
// included, since O = P'V), and c_i = 0 except in a row whose |LSE| is
// beyond kAttentionSavedLseBound (AttentionUtils.h), which walks its
// keys once for c_i = log(sum_j exp(t_ij - LSE_i)); the main kernel reads
// the given f32 LSE buffer itself.
//
// The sizes, the visibility predicate, the logits and the dropout draw are
// those of kiln/Dialect/Kiln/Utils/AttentionUtils.h, which read the mask and
// lengths from buffers here: every backend shares one definition. f16 and bf16 load half values,
// compute in f32 and round each result once.
//
//===----------------------------------------------------------------------===//

#include "AttentionBackward.h"
#include "AttentionKernels.h"
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

#include <limits>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::attention_backward;

/// Threads (and keys) of a main-kernel block: Bc.
static constexpr int64_t kKeysPerBlock = 64;
/// Threads of the elementwise kernels (a preprocess block's, one query row
/// each, are kRowsPerBlock of AttentionBackward.h).
static constexpr int64_t kElementsPerBlock = 256;
/// Head dims beyond this go the generic way (private memory per thread).
static constexpr int64_t kMaxHeadDim = 256;
/// Shared memory of the main kernel, below the 48 KiB above which a launch
/// must opt in.
static constexpr int64_t kSharedMemoryBudget = 40 * 1024;

void attention_backward::buildLaunch(
    OpBuilder &builder, Location loc, std::array<int64_t, 3> grid,
    int64_t threads, ArrayRef<MemRefType> tiles, TypeRange privates,
    function_ref<void(KernelBuilder &, gpu::LaunchOp, ValueRange)> body) {
  SmallVector<Value> tileViews;
  gpu::LaunchOp launch = buildKernelLaunch(builder, loc, grid, threads, tiles,
                                           privates, tileViews);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(&launch.getBody().front());
  KernelBuilder kb{{builder, loc}};
  body(kb, launch, tileViews);
  gpu::TerminatorOp::create(builder, loc);
}

/// A 1-D launch with one thread per element n < `count`.
static void
buildElementwiseLaunch(OpBuilder &builder, Location loc, int64_t count,
                       function_ref<void(KernelBuilder &, Value)> body) {
  int64_t blocks = ceilDiv(count, kElementsPerBlock);
  buildLaunch(builder, loc, {blocks, 1, 1}, kElementsPerBlock, {}, {},
              [&](KernelBuilder &kb, gpu::LaunchOp launch, ValueRange) {
                Value n = kb.add(kb.mul(launch.getBlockIds().x,
                                        kb.index(kElementsPerBlock)),
                                 launch.getThreadIds().x);
                kb.ifThen(kb.lt(n, kb.index(count)),
                          [&](KernelBuilder &kb) { body(kb, n); });
              });
}

/// The row-major indices of the flat index `n` in `shape`.
static SmallVector<Value> delinearize(KernelBuilder &kb, Value n,
                                     ArrayRef<int64_t> shape) {
  SmallVector<Value> indices(shape.size());
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    Value size = kb.index(shape[d]);
    indices[d] = d == 0 ? n : kb.rem(n, size);
    n = kb.div(n, size);
  }
  return indices;
}

Logit attention_backward::buildLogit(KernelBuilder &kb,
                                     const BackwardProblem &problem,
                                     Value score, Value b, Value h, Value i,
                                     Value j) {
  Logit result;
  result.logit = problem.logits.buildUnmasked(kb.b, kb.loc, score, b, h, i, j,
                                              &result.capFactor);
  return result;
}

Value attention_backward::buildDropoutScale(KernelBuilder &kb,
                                            const BackwardProblem &problem,
                                            Value seed, Value b, Value h,
                                            Value i, Value j) {
  if (problem.dropout == 0.0)
    return {};
  Value keep = buildAttentionDropoutKeep(kb.b, kb.loc, seed, problem.dropout,
                                         problem.getScoresShape(), b, h, i, j);
  return kb.select(keep, kb.f32(1.0 / (1.0 - problem.dropout)), kb.f32(0.0));
}

Value attention_backward::buildMaskAdjointIndex(KernelBuilder &kb,
                                                const BackwardProblem &problem,
                                                Value b, Value h, Value i,
                                                Value j) {
  ArrayRef<int64_t> shape = problem.maskShape;
  Value coords[] = {b, h, i, j};
  Value flat = kb.index(0);
  for (auto [d, size] : llvm::enumerate(shape)) {
    flat = kb.mul(flat, kb.index(size));
    if (size != 1)
      flat = kb.add(flat, coords[4 - shape.size() + d]);
  }
  return flat;
}

EntryGradient attention_backward::buildEntryGradient(
    KernelBuilder &kb, const BackwardProblem &p, Value seed, const Logit &logit,
    Value inRange, const RowStatistics &row,
    function_ref<Value(KernelBuilder &)> buildValueProduct, Value b, Value h,
    Value i, Value j) {
  Value visible =
      buildAttentionVisible(kb.b, kb.loc, p.logits.visibility, b, h, i, j);
  if (inRange)
    visible = kb.andI(inRange, visible);
  Value prob = kb.select(
      visible,
      kb.exp(kb.subf(kb.subf(logit.logit, kb.load(row.lse, row.index)),
                     kb.load(row.correction, row.index))),
      kb.f32(0.0));
  Value dp = buildValueProduct(kb);
  Value droppedProb = prob;
  if (Value z = buildDropoutScale(kb, p, seed, b, h, i, j)) {
    droppedProb = kb.mulf(prob, z);
    dp = kb.mulf(dp, z);
  }
  Value dt = kb.mulf(prob, kb.subf(dp, kb.load(row.delta, row.index)));
  return {droppedProb, dt};
}

Value attention_backward::buildScoreGradient(KernelBuilder &kb,
                                             const BackwardProblem &p, Value dt,
                                             const Logit &logit) {
  Value ds = kb.mulf(dt, kb.f32(p.logits.scale));
  if (logit.capFactor)
    ds = kb.mulf(ds, logit.capFactor);
  return ds;
}

std::pair<Value, Value> attention_backward::buildQueryTileRange(
    KernelBuilder &kb, const BackwardProblem &problem, Value keyBegin,
    int64_t keys, int64_t rows) {
  // Key j is seen by the rows [firstRow(j), endRow(j)) of its band
  // (AttentionBand), so the tiles before the one of firstRow(j0) and from
  // the one of endRow(jLast) on see none (the bounds are uniform in the
  // block, as the barriers need).
  const BackwardProblem &p = problem;
  const AttentionBand &band = p.logits.visibility.band;
  Value zero = kb.index(0);
  Value j0 = keyBegin;
  int64_t numTiles = ceilDiv(p.numQueries, rows);
  Value firstTile = zero, endTile = kb.index(numTiles);
  if (Value firstRow = band.buildFirstRow(kb.b, kb.loc, j0))
    firstTile = kb.div(kb.max(zero, firstRow), kb.index(rows));
  if (band.minDistance) {
    Value lastKey =
        kb.min(kb.add(j0, kb.index(keys - 1)), kb.index(p.numKeys - 1));
    Value endRow = band.buildEndRow(kb.b, kb.loc, lastKey);
    // ceil(max(endRow, 0) / rows): 0 when no row sees the block's keys.
    Value tiles = kb.div(kb.add(kb.max(zero, endRow), kb.index(rows - 1)),
                         kb.index(rows));
    endTile = kb.min(endTile, tiles);
  }
  return {firstTile, endTile};
}

std::pair<Value, Value>
attention_backward::buildRowKeyRange(KernelBuilder &kb,
                                     const BackwardProblem &p, Value i) {
  const AttentionBand &band = p.logits.visibility.band;
  Value zero = kb.index(0);
  Value firstKey = zero, endKey = kb.index(p.numKeys);
  if (Value bandFirst = band.buildFirstKey(kb.b, kb.loc, i))
    firstKey = kb.max(zero, bandFirst);
  if (Value bandEnd = band.buildEndKey(kb.b, kb.loc, i))
    endKey = kb.min(endKey, bandEnd);
  return {firstKey, endKey};
}

Value attention_backward::buildRowIndex(KernelBuilder &kb,
                                        const BackwardProblem &p, Value b,
                                        Value h, Value i) {
  return kb.add(
      kb.mul(kb.add(kb.mul(b, kb.index(p.numHeads)), h), kb.index(p.numQueries)),
      i);
}

/// Stores the statistics {m, l, acc} of row (b, h, i) after the
/// preprocess's walk over its keys (m its max, l = sum_j exp(t - m),
/// acc = sum_j exp(t - m) dP): lse = m, correction = log(l), delta = acc / l;
/// +inf, 0 and 0 for an empty row (l = 0). With sinks, sinks[h] joins m and l
/// first (AttentionSinkFold): lse = m', correction = log(l'),
/// delta = acc * rescale / l', the row empty only if l' = 0.
static void storeRowStatistics(KernelBuilder &kb, const BackwardProblem &p,
                               Value b, Value h, Value i, ValueRange stats,
                               Value lse, Value correction, Value delta) {
  double inf = std::numeric_limits<double>::infinity();
  Value m = stats[0], l = stats[1], acc = stats[2];
  if (p.sinks) {
    Value sink = buildSinkRead(kb.b, kb.loc, p.sinks, h, kb.b.getF32Type());
    AttentionSinkFold fold = AttentionSinkFold::build(kb.b, kb.loc, m, l, sink);
    Value empty = kb.eqf(fold.sum, kb.f32(0.0));
    Value logSum = math::LogOp::create(kb.b, kb.loc, fold.sum);
    Value row = buildRowIndex(kb, p, b, h, i);
    kb.store(kb.select(empty, kb.f32(inf), fold.max), lse, row);
    kb.store(kb.select(empty, kb.f32(0.0), logSum), correction, row);
    kb.store(kb.mulf(acc, fold.buildProbabilityScale(kb.b, kb.loc)), delta,
             row);
    return;
  }
  Value empty = kb.eqf(l, kb.f32(0.0));
  Value logSum = math::LogOp::create(kb.b, kb.loc, l);
  Value row = buildRowIndex(kb, p, b, h, i);
  kb.store(kb.select(empty, kb.f32(inf), m), lse, row);
  kb.store(kb.select(empty, kb.f32(0.0), logSum), correction, row);
  kb.store(kb.select(empty, kb.f32(0.0), kb.divf(acc, l)), delta, row);
}

/// The preprocess kernel: the row statistics of every (b, h, i), as
/// [B * Hq * Sq] f32 buffers: the row max m in `lse` and log(l) in
/// `correction`, so that the main kernels' exp(t - lse - correction) is
/// exp(t - m) / l however large |m| is (LSE = m + log(l) would round log(l)
/// away: AttentionUtils.h, kAttentionSavedLseBound), and D. An empty row gets
/// lse = +inf, correction = 0 and D = 0, so that each of its P is 0. With
/// sinks, the row's sink joins m and l after the walk (storeRowStatistics).
static void buildPreprocessKernel(OpBuilder &builder, Location loc,
                                  const BackwardProblem &problem, Value lse,
                                  Value correction, Value delta) {
  const BackwardProblem &p = problem;
  Type f32 = builder.getF32Type();
  Type privates[] = {
      getGPUMemRefType({p.keyDim}, f32, gpu::AddressSpace::Private),
      getGPUMemRefType({p.valueDim}, f32, gpu::AddressSpace::Private)};
  buildLaunch(
      builder, loc, {ceilDiv(p.numQueries, kRowsPerBlock), p.numHeads, p.batch},
      kRowsPerBlock, {}, privates,
      [&](KernelBuilder &kb, gpu::LaunchOp op, ValueRange) {
        Value qRow = op.getPrivateAttributions()[0];
        Value doutRow = op.getPrivateAttributions()[1];
        Value zero = kb.index(0), one = kb.index(1);
        Value i = kb.add(kb.mul(op.getBlockIds().x, kb.index(kRowsPerBlock)),
                         op.getThreadIds().x);
        Value h = op.getBlockIds().y, b = op.getBlockIds().z;
        Value g = kb.div(h, kb.index(p.groupSize));
        Value seed =
            p.seed ? memref::LoadOp::create(kb.b, kb.loc, p.seed, ValueRange{})
                   : Value();
        kb.ifThen(kb.lt(i, kb.index(p.numQueries)), [&](KernelBuilder &kb) {
          // The row's Q and dO, in private memory.
          kb.forEach(zero, kb.index(p.keyDim), one,
                     [&](KernelBuilder &kb, Value d) {
                       kb.store(kb.load(p.query, {b, h, i, d}), qRow, d);
                     });
          kb.forEach(zero, kb.index(p.valueDim), one,
                     [&](KernelBuilder &kb, Value d) {
                       kb.store(kb.load(p.dout, {b, h, i, d}), doutRow, d);
                     });
          double negInf = -std::numeric_limits<double>::infinity();
          // Only the keys of the band can be visible from row i.
          auto [firstKey, endKey] = buildRowKeyRange(kb, p, i);
          ValueRange stats = kb.loop(
              firstKey, endKey, one,
              {kb.f32(negInf), kb.f32(0.0), kb.f32(0.0)},
              [&](KernelBuilder &kb, Value j,
                  ValueRange args) -> SmallVector<Value> {
                Value m = args[0], l = args[1], acc = args[2];
                Value s = kb.sum(kb.index(p.keyDim),
                                 [&](KernelBuilder &kb, Value d) {
                                   return kb.loadProduct(qRow, d, p.key,
                                                         {b, g, j, d});
                                 });
                Value t = buildLogit(kb, p, s, b, h, i, j).logit;
                Value visible = buildAttentionVisible(kb.b, kb.loc,
                                                      p.logits.visibility, b, h, i, j);
                Value dp = kb.sum(kb.index(p.valueDim),
                                  [&](KernelBuilder &kb, Value d) {
                                    return kb.loadProduct(doutRow, d, p.value,
                                                          {b, g, j, d});
                                  });
                if (Value z = buildDropoutScale(kb, p, seed, b, h, i, j))
                  dp = kb.mulf(dp, z);
                // Online rescaling; a running max of -inf (only -inf logits
                // so far) rescales against 0 so that no inf - inf appears.
                Value mNew = arith::MaximumFOp::create(kb.b, kb.loc, m, t);
                Value mSafe =
                    kb.select(kb.eqf(mNew, kb.f32(negInf)), kb.f32(0.0), mNew);
                Value alpha = kb.exp(kb.subf(m, mSafe));
                Value e = kb.exp(kb.subf(t, mSafe));
                Value lNew = kb.addf(kb.mulf(l, alpha), e);
                Value scaled = kb.mulf(acc, alpha);
                Value accNew = kb.addf(scaled, kb.mulf(e, dp));
                return {kb.select(visible, mNew, m),
                        kb.select(visible, lNew, l),
                        kb.select(visible, accNew, acc)};
              });
          storeRowStatistics(kb, p, b, h, i, stats, lse, correction, delta);
        });
      });
}

/// The preprocess kernel of the saved forward: D_i = sum_d dO[b, h, i, d] *
/// O[b, h, i, d] of every (b, h, i), one thread per row, into the
/// [B * Hq * Sq] f32 `delta`. The row's LSE comes with the op; an empty row
/// has O = 0, hence D = 0. `correction` gets c_i = 0, or, for a row whose
/// |LSE| is beyond kAttentionSavedLseBound (AttentionUtils.h),
/// c_i = log(sum_j exp(t_ij - LSE_i)) over its visible keys (plus the
/// sink's exp(sinks[h] - LSE_i) with sinks), so that the
/// main kernels' exp(t - LSE - c) is P exactly. Only such rows (none in a
/// model without huge biases) read keys, walking them one by one.
///
/// The products are added in order of d, as the SIMT main kernel adds
/// those of dP_ij = dO_i . V_j, so that a row that sees one key alone
/// (O_i = V_j) gets D_i = dP_ij exactly, hence dS = 0 and no gradient, as
/// on the CPU. For f16/bf16 with Dv a multiple of 8, each thread reads its
/// rows 16 bytes at a time when dO and O are 16-byte aligned (a uniform
/// branch; element by element otherwise): with one 2-byte load per element,
/// the H200 took 137 us at B = 4, 16 heads, S = 4096, D = 64 (17 times
/// the time to read dO and O once), stalled on the load queue (ncu:
/// lg_throttle), the warp's loads being 32 rows apart.
static void buildSavedPreprocessKernel(OpBuilder &builder, Location loc,
                                       const BackwardProblem &problem,
                                       Value out, Value lse, Value correction,
                                       Value delta) {
  const BackwardProblem &p = problem;
  Type element = cast<MemRefType>(p.dout.getType()).getElementType();
  bool chunked =
      element.getIntOrFloatBitWidth() == 16 && p.valueDim % kStagingChunk == 0;
  buildLaunch(
      builder, loc, {ceilDiv(p.numQueries, kRowsPerBlock), p.numHeads, p.batch},
      kRowsPerBlock, {}, {},
      [&](KernelBuilder &kb, gpu::LaunchOp op, ValueRange) {
        Value i = kb.add(kb.mul(op.getBlockIds().x, kb.index(kRowsPerBlock)),
                         op.getThreadIds().x);
        Value h = op.getBlockIds().y, b = op.getBlockIds().z;
        Value aligned = chunked
                            ? buildAllAligned(kb.b, kb.loc, {p.dout, out}, 16)
                            : Value();
        kb.ifThen(kb.lt(i, kb.index(p.numQueries)), [&](KernelBuilder &kb) {
          Value dot;
          if (!chunked) {
            dot = kb.sum(kb.index(p.valueDim), [&](KernelBuilder &kb, Value d) {
              return kb.loadProduct(p.dout, {b, h, i, d}, out, {b, h, i, d});
            });
          } else {
            Type f32 = kb.b.getF32Type();
            auto chunkedDot = [&](bool wide) -> SmallVector<Value> {
              return SmallVector<Value>(kb.loop(
                  kb.index(0), kb.index(p.valueDim), kb.index(kStagingChunk),
                  {kb.f32(0.0)},
                  [&](KernelBuilder &kb, Value d,
                      ValueRange args) -> SmallVector<Value> {
                    Value x = buildChunkLoad(kb.b, kb.loc, p.dout, {b, h, i, d},
                                             wide);
                    Value y =
                        buildChunkLoad(kb.b, kb.loc, out, {b, h, i, d}, wide);
                    Value acc = args[0];
                    for (int64_t e = 0; e < kStagingChunk; ++e) {
                      auto extract = [&](Value chunk) -> Value {
                        Value v =
                            vector::ExtractOp::create(kb.b, kb.loc, chunk, e);
                        return arith::ExtFOp::create(kb.b, kb.loc, f32, v);
                      };
                      Value lhs = extract(x);
                      acc = kb.addf(acc, kb.mulf(lhs, extract(y)));
                    }
                    return {acc};
                  }));
            };
            dot = kiln::detail::buildAlignmentBranch(kb.b, kb.loc, aligned,
                                                     {f32}, chunkedDot)
                      .front();
          }
          Value row = buildRowIndex(kb, p, b, h, i);
          kb.store(dot, delta, row);

          Value rowLse = kb.load(lse, row);
          kb.store(kb.f32(0.0), correction, row);
          Value renormalize =
              buildSavedLseNeedsRenormalization(kb.b, kb.loc, rowLse);
          kb.ifThen(renormalize, [&](KernelBuilder &kb) {
            Value g = kb.div(h, kb.index(p.groupSize));
            auto [firstKey, endKey] = buildRowKeyRange(kb, p, i);
            Value sum =
                kb.loop(firstKey, endKey, kb.index(1), {kb.f32(0.0)},
                        [&](KernelBuilder &kb, Value j,
                            ValueRange args) -> SmallVector<Value> {
                          Value s = kb.sum(
                              kb.index(p.keyDim),
                              [&](KernelBuilder &kb, Value d) {
                                return kb.loadProduct(p.query, {b, h, i, d},
                                                      p.key, {b, g, j, d});
                              });
                          Value t = buildLogit(kb, p, s, b, h, i, j).logit;
                          Value visible = buildAttentionVisible(
                              kb.b, kb.loc, p.logits.visibility, b, h, i, j);
                          Value e = kb.exp(kb.subf(t, rowLse));
                          return {kb.addf(
                              args[0], kb.select(visible, e, kb.f32(0.0)))};
                        })
                    .front();
            // The sink is one more term, exp(s - LSE): LSE >= s, so the
            // fold's rescale is 1.
            if (p.sinks) {
              Value sink =
                  buildSinkRead(kb.b, kb.loc, p.sinks, h, kb.b.getF32Type());
              sum =
                  AttentionSinkFold::build(kb.b, kb.loc, rowLse, sum, sink).sum;
            }
            Value positive = arith::CmpFOp::create(
                kb.b, kb.loc, arith::CmpFPredicate::OGT, sum, kb.f32(0.0));
            kb.ifThen(positive, [&](KernelBuilder &kb) {
              kb.store(math::LogOp::create(kb.b, kb.loc, sum), correction,
                       row);
            });
          });
        });
      });
}

/// The d_sinks kernel: d_sinks[h] = -sum_{b, i} P_sink[b, h, i] D[b, h, i]
/// into the [Hq] `dsinks` (the sinks' type), with the sink's probability
/// P_sink = exp(sinks[h] - lse - correction), 0 where lse = +inf (an empty
/// row, whose D is 0 too). Both preprocesses leave lse + correction the
/// row's LSE with its sink (recomputed: m' and log(l'); saved: the given
/// LSE and c). One block per query head: thread t adds rows t, t + T, ... of
/// the head's B * Sq rows (n = b * Sq + i) in order, then the block sums the
/// T partial sums by a fixed tree in workgroup memory. No atomics, and the
/// order of every addition is fixed: deterministic.
static void buildSinkGradientKernel(OpBuilder &builder, Location loc,
                                    const BackwardProblem &p, Value lse,
                                    Value correction, Value delta,
                                    Value dsinks) {
  constexpr int64_t threads = kElementsPerBlock;
  static_assert((threads & (threads - 1)) == 0, "a power of two for the tree");
  double inf = std::numeric_limits<double>::infinity();
  MemRefType partials[] = {getGPUMemRefType({threads}, builder.getF32Type(),
                                            gpu::AddressSpace::Workgroup)};
  buildLaunch(
      builder, loc, {p.numHeads, 1, 1}, threads, partials, {},
      [&](KernelBuilder &kb, gpu::LaunchOp op, ValueRange tiles) {
        Value h = op.getBlockIds().x, t = op.getThreadIds().x;
        Value sink = buildSinkRead(kb.b, kb.loc, p.sinks, h, kb.b.getF32Type());
        // Row n of the head: query i = n % Sq of batch b = n / Sq.
        Value numQueries = kb.index(p.numQueries);
        Value sum =
            kb.loop(t, kb.index(p.batch * p.numQueries), kb.index(threads),
                    {kb.f32(0.0)},
                    [&](KernelBuilder &kb, Value n,
                        ValueRange args) -> SmallVector<Value> {
                      Value row = buildRowIndex(kb, p, kb.div(n, numQueries), h,
                                                kb.rem(n, numQueries));
                      Value rowLse = kb.load(lse, row);
                      Value exponent = kb.subf(kb.subf(sink, rowLse),
                                               kb.load(correction, row));
                      Value prob = kb.select(kb.eqf(rowLse, kb.f32(inf)),
                                             kb.f32(0.0), kb.exp(exponent));
                      return {
                          kb.addf(args[0], kb.mulf(prob, kb.load(delta, row)))};
                    })
                .front();
        Value partial = tiles[0];
        kb.store(sum, partial, t);
        for (int64_t half = threads / 2; half >= 1; half /= 2) {
          kb.barrier();
          kb.ifThen(kb.lt(t, kb.index(half)), [&](KernelBuilder &kb) {
            Value other = kb.add(t, kb.index(half));
            kb.store(kb.addf(kb.load(partial, t), kb.load(partial, other)),
                     partial, t);
          });
        }
        kb.ifThen(kb.lt(t, kb.index(1)), [&](KernelBuilder &kb) {
          kb.store(arith::NegFOp::create(kb.b, kb.loc,
                                         kb.load(partial, kb.index(0))),
                   dsinks, h);
        });
      });
}

/// The rows of a query tile: the largest power of two up to 64 (and up to
/// Sq rounded up) whose Q, dO, P' and dS tiles fit the shared memory budget.
static int64_t getQueryTileRows(const BackwardProblem &p) {
  int64_t rows = 64;
  auto bytes = [&](int64_t r) {
    return 4 * r * (p.keyDim + p.valueDim + 2 * kKeysPerBlock + 3);
  };
  while (rows > 1 && (bytes(rows) > kSharedMemoryBudget ||
                      rows / 2 >= p.numQueries))
    rows /= 2;
  return rows;
}

namespace {

/// The builder of a block of the SIMT main kernel (buildMainKernel): one
/// member function per phase of the block's work, and what the phases
/// share: the problem and its buffers, the rows of a query tile, the
/// block's workgroup tiles, the thread's private rows, and the block's keys
/// and the thread's key j.
struct MainKernel {
  const BackwardProblem &p;
  Value lse, correction, delta, dqAcc, dmaskAcc, dk, dv;
  /// The rows of a query tile (getQueryTileRows).
  int64_t rows;

  // bindBuffers: the workgroup tiles and the thread's private rows.
  Value qTile, doutTile, dsTile, probTile, lseTile, deltaTile, correctionTile;
  Value keyRow, valueRow, dkRow, dvRow;
  // buildKeyIds: constants, the block's keys and the thread's key j.
  Value zero, one, numQueries, numKeys, keyDim, valueDim, threads;
  Value tx, g, b, j0, j, validKey, jc, keysHere, seed;

  /// Emits the body of a block: its keys' rows, the loops over the query
  /// heads of kv head g and their query tiles (buildQueryTile), and the
  /// stores of dK and dV.
  void build(KernelBuilder &kb, gpu::LaunchOp op, ValueRange tiles) {
    bindBuffers(op, tiles);
    buildKeyIds(kb, op);
    loadKeyRows(kb);

    auto [firstTile, endTile] =
        buildQueryTileRange(kb, p, j0, kKeysPerBlock, rows);

    // The R query heads of kv head g, then the query tiles.
    kb.forEach(
        zero, kb.index(p.groupSize), one, [&](KernelBuilder &kb, Value r) {
          Value h = kb.add(kb.mul(g, kb.index(p.groupSize)), r);
          Value rowBase =
              kb.mul(kb.add(kb.mul(b, kb.index(p.numHeads)), h), numQueries);
          kb.forEach(firstTile, endTile, one,
                     [&](KernelBuilder &kb, Value tile) {
                       buildQueryTile(kb, h, rowBase, tile);
                     });
        });

    storeKeyGradients(kb);
  }

  /// Names the launch's workgroup tiles and private rows (emits nothing).
  void bindBuffers(gpu::LaunchOp op, ValueRange tiles) {
    qTile = tiles[0];
    doutTile = tiles[1];
    dsTile = tiles[2];
    probTile = tiles[3];
    lseTile = tiles[4];
    deltaTile = tiles[5];
    correctionTile = tiles[6];
    keyRow = op.getPrivateAttributions()[0];
    valueRow = op.getPrivateAttributions()[1];
    dkRow = op.getPrivateAttributions()[2];
    dvRow = op.getPrivateAttributions()[3];
  }

  /// Emits the constants, the block's first key j0, the thread's key j (and
  /// j clamped), the number of the block's keys and the dropout seed.
  void buildKeyIds(KernelBuilder &kb, gpu::LaunchOp op) {
    zero = kb.index(0);
    one = kb.index(1);
    numQueries = kb.index(p.numQueries);
    numKeys = kb.index(p.numKeys);
    keyDim = kb.index(p.keyDim);
    valueDim = kb.index(p.valueDim);
    threads = kb.index(kKeysPerBlock);
    tx = op.getThreadIds().x;
    g = op.getBlockIds().y;
    b = op.getBlockIds().z;
    j0 = kb.mul(op.getBlockIds().x, threads);
    j = kb.add(j0, tx);
    validKey = kb.lt(j, numKeys);
    // Reads of an out-of-range key or query row go to the last one and
    // are masked out by validKey / validQuery.
    jc = kb.min(j, kb.index(p.numKeys - 1));
    keysHere =
        kb.min(threads, arith::SubIOp::create(kb.b, kb.loc, numKeys, j0));
    seed = p.seed ? memref::LoadOp::create(kb.b, kb.loc, p.seed, ValueRange{})
                  : Value();
  }

  /// Emits the loads of K_j and V_j into the private rows (zeros for an
  /// out-of-range key) and the zeroing of the dK_j and dV_j accumulators.
  void loadKeyRows(KernelBuilder &kb) {
    kb.forEach(zero, keyDim, one, [&](KernelBuilder &kb, Value d) {
      kb.store(kb.select(validKey, kb.load(p.key, {b, g, jc, d}), kb.f32(0.0)),
               keyRow, d);
      kb.store(kb.f32(0.0), dkRow, d);
    });
    kb.forEach(zero, valueDim, one, [&](KernelBuilder &kb, Value d) {
      kb.store(
          kb.select(validKey, kb.load(p.value, {b, g, jc, d}), kb.f32(0.0)),
          valueRow, d);
      kb.store(kb.f32(0.0), dvRow, d);
    });
  }

  /// Emits the work of query tile `tile` of query head h (rowBase: the flat
  /// index of its row 0 in the row buffers): staging, the entries of
  /// thread j, then the dK_j, dV_j and dQ accumulations (no dQ with a null
  /// dqAcc: the deterministic backward).
  void buildQueryTile(KernelBuilder &kb, Value h, Value rowBase, Value tile) {
    Value i0 = kb.mul(tile, kb.index(rows));
    stageQueryTile(kb, h, rowBase, i0);
    buildEntries(kb, h, i0);
    accumulateKeyGradients(kb);
    if (dqAcc)
      accumulateQueryGradient(kb, rowBase, i0);
  }

  /// Emits the staging of the query tile's rows in workgroup memory,
  /// between barriers.
  void stageQueryTile(KernelBuilder &kb, Value h, Value rowBase, Value i0) {
    double inf = std::numeric_limits<double>::infinity();
    // Stage Q, dO, LSE, its correction and D of rows i0 .. i0 + Br
    // (zeros and LSE = +inf past Sq). The barrier before keeps the previous
    // tile's readers of dS out of the way.
    kb.barrier();
    auto stage = [&](Value source, Value tileBuffer, int64_t dim) {
      Value dimValue = kb.index(dim);
      kb.forEach(tx, kb.index(rows * dim), threads,
                 [&](KernelBuilder &kb, Value e) {
                   Value ii = kb.div(e, dimValue), d = kb.rem(e, dimValue);
                   Value i = kb.add(i0, ii);
                   Value ic = kb.min(i, kb.index(p.numQueries - 1));
                   Value x = kb.load(source, {b, h, ic, d});
                   kb.store(kb.select(kb.lt(i, numQueries), x, kb.f32(0.0)),
                            tileBuffer, {ii, d});
                 });
    };
    stage(p.query, qTile, p.keyDim);
    stage(p.dout, doutTile, p.valueDim);
    kb.forEach(tx, kb.index(rows), threads, [&](KernelBuilder &kb, Value ii) {
      Value i = kb.add(i0, ii);
      Value valid = kb.lt(i, numQueries);
      Value row = kb.add(rowBase, kb.min(i, kb.index(p.numQueries - 1)));
      kb.store(kb.select(valid, kb.load(lse, row), kb.f32(inf)), lseTile, ii);
      kb.store(kb.select(valid, kb.load(delta, row), kb.f32(0.0)), deltaTile,
               ii);
      kb.store(kb.select(valid, kb.load(correction, row), kb.f32(0.0)),
               correctionTile, ii);
    });
    kb.barrier();
  }

  /// Emits thread j's entries (i, j) of the staged query tile: P, dP, dT
  /// (added into d_mask) and dS, with P' and dS stored in column j of the
  /// workgroup tiles.
  void buildEntries(KernelBuilder &kb, Value h, Value i0) {
    // Thread j against every row of the tile.
    kb.forEach(zero, kb.index(rows), one, [&](KernelBuilder &kb, Value ii) {
      Value i = kb.add(i0, ii);
      Value validQuery = kb.lt(i, numQueries);
      Value ic = kb.min(i, kb.index(p.numQueries - 1));
      Value s = kb.sum(keyDim, [&](KernelBuilder &kb, Value d) {
        return kb.loadProduct(qTile, {ii, d}, keyRow, d);
      });
      Logit logit = buildLogit(kb, p, s, b, h, ic, jc);
      Value inRange = kb.andI(validQuery, validKey);
      RowStatistics row = {lseTile, correctionTile, deltaTile, ii};
      EntryGradient gradient = buildEntryGradient(
          kb, p, seed, logit, inRange, row,
          [&](KernelBuilder &kb) {
            return kb.sum(valueDim, [&](KernelBuilder &kb, Value d) {
              return kb.loadProduct(doutTile, {ii, d}, valueRow, d);
            });
          },
          b, h, ic, jc);
      Value droppedProb = gradient.droppedProb, dt = gradient.dt;
      if (dmaskAcc) {
        // d_mask[broadcast(b, h, i, j)] += dT.
        Value flat = buildMaskAdjointIndex(kb, p, b, h, ic, jc);
        kb.ifThen(kb.andI(validQuery, validKey),
                  [&](KernelBuilder &kb) { kb.atomicAdd(dt, dmaskAcc, flat); });
      }
      Value ds = buildScoreGradient(kb, p, dt, logit);
      kb.store(droppedProb, probTile, {ii, tx});
      kb.store(ds, dsTile, {ii, tx});
    });
  }

  /// Emits dV_j += P'ᵀ dO and dK_j += dSᵀ Q over the staged tile, then a
  /// barrier.
  void accumulateKeyGradients(KernelBuilder &kb) {
    // dV_j += sum_i P'_ij dO_i and dK_j += sum_i dS_ij Q_i over the
    // tile, each element of the private rows read and written once
    // per tile. Column tx of the P' and dS tiles is this thread's own.
    auto accumulate = [&](Value row, Value weights, Value tile, Value dim) {
      kb.forEach(zero, dim, one, [&](KernelBuilder &kb, Value d) {
        Value sum = kb.sum(kb.index(rows), [&](KernelBuilder &kb, Value ii) {
          return kb.loadProduct(weights, {ii, tx}, tile, {ii, d});
        });
        kb.store(kb.addf(kb.load(row, d), sum), row, d);
      });
    };
    accumulate(dvRow, probTile, doutTile, valueDim);
    accumulate(dkRow, dsTile, qTile, keyDim);
    kb.barrier();
  }

  /// Emits the atomic adds of the staged tile's dQ over the block's keys
  /// into the f32 dQ accumulator.
  void accumulateQueryGradient(KernelBuilder &kb, Value rowBase, Value i0) {
    // dQ_i += sum_j dS_ij K_j over the block's keys, one atomic add
    // per element of the tile.
    kb.forEach(
        tx, kb.index(rows * p.keyDim), threads,
        [&](KernelBuilder &kb, Value e) {
          Value ii = kb.div(e, keyDim), d = kb.rem(e, keyDim);
          Value i = kb.add(i0, ii);
          kb.ifThen(kb.lt(i, numQueries), [&](KernelBuilder &kb) {
            Value sum = kb.sum(keysHere, [&](KernelBuilder &kb, Value jj) {
              Value key = kb.add(j0, jj);
              return kb.loadProduct(dsTile, {ii, jj}, p.key, {b, g, key, d});
            });
            Value flat = kb.add(kb.mul(kb.add(rowBase, i), keyDim), d);
            kb.atomicAdd(sum, dqAcc, flat);
          });
        });
  }

  /// Emits the stores of dK_j and dV_j (a valid key only).
  void storeKeyGradients(KernelBuilder &kb) {
    kb.ifThen(validKey, [&](KernelBuilder &kb) {
      kb.forEach(zero, keyDim, one, [&](KernelBuilder &kb, Value d) {
        kb.store(kb.load(dkRow, d), dk, {b, g, j, d});
      });
      kb.forEach(zero, valueDim, one, [&](KernelBuilder &kb, Value d) {
        kb.store(kb.load(dvRow, d), dv, {b, g, j, d});
      });
    });
  }
};

} // namespace

/// The main kernel: dK and dV of every key, the f32 accumulators of dQ and
/// d_mask (each left out when null).
static void buildMainKernel(OpBuilder &builder, Location loc,
                            const BackwardProblem &problem, Value lse,
                            Value correction, Value delta, Value dqAcc,
                            Value dmaskAcc, Value dk, Value dv) {
  const BackwardProblem &p = problem;
  Type f32 = builder.getF32Type();
  int64_t rows = getQueryTileRows(p);
  auto shared = gpu::AddressSpace::Workgroup;
  auto local = gpu::AddressSpace::Private;
  MemRefType workgroup[] = {
      getGPUMemRefType({rows, p.keyDim}, f32, shared),
      getGPUMemRefType({rows, p.valueDim}, f32, shared),
      getGPUMemRefType({rows, kKeysPerBlock}, f32, shared),
      getGPUMemRefType({rows, kKeysPerBlock}, f32, shared),
      getGPUMemRefType({rows}, f32, shared),
      getGPUMemRefType({rows}, f32, shared),
      getGPUMemRefType({rows}, f32, shared)};
  Type privates[] = {getGPUMemRefType({p.keyDim}, f32, local),
                     getGPUMemRefType({p.valueDim}, f32, local),
                     getGPUMemRefType({p.keyDim}, f32, local),
                     getGPUMemRefType({p.valueDim}, f32, local)};
  MainKernel kernel{p, lse, correction, delta, dqAcc, dmaskAcc, dk, dv, rows};
  buildLaunch(
      builder, loc, {ceilDiv(p.numKeys, kKeysPerBlock), p.numKVHeads, p.batch},
      kKeysPerBlock, workgroup, privates,
      [&](KernelBuilder &kb, gpu::LaunchOp op, ValueRange tiles) {
        kernel.build(kb, op, tiles);
      });
}

/// The zero kernel: 0 into every element of the f32 accumulator `buffer`.
static void buildZeroFill(OpBuilder &builder, Location loc, Value buffer) {
  int64_t count = cast<MemRefType>(buffer.getType()).getNumElements();
  buildElementwiseLaunch(builder, loc, count, [&](KernelBuilder &kb, Value n) {
    kb.store(kb.f32(0.0), buffer, n);
  });
}

/// The cast kernel: the flat f32 accumulator `acc` into `result`, rounded to
/// its element type.
static void buildCast(OpBuilder &builder, Location loc, Value acc,
                      Value result) {
  ArrayRef<int64_t> shape = cast<MemRefType>(result.getType()).getShape();
  int64_t count = cast<MemRefType>(acc.getType()).getNumElements();
  buildElementwiseLaunch(builder, loc, count, [&](KernelBuilder &kb, Value n) {
    kb.store(kb.load(acc, n), result, delinearize(kb, n, shape));
  });
}

namespace {

struct AttentionGradToGPU : OpRewritePattern<AttentionGradOp> {
  AttentionGradToGPU(MLIRContext *context, const AttentionGPUOptions &options)
      : OpRewritePattern(context), options(options) {}

  /// Succeeds if the kernels cover `op` under the options; otherwise
  /// fails with the reason (the op then goes the generic way:
  /// docs/GPUAttentionBackward.md). Creates nothing.
  LogicalResult checkSupported(AttentionGradOp op,
                               PatternRewriter &rewriter) const {
    // The verifier proved static rank-4 operands of one float type and a
    // mask of rank <= 4; this pattern covers the types and sizes below.
    auto queryType = cast<RankedTensorType>(op.getQuery().getType());
    auto keyType = cast<RankedTensorType>(op.getKey().getType());
    auto valueType = cast<RankedTensorType>(op.getValue().getType());
    Type elementType = queryType.getElementType();
    if (!elementType.isF32() && !elementType.isF16() && !elementType.isBF16())
      return rewriter.notifyMatchFailure(op, "expected f32, f16 or bf16");
    if (queryType.getNumElements() == 0 || keyType.getNumElements() == 0 ||
        valueType.getNumElements() == 0)
      return rewriter.notifyMatchFailure(op, "empty operands");
    AttentionSizes sizes = AttentionSizes::get(op);
    if (sizes.keyDim > kMaxHeadDim || sizes.valueDim > kMaxHeadDim)
      return rewriter.notifyMatchFailure(op, "head dim above 256");
    if (sizes.numHeads > 65535 || sizes.batch > 65535)
      return rewriter.notifyMatchFailure(op, "grid dims above 65535");
    if (op.hasAdditiveMask()) {
      Type maskElement =
          cast<RankedTensorType>(op.getMask().getType()).getElementType();
      if (!maskElement.isF32() && !maskElement.isF16() && !maskElement.isBF16())
        return rewriter.notifyMatchFailure(op, "additive mask of f64");
    }
    // The main kernels add d_mask (which broadcasts over b, h, i or j)
    // into its accumulator with float atomics, in the order blocks run.
    if (options.deterministic && op.getDmask())
      return rewriter.notifyMatchFailure(
          op, "deterministic: d_mask (an additive mask's gradient) would be "
              "summed with float atomics; the generic lowering sums it in a "
              "fixed order");
    return success();
  }

  LogicalResult matchAndRewrite(AttentionGradOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkSupported(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    auto queryType = cast<RankedTensorType>(op.getQuery().getType());
    auto keyType = cast<RankedTensorType>(op.getKey().getType());
    auto valueType = cast<RankedTensorType>(op.getValue().getType());
    Type elementType = queryType.getElementType();
    BackwardProblem p;
    static_cast<AttentionSizes &>(p) = AttentionSizes::get(op);
    RankedTensorType maskType =
        op.getMask() ? cast<RankedTensorType>(op.getMask().getType())
                     : RankedTensorType();

    // Operands as buffers; the kernels only read them.
    auto toBuffer = [&](Value tensor) -> Value {
      if (!tensor)
        return {};
      auto type = cast<RankedTensorType>(tensor.getType());
      return bufferization::ToBufferOp::create(
          rewriter, loc, MemRefType::get(type.getShape(), type.getElementType()),
          tensor, /*read_only=*/true);
    };
    p.query = toBuffer(op.getQuery());
    p.key = toBuffer(op.getKey());
    p.value = toBuffer(op.getValue());
    p.dout = toBuffer(op.getDout());
    p.logits = AttentionLogits::get(
        op, toBuffer(op.getMask()), toBuffer(op.getKeyLengths()),
        toBuffer(op.getQueryLengths()), toBuffer(op.getAlibiSlopes()),
        buildSequenceTableBuffers(rewriter, loc, op));
    if (op.hasAdditiveMask())
      llvm::append_range(p.maskShape, maskType.getShape());
    if (p.dropout > 0.0)
      p.seed = toBuffer(op.getSeed());
    p.sinks = toBuffer(op.getSinks());

    // Workspaces and results (device allocations after the pipeline).
    auto alloc = [&](ArrayRef<int64_t> shape, Type type) -> Value {
      return memref::AllocOp::create(rewriter, loc,
                                     MemRefType::get(shape, type));
    };
    Type f32 = rewriter.getF32Type();
    int64_t numRows = p.batch * p.numHeads * p.numQueries;
    // The forward's LSE ([B, Hq, Sq] f32 for every element type lowered
    // here) is the main kernel's [B * Hq * Sq] buffer as it is; the
    // preprocess writes each row's correction of it (or, recomputing, the
    // row max and log(l)).
    Value lse;
    if (op.hasSavedForward())
      lse = memref::CollapseShapeOp::create(
          rewriter, loc, toBuffer(op.getLse()),
          SmallVector<ReassociationIndices>{{0, 1, 2}});
    else
      lse = alloc({numRows}, f32);
    Value correction = alloc({numRows}, f32);
    Value delta = alloc({numRows}, f32);
    // The deterministic backward writes dQ from a kernel of its own, with
    // no accumulator.
    Value dqAcc =
        options.deterministic ? Value() : alloc({numRows * p.keyDim}, f32);
    Value dq = alloc(queryType.getShape(), elementType);
    Value dk = alloc(keyType.getShape(), elementType);
    Value dv = alloc(valueType.getShape(), elementType);
    Value dmaskAcc, dmask;
    if (p.logits.additiveMask) {
      dmaskAcc = alloc({maskType.getNumElements()}, f32);
      dmask = alloc(maskType.getShape(), maskType.getElementType());
    }
    Value dsinks;
    if (p.sinks) {
      auto sinksType = cast<RankedTensorType>(op.getSinks().getType());
      dsinks = alloc(sinksType.getShape(), sinksType.getElementType());
    }

    if (dqAcc)
      buildZeroFill(rewriter, loc, dqAcc);
    if (dmaskAcc)
      buildZeroFill(rewriter, loc, dmaskAcc);
    if (op.hasSavedForward())
      buildSavedPreprocessKernel(rewriter, loc, p, toBuffer(op.getOut()), lse,
                                 correction, delta);
    else
      buildPreprocessKernel(rewriter, loc, p, lse, correction, delta);
    if (dsinks)
      buildSinkGradientKernel(rewriter, loc, p, lse, correction, delta, dsinks);
    if (canUseMmaMainKernel(p, options))
      buildMmaMainKernel(rewriter, loc, p, lse, correction, delta, dqAcc,
                         dmaskAcc, dk, dv, options.backwardMinBlocksPerSM);
    else
      buildMainKernel(rewriter, loc, p, lse, correction, delta, dqAcc,
                      dmaskAcc, dk, dv);
    if (dqAcc)
      buildCast(rewriter, loc, dqAcc, dq);
    else
      buildQueryGradientKernel(rewriter, loc, p, lse, correction, delta, dq);
    if (dmaskAcc)
      buildCast(rewriter, loc, dmaskAcc, dmask);

    SmallVector<Value> results;
    for (Value buffer : {dq, dk, dv, dmask, dsinks}) {
      if (!buffer)
        continue;
      auto type = cast<MemRefType>(buffer.getType());
      results.push_back(bufferization::ToTensorOp::create(
          rewriter, loc,
          RankedTensorType::get(type.getShape(), type.getElementType()), buffer,
          /*restrict=*/rewriter.getUnitAttr(),
          /*writable=*/rewriter.getUnitAttr()));
    }
    rewriter.replaceOp(op, results);
    return success();
  }

  AttentionGPUOptions options;
};

} // namespace

void mlir::kiln::populateAttentionBackwardToGPUPatterns(
    RewritePatternSet &patterns, const AttentionGPUOptions &options) {
  patterns.add<AttentionGradToGPU>(patterns.getContext(), options);
}
