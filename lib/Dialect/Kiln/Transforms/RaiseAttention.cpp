//===- RaiseAttention.cpp - PyTorch attention graphs to kiln.attention ----===//
//
// Four rewrites, each applied only where the equivalence is proven on the
// IR itself (shapes, constants, index arithmetic); anything else is left
// as it is:
//
// - RaiseWrittenOutAttention: matmul(softmax(cap(scale * Q Kᵀ) + mask), V)
//   as PyTorch's eager attention writes it, to kiln.attention.
// - DerepeatKeyValue: kiln.attention on K and V repeated along the heads as
//   Hugging Face's `repeat_kv` does (unsqueeze at 2, broadcast, reshape) reads
//   the unrepeated K and V instead; the op's own grouped-query rule (query
//   head h reads kv head h / R) is what repeat_interleave along dim 1 gives.
// - RaiseAttentionMask: a boolean mask that is a conjunction of band terms
//   (constants checked element by element, or comparisons of iota index
//   expressions) and of terms independent of the query or of the key
//   position becomes band attributes plus the residual terms, un-broadcast;
//   an additive `select(m, 0, -inf)` mask becomes boolean first (and a
//   `select(m, 0, finfo.min)` one with `empty-rows-as-zero`).
//
// See docs/Attention.md, "Raising attention from PyTorch graphs".
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/RaiseAttention.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/KilnShapeUtils.h"
#include "kiln/Dialect/Kiln/Transforms/Autodiff.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>
#include <limits>

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNRAISEATTENTIONPASS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

/// The dense elements of a kiln.constant, or null.
DenseElementsAttr getConstantElements(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return {};
  return dyn_cast<DenseElementsAttr>(constant.getValue());
}

/// The value of a splat float constant (rank 0 or any shape), or nullopt.
std::optional<APFloat> getSplatFloat(Value value) {
  DenseElementsAttr elements = getConstantElements(value);
  if (!elements || !elements.isSplat() ||
      !isa<FloatType>(elements.getElementType()))
    return std::nullopt;
  return elements.getSplatValue<APFloat>();
}

/// The value of a splat float constant as a double, or nullopt.
std::optional<double> getSplatDouble(Value value) {
  if (std::optional<APFloat> splat = getSplatFloat(value))
    return splat->convertToDouble();
  return std::nullopt;
}

/// True for a splat i1 constant holding `truth`.
bool isSplatBool(Value value, bool truth) {
  DenseElementsAttr elements = getConstantElements(value);
  return elements && elements.isSplat() &&
         elements.getElementType().isInteger(1) &&
         elements.getSplatValue<bool>() == truth;
}

/// How an additive mask value acts: 0 (visible), a blocking value (-inf, or
/// a finite value at or below the type's lowest finite one, finfo.min), or
/// anything else.
enum class AdditiveKind : uint8_t { Visible, BlockedInf, BlockedFinite, Other };

AdditiveKind classifyAdditive(const APFloat &value) {
  if (value.isNaN())
    return AdditiveKind::Other;
  if (value.isZero())
    return AdditiveKind::Visible;
  if (value.isInfinity())
    return value.isNegative() ? AdditiveKind::BlockedInf : AdditiveKind::Other;
  APFloat lowest = APFloat::getLargest(value.getSemantics(), /*Negative=*/true);
  if (value.compare(lowest) != APFloat::cmpGreaterThan)
    return AdditiveKind::BlockedFinite;
  return AdditiveKind::Other;
}

/// True when `value` is provably free of -inf and NaN: built from finite
/// constants by selects and layout ops only (a sum of two finite values can
/// overflow to -inf, so sums do not count).
bool isProvablyFinite(Value value, int depth = 0) {
  if (depth > 32)
    return false;
  Operation *def = value.getDefiningOp();
  if (!def)
    return false;
  if (auto constant = dyn_cast<ConstantOp>(def)) {
    auto elements = dyn_cast<DenseElementsAttr>(constant.getValue());
    if (!elements || !isa<FloatType>(elements.getElementType()))
      return false;
    if (elements.isSplat())
      return elements.getSplatValue<APFloat>().isFinite();
    return llvm::all_of(elements.getValues<APFloat>(),
                        [](const APFloat &v) { return v.isFinite(); });
  }
  if (auto select = dyn_cast<SelectOp>(def))
    return isProvablyFinite(select.getOnTrue(), depth + 1) &&
           isProvablyFinite(select.getOnFalse(), depth + 1);
  if (isa<BroadcastToOp, ReshapeOp, UnsqueezeOp, SqueezeOp, SliceOp,
          TransposeOp, PermuteOp, FlattenOp>(def))
    return isProvablyFinite(def->getOperand(0), depth + 1);
  return false;
}

RankedTensorType getRankedType(Value value) {
  return dyn_cast<RankedTensorType>(value.getType());
}

//===----------------------------------------------------------------------===//
// Values seen from the attention's [B, Hq, Sq, Sk]
//===----------------------------------------------------------------------===//

/// The attention dims a dim of a mask term can stand for. `None`: the term
/// is read at index 0 of that dim whatever the attention index (a size-1
/// dim, or one a prefix slice cuts to size 1).
enum AttentionDim : int8_t {
  None = -1,
  DimB = 0,
  DimH = 1,
  DimQ = 2,
  DimK = 3
};

/// A value feeding the attention's mask, with the attention dim each of its
/// dims stands for. A dim mapped to X has at least the size of X (more under
/// a prefix slice, whose cut-off elements are never read).
struct Mapped {
  Value value;
  SmallVector<int8_t, 4> dims;

  RankedTensorType getType() const { return getRankedType(value); }
  bool has(int8_t dim) const { return llvm::is_contained(dims, dim); }
};

/// The attention's mask, aligned with [B, Hq, Sq, Sk] at its trailing dim.
Mapped mapMask(Value mask) {
  Mapped mapped{mask, {}};
  ArrayRef<int64_t> shape = getRankedType(mask).getShape();
  int64_t offset = 4 - static_cast<int64_t>(shape.size());
  for (auto [d, size] : llvm::enumerate(shape))
    mapped.dims.push_back(size == 1 ? int8_t(None)
                                    : static_cast<int8_t>(offset + d));
  return mapped;
}

