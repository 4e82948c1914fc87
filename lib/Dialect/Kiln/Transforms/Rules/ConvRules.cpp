//===- ConvRules.cpp - Backward rules of convolution, pooling, resizing ---===//
//
// Every adjoint here is built from kiln ops that have rules themselves
// (convolutions, slice, pad, reshape, transpose, permute, index_select,
// matmul, elementwise ops, constants), so the pass can differentiate its own
// output:
//
// - convNd, input: a stride-1 convolution of the cotangent, spread `stride`
//   apart and padded by `dilation * (K - 1) - padding` (cropped where that is
//   negative), with the kernel flipped and its channel roles swapped per
//   group.
// - convNd, weight: a convolution of the input (channels as the batch,
//   groups x batch as the channels) with the cotangent as the kernel, stride
//   and dilation exchanged, cropped to the kernel size.
// - conv_transpose1d is the adjoint of conv1d: its input adjoint is a conv1d
//   of the cotangent and its weight adjoint the conv1d weight adjoint with
//   the roles of input and cotangent exchanged.
// - avg_pool2d: the cotangent divided by the window divisors, then the
//   convNd input adjoint with a kernel of ones (one channel, N x C batch).
// - max_pool2d: one slice of the NaN padded input per window tap; a tap
//   takes the cotangent where it equals the window's maximum and no earlier
//   tap (row-major) did, as PyTorch routes it to the first maximum, or,
//   in a window holding NaN, where it is the last NaN, as PyTorch's kernels
//   (`val > max || isnan(val)`) do. Shares interleave back when the windows
//   tile the input (stride == kernel).
// - upsample2d: linear in its input, y = A_H x A_W^T per image with
//   constant interpolation matrices from KilnConvTables.h, so the adjoint is
//   A_H^T g A_W (two matmuls).
// - unfold: each window position's slice of the cotangent is spread `step`
//   apart along `dim` and padded into place; the positions add up.
//
// See docs/Autodiff.md for the costs of these choices.
//
//===----------------------------------------------------------------------===//

#include "Rules.h"

#include "kiln/Dialect/Kiln/IR/KilnConvTables.h"

#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/APFloat.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::autodiff;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static ArrayRef<int64_t> getShape(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

static bool hasNoElements(Value value) {
  return cast<RankedTensorType>(value.getType()).getNumElements() == 0;
}

/// Spreads `value` along each dim `dims[i]` so that consecutive elements lie
/// `strides[i]` apart, with zeros in between: a dim of size n becomes
/// (n - 1) * stride + 1. Built like the slice rule: unsqueeze, pad the new
/// dim to the stride, merge, trim.
static Value spread(OpBuilder &b, Location loc, Value value,
                    ArrayRef<int64_t> dims, ArrayRef<int64_t> strides) {
  for (auto [d, s] : llvm::zip_equal(dims, strides)) {
    SmallVector<int64_t> shape(getShape(value));
    int64_t n = shape[d], rank = shape.size();
    if (s == 1 || n <= 1)
      continue;
    Value u = UnsqueezeOp::create(b, loc, value, d + 1);
    SmallVector<int64_t> low(rank + 1, 0), high(rank + 1, 0);
    high[d + 1] = s - 1;
    Value p = PadOp::create(b, loc, u, low, high, llvm::APFloat(0.0));
    SmallVector<int64_t> merged(shape);
    merged[d] = n * s;
    Value m = reshapeTo(b, loc, p, merged);
    SmallVector<int64_t> starts(rank, 0), stops(merged), steps(rank, 1);
    stops[d] = (n - 1) * s + 1;
    value = SliceOp::create(b, loc, m, starts, stops, steps);
  }
  return value;
}

/// Adds `low[d]` zeros before and `high[d]` zeros after each dim `d`; a
/// negative amount removes that many elements instead.
static Value padOrCrop(OpBuilder &b, Location loc, Value value,
                       ArrayRef<int64_t> low, ArrayRef<int64_t> high) {
  ArrayRef<int64_t> shape = getShape(value);
  int64_t rank = shape.size();
  SmallVector<int64_t> starts(rank), stops(rank), steps(rank, 1), padLow(rank),
      padHigh(rank);
  bool crop = false, pad = false;
  for (int64_t d = 0; d < rank; ++d) {
    starts[d] = std::max<int64_t>(-low[d], 0);
    stops[d] = shape[d] - std::max<int64_t>(-high[d], 0);
    padLow[d] = std::max<int64_t>(low[d], 0);
    padHigh[d] = std::max<int64_t>(high[d], 0);
    crop |= low[d] < 0 || high[d] < 0;
    pad |= low[d] > 0 || high[d] > 0;
  }
  if (crop)
    value = SliceOp::create(b, loc, value, starts, stops, steps);
  if (pad)
    value = PadOp::create(b, loc, value, padLow, padHigh, llvm::APFloat(0.0));
  return value;
}

