//===- Tensor.cpp - Lower creation, layout and shape kiln ops -------------===//
//
// Shape ops become the upstream op that says the same thing on tensors:
// reshapes are `tensor.collapse_shape`/`expand_shape`, permutations
// `linalg.transpose`, slices `tensor.extract_slice`, concatenation
// `tensor.concat`, padding `tensor.pad`. Ops that compute from indices (iota,
// tril/triu, unfold) are a `linalg.generic` over the result. The gathers
// and index_add are Indexing.cpp's.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "PopulatePatterns.h"

#include "kiln/Dialect/Kiln/IR/KilnAttrUtils.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/SmallVectorExtras.h"

#include <numeric>

using namespace mlir;
using namespace mlir::kiln;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Returns true when `groups` (contiguous, in order, covering every dim of
/// `large`) collapses `large` into `small`: one group per dim of `small`,
/// whose sizes multiply to that dim.
static bool isValidCollapse(ArrayRef<int64_t> large, ArrayRef<int64_t> small,
                            ArrayRef<ReassociationIndices> groups) {
  if (groups.size() != small.size())
    return false;
  int64_t next = 0;
  for (auto [group, size] : llvm::zip(groups, small)) {
    if (group.empty())
      return false;
    int64_t product = 1;
    for (int64_t dim : group) {
      if (dim != next++)
        return false;
      product *= large[dim];
    }
    if (product != size)
      return false;
  }
  // A rank-0 side takes no groups; the other side then has only unit dims.
  if (small.empty())
    return llvm::all_of(large, [](int64_t size) { return size == 1; });
  return next == static_cast<int64_t>(large.size());
}

/// Returns the groups of a reshape between a shape and the same shape with
/// the unit dims `dropped` (positions in `large`) removed: every kept dim
/// takes the dropped dims right before it; trailing dropped dims join the
/// last group (and with no kept dim at all there are no groups: rank 0).
static SmallVector<ReassociationIndices>
getUnitDimGroups(int64_t largeRank, ArrayRef<int64_t> dropped) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices current;
  for (int64_t dim = 0; dim < largeRank; ++dim) {
    current.push_back(dim);
    if (llvm::is_contained(dropped, dim))
      continue;
    groups.push_back(std::move(current));
    current.clear();
  }
  if (!current.empty() && !groups.empty())
    llvm::append_range(groups.back(), current);
  return groups;
}

/// Returns `values` as index attributes for the static offsets, sizes and
/// strides of slice ops.
static SmallVector<OpFoldResult> getIndexAttrs(OpBuilder &builder,
                                               ArrayRef<int64_t> values) {
  return llvm::map_to_vector(values, [&](int64_t value) -> OpFoldResult {
    return builder.getIndexAttr(value);
  });
}

namespace {

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

/// kiln.constant -> arith.constant with the same elements attribute.
struct ConstantOpLowering : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<TypedAttr>(op.getValue());
    if (!value)
      return rewriter.notifyMatchFailure(op, "value is not a typed attribute");
    rewriter.replaceOp(op, arith::ConstantOp::create(rewriter, op.getLoc(),
                                                     op.getType(), value));
    return success();
  }
};