/// An operand of a broadcasting op (broadcast_to, elementwise) whose result
/// is `result`: aligned at the trailing dim, a size-1 dim is broadcast.
std::optional<Mapped> mapBroadcastOperand(const Mapped &result, Value operand) {
  RankedTensorType type = getRankedType(operand);
  if (!type)
    return std::nullopt;
  int64_t offset = static_cast<int64_t>(result.dims.size()) - type.getRank();
  if (offset < 0)
    return std::nullopt;
  Mapped mapped{operand, {}};
  for (auto [d, size] : llvm::enumerate(type.getShape()))
    mapped.dims.push_back(size == 1 ? int8_t(None) : result.dims[offset + d]);
  return mapped;
}

/// The operand of a reshape that only inserts or removes size-1 dims: its
/// other dims are those of the result, in order.
std::optional<Mapped> mapUnitReshapeOperand(const Mapped &result,
                                            Value operand) {
  ArrayRef<int64_t> resultShape = result.getType().getShape();
  ArrayRef<int64_t> shape = getRankedType(operand).getShape();
  SmallVector<int8_t> resultDims;
  SmallVector<int64_t> resultSizes;
  for (auto [d, size] : llvm::enumerate(resultShape))
    if (size != 1) {
      resultDims.push_back(result.dims[d]);
      resultSizes.push_back(size);
    }
  Mapped mapped{operand, {}};
  size_t next = 0;
  for (int64_t size : shape) {
    if (size == 1) {
      mapped.dims.push_back(None);
      continue;
    }
    if (next == resultSizes.size() || resultSizes[next] != size)
      return std::nullopt;
    mapped.dims.push_back(resultDims[next++]);
  }
  if (next != resultSizes.size())
    return std::nullopt;
  return mapped;
}

/// Looks through one layout op that keeps every element at the attention
/// index it had: broadcast_to, a reshape/unsqueeze/squeeze of size-1 dims,
/// a slice that keeps a prefix of each dim.
std::optional<Mapped> lookThroughLayout(const Mapped &node) {
  Operation *def = node.value.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto broadcast = dyn_cast<BroadcastToOp>(def))
    return mapBroadcastOperand(node, broadcast.getInput());
  if (isa<ReshapeOp, UnsqueezeOp, SqueezeOp>(def))
    return mapUnitReshapeOperand(node, def->getOperand(0));
  if (auto slice = dyn_cast<SliceOp>(def)) {
    if (llvm::any_of(slice.getStarts(), [](int64_t s) { return s != 0; }) ||
        llvm::any_of(slice.getStrides(), [](int64_t s) { return s != 1; }))
      return std::nullopt;
    // Dim d of the input is dim d of the result, extended past its end.
    return Mapped{slice.getInput(), node.dims};
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Band terms
//===----------------------------------------------------------------------===//

/// The attention's sizes.
struct AttentionShape {
  int64_t sizes[4]; // B, Hq, Sq, Sk

  int64_t numQueries() const { return sizes[DimQ]; }
  int64_t numKeys() const { return sizes[DimK]; }
};

/// A band `lo <= j - i <= hi` (an absent edge is unbounded), the
/// conjunction of the band terms of a mask.
struct Band {
  std::optional<int64_t> lo, hi;

  void intersect(std::optional<int64_t> termLo, std::optional<int64_t> termHi) {
    if (termLo)
      lo = lo ? std::max(*lo, *termLo) : *termLo;
    if (termHi)
      hi = hi ? std::min(*hi, *termHi) : *termHi;
  }
};

/// What a mask is made of.
struct MaskTerms {
  Band band;
  /// A band term or an all-true term was found (so raising makes progress).
  bool foundBand = false;
  /// Boolean terms independent of the query or of the key position, kept
  /// as the mask.
  SmallVector<Mapped> residual;
  /// Additive constants (0 or blocking) independent of the query or of the
  /// key position, kept as the boolean `value == 0`.
  SmallVector<std::pair<Mapped, DenseElementsAttr>> residualAdditive;
  /// A finite blocking value was read as "not visible".
  bool usesFiniteBlock = false;
};

constexpr int kMaxDepth = 64;

/// Visits the elements of `elements` (of the type of `node`) at the
/// attention indices they are read at, calling `visit(i, j, index)` with
/// the query and key positions and the element's flat index.
template <typename Fn>
void forEachReadElement(const Mapped &node, const AttentionShape &shape,
                        Fn visit) {
  ArrayRef<int64_t> dims = node.getType().getShape();
  int64_t rank = static_cast<int64_t>(dims.size());
  int64_t count = node.getType().getNumElements();
  SmallVector<int64_t, 4> coords(rank, 0);
  for (int64_t n = 0; n < count; ++n) {
    bool read = true;
    int64_t i = 0, j = 0;
    for (int64_t d = 0; d < rank && read; ++d) {
      int8_t dim = node.dims[d];
      if (dim == None)
        read = coords[d] == 0;
      else if (coords[d] >= shape.sizes[dim])
        read = false;
      else if (dim == DimQ)
        i = coords[d];
      else if (dim == DimK)
        j = coords[d];
    }
    if (read)
      visit(i, j, n);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++coords[d] < dims[d])
        break;
      coords[d] = 0;
    }
  }
}

/// The band that `visible[n]` (the flat element index of `node`) is, if it
/// is one exactly on every element read: lo and hi are the extremes of
/// j - i over the visible elements, then every element is checked. Fails
/// for an element outside [lo, hi] that is visible or one inside that is
/// not, and when nothing is visible.
template <typename VisibleFn>
FailureOr<Band> classifyConstantBand(const Mapped &node,
                                     const AttentionShape &shape,
                                     VisibleFn visible) {
  std::optional<int64_t> lo, hi;
  forEachReadElement(node, shape, [&](int64_t i, int64_t j, int64_t n) {
    if (!visible(n))
      return;
    int64_t d = j - i;
    lo = lo ? std::min(*lo, d) : d;
    hi = hi ? std::max(*hi, d) : d;
  });
  if (!lo)
    return failure();
  bool exact = true;
  forEachReadElement(node, shape, [&](int64_t i, int64_t j, int64_t n) {
    int64_t d = j - i;
    exact &= visible(n) == (*lo <= d && d <= *hi);
  });
  if (!exact)
    return failure();
  return Band{lo, hi};
}

/// `q * i + k * j + c` over the attention's query and key positions.
struct IndexExpr {
  int64_t q = 0, k = 0, c = 0;
};

