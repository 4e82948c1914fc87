//===- AttentionUtils.h - What an attention op computes ---------*- C++ -*-===//
//
// The one C++ definition of kiln.attention's semantics (docs/Attention.md),
// for every backend: the CPU lowering (KilnToLinalg), the GPU kernels
// (KilnToGPU) and the decomposition into primitive ops (kiln-decompose-
// attention) all read an attention op through these descriptions and build
// its scalar rules with these builders. A new mask form or a change to a rule
// is made here once.
//
// - AttentionSizes: the static sizes, the element and compute types and the
//   dropout probability.
// - AttentionBand: the band `p(i) - L <= j <= p(i) + R` as bounds on
//   j - i, with "an edge of Sq + Sk or more bounds nothing" applied once.
// - AttentionSequences: packed variable-length sequences (cu_seqlens_q/k):
//   which sequence a query row belongs to, the keys of that sequence and the
//   row's position among them (buildAttentionRowSequence), read through
//   per-row tables (buildAttentionRowSequenceTables).
// - AttentionVisibility: the band, the key/query lengths, the boolean mask
//   and the packed sequences; buildAttentionVisible is the predicate on
//   index values.
// - AttentionLogits: how a score becomes the softmax's logit (scale,
//   softcap, additive mask, the predicate).
// - The dropout draw (Philox.h) at an entry's [B, Hq, Sq, Sk] counter, the
//   guarded exponential of an empty row, the sink's place in a row's
//   softmax (AttentionSinkFold) and the saved-LSE renormalisation.
//
// The builders work on scalars (inside linalg payloads or GPU kernels), and
// read operands through tensor.extract or memref.load, whichever the value
// is.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_UTILS_ATTENTIONUTILS_H
#define KILN_DIALECT_KILN_UTILS_ATTENTIONUTILS_H

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Utils/Utils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

#include <optional>

namespace mlir::kiln {

/// The static sizes and types of an attention op: Q [B, Hq, Sq, Dk],
/// K [B, Hkv, Sk, Dk], V [B, Hkv, Sk, Dv]. The verifier guarantees static
/// rank-4 float tensors, Hq a multiple of Hkv and dropout_p in [0, 1) (with a
/// seed when it is not 0), so reading them cannot fail.
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
  /// The type the op computes in: getComputeType(elementType).
  FloatType computeType;

  static AttentionSizes get(AttentionOpInterface op);

  /// [B, Hq, Sq, Sk]: the scores' shape, whose row-major index of
  /// (b, h, i, j) is the dropout draw's counter.
  SmallVector<int64_t, 4> getScoresShape() const {
    return {batch, numHeads, numQueries, numKeys};
  }
};

/// The band of an attention op: key j is visible from query row i, by the
/// band alone, only if
///
///   minDistance <= j - i <= maxDistance
///
/// with minDistance = offset - L and maxDistance = offset + R, where
/// p(i) = i + offset places query i among the keys (offset = Sk - Sq for
/// bottom_right, 0 for top_left). p(i) lies in [min(0, Sk - Sq),
/// max(Sq, Sk) - 1], so an edge of Sq + Sk or more excludes no key
/// 0 <= j < Sk: it is left unset (std::nullopt, unbounded), which also keeps
/// every index computed from the band from overflowing on a huge window.
struct AttentionBand {
  std::optional<int64_t> minDistance, maxDistance;

  /// p(i) - i: Sk - Sq for bottom_right, 0 for top_left.
  static int64_t getPositionOffset(int64_t numQueries, int64_t numKeys,
                                   AttentionAlignment alignment);

  static AttentionBand get(AttentionOpInterface op);
  static AttentionBand get(int64_t numQueries, int64_t numKeys,
                           AttentionAlignment alignment,
                           std::optional<int64_t> windowLeft,
                           std::optional<int64_t> windowRight);

  /// Whether some key of some row lies outside the band.
  bool isBounded() const { return minDistance || maxDistance; }
  /// Whether key j lies in the band of row i.
  bool contains(int64_t i, int64_t j) const {
    return (!minDistance || j - i >= *minDistance) &&
           (!maxDistance || j - i <= *maxDistance);
  }