/// kiln.iota -> linalg.generic yielding `linalg.index axis` converted to the
/// element type: truncated to narrow integers (as PyTorch's integer casts
/// wrap), `!= 0` for i1, `sitofp` (round to nearest) for floats.
struct IotaOpLowering : OpConversionPattern<IotaOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(IotaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elementType = resultType.getElementType();
    int64_t axis = op.getAxis();
    assert((isa<FloatType, IntegerType>(elementType)) &&
           "the verifier guarantees a Kiln_Tensor result (float or integer)");
    if (axis < 0 || axis >= resultType.getRank())
      return rewriter.notifyMatchFailure(op, "axis out of range");
    Value result = buildIndexGeneric(
        rewriter, op.getLoc(), resultType, ValueRange{}, {},
        [&](OpBuilder &b, Location loc, ValueRange) -> Value {
          Value index = linalg::IndexOp::create(b, loc, axis);
          if (elementType.isInteger(1)) {
            Value zero = arith::ConstantIndexOp::create(b, loc, 0);
            return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                         index, zero);
          }
          if (isa<IntegerType>(elementType))
            return arith::IndexCastOp::create(b, loc, elementType, index);
          Value wide =
              arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
          return arith::SIToFPOp::create(b, loc, elementType, wide);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Broadcast and reshape
//===----------------------------------------------------------------------===//

/// kiln.broadcast_to -> linalg.generic copying the input through its
/// broadcasting indexing map.
struct BroadcastToOpLowering : OpConversionPattern<BroadcastToOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BroadcastToOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    if (adaptor.getInput().getType() == resultType) {
      rewriter.replaceOp(op, adaptor.getInput());
      return success();
    }
    FailureOr<Value> result = buildBroadcastingElementwise(
        rewriter, op.getLoc(), resultType, adaptor.getInput(),
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    if (failed(result))
      return rewriter.notifyMatchFailure(op, "input does not broadcast");
    rewriter.replaceOp(op, *result);
    return success();
  }
};

/// kiln.reshape -> one tensor.collapse_shape or tensor.expand_shape when the
/// reshape merges or splits neighbouring dims; otherwise a collapse to 1-D
/// followed by an expand to the result (row-major order either way).
struct ReshapeOpLowering : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    if (!inputType.hasStaticShape() || !resultType.hasStaticShape() ||
        inputType.getNumElements() != resultType.getNumElements())
      return rewriter.notifyMatchFailure(op, "element counts differ");
    Location loc = op.getLoc();
    ArrayRef<int64_t> inputShape = inputType.getShape();
    ArrayRef<int64_t> resultShape = resultType.getShape();

    // One step when the lower-rank shape merges neighbouring dims.
    bool collapse = resultType.getRank() <= inputType.getRank();
    ArrayRef<int64_t> large = collapse ? inputShape : resultShape;
    ArrayRef<int64_t> small = collapse ? resultShape : inputShape;
    SmallVector<ReassociationIndices> groups;
    if (small.empty()) {
      // Rank 0 <-> all unit dims: no groups.
    } else if (std::optional<SmallVector<ReassociationIndices>> found =
                   getReassociationIndicesForCollapse(large, small)) {
      groups = std::move(*found);
    }
    if (isValidCollapse(large, small, groups)) {
      rewriter.replaceOp(op,
                         reassociate(rewriter, loc, input, resultType, groups));
      return success();
    }

    // Otherwise through the flat 1-D tensor of all elements.
    auto flatType = RankedTensorType::get({inputType.getNumElements()},
                                          inputType.getElementType());
    auto allDims = [](int64_t rank) {
      ReassociationIndices group(rank);
      std::iota(group.begin(), group.end(), 0);
      return SmallVector<ReassociationIndices>{group};
    };
    Value flat = reassociate(rewriter, loc, input, flatType,
                             inputType.getRank() == 0
                                 ? SmallVector<ReassociationIndices>{}
                                 : allDims(inputType.getRank()));
    Value result = reassociate(rewriter, loc, flat, resultType,
                               resultType.getRank() == 0
                                   ? SmallVector<ReassociationIndices>{}
                                   : allDims(resultType.getRank()));
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// kiln.flatten -> tensor.collapse_shape of dims start_dim..end_dim.
struct FlattenOpLowering : OpConversionPattern<FlattenOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(FlattenOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    int64_t rank = inputType.getRank();
    int64_t start = op.getStartDim(), end = op.getEndDim();
    if (start < 0 || start > end || end >= rank)
      return rewriter.notifyMatchFailure(op, "dims out of range");
    SmallVector<ReassociationIndices> groups;
    for (int64_t dim = 0; dim < rank; ++dim) {
      if (dim <= start || dim > end)
        groups.push_back({dim});
      else
        groups.back().push_back(dim);
    }
    rewriter.replaceOp(op, reassociate(rewriter, op.getLoc(),
                                       adaptor.getInput(),
                                       cast<RankedTensorType>(op.getType()),
                                       groups));
    return success();
  }
};

/// kiln.squeeze -> tensor.collapse_shape merging each removed unit dim into
/// a neighbouring kept dim.
struct SqueezeOpLowering : OpConversionPattern<SqueezeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SqueezeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    SmallVector<ReassociationIndices> groups =
        getUnitDimGroups(inputType.getRank(), op.getDims());
    if (!isValidCollapse(inputType.getShape(), resultType.getShape(), groups))
      return rewriter.notifyMatchFailure(op, "dims are not unit dims");
    rewriter.replaceOp(op, reassociate(rewriter, op.getLoc(),
                                       adaptor.getInput(), resultType, groups));
    return success();
  }
};