/// The largest magnitude the element type holds exactly as an integer (an
/// index expression must stay within it, so no integer op wraps and no
/// float op rounds); 0 for other types. Capped at 2^62 so that the
/// arithmetic here cannot overflow.
int64_t exactIntegerBound(Type type) {
  constexpr int64_t cap = int64_t(1) << 62;
  if (auto integer = dyn_cast<IntegerType>(type)) {
    unsigned width = integer.getWidth();
    if (width < 8)
      return 0;
    return width > 63 ? cap : (int64_t(1) << (width - 1)) - 1;
  }
  if (auto flt = dyn_cast<FloatType>(type)) {
    unsigned precision = APFloat::semanticsPrecision(flt.getFloatSemantics());
    return precision >= 62 ? cap : int64_t(1) << precision;
  }
  return 0;
}

/// Evaluates an index expression built from kiln.iota, integer splat
/// constants, add, sub, converts and layout ops, or fails.
std::optional<IndexExpr> evalIndex(const Mapped &node,
                                   const AttentionShape &shape, int depth) {
  if (depth > kMaxDepth)
    return std::nullopt;
  RankedTensorType type = node.getType();
  int64_t bound = exactIntegerBound(type.getElementType());
  auto checked = [&](IndexExpr e) -> std::optional<IndexExpr> {
    // |e| over 0 <= i < Sq, 0 <= j < Sk; each term is below 2^62 / 3.
    constexpr int64_t part = (int64_t(1) << 62) / 3;
    if (std::abs(e.q) > 1 || std::abs(e.k) > 1 || std::abs(e.c) > part)
      return std::nullopt;
    int64_t magnitude = std::abs(e.q) * shape.numQueries() +
                        std::abs(e.k) * shape.numKeys() + std::abs(e.c);
    if (magnitude > bound)
      return std::nullopt;
    return e;
  };
  if (bound == 0)
    return std::nullopt;
  Operation *def = node.value.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto iota = dyn_cast<IotaOp>(def)) {
    uint64_t axis = iota.getAxis();
    if (axis >= node.dims.size())
      return std::nullopt;
    switch (node.dims[axis]) {
    case None:
      return checked({});
    case DimQ:
      return checked({1, 0, 0});
    case DimK:
      return checked({0, 1, 0});
    default:
      return std::nullopt;
    }
  }
  if (DenseElementsAttr elements = getConstantElements(node.value)) {
    if (!elements.isSplat())
      return std::nullopt;
    if (isa<IntegerType>(elements.getElementType())) {
      APInt value = elements.getSplatValue<APInt>();
      if (value.getSignificantBits() > 63)
        return std::nullopt;
      return checked({0, 0, value.getSExtValue()});
    }
    APFloat value = elements.getSplatValue<APFloat>();
    if (!value.isInteger())
      return std::nullopt;
    double d = value.convertToDouble();
    if (std::abs(d) > 1e18)
      return std::nullopt;
    return checked({0, 0, static_cast<int64_t>(d)});
  }
  if (isa<AddOp, SubOp>(def)) {
    std::optional<Mapped> lhsNode =
        mapBroadcastOperand(node, def->getOperand(0));
    std::optional<Mapped> rhsNode =
        mapBroadcastOperand(node, def->getOperand(1));
    if (!lhsNode || !rhsNode)
      return std::nullopt;
    std::optional<IndexExpr> lhs = evalIndex(*lhsNode, shape, depth + 1);
    std::optional<IndexExpr> rhs = evalIndex(*rhsNode, shape, depth + 1);
    if (!lhs || !rhs)
      return std::nullopt;
    int64_t sign = isa<AddOp>(def) ? 1 : -1;
    return checked({lhs->q + sign * rhs->q, lhs->k + sign * rhs->k,
                    lhs->c + sign * rhs->c});
  }
  if (auto convert = dyn_cast<ConvertOp>(def)) {
    // Same shape; exact when the value fits both types (checked at both).
    std::optional<IndexExpr> input =
        evalIndex(Mapped{convert.getOperand(), node.dims}, shape, depth + 1);
    if (!input)
      return std::nullopt;
    return checked(*input);
  }
  if (std::optional<Mapped> inner = lookThroughLayout(node))
    return evalIndex(*inner, shape, depth + 1);
  return std::nullopt;
}

/// A comparison of index expressions as a band, when it is `j - i` against
/// a constant (or a constant truth).
FailureOr<Band> classifyComparison(const Mapped &node,
                                   const AttentionShape &shape, int depth) {
  Operation *def = node.value.getDefiningOp();
  if (!isa_and_present<LtOp, LeOp, GtOp, GeOp, EqOp>(def))
    return failure();
  std::optional<Mapped> lhsNode = mapBroadcastOperand(node, def->getOperand(0));
  std::optional<Mapped> rhsNode = mapBroadcastOperand(node, def->getOperand(1));
  if (!lhsNode || !rhsNode)
    return failure();
  std::optional<IndexExpr> lhs = evalIndex(*lhsNode, shape, depth + 1);
  std::optional<IndexExpr> rhs = evalIndex(*rhsNode, shape, depth + 1);
  if (!lhs || !rhs)
    return failure();
  // lhs - rhs = q i + k j + c, compared with 0.
  int64_t q = lhs->q - rhs->q, k = lhs->k - rhs->k, c = lhs->c - rhs->c;
  enum Relation {
    Lt,
    Le,
    Gt,
    Ge,
    Eq
  } relation = isa<LtOp>(def)   ? Lt
               : isa<LeOp>(def) ? Le
               : isa<GtOp>(def) ? Gt
               : isa<GeOp>(def) ? Ge
                                : Eq;
  if (q == 0 && k == 0) {
    bool truth = relation == Lt   ? c < 0
                 : relation == Le ? c <= 0
                 : relation == Gt ? c > 0
                 : relation == Ge ? c >= 0
                                  : c == 0;
    if (!truth)
      return failure();
    return Band{};
  }
  if (k == -1 && q == 1) {
    // -(j - i) + c R 0  <=>  (j - i) - c R' 0, R' the mirrored relation.
    c = -c;
    relation = relation == Lt   ? Gt
               : relation == Le ? Ge
               : relation == Gt ? Lt
               : relation == Ge ? Le
                                : Eq;
  } else if (!(k == 1 && q == -1)) {
    return failure();
  }
  // (j - i) + c R 0.
  switch (relation) {
  case Lt:
    return Band{std::nullopt, -c - 1};
  case Le:
    return Band{std::nullopt, -c};
  case Gt:
    return Band{-c + 1, std::nullopt};
  case Ge:
    return Band{-c, std::nullopt};
  case Eq:
    return Band{-c, -c};
  }
  return failure();
}

