//===- AttentionBackwardDq.cpp - deterministic attention backward dQ ------===//
//
// The dQ kernel of kiln.attention_grad's deterministic backward (the pass
// option `deterministic`): the main kernels then compute dK and dV only, and
// this kernel computes
//
//   dQ_i = sum_j dS_ij K_j
//
// with one thread per query row (b, h, i), which walks the keys of the row's
// band (buildRowKeyRange, as the preprocess) in increasing j and recomputes
// each entry's dS exactly as the SIMT main kernel does (buildLogit,
// buildEntryGradient, buildScoreGradient: the same formulas, the same
// dropout draw, the preprocess's LSE, correction and D). The row's dQ
// accumulates in f32 private memory and is rounded once into the result.
// Every element of dQ is a sum in a fixed order written by one thread: no
// atomics, so the result does not depend on the order in which blocks run.
//
// The cost is one more pass over Q Kᵀ and dO Vᵀ (the main kernels recompute
// both too): about the backward's score work again. Every thread of a warp
// reads the same K and V element (one (b, h) per block), so those loads
// broadcast, as in the preprocess. See docs/GPUAttentionBackward.md,
// "Deterministic backward".
//
//===----------------------------------------------------------------------===//

#include "AttentionBackward.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::attention_backward;

void attention_backward::buildQueryGradientKernel(
    OpBuilder &builder, Location loc, const BackwardProblem &problem, Value lse,
    Value correction, Value delta, Value dq) {
  const BackwardProblem &p = problem;
  Type f32 = builder.getF32Type();
  auto local = gpu::AddressSpace::Private;
  // The row's Q, dO and dQ accumulator.
  Type privates[] = {getGPUMemRefType({p.keyDim}, f32, local),
                     getGPUMemRefType({p.valueDim}, f32, local),
                     getGPUMemRefType({p.keyDim}, f32, local)};
  buildLaunch(
      builder, loc, {ceilDiv(p.numQueries, kRowsPerBlock), p.numHeads, p.batch},
      kRowsPerBlock, /*tiles=*/{}, privates,
      [&](KernelBuilder &kb, gpu::LaunchOp op, ValueRange) {
        Value qRow = op.getPrivateAttributions()[0];
        Value doutRow = op.getPrivateAttributions()[1];
        Value dqRow = op.getPrivateAttributions()[2];
        Value zero = kb.index(0), one = kb.index(1);
        Value keyDim = kb.index(p.keyDim), valueDim = kb.index(p.valueDim);
        Value i = kb.add(kb.mul(op.getBlockIds().x, kb.index(kRowsPerBlock)),
                         op.getThreadIds().x);
        Value h = op.getBlockIds().y, b = op.getBlockIds().z;
        Value g = kb.div(h, kb.index(p.groupSize));
        Value seed =
            p.seed ? memref::LoadOp::create(kb.b, kb.loc, p.seed, ValueRange{})
                   : Value();
        kb.ifThen(kb.lt(i, kb.index(p.numQueries)), [&](KernelBuilder &kb) {
          kb.forEach(zero, keyDim, one, [&](KernelBuilder &kb, Value d) {
            kb.store(kb.load(p.query, {b, h, i, d}), qRow, d);
            kb.store(kb.f32(0.0), dqRow, d);
          });
          kb.forEach(zero, valueDim, one, [&](KernelBuilder &kb, Value d) {
            kb.store(kb.load(p.dout, {b, h, i, d}), doutRow, d);
          });
          RowStatistics row = {lse, correction, delta,
                               buildRowIndex(kb, p, b, h, i)};
          // Only the keys of the band can be visible from row i; i < Sq and
          // j < Sk, so the predicate alone decides (no range test).
          auto [firstKey, endKey] = buildRowKeyRange(kb, p, i);
          kb.forEach(firstKey, endKey, one, [&](KernelBuilder &kb, Value j) {
            Value s = kb.sum(keyDim, [&](KernelBuilder &kb, Value d) {
              return kb.loadProduct(qRow, d, p.key, {b, g, j, d});
            });
            Logit logit = buildLogit(kb, p, s, b, h, i, j);
            EntryGradient gradient = buildEntryGradient(
                kb, p, seed, logit, /*inRange=*/Value(), row,
                [&](KernelBuilder &kb) {
                  return kb.sum(valueDim, [&](KernelBuilder &kb, Value d) {
                    return kb.loadProduct(doutRow, d, p.value, {b, g, j, d});
                  });
                },
                b, h, i, j);
            Value ds = buildScoreGradient(kb, p, gradient.dt, logit);
            // dQ_i += dS_ij K_j (scale is in dS).
            kb.forEach(zero, keyDim, one, [&](KernelBuilder &kb, Value d) {
              Value term = kb.mulf(ds, kb.load(p.key, {b, g, j, d}));
              kb.store(kb.addf(kb.load(dqRow, d), term), dqRow, d);
            });
          });
          kb.forEach(zero, keyDim, one, [&](KernelBuilder &kb, Value d) {
            kb.store(kb.load(dqRow, d), dq, {b, h, i, d});
          });
        });
      });
}