/// kiln.unsqueeze -> tensor.expand_shape adding the unit dim to a
/// neighbouring dim's group.
struct UnsqueezeOpLowering : OpConversionPattern<UnsqueezeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(UnsqueezeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    SmallVector<ReassociationIndices> groups =
        getUnitDimGroups(resultType.getRank(),
                         {static_cast<int64_t>(op.getDim())});
    if (!isValidCollapse(resultType.getShape(), inputType.getShape(), groups))
      return rewriter.notifyMatchFailure(op, "dim out of range");
    rewriter.replaceOp(op, reassociate(rewriter, op.getLoc(),
                                       adaptor.getInput(), resultType, groups));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

/// Replaces `op` by `linalg.transpose` of `input` with `permutation` (dim i
/// of the result is dim permutation[i] of the input), or by the input itself
/// for the identity.
static LogicalResult lowerToTranspose(Operation *op, Value input,
                                      ArrayRef<int64_t> permutation,
                                      ConversionPatternRewriter &rewriter) {
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  if (!isPermutationVector(permutation) ||
      static_cast<int64_t>(permutation.size()) != resultType.getRank())
    return rewriter.notifyMatchFailure(op, "not a permutation of the dims");
  if (input.getType() == resultType &&
      llvm::equal(permutation, llvm::seq<int64_t>(0, permutation.size()))) {
    rewriter.replaceOp(op, input);
    return success();
  }
  Value init = createEmpty(rewriter, op->getLoc(), resultType);
  auto transpose = linalg::TransposeOp::create(rewriter, op->getLoc(), input,
                                               init, permutation);
  rewriter.replaceOp(op, transpose->getResult(0));
  return success();
}

/// kiln.transpose -> linalg.transpose swapping dim0 and dim1.
struct TransposeOpLowering : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    int64_t rank = cast<RankedTensorType>(op.getType()).getRank();
    int64_t dim0 = op.getDim0(), dim1 = op.getDim1();
    if (dim0 < 0 || dim0 >= rank || dim1 < 0 || dim1 >= rank)
      return rewriter.notifyMatchFailure(op, "dims out of range");
    SmallVector<int64_t> permutation = llvm::to_vector(llvm::seq(rank));
    std::swap(permutation[dim0], permutation[dim1]);
    return lowerToTranspose(op, adaptor.getInput(), permutation, rewriter);
  }
};

/// kiln.permute -> linalg.transpose with the same permutation.
struct PermuteOpLowering : OpConversionPattern<PermuteOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(PermuteOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerToTranspose(op, adaptor.getInput(), op.getPermutation(),
                            rewriter);
  }
};

//===----------------------------------------------------------------------===//
// Concatenation and splitting
//===----------------------------------------------------------------------===//

/// kiln.concat -> tensor.concat along the same axis.
struct ConcatOpLowering : OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Inputs without elements add nothing (and upstream's slice verifiers
    // reject their offsets at the end of the axis).
    auto resultType = cast<RankedTensorType>(op.getType());
    SmallVector<Value> inputs =
        llvm::filter_to_vector(adaptor.getInputs(), [](Value input) {
          return cast<RankedTensorType>(input.getType()).getNumElements() != 0;
        });
    if (inputs.empty()) {
      rewriter.replaceOp(op, createEmpty(rewriter, op.getLoc(), resultType));
      return success();
    }
    if (inputs.size() == 1) {
      rewriter.replaceOp(op, inputs.front());
      return success();
    }
    rewriter.replaceOp(op, tensor::ConcatOp::create(rewriter, op.getLoc(),
                                                    resultType, op.getAxis(),
                                                    inputs));
    return success();
  }
};

/// kiln.split -> one tensor.extract_slice per piece.
struct SplitOpLowering : OpConversionPattern<SplitOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SplitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    int64_t rank = inputType.getRank();
    int64_t axis = op.getAxis();
    if (axis < 0 || axis >= rank)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    SmallVector<int64_t> offsets(rank, 0);
    SmallVector<OpFoldResult> strides = getIndexAttrs(
        rewriter, SmallVector<int64_t>(rank, 1));
    SmallVector<Value> pieces;
    for (Type type : op.getResultTypes()) {
      auto pieceType = cast<RankedTensorType>(type);
      if (pieceType == inputType) {
        pieces.push_back(input);
      } else if (pieceType.getNumElements() == 0) {
        // Upstream rejects a slice at offset == size even when it is empty.
        pieces.push_back(createEmpty(rewriter, op.getLoc(), pieceType));
      } else {
        pieces.push_back(tensor::ExtractSliceOp::create(
            rewriter, op.getLoc(), pieceType, input,
            getIndexAttrs(rewriter, offsets),
            getIndexAttrs(rewriter, pieceType.getShape()), strides));
      }
      offsets[axis] += pieceType.getDimSize(axis);
    }
    rewriter.replaceOp(op, pieces);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Slicing and padding
//===----------------------------------------------------------------------===//

/// kiln.slice -> tensor.extract_slice with the same starts and strides.
struct SliceOpLowering : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    Value input = adaptor.getInput();
    if (input.getType() == resultType &&
        llvm::all_of(op.getStarts(), [](int64_t s) { return s == 0; })) {
      // Equal shapes with zero starts take every element (any stride).
      rewriter.replaceOp(op, input);
      return success();
    }
    if (resultType.getNumElements() == 0) {
      // Upstream rejects a slice at offset == size even when it is empty.
      rewriter.replaceOp(op, createEmpty(rewriter, op.getLoc(), resultType));
      return success();
    }
    rewriter.replaceOp(op, tensor::ExtractSliceOp::create(
                               rewriter, op.getLoc(), resultType, input,
                               getIndexAttrs(rewriter, op.getStarts()),
                               getIndexAttrs(rewriter, resultType.getShape()),
                               getIndexAttrs(rewriter, op.getStrides())));
    return success();
  }
};

