//===- Tensor.cpp - Lower creation, layout and shape kiln ops -------------===//
//
// Shape ops become the upstream op that says the same thing on tensors:
// reshapes are `tensor.collapse_shape`/`expand_shape`, permutations
// `linalg.transpose`, slices `tensor.extract_slice`, concatenation
// `tensor.concat`, padding `tensor.pad`. Ops that compute from indices (iota,
// tril/triu, unfold, gathers) are a `linalg.generic` over the result.
//
// Gathers clamp their indices to [0, size) of the gathered axis, so an
// out-of-range index reads the first or last slice, never out of bounds.
// index_add, their adjoint, clamps the same way and is an `scf.forall`
// whose threads own chunks of rows (the CPU's form) or columns (the GPU's)
// and add their updates in index order.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "PopulatePatterns.h"

#include "kiln/Dialect/Kiln/IR/KilnAttrUtils.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/SmallVectorExtras.h"

#include <numeric>

using namespace mlir;
using namespace mlir::kiln;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Returns a `tensor.empty` of `type`.
static Value createEmpty(OpBuilder &builder, Location loc,
                         RankedTensorType type) {
  return tensor::EmptyOp::create(builder, loc, type.getShape(),
                                 type.getElementType());
}

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

/// Reinterprets `input` (row-major) as `resultType` with a collapse or an
/// expand of the same elements. `groups` say which dims of the higher-rank
/// side make up each dim of the lower-rank side.
static Value reassociate(OpBuilder &builder, Location loc, Value input,
                         RankedTensorType resultType,
                         ArrayRef<ReassociationIndices> groups) {
  auto inputType = cast<RankedTensorType>(input.getType());
  if (inputType == resultType)
    return input;
  if (resultType.getRank() <= inputType.getRank())
    return tensor::CollapseShapeOp::create(builder, loc, resultType, input,
                                           groups);
  return tensor::ExpandShapeOp::create(builder, loc, resultType, input,
                                       groups);
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

/// Creates a parallel `linalg.generic` over `resultType` with the given
/// inputs and their indexing maps; the output is an unused `tensor.empty`.
/// `body` gets the scalar inputs and returns the element.
static Value buildIndexGeneric(
    OpBuilder &builder, Location loc, RankedTensorType resultType,
    ValueRange inputs, ArrayRef<AffineMap> inputMaps,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  int64_t rank = resultType.getRank();
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(builder.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Value init = createEmpty(builder, loc, resultType);
  auto generic = linalg::GenericOp::create(
      builder, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps,
      iterators, [&](OpBuilder &b, Location bodyLoc, ValueRange args) {
        linalg::YieldOp::create(b, bodyLoc, body(b, bodyLoc, args.drop_back()));
      });
  return generic.getResult(0);
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

//===----------------------------------------------------------------------===//
// Gathers
//===----------------------------------------------------------------------===//

/// kiln.gather / kiln.index_select -> linalg.generic over the result that
/// reads the index through its indexing map, clamps it to [0, size) of the
/// axis and `tensor.extract`s the data element. The verifier rejects indices
/// into an axis of size 0, so there the result is empty; it is built without
/// a clamp to [0, -1).
template <typename OpTy>
struct IndexingOpLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpTy>::OpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value data = adaptor.getData();
    Value indices = adaptor.getIndices();
    auto dataType = cast<RankedTensorType>(data.getType());
    auto indicesType = cast<RankedTensorType>(indices.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t axis = op.getAxis();
    int64_t dataRank = dataType.getRank();
    int64_t indexRank = indicesType.getRank();
    if (axis < 0 || axis >= dataRank ||
        resultType.getRank() != dataRank - 1 + indexRank ||
        !isa<IntegerType>(indicesType.getElementType()))
      return rewriter.notifyMatchFailure(op, "unsupported operand types");
    Location loc = op.getLoc();
    int64_t axisSize = dataType.getDimSize(axis);

    if (axisSize == 0) {
      TypedAttr zeroAttr = getScalarAttr(resultType.getElementType(), 0.0);
      assert(zeroAttr && "the verifier guarantees a Kiln_Tensor result, "
                         "whose float or integer element type "
                         "getScalarAttr handles");
      Value zero = arith::ConstantOp::create(rewriter, loc, zeroAttr);
      Value init = createEmpty(rewriter, loc, resultType);
      rewriter.replaceOp(
          op, linalg::FillOp::create(rewriter, loc, zero, init).getResult(0));
      return success();
    }

    // The result loops are data dims before the axis, the index dims, then
    // the data dims after the axis.
    MLIRContext *context = rewriter.getContext();
    SmallVector<AffineExpr> indexExprs;
    for (int64_t d = 0; d < indexRank; ++d)
      indexExprs.push_back(getAffineDimExpr(axis + d, context));
    AffineMap indicesMap =
        AffineMap::get(resultType.getRank(), 0, indexExprs, context);
    Value result = buildIndexGeneric(
        rewriter, loc, resultType, indices, {indicesMap},
        [&](OpBuilder &b, Location bodyLoc, ValueRange args) -> Value {
          Value index = arith::IndexCastOp::create(b, bodyLoc,
                                                   b.getIndexType(), args[0]);
          Value lowest = arith::ConstantIndexOp::create(b, bodyLoc, 0);
          Value highest =
              arith::ConstantIndexOp::create(b, bodyLoc, axisSize - 1);
          index = arith::MaxSIOp::create(b, bodyLoc, index, lowest);
          index = arith::MinSIOp::create(b, bodyLoc, index, highest);
          SmallVector<Value> position;
          for (int64_t d = 0; d < dataRank; ++d) {
            if (d < axis)
              position.push_back(linalg::IndexOp::create(b, bodyLoc, d));
            else if (d == axis)
              position.push_back(index);
            else
              position.push_back(
                  linalg::IndexOp::create(b, bodyLoc, d - 1 + indexRank));
          }
          return tensor::ExtractOp::create(b, bodyLoc, data, position);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// index_add
//===----------------------------------------------------------------------===//

/// Returns a `linalg.generic` that converts every element of the float
/// tensor `input` to `elementType` (extf or truncf).
static Value convertFloats(OpBuilder &builder, Location loc, Value input,
                           FloatType elementType) {
  auto inputType = cast<RankedTensorType>(input.getType());
  auto inputElement = cast<FloatType>(inputType.getElementType());
  AffineMap identity = builder.getMultiDimIdentityMap(inputType.getRank());
  return buildIndexGeneric(
      builder, loc, inputType.clone(elementType), input, {identity},
      [&](OpBuilder &b, Location bodyLoc, ValueRange args) -> Value {
        if (inputElement.getWidth() < elementType.getWidth())
          return arith::ExtFOp::create(b, bodyLoc, elementType, args[0]);
        return arith::TruncFOp::create(b, bodyLoc, elementType, args[0]);
      });
}

/// Returns `indices[i]` as an index clamped to [`zero`, `last`].
static Value loadClampedIndex(OpBuilder &b, Location loc, Value indices,
                              Value i, Value zero, Value last) {
  Value index = tensor::ExtractOp::create(b, loc, indices, i);
  index = arith::IndexCastOp::create(b, loc, b.getIndexType(), index);
  index = arith::MaxSIOp::create(b, loc, index, zero);
  return arith::MinSIOp::create(b, loc, index, last);
}

/// Returns `current + update` in the accumulator type of `current`: an
/// f16/bf16 update is widened first; integers wrap; i1 adds with a logical
/// or.
static Value addUpdate(OpBuilder &b, Location loc, Value current,
                       Value update) {
  if (update.getType() != current.getType())
    update = arith::ExtFOp::create(b, loc, current.getType(), update);
  Type accType = getElementTypeOrSelf(current.getType());
  if (isa<FloatType>(accType))
    return arith::AddFOp::create(b, loc, current, update);
  if (accType.isInteger(1))
    return arith::OrIOp::create(b, loc, current, update);
  return arith::AddIOp::create(b, loc, current, update);
}

/// The number of contiguous elements of a row that one thread of the row
/// form owns (the last thread of a row may own fewer).
static constexpr int64_t kIndexAddRowChunk = 128;

/// The width of the row form's vector adds: 512 bits, as the matmul
/// kernels'; LLVM splits them on narrower targets.
static constexpr int64_t kIndexAddVectorBits = 512;

/// kiln.index_add -> an `scf.forall` whose threads own disjoint parts of the
/// result and add `source`'s entries into them in index order: each takes
/// its part (`tensor.extract_slice` of the shared output), runs an `scf.for`
/// over the indices that reads the index, clamps it to the axis and adds the
/// matching entries of `source`, and writes the part back
/// (`tensor.parallel_insert_slice`). Every element of the result thus gets
/// its updates in index order, in either form and however the threads are
/// scheduled: no atomics, no race, the same bits sequentially, under OpenMP
/// and on the GPU (after bufferization, kiln's pipelines turn the forall
/// into an `scf.parallel`). The work is O(N x row), and nothing larger than
/// `dest` is built.
///
/// The two forms split the result differently:
/// - columns (`threadPerColumn`, for the GPU): one thread per position of
///   the non-axis dims, which owns that column `dest[a, :, b]` and adds one
///   element per index (`tensor.extract`/`insert`). Consecutive threads
///   touch consecutive elements (coalesced), but a thread walks its column
///   a row apart.
/// - row chunks (for the CPU): with dest seen as [outer, axis, inner] (the
///   dims before the axis, the axis, the dims after it), one thread per
///   outer position and chunk of `kIndexAddRowChunk` contiguous inner
///   positions, which per index adds that chunk of the source row into the
///   dest row at the index: whole vectors of `kIndexAddVectorBits`
///   (`vector.transfer_read`/`write`, in bounds), then the rest element by
///   element. The vectors are explicit so that the add is vectorized
///   whatever LLVM pipeline follows (the JIT optimizes without the host's
///   target description, and LLVM then leaves scalar loops scalar). With no
///   dims after the axis (inner = 1) a column is contiguous and the column
///   form is used.
///
/// f16 and bf16 accumulate in f32 (one copy of `dest` widened, one rounding
/// at the end); integers wrap; i1 adds with a logical or.
struct IndexAddOpLowering : OpConversionPattern<IndexAddOp> {
  IndexAddOpLowering(MLIRContext *context, bool threadPerColumn)
      : OpConversionPattern(context), threadPerColumn(threadPerColumn) {}

  LogicalResult
  matchAndRewrite(IndexAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value dest = adaptor.getDest();
    Value indices = adaptor.getIndices();
    Value source = adaptor.getSource();
    auto destType = cast<RankedTensorType>(dest.getType());
    auto indicesType = cast<RankedTensorType>(indices.getType());
    auto sourceType = cast<RankedTensorType>(source.getType());
    int64_t axis = op.getAxis();
    int64_t rank = destType.getRank();
    Type elementType = destType.getElementType();
    if (axis < 0 || axis >= rank || indicesType.getRank() != 1 ||
        sourceType.getRank() != rank ||
        !isa<IntegerType>(indicesType.getElementType()) ||
        !isa<FloatType, IntegerType>(elementType))
      return rewriter.notifyMatchFailure(op, "unsupported operand types");
    Location loc = op.getLoc();

    // Nothing to add (the verifier rejects indices into an empty axis).
    if (sourceType.getNumElements() == 0) {
      rewriter.replaceOp(op, dest);
      return success();
    }

    auto floatType = dyn_cast<FloatType>(elementType);
    bool widen = floatType && floatType.getWidth() < 32;
    Value init = buildAccumulator(rewriter, loc, dest, widen);

    int64_t inner = ShapedType::getNumElements(
        destType.getShape().drop_front(axis + 1));
    Value result =
        threadPerColumn || inner == 1
            ? buildColumns(rewriter, loc, init, indices, source, axis)
            : buildRowChunks(rewriter, loc, init, indices, source, axis);
    if (widen)
      result = convertFloats(rewriter, loc, result, floatType);
    rewriter.replaceOp(op, result);
    return success();
  }

private:
  /// The accumulator that the threads add into: `dest`, widened to f32 when
  /// `widen` (f16 and bf16 are widened once).
  static Value buildAccumulator(OpBuilder &builder, Location loc, Value dest,
                                bool widen) {
    // The accumulator: f16 and bf16 are widened to f32 once. A splat dest
    // (the zeros of an adjoint) is filled, not copied from a constant of
    // dest's size.
    auto destType = cast<RankedTensorType>(dest.getType());
    Type accType = widen ? builder.getF32Type() : destType.getElementType();
    auto accTensorType = destType.clone(accType);
    SplatElementsAttr splat;
    if (matchPattern(dest, m_Constant(&splat))) {
      TypedAttr value = splat.getSplatValue<TypedAttr>();
      if (widen)
        value = builder.getF32FloatAttr(
            splat.getSplatValue<APFloat>().convertToDouble());
      Value scalar = arith::ConstantOp::create(builder, loc, value);
      return linalg::FillOp::create(builder, loc, scalar,
                                    createEmpty(builder, loc, accTensorType))
          .getResult(0);
    }
    if (widen)
      return convertFloats(builder, loc, dest, builder.getF32Type());
    return dest;
  }

  /// The column form: one thread per position of the non-axis dims (one
  /// thread for a rank-1 dest, whose only dim is the axis).
  static Value buildColumns(OpBuilder &builder, Location loc, Value init,
                            Value indices, Value source, int64_t axis) {
    auto accTensorType = cast<RankedTensorType>(init.getType());
    int64_t rank = accTensorType.getRank();
    int64_t axisSize = accTensorType.getDimSize(axis);
    int64_t numIndices = cast<RankedTensorType>(indices.getType()).getDimSize(0);
    auto addColumn = [&](OpBuilder &builder, Location loc, ValueRange ivs,
                         Value column) -> Value {
      Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
      Value last = arith::ConstantIndexOp::create(builder, loc, axisSize - 1);
      Value count = arith::ConstantIndexOp::create(builder, loc, numIndices);
      Value one = arith::ConstantIndexOp::create(builder, loc, 1);
      auto loop = scf::ForOp::create(
          builder, loc, zero, count, one, ValueRange{column},
          [&](OpBuilder &b, Location bodyLoc, Value i, ValueRange iterArgs) {
            Value index =
                loadClampedIndex(b, bodyLoc, indices, i, zero, last);
            SmallVector<Value> position;
            for (int64_t d = 0, outer = 0; d < rank; ++d)
              position.push_back(d == axis ? i : Value(ivs[outer++]));
            Value update =
                tensor::ExtractOp::create(b, bodyLoc, source, position);
            Value current =
                tensor::ExtractOp::create(b, bodyLoc, iterArgs[0], index);
            Value sum = addUpdate(b, bodyLoc, current, update);
            Value next =
                tensor::InsertOp::create(b, bodyLoc, sum, iterArgs[0], index);
            scf::YieldOp::create(b, bodyLoc, next);
          });
      return loop.getResult(0);
    };
    return buildColumnForall(builder, loc, init, axis, addColumn);
  }

  /// What the row-chunk form's threads share: the indices, the source
  /// collapsed to [d0, ..., axis, inner], and the sizes of the adds.
  struct RowChunkOperands {
    Value indices;
    Value collapsedSource;
    Type sourceElement;
    Type accType;
    int64_t axisSize;
    int64_t numIndices;
    /// The elements of one vector add; 0: every add is scalar.
    int64_t lanes;
  };

  /// How one thread's chunk splits into vector adds, over [0, vectorEnd),
  /// and scalar adds, over [vectorEnd, width), and which of the two loops
  /// it needs.
  struct ChunkSplit {
    Value vectorEnd;
    bool vectorLoop;
    bool scalarLoop;
    /// The padding values of the vector reads (null without vector loop).
    Value sourcePadding, accPadding;
  };

  /// The row-chunk form: one thread per position of the dims before the
  /// axis and chunk of the positions after it, which `init` and `source`
  /// collapse into one contiguous dim.
  static Value buildRowChunks(OpBuilder &builder, Location loc, Value init,
                              Value indices, Value source, int64_t axis) {
    auto accTensorType = cast<RankedTensorType>(init.getType());
    auto sourceType = cast<RankedTensorType>(source.getType());
    Type accType = accTensorType.getElementType();
    ArrayRef<int64_t> shape = accTensorType.getShape();
    int64_t rank = accTensorType.getRank();
    int64_t inner = ShapedType::getNumElements(shape.drop_front(axis + 1));

    // [d0, ..., axis, inner]: a reshape only with several dims after the
    // axis (a view of the same buffer, but the result is then computed in
    // a buffer of its own and copied out).
    SmallVector<ReassociationIndices> groups =
        getCollapseAfterAxisGroups(rank, axis);
    auto collapsed = [&](RankedTensorType type) {
      SmallVector<int64_t> dims(type.getShape().take_front(axis + 1));
      dims.push_back(inner);
      return RankedTensorType::get(dims, type.getElementType());
    };
    Value collapsedInit =
        reassociate(builder, loc, init, collapsed(accTensorType), groups);
    Value collapsedSource =
        reassociate(builder, loc, source, collapsed(sourceType), groups);

    // Per index, `lanes` elements at a time while whole vectors fit, then
    // one at a time. i1 (a byte per element in memory, a bit per lane in a
    // vector) goes one at a time.
    int64_t lanes = accType.isInteger(1)
                        ? 0
                        : kIndexAddVectorBits / accType.getIntOrFloatBitWidth();
    RowChunkOperands operands;
    operands.indices = indices;
    operands.collapsedSource = collapsedSource;
    operands.sourceElement = sourceType.getElementType();
    operands.accType = accType;
    operands.axisSize = shape[axis];
    operands.numIndices = sourceType.getDimSize(axis);
    operands.lanes = lanes;
    auto addPart = [&](OpBuilder &builder, Location loc, ValueRange outerIvs,
                       const RowChunk &rowChunk, Value part) -> Value {
      return buildChunkAdds(builder, loc, operands, outerIvs, rowChunk, part);
    };
    Value result = buildRowChunkForall(builder, loc, collapsedInit,
                                       kIndexAddRowChunk, addPart);
    return reassociate(builder, loc, result, accTensorType, groups);
  }

  /// The split of the chunk `rowChunk` between vector and scalar adds, and
  /// the constants that it needs (the end of the vector part where it is not
  /// the chunk size, the vector reads' padding values).
  static ChunkSplit splitChunk(OpBuilder &builder, Location loc,
                               const RowChunkOperands &operands,
                               const RowChunk &rowChunk) {
    int64_t lanes = operands.lanes;
    Type accType = operands.accType;
    Value zero = rowChunk.zero;
    Value chunkSize = rowChunk.sizeValue, width = rowChunk.width;
    int64_t chunk = rowChunk.size;
    bool evenChunks = rowChunk.even;
    Value vectorEnd = zero;
    if (lanes > 0 && evenChunks) {
      vectorEnd = chunk % lanes == 0
                      ? chunkSize
                      : arith::ConstantIndexOp::create(builder, loc,
                                                       chunk - chunk % lanes);
    } else if (lanes > 0) {
      Value laneCount = arith::ConstantIndexOp::create(builder, loc, lanes);
      Value tail = arith::RemUIOp::create(builder, loc, width, laneCount);
      vectorEnd = arith::SubIOp::create(builder, loc, width, tail);
    }
    bool vectorLoop = lanes > 0 && !(evenChunks && chunk < lanes);
    bool scalarLoop = lanes == 0 || !evenChunks || chunk % lanes != 0;
    Type sourceElement = operands.sourceElement;
    // transfer_read wants a padding value, which in-bounds reads never use.
    Value sourcePadding, accPadding;
    if (vectorLoop) {
      sourcePadding = arith::ConstantOp::create(
          builder, loc, getScalarAttr(sourceElement, 0.0));
      accPadding = sourceElement == accType
                       ? sourcePadding
                       : arith::ConstantOp::create(builder, loc,
                                                   getScalarAttr(accType, 0.0))
                             .getResult();
    }
    return {vectorEnd, vectorLoop, scalarLoop, sourcePadding, accPadding};
  }

  /// One row-chunk thread's adds into its `part` ([axis, width] of the
  /// result): an scf.for over the indices that clamps each index and adds
  /// the chunk of the source row into the part's row at the index, whole
  /// vectors first, then element by element.
  static Value buildChunkAdds(OpBuilder &builder, Location loc,
                              const RowChunkOperands &operands,
                              ValueRange outerIvs, const RowChunk &rowChunk,
                              Value part) {
    Value zero = rowChunk.zero, one = rowChunk.one;
    Value width = rowChunk.width;
    int64_t lanes = operands.lanes;
    ChunkSplit split = splitChunk(builder, loc, operands, rowChunk);
    Value vectorEnd = split.vectorEnd;

    Value last =
        arith::ConstantIndexOp::create(builder, loc, operands.axisSize - 1);
    Value count =
        arith::ConstantIndexOp::create(builder, loc, operands.numIndices);
    auto loop = scf::ForOp::create(
        builder, loc, zero, count, one, ValueRange{part},
        [&](OpBuilder &b, Location bodyLoc, Value i, ValueRange iterArgs) {
          Value index =
              loadClampedIndex(b, bodyLoc, operands.indices, i, zero, last);
          SmallVector<Value> sourceRow(outerIvs);
          sourceRow.push_back(i);
          auto addRow = [&](Value acc, Value from, Value to,
                            int64_t step) -> Value {
            return buildRowAdds(b, bodyLoc, operands, split, sourceRow,
                                rowChunk.start, index, acc, from, to, step);
          };
          Value row = iterArgs[0];
          if (split.vectorLoop)
            row = addRow(row, zero, vectorEnd, lanes);
          if (split.scalarLoop)
            row = addRow(row, vectorEnd, width, 1);
          scf::YieldOp::create(b, bodyLoc, row);
        });
    return loop.getResult(0);
  }

  /// part[index, j] += source[..., i, start + j] for j in [from, to),
  /// `step` elements at a time (vector reads and writes for step > 1):
  /// `acc` is the part, `sourceRow` the source's indices before the
  /// collapsed inner dim (the outer positions and i).
  static Value buildRowAdds(OpBuilder &b, Location bodyLoc,
                            const RowChunkOperands &operands,
                            const ChunkSplit &split, ValueRange sourceRow,
                            OpFoldResult start, Value index, Value acc,
                            Value from, Value to, int64_t step) {
    Value collapsedSource = operands.collapsedSource;
    Type sourceElement = operands.sourceElement, accType = operands.accType;
    Value stepSize = arith::ConstantIndexOp::create(b, bodyLoc, step);
    auto rowLoop = scf::ForOp::create(
        b, bodyLoc, from, to, stepSize, ValueRange{acc},
        [&](OpBuilder &rb, Location rowLoc, Value j, ValueRange rowArgs) {
          SmallVector<Value> position(sourceRow);
          if (auto offset = dyn_cast<Value>(start))
            position.push_back(arith::AddIOp::create(rb, rowLoc, offset, j));
          else
            position.push_back(j);
          Value row = rowArgs[0];
          SmallVector<Value> target = {index, j};
          Value next;
          if (step == 1) {
            Value update = tensor::ExtractOp::create(rb, rowLoc,
                                                     collapsedSource, position);
            Value current = tensor::ExtractOp::create(rb, rowLoc, row, target);
            Value sum = addUpdate(rb, rowLoc, current, update);
            next = tensor::InsertOp::create(rb, rowLoc, sum, row, target);
          } else {
            SmallVector<bool> inBounds = {true};
            Value update = vector::TransferReadOp::create(
                rb, rowLoc, VectorType::get({step}, sourceElement),
                collapsedSource, position, split.sourcePadding, inBounds);
            Value current = vector::TransferReadOp::create(
                rb, rowLoc, VectorType::get({step}, accType), row, target,
                split.accPadding, inBounds);
            Value sum = addUpdate(rb, rowLoc, current, update);
            next = vector::TransferWriteOp::create(rb, rowLoc, sum, row, target,
                                                   inBounds)
                       .getResult();
          }
          scf::YieldOp::create(rb, rowLoc, next);
        });
    return rowLoop.getResult(0);
  }

  bool threadPerColumn;
};

} // namespace

void mlir::kiln::populateTensorPatterns(RewritePatternSet &patterns,
                                        bool indexAddThreadPerColumn) {
  patterns.add<
      ConstantOpLowering, IotaOpLowering, BroadcastToOpLowering,
      ReshapeOpLowering, FlattenOpLowering, SqueezeOpLowering,
      UnsqueezeOpLowering, TransposeOpLowering, PermuteOpLowering,
      ConcatOpLowering, SplitOpLowering, SliceOpLowering, PadOpLowering,
      TriangularOpLowering<TrilOp, arith::CmpIPredicate::sle>,
      TriangularOpLowering<TriuOp, arith::CmpIPredicate::sge>,
      UnfoldOpLowering, IndexingOpLowering<GatherOp>,
      IndexingOpLowering<IndexSelectOp>>(patterns.getContext());
  patterns.add<IndexAddOpLowering>(patterns.getContext(),
                                   indexAddThreadPerColumn);
}
