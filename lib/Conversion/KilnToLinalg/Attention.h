//===- Attention.h - Building blocks of the attention lowerings -*- C++ -*-===//
//
// Private to the KilnToLinalg library. The single C++ definition of
// kiln.attention's visibility predicate and of its dropout draw, as IR
// builders on scalars. The forward lowering (Attention.cpp) calls them inside
// its linalg payloads; the adjoint and the decomposition must call them too,
// never rebuild their own copy (docs/Attention.md, "The visibility
// predicate").
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CONVERSION_KILNTOLINALG_ATTENTION_H
#define KILN_LIB_CONVERSION_KILNTOLINALG_ATTENTION_H

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

#include <optional>

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace mlir::kiln {

/// Everything the visibility predicate of one attention op reads: static
/// sizes and attributes, and the operands (null when absent): tensors in
/// the linalg lowerings, memrefs in the GPU kernels.
struct AttentionVisibility {
  /// Sq and Sk.
  int64_t numQueries = 0;
  int64_t numKeys = 0;
  AttentionAlignment alignment = AttentionAlignment::bottom_right;
  /// The band `[p(i) - L, p(i) + R]`; std::nullopt is unbounded. The right
  /// edge is the effective one (0 for `causal`).
  std::optional<int64_t> windowLeft;
  std::optional<int64_t> windowRight;
  /// An i1 tensor (or memref) of rank <= 4 broadcastable to [B, Hq, Sq, Sk], or null.
  /// (An additive mask is not part of visibility: see buildBroadcastRead.)
  Value booleanMask;
  /// [B] tensors (or memrefs) of i32 or i64, or null.
  Value keyLengths;
  Value queryLengths;

  /// Reads the predicate's parameters from `op`; `mask`, `keyLengths` and
  /// `queryLengths` are the values to read at run time (the op's operands,
  /// or their converted values in a conversion pattern). The mask is taken
  /// only when it is boolean.
  static AttentionVisibility get(AttentionOp op, Value mask, Value keyLengths,
                                 Value queryLengths);
  /// The same for the adjoint, whose predicate is that of its forward.
  static AttentionVisibility get(AttentionGradOp op, Value mask,
                                 Value keyLengths, Value queryLengths);
};

/// How the score s = q . k of entry (b, h, i, j) becomes the logit that the
/// softmax reads, in the forward and in the adjoint (which recomputes it):
///
///   t = visible(b, h, i, j) ? cap(scale * s) + mask_add[b, h, i, j] : -inf
///
/// with cap(x) = c * tanh(x / c) when `softcap` is set.
struct AttentionLogits {
  AttentionVisibility visibility;
  double scale = 1.0;
  std::optional<double> softcap;
  /// A float tensor broadcastable to [B, Hq, Sq, Sk], or null.
  Value additiveMask;

  /// Reads the parameters from `op`; `mask`, `keyLengths` and
  /// `queryLengths` are the values to read at run time, as for
  /// AttentionVisibility::get.
  static AttentionLogits get(AttentionOp op, Value mask, Value keyLengths,
                             Value queryLengths);
  static AttentionLogits get(AttentionGradOp op, Value mask, Value keyLengths,
                             Value queryLengths);

  /// Builds t from the score `s` (a float scalar of the compute type, which
  /// t has too) and the index values.
  Value build(OpBuilder &builder, Location loc, Value s, Value b, Value h,
              Value i, Value j) const;
};

/// The static sizes and types that the forward and the adjoint lowering
/// read from Q [B, Hq, Sq, Dk], K [B, Hkv, Sk, Dk] and V [B, Hkv, Sk, Dv].
struct AttentionSizes {
  int64_t batch = 0;
  int64_t numHeads = 0;
  int64_t numQueries = 0;
  int64_t keyDim = 0;
  int64_t numKVHeads = 0;
  int64_t numKeys = 0;
  int64_t valueDim = 0;
  /// R = Hq / Hkv, at least 1.
  int64_t groupSize = 1;
  /// The dropout probability, in [0, 1).
  double dropout = 0.0;
  FloatType elementType;
  /// f32 for f16 and bf16, the element type otherwise.
  Type computeType;

  /// Reads the sizes of `op`, whose `seed` operand (converted) is given.
  /// Fails, notifying `rewriter`, unless Q, K and V are static rank-4 float
  /// tensors, every query head has a kv head, and the dropout probability
  /// lies in [0, 1) with a seed when it is not 0.
  static FailureOr<AttentionSizes> match(AttentionOp op, Value seed,
                                         RewriterBase &rewriter);
  static FailureOr<AttentionSizes> match(AttentionGradOp op, Value seed,
                                         RewriterBase &rewriter);
};

/// The dropout of one attention op: P' = P * Z / (1 - p), with Z drawn by
/// buildAttentionDropoutKeep. The forward applies it as it normalizes P, the
/// adjoint to P and to dP; both through `apply`.
struct AttentionDropout {
  /// The drop probability, in [0, 1); 0 is no dropout.
  double p = 0.0;
  /// The i64 seed, read once before the loops; null when p = 0.
  Value seed;
  /// [B, Hq, Sq, Sk]: the draw's counter is the row-major index in it.
  SmallVector<int64_t, 4> shape;

  /// The dropout of an op of `sizes` whose (converted) `seed` operand is a
  /// tensor<i64>: extracts the seed at the builder's point when p > 0.
  static AttentionDropout get(OpBuilder &builder, Location loc,
                              const AttentionSizes &sizes, Value seed);

  bool isActive() const { return p > 0.0; }

  /// keep(b, h, i, j) ? x * (1 / (1 - p)) : 0 for the float scalar `x` (the
  /// factor in x's type) at the global indices; `x` itself when inactive.
  Value apply(OpBuilder &builder, Location loc, Value x, Value b, Value h,
              Value i, Value j) const;
};

/// Returns clamp(lengths[b], 0, bound) as an index; `lengths` is a [B]
/// tensor or memref of i32 or i64.
Value buildClampedLength(OpBuilder &builder, Location loc, Value lengths,
                         Value b, int64_t bound);

/// Builds `visible[b, h, i, j]` (an i1) from index values:
///
///   p(i) - L <= j <= p(i) + R           (each edge if bounded)
///   and j < clamp(key_lengths[b], 0, Sk)   (if present)
///   and i < clamp(query_lengths[b], 0, Sq) (if present)
///   and mask_bool[b, h, i, j]           (broadcast, if present)
///
/// with p(i) = i + Sk - Sq (bottom_right) or i (top_left). `h` is the query
/// head. Returns the constant true when no term is present.
Value buildAttentionVisible(OpBuilder &builder, Location loc,
                            const AttentionVisibility &visibility, Value b,
                            Value h, Value i, Value j);

/// Reads `tensor` (a ranked tensor or a memref, rank <= indices.size()) broadcast to the iteration space
/// of `indices` (index values), NumPy-style: its dims align with the
/// trailing indices and a size-1 dim is read at 0.
Value buildBroadcastRead(OpBuilder &builder, Location loc, Value tensor,
                         ValueRange indices);

/// Builds the dropout keep bit (i1) of attention entry (b, h, i, j) of a
/// [B, Hq, Sq, Sk] attention (`shape`) keyed by `seed` (i64) with drop
/// probability `p`: buildDropoutKeep (Philox.h) at the row-major flat index
/// of (b, h, i, j). The draws are therefore those of kiln.dropout on the
/// [B, Hq, Sq, Sk] probabilities.
Value buildAttentionDropoutKeep(OpBuilder &builder, Location loc, Value seed,
                                double p, ArrayRef<int64_t> shape, Value b,
                                Value h, Value i, Value j);

/// Returns `m == emptyRow ? 0 : exp(x - m)` for float scalars `x` and `m`
/// of one type: the softmax numerator, exactly 0 in a row whose statistic
/// `m` marks it empty (a row max of -inf, or a saved LSE of +inf), where
/// exp(x - m) would be NaN.
Value buildGuardedExp(OpBuilder &builder, Location loc, Value x, Value m,
                      double emptyRow);

/// The adjoint rebuilds P from a saved LSE as exp(t - LSE - c), where c is 0
/// unless |LSE| exceeds this bound. LSE = m + log(l) rounded to its type is
/// off by up to ulp(LSE) / 2, and exp(t - LSE) by as much relatively: at
/// most 128 units in the last place of P below the bound, but without limit
/// above it (a row whose every key carries a bias of -1e30 has LSE = m in
/// f32, so exp(t - LSE) = exp(t - m) misses the 1 / l). Such a row is
/// renormalised, c = log(sum_j exp(t[j] - LSE)), which rebuilds P exactly:
/// LSE >= m, so no term overflows, and the sum is at least 1. Rows below the
/// bound (every row of a model without huge biases) keep c = 0, so the GPU
/// kernels, which need another walk over the row's keys for c, stay one pass.
/// docs/Attention.md, "Adjoint", is the contract.
constexpr double kAttentionSavedLseBound = 256.0;

/// Returns the i1 `lse` is finite and |lse| > kAttentionSavedLseBound: the
/// rows whose saved LSE alone does not rebuild P (see above). `lse` is a
/// float scalar; an empty row's +inf is not one of them (its P is 0).
Value buildSavedLseNeedsRenormalization(OpBuilder &builder, Location loc,
                                        Value lse);

/// The rank-2 [rows, cols] slice at (b, head, firstRow, 0) of a rank-4
/// tensor (a fresh tensor.empty when rows or cols is 0: there is nothing to
/// read). A null `firstRow` is row 0.
Value extractHeadBlock(OpBuilder &builder, Location loc, Value source, Value b,
                       Value head, int64_t rows, int64_t cols,
                       OpFoldResult firstRow = {});

/// Inserts the rank-2 `block` into the rank-4 `dest` at (b, head, firstRow,
/// 0); a block without elements leaves `dest` as it is. A null `firstRow` is
/// row 0.
Value insertHeadBlock(OpBuilder &builder, Location loc, Value block, Value dest,
                      Value b, Value head, OpFoldResult firstRow = {});

//===----------------------------------------------------------------------===//
// Query blocks and key tiles
//===----------------------------------------------------------------------===//

/// The linalg lowerings split the Sq queries of a (b, h) into blocks of
/// kAttentionQueryBlock rows (the last one a static remainder) and run their
/// contractions on key tiles of kAttentionKeyTile keys (the last one a static
/// remainder), only on the tiles that the band lets some row of the block
/// see: every matmul has a static shape for kiln-matmul-kernels.
constexpr int64_t kAttentionQueryBlock = 64;
constexpr int64_t kAttentionKeyTile = 64;

/// The key tiles `[firstTile, endTile)` that rows `[firstRow, firstRow +
/// rows)` may see, by the band alone, and the keys `[firstKey, endKey)` they
/// cover (tile t holds keys [t * kAttentionKeyTile, ...)); constants where
/// they are static. Every key outside is invisible to every row of the
/// block; the range is empty (firstTile == endTile, firstKey == endKey) when
/// no key is visible.
struct AttentionKeyTiles {
  OpFoldResult firstTile, endTile;
  OpFoldResult firstKey, endKey;
};

/// Builds the key-tile range of a block of `rows` query rows starting at
/// `firstRow`, from the band of `visibility` (the same edges, alignment and
/// "an edge of Sq + Sk or more bounds nothing" rule as
/// buildAttentionVisible). The lengths and masks are left to the predicate:
/// a bound read from a buffer would be a host read of device memory in the
/// GPU pipeline, which runs this lowering too.
AttentionKeyTiles buildVisibleKeyTiles(OpBuilder &builder, Location loc,
                                       const AttentionVisibility &visibility,
                                       OpFoldResult firstRow, int64_t rows);

/// Where a block of query rows of one (b, h) lies in the [B, Hq, Sq, Sk]
/// scores, and the key tiles it sees: entry (i, j) of the block's visible
/// columns is the global (firstRow + i, tiles.firstKey + j).
struct AttentionBlockPosition {
  Value b, h;
  OpFoldResult firstRow;
  AttentionKeyTiles tiles;

  /// The global (i, j) of the local entry (i, j) of the visible columns.
  std::pair<Value, Value> globalIndices(OpBuilder &builder, Location loc,
                                        Value i, Value j) const;
};

/// `x` as an index value (a constant when it is an attribute).
Value getIndexValue(OpBuilder &builder, Location loc, OpFoldResult x);

/// x + y, folded when both are constants; `x` itself for y = 0.
OpFoldResult addIndex(OpBuilder &builder, Location loc, OpFoldResult x,
                      OpFoldResult y);

/// x + offset for an index value `x` (`x` itself for a constant 0).
Value addOffset(OpBuilder &builder, Location loc, Value x, OpFoldResult offset);

/// x - y, folded when both are constants; `x` itself for y = 0.
OpFoldResult subIndex(OpBuilder &builder, Location loc, OpFoldResult x,
                      OpFoldResult y);

/// The body of one (batch, kv head) pair: b, g and the loop-carried values;
/// returns the next ones.
using KVHeadBodyFn = function_ref<SmallVector<Value>(
    OpBuilder &, Location, Value b, Value g, ValueRange)>;

/// Runs `body` over the B * Hkv pairs (b, g), threading `inits` through an
/// scf.for over b * Hkv + g. Returns the final values.
SmallVector<Value> buildKVHeadLoop(OpBuilder &builder, Location loc,
                                   int64_t batch, int64_t numKVHeads,
                                   ValueRange inits, KVHeadBodyFn body);

/// The body of one query head h and the loop-carried values; returns the
/// next ones.
using QueryHeadBodyFn = function_ref<SmallVector<Value>(OpBuilder &, Location,
                                                        Value h, ValueRange)>;

/// Runs `body` over the R = `groupSize` query heads h = g * R + r that read
/// kv head `g`, threading `inits` through an scf.for over r (for R = 1, the
/// body itself with h = g). Returns the final values.
SmallVector<Value> buildGroupHeadLoop(OpBuilder &builder, Location loc, Value g,
                                      int64_t groupSize, ValueRange inits,
                                      QueryHeadBodyFn body);

/// The body of one query block: its first row (an index attribute for a
/// static block, else an index value), its static number of rows and the
/// loop-carried values; returns the next ones.
using QueryBlockBodyFn = function_ref<SmallVector<Value>(
    OpBuilder &, Location, OpFoldResult firstRow, int64_t rows, ValueRange)>;

/// Runs `body` over the query blocks of `numQueries` rows, threading
/// `inits` through: an scf.for over the full blocks (the block itself when
/// there is one), then the remainder block. Returns the final values.
SmallVector<Value> buildQueryBlockLoop(OpBuilder &builder, Location loc,
                                       int64_t numQueries, ValueRange inits,
                                       QueryBlockBodyFn body);

/// The body of one key tile: its first key (an index attribute for a static
/// tile, else an index value), its static number of keys and the
/// loop-carried values; returns the next ones.
using KeyTileBodyFn = function_ref<SmallVector<Value>(
    OpBuilder &, Location, OpFoldResult firstKey, int64_t keys, ValueRange)>;

/// Runs `body` over the key tiles in `tiles` of `numKeys` keys, threading
/// `inits` through: an scf.for over the full tiles, then the remainder tile
/// under an scf.if when the range holds it. A static range gets no loop
/// for a single tile and no scf.if for a remainder it surely holds (or
/// lacks). Returns the final values.
SmallVector<Value> buildKeyTileLoop(OpBuilder &builder, Location loc,
                                    int64_t numKeys,
                                    const AttentionKeyTiles &tiles,
                                    ValueRange inits, KeyTileBodyFn body);

/// AttentionGrad.cpp: kiln.attention_grad. Called by
/// populateAttentionPatterns.
void populateAttentionGradPatterns(RewritePatternSet &patterns);

/// linalg helpers on the 2-D blocks of one (batch, head), shared by the
/// forward and the backward lowering.
struct AttentionBlockBuilder {
  OpBuilder &builder;
  Location loc;

  /// The map (d0, ..., d{numDims-1}) -> (d{dims[0]}, d{dims[1]}, ...).
  AffineMap map(unsigned numDims, ArrayRef<unsigned> dims);

  /// Reduces a [Sq, Sk] block over its second dim into `init` ([Sq]).
  Value
  reduceRows(Value block, Value init,
             function_ref<Value(OpBuilder &, Location, Value, Value)> combine);

  /// Reduces a [Sq, Sk] block over its second dim into a fresh [Sq] of its
  /// element type filled with `initValue`.
  Value
  reduceRows(Value block, double initValue,
             function_ref<Value(OpBuilder &, Location, Value, Value)> combine);

  /// max_j block[i, j], -inf for a row without columns.
  Value rowMax(Value block);

  /// sum_j block[i, j].
  Value rowSum(Value block);

  /// The payload of a parallel 2-D generic over a block: the elements it
  /// reads, then the indices i and j; returns the element to write.
  using BlockBodyFn =
      function_ref<Value(OpBuilder &, Location, ValueRange, Value, Value)>;

  /// A parallel 2-D generic that updates `block` in place: the payload gets
  /// the element of `block` first, then those of `ins` (read through
  /// `inMaps`), and the indices i and j. Reading the block through the
  /// generic's `outs` (rather than `ins`) keeps it one buffer:
  /// bufferization writes in place, and elementwise fusion does not swap
  /// the init for a fresh tensor.empty. A block updated so must have another
  /// user than the next elementwise op (see the P'·V comment in Attention.cpp).
  Value updateBlock(Value block, ValueRange ins, ArrayRef<AffineMap> inMaps,
                    BlockBodyFn body);

  /// A fresh 2-D block of the sizes of `like` and of `type`: out[i, j] =
  /// body(ins..., i, j), `ins` read through `inMaps`.
  Value mapBlock(Value like, Type type, ValueRange ins,
                 ArrayRef<AffineMap> inMaps, BlockBodyFn body);

  /// The logits `logits.build(s, b, h, i, j)` of the block `scores` of the
  /// visible columns of the block at `at`, in place over `scores` (the
  /// forward, whose scores die there) or into a fresh block (the adjoint,
  /// which reads the raw scores again for softcap's derivative).
  Value blockLogits(const AttentionLogits &logits, Value scores,
                    const AttentionBlockPosition &at, bool inPlace);

  /// Rounds a tensor of the compute type to the float `type` (identity if
  /// equal).
  Value round(Value tensor, Type type);

  /// A fresh tensor of `shape` and the float `type` filled with `value`.
  Value filled(ArrayRef<int64_t> shape, Type type, double value);

  /// `dest` (a float tensor) filled with `value`: a linalg.fill into `dest`
  /// itself, so that a slice of a block bufferizes to a fill in place (a
  /// fresh tile would be allocated and copied into the block).
  Value filledInPlace(Value dest, double value);

  /// The slice of `source` at `offsets` of `sizes` (unit strides); a fresh
  /// tensor.empty when it has no element for certain (a static size 0, or
  /// a dim of `source` of size 0), since upstream rejects a static offset
  /// at the end of a dim.
  Value slice(Value source, ArrayRef<OpFoldResult> offsets,
              ArrayRef<OpFoldResult> sizes);

  /// Inserts `tile` into `dest` at `offsets` (unit strides); `dest` as it
  /// is when `tile` has a static size 0.
  Value insert(Value tile, Value dest, ArrayRef<OpFoldResult> offsets);

  /// The [rows, count] slice of the rank-2 `block` from column `first`.
  Value columns(Value block, OpFoldResult first, OpFoldResult count);

  /// The [count, cols] slice of the rank-2 `block` from row `first`.
  Value rows(Value block, OpFoldResult first, int64_t count);

  /// Inserts the rank-2 `tile` into `block` from column `first`.
  Value insertColumns(Value tile, Value block, OpFoldResult first);

  /// Inserts the rank-2 `tile` into `block` from row `first`.
  Value insertRows(Value tile, Value block, OpFoldResult first);

  /// The transpose of the rank-2 `matrix` (linalg.transpose into a fresh
  /// tensor), so that a contraction reads it with contiguous rows.
  Value transpose(Value matrix);

  /// The visible columns [tiles.firstKey, tiles.endKey) of lhs · rhs, as a
  /// [rows, width] slice (lhs: [rows, D]; rhs: [D, numKeys], read key tile
  /// by key tile), in `type`. Each tile is computed in place in a
  /// [rows, numKeys] block whose other columns are never written.
  Value visibleProduct(Value lhs, Value rhs, const AttentionKeyTiles &tiles,
                       int64_t numKeys, Type type);

  /// acc[i, d] + sum_j block[i, j] x[j, d] over the visible key tiles:
  /// `block` holds the visible columns (column 0 is key tiles.firstKey),
  /// `x` is [numKeys, D], read row tile by row tile, `acc` [rows, D].
  Value accumulateVisible(Value block, Value x, Value acc,
                          const AttentionKeyTiles &tiles, int64_t numKeys);

  /// init[d0, d1] += sum_d2 lhs(lhsMap) * rhs(rhsMap), the operands extended
  /// to the accumulator's type: a linalg.matmul with these indexing maps
  /// (each map is (d0, d2) or (d2, d0), resp. (d2, d1) or (d1, d2)).
  Value contract(Value lhs, AffineMap lhsMap, Value rhs, AffineMap rhsMap,
                 Value init);

  /// Extends the float scalar `x` to `type` (identity if equal).
  static Value extend(OpBuilder &b, Location l, Value x, Type type);

private:
  /// The parallel 2-D generic of updateBlock and mapBlock over `init`; the
  /// payload gets the element of `init` first when `readInit`.
  Value blockGeneric(Value init, bool readInit, ValueRange ins,
                     ArrayRef<AffineMap> inMaps, BlockBodyFn body);
};

} // namespace mlir::kiln

#endif // KILN_LIB_CONVERSION_KILNTOLINALG_ATTENTION_H