/// A convolution without bias over the trailing `getShape(input).size() - 2`
/// spatial dims, with no padding unless `padding` is given.
static Value createConv(OpBuilder &b, Location loc, Value input, Value weight,
                        ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
                        ArrayRef<int64_t> dilation, int64_t groups) {
  switch (getShape(input).size() - 2) {
  case 1:
    return Conv1dOp::create(b, loc, input, weight, Value(), stride, padding,
                            dilation, groups);
  case 2:
    return Conv2dOp::create(b, loc, input, weight, Value(), stride, padding,
                            dilation, groups);
  default:
    return Conv3dOp::create(b, loc, input, weight, Value(), stride, padding,
                            dilation, groups);
  }
}

/// The most elements of a constant that a rule builds from a shape (a
/// flip's index list, the average-pooling divisors, an upsampling matrix),
/// as the CPU lowering limits its tables: a larger shape is an error rather
/// than a gigantic constant that exhausts memory.
static constexpr int64_t kMaxConstantElements = int64_t(1) << 24;

/// Fails with an error on `op` when `what`, a constant of `rows` x `cols`
/// elements, would hold more than kMaxConstantElements.
static LogicalResult checkConstantSize(Operation *op, StringRef what,
                                       int64_t rows, int64_t cols) {
  if (rows <= 0 || cols <= 0 || rows <= kMaxConstantElements / cols)
    return success();
  return op->emitError("cannot differentiate '")
         << op->getName() << "': " << what << " would be a constant of " << rows
         << " x " << cols << " elements, more than " << kMaxConstantElements;
}

/// The most taps (kernel positions of a max pool, window elements of an
/// unfold) whose slices a rule unrolls into ops.
static constexpr int64_t kMaxUnrolledTaps = int64_t(1) << 16;

/// Fails with an error on `op` when its rule would unroll `rows` x `cols`
/// taps, more than kMaxUnrolledTaps.
static LogicalResult checkUnrolledTaps(Operation *op, int64_t rows,
                                       int64_t cols) {
  if (rows <= 0 || cols <= 0 || rows <= kMaxUnrolledTaps / cols)
    return success();
  return op->emitError("cannot differentiate '")
         << op->getName() << "': its rule would unroll " << rows << " x "
         << cols << " taps, more than " << kMaxUnrolledTaps;
}

/// Checks that the kernel flip of the input adjoint (an index list per
/// spatial dim of `weight`) stays within kMaxConstantElements.
static LogicalResult checkKernelFlipSize(Operation *op, Value weight) {
  for (int64_t size : getShape(weight).drop_front(2))
    if (failed(checkConstantSize(op, "the kernel flip", size, 1)))
      return failure();
  return success();
}

/// Reverses dim `dim` of `value` (an index_select with a constant
/// descending index list).
static Value reverseDim(OpBuilder &b, Location loc, Value value, int64_t dim) {
  int64_t n = getShape(value)[dim];
  if (n <= 1)
    return value;
  SmallVector<int64_t> indices;
  for (int64_t i = n - 1; i >= 0; --i)
    indices.push_back(i);
  auto type = RankedTensorType::get({n}, b.getI64Type());
  Value constant = ConstantOp::create(
      b, loc, DenseIntElementsAttr::get(type, ArrayRef(indices)));
  return IndexSelectOp::create(b, loc, value, constant, uint64_t(dim));
}

/// The dims 2, 3, ... of a batched tensor of rank `rank`.
static SmallVector<int64_t> spatialDims(int64_t rank) {
  SmallVector<int64_t> dims;
  for (int64_t d = 2; d < rank; ++d)
    dims.push_back(d);
  return dims;
}

