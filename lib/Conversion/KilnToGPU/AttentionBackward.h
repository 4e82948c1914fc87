//===- AttentionBackward.h - kiln attention backward kernels ----*- C++ -*-===//
//
// Private to the KilnToGPU library: what the kernels of kiln.attention_grad
// share. AttentionBackward.cpp builds the launches and the SIMT main kernel,
// AttentionBackwardMma.cpp the tensor-core main kernel,
// AttentionBackwardDq.cpp the deterministic backward's dQ kernel; all
// recompute the forward's entries with the same builders (and read attention
// sinks only through the preprocess's row statistics). See
// docs/GPUAttentionBackward.md.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CONVERSION_KILNTOGPU_ATTENTIONBACKWARD_H
#define KILN_LIB_CONVERSION_KILNTOGPU_ATTENTIONBACKWARD_H

#include "KernelArith.h"

#include "kiln/Dialect/Kiln/Utils/AttentionUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

#include <array>
#include <optional>

namespace mlir::kiln {
struct AttentionGPUOptions;
} // namespace mlir::kiln

namespace mlir::kiln::attention_backward {

/// Threads of a block of the kernels with one thread per query row (the
/// preprocesses, the deterministic dQ kernel).
constexpr int64_t kRowsPerBlock = 128;

/// ceil(a / b) for positive sizes.
inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Scalar IR inside a kernel body in f32 and index arithmetic, with the
/// loads, stores and loops of the backward's kernels.
struct KernelBuilder : KernelArith {
  Value f32(double value) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
  }

  /// Loads `memref[indices]` extended to f32.
  Value load(Value memref, ValueRange indices) {
    Value value = memref::LoadOp::create(b, loc, memref, indices);
    if (!value.getType().isF32())
      value = arith::ExtFOp::create(b, loc, b.getF32Type(), value);
    return value;
  }
  /// Stores the f32 `value` rounded to the element type of `memref`.
  void store(Value value, Value memref, ValueRange indices) {
    Type type = cast<MemRefType>(memref.getType()).getElementType();
    if (type != value.getType())
      value = arith::TruncFOp::create(b, loc, type, value);
    memref::StoreOp::create(b, loc, value, memref, indices);
  }
  /// lhs[lhsIndices] * rhs[rhsIndices] in f32, loading lhs first.
  Value loadProduct(Value lhs, ValueRange lhsIndices, Value rhs,
                    ValueRange rhsIndices) {
    Value x = load(lhs, lhsIndices);
    return mulf(x, load(rhs, rhsIndices));
  }
  void atomicAdd(Value value, Value memref, ValueRange indices) {
    memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addf, value,
                                memref, indices);
  }

  /// scf.for from `lb` to `ub` by `step`; `body` returns the yielded values.
  ValueRange
  loop(Value lb, Value ub, Value step, ValueRange inits,
       function_ref<SmallVector<Value>(KernelBuilder &, Value, ValueRange)>
           body) {
    auto forOp = scf::ForOp::create(
        b, loc, lb, ub, step, inits,
        [&](OpBuilder &nested, Location nestedLoc, Value iv, ValueRange args) {
          KernelBuilder kb{{nested, nestedLoc}};
          scf::YieldOp::create(nested, nestedLoc, body(kb, iv, args));
        });
    return forOp.getResults();
  }
  /// A loop without results.
  void forEach(Value lb, Value ub, Value step,
               function_ref<void(KernelBuilder &, Value)> body) {
    loop(lb, ub, step, {},
         [&](KernelBuilder &kb, Value iv, ValueRange) -> SmallVector<Value> {
           body(kb, iv);
           return {};
         });
  }
  /// sum_{d < ub} term(d) in f32.
  Value sum(Value ub, function_ref<Value(KernelBuilder &, Value)> term) {
    return loop(index(0), ub, index(1), {f32(0.0)},
                [&](KernelBuilder &kb, Value d,
                    ValueRange args) -> SmallVector<Value> {
                  return {kb.addf(args[0], term(kb, d))};
                })
        .front();
  }
  void ifThen(Value cond, function_ref<void(KernelBuilder &)> body) {
    auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    body(*this);
  }
  void barrier() { gpu::BarrierOp::create(b, loc); }
};

/// The static description of one kiln.attention_grad the kernels need: its
/// sizes and dropout probability (AttentionSizes), its logits and predicate
/// on buffers (AttentionLogits), as the linalg lowering reads them, and what
/// the kernels add.
struct BackwardProblem : AttentionSizes {
  AttentionLogits logits;
  /// The buffers of the operands (null when absent).
  Value query, key, value, dout, seed;
  /// The [Hq] attention sinks, or null: the preprocess folds them into each
  /// row's statistics (the main kernels' P then includes them), and a kernel
  /// of its own computes d_sinks.
  Value sinks;
  /// The shape of an additive mask (rank <= 4).
  SmallVector<int64_t> maskShape;
};

/// The scalar pieces of entry (b, h, i, j) that both kernels recompute.
struct Logit {
  /// t = cap(scale * s) + mask_add: the forward's logit where visible.
  Value logit;
  /// 1 - tanh^2(scale * s / cap), the softcap's derivative (null without).
  Value capFactor;
};

/// Recomputes the forward's logit of entry (b, h, i, j) from the score
/// s = Q_i . K_j (f32).
Logit buildLogit(KernelBuilder &kb, const BackwardProblem &problem, Value score,
                 Value b, Value h, Value i, Value j);

