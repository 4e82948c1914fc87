//===- Attention.h - Building blocks of the attention lowerings -*- C++ -*-===//
//
// Private to the KilnToLinalg library: the loops, query blocks, key tiles
// and linalg block helpers that the forward (Attention.cpp) and the adjoint
// (AttentionGrad.cpp) lowering share. What attention computes (sizes, band,
// predicate, logits, dropout draw) is not defined here but in
// kiln/Dialect/Kiln/Utils/AttentionUtils.h, which the GPU kernels and the
// decomposition use too.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CONVERSION_KILNTOLINALG_ATTENTION_H
#define KILN_LIB_CONVERSION_KILNTOLINALG_ATTENTION_H

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Utils/AttentionUtils.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

#include <array>
#include <optional>

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace mlir::kiln {

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
/// The lanes of the blocks' row reductions (AttentionBlockBuilder::
/// reduceRowsByLanes): one AVX-512 vector of f32.
constexpr int64_t kAttentionRowLanes = 16;

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
/// buildAttentionVisible: AttentionBand) and, with `readSequenceTables`,
/// from the rows' packed sequences (buildAttentionSequenceKeyRange). The
/// lengths and masks are left to the predicate, and so are the sequences
/// without `readSequenceTables`: a bound read from a buffer would be a host
/// read of device memory in the GPU pipeline, which runs this lowering too
/// (sequentially: the CPU's parallel lowering reads them).
AttentionKeyTiles buildVisibleKeyTiles(OpBuilder &builder, Location loc,
                                       const AttentionVisibility &visibility,
                                       OpFoldResult firstRow, int64_t rows,
                                       bool readSequenceTables);

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

  /// The logit t = logits.build(s, b, h, row, key) of the score `s` at the
  /// block's indices (i, j) (those of a generic over the visible columns).
  Value buildLogit(OpBuilder &builder, Location loc,
                   const AttentionLogits &logits, Value s, Value i,
                   Value j) const;
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

//===----------------------------------------------------------------------===//
// Loops whose iterations own disjoint blocks of the results
//===----------------------------------------------------------------------===//

/// The slice (unit strides) of a loop-carried tensor that one iteration of
/// buildOwnedBlockLoop writes; the iteration leaves every other element of
/// that tensor as it found it.
struct OwnedSlice {
  SmallVector<OpFoldResult> offsets, sizes;
};

/// The body of one iteration of buildOwnedBlockLoop: its induction variables
/// (one per bound; a constant 0 for a bound of 1) and the carried tensors.
/// Returns their next values and sets `owned` to the slice of each that
/// the iteration writes.
using OwnedBlockBodyFn = function_ref<SmallVector<Value>(
    OpBuilder &, Location, ValueRange ivs, ValueRange args,
    SmallVectorImpl<OwnedSlice> &owned)>;

/// Runs `body` over every point of [0, upperBounds), threading `inits`
/// through, for iterations that write disjoint slices of the carried
/// tensors. With `parallel`, an scf.forall whose shared outputs are the
/// carried tensors: each iteration starts from the shared tensors and
/// parallel-inserts the slices it owns, so an iteration computes each
/// element it owns with the same operations in the same order on any number
/// of threads. Otherwise a nest of scf.for, innermost bound last. A bound of
/// 1 makes no loop dim; with every bound 1 the body is inlined. Returns the
/// final values.
SmallVector<Value> buildOwnedBlockLoop(OpBuilder &builder, Location loc,
                                       ArrayRef<int64_t> upperBounds,
                                       ValueRange inits, bool parallel,
                                       OwnedBlockBodyFn body);

/// The query blocks of `numQueries` rows of each (b, h) of a [batch,
/// numHeads] grid, as buildOwnedBlockLoop iterations: the full blocks over
/// (b, h, t), block t taken in the order 0, n - 1, 1, n - 2, ... (so that
/// consecutive iterations, hence the contiguous chunks a static schedule
/// hands each thread, pair a causal band's cheap blocks with its dear ones),
/// then the remainder block over (b, h). `body` gets b, h, the block's first
/// row and rows, and the carried tensors, whose [b, h, firstRow : rows, ...]
/// (rank 3 or more) is what the iteration owns; it returns their next
/// values.
using QueryBlockTaskBodyFn = function_ref<SmallVector<Value>(
    OpBuilder &, Location, Value b, Value h, OpFoldResult firstRow,
    int64_t rows, ValueRange)>;
SmallVector<Value> buildQueryBlockTasks(OpBuilder &builder, Location loc,
                                        int64_t batch, int64_t numHeads,
                                        int64_t numQueries, ValueRange inits,
                                        bool parallel,
                                        QueryBlockTaskBodyFn body);

/// AttentionGrad.cpp: kiln.attention_grad. Called by
/// populateAttentionPatterns, with its `parallel`.
void populateAttentionGradPatterns(RewritePatternSet &patterns, bool parallel);

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

  /// The payload of a parallel 2-D generic over a block: the elements it
  /// reads, then the indices i and j; returns the element to write.
  using BlockBodyFn =
      function_ref<Value(OpBuilder &, Location, ValueRange, Value, Value)>;

  /// Reduces a [rows, W] block (W static or dynamic) over its second dim
  /// in kAttentionRowLanes lanes: lane l combines the columns j = l
  /// (mod lanes) in increasing j, starting from `identity`, and the lanes
  /// are then combined in order 0, 1, ... into a fresh [rows] filled with
  /// `identity`. The whole groups of lanes columns are one generic on the
  /// block expanded to [rows, W / lanes, lanes] (loops i, jb, l along the
  /// rows, lane l parallel), the W mod lanes last columns one on a
  /// [rows, W mod lanes] slice; LLVM's loop vectorizer widens the lanes (a
  /// reduction that combines one column after the other into a scalar it
  /// cannot, without reassociating floating-point sums). The order is fixed
  /// by the block's width alone.
  ///
  /// With a `mapFn`, the same pass maps the elements first:
  /// x = mapFn(block[i, j], blockIns[0][i, j], ..., rowIns[0][i], ...; i, j)
  /// is reduced and, with `writeBack`, written back into the block in place
  /// (blockIns are more [rows, W] blocks, rowIns [rows] tensors). Returns
  /// {the block (as mapped), the [rows] result}. `combine(b, loc, x, acc)`.
  std::pair<Value, Value> mapAndReduceRowsByLanes(
      Value block, ValueRange blockIns, ValueRange rowIns, BlockBodyFn mapFn,
      bool writeBack, double identity,
      function_ref<Value(OpBuilder &, Location, Value, Value)> combine);

  /// mapAndReduceRowsByLanes with max (-inf for a row without columns; a
  /// max is the same in any order) and with the sum.
  std::pair<Value, Value> mapAndRowMax(Value block, ValueRange rowIns,
                                       BlockBodyFn mapFn,
                                       ValueRange blockIns = {},
                                       bool writeBack = true);
  std::pair<Value, Value> mapAndRowSum(Value block, ValueRange rowIns,
                                       BlockBodyFn mapFn,
                                       ValueRange blockIns = {},
                                       bool writeBack = true);

  /// max_j block[i, j] and sum_j block[i, j], by lanes.
  Value rowMax(Value block);
  Value rowSum(Value block);

  /// A parallel 1-D generic over rows into a fresh tensor of the shape and
  /// type of `rows[0]`: out[i] = body(rows[0][i], rows[1][i], ...).
  Value mapRows(ValueRange rows,
                function_ref<Value(OpBuilder &, Location, ValueRange)> body);

  /// The rows' statistics with the attention sink `sink` (a scalar of their
  /// type) folded in (AttentionSinkFold), from the row max `rowMax` and the
  /// row sum `rowSum` of exp(t - rowMax), each [rows]: {m', l', w} with
  /// w = rescale / l', the factor that turns exp(t - rowMax) into P.
  std::array<Value, 3> foldSinkIntoRows(Value rowMax, Value rowSum,
                                        Value sink);

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

  /// The logits (AttentionBlockPosition::buildLogit) of the block `scores`
  /// of the visible columns of the block at `at`, into a fresh block (the
  /// adjoint, which reads the raw scores again for softcap's derivative;
  /// the forward maps its scores in place in its row-max pass).
  Value blockLogits(const AttentionLogits &logits, Value scores,
                    const AttentionBlockPosition &at);

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

private:
  /// The parallel 2-D generic of updateBlock and mapBlock over `init`; the
  /// payload gets the element of `init` first when `readInit`.
  Value blockGeneric(Value init, bool readInit, ValueRange ins,
                     ArrayRef<AffineMap> inMaps, BlockBodyFn body);
};

} // namespace mlir::kiln

#endif // KILN_LIB_CONVERSION_KILNTOLINALG_ATTENTION_H
