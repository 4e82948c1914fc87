//===- Conv.cpp - Lower kiln convolutions and pooling ---------------------===//
//
// Convolutions, 2-d pooling and 2-d upsampling on [N, C, spatial...] tensors.
//
// - conv1d/2d/3d: the input is zero-padded (tensor.pad) and split into
//   groups (tensor.expand_shape [N, G, Cin/G, ...], weight
//   [G, Cout/G, Cin/G, K...]); one linalg.generic, with strides and
//   dilations in its input indexing map, accumulates into the bias broadcast
//   to the output (or zeros), and the result's [G, Cout/G] dims collapse back.
// - conv_transpose1d: the input is scattered `stride` apart into a zero
//   tensor (tensor.insert_slice with a stride), then convolved with stride 1
//   by the flipped kernel (the input's indexing map walks backwards).
// - max_pool2d / avg_pool2d: tensor.pad (-inf or 0, with extra high padding
//   for the windows that ceil_mode lets hang past the end), then
//   linalg.pooling_nchw_max / linalg.pooling_nchw_sum; the average divides by
//   PyTorch's per-window divisor, the product of two per-dim constant tables.
// - upsample2d: nearest reads input index (dst * in) floordiv out through an
//   affine indexing map (or a table of PyTorch's float32 indices where they
//   differ); bilinear reads per-dim constant tables of source
//   indices and weights (computed like PyTorch, in the element type's
//   opmath precision) and gathers the four taps with tensor.extract.
//
// f16 and bf16 convolutions and average pools accumulate in f32 and round
// once at the end, like PyTorch's CPU kernels. A result without elements is a
// tensor.empty.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"

#include "kiln/Dialect/Kiln/IR/KilnConvTables.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>

using namespace mlir;
using namespace mlir::kiln;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The type convolutions and average pools accumulate in: f32 for the 16-bit
/// floats, the element type otherwise.
static FloatType getAccumulatorType(FloatType type) {
  if (type.getWidth() < 32)
    return Float32Type::get(type.getContext());
  return type;
}

/// Returns whether `type` is one of the element types the lowering supports:
/// Kiln_Float (f16, bf16, f32, f64). Used only in asserts, as the op
/// verifiers already restrict the element types to these.
[[maybe_unused]] static bool isSupportedFloat(Type type) {
  return type.isF16() || type.isBF16() || type.isF32() || type.isF64();
}

/// Returns whether `type` has a zero-size dim.
static bool hasNoElements(ShapedType type) {
  return llvm::is_contained(type.getShape(), 0);
}

/// Replaces `op`, whose result has no elements, by a tensor.empty: there is
/// nothing to compute, and slicing a zero-size dim (tensor.pad,
/// tensor.insert_slice bufferize to memref.subview) is invalid even with
/// zero-size slices.
static LogicalResult replaceWithEmpty(Operation *op,
                                      ConversionPatternRewriter &rewriter) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  rewriter.replaceOpWithNewOp<tensor::EmptyOp>(op, type.getShape(),
                                               type.getElementType());
  return success();
}

/// The largest spatial size whose per-index tables (pooling divisors,
/// upsampling indices and weights) the lowering builds as constants; larger
/// sizes fail to match rather than build gigantic constants.
static constexpr int64_t kMaxTableSize = int64_t(1) << 24;

/// The first spatial size of `op` (an avg_pool2d's result, an upsample2d's
/// input or result) above kMaxTableSize, or std::nullopt. A result without
/// elements lowers to tensor.empty whatever its sizes.
static std::optional<int64_t> getOversizedTableDim(Operation *op) {
  if (!isa<AvgPool2dOp, Upsample2dOp>(op))
    return std::nullopt;
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  auto inputType = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (!resultType || !inputType || resultType.getRank() != 4 ||
      inputType.getRank() != 4 || hasNoElements(resultType))
    return std::nullopt;
  SmallVector<RankedTensorType, 2> tabled = {resultType};
  if (isa<Upsample2dOp>(op))
    tabled.push_back(inputType);
  for (RankedTensorType type : tabled)
    for (int64_t i = 2; i < 4; ++i)
      if (type.getDimSize(i) > kMaxTableSize)
        return type.getDimSize(i);
  return std::nullopt;
}

