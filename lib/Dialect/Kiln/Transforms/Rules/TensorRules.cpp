//===- TensorRules.cpp - Backward rules of the creation and shape ops -----===//

#include "Rules.h"

#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/APFloat.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::autodiff;

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

/// The adjoint of `data` in a gather along `axis`: the adjoint's slices
/// added into zeros at the indices that read them, repeated indices adding
/// up. The indices are flattened to one dim and the adjoint's index dims
/// with them, so one `kiln.index_add` does it: O(N x slice) work, and it
/// clamps the indices the way the gather's lowering clamps them.
static Value gatherAdjoint(RuleContext &c, Value data, Value indices,
                           int64_t axis, Value grad) {
  auto dataType = cast<RankedTensorType>(data.getType());
  int64_t n = cast<RankedTensorType>(indices.getType()).getNumElements();
  SmallVector<int64_t> sourceShape(dataType.getShape());
  sourceShape[axis] = n;
  Value source = reshapeTo(c.b, c.loc, grad, sourceShape);
  Value flatIndices = reshapeTo(c.b, c.loc, indices, {n});
  Value zeros = createSplat(c.b, c.loc, dataType, 0.0);
  return IndexAddOp::create(c.b, c.loc, zeros, flatIndices, source, axis);
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

/// d pages = the result's gradient [B, H, M * T, D] as B * M page slices
/// [H, T, D], each added into the page it was read from: index_add on the
/// pages' axis 0 with the flattened (and, as the forward, clamped) table.
static LogicalResult gatherPagesRule(GatherPagesOp op, RuleContext &c) {
  if (!c.needs(0))
    return success();
  auto pagesType = cast<RankedTensorType>(op.getPages().getType());
  auto tableType = cast<RankedTensorType>(op.getBlockTable().getType());
  int64_t batch = tableType.getDimSize(0), numPages = tableType.getDimSize(1);
  int64_t heads = pagesType.getDimSize(1), size = pagesType.getDimSize(2),
          dim = pagesType.getDimSize(3);
  Value g = reshapeTo(c.b, c.loc, c.grad(), {batch, heads, numPages, size, dim});
  g = PermuteOp::create(c.b, c.loc, g, ArrayRef<int64_t>{0, 2, 1, 3, 4});
  Value source = reshapeTo(c.b, c.loc, g, {batch * numPages, heads, size, dim});
  Value indices = reshapeTo(c.b, c.loc, op.getBlockTable(), {batch * numPages});
  Value zeros = createSplat(c.b, c.loc, pagesType, 0.0);
  c.set(0, IndexAddOp::create(c.b, c.loc, zeros, indices, source, 0));
  return success();
}

/// d dest = g; d source = the slices of g that each source slice was added
/// to: index_select with the same (clamped) indices.
static LogicalResult indexAddRule(IndexAddOp op, RuleContext &c) {
  if (c.needs(0))
    c.set(0, c.grad());
  if (c.needs(2))
    c.set(2, IndexSelectOp::create(c.b, c.loc, c.grad(), op.getIndices(),
                                   op.getAxisAttr()));
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
    IndexAddOp::attachInterface<RuleModel<IndexAddOp, indexAddRule>>(*context);
    GatherPagesOp::attachInterface<RuleModel<GatherPagesOp, gatherPagesRule>>(
        *context);
    attachNonDifferentiable<IotaOp, ConstantOp>(context);
  });
}