/// Collects the terms of a boolean mask: `kiln.mul` (and) and
/// `select(a, b, false)` split it, layout ops are looked through, and a
/// term that does not depend on both the query and the key position is
/// kept whole. Fails on a term that depends on both and is no band.
LogicalResult collectBoolean(const Mapped &node, const AttentionShape &shape,
                             MaskTerms &terms, int depth) {
  if (depth > kMaxDepth)
    return failure();
  if (!node.has(DimQ) || !node.has(DimK)) {
    terms.residual.push_back(node);
    return success();
  }
  Operation *def = node.value.getDefiningOp();
  if (!def)
    return failure();
  auto both = [&](Value lhs, Value rhs) -> LogicalResult {
    std::optional<Mapped> lhsNode = mapBroadcastOperand(node, lhs);
    std::optional<Mapped> rhsNode = mapBroadcastOperand(node, rhs);
    if (!lhsNode || !rhsNode)
      return failure();
    return success(
        succeeded(collectBoolean(*lhsNode, shape, terms, depth + 1)) &&
        succeeded(collectBoolean(*rhsNode, shape, terms, depth + 1)));
  };
  if (auto mul = dyn_cast<MulOp>(def))
    return both(mul.getLhs(), mul.getRhs());
  if (auto select = dyn_cast<SelectOp>(def)) {
    if (isSplatBool(select.getOnFalse(), false))
      return both(select.getCond(), select.getOnTrue());
    return failure();
  }
  if (std::optional<Mapped> inner = lookThroughLayout(node))
    return collectBoolean(*inner, shape, terms, depth + 1);

  FailureOr<Band> band = failure();
  if (DenseElementsAttr elements = getConstantElements(node.value)) {
    if (elements.isSplat()) {
      if (!elements.getSplatValue<bool>())
        return failure();
      band = Band{};
    } else {
      SmallVector<bool> values(elements.getValues<bool>());
      band = classifyConstantBand(node, shape,
                                  [&](int64_t n) { return values[n]; });
    }
  } else {
    band = classifyComparison(node, shape, depth);
  }
  if (failed(band))
    return failure();
  terms.band.intersect(band->lo, band->hi);
  terms.foundBand = true;
  return success();
}

/// Collects the terms of an additive mask: sums of `select(m, 0, C)` and of
/// constants holding only 0 and C, C = -inf or at most finfo.min, through
/// layout ops; m is collected as a boolean mask. Fails on anything else.
LogicalResult collectAdditive(const Mapped &node, const AttentionShape &shape,
                              MaskTerms &terms, int depth) {
  if (depth > kMaxDepth)
    return failure();
  Operation *def = node.value.getDefiningOp();
  if (!def)
    return failure();
  if (auto add = dyn_cast<AddOp>(def)) {
    // 0 + 0 = 0, and a sum with a blocking term is blocking (or -inf).
    std::optional<Mapped> lhs = mapBroadcastOperand(node, add.getLhs());
    std::optional<Mapped> rhs = mapBroadcastOperand(node, add.getRhs());
    if (!lhs || !rhs)
      return failure();
    return success(succeeded(collectAdditive(*lhs, shape, terms, depth + 1)) &&
                   succeeded(collectAdditive(*rhs, shape, terms, depth + 1)));
  }
  if (auto select = dyn_cast<SelectOp>(def)) {
    std::optional<APFloat> onTrue = getSplatFloat(select.getOnTrue());
    std::optional<APFloat> onFalse = getSplatFloat(select.getOnFalse());
    if (!onTrue || !onFalse ||
        classifyAdditive(*onTrue) != AdditiveKind::Visible)
      return failure();
    AdditiveKind blocked = classifyAdditive(*onFalse);
    if (blocked != AdditiveKind::BlockedInf &&
        blocked != AdditiveKind::BlockedFinite)
      return failure();
    terms.usesFiniteBlock |= blocked == AdditiveKind::BlockedFinite;
    std::optional<Mapped> cond = mapBroadcastOperand(node, select.getCond());
    if (!cond)
      return failure();
    return collectBoolean(*cond, shape, terms, depth + 1);
  }
  if (std::optional<Mapped> inner = lookThroughLayout(node))
    return collectAdditive(*inner, shape, terms, depth + 1);
  DenseElementsAttr elements = getConstantElements(node.value);
  if (!elements || !isa<FloatType>(elements.getElementType()))
    return failure();
  if (elements.isSplat()) {
    AdditiveKind kind = classifyAdditive(elements.getSplatValue<APFloat>());
    // An all-blocking splat empties every row: the op's folder handles it.
    if (kind != AdditiveKind::Visible)
      return failure();
    terms.foundBand = true;
    return success();
  }
  // Every element read must be 0 or blocking (one byte per element).
  SmallVector<AdditiveKind> kinds;
  kinds.reserve(elements.getNumElements());
  for (const APFloat &value : elements.getValues<APFloat>())
    kinds.push_back(classifyAdditive(value));
  bool valid = true;
  forEachReadElement(node, shape, [&](int64_t, int64_t, int64_t n) {
    valid &= kinds[n] != AdditiveKind::Other;
    terms.usesFiniteBlock |= kinds[n] == AdditiveKind::BlockedFinite;
  });
  if (!valid)
    return failure();
  if (!node.has(DimQ) || !node.has(DimK)) {
    terms.residualAdditive.push_back({node, elements});
    return success();
  }
  FailureOr<Band> band = classifyConstantBand(node, shape, [&](int64_t n) {
    return kinds[n] == AdditiveKind::Visible;
  });
  if (failed(band))
    return failure();
  terms.band.intersect(band->lo, band->hi);
  terms.foundBand = true;
  return success();
}