LogicalResult mlir::kiln::checkConvLoweringLimits(Operation *op) {
  if (std::optional<int64_t> size = getOversizedTableDim(op))
    return op->emitOpError()
           << "spatial size " << *size << " exceeds " << kMaxTableSize
           << ", the largest the linalg lowering builds index tables for";
  return success();
}

/// Converts the scalar `value` to the float type `to` (extf/truncf).
static Value castScalar(OpBuilder &b, Location loc, Value value, Type to) {
  Type from = value.getType();
  if (from == to)
    return value;
  if (cast<FloatType>(from).getWidth() < cast<FloatType>(to).getWidth())
    return arith::ExtFOp::create(b, loc, to, value);
  return arith::TruncFOp::create(b, loc, to, value);
}

/// Converts the float tensor `value` elementwise to element type `to`.
static Value castTensor(OpBuilder &b, Location loc, Value value, Type to) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getElementType() == to)
    return value;
  int64_t rank = type.getRank();
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), to);
  SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{value},
             ValueRange{init}, maps, iterators,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(nb, nloc,
                                       castScalar(nb, nloc, args[0], to));
             })
      .getResult(0);
}

/// A tensor of `shape` filled with the float `value`.
static Value buildFilled(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                         FloatType type, const APFloat &value) {
  Value init = tensor::EmptyOp::create(b, loc, shape, type);
  Value scalar = arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
  return linalg::FillOp::create(b, loc, scalar, init).getResult(0);
}

/// Pads `value` by `low` and `high` (one entry per dim) with the float
/// `padValue`; returns `value` when there is nothing to pad.
static Value padTensor(OpBuilder &b, Location loc, Value value,
                       ArrayRef<int64_t> low, ArrayRef<int64_t> high,
                       const APFloat &padValue) {
  if (llvm::all_of(low, [](int64_t v) { return v == 0; }) &&
      llvm::all_of(high, [](int64_t v) { return v == 0; }))
    return value;
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<OpFoldResult> lowOfr, highOfr;
  for (auto [i, size] : llvm::enumerate(shape)) {
    size += low[i] + high[i];
    lowOfr.push_back(b.getIndexAttr(low[i]));
    highOfr.push_back(b.getIndexAttr(high[i]));
  }
  auto elementType = cast<FloatType>(type.getElementType());
  // Padding an empty tensor gives all padding (and a tensor.pad of it would
  // bufferize to an invalid subview).
  if (hasNoElements(type))
    return buildFilled(b, loc, shape, elementType, padValue);
  Value pad =
      arith::ConstantOp::create(b, loc, b.getFloatAttr(elementType, padValue));
  return tensor::PadOp::create(b, loc,
                               RankedTensorType::get(shape, elementType), value,
                               lowOfr, highOfr, pad)
      .getResult();
}

/// Splits dim `dim` of `value` into [groups, size / groups].
static Value splitGroups(OpBuilder &b, Location loc, Value value, int64_t dim,
                         int64_t groups) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape;
  SmallVector<ReassociationIndices> reassociation;
  for (int64_t i = 0, e = type.getRank(); i < e; ++i) {
    int64_t next = shape.size();
    if (i == dim) {
      shape.push_back(groups);
      shape.push_back(type.getDimSize(i) / groups);
      reassociation.push_back({next, next + 1});
    } else {
      shape.push_back(type.getDimSize(i));
      reassociation.push_back({next});
    }
  }
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), value,
      reassociation);
}

/// Merges dims 1 and 2 ([G, C / G]) of `value` back into one.
static Value mergeGroups(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<ReassociationIndices> reassociation = {{0}, {1, 2}};
  for (int64_t i = 3, e = type.getRank(); i < e; ++i)
    reassociation.push_back({i});
  return tensor::CollapseShapeOp::create(b, loc, value, reassociation);
}

/// The [N, G, Cout / G, out...] accumulator of a convolution in `accType`:
/// the optional `bias` [Cout] broadcast along N and the spatial dims, or
/// zeros.
static Value buildConvInit(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                           FloatType accType, Value bias) {
  if (!bias)
    return buildFilled(b, loc, shape, accType,
                       APFloat::getZero(accType.getFloatSemantics()));
  int64_t rank = shape.size();
  Value groupedBias = splitGroups(b, loc, bias, 0, shape[1]);
  Value init = tensor::EmptyOp::create(b, loc, shape, accType);
  AffineMap biasMap = AffineMap::get(
      rank, 0, {b.getAffineDimExpr(1), b.getAffineDimExpr(2)}, b.getContext());
  SmallVector<AffineMap> maps = {biasMap, b.getMultiDimIdentityMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{groupedBias},
             ValueRange{init}, maps, iterators,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(nb, nloc,
                                       castScalar(nb, nloc, args[0], accType));
             })
      .getResult(0);
}

