//===- RaiseAttentionMaskTerms.cpp - The mask analysis --------------------===//
//
// The proofs behind RaiseAttentionMask: which attention index each element
// of a mask term is read at, and which terms are bands `lo <= j - i <= hi`
// (constants checked element by element, or comparisons of iota index
// expressions), which are independent of the query or of the key position,
// and which additive masks are sums of `select(m, 0, -inf)` terms.
//
//===----------------------------------------------------------------------===//

#include "RaiseAttentionImpl.h"

#include <cmath>

namespace mlir::kiln::raise_attention {

//===----------------------------------------------------------------------===//
// Values seen from the attention's [B, Hq, Sq, Sk]
//===----------------------------------------------------------------------===//

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

namespace {

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

} // namespace

//===----------------------------------------------------------------------===//
// Band terms
//===----------------------------------------------------------------------===//

namespace {

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

} // namespace

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

} // namespace mlir::kiln::raise_attention