/// The adjoint of the input of a convolution of `[N, Cin, S...]` inputs,
/// given the cotangent `grad` `[N, Cout, O...]` and `kernel`, the weight
/// already flipped and arranged `[Cin, Cout / groups, K...]`: a stride-1
/// convolution (dilation kept) of the cotangent spread `stride` apart and
/// padded so that output i reads every cotangent entry whose window tapped
/// input i. Outputs whose windows lie in the padding only are cropped away.
static Value convInputAdjoint(OpBuilder &b, Location loc, Value grad,
                              Value kernel, ArrayRef<int64_t> inputShape,
                              ArrayRef<int64_t> stride,
                              ArrayRef<int64_t> padding,
                              ArrayRef<int64_t> dilation, int64_t groups) {
  int64_t rank = inputShape.size();
  ArrayRef<int64_t> gradShape = getShape(grad);
  ArrayRef<int64_t> kernelShape = getShape(kernel);
  SmallVector<int64_t> dims = spatialDims(rank);
  Value spreadGrad = spread(b, loc, grad, dims, stride);
  SmallVector<int64_t> low(rank, 0), high(rank, 0), unitStride(rank - 2, 1),
      noPadding(rank - 2, 0);
  for (int64_t i = 0; i < rank - 2; ++i) {
    int64_t reach = dilation[i] * (kernelShape[2 + i] - 1);
    low[2 + i] = reach - padding[i];
    high[2 + i] =
        inputShape[2 + i] + padding[i] - (gradShape[2 + i] - 1) * stride[i] - 1;
  }
  Value padded = padOrCrop(b, loc, spreadGrad, low, high);
  return createConv(b, loc, padded, kernel, unitStride, noPadding, dilation,
                    groups);
}

/// `weight` `[Cout, Cin / groups, K...]` as the kernel of the input
/// adjoint: `[Cin, Cout / groups, K...]` (channel roles swapped within each
/// group) with every spatial dim reversed.
static Value swapAndFlipKernel(OpBuilder &b, Location loc, Value weight,
                               int64_t groups) {
  SmallVector<int64_t> shape(getShape(weight));
  int64_t rank = shape.size(), cout = shape[0], cinPerGroup = shape[1];
  Value kernel;
  if (groups == 1) {
    kernel = TransposeOp::create(b, loc, weight, uint64_t(0), uint64_t(1));
  } else {
    SmallVector<int64_t> split = {groups, cout / groups, cinPerGroup};
    split.append(shape.begin() + 2, shape.end());
    Value grouped = reshapeTo(b, loc, weight, split);
    Value swapped =
        TransposeOp::create(b, loc, grouped, uint64_t(1), uint64_t(2));
    SmallVector<int64_t> merged = {groups * cinPerGroup, cout / groups};
    merged.append(shape.begin() + 2, shape.end());
    kernel = reshapeTo(b, loc, swapped, merged);
  }
  for (int64_t d = 2; d < rank; ++d)
    kernel = reverseDim(b, loc, kernel, d);
  return kernel;
}

/// The adjoint of the weight `[Cout, Cin / groups, K...]` of a convolution of
/// `input` `[N, Cin, S...]` whose cotangent is `grad` `[N, Cout, O...]`:
///
///   dW[co, ci, k] = sum_{n, o} grad[n, co, o] * inputPadded[n, g Cin/G + ci,
///                                                      o * stride + k * dil]
///
/// is a grouped convolution of the input arranged `[Cin / G, G * N, S...]`
/// (batch = channel within the group) with the cotangent `[Cout, N, O...]`
/// as its kernel, stride and dilation exchanged, the original padding, and
/// its result `[Cin / G, Cout, K'...]` (K' >= K) cropped to K and transposed.
static Value convWeightAdjoint(OpBuilder &b, Location loc, Value input,
                               Value grad, ArrayRef<int64_t> kernelSize,
                               ArrayRef<int64_t> stride,
                               ArrayRef<int64_t> padding,
                               ArrayRef<int64_t> dilation, int64_t groups) {
  SmallVector<int64_t> inputShape(getShape(input));
  int64_t rank = inputShape.size(), n = inputShape[0], cin = inputShape[1];
  Value arranged;
  if (groups == 1) {
    arranged = TransposeOp::create(b, loc, input, uint64_t(0), uint64_t(1));
  } else {
    SmallVector<int64_t> split = {n, groups, cin / groups};
    split.append(inputShape.begin() + 2, inputShape.end());
    Value grouped = reshapeTo(b, loc, input, split);
    SmallVector<int64_t> permutation = {2, 1, 0};
    for (int64_t d = 3; d < rank + 1; ++d)
      permutation.push_back(d);
    Value permuted = PermuteOp::create(b, loc, grouped, permutation);
    SmallVector<int64_t> merged = {cin / groups, groups * n};
    merged.append(inputShape.begin() + 2, inputShape.end());
    arranged = reshapeTo(b, loc, permuted, merged);
  }
  Value kernel = TransposeOp::create(b, loc, grad, uint64_t(0), uint64_t(1));
  Value full = createConv(b, loc, arranged, kernel, /*stride=*/dilation,
                          padding, /*dilation=*/stride, groups);
  SmallVector<int64_t> fullShape(getShape(full));
  SmallVector<int64_t> starts(rank, 0), stops(fullShape), steps(rank, 1);
  bool crop = false;
  for (int64_t i = 0; i < rank - 2; ++i) {
    crop |= stops[2 + i] != kernelSize[i];
    stops[2 + i] = kernelSize[i];
  }
  if (crop)
    full = SliceOp::create(b, loc, full, starts, stops, steps);
  return TransposeOp::create(b, loc, full, uint64_t(0), uint64_t(1));
}

