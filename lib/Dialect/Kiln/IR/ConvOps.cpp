//===- ConvOps.cpp - Convolution, pooling and upsampling kiln ops ---------===//
//
// One helper per op kind computes the result type and checks everything it
// depends on (ranks, attribute lengths and signs, output sizes, overflow).
// verify() runs it first, reporting op errors, then checks the rest
// (channels, groups, bias, element types, PyTorch's padding rules);
// inferReturnTypes runs it on its own, reporting at its optional location,
// and so never crashes on operands or attributes verify() would reject.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnConvTables.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::kiln;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

namespace {
/// Reports the diagnostics of the shared shape checks: as op errors when
/// called from verify(), at an optional location when called from type
/// inference (which reports nothing without a location).
struct ErrorEmitter {
  Operation *op = nullptr;
  std::optional<Location> loc;

  template <typename... Args> LogicalResult operator()(Args &&...args) const {
    if (op)
      return op->emitOpError().append(std::forward<Args>(args)...);
    return emitOptionalError(loc, std::forward<Args>(args)...);
  }
};
} // namespace

/// Overflow-checked int64 arithmetic on optional values: the result is
/// std::nullopt when an operand is or when the operation overflows.
static std::optional<int64_t> add(std::optional<int64_t> lhs,
                                  std::optional<int64_t> rhs) {
  if (!lhs || !rhs)
    return std::nullopt;
  return llvm::checkedAdd(*lhs, *rhs);
}
static std::optional<int64_t> sub(std::optional<int64_t> lhs,
                                  std::optional<int64_t> rhs) {
  if (!lhs || !rhs)
    return std::nullopt;
  return llvm::checkedSub(*lhs, *rhs);
}
static std::optional<int64_t> mul(std::optional<int64_t> lhs,
                                  std::optional<int64_t> rhs) {
  if (!lhs || !rhs)
    return std::nullopt;
  return llvm::checkedMul(*lhs, *rhs);
}

/// Returns `adaptor` with every absent default-valued attribute set to its
/// default. Builders run type inference before the op exists, on properties
/// that may lack them.
template <typename OpTy>
static typename OpTy::Adaptor withDefaults(MLIRContext *context,
                                           typename OpTy::Adaptor adaptor) {
  typename OpTy::Properties properties = adaptor.getProperties();
  OpTy::populateDefaultProperties(
      OperationName(OpTy::getOperationName(), context), properties);
  return typename OpTy::Adaptor(adaptor.getOperands(), adaptor.getAttributes(),
                                OpaqueProperties(&properties));
}

/// Returns the ranked tensor type of `value`, or null when it has none.
static RankedTensorType getRankedType(Value value) {
  return value ? dyn_cast<RankedTensorType>(value.getType()) : nullptr;
}

/// Checks that the ranked tensor `type` named `name` is [N, C, spatial...]
/// with `spatialRank` spatial dims.
static LogicalResult verifyBatchedRank(const ErrorEmitter &emit,
                                       RankedTensorType type, StringRef name,
                                       StringRef layout, int64_t spatialRank) {
  if (!type)
    return emit(name, " must be a ranked tensor");
  if (type.getRank() != spatialRank + 2)
    return emit(name, " must have rank ", spatialRank + 2, " (", layout,
                "), got rank ", type.getRank());
  return success();
}

/// Checks that the per-spatial-dim attribute `name` has `spatialRank` entries,
/// each at least `minValue`.
static LogicalResult verifyPerDimAttr(const ErrorEmitter &emit, StringRef name,
                                      ArrayRef<int64_t> values,
                                      int64_t spatialRank, int64_t minValue) {
  if (static_cast<int64_t>(values.size()) != spatialRank)
    return emit("'", name, "' must have ", spatialRank, " entr",
                spatialRank == 1 ? "y" : "ies", ", one per spatial dim, got ",
                values.size());
  if (llvm::any_of(values, [&](int64_t v) { return v < minValue; }))
    return emit("'", name, "' entries must be ",
                minValue == 0 ? "non-negative" : "positive", ", got ",
                formatShape(values));
  return success();
}

/// Checks that the element type of the optional `other` operand named `name`
/// matches the input's.
static LogicalResult verifySameElementType(Operation *op, Value input,
                                           Value other, StringRef name) {
  if (!other)
    return success();
  Type expected = getElementTypeOrSelf(input.getType());
  Type actual = getElementTypeOrSelf(other.getType());
  if (actual != expected)
    return op->emitOpError()
           << name << " element type " << actual
           << " does not match input element type " << expected;
  return success();
}