/// A residual term as a mask operand: cut to the attention's sizes (when it
/// comes from under a slice) and laid out trailing-aligned with
/// [B, Hq, Sq, Sk], each dim of its own size or 1, never broadcast.
Value materializeResidual(RewriterBase &rewriter, Location loc,
                          const Mapped &node, const AttentionShape &shape) {
  Value value = node.value;
  ArrayRef<int64_t> dims = node.getType().getShape();
  int64_t rank = static_cast<int64_t>(dims.size());
  SmallVector<int64_t> stops;
  bool cut = false;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = node.dims[d] == None ? 1 : shape.sizes[node.dims[d]];
    stops.push_back(size);
    cut |= size != dims[d];
  }
  if (cut)
    value = SliceOp::create(rewriter, loc, value, SmallVector<int64_t>(rank, 0),
                            stops, SmallVector<int64_t>(rank, 1));
  bool aligned = rank <= 4;
  for (int64_t d = 0; d < rank && aligned; ++d)
    aligned = node.dims[d] == None || node.dims[d] == 4 - rank + d;
  if (aligned)
    return value;
  SmallVector<int64_t> shape4(4, 1);
  for (int64_t d = 0; d < rank; ++d)
    if (node.dims[d] != None)
      shape4[node.dims[d]] = shape.sizes[node.dims[d]];
  return autodiff::reshapeTo(rewriter, loc, value, shape4);
}