/// The cotangent summed over every dim but the channels: a bias adjoint.
static Value biasAdjoint(OpBuilder &b, Location loc, Value grad) {
  SmallVector<int64_t> axes = {0};
  axes.append(spatialDims(getShape(grad).size()));
  return SumOp::create(b, loc, grad, axes);
}

/// Sets every needed operand's adjoint to zeros: the rule of a convolution
/// or pool with an empty input or cotangent, which a convolution cannot
/// express (it would need channels or windows of size 0).
static void setZeroAdjoints(Operation *op, RuleContext &c) {
  for (auto [i, operand] : llvm::enumerate(op->getOperands()))
    if (c.needs(i))
      c.set(i, createSplat(c.b, c.loc, operand.getType(), 0.0));
}

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

template <typename OpT> static LogicalResult convRule(OpT op, RuleContext &c) {
  Value input = op.getInput(), weight = op.getWeight(), g = c.grad();
  if (hasNoElements(input) || hasNoElements(g)) {
    setZeroAdjoints(op, c);
    return success();
  }
  int64_t groups = op.getGroups();
  if (c.needs(0)) {
    if (failed(checkKernelFlipSize(op, weight)))
      return failure();
    Value kernel = swapAndFlipKernel(c.b, c.loc, weight, groups);
    c.set(0, convInputAdjoint(c.b, c.loc, g, kernel, getShape(input),
                              op.getStride(), op.getPadding(), op.getDilation(),
                              groups));
  }
  if (c.needs(1))
    c.set(1, convWeightAdjoint(c.b, c.loc, input, g,
                               getShape(weight).drop_front(2), op.getStride(),
                               op.getPadding(), op.getDilation(), groups));
  if (op.getBias() && c.needs(2))
    c.set(2, biasAdjoint(c.b, c.loc, g));
  return success();
}