  /// Index-valued bounds, each null when its edge is unbounded. They are not
  /// clamped to [0, Sk) or [0, Sq): callers clamp as their loops need.
  /// The first key of row `row`'s band: row + minDistance.
  Value buildFirstKey(OpBuilder &builder, Location loc, Value row) const;
  /// One past the last key of row `row`'s band: row + maxDistance + 1.
  Value buildEndKey(OpBuilder &builder, Location loc, Value row) const;
  /// The first row whose band holds key `key`: key - maxDistance.
  Value buildFirstRow(OpBuilder &builder, Location loc, Value key) const;
  /// One past the last row whose band holds key `key`:
  /// key - minDistance + 1.
  Value buildEndRow(OpBuilder &builder, Location loc, Value key) const;
};

/// Where query row i of packed sequences (cu_seqlens_q/k, docs/Attention.md,
/// "Packed sequences") looks, as index values: the keys
/// [keyBegin, keyEnd) of its sequence (both 0 for a row in no sequence) and
/// its position p(i) among the keys, from which the band and ALiBi's
/// distance are measured.
struct AttentionRowSequence {
  Value keyBegin, keyEnd, position;
};

/// The one definition of a row's sequence: with the offsets clamped to
/// [0, Sq] and [0, Sk], row i belongs to the first sequence s (of
/// `numSequences`) with cu_q[s] <= i < cu_q[s + 1]; its keys are
/// [cu_k[s], cu_k[s + 1]) and its position is
///
///   p(i) = cu_k[s] + (i - cu_q[s]) + offset_s
///
/// with offset_s = (cu_k[s + 1] - cu_k[s]) - (cu_q[s + 1] - cu_q[s]) for
/// bottom_right and 0 for top_left: the position of a dense attention over
/// the sequence alone, moved to where its keys lie. `cuQ` and `cuK` are
/// [N + 1] tensors or memrefs of i32 or i64; `row` is an index value. Emits
/// one scf.for over the sequences.
AttentionRowSequence buildAttentionRowSequence(
    OpBuilder &builder, Location loc, Value cuQ, Value cuK,
    int64_t numSequences, int64_t numQueries, int64_t numKeys,
    AttentionAlignment alignment, Value row);

/// The per-row tables of packed sequences, read by the predicate instead of
/// searching the offsets at every entry: [Sq] i64 tensors (memrefs in the GPU
/// kernels) of each row's AttentionRowSequence. All null without packed
/// sequences.
struct AttentionSequenceTables {
  Value keyBegin, keyEnd, position;

  explicit operator bool() const { return static_cast<bool>(keyBegin); }
};

/// Builds the tables of `op`'s packed sequences from `cuQ` and `cuK` (the
/// op's offsets as tensors, or their converted values in a conversion
/// pattern): one linalg.generic over the Sq rows whose payload is
/// buildAttentionRowSequence.
AttentionSequenceTables
buildAttentionRowSequenceTables(OpBuilder &builder, Location loc,
                                AttentionOpInterface op, Value cuQ, Value cuK);

/// Everything the visibility predicate of one attention op reads: the band,
/// the sizes that clamp the lengths, and the operands (null when absent):
/// tensors in the linalg lowerings, memrefs in the GPU kernels.
struct AttentionVisibility {
  /// Sq and Sk.
  int64_t numQueries = 0;
  int64_t numKeys = 0;
  /// The band on the global indices: bounds on j - i. Unbounded with packed
  /// sequences, whose band lies in `sequenceBand`: code that narrows loops
  /// by `band` (key tiles, row ranges) then narrows nothing, which is always
  /// correct.
  AttentionBand band;
  /// With packed sequences: the rows' tables and the band within a
  /// sequence, as bounds on j - p(i) (AttentionBand of a top_left attention,
  /// whose p(i) is i).
  AttentionSequenceTables sequences;
  AttentionBand sequenceBand;
  /// An i1 tensor (or memref) of rank <= 4 broadcastable to
  /// [B, Hq, Sq, Sk], or null. (An additive mask is not part of visibility:
  /// see AttentionLogits.)
  Value booleanMask;
  /// [B] tensors (or memrefs) of i32 or i64, or null.
  Value keyLengths;
  Value queryLengths;

  /// Reads the predicate's parameters from `op`; `mask`, `keyLengths`,
  /// `queryLengths` and `sequences` are the values to read at run time (the
  /// op's operands, or their converted values in a conversion pattern, and
  /// the tables of buildAttentionRowSequenceTables, present exactly when the
  /// op has packed sequences). The mask is taken only when it is boolean.
  static AttentionVisibility get(AttentionOpInterface op, Value mask,
                                 Value keyLengths, Value queryLengths,
                                 AttentionSequenceTables sequences = {});