/// The mapped dims of a residual must come in the attention's order for a
/// reshape to lay them out (they always do: layout ops keep the order).
bool isOrdered(const Mapped &node) {
  int8_t last = None;
  for (int8_t dim : node.dims) {
    if (dim == None)
      continue;
    if (dim <= last)
      return false;
    last = dim;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// RaiseAttentionMask
//===----------------------------------------------------------------------===//

AttentionShape getAttentionShape(AttentionOp op) {
  auto queryType = cast<RankedTensorType>(op.getQuery().getType());
  auto keyType = cast<RankedTensorType>(op.getKey().getType());
  return {{queryType.getDimSize(0), queryType.getDimSize(1),
           queryType.getDimSize(2), keyType.getDimSize(2)}};
}

/// Band attributes of kiln.attention.
struct BandAttrs {
  AttentionAlignment alignment;
  std::optional<int64_t> windowLeft, windowRight; // windowRight 0: causal
};

/// The band `lo <= j - i <= hi` (restricted to the op's index ranges) as
/// attributes, in the preferred alignment when it is representable there
/// (window edges >= 0), else in the other; nullopt when neither holds.
std::optional<BandAttrs> representBand(Band band, const AttentionShape &shape,
                                       AttentionAlignment preferred) {
  int64_t sq = shape.numQueries(), sk = shape.numKeys();
  // j - i lies in [-(Sq - 1), Sk - 1]: an edge beyond excludes nothing.
  if (band.lo && *band.lo <= -(sq - 1))
    band.lo.reset();
  if (band.hi && *band.hi >= sk - 1)
    band.hi.reset();
  if (band.lo && band.hi && *band.lo > *band.hi)
    return std::nullopt;
  AttentionAlignment other = preferred == AttentionAlignment::top_left
                                 ? AttentionAlignment::bottom_right
                                 : AttentionAlignment::top_left;
  // Prefer a form with `causal` (window_right = 0), then `preferred`.
  std::optional<BandAttrs> chosen;
  for (AttentionAlignment alignment : {preferred, other}) {
    // p(i) = i + offset; the band is offset - L <= j - i <= offset + R.
    int64_t offset =
        alignment == AttentionAlignment::bottom_right ? sk - sq : 0;
    BandAttrs attrs{alignment, std::nullopt, std::nullopt};
    if (band.lo)
      attrs.windowLeft = offset - *band.lo;
    if (band.hi)
      attrs.windowRight = *band.hi - offset;
    if ((attrs.windowLeft && *attrs.windowLeft < 0) ||
        (attrs.windowRight && *attrs.windowRight < 0))
      continue;
    bool causal = attrs.windowRight == 0;
    if (!chosen || (causal && chosen->windowRight != 0))
      chosen = attrs;
  }
  return chosen;
}

/// kiln.attention `op` rebuilt with another key, value, mask and band; every
/// other operand, attribute and result type kept.
AttentionOp rebuildAttention(RewriterBase &rewriter, AttentionOp op, Value mask,
                             const BandAttrs &band) {
  MLIRContext *context = op.getContext();
  IntegerAttr windowLeft, windowRight;
  UnitAttr causal;
  if (band.windowLeft)
    windowLeft = rewriter.getI64IntegerAttr(*band.windowLeft);
  if (band.windowRight && *band.windowRight == 0)
    causal = rewriter.getUnitAttr();
  else if (band.windowRight)
    windowRight = rewriter.getI64IntegerAttr(*band.windowRight);
  auto attention = AttentionOp::create(
      rewriter, op.getLoc(), op->getResultTypes(), op.getQuery(), op.getKey(),
      op.getValue(), mask, op.getKeyLengths(), op.getQueryLengths(),
      op.getSeed(), op.getScaleAttr(), causal, windowLeft, windowRight,
      AttentionAlignmentAttr::get(context, band.alignment), op.getSoftcapAttr(),
      op.getDropoutPAttr());
  attention->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  return attention;
}

/// Raises the mask of `op` to band attributes plus the residual terms (and
/// an additive mask to a boolean one); returns the new op, which replaced
/// `op`.
FailureOr<AttentionOp> raiseMask(AttentionOp op, RewriterBase &rewriter,
                                 const RaiseAttentionOptions &options) {
  Value mask = op.getMask();
  if (!mask)
    return rewriter.notifyMatchFailure(op, "no mask");
  AttentionShape shape = getAttentionShape(op);
  if (shape.numQueries() == 0 || shape.numKeys() == 0)
    return rewriter.notifyMatchFailure(op, "no query or no key");

  MaskTerms terms;
  bool additive = op.hasAdditiveMask();
  Mapped root = mapMask(mask);
  if (additive) {
    if (failed(collectAdditive(root, shape, terms, 0)))
      return rewriter.notifyMatchFailure(
          op, "additive mask is not a sum of select(m, 0, -inf) terms");
    if (terms.usesFiniteBlock && !options.emptyRowsAsZero)
      return rewriter.notifyMatchFailure(
          op, "finite blocking values need empty-rows-as-zero");
  } else {
    if (failed(collectBoolean(root, shape, terms, 0)))
      return rewriter.notifyMatchFailure(op, "mask has a term that is no band");
    if (!terms.foundBand)
      return rewriter.notifyMatchFailure(op, "mask has no band term");
  }
  if (!llvm::all_of(terms.residual, isOrdered) ||
      !llvm::all_of(terms.residualAdditive,
                    [](const auto &term) { return isOrdered(term.first); }))
    return rewriter.notifyMatchFailure(op, "residual dims out of order");

  // The op's own band, in terms of j - i.
  int64_t sq = shape.numQueries(), sk = shape.numKeys();
  int64_t offset =
      op.getAlignment() == AttentionAlignment::bottom_right ? sk - sq : 0;
  Band band = terms.band;
  std::optional<int64_t> ownLo, ownHi;
  if (IntegerAttr left = op.getWindowLeftAttr())
    if (left.getInt() < sq + sk)
      ownLo = offset - left.getInt();
  if (std::optional<int64_t> right = op.getEffectiveWindowRight())
    if (*right < sq + sk)
      ownHi = offset + *right;
  band.intersect(ownLo, ownHi);
  bool hasOwnBand = op.getWindowLeftAttr() || op.getEffectiveWindowRight();
  std::optional<BandAttrs> attrs = representBand(
      band, shape,
      hasOwnBand ? op.getAlignment() : AttentionAlignment::top_left);
  if (!attrs)
    return rewriter.notifyMatchFailure(op, "band is not representable");
  if (!attrs->windowLeft && !attrs->windowRight)
    attrs->alignment = op.getAlignment();

  Location loc = op.getLoc();
  Value newMask;
  auto conjoin = [&](Value term) {
    newMask = newMask ? MulOp::create(rewriter, loc, newMask, term).getResult()
                      : term;
  };
  for (const Mapped &term : terms.residual) {
    if (isSplatBool(term.value, true))
      continue;
    conjoin(materializeResidual(rewriter, loc, term, shape));
  }
  for (const auto &[term, elements] : terms.residualAdditive) {
    SmallVector<bool> visible;
    for (const APFloat &value : elements.getValues<APFloat>())
      visible.push_back(value.isZero());
    auto type =
        RankedTensorType::get(term.getType().getShape(), rewriter.getI1Type());
    Value constant = ConstantOp::create(rewriter, loc,
                                        DenseElementsAttr::get(type, visible));
    conjoin(
        materializeResidual(rewriter, loc, Mapped{constant, term.dims}, shape));
  }
  AttentionOp attention = rebuildAttention(rewriter, op, newMask, *attrs);
  rewriter.replaceOp(op, attention);
  return attention;
}

//===----------------------------------------------------------------------===//
// DerepeatKeyValue
//===----------------------------------------------------------------------===//

/// A K or V repeated along the heads as `repeat_kv` does:
/// reshape(broadcast_to(x5 : [B, Hkv, 1, S, D] -> [B, Hkv, R, S, D]))
/// -> [B, Hkv * R, S, D]. Returns x5 and R.
std::optional<std::pair<Value, int64_t>> matchRepeatedHeads(Value value) {
  auto reshape = value.getDefiningOp<ReshapeOp>();
  if (!reshape)
    return std::nullopt;
  auto broadcast = reshape.getInput().getDefiningOp<BroadcastToOp>();
  if (!broadcast)
    return std::nullopt;
  ArrayRef<int64_t> out = getRankedType(value).getShape();
  ArrayRef<int64_t> repeated = getRankedType(broadcast.getResult()).getShape();
  ArrayRef<int64_t> in = getRankedType(broadcast.getInput()).getShape();
  if (out.size() != 4 || repeated.size() != 5 || in.size() != 5)
    return std::nullopt;
  // Only the size-1 axis 2 is broadcast, and the reshape merges it into
  // the heads: row-major, head g * R + r of the result is kv head g.
  if (in[0] != repeated[0] || in[1] != repeated[1] || in[2] != 1 ||
      in[3] != repeated[3] || in[4] != repeated[4])
    return std::nullopt;
  if (out[0] != repeated[0] || out[1] != repeated[1] * repeated[2] ||
      out[2] != repeated[3] || out[3] != repeated[4])
    return std::nullopt;
  return std::make_pair(broadcast.getInput(), repeated[2]);
}

/// The rank-4 [B, Hkv, S, D] that `x5` ([B, Hkv, 1, S, D]) views: the
/// input of the unsqueeze or reshape that made it, else a new reshape.
Value unrepeated(RewriterBase &rewriter, Location loc, Value x5) {
  ArrayRef<int64_t> shape5 = getRankedType(x5).getShape();
  SmallVector<int64_t> shape4 = {shape5[0], shape5[1], shape5[3], shape5[4]};
  Operation *def = x5.getDefiningOp();
  if (isa_and_present<UnsqueezeOp, ReshapeOp>(def) &&
      getRankedType(def->getOperand(0)).getShape() == ArrayRef(shape4))
    return def->getOperand(0);
  return autodiff::reshapeTo(rewriter, loc, x5, shape4);
}

/// Makes `op` read the unrepeated K and V, in place.
LogicalResult derepeatKeyValue(AttentionOp op, RewriterBase &rewriter) {
  std::optional<std::pair<Value, int64_t>> key =
      matchRepeatedHeads(op.getKey());
  std::optional<std::pair<Value, int64_t>> value =
      matchRepeatedHeads(op.getValue());
  if (!key || !value)
    return rewriter.notifyMatchFailure(op, "K and V are not both repeated");
  if (key->second != value->second)
    return rewriter.notifyMatchFailure(op, "K and V repeat differently");
  Value newKey = unrepeated(rewriter, op.getLoc(), key->first);
  Value newValue = unrepeated(rewriter, op.getLoc(), value->first);
  rewriter.modifyOpInPlace(op, [&] {
    op.getKeyMutable().set(newKey);
    op.getValueMutable().set(newValue);
  });
  return success();
}

//===----------------------------------------------------------------------===//
// RaiseWrittenOutAttention
//===----------------------------------------------------------------------===//

/// The scores part of the written-out form: cap(scale * Q Kᵀ).
struct ScoresMatch {
  Value query, key;
  double scale = 1.0;
  std::optional<double> softcap;
};

/// The scalar of `mul(x, c)` / `mul(c, x)` that does not change x's type:
/// returns (x, c).
std::optional<std::pair<Value, double>> matchScalarMul(MulOp mul) {
  for (auto [x, c] : {std::pair(mul.getLhs(), mul.getRhs()),
                      std::pair(mul.getRhs(), mul.getLhs())}) {
    std::optional<double> scalar = getSplatDouble(c);
    if (scalar && x.getType() == mul.getType())
      return std::make_pair(x, *scalar);
  }
  return std::nullopt;
}

/// Matches `[cap * tanh(s / cap)] of [s * c | s / c | s] of
/// matmul(Q, transpose(K, 2, 3))`, every intermediate with one use.
std::optional<ScoresMatch> matchScores(Value scores) {
  ScoresMatch match;
  Value x = scores;
  // Softcap: mul(tanh(div(s, cap)), cap).
  if (auto mul = x.getDefiningOp<MulOp>()) {
    if (std::optional<std::pair<Value, double>> outer = matchScalarMul(mul)) {
      if (auto tanh = outer->first.getDefiningOp<TanhOp>()) {
        auto div = tanh.getOperand().getDefiningOp<DivOp>();
        if (!div || !mul->hasOneUse() || !tanh->hasOneUse() ||
            !div->hasOneUse() || div.getType() != div.getLhs().getType())
          return std::nullopt;
        std::optional<double> inner = getSplatDouble(div.getRhs());
        double cap = outer->second;
        if (!inner || *inner != cap || !(cap > 0) || !std::isfinite(cap))
          return std::nullopt;
        match.softcap = cap;
        x = div.getLhs();
      }
    }
  }
  // Scale: mul by or div by a scalar constant.
  if (auto mul = x.getDefiningOp<MulOp>()) {
    std::optional<std::pair<Value, double>> scaled = matchScalarMul(mul);
    if (!scaled || !mul->hasOneUse())
      return std::nullopt;
    match.scale = scaled->second;
    x = scaled->first;
  } else if (auto div = x.getDefiningOp<DivOp>()) {
    std::optional<double> divisor = getSplatDouble(div.getRhs());
    if (!divisor || !div->hasOneUse() ||
        div.getType() != div.getLhs().getType())
      return std::nullopt;
    match.scale = 1.0 / *divisor;
    x = div.getLhs();
  }
  if (!std::isfinite(match.scale) || match.scale == 0)
    return std::nullopt;
  auto matmul = x.getDefiningOp<MatmulOp>();
  if (!matmul || !matmul->hasOneUse())
    return std::nullopt;
  Value keyT = matmul.getRhs();
  Value key;
  if (auto transpose = keyT.getDefiningOp<TransposeOp>()) {
    if (getRankedType(transpose.getInput()).getRank() == 4 &&
        ((transpose.getDim0() == 2 && transpose.getDim1() == 3) ||
         (transpose.getDim0() == 3 && transpose.getDim1() == 2)))
      key = transpose.getInput();
  } else if (auto permute = keyT.getDefiningOp<PermuteOp>()) {
    if (permute.getPermutation() == ArrayRef<int64_t>{0, 1, 3, 2})
      key = permute.getInput();
  }
  if (!key || !keyT.hasOneUse())
    return std::nullopt;
  match.query = matmul.getLhs();
  match.key = key;
  return match;
}

/// Replaces the written-out attention ending in `pv` by a kiln.attention,
/// which is returned.
FailureOr<AttentionOp> raiseWrittenOut(MatmulOp pv, RewriterBase &rewriter,
                                       const RaiseAttentionOptions &options) {
  RankedTensorType outType = getRankedType(pv.getResult());
  RankedTensorType probsType = getRankedType(pv.getLhs());
  RankedTensorType valueType = getRankedType(pv.getRhs());
  if (!outType || !probsType || !valueType || outType.getRank() != 4 ||
      probsType.getRank() != 4 || valueType.getRank() != 4 ||
      !isa<FloatType>(outType.getElementType()))
    return rewriter.notifyMatchFailure(pv, "not a rank-4 float matmul");
  Type elementType = outType.getElementType();

  // [dropout] of [convert] softmax [convert] of the logits.
  Value x = pv.getLhs();
  double dropoutP = 0;
  Value seed;
  if (auto dropout = x.getDefiningOp<DropoutOp>()) {
    if (!dropout->hasOneUse())
      return failure();
    dropoutP = dropout.getP().convertToDouble();
    seed = dropout.getSeed();
    x = dropout.getInput();
  }
  SoftmaxOp softmax;
  Value logits;
  if (auto back = x.getDefiningOp<ConvertOp>()) {
    softmax = back.getOperand().getDefiningOp<SoftmaxOp>();
    if (!softmax || !back->hasOneUse())
      return rewriter.notifyMatchFailure(pv, "no softmax");
    auto forth = softmax.getInput().getDefiningOp<ConvertOp>();
    if (!forth || !forth->hasOneUse() ||
        forth.getOperand().getType() != back.getType())
      return rewriter.notifyMatchFailure(pv, "softmax not in a wider type");
    // The softmax runs in the element type or a wider float type.
    auto wide = dyn_cast<FloatType>(getRankedType(softmax).getElementType());
    auto narrow = cast<FloatType>(elementType);
    if (!wide || (wide != narrow && wide.getWidth() <= narrow.getWidth()))
      return rewriter.notifyMatchFailure(pv, "softmax not in a wider type");
    logits = forth.getOperand();
  } else {
    softmax = x.getDefiningOp<SoftmaxOp>();
    if (!softmax)
      return rewriter.notifyMatchFailure(pv, "no softmax");
    logits = softmax.getInput();
  }
  if (!softmax->hasOneUse() || softmax.getAxis() != 3)
    return rewriter.notifyMatchFailure(pv, "not a softmax over the keys");

  // [scores + mask].
  Value mask;
  std::optional<ScoresMatch> scores;
  if (auto add = logits.getDefiningOp<AddOp>()) {
    if (!add->hasOneUse())
      return failure();
    for (auto [s, m] : {std::pair(add.getLhs(), add.getRhs()),
                        std::pair(add.getRhs(), add.getLhs())}) {
      if (s.getType() != add.getType())
        continue;
      if ((scores = matchScores(s))) {
        mask = m;
        break;
      }
    }
  } else {
    scores = matchScores(logits);
  }
  if (!scores)
    return rewriter.notifyMatchFailure(pv, "no scaled Q Kᵀ scores");

  // Shapes: Q [B, Hq, Sq, D], K [B, Hkv, Sk, D], V [B, Hkv, Sk, Dv] with
  // Hkv = Hq or 1 (the matmuls broadcast K and V over the heads then), P
  // and the logits [B, Hq, Sq, Sk].
  RankedTensorType queryType = getRankedType(scores->query);
  RankedTensorType keyType = getRankedType(scores->key);
  if (!queryType || !keyType || queryType.getRank() != 4 ||
      keyType.getRank() != 4 || queryType.getElementType() != elementType ||
      keyType.getElementType() != elementType ||
      valueType.getElementType() != elementType)
    return rewriter.notifyMatchFailure(pv, "operand types");
  int64_t batch = queryType.getDimSize(0), heads = queryType.getDimSize(1);
  int64_t numQueries = queryType.getDimSize(2);
  int64_t numKeys = keyType.getDimSize(2);
  int64_t kvHeads = keyType.getDimSize(1);
  SmallVector<int64_t> probsShape = {batch, heads, numQueries, numKeys};
  if (keyType.getDimSize(0) != batch || valueType.getDimSize(0) != batch ||
      valueType.getDimSize(1) != kvHeads ||
      valueType.getDimSize(2) != numKeys ||
      (kvHeads != heads && kvHeads != 1) ||
      probsType.getShape() != ArrayRef(probsShape) ||
      getRankedType(logits).getShape() != ArrayRef(probsShape) ||
      outType.getDimSize(1) != heads)
    return rewriter.notifyMatchFailure(pv, "shapes");
  if (mask) {
    RankedTensorType maskType = getRankedType(mask);
    if (!maskType || maskType.getRank() > 4 ||
        maskType.getElementType() != elementType ||
        !isBroadcastableTo(maskType.getShape(), probsShape))
      return rewriter.notifyMatchFailure(pv, "mask shape");
    // The written-out softmax of a row blocked by -inf everywhere is NaN,
    // kiln.attention's 0.
    if (!options.emptyRowsAsZero && !isProvablyFinite(mask))
      return rewriter.notifyMatchFailure(
          pv, "mask may block a row with -inf (needs empty-rows-as-zero)");
  }

  MLIRContext *context = rewriter.getContext();
  auto attention = AttentionOp::create(
      rewriter, pv.getLoc(), TypeRange{outType}, scores->query, scores->key,
      pv.getRhs(), mask, /*key_lengths=*/Value(), /*query_lengths=*/Value(),
      dropoutP > 0 ? seed : Value(), rewriter.getF64FloatAttr(scores->scale),
      /*causal=*/UnitAttr(), /*window_left=*/IntegerAttr(),
      /*window_right=*/IntegerAttr(),
      AttentionAlignmentAttr::get(context, AttentionAlignment::bottom_right),
      scores->softcap ? rewriter.getF64FloatAttr(*scores->softcap)
                      : FloatAttr(),
      rewriter.getF64FloatAttr(dropoutP));
  rewriter.replaceOp(pv, attention.getResult());
  return attention;
}

//===----------------------------------------------------------------------===//
// Patterns and the driver
//===----------------------------------------------------------------------===//

struct RaiseWrittenOutAttention : OpRewritePattern<MatmulOp> {
  RaiseWrittenOutAttention(MLIRContext *context,
                           const RaiseAttentionOptions &options)
      : OpRewritePattern(context), options(options) {}
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    return success(succeeded(raiseWrittenOut(op, rewriter, options)));
  }
  RaiseAttentionOptions options;
};

struct DerepeatKeyValue : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    return derepeatKeyValue(op, rewriter);
  }
};