/// Checks that the optional `bias` is `[channels]`.
static LogicalResult verifyBias(Operation *op, Value bias, int64_t channels) {
  if (!bias)
    return success();
  auto type = cast<ShapedType>(bias.getType());
  if (type.getRank() != 1 || type.getDimSize(0) != channels)
    return op->emitOpError() << "bias must have shape [" << channels
                             << "] (one entry per output channel), got "
                             << formatShape(type.getShape());
  return success();
}

//===----------------------------------------------------------------------===//
// Conv1dOp, Conv2dOp, Conv3dOp
//===----------------------------------------------------------------------===//

/// Infers the result of a convolution with `spatialRank` spatial dims from
/// its operands (input, weight and the optional bias) and attributes.
static LogicalResult inferConvNdResult(const ErrorEmitter &emit,
                                       int64_t spatialRank, ValueRange operands,
                                       ArrayRef<int64_t> stride,
                                       ArrayRef<int64_t> padding,
                                       ArrayRef<int64_t> dilation,
                                       SmallVectorImpl<Type> &inferred) {
  if (operands.size() < 2)
    return emit("expected input and weight operands");
  auto inputType = getRankedType(operands[0]);
  auto weightType = getRankedType(operands[1]);
  if (failed(verifyBatchedRank(emit, inputType, "input", "N, Cin and spatial",
                               spatialRank)) ||
      failed(verifyBatchedRank(emit, weightType, "weight",
                               "Cout, Cin / groups and kernel", spatialRank)) ||
      failed(verifyPerDimAttr(emit, "stride", stride, spatialRank, 1)) ||
      failed(verifyPerDimAttr(emit, "padding", padding, spatialRank, 0)) ||
      failed(verifyPerDimAttr(emit, "dilation", dilation, spatialRank, 1)))
    return failure();

  SmallVector<int64_t> shape = {inputType.getDimSize(0),
                                weightType.getDimSize(0)};
  for (int64_t dim = 0; dim < spatialRank; ++dim) {
    int64_t in = inputType.getDimSize(dim + 2);
    int64_t kernel = weightType.getDimSize(dim + 2);
    if (kernel < 1)
      return emit("kernel size of spatial dim ", dim, " must be positive, got ",
                  kernel);
    std::optional<int64_t> padded = add(in, mul(2, padding[dim]));
    std::optional<int64_t> dilatedKernel =
        add(mul(dilation[dim], kernel - 1), 1);
    std::optional<int64_t> span = sub(padded, dilatedKernel);
    if (!span)
      return emit("output size of spatial dim ", dim, " overflows");
    if (*span < 0)
      return emit("spatial dim ", dim, ": dilated kernel size ", *dilatedKernel,
                  " exceeds padded input size ", *padded);
    // 0 <= span < INT64_MAX (the dilated kernel is at least 1) and stride
    // >= 1, so this cannot overflow.
    shape.push_back(*span / stride[dim] + 1);
  }
  inferred.push_back(RankedTensorType::get(shape, inputType.getElementType()));
  return success();
}