  /// Whether the predicate has a term that a test of the band and the key
  /// lengths on a whole tile does not cover: a boolean mask, query lengths
  /// or packed sequences. (The GPU kernels' whole-tile shortcut.)
  bool hasEntryTerms() const {
    return booleanMask || queryLengths || static_cast<bool>(sequences);
  }

  /// p(i), the position of row `row` among the keys from which the band and
  /// ALiBi's distance are measured: row + positionOffset, or the row's entry
  /// of the sequence tables.
  Value buildPosition(OpBuilder &builder, Location loc, Value row,
                      int64_t positionOffset) const;
};

/// Returns clamp(lengths[b], 0, bound) as an index; `lengths` is a [B]
/// tensor or memref of i32 or i64.
Value buildClampedLength(OpBuilder &builder, Location loc, Value lengths,
                         Value b, int64_t bound);

/// The keys [begin, end) that some row of [firstRow, endRow) may see by its
/// packed sequence and the band within it (the smallest range holding every
/// such row's keys; begin >= end when no row sees one), read from the row
/// tables of `visibility`, which must have them: one scf.for over the rows.
/// Index values. Loops over key tiles narrow by it; the predicate still
/// decides each entry.
std::pair<Value, Value>
buildAttentionSequenceKeyRange(OpBuilder &builder, Location loc,
                               const AttentionVisibility &visibility,
                               Value firstRow, Value endRow);

/// Builds `visible[b, h, i, j]` (an i1) from index values:
///
///   the band holds (i, j)                  (AttentionBand, if bounded)
///   and j < clamp(key_lengths[b], 0, Sk)   (if present)
///   and i < clamp(query_lengths[b], 0, Sq) (if present)
///   and mask_bool[b, h, i, j]              (broadcast, if present)
///   and keyBegin[i] <= j < keyEnd[i]       (packed sequences, if present)
///   and the sequence band holds (p(i), j)  (likewise)
///
/// `h` is the query head. Returns the constant true when no term is present.
Value buildAttentionVisible(OpBuilder &builder, Location loc,
                            const AttentionVisibility &visibility, Value b,
                            Value h, Value i, Value j);

/// Reads `source` (a ranked tensor or a memref, rank <= indices.size())
/// broadcast to the iteration space of `indices` (index values), NumPy-style:
/// its dims align with the trailing indices and a size-1 dim is read at 0.
Value buildBroadcastRead(OpBuilder &builder, Location loc, Value source,
                         ValueRange indices);

/// How the score s = q . k of entry (b, h, i, j) becomes the logit that the
/// softmax reads, in the forward and in the adjoint (which recomputes it):
///
///   t = visible(b, h, i, j) ? cap(scale * s) + bias(b, h, i, j) : -inf
///   bias(b, h, i, j) = mask_add[b, h, i, j] - alibi[b, h] * |j - p(i)|
///
/// with cap(x) = c * tanh(x / c) when `softcap` is set, and each term of the
/// bias only when its operand is present.
struct AttentionLogits {
  AttentionVisibility visibility;
  double scale = 1.0;
  std::optional<double> softcap;
  /// A float tensor (or memref) broadcastable to [B, Hq, Sq, Sk], or null.
  Value additiveMask;
  /// ALiBi's slopes: a float tensor (or memref) broadcastable to [B, Hq], or
  /// null.
  Value alibiSlopes;
  /// p(i) - i (AttentionBand::getPositionOffset), for ALiBi's distance.
  int64_t positionOffset = 0;

  /// Reads the parameters from `op`; `mask`, `keyLengths`, `queryLengths`,
  /// `alibiSlopes` and `sequences` are the values to read at run time (the
  /// op's operands, or their converted values in a conversion pattern), as
  /// for AttentionVisibility::get.
  static AttentionLogits get(AttentionOpInterface op, Value mask,
                             Value keyLengths, Value queryLengths,
                             Value alibiSlopes,
                             AttentionSequenceTables sequences = {});

  /// Whether t is cap(scale * s) on every visible entry: no additive term
  /// (additive mask or ALiBi) depends on (b, h, i, j).
  bool hasBias() const { return additiveMask || alibiSlopes; }

  /// Builds t from the score `s` (a float scalar of the compute type, which
  /// t has too) and the index values.
  Value build(OpBuilder &builder, Location loc, Value s, Value b, Value h,
              Value i, Value j) const;