struct RaiseAttentionMask : OpRewritePattern<AttentionOp> {
  RaiseAttentionMask(MLIRContext *context, const RaiseAttentionOptions &options)
      : OpRewritePattern(context), options(options) {}
  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    return success(succeeded(raiseMask(op, rewriter, options)));
  }
  RaiseAttentionOptions options;
};

/// Erases the ops of `maybeDead`, and then their operands' producers, that
/// have become trivially dead, and nothing else; erased ops leave the set.
struct DeadOpTracker : RewriterBase::Listener {
  void notifyOperationErased(Operation *op) override { maybeDead.remove(op); }
  /// Records the producers of `op`'s operands, before `op` changes.
  void addOperandsOf(Operation *op) {
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        maybeDead.insert(def);
  }
  void eraseDead(RewriterBase &rewriter) {
    while (!maybeDead.empty()) {
      Operation *op = maybeDead.pop_back_val();
      if (!isOpTriviallyDead(op))
        continue;
      addOperandsOf(op);
      rewriter.eraseOp(op);
    }
  }
  llvm::SetVector<Operation *> maybeDead;
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct KilnRaiseAttentionPass
    : public kiln::impl::KilnRaiseAttentionPassBase<KilnRaiseAttentionPass> {
  using Base::Base;

  void runOnOperation() override {
    RaiseAttentionOptions options;
    options.emptyRowsAsZero = emptyRowsAsZero;
    (void)raiseAttention(getOperation(), options);
  }
};

} // namespace