/// kiln.pad -> tensor.pad yielding `value` converted to the element type.
struct PadOpLowering : OpConversionPattern<PadOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    TypedAttr padAttr = getScalarAttr(resultType.getElementType(),
                                      op.getValue().convertToDouble());
    assert(padAttr && "the verifier guarantees a Kiln_Tensor result, whose "
                      "float or integer element type getScalarAttr handles");
    Location loc = op.getLoc();
    Value padValue = arith::ConstantOp::create(rewriter, loc, padAttr);
    Value input = adaptor.getInput();
    if (cast<RankedTensorType>(input.getType()).getNumElements() == 0) {
      // All padding. (tensor.pad would bufferize to an insert_slice of the
      // empty input at offset `low`, which may equal the padded size.)
      Value init = createEmpty(rewriter, loc, resultType);
      rewriter.replaceOp(
          op, linalg::FillOp::create(rewriter, loc, padValue, init)
                  .getResult(0));
      return success();
    }
    rewriter.replaceOp(
        op, tensor::PadOp::create(rewriter, loc, resultType,
                                  input, getIndexAttrs(rewriter, op.getLow()),
                                  getIndexAttrs(rewriter, op.getHigh()),
                                  padValue));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Triangular masks and sliding windows
//===----------------------------------------------------------------------===//

/// kiln.tril / kiln.triu -> linalg.generic selecting the input element where
/// `j - i <= diagonal` (tril) or `j - i >= diagonal` (triu), else zero.
template <typename OpTy, arith::CmpIPredicate keep>
struct TriangularOpLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpTy>::OpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t rank = resultType.getRank();
    TypedAttr zeroAttr = getScalarAttr(resultType.getElementType(), 0.0);
    if (rank < 2 || !zeroAttr)
      return rewriter.notifyMatchFailure(op, "unsupported operand type");
    int64_t diagonal = op.getDiagonal();
    Value result = buildIndexGeneric(
        rewriter, op.getLoc(), resultType, adaptor.getInput(),
        {rewriter.getMultiDimIdentityMap(rank)},
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          Value row = linalg::IndexOp::create(b, loc, rank - 2);
          Value col = linalg::IndexOp::create(b, loc, rank - 1);
          Value offset = arith::SubIOp::create(b, loc, col, row);
          Value bound = arith::ConstantIndexOp::create(b, loc, diagonal);
          Value kept = arith::CmpIOp::create(b, loc, keep, offset, bound);
          Value zero = arith::ConstantOp::create(b, loc, zeroAttr);
          return arith::SelectOp::create(b, loc, kept, args[0], zero);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// kiln.unfold -> linalg.generic whose input map reads dim `dim` at
/// `window * step + offset`, where the window is result dim `dim` and the
/// offset the appended last result dim.
struct UnfoldOpLowering : OpConversionPattern<UnfoldOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(UnfoldOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t rank = inputType.getRank();
    int64_t dim = op.getDim(), step = op.getStep();
    if (dim < 0 || dim >= rank || step < 1 ||
        resultType.getRank() != rank + 1)
      return rewriter.notifyMatchFailure(op, "unsupported attributes");
    MLIRContext *context = rewriter.getContext();
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < rank; ++d)
      exprs.push_back(d == dim ? getAffineDimExpr(d, context) * step +
                                     getAffineDimExpr(rank, context)
                               : getAffineDimExpr(d, context));
    AffineMap inputMap = AffineMap::get(rank + 1, 0, exprs, context);
    Value result = buildIndexGeneric(
        rewriter, op.getLoc(), resultType, adaptor.getInput(), {inputMap},
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::kiln::populateTensorPatterns(RewritePatternSet &patterns) {
  patterns.add<
      ConstantOpLowering, IotaOpLowering, BroadcastToOpLowering,
      ReshapeOpLowering, FlattenOpLowering, SqueezeOpLowering,
      UnsqueezeOpLowering, TransposeOpLowering, PermuteOpLowering,
      ConcatOpLowering, SplitOpLowering, SliceOpLowering, PadOpLowering,
      TriangularOpLowering<TrilOp, arith::CmpIPredicate::sle>,
      TriangularOpLowering<TriuOp, arith::CmpIPredicate::sge>,
      UnfoldOpLowering>(patterns.getContext());
}