  /// cap(scale * s) + mask_add[b, h, i, j], without the predicate, for
  /// entries known to be visible or masked by the caller. With a non-null
  /// `capDerivative` and `softcap` set, also returns there
  /// d cap(x) / dx = 1 - tanh²(x / c) at x = scale * s (null otherwise).
  Value buildUnmasked(OpBuilder &builder, Location loc, Value s, Value b,
                      Value h, Value i, Value j,
                      Value *capDerivative = nullptr) const;
};

/// Builds the dropout keep bit (i1) of attention entry (b, h, i, j) of a
/// [B, Hq, Sq, Sk] attention (`shape`) keyed by `seed` (i64) with drop
/// probability `p`: buildDropoutKeep (Philox.h) at the row-major flat index
/// of (b, h, i, j). The draws are therefore those of kiln.dropout on the
/// [B, Hq, Sq, Sk] probabilities.
Value buildAttentionDropoutKeep(OpBuilder &builder, Location loc, Value seed,
                                double p, ArrayRef<int64_t> shape, Value b,
                                Value h, Value i, Value j);

/// The dropout of one attention op: P' = P * Z / (1 - p), with Z drawn by
/// buildAttentionDropoutKeep. The forward applies it as it normalizes P (the
/// row sum l keeps every P), the adjoint to P and to dP.
struct AttentionDropout {
  /// The drop probability, in [0, 1); 0 is no dropout.
  double p = 0.0;
  /// The i64 seed, read once before the loops; null when p = 0.
  Value seed;
  /// [B, Hq, Sq, Sk]: the draw's counter is the row-major index in it.
  SmallVector<int64_t, 4> shape;

  /// The dropout of an op of `sizes` whose `seed` operand (a rank-0 i64
  /// tensor or memref, null without dropout) is read at the builder's point
  /// when p > 0.
  static AttentionDropout get(OpBuilder &builder, Location loc,
                              const AttentionSizes &sizes, Value seed);

  bool isActive() const { return p > 0.0; }

  /// keep(b, h, i, j) ? x * (1 / (1 - p)) : 0 for the float scalar `x` (the
  /// factor in x's type) at the global indices; `x` itself when inactive.
  Value apply(OpBuilder &builder, Location loc, Value x, Value b, Value h,
              Value i, Value j) const;
};

/// Returns `m == emptyRow ? 0 : exp(x - m)` for float scalars `x` and `m`
/// of one type: the softmax numerator, exactly 0 in a row whose statistic
/// `m` marks it empty (a row max of -inf, or a saved LSE of +inf), where
/// exp(x - m) would be NaN.
Value buildGuardedExp(OpBuilder &builder, Location loc, Value x, Value m,
                      double emptyRow);

/// Reads sinks[h] of the [Hq] `sinks` (a tensor or memref) in the float
/// `type`.
Value buildSinkRead(OpBuilder &builder, Location loc, Value sinks, Value h,
                    Type type);

/// Attention sinks: the logit s = sinks[h] of query head h joins the softmax
/// of each of its rows with no value (docs/Attention.md, "Sinks"). A row's
/// statistics without it, m (its max, -inf while no key is visible) and
/// l = sum_j exp(t[j] - m) (0 then), become those of the row with it:
///
///   m' = max(m, s),   rescale = exp(m - m'),   l' = l * rescale + exp(s - m')
///
/// each exponential 0 where m' = -inf (no visible key and a sink of -inf:
/// the row stays empty, l' = 0). The row's probabilities are then
/// exp(t - m) * rescale / l', its sink's exp(s - m') / l' and its LSE
/// m' + log(l'). The two-pass CPU softmax folds the sink into its row max
/// and sum, the online GPU kernels into their final m and l, and the
/// adjoint's saved-LSE renormalisation into its row sum (m = LSE >= s, so
/// rescale = 1 there).
struct AttentionSinkFold {
  Value max, sum, rescale;

  /// Folds `sink` into the row statistics `m` and `l` (float scalars of one
  /// type, as `sink`).
  static AttentionSinkFold build(OpBuilder &builder, Location loc, Value m,
                                 Value l, Value sink);
  /// rescale / l', the factor that turns exp(t - m) into P: 0 for an empty
  /// row (l' = 0).
  Value buildProbabilityScale(OpBuilder &builder, Location loc) const;
};

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

} // namespace mlir::kiln

#endif // KILN_DIALECT_KILN_UTILS_ATTENTIONUTILS_H