void mlir::kiln::populateRaiseAttentionPatterns(
    RewritePatternSet &patterns, const RaiseAttentionOptions &options) {
  MLIRContext *context = patterns.getContext();
  patterns.add<RaiseWrittenOutAttention, RaiseAttentionMask>(context, options);
  patterns.add<DerepeatKeyValue>(context);
}

LogicalResult mlir::kiln::raiseAttention(Operation *root,
                                         const RaiseAttentionOptions &options) {
  // A walk rather than the greedy driver: nothing is folded and no op is
  // erased but those a rewrite left dead (the greedy driver would also
  // erase the IR's own dead ops and unreachable blocks).
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (op != root && isa<MatmulOp, AttentionOp>(op))
      ops.push_back(op);
  });
  DeadOpTracker tracker;
  PatternRewriter rewriter(root->getContext());
  rewriter.setListener(&tracker);
  // Every rewrite replaces or changes only the op it is given, so the ops
  // still to visit stay valid.
  auto raiseAttentionOp = [&](AttentionOp op) {
    // Each step removes a repeat, or the mask's band and additive terms, so
    // the loop ends; the bound is a guard.
    for (int step = 0; step < 8; ++step) {
      rewriter.setInsertionPoint(op);
      tracker.addOperandsOf(op);
      if (succeeded(derepeatKeyValue(op, rewriter)))
        continue;
      FailureOr<AttentionOp> raised = raiseMask(op, rewriter, options);
      if (failed(raised))
        return;
      op = *raised;
    }
  };
  for (Operation *op : ops) {
    if (auto attention = dyn_cast<AttentionOp>(op)) {
      raiseAttentionOp(attention);
      continue;
    }
    rewriter.setInsertionPoint(op);
    tracker.addOperandsOf(op);
    FailureOr<AttentionOp> raised =
        raiseWrittenOut(cast<MatmulOp>(op), rewriter, options);
    if (succeeded(raised))
      raiseAttentionOp(*raised);
  }
  tracker.eraseDead(rewriter);
  return success();
}