/// Verifies a convolution with `spatialRank` spatial dims: what its result
/// type depends on, then the channel and group rules, the bias and the
/// element types.
static LogicalResult verifyConvNd(Operation *op, int64_t spatialRank,
                                  Value input, Value weight, Value bias,
                                  ArrayRef<int64_t> stride,
                                  ArrayRef<int64_t> padding,
                                  ArrayRef<int64_t> dilation, int64_t groups) {
  SmallVector<Type> inferred;
  if (failed(inferConvNdResult(ErrorEmitter{op}, spatialRank, op->getOperands(),
                               stride, padding, dilation, inferred)))
    return failure();
  if (groups < 1)
    return op->emitOpError() << "'groups' must be positive, got " << groups;
  auto inputType = cast<ShapedType>(input.getType());
  auto weightType = cast<ShapedType>(weight.getType());
  int64_t inChannels = inputType.getDimSize(1);
  int64_t outChannels = weightType.getDimSize(0);
  if (inChannels % groups != 0)
    return op->emitOpError() << "input channels " << inChannels
                             << " are not divisible by groups " << groups;
  if (outChannels % groups != 0)
    return op->emitOpError()
           << "output channels " << outChannels
           << " (weight dim 0) are not divisible by groups " << groups;
  if (weightType.getDimSize(1) != inChannels / groups)
    return op->emitOpError()
           << "weight dim 1 must be input channels / groups = " << inChannels
           << " / " << groups << " = " << inChannels / groups << ", got "
           << weightType.getDimSize(1);
  if (failed(verifyBias(op, bias, outChannels)) ||
      failed(verifySameElementType(op, input, weight, "weight")) ||
      failed(verifySameElementType(op, input, bias, "bias")))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// ConvTranspose1dOp
//===----------------------------------------------------------------------===//

/// Infers the result of conv_transpose1d from its operands and attributes.
static LogicalResult
inferConvTranspose1dResult(const ErrorEmitter &emit, ValueRange operands,
                           ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
                           ArrayRef<int64_t> outputPadding,
                           ArrayRef<int64_t> dilation, int64_t groups,
                           SmallVectorImpl<Type> &inferred) {
  if (operands.size() < 2)
    return emit("expected input and weight operands");
  auto inputType = getRankedType(operands[0]);
  auto weightType = getRankedType(operands[1]);
  if (failed(verifyBatchedRank(emit, inputType, "input", "N, Cin and L", 1)) ||
      failed(verifyBatchedRank(emit, weightType, "weight",
                               "Cin, Cout / groups and kernel", 1)) ||
      failed(verifyPerDimAttr(emit, "stride", stride, 1, 1)) ||
      failed(verifyPerDimAttr(emit, "padding", padding, 1, 0)) ||
      failed(verifyPerDimAttr(emit, "output_padding", outputPadding, 1, 0)) ||
      failed(verifyPerDimAttr(emit, "dilation", dilation, 1, 1)))
    return failure();
  if (groups < 1)
    return emit("'groups' must be positive, got ", groups);
  int64_t kernel = weightType.getDimSize(2);
  if (kernel < 1)
    return emit("kernel size of spatial dim 0 must be positive, got ", kernel);

  std::optional<int64_t> outChannels = mul(weightType.getDimSize(1), groups);
  // (L - 1) * stride - 2 * padding + dilation * (K - 1) + output_padding + 1
  std::optional<int64_t> length = add(
      add(sub(mul(inputType.getDimSize(2) - 1, stride[0]), mul(2, padding[0])),
          mul(dilation[0], kernel - 1)),
      add(outputPadding[0], 1));
  if (!outChannels || !length)
    return emit("result shape overflows");
  if (*length < 1)
    return emit("spatial dim 0 has output size ", *length,
                ", it must be at least 1");
  inferred.push_back(
      RankedTensorType::get({inputType.getDimSize(0), *outChannels, *length},
                            inputType.getElementType()));
  return success();
}

LogicalResult ConvTranspose1dOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  Adaptor full = withDefaults<ConvTranspose1dOp>(context, adaptor);
  return inferConvTranspose1dResult(
      ErrorEmitter{nullptr, loc}, full.getOperands(), full.getStride(),
      full.getPadding(), full.getOutputPadding(), full.getDilation(),
      full.getGroups(), inferredReturnTypes);
}