/// Accumulates a grouped convolution into `init` [N, G, Cout/G, out...]:
///
///   init[n, g, co, o...] +=
///       input[n, g, ci, o * stride + k * dilation + offset]
///       * weight[g, co, ci, k...]
///
/// over ci and the kernel taps k, with `input` [N, G, Cin/G, in...] and
/// `weight` [G, Cout/G, Cin/G, K...]. With `transposedWeight`, `weight` is
/// [G, Cin/G, Cout/G, K...] (read as weight[g, ci, co, k...]). `dilation` may
/// be negative, to walk the input backwards (a flipped kernel): every loop
/// must stay a plain dim of some indexing map for linalg to invert them.
static Value buildGroupedConv(OpBuilder &b, Location loc, Value input,
                              Value weight, Value init,
                              ArrayRef<int64_t> stride,
                              ArrayRef<int64_t> dilation,
                              ArrayRef<int64_t> offset, bool transposedWeight) {
  auto initType = cast<RankedTensorType>(init.getType());
  int64_t spatialRank = stride.size();
  // Loops: n, g, co, o_0.., ci, k_0..
  int64_t numLoops = 3 + spatialRank + 1 + spatialRank;
  auto d = [&](int64_t i) { return b.getAffineDimExpr(i); };
  AffineExpr n = d(0), g = d(1), co = d(2), ci = d(3 + spatialRank);
  auto o = [&](int64_t i) { return d(3 + i); };
  auto k = [&](int64_t i) { return d(4 + spatialRank + i); };

  SmallVector<AffineExpr> inputExprs = {n, g, ci};
  SmallVector<AffineExpr> weightExprs = {g};
  if (transposedWeight)
    weightExprs.append({ci, co});
  else
    weightExprs.append({co, ci});
  SmallVector<AffineExpr> outputExprs = {n, g, co};
  for (int64_t i = 0; i < spatialRank; ++i) {
    inputExprs.push_back(o(i) * stride[i] + k(i) * dilation[i] + offset[i]);
    weightExprs.push_back(k(i));
    outputExprs.push_back(o(i));
  }
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps = {AffineMap::get(numLoops, 0, inputExprs, ctx),
                                 AffineMap::get(numLoops, 0, weightExprs, ctx),
                                 AffineMap::get(numLoops, 0, outputExprs, ctx)};
  SmallVector<utils::IteratorType> iterators(numLoops,
                                             utils::IteratorType::parallel);
  for (int64_t i = 3 + spatialRank; i < numLoops; ++i)
    iterators[i] = utils::IteratorType::reduction;
  Type accType = initType.getElementType();
  return linalg::GenericOp::create(
             b, loc, TypeRange{initType}, ValueRange{input, weight},
             ValueRange{init}, maps, iterators,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value x = castScalar(nb, nloc, args[0], accType);
               Value w = castScalar(nb, nloc, args[1], accType);
               Value product = arith::MulFOp::create(nb, nloc, x, w);
               Value sum = arith::AddFOp::create(nb, nloc, args[2], product);
               linalg::YieldOp::create(nb, nloc, sum);
             })
      .getResult(0);
}

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

namespace {

/// The base of the patterns below, which all lower an op with one float
/// result (Kiln_FloatTensor, so f16, bf16, f32 or f64 in verified IR): it
/// replaces a result without elements by a tensor.empty (see
/// replaceWithEmpty), so `rewriteNonEmpty` sees a result with elements.
template <typename OpTy> struct FloatConvLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    auto resultType = cast<RankedTensorType>(op.getType());
    auto elementType = cast<FloatType>(resultType.getElementType());
    assert(isSupportedFloat(elementType) &&
           "the verifier guarantees a Kiln_FloatTensor result (f16, bf16, "
           "f32 or f64)");
    if (hasNoElements(resultType))
      return replaceWithEmpty(op, rewriter);
    return rewriteNonEmpty(op, adaptor, resultType, elementType, rewriter);
  }

  /// Lowers `op`, whose result of type `resultType` has elements of the
  /// supported float type `elementType`.
  virtual LogicalResult
  rewriteNonEmpty(OpTy op, OpAdaptor adaptor, RankedTensorType resultType,
                  FloatType elementType,
                  ConversionPatternRewriter &rewriter) const = 0;
};

