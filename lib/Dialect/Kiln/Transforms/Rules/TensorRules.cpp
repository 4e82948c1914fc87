//===- TensorRules.cpp - Backward rules of the creation and shape ops -----===//

#include "Rules.h"

#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/APFloat.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::autodiff;

static int64_t product(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

static LogicalResult broadcastToRule(BroadcastToOp op, RuleContext &c) {
  c.setReduced(0, c.grad(), op.getInput());
  return success();
}

/// Ops that only reinterpret the shape: the adjoint is reshaped back.
template <typename OpT>
static LogicalResult reshapeLikeRule(OpT op, RuleContext &c) {
  c.set(0, ReshapeOp::create(c.b, c.loc, op.getInput().getType(), c.grad()));
  return success();
}

static LogicalResult transposeRule(TransposeOp op, RuleContext &c) {
  c.set(0, TransposeOp::create(c.b, c.loc, c.grad(), op.getDim0Attr(),
                               op.getDim1Attr()));
  return success();
}

static LogicalResult permuteRule(PermuteOp op, RuleContext &c) {
  ArrayRef<int64_t> permutation = op.getPermutation();
  SmallVector<int64_t> inverse(permutation.size());
  for (auto [i, p] : llvm::enumerate(permutation))
    inverse[p] = i;
  c.set(0, PermuteOp::create(c.b, c.loc, c.grad(), inverse));
  return success();
}

static LogicalResult sliceRule(SliceOp op, RuleContext &c) {
  // Scatter the adjoint back into zeros: each strided dim is first spread
  // out (a size-1 dim padded to the stride, merged, trimmed), then one pad
  // puts the box at its place.
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  ArrayRef<int64_t> starts = op.getStarts(), strides = op.getStrides();
  Value g = c.grad();
  int64_t rank = inputType.getRank();
  SmallVector<int64_t> low(rank), high(rank);
  for (int64_t d = 0; d < rank; ++d) {
    auto type = cast<RankedTensorType>(g.getType());
    int64_t n = type.getDimSize(d), s = strides[d];
    int64_t length = n;
    if (s > 1 && n > 1) {
      Value u = UnsqueezeOp::create(c.b, c.loc, g, d + 1);
      SmallVector<int64_t> padLow(rank + 1, 0), padHigh(rank + 1, 0);
      padHigh[d + 1] = s - 1;
      Value p =
          PadOp::create(c.b, c.loc, u, padLow, padHigh, llvm::APFloat(0.0));
      SmallVector<int64_t> merged(type.getShape());
      merged[d] = n * s;
      Value m = reshapeTo(c.b, c.loc, p, merged);
      length = (n - 1) * s + 1;
      SmallVector<int64_t> sliceStarts(rank, 0), sliceStops(merged),
          sliceStrides(rank, 1);
      sliceStops[d] = length;
      g = SliceOp::create(c.b, c.loc, m, sliceStarts, sliceStops, sliceStrides);
    }
    low[d] = starts[d];
    high[d] = inputType.getDimSize(d) - starts[d] - length;
  }
  if (llvm::any_of(low, [](int64_t v) { return v != 0; }) ||
      llvm::any_of(high, [](int64_t v) { return v != 0; }))
    g = PadOp::create(c.b, c.loc, g, low, high, llvm::APFloat(0.0));
  c.set(0, g);
  return success();
}

static LogicalResult padRule(PadOp op, RuleContext &c) {
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  SmallVector<int64_t> starts(op.getLow()), stops, strides;
  for (int64_t d = 0; d < inputType.getRank(); ++d) {
    stops.push_back(starts[d] + inputType.getDimSize(d));
    strides.push_back(1);
  }
  c.set(0, SliceOp::create(c.b, c.loc, c.grad(), starts, stops, strides));
  return success();
}

static LogicalResult concatRule(ConcatOp op, RuleContext &c) {
  int64_t axis = op.getAxis();
  auto resultType = cast<RankedTensorType>(op.getResult().getType());
  int64_t offset = 0;
  for (auto [i, input] : llvm::enumerate(op.getInputs())) {
    auto type = cast<RankedTensorType>(input.getType());
    if (c.needs(i)) {
      SmallVector<int64_t> starts(type.getRank(), 0),
          stops(resultType.getShape()), strides(type.getRank(), 1);
      starts[axis] = offset;
      stops[axis] = offset + type.getDimSize(axis);
      c.set(i, SliceOp::create(c.b, c.loc, c.grad(), starts, stops, strides));
    }
    offset += type.getDimSize(axis);
  }
  return success();
}

static LogicalResult splitRule(SplitOp op, RuleContext &c) {
  // The pieces' adjoints, concatenated; a piece that does not reach the
  // loss contributes zeros (the one place a zero tensor is needed).
  SmallVector<Value> pieces;
  for (auto [i, result] : llvm::enumerate(op.getResults())) {
    Value g = c.grad(i);
    pieces.push_back(g ? g : createSplat(c.b, c.loc, result.getType(), 0.0));
  }
  if (pieces.size() == 1) {
    c.set(0, pieces.front());
    return success();
  }
  c.set(0, ConcatOp::create(c.b, c.loc, op.getInput().getType(), pieces,
                            op.getAxisAttr()));
  return success();
}

static LogicalResult trilRule(TrilOp op, RuleContext &c) {
  c.set(0, TrilOp::create(c.b, c.loc, c.grad(), op.getDiagonalAttr()));
  return success();
}

static LogicalResult triuRule(TriuOp op, RuleContext &c) {
  c.set(0, TriuOp::create(c.b, c.loc, c.grad(), op.getDiagonalAttr()));
  return success();
}

/// The adjoint of `data` in a gather along `axis`: the sum of the adjoint's
/// slices over every position that read each entry (repeated indices add
/// up). Built as a one-hot matrix product, [V, N] x [A, N, B] -> [A, V, B],
/// from ops that have rules themselves; indices are clamped the way the
/// forward lowering clamps them.
static Value gatherAdjoint(RuleContext &c, Value data, Value indices,
                           int64_t axis, Value grad) {
  auto dataType = cast<RankedTensorType>(data.getType());
  auto indexType = cast<RankedTensorType>(indices.getType());
  int64_t v = dataType.getDimSize(axis);
  if (v == 0)
    return createSplat(c.b, c.loc, dataType, 0.0);
  int64_t a = product(dataType.getShape().take_front(axis));
  int64_t bDims = product(dataType.getShape().drop_front(axis + 1));
  int64_t n = indexType.getNumElements();
  Type indexElement = indexType.getElementType();
  Value g3 = reshapeTo(c.b, c.loc, grad, {a, n, bDims});
  Value idx = reshapeTo(c.b, c.loc, indices, {1, n});
  idx = MaximumOp::create(c.b, c.loc, idx, c.intScalar(indexElement, 0));
  idx = MinimumOp::create(c.b, c.loc, idx, c.intScalar(indexElement, v - 1));
  Value iota = IotaOp::create(
      c.b, c.loc, RankedTensorType::get({v, n}, indexElement), uint64_t(0));
  Value oneHot = boolToFloat(c.b, c.loc, EqOp::create(c.b, c.loc, iota, idx),
                             dataType.getElementType());
  Value product = MatmulOp::create(c.b, c.loc, oneHot, g3);
  return reshapeTo(c.b, c.loc, product, dataType.getShape());
}

static LogicalResult gatherRule(GatherOp op, RuleContext &c) {
  c.set(0, gatherAdjoint(c, op.getData(), op.getIndices(),
                         op.getAxisAttr().getInt(), c.grad()));
  return success();
}

static LogicalResult indexSelectRule(IndexSelectOp op, RuleContext &c) {
  c.set(0, gatherAdjoint(c, op.getData(), op.getIndices(),
                         op.getAxisAttr().getInt(), c.grad()));
  return success();
}

void mlir::kiln::autodiff::registerTensorRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, KilnDialect *) {
    BroadcastToOp::attachInterface<RuleModel<BroadcastToOp, broadcastToRule>>(
        *context);
    ReshapeOp::attachInterface<
        RuleModel<ReshapeOp, reshapeLikeRule<ReshapeOp>>>(*context);
    FlattenOp::attachInterface<
        RuleModel<FlattenOp, reshapeLikeRule<FlattenOp>>>(*context);
    SqueezeOp::attachInterface<
        RuleModel<SqueezeOp, reshapeLikeRule<SqueezeOp>>>(*context);
    UnsqueezeOp::attachInterface<
        RuleModel<UnsqueezeOp, reshapeLikeRule<UnsqueezeOp>>>(*context);
    TransposeOp::attachInterface<RuleModel<TransposeOp, transposeRule>>(
        *context);
    PermuteOp::attachInterface<RuleModel<PermuteOp, permuteRule>>(*context);
    SliceOp::attachInterface<RuleModel<SliceOp, sliceRule>>(*context);
    PadOp::attachInterface<RuleModel<PadOp, padRule>>(*context);
    ConcatOp::attachInterface<RuleModel<ConcatOp, concatRule>>(*context);
    SplitOp::attachInterface<RuleModel<SplitOp, splitRule>>(*context);
    TrilOp::attachInterface<RuleModel<TrilOp, trilRule>>(*context);
    TriuOp::attachInterface<RuleModel<TriuOp, triuRule>>(*context);
    GatherOp::attachInterface<RuleModel<GatherOp, gatherRule>>(*context);
    IndexSelectOp::attachInterface<RuleModel<IndexSelectOp, indexSelectRule>>(
        *context);
    attachNonDifferentiable<IotaOp, ConstantOp>(context);
  });
}