LogicalResult ConvTranspose1dOp::verify() {
  SmallVector<Type> inferred;
  if (failed(inferConvTranspose1dResult(ErrorEmitter{*this},
                                        (*this)->getOperands(), getStride(),
                                        getPadding(), getOutputPadding(),
                                        getDilation(), getGroups(), inferred)))
    return failure();
  int64_t outputPadding = getOutputPadding()[0];
  int64_t stride = getStride()[0];
  int64_t dilation = getDilation()[0];
  if (outputPadding >= stride && outputPadding >= dilation)
    return emitOpError() << "'output_padding' " << outputPadding
                         << " must be smaller than either 'stride' " << stride
                         << " or 'dilation' " << dilation;
  int64_t groups = getGroups();
  int64_t inChannels = getInput().getType().getDimSize(1);
  if (inChannels % groups != 0)
    return emitOpError() << "input channels " << inChannels
                         << " are not divisible by groups " << groups;
  if (getWeight().getType().getDimSize(0) != inChannels)
    return emitOpError() << "weight dim 0 must be input channels " << inChannels
                         << ", got " << getWeight().getType().getDimSize(0);
  auto resultType = cast<RankedTensorType>(inferred.front());
  if (failed(verifyBias(*this, getBias(), resultType.getDimSize(1))) ||
      failed(verifySameElementType(*this, getInput(), getWeight(), "weight")) ||
      failed(verifySameElementType(*this, getInput(), getBias(), "bias")))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// MaxPool2dOp, AvgPool2dOp
//===----------------------------------------------------------------------===//

/// Infers the result of a 2-d pooling op with PyTorch's output-size rule
/// (pooling_output_shape), ceil_mode included. `strideOrNone` defaults to the
/// kernel size.
static LogicalResult
inferPool2dResult(const ErrorEmitter &emit, ValueRange operands,
                  DenseI64ArrayAttr kernelSizeAttr,
                  std::optional<ArrayRef<int64_t>> strideOrNone,
                  ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation,
                  bool ceilMode, SmallVectorImpl<Type> &inferred) {
  if (operands.size() != 1)
    return emit("expected one input operand");
  if (!kernelSizeAttr)
    return emit("requires attribute 'kernel_size'");
  auto inputType = getRankedType(operands[0]);
  ArrayRef<int64_t> kernel = kernelSizeAttr.asArrayRef();
  ArrayRef<int64_t> stride = strideOrNone.value_or(kernel);
  if (failed(verifyBatchedRank(emit, inputType, "input", "N, C, H and W", 2)) ||
      failed(verifyPerDimAttr(emit, "kernel_size", kernel, 2, 1)) ||
      failed(verifyPerDimAttr(emit, "stride", stride, 2, 1)) ||
      failed(verifyPerDimAttr(emit, "padding", padding, 2, 0)) ||
      failed(verifyPerDimAttr(emit, "dilation", dilation, 2, 1)))
    return failure();

  SmallVector<int64_t> shape = {inputType.getDimSize(0),
                                inputType.getDimSize(1)};
  for (int64_t dim = 0; dim < 2; ++dim) {
    int64_t in = inputType.getDimSize(dim + 2);
    // in + 2 * pad - dilation * (k - 1) - 1 [+ stride - 1 in ceil mode]
    std::optional<int64_t> span =
        sub(add(in, mul(2, padding[dim])),
            add(mul(dilation[dim], kernel[dim] - 1), 1));
    if (ceilMode)
      span = add(span, stride[dim] - 1);
    std::optional<int64_t> size;
    if (span)
      size = add(llvm::divideFloorSigned(*span, stride[dim]), 1);
    // The last window must start inside the input or its left padding; an
    // overflowing start is past it. in + padding cannot overflow: span did not.
    if (ceilMode && size) {
      std::optional<int64_t> lastStart = mul(*size - 1, stride[dim]);
      if (!lastStart || *lastStart >= in + padding[dim])
        --*size;
    }
    if (!size)
      return emit("output size of spatial dim ", dim, " overflows");
    if (*size < 1)
      return emit("spatial dim ", dim, " has output size ", *size,
                  ", it must be at least 1");
    shape.push_back(*size);
  }
  inferred.push_back(RankedTensorType::get(shape, inputType.getElementType()));
  return success();
}

/// Verifies a 2-d pooling op: what its result type depends on, then
/// PyTorch's padding rule.
static LogicalResult verifyPool2d(Operation *op, DenseI64ArrayAttr kernelSize,
                                  std::optional<ArrayRef<int64_t>> stride,
                                  ArrayRef<int64_t> padding,
                                  ArrayRef<int64_t> dilation, bool ceilMode) {
  SmallVector<Type> inferred;
  if (failed(inferPool2dResult(ErrorEmitter{op}, op->getOperands(), kernelSize,
                               stride, padding, dilation, ceilMode, inferred)))
    return failure();
  for (auto [dim, k, pad] : llvm::enumerate(kernelSize.asArrayRef(), padding))
    if (pad > k / 2)
      return op->emitOpError()
             << "'padding' " << pad << " of spatial dim " << dim
             << " must be at most half of 'kernel_size' " << k;
  return success();
}

/// Folds a 2-d pooling op with a 1x1 window, stride 1 and no padding to its
/// input.
static OpFoldResult foldPool2d(Value input, ArrayRef<int64_t> kernel,
                               std::optional<ArrayRef<int64_t>> stride,
                               ArrayRef<int64_t> padding, Type resultType) {
  auto isOne = [](int64_t v) { return v == 1; };
  if (input.getType() != resultType || !llvm::all_of(kernel, isOne) ||
      !llvm::all_of(stride.value_or(kernel), isOne) ||
      !llvm::all_of(padding, [](int64_t v) { return v == 0; }))
    return {};
  return input;
}

//===----------------------------------------------------------------------===//
// Upsample2dOp
//===----------------------------------------------------------------------===//

/// Infers the result of upsample2d: the input with its spatial dims replaced
/// by `size`.
static LogicalResult inferUpsample2dResult(const ErrorEmitter &emit,
                                           ValueRange operands,
                                           DenseI64ArrayAttr sizeAttr,
                                           SmallVectorImpl<Type> &inferred) {
  if (operands.size() != 1)
    return emit("expected one input operand");
  if (!sizeAttr)
    return emit("requires attribute 'size'");
  auto inputType = getRankedType(operands[0]);
  if (failed(verifyBatchedRank(emit, inputType, "input", "N, C, H and W", 2)) ||
      failed(verifyPerDimAttr(emit, "size", sizeAttr.asArrayRef(), 2, 1)))
    return failure();
  inferred.push_back(
      RankedTensorType::get({inputType.getDimSize(0), inputType.getDimSize(1),
                             sizeAttr[0], sizeAttr[1]},
                            inputType.getElementType()));
  return success();
}

LogicalResult
Upsample2dOp::inferReturnTypes(MLIRContext *context,
                               std::optional<Location> loc, Adaptor adaptor,
                               SmallVectorImpl<Type> &inferredReturnTypes) {
  return inferUpsample2dResult(ErrorEmitter{nullptr, loc},
                               adaptor.getOperands(), adaptor.getSizeAttr(),
                               inferredReturnTypes);
}

LogicalResult Upsample2dOp::verify() {
  SmallVector<Type> inferred;
  if (failed(inferUpsample2dResult(ErrorEmitter{*this}, (*this)->getOperands(),
                                   getSizeAttr(), inferred)))
    return failure();
  if (getAlignCorners() && getMode() == UpsampleMode::nearest)
    return emitOpError() << "'align_corners' = true requires bilinear mode";
  ArrayRef<int64_t> shape = getInput().getType().getShape();
  if (shape[2] < 1 || shape[3] < 1)
    return emitOpError() << "input spatial dims must be at least 1, got "
                         << formatShape(shape.drop_front(2));
  return success();
}

OpFoldResult Upsample2dOp::fold(FoldAdaptor) {
  // Every mode maps output index i to input index i when sizes agree.
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// Per-index tables (KilnConvTables.h)
//===----------------------------------------------------------------------===//

SmallVector<int64_t> mlir::kiln::getAvgPoolDivisors(int64_t in, int64_t out,
                                                    int64_t kernel,
                                                    int64_t stride,
                                                    int64_t padding,
                                                    bool countIncludePad) {
  SmallVector<int64_t> divisors;
  for (int64_t o = 0; o < out; ++o) {
    int64_t start = o * stride - padding;
    int64_t end = std::min(start + kernel, in + padding);
    int64_t poolSize = end - start;
    start = std::max<int64_t>(start, 0);
    end = std::min(end, in);
    divisors.push_back(countIncludePad ? poolSize : end - start);
  }
  return divisors;
}

/// getLinearTaps in the opmath type `T`.
template <typename T>
static LinearTaps getLinearTapsIn(int64_t in, int64_t out, bool alignCorners) {
  LinearTaps taps;
  T scale;
  if (alignCorners)
    scale = out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  else
    scale = static_cast<T>(in) / static_cast<T>(out);
  for (int64_t dst = 0; dst < out; ++dst) {
    if (in == out) {
      taps.index0.push_back(dst);
      taps.index1.push_back(dst);
      taps.lambda0.push_back(1.0);
      taps.lambda1.push_back(0.0);
      continue;
    }
    T src;
    if (alignCorners) {
      src = scale * static_cast<T>(dst);
    } else {
      src = scale * (static_cast<T>(dst) + T(0.5)) - T(0.5);
      if (src < T(0))
        src = T(0);
    }
    int64_t i0 = std::min(static_cast<int64_t>(std::floor(src)), in - 1);
    int64_t i1 = i0 < in - 1 ? i0 + 1 : i0;
    T lambda1 = src - static_cast<T>(i0);
    T lambda0 = T(1) - lambda1;
    taps.index0.push_back(i0);
    taps.index1.push_back(i1);
    taps.lambda0.push_back(lambda0);
    taps.lambda1.push_back(lambda1);
  }
  return taps;
}

LinearTaps mlir::kiln::getLinearTaps(int64_t in, int64_t out, bool alignCorners,
                                     bool inDouble) {
  return inDouble ? getLinearTapsIn<double>(in, out, alignCorners)
                  : getLinearTapsIn<float>(in, out, alignCorners);
}

SmallVector<int64_t> mlir::kiln::getNearestIndices(int64_t in, int64_t out) {
  SmallVector<int64_t> indices;
  float scale = static_cast<float>(in) / static_cast<float>(out);
  for (int64_t dst = 0; dst < out; ++dst) {
    if (in == out)
      indices.push_back(dst);
    else if (out == 2 * in)
      indices.push_back(dst >> 1);
    else
      indices.push_back(std::min(
          static_cast<int64_t>(std::floor(static_cast<float>(dst) * scale)),
          in - 1));
  }
  return indices;
}

#define GET_OP_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnConvOps.cpp.inc"