/// kiln.conv1d / conv2d / conv3d -> tensor.pad + grouped linalg.generic.
template <typename ConvOp> struct ConvNdOpLowering : FloatConvLowering<ConvOp> {
  using FloatConvLowering<ConvOp>::FloatConvLowering;
  using typename FloatConvLowering<ConvOp>::OpAdaptor;

  LogicalResult
  rewriteNonEmpty(ConvOp op, OpAdaptor adaptor, RankedTensorType resultType,
                  FloatType elementType,
                  ConversionPatternRewriter &rewriter) const override {
    int64_t groups = op.getGroups();
    ArrayRef<int64_t> stride = op.getStride();
    ArrayRef<int64_t> padding = op.getPadding();
    ArrayRef<int64_t> dilation = op.getDilation();
    int64_t spatialRank = resultType.getRank() - 2;
    if (groups < 1 || static_cast<int64_t>(stride.size()) != spatialRank ||
        static_cast<int64_t>(padding.size()) != spatialRank ||
        static_cast<int64_t>(dilation.size()) != spatialRank)
      return rewriter.notifyMatchFailure(op, "malformed attributes");

    Location loc = op.getLoc();
    FloatType accType = getAccumulatorType(elementType);
    SmallVector<int64_t> low(2, 0), high(2, 0);
    low.append(padding.begin(), padding.end());
    high.append(padding.begin(), padding.end());
    Value input = padTensor(rewriter, loc, adaptor.getInput(), low, high,
                            APFloat::getZero(elementType.getFloatSemantics()));
    input = splitGroups(rewriter, loc, input, 1, groups);
    Value weight = splitGroups(rewriter, loc, adaptor.getWeight(), 0, groups);

    SmallVector<int64_t> outShape = {resultType.getDimSize(0), groups,
                                     resultType.getDimSize(1) / groups};
    for (int64_t i = 0; i < spatialRank; ++i)
      outShape.push_back(resultType.getDimSize(2 + i));
    Value init =
        buildConvInit(rewriter, loc, outShape, accType, adaptor.getBias());
    SmallVector<int64_t> offset(spatialRank, 0);
    Value result = buildGroupedConv(rewriter, loc, input, weight, init, stride,
                                    dilation, offset,
                                    /*transposedWeight=*/false);
    result = castTensor(rewriter, loc, mergeGroups(rewriter, loc, result),
                        elementType);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// kiln.conv_transpose1d -> the input scattered `stride` apart into zeros
/// (tensor.insert_slice), convolved with stride 1 by the flipped kernel.
///
///   out[l] = sum_k z[l + padding + (K - 1 - k) * dilation] * w[k]
///
/// where z holds input[i] at dilation * (K - 1) + i * stride: the taps with
/// l = i * stride - padding + k * dilation, PyTorch's definition.
struct ConvTranspose1dOpLowering : FloatConvLowering<ConvTranspose1dOp> {
  using FloatConvLowering::FloatConvLowering;

  LogicalResult
  rewriteNonEmpty(ConvTranspose1dOp op, OpAdaptor adaptor,
                  RankedTensorType resultType, FloatType elementType,
                  ConversionPatternRewriter &rewriter) const override {
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    auto weightType = cast<RankedTensorType>(adaptor.getWeight().getType());
    int64_t groups = op.getGroups();
    if (groups < 1 || op.getStride().size() != 1 ||
        op.getPadding().size() != 1 || op.getDilation().size() != 1)
      return rewriter.notifyMatchFailure(op, "malformed attributes");
    int64_t stride = op.getStride()[0];
    int64_t padding = op.getPadding()[0];
    int64_t dilation = op.getDilation()[0];
    int64_t batch = inputType.getDimSize(0);
    int64_t inChannels = inputType.getDimSize(1);
    int64_t length = inputType.getDimSize(2);
    int64_t kernel = weightType.getDimSize(2);
    int64_t outLength = resultType.getDimSize(2);

    // z must hold the scattered input and every tap the output reads.
    int64_t firstTap = dilation * (kernel - 1);
    int64_t scatteredEnd = firstTap +
                           std::max<int64_t>(length - 1, 0) * stride +
                           (length > 0 ? 1 : 0);
    int64_t readEnd = outLength + padding + dilation * (kernel - 1);
    int64_t fullLength = std::max(scatteredEnd, readEnd);

    Location loc = op.getLoc();
    FloatType accType = getAccumulatorType(elementType);
    Value zeros =
        buildFilled(rewriter, loc, {batch, inChannels, fullLength}, elementType,
                    APFloat::getZero(elementType.getFloatSemantics()));
    SmallVector<OpFoldResult> offsets = {rewriter.getIndexAttr(0),
                                         rewriter.getIndexAttr(0),
                                         rewriter.getIndexAttr(firstTap)};
    SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(batch),
                                       rewriter.getIndexAttr(inChannels),
                                       rewriter.getIndexAttr(length)};
    SmallVector<OpFoldResult> strides = {rewriter.getIndexAttr(1),
                                         rewriter.getIndexAttr(1),
                                         rewriter.getIndexAttr(stride)};
    Value scattered = zeros;
    if (!hasNoElements(inputType))
      scattered = tensor::InsertSliceOp::create(
          rewriter, loc, adaptor.getInput(), zeros, offsets, sizes, strides);
    Value input = splitGroups(rewriter, loc, scattered, 1, groups);
    Value weight = splitGroups(rewriter, loc, adaptor.getWeight(), 0, groups);

    SmallVector<int64_t> outShape = {
        batch, groups, resultType.getDimSize(1) / groups, outLength};
    Value init =
        buildConvInit(rewriter, loc, outShape, accType, adaptor.getBias());
    Value result = buildGroupedConv(rewriter, loc, input, weight, init,
                                    /*stride=*/{1}, {-dilation},
                                    {padding + dilation * (kernel - 1)},
                                    /*transposedWeight=*/true);
    result = castTensor(rewriter, loc, mergeGroups(rewriter, loc, result),
                        elementType);
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// The sizes, strides, padding and dilation of a 2-d pooling op, and the
/// high padding its windows need (ceil_mode lets the last one hang past the
/// padded input).
struct PoolGeometry {
  SmallVector<int64_t> kernel, stride, padding, dilation, low, high;
};

static FailureOr<PoolGeometry>
getPoolGeometry(RankedTensorType inputType, RankedTensorType resultType,
                ArrayRef<int64_t> kernel,
                std::optional<ArrayRef<int64_t>> stride,
                ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation) {
  PoolGeometry geometry;
  geometry.kernel.assign(kernel.begin(), kernel.end());
  ArrayRef<int64_t> strides = stride.value_or(kernel);
  geometry.stride.assign(strides.begin(), strides.end());
  geometry.padding.assign(padding.begin(), padding.end());
  geometry.dilation.assign(dilation.begin(), dilation.end());
  if (kernel.size() != 2 || strides.size() != 2 || padding.size() != 2 ||
      dilation.size() != 2 || inputType.getRank() != 4 ||
      resultType.getRank() != 4)
    return failure();
  geometry.low = {0, 0, padding[0], padding[1]};
  geometry.high = {0, 0, padding[0], padding[1]};
  for (int64_t i = 0; i < 2; ++i) {
    int64_t in = inputType.getDimSize(2 + i);
    int64_t out = resultType.getDimSize(2 + i);
    int64_t readEnd =
        (out - 1) * strides[i] + dilation[i] * (kernel[i] - 1) + 1;
    geometry.high[2 + i] = std::max(padding[i], readEnd - in - padding[i]);
  }
  return geometry;
}

static DenseIntElementsAttr getI64Pair(OpBuilder &b, ArrayRef<int64_t> v) {
  return DenseIntElementsAttr::get(RankedTensorType::get({2}, b.getI64Type()),
                                   v);
}

/// kiln.max_pool2d -> tensor.pad with -inf + linalg.pooling_nchw_max (NaN
/// propagating, like PyTorch).
struct MaxPool2dOpLowering : FloatConvLowering<MaxPool2dOp> {
  using FloatConvLowering::FloatConvLowering;

  LogicalResult
  rewriteNonEmpty(MaxPool2dOp op, OpAdaptor adaptor,
                  RankedTensorType resultType, FloatType elementType,
                  ConversionPatternRewriter &rewriter) const override {
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    FailureOr<PoolGeometry> geometry =
        getPoolGeometry(inputType, resultType, op.getKernelSize(),
                        op.getStride(), op.getPadding(), op.getDilation());
    if (failed(geometry))
      return rewriter.notifyMatchFailure(op, "malformed attributes");

    Location loc = op.getLoc();
    APFloat negInf =
        APFloat::getInf(elementType.getFloatSemantics(), /*Negative=*/true);
    Value input = padTensor(rewriter, loc, adaptor.getInput(), geometry->low,
                            geometry->high, negInf);
    Value window =
        tensor::EmptyOp::create(rewriter, loc, geometry->kernel, elementType);
    Value init =
        buildFilled(rewriter, loc, resultType.getShape(), elementType, negInf);
    auto pool = linalg::PoolingNchwMaxOp::create(
        rewriter, loc, TypeRange{resultType}, ValueRange{input, window},
        ValueRange{init}, getI64Pair(rewriter, geometry->stride),
        getI64Pair(rewriter, geometry->dilation));
    rewriter.replaceOp(op, pool.getResult(0));
    return success();
  }
};

/// kiln.avg_pool2d -> tensor.pad with 0 + linalg.pooling_nchw_sum, divided by
/// the product of the per-dim window divisors.
struct AvgPool2dOpLowering : FloatConvLowering<AvgPool2dOp> {
  using FloatConvLowering::FloatConvLowering;

  LogicalResult
  rewriteNonEmpty(AvgPool2dOp op, OpAdaptor adaptor,
                  RankedTensorType resultType, FloatType elementType,
                  ConversionPatternRewriter &rewriter) const override {
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    if (getOversizedTableDim(op))
      return rewriter.notifyMatchFailure(op, "spatial size too large");
    SmallVector<int64_t> noDilation = {1, 1};
    FailureOr<PoolGeometry> geometry =
        getPoolGeometry(inputType, resultType, op.getKernelSize(),
                        op.getStride(), op.getPadding(), noDilation);
    if (failed(geometry))
      return rewriter.notifyMatchFailure(op, "malformed attributes");

    Location loc = op.getLoc();
    FloatType accType = getAccumulatorType(elementType);
    Value input = padTensor(rewriter, loc, adaptor.getInput(), geometry->low,
                            geometry->high,
                            APFloat::getZero(elementType.getFloatSemantics()));
    Value window =
        tensor::EmptyOp::create(rewriter, loc, geometry->kernel, elementType);
    Value init = buildFilled(rewriter, loc, resultType.getShape(), accType,
                             APFloat::getZero(accType.getFloatSemantics()));
    auto sumType = RankedTensorType::get(resultType.getShape(), accType);
    Value sum =
        linalg::PoolingNchwSumOp::create(
            rewriter, loc, TypeRange{sumType}, ValueRange{input, window},
            ValueRange{init}, getI64Pair(rewriter, geometry->stride),
            getI64Pair(rewriter, geometry->dilation))
            .getResult(0);

    // sum / (divH[h] * divW[w])
    Value divisors[2];
    for (int64_t i = 0; i < 2; ++i) {
      int64_t out = resultType.getDimSize(2 + i);
      SmallVector<int64_t> values = getAvgPoolDivisors(
          inputType.getDimSize(2 + i), out, geometry->kernel[i],
          geometry->stride[i], geometry->padding[i], op.getCountIncludePad());
      auto type = RankedTensorType::get({out}, rewriter.getI64Type());
      divisors[i] = arith::ConstantOp::create(
          rewriter, loc, DenseIntElementsAttr::get(type, ArrayRef(values)));
    }
    MLIRContext *ctx = rewriter.getContext();
    Value empty = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                          elementType);
    SmallVector<AffineMap> maps = {
        rewriter.getMultiDimIdentityMap(4),
        AffineMap::get(4, 0, {rewriter.getAffineDimExpr(2)}, ctx),
        AffineMap::get(4, 0, {rewriter.getAffineDimExpr(3)}, ctx),
        rewriter.getMultiDimIdentityMap(4)};
    SmallVector<utils::IteratorType> iterators(4,
                                               utils::IteratorType::parallel);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{resultType},
            ValueRange{sum, divisors[0], divisors[1]}, ValueRange{empty}, maps,
            iterators,
            [&](OpBuilder &b, Location nloc, ValueRange args) {
              Value count = arith::MulIOp::create(b, nloc, args[1], args[2]);
              Value divisor = arith::SIToFPOp::create(b, nloc, accType, count);
              Value mean = arith::DivFOp::create(b, nloc, args[0], divisor);
              linalg::YieldOp::create(b, nloc,
                                      castScalar(b, nloc, mean, elementType));
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Upsampling
//===----------------------------------------------------------------------===//

/// kiln.upsample2d -> linalg.generic: nearest through an affine indexing map,
/// bilinear through per-dim tap tables and tensor.extract.
struct Upsample2dOpLowering : FloatConvLowering<Upsample2dOp> {
  using FloatConvLowering::FloatConvLowering;

  LogicalResult
  rewriteNonEmpty(Upsample2dOp op, OpAdaptor adaptor,
                  RankedTensorType resultType, FloatType elementType,
                  ConversionPatternRewriter &rewriter) const override {
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    if (inputType.getRank() != 4 || resultType.getRank() != 4 ||
        inputType.getDimSize(2) < 1 || inputType.getDimSize(3) < 1)
      return rewriter.notifyMatchFailure(op, "unsupported shape");
    if (getOversizedTableDim(op))
      return rewriter.notifyMatchFailure(op, "spatial size too large");

    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value input = adaptor.getInput();
    Value empty = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                          elementType);
    SmallVector<utils::IteratorType> iterators(4,
                                               utils::IteratorType::parallel);
    auto d = [&](int64_t i) { return rewriter.getAffineDimExpr(i); };

    if (op.getMode() == UpsampleMode::nearest) {
      // Read input index floor(dst * in / out) through an affine map, unless
      // PyTorch's float32 scale rounds some index down (then gather through
      // a table of PyTorch's indices).
      SmallVector<AffineExpr> exprs = {d(0), d(1)};
      SmallVector<SmallVector<int64_t>> tables;
      bool exact = true;
      for (int64_t i = 0; i < 2; ++i) {
        int64_t in = inputType.getDimSize(2 + i);
        int64_t out = resultType.getDimSize(2 + i);
        exprs.push_back((d(2 + i) * in).floorDiv(out));
        tables.push_back(getNearestIndices(in, out));
        for (int64_t dst = 0; dst < out; ++dst)
          exact &= tables.back()[dst] == dst * in / out;
      }
      if (exact) {
        SmallVector<AffineMap> maps = {AffineMap::get(4, 0, exprs, ctx),
                                       rewriter.getMultiDimIdentityMap(4)};
        Value result =
            linalg::GenericOp::create(
                rewriter, loc, TypeRange{resultType}, ValueRange{input},
                ValueRange{empty}, maps, iterators,
                [&](OpBuilder &b, Location nloc, ValueRange args) {
                  linalg::YieldOp::create(b, nloc, args[0]);
                })
                .getResult(0);
        rewriter.replaceOp(op, result);
        return success();
      }
      SmallVector<Value> indexTables;
      for (int64_t i = 0; i < 2; ++i) {
        auto type = RankedTensorType::get(
            {static_cast<int64_t>(tables[i].size())}, rewriter.getI64Type());
        indexTables.push_back(arith::ConstantOp::create(
            rewriter, loc,
            DenseIntElementsAttr::get(type, ArrayRef(tables[i]))));
      }
      SmallVector<AffineMap> maps = {AffineMap::get(4, 0, {d(2)}, ctx),
                                     AffineMap::get(4, 0, {d(3)}, ctx),
                                     rewriter.getMultiDimIdentityMap(4)};
      Value result =
          linalg::GenericOp::create(
              rewriter, loc, TypeRange{resultType}, indexTables,
              ValueRange{empty}, maps, iterators,
              [&](OpBuilder &b, Location nloc, ValueRange args) {
                Value n = linalg::IndexOp::create(b, nloc, 0);
                Value c = linalg::IndexOp::create(b, nloc, 1);
                Value h = arith::IndexCastOp::create(b, nloc, b.getIndexType(),
                                                     args[0]);
                Value w = arith::IndexCastOp::create(b, nloc, b.getIndexType(),
                                                     args[1]);
                Value x = tensor::ExtractOp::create(b, nloc, input,
                                                    ValueRange{n, c, h, w});
                linalg::YieldOp::create(b, nloc, x);
              })
              .getResult(0);
      rewriter.replaceOp(op, result);
      return success();
    }
    if (op.getMode() != UpsampleMode::bilinear)
      return rewriter.notifyMatchFailure(op, "unsupported mode");

    // Tables per dim: index0, index1 (i64), lambda0, lambda1 (compute type).
    FloatType computeType = getAccumulatorType(elementType);
    bool alignCorners = op.getAlignCorners();
    SmallVector<Value> tables;
    SmallVector<AffineMap> maps;
    for (int64_t i = 0; i < 2; ++i) {
      int64_t in = inputType.getDimSize(2 + i);
      int64_t out = resultType.getDimSize(2 + i);
      LinearTaps taps =
          getLinearTaps(in, out, alignCorners, elementType.isF64());
      auto indexType = RankedTensorType::get({out}, rewriter.getI64Type());
      auto weightType = RankedTensorType::get({out}, computeType);
      auto floats = [&](ArrayRef<double> values) {
        SmallVector<APFloat> result;
        for (double v : values) {
          APFloat value(v);
          bool losesInfo;
          value.convert(computeType.getFloatSemantics(),
                        APFloat::rmNearestTiesToEven, &losesInfo);
          result.push_back(value);
        }
        return DenseElementsAttr::get(weightType, result);
      };
      tables.push_back(arith::ConstantOp::create(
          rewriter, loc,
          DenseIntElementsAttr::get(indexType, ArrayRef(taps.index0))));
      tables.push_back(arith::ConstantOp::create(
          rewriter, loc,
          DenseIntElementsAttr::get(indexType, ArrayRef(taps.index1))));
      tables.push_back(
          arith::ConstantOp::create(rewriter, loc, floats(taps.lambda0)));
      tables.push_back(
          arith::ConstantOp::create(rewriter, loc, floats(taps.lambda1)));
      maps.append(4, AffineMap::get(4, 0, {d(2 + i)}, ctx));
    }
    maps.push_back(rewriter.getMultiDimIdentityMap(4));
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{resultType}, tables, ValueRange{empty},
            maps, iterators,
            [&](OpBuilder &b, Location nloc, ValueRange args) {
              Value n = linalg::IndexOp::create(b, nloc, 0);
              Value c = linalg::IndexOp::create(b, nloc, 1);
              auto toIndex = [&](Value v) -> Value {
                return arith::IndexCastOp::create(b, nloc, b.getIndexType(), v);
              };
              Value h0 = toIndex(args[0]), h1 = toIndex(args[1]);
              Value w0 = toIndex(args[4]), w1 = toIndex(args[5]);
              Value hl0 = args[2], hl1 = args[3], wl0 = args[6], wl1 = args[7];
              auto at = [&](Value h, Value w) {
                Value x = tensor::ExtractOp::create(b, nloc, input,
                                                    ValueRange{n, c, h, w});
                return castScalar(b, nloc, x, computeType);
              };
              // PyTorch's order: hl0 * (wl0 * x00 + wl1 * x01)
              //                + hl1 * (wl0 * x10 + wl1 * x11)
              auto row = [&](Value h) -> Value {
                Value a = arith::MulFOp::create(b, nloc, wl0, at(h, w0));
                Value bb = arith::MulFOp::create(b, nloc, wl1, at(h, w1));
                return arith::AddFOp::create(b, nloc, a, bb);
              };
              Value top = arith::MulFOp::create(b, nloc, hl0, row(h0));
              Value bottom = arith::MulFOp::create(b, nloc, hl1, row(h1));
              Value sum = arith::AddFOp::create(b, nloc, top, bottom);
              linalg::YieldOp::create(b, nloc,
                                      castScalar(b, nloc, sum, elementType));
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::kiln::populateConvPatterns(RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<ConvNdOpLowering<Conv1dOp>, ConvNdOpLowering<Conv2dOp>,
               ConvNdOpLowering<Conv3dOp>, ConvTranspose1dOpLowering,
               MaxPool2dOpLowering, AvgPool2dOpLowering, Upsample2dOpLowering>(
      context);
}