/// Z / (1 - p) for entry (b, h, i, j): the forward's dropout keep bit from
/// the Philox stream keyed by (seed, b, h, i, j); null without dropout.
Value buildDropoutScale(KernelBuilder &kb, const BackwardProblem &problem,
                        Value seed, Value b, Value h, Value i, Value j);

/// Where the statistics of an entry's query row are: element `index` of
/// the LSE, correction and D buffers (the [B * Hq * Sq] row buffers, or a
/// block's staged tiles).
struct RowStatistics {
  Value lse, correction, delta, index;
};

/// P' and dT of one entry (buildEntryGradient).
struct EntryGradient {
  /// P' = P Z / (1 - p) (P without dropout).
  Value droppedProb;
  /// dT = P (dP - D_i), the gradient of the logit t.
  Value dt;
};

/// Emits, for entry (b, h, i, j) with the recomputed `logit`:
///   P  = visible ? exp(t - LSE_i - c_i) : 0   (visible: `inRange`, if not
///                                              null, and the predicate)
///   dP = Z / (1 - p) * (dO_i . V_j)          (the dot: `buildValueProduct`)
///   dT = P (dP - D_i)
/// with the row's statistics loaded from `row`, and returns P' and dT. The
/// SIMT main kernel and the deterministic dQ kernel share it: the same
/// formulas, emitted in the same order.
EntryGradient
buildEntryGradient(KernelBuilder &kb, const BackwardProblem &problem,
                   Value seed, const Logit &logit, Value inRange,
                   const RowStatistics &row,
                   function_ref<Value(KernelBuilder &)> buildValueProduct,
                   Value b, Value h, Value i, Value j);

/// dS = scale * dT * (1 - tanh^2) (the factor only with softcap): the
/// gradient of the score s = Q_i . K_j.
Value buildScoreGradient(KernelBuilder &kb, const BackwardProblem &problem,
                         Value dt, const Logit &logit);

/// The keys [firstKey, endKey) of the band of query row i: no key outside
/// it is visible from the row.
std::pair<Value, Value>
buildRowKeyRange(KernelBuilder &kb, const BackwardProblem &problem, Value i);

/// The flat index of row (b, h, i) in the [B * Hq * Sq] row buffers.
Value buildRowIndex(KernelBuilder &kb, const BackwardProblem &problem, Value b,
                    Value h, Value i);

/// The flat index of (b, h, i, j) in the additive mask's f32 adjoint
/// accumulator: the mask's broadcast index (a size-1 dim reads index 0).
Value buildMaskAdjointIndex(KernelBuilder &kb, const BackwardProblem &problem,
                            Value b, Value h, Value i, Value j);

/// The block-uniform range [first, end) of the tiles of `rows` query rows
/// that can see one of the keys keyBegin .. keyBegin + `keys` - 1 (the band
/// bounds the work; the predicate still decides every entry).
std::pair<Value, Value> buildQueryTileRange(KernelBuilder &kb,
                                            const BackwardProblem &problem,
                                            Value keyBegin, int64_t keys,
                                            int64_t rows);

/// Creates a gpu.launch of `grid` blocks of `threads` threads with the
/// workgroup tiles `tiles` (buildKernelLaunch) and private buffers
/// `privates`, and fills its body with `body` (which gets the launch, for
/// its ids and private attributions, and the tiles' views).
void buildLaunch(
    OpBuilder &builder, Location loc, std::array<int64_t, 3> grid,
    int64_t threads, ArrayRef<MemRefType> tiles, TypeRange privates,
    function_ref<void(KernelBuilder &, gpu::LaunchOp, ValueRange)> body);

/// Returns true if the tensor-core main kernel computes `problem` under
/// `options`: f16 or bf16, Dk and Dv multiples of 16 up to 128.
bool canUseMmaMainKernel(const BackwardProblem &problem,
                         const AttentionGPUOptions &options);

/// The tensor-core main kernel (AttentionBackwardMma.cpp): the same inputs
/// and outputs as the SIMT one (dK, dV written once; dQ and d_mask added
/// into their f32 accumulators with atomics). A null `dqAcc` (the
/// deterministic backward) leaves dQ out, as a null `dmaskAcc` d_mask.
void buildMmaMainKernel(OpBuilder &builder, Location loc,
                        const BackwardProblem &problem, Value lse,
                        Value correction, Value delta, Value dqAcc,
                        Value dmaskAcc, Value dk, Value dv,
                        unsigned minBlocksPerSM);

/// The deterministic backward's dQ kernel (AttentionBackwardDq.cpp): one
/// thread per query row (b, h, i) walks the row's keys in increasing j and
/// sums dQ_i = sum_j dS_ij K_j in f32 private memory (the SIMT main
/// kernel's dS: buildEntryGradient, buildScoreGradient), then writes it into
/// `dq` ([B, Hq, Sq, Dk], the element type) rounded once. No atomics: each
/// element of dQ is written by one thread, after a sum in a fixed order.
/// Reads the preprocess's row statistics `lse`, `correction` and `delta`.
void buildQueryGradientKernel(OpBuilder &builder, Location loc,
                              const BackwardProblem &problem, Value lse,
                              Value correction, Value delta, Value dq);

} // namespace mlir::kiln::attention_backward

#endif // KILN_LIB_CONVERSION_KILNTOGPU_ATTENTIONBACKWARD_H