static LogicalResult convTranspose1dRule(ConvTranspose1dOp op, RuleContext &c) {
  // conv_transpose1d(x, w) is the adjoint of conv1d(., w) with the same
  // stride, padding, dilation and groups (w read as [Cout', Cin' / G, K] =
  // [Cin, Cout / G, K]); output_padding only appends outputs that conv1d
  // reads past its end, so the conv1d results are cropped to x's length.
  Value input = op.getInput(), weight = op.getWeight(), g = c.grad();
  if (hasNoElements(input) || hasNoElements(g)) {
    setZeroAdjoints(op, c);
    return success();
  }
  int64_t groups = op.getGroups();
  int64_t length = getShape(input)[2];
  if (c.needs(0)) {
    Value dx = createConv(c.b, c.loc, g, weight, op.getStride(),
                          op.getPadding(), op.getDilation(), groups);
    SmallVector<int64_t> low(3, 0), high(3, 0);
    high[2] = length - getShape(dx)[2];
    c.set(0, padOrCrop(c.b, c.loc, dx, low, high));
  }
  if (c.needs(1))
    c.set(1, convWeightAdjoint(c.b, c.loc, /*input=*/g, /*grad=*/input,
                               getShape(weight).drop_front(2), op.getStride(),
                               op.getPadding(), op.getDilation(), groups));
  if (op.getBias() && c.needs(2))
    c.set(2, biasAdjoint(c.b, c.loc, g));
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// A constant of `type` (a ranked float tensor) holding `values`.
static Value createFloatConstant(OpBuilder &b, Location loc,
                                 RankedTensorType type,
                                 ArrayRef<double> values) {
  auto elementType = cast<FloatType>(type.getElementType());
  SmallVector<APFloat> elements;
  for (double v : values) {
    APFloat value(v);
    bool losesInfo;
    value.convert(elementType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
    elements.push_back(value);
  }
  return ConstantOp::create(b, loc, DenseElementsAttr::get(type, elements));
}

static LogicalResult avgPool2dRule(AvgPool2dOp op, RuleContext &c) {
  Value input = op.getInput(), g = c.grad();
  if (hasNoElements(input) || hasNoElements(g)) {
    setZeroAdjoints(op, c);
    return success();
  }
  auto inputType = cast<RankedTensorType>(input.getType());
  ArrayRef<int64_t> shape = inputType.getShape(), gradShape = getShape(g);
  ArrayRef<int64_t> kernel = op.getKernelSize();
  ArrayRef<int64_t> stride = op.getStride().value_or(kernel);
  ArrayRef<int64_t> padding = op.getPadding();
  // g / (divH[h] * divW[w]), the divisors the forward used.
  if (failed(checkConstantSize(op, "the divisor table", gradShape[2],
                               gradShape[3])))
    return failure();
  SmallVector<int64_t> divisors[2];
  for (int64_t i = 0; i < 2; ++i)
    divisors[i] =
        getAvgPoolDivisors(shape[2 + i], gradShape[2 + i], kernel[i], stride[i],
                           padding[i], op.getCountIncludePad());
  SmallVector<double> table;
  for (int64_t h : divisors[0])
    for (int64_t w : divisors[1])
      table.push_back(double(h * w));
  Type et = inputType.getElementType();
  Value divisor = createFloatConstant(
      c.b, c.loc, RankedTensorType::get(gradShape.drop_front(2), et), table);
  Value scaled = div(c.b, c.loc, g, divisor);
  // Every channel of every image pooled alike: the input adjoint of a
  // one-channel convolution with a kernel of ones over N x C images.
  int64_t images = shape[0] * shape[1];
  Value flat =
      reshapeTo(c.b, c.loc, scaled, {images, 1, gradShape[2], gradShape[3]});
  Value ones = createSplat(
      c.b, c.loc, RankedTensorType::get({1, 1, kernel[0], kernel[1]}, et), 1.0);
  SmallVector<int64_t> flatShape = {images, 1, shape[2], shape[3]};
  SmallVector<int64_t> unitDilation = {1, 1};
  Value dx = convInputAdjoint(c.b, c.loc, flat, ones, flatShape, stride,
                              padding, unitDilation, /*groups=*/1);
  c.set(0, reshapeTo(c.b, c.loc, dx, shape));
  return success();
}

/// Places the per-tap shares of a max_pool2d adjoint, `shares[kh * KW + kw]`
/// of shape [N, C, Ho, Wo], into the input's shape when the windows tile the
/// padded input (stride == kernel, dilation 1): padded row o * KH + kh of
/// the result is row o of tap kh's shares, so the taps interleave through
/// concats and one reshape, then the padding is cropped (and rows no window
/// reads are padded with zeros).
static Value interleaveTaps(OpBuilder &b, Location loc, ArrayRef<Value> shares,
                            ArrayRef<int64_t> kernel, ArrayRef<int64_t> padding,
                            ArrayRef<int64_t> inputShape) {
  SmallVector<int64_t> outShape(getShape(shares.front()));
  SmallVector<Value> rows;
  for (int64_t kh = 0; kh < kernel[0]; ++kh) {
    SmallVector<Value> columns;
    for (int64_t kw = 0; kw < kernel[1]; ++kw)
      columns.push_back(UnsqueezeOp::create(b, loc, shares[kh * kernel[1] + kw],
                                            uint64_t(4)));
    Value row = columns.size() == 1
                    ? columns.front()
                    : Value(ConcatOp::create(b, loc, columns, uint64_t(4)));
    rows.push_back(UnsqueezeOp::create(b, loc, row, uint64_t(3)));
  }
  // [N, C, Ho, KH, Wo, KW] -> [N, C, Ho * KH, Wo * KW]
  Value all = rows.size() == 1
                  ? rows.front()
                  : Value(ConcatOp::create(b, loc, rows, uint64_t(3)));
  Value merged = reshapeTo(b, loc, all,
                           {outShape[0], outShape[1], outShape[2] * kernel[0],
                            outShape[3] * kernel[1]});
  SmallVector<int64_t> low(4, 0), high(4, 0);
  for (int64_t i = 0; i < 2; ++i) {
    low[2 + i] = -padding[i];
    high[2 + i] = inputShape[2 + i] + padding[i] - outShape[2 + i] * kernel[i];
  }
  return padOrCrop(b, loc, merged, low, high);
}

/// Returns where `hit` (0/1) holds and `taken` (0/1, null for none yet)
/// does not, and, unless this is the `last` hit of the chain, adds `hit` to
/// `taken`.
static Value firstUntaken(RuleContext &c, Value hit, Value &taken, bool last) {
  if (!taken) {
    taken = hit;
    return hit;
  }
  Type et = getElementTypeOrSelf(hit.getType());
  Value free = sub(c.b, c.loc, c.scalar(et, 1.0), taken);
  Value first = mul(c.b, c.loc, hit, free);
  if (!last)
    taken = MaximumOp::create(c.b, c.loc, taken, hit);
  return first;
}

static LogicalResult maxPool2dRule(MaxPool2dOp op, RuleContext &c) {
  // For each tap (kh, kw) in row-major order, the strided slice of the
  // padded input that the tap reads in every window; the tap takes the
  // cotangent where it equals the window maximum (the forward result) and
  // no earlier tap has, so ties go to the first maximum as in PyTorch. The
  // padding is NaN, which equals nothing: a padding tap never takes the
  // cotangent, even where the maximum is -inf (the forward pads with -inf,
  // and PyTorch gives such a window's cotangent to its first input).
  // A window holding a NaN input has a NaN maximum (the forward propagates
  // NaN), which nothing equals either: there the cotangent goes to the last
  // NaN input in row-major order, as PyTorch's CPU and CUDA kernels keep
  // the last element with `val > max || isnan(val)`. The NaN taps are read
  // from the input padded with zeros, so the padding is never one. Both
  // routes cannot fire in one window, so a tap's share is their sum. The
  // shares go back to their inputs by interleaving when the windows tile
  // the input, and otherwise each is spread `stride` apart and padded into
  // place.
  Value input = op.getInput(), result = op.getResult(), g = c.grad();
  if (hasNoElements(input) || hasNoElements(g)) {
    setZeroAdjoints(op, c);
    return success();
  }
  auto inputType = cast<RankedTensorType>(input.getType());
  ArrayRef<int64_t> shape = inputType.getShape(), outShape = getShape(g);
  ArrayRef<int64_t> kernel = op.getKernelSize();
  ArrayRef<int64_t> stride = op.getStride().value_or(kernel);
  ArrayRef<int64_t> padding = op.getPadding(), dilation = op.getDilation();
  Type et = inputType.getElementType();
  if (failed(checkUnrolledTaps(op, kernel[0], kernel[1])))
    return failure();
  // The padded extent every tap reads: ceil_mode may let the last window
  // hang past the right padding.
  SmallVector<int64_t> low = {0, 0, padding[0], padding[1]};
  SmallVector<int64_t> high = low, paddedShape(shape);
  for (int64_t i = 0; i < 2; ++i) {
    int64_t readEnd =
        (outShape[2 + i] - 1) * stride[i] + dilation[i] * (kernel[i] - 1) + 1;
    high[2 + i] = std::max(padding[i], readEnd - shape[2 + i] - padding[i]);
    paddedShape[2 + i] += low[2 + i] + high[2 + i];
  }
  Value padded = input, zeroPadded = input;
  if (llvm::any_of(high, [](int64_t v) { return v != 0; })) {
    padded = PadOp::create(c.b, c.loc, input, low, high,
                           llvm::APFloat::getNaN(llvm::APFloat::IEEEdouble()));
    zeroPadded =
        PadOp::create(c.b, c.loc, input, low, high, llvm::APFloat(0.0));
  }
  SmallVector<int64_t> dims = {2, 3};
  Value taken;
  SmallVector<Value> wins, isNaN;
  SmallVector<SmallVector<int64_t>> offsets;
  for (int64_t kh = 0; kh < kernel[0]; ++kh) {
    for (int64_t kw = 0; kw < kernel[1]; ++kw) {
      SmallVector<int64_t> offset = {kh * dilation[0], kw * dilation[1]};
      SmallVector<int64_t> starts = {0, 0, offset[0], offset[1]};
      SmallVector<int64_t> stops(outShape),
          steps = {1, 1, stride[0], stride[1]};
      for (int64_t i = 0; i < 2; ++i)
        stops[2 + i] = offset[i] + (outShape[2 + i] - 1) * stride[i] + 1;
      Value tap = SliceOp::create(c.b, c.loc, padded, starts, stops, steps);
      Value isMax =
          boolToFloat(c.b, c.loc, EqOp::create(c.b, c.loc, tap, result), et);
      bool lastTap = kh == kernel[0] - 1 && kw == kernel[1] - 1;
      wins.push_back(firstUntaken(c, isMax, taken, lastTap));
      Value inputTap =
          zeroPadded == padded
              ? tap
              : SliceOp::create(c.b, c.loc, zeroPadded, starts, stops, steps);
      isNaN.push_back(boolToFloat(
          c.b, c.loc, NeOp::create(c.b, c.loc, inputTap, inputTap), et));
      offsets.push_back(offset);
    }
  }
  // The last NaN: the first one in reverse tap order.
  Value nanTaken;
  for (size_t t = wins.size(); t-- > 0;)
    wins[t] = add(c.b, c.loc, wins[t],
                  firstUntaken(c, isNaN[t], nanTaken, /*last=*/t == 0));
  SmallVector<Value> shares;
  for (Value win : wins)
    shares.push_back(mul(c.b, c.loc, g, win));
  if (stride == kernel &&
      llvm::all_of(dilation, [](int64_t d) { return d == 1; })) {
    c.set(0, interleaveTaps(c.b, c.loc, shares, kernel, padding, shape));
    return success();
  }
  Value sum;
  for (auto [share, offset] : llvm::zip_equal(shares, offsets)) {
    Value spreadShare = spread(c.b, c.loc, share, dims, stride);
    SmallVector<int64_t> placeLow(4, 0), placeHigh(4, 0);
    ArrayRef<int64_t> shareShape = getShape(spreadShare);
    for (int64_t i = 0; i < 2; ++i) {
      placeLow[2 + i] = offset[i];
      placeHigh[2 + i] = paddedShape[2 + i] - offset[i] - shareShape[2 + i];
    }
    Value placed = padOrCrop(c.b, c.loc, spreadShare, placeLow, placeHigh);
    sum = sum ? add(c.b, c.loc, sum, placed) : placed;
  }
  SmallVector<int64_t> cropLow(4, 0), cropHigh(4, 0);
  for (int64_t i = 0; i < 2; ++i) {
    cropLow[2 + i] = -low[2 + i];
    cropHigh[2 + i] = -high[2 + i];
  }
  c.set(0, padOrCrop(c.b, c.loc, sum, cropLow, cropHigh));
  return success();
}

//===----------------------------------------------------------------------===//
// Upsampling and sliding windows
//===----------------------------------------------------------------------===//

static LogicalResult upsample2dRule(Upsample2dOp op, RuleContext &c) {
  // Along each resized dim the forward is y = A x with A [out, in] holding
  // the nearest one-hot rows or the two bilinear weights of each output;
  // the adjoint applies A^T: over W as g A_W ([N, C, Ho, Wo] x [Wo, W]),
  // over H as A_H^T g ([H, Ho] x [N, C, Ho, W]).
  Value input = op.getInput(), g = c.grad();
  if (hasNoElements(input) || hasNoElements(g)) {
    setZeroAdjoints(op, c);
    return success();
  }
  auto inputType = cast<RankedTensorType>(input.getType());
  ArrayRef<int64_t> shape = inputType.getShape(), outShape = getShape(g);
  Type et = inputType.getElementType();
  bool bilinear = op.getMode() == UpsampleMode::bilinear;
  for (int64_t i = 0; i < 2; ++i)
    if (shape[2 + i] != outShape[2 + i] &&
        failed(checkConstantSize(op,
                                 i ? "the width matrix" : "the height matrix",
                                 outShape[2 + i], shape[2 + i])))
      return failure();
  /// The matrix A of dim 2 + i, as [in, out] when `transposed`.
  auto matrix = [&](int64_t i, bool transposed) {
    int64_t in = shape[2 + i], out = outShape[2 + i];
    SmallVector<double> values(in * out, 0.0);
    auto at = [&](int64_t dst, int64_t src) -> double & {
      return transposed ? values[src * out + dst] : values[dst * in + src];
    };
    if (bilinear) {
      LinearTaps taps = getLinearTaps(in, out, op.getAlignCorners(),
                                      /*inDouble=*/et.isF64());
      for (int64_t dst = 0; dst < out; ++dst) {
        at(dst, taps.index0[dst]) += taps.lambda0[dst];
        at(dst, taps.index1[dst]) += taps.lambda1[dst];
      }
    } else {
      SmallVector<int64_t> indices = getNearestIndices(in, out);
      for (int64_t dst = 0; dst < out; ++dst)
        at(dst, indices[dst]) = 1.0;
    }
    SmallVector<int64_t> matrixShape = transposed
                                           ? SmallVector<int64_t>{in, out}
                                           : SmallVector<int64_t>{out, in};
    return createFloatConstant(c.b, c.loc,
                               RankedTensorType::get(matrixShape, et), values);
  };
  Value dx = g;
  if (shape[3] != outShape[3])
    dx = MatmulOp::create(c.b, c.loc, dx, matrix(1, /*transposed=*/false));
  if (shape[2] != outShape[2])
    dx = MatmulOp::create(c.b, c.loc, matrix(0, /*transposed=*/true), dx);
  c.set(0, dx);
  return success();
}

static LogicalResult unfoldRule(UnfoldOp op, RuleContext &c) {
  // Window w's element j is input element w * step + j of `dim`: for each
  // j, the slice [..., j] of the cotangent is spread `step` apart along
  // `dim` and padded by j before it.
  Value input = op.getInput(), g = c.grad();
  if (hasNoElements(input) || hasNoElements(g)) {
    setZeroAdjoints(op, c);
    return success();
  }
  ArrayRef<int64_t> shape = getShape(input);
  SmallVector<int64_t> gradShape(getShape(g));
  int64_t dim = op.getDim(), size = op.getSize(), step = op.getStep();
  if (failed(checkUnrolledTaps(op, size, 1)))
    return failure();
  int64_t rank = gradShape.size();
  SmallVector<int64_t> windowsShape(gradShape.begin(), gradShape.end() - 1);
  Value sum;
  for (int64_t j = 0; j < size; ++j) {
    SmallVector<int64_t> starts(rank, 0), stops(gradShape), steps(rank, 1);
    starts[rank - 1] = j;
    stops[rank - 1] = j + 1;
    Value slice = SliceOp::create(c.b, c.loc, g, starts, stops, steps);
    Value windows = reshapeTo(c.b, c.loc, slice, windowsShape);
    Value spreadWindows = spread(c.b, c.loc, windows, {dim}, {step});
    SmallVector<int64_t> low(rank - 1, 0), high(rank - 1, 0);
    low[dim] = j;
    high[dim] = shape[dim] - j - getShape(spreadWindows)[dim];
    Value placed = padOrCrop(c.b, c.loc, spreadWindows, low, high);
    sum = sum ? add(c.b, c.loc, sum, placed) : placed;
  }
  c.set(0, sum);
  return success();
}

void mlir::kiln::autodiff::registerConvRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, KilnDialect *) {
    Conv1dOp::attachInterface<RuleModel<Conv1dOp, convRule<Conv1dOp>>>(
        *context);
    Conv2dOp::attachInterface<RuleModel<Conv2dOp, convRule<Conv2dOp>>>(
        *context);
    Conv3dOp::attachInterface<RuleModel<Conv3dOp, convRule<Conv3dOp>>>(
        *context);
    ConvTranspose1dOp::attachInterface<
        RuleModel<ConvTranspose1dOp, convTranspose1dRule>>(*context);
    AvgPool2dOp::attachInterface<RuleModel<AvgPool2dOp, avgPool2dRule>>(
        *context);
    MaxPool2dOp::attachInterface<RuleModel<MaxPool2dOp, maxPool2dRule>>(
        *context);
    Upsample2dOp::attachInterface<RuleModel<Upsample2dOp, upsample2dRule>>(
        *context);
    UnfoldOp::attachInterface<RuleModel<UnfoldOp, unfoldRule>>(*context);
  });
}
