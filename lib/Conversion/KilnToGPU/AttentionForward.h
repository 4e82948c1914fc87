//===- AttentionForward.h - kiln attention forward kernels ------*- C++ -*-===//
//
// Private to the KilnToGPU library: what the kernels of kiln.attention
// share. AttentionForward.cpp holds the pattern and picks the kernel,
// AttentionForwardSimt.cpp builds the SIMT kernel (every dtype, every mask
// form) and AttentionForwardMma.cpp the tensor-core one (f16/bf16, head dims
// multiples of 16 up to 128); both read one ForwardConfig, pack a block's
// query rows as RowTile does and skip the key tiles outside buildKeyRange.
// Attention sinks join a row's softmax after its key loop (AttentionSinkFold).
// See docs/GPUAttention.md.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CONVERSION_KILNTOGPU_ATTENTIONFORWARD_H
#define KILN_LIB_CONVERSION_KILNTOGPU_ATTENTIONFORWARD_H

#include "KernelArith.h"

#include "kiln/Dialect/Kiln/Utils/AttentionUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

#include "llvm/Support/MathExtras.h"

#include <array>
#include <limits>
#include <utility>

namespace mlir::kiln {
struct AttentionGPUOptions;
} // namespace mlir::kiln

namespace mlir::kiln::attention_forward {

/// Query rows per block of the SIMT kernel: one thread per row.
constexpr int64_t kSimtRows = 64;

/// Everything the kernels read from one attention op: static sizes,
/// attributes, and the buffers of its operands.
struct ForwardConfig : AttentionSizes {
  /// The logits and the predicate, on memrefs.
  AttentionLogits logits;
  Value query, key, value, seed, out, lse;
  /// The [Hq] attention sinks, or null: each kernel folds sinks[h] into a
  /// row's final m and l (AttentionSinkFold) before it writes O and LSE.
  Value sinks;
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
inline Value buildLogit(KernelBuilder &kb, const ForwardConfig &c, Value dot,
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
/// edges, the key length and the rows' packed sequences. The per-entry predicate still decides; this
/// only skips key tiles that no row of the block sees (half of them under
/// `causal`).
std::pair<Value, Value> buildKeyRange(KernelBuilder &kb, const ForwardConfig &c,
                                      const RowTile &tile);

/// The SIMT kernel (AttentionForwardSimt.cpp): every dtype, every mask
/// form, one thread per packed query row.
void buildSimtKernel(OpBuilder &builder, Location loc, const ForwardConfig &c);

/// Returns true if the tensor-core kernel computes `c` under `options`:
/// f16 or bf16, Dk and Dv multiples of 16 up to 128.
bool useMmaKernel(const ForwardConfig &c, const AttentionGPUOptions &options);

/// The tensor-core kernel (AttentionForwardMma.cpp).
void buildMmaKernel(OpBuilder &builder, Location loc, const ForwardConfig &c,
                    const AttentionGPUOptions &options);

} // namespace mlir::kiln::attention_forward

#endif // KILN_LIB_CONVERSION_KILNTOGPU_ATTENTIONFORWARD_H
