//===- TensorOps.cpp - Creation, layout and shape kiln ops ----------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::kiln;

#define GET_OP_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnTensorOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Starts an error: at the op in a verifier, at the inference's location
/// (or nowhere, OptionalDiagnostic) in type inference.
using EmitErrorFn = function_ref<OptionalDiagnostic()>;



/// Returns the type of `value` when it is a statically shaped ranked tensor;
/// otherwise emits an error naming the operand `name` and fails. Builders run
/// type inference before the operand constraints are ever verified.
static FailureOr<RankedTensorType>
getStaticTensorType(EmitErrorFn emitError, Value value, StringRef name) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape()) {
    emitError() << "'" << name << "' must be a statically shaped tensor, got "
                << value.getType();
    return failure();
  }
  return type;
}

/// Returns the product of `sizes`, or std::nullopt when it overflows int64.
static std::optional<int64_t> checkedProduct(ArrayRef<int64_t> sizes) {
  int64_t product = 1;
  for (int64_t size : sizes)
    if (llvm::MulOverflow(product, size, product))
      return std::nullopt;
  return product;
}

/// Checks that `list` has one entry per dim of a rank-`rank` tensor.
static LogicalResult verifyOnePerDim(EmitErrorFn emitError, StringRef name,
                                     ArrayRef<int64_t> list, int64_t rank) {
  if (static_cast<int64_t>(list.size()) != rank)
    return emitError() << "'" << name << "' must have " << rank
                       << " entries, one per dim, got " << list.size();
  return success();
}

/// Returns true when `permutation` is `0, 1, ..., n - 1`.
static bool isIdentityPermutation(ArrayRef<int64_t> permutation) {
  for (auto [index, entry] : llvm::enumerate(permutation))
    if (entry != static_cast<int64_t>(index))
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor adaptor) { return getValueAttr(); }

//===----------------------------------------------------------------------===//
// IotaOp
//===----------------------------------------------------------------------===//

LogicalResult IotaOp::verify() {
  return verifyAxes([&] { return emitOpError(); }, getAxisAttr().getInt(),
                    getType().getRank());
}

//===----------------------------------------------------------------------===//
// BroadcastToOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastToOp::verify() {
  RankedTensorType inputType = getInput().getType();
  RankedTensorType resultType = getType();
  if (inputType.getElementType() != resultType.getElementType())
    return emitOpError() << "element type " << resultType.getElementType()
                         << " of the result differs from element type "
                         << inputType.getElementType() << " of the input";
  if (!isBroadcastableTo(inputType.getShape(), resultType.getShape()))
    return emitOpError() << "input shape " << formatShape(inputType.getShape())
                         << " does not broadcast to result shape "
                         << formatShape(resultType.getShape());
  return success();
}

OpFoldResult BroadcastToOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // A splat broadcasts to a splat of the result type.
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getInput()))
    return SplatElementsAttr::get(getType(),
                                  splat.getSplatValue<Attribute>());
  return {};
}

/// broadcast_to(broadcast_to(x)) -> broadcast_to(x): broadcasting is
/// transitive, so x broadcasts to the outer result directly.
static LogicalResult collapseBroadcasts(BroadcastToOp op,
                                        PatternRewriter &rewriter) {
  auto inner = op.getInput().getDefiningOp<BroadcastToOp>();
  if (!inner)
    return failure();
  rewriter.replaceOpWithNewOp<BroadcastToOp>(op, op.getType(),
                                             inner.getInput());
  return success();
}

void BroadcastToOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                MLIRContext *context) {
  results.add(collapseBroadcasts);
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  RankedTensorType inputType = getInput().getType();
  RankedTensorType resultType = getType();
  if (inputType.getElementType() != resultType.getElementType())
    return emitOpError() << "element type " << resultType.getElementType()
                         << " of the result differs from element type "
                         << inputType.getElementType() << " of the input";
  // Kiln_AddressableTensors has checked that neither count overflows.
  int64_t inputCount = inputType.getNumElements();
  int64_t resultCount = resultType.getNumElements();
  if (inputCount != resultCount)
    return emitOpError() << "input shape " << formatShape(inputType.getShape())
                         << " has " << inputCount
                         << " elements but result shape "
                         << formatShape(resultType.getShape()) << " has "
                         << resultCount;
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // reshape(reshape(x)) -> reshape(x), or x when the types round-trip.
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    if (inner.getInput().getType() == getType())
      return inner.getInput();
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  // Dense constants keep their elements in row-major order.
  if (auto dense = dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput()))
    return dense.reshape(getType());
  return {};
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  auto emitError = optionalErrorAt(loc);
  FailureOr<RankedTensorType> type =
      getStaticTensorType(emitError, adaptor.getInput(), "input");
  if (failed(type))
    return failure();
  int64_t dim0 = adaptor.getDim0Attr().getInt();
  int64_t dim1 = adaptor.getDim1Attr().getInt();
  int64_t rank = type->getRank();
  if (failed(verifyAxes(emitError, dim0, rank, "dim0")) ||
      failed(verifyAxes(emitError, dim1, rank, "dim1")))
    return failure();
  SmallVector<int64_t> shape(type->getShape());
  std::swap(shape[dim0], shape[dim1]);
  inferredReturnTypes.push_back(type->clone(shape));
  return success();
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  uint64_t dim0 = getDim0(), dim1 = getDim1();
  if (dim0 == dim1)
    return getInput();
  // Swapping the same pair twice is the identity.
  if (auto inner = getInput().getDefiningOp<TransposeOp>()) {
    if ((inner.getDim0() == dim0 && inner.getDim1() == dim1) ||
        (inner.getDim0() == dim1 && inner.getDim1() == dim0))
      return inner.getInput();
  }
  return {};
}

//===----------------------------------------------------------------------===//
// PermuteOp
//===----------------------------------------------------------------------===//

LogicalResult
PermuteOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                            Adaptor adaptor,
                            SmallVectorImpl<Type> &inferredReturnTypes) {
  auto emitError = optionalErrorAt(loc);
  FailureOr<RankedTensorType> type =
      getStaticTensorType(emitError, adaptor.getInput(), "input");
  if (failed(type))
    return failure();
  ArrayRef<int64_t> permutation = adaptor.getPermutation();
  int64_t rank = type->getRank();
  if (failed(verifyOnePerDim(emitError, "permutation", permutation, rank)) ||
      failed(verifyAxes(emitError, permutation, rank, "permutation entry")))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t dim : permutation)
    shape.push_back(type->getDimSize(dim));
  inferredReturnTypes.push_back(type->clone(shape));
  return success();
}

OpFoldResult PermuteOp::fold(FoldAdaptor adaptor) {
  if (isIdentityPermutation(getPermutation()))
    return getInput();
  return {};
}

/// permute(permute(x, inner), outer) -> permute(x, composed) where
/// composed[i] = inner[outer[i]]: dim i of the result is dim outer[i] of the
/// inner result, which is dim inner[outer[i]] of x.
static LogicalResult composePermutes(PermuteOp op,
                                     PatternRewriter &rewriter) {
  auto inner = op.getInput().getDefiningOp<PermuteOp>();
  if (!inner)
    return failure();
  ArrayRef<int64_t> innerPermutation = inner.getPermutation();
  SmallVector<int64_t> composed;
  for (int64_t dim : op.getPermutation())
    composed.push_back(innerPermutation[dim]);
  rewriter.replaceOpWithNewOp<PermuteOp>(op, inner.getInput(), composed);
  return success();
}

void PermuteOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add(composePermutes);
}

//===----------------------------------------------------------------------===//
// FlattenOp
//===----------------------------------------------------------------------===//

LogicalResult
FlattenOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                            Adaptor adaptor,
                            SmallVectorImpl<Type> &inferredReturnTypes) {
  auto emitError = optionalErrorAt(loc);
  FailureOr<RankedTensorType> type =
      getStaticTensorType(emitError, adaptor.getInput(), "input");
  if (failed(type))
    return failure();
  int64_t start = adaptor.getStartDimAttr().getInt();
  int64_t end = adaptor.getEndDimAttr().getInt();
  int64_t rank = type->getRank();
  if (failed(verifyAxes(emitError, start, rank, "start_dim")) ||
      failed(verifyAxes(emitError, end, rank, "end_dim")))
    return failure();
  if (start > end)
    return emitError() << "start_dim " << start << " is after end_dim " << end;
  ArrayRef<int64_t> inputShape = type->getShape();
  std::optional<int64_t> merged =
      checkedProduct(inputShape.slice(start, end - start + 1));
  if (!merged)
    return emitError() << "size of the flattened dims "
                       << formatShape(inputShape.slice(start, end - start + 1))
                       << " overflows int64";
  SmallVector<int64_t> shape(inputShape.take_front(start));
  shape.push_back(*merged);
  llvm::append_range(shape, inputShape.drop_front(end + 1));
  inferredReturnTypes.push_back(type->clone(shape));
  return success();
}

OpFoldResult FlattenOp::fold(FoldAdaptor adaptor) {
  if (getStartDim() == getEndDim())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// SqueezeOp
//===----------------------------------------------------------------------===//

LogicalResult
SqueezeOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                            Adaptor adaptor,
                            SmallVectorImpl<Type> &inferredReturnTypes) {
  auto emitError = optionalErrorAt(loc);
  FailureOr<RankedTensorType> type =
      getStaticTensorType(emitError, adaptor.getInput(), "input");
  if (failed(type))
    return failure();
  ArrayRef<int64_t> dims = adaptor.getDims();
  if (dims.empty())
    return emitError() << "'dims' must not be empty";
  if (failed(verifyAxes(emitError, dims, type->getRank(), "dim")))
    return failure();
  for (int64_t dim : dims)
    if (type->getDimSize(dim) != 1)
      return emitError() << "dim " << dim << " has size "
                         << type->getDimSize(dim) << ", expected 1";
  SmallVector<int64_t> shape;
  for (auto [dim, size] : llvm::enumerate(type->getShape()))
    if (!llvm::is_contained(dims, static_cast<int64_t>(dim)))
      shape.push_back(size);
  inferredReturnTypes.push_back(type->clone(shape));
  return success();
}

OpFoldResult SqueezeOp::fold(FoldAdaptor adaptor) {
  // squeeze(unsqueeze(x, d), [d]) -> x.
  auto inner = getInput().getDefiningOp<UnsqueezeOp>();
  ArrayRef<int64_t> dims = getDims();
  if (inner && dims.size() == 1 &&
      dims.front() == inner.getDimAttr().getInt())
    return inner.getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// UnsqueezeOp
//===----------------------------------------------------------------------===//

LogicalResult UnsqueezeOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  auto emitError = optionalErrorAt(loc);
  FailureOr<RankedTensorType> type =
      getStaticTensorType(emitError, adaptor.getInput(), "input");
  if (failed(type))
    return failure();
  int64_t dim = adaptor.getDimAttr().getInt();
  int64_t rank = type->getRank();
  if (dim < 0 || dim > rank)
    return emitError() << "dim " << dim << " is out of range [0, " << rank
                       << "]";
  SmallVector<int64_t> shape(type->getShape());
  shape.insert(shape.begin() + dim, 1);
  inferredReturnTypes.push_back(type->clone(shape));
  return success();
}

//===----------------------------------------------------------------------===//
// ConcatOp
//===----------------------------------------------------------------------===//

LogicalResult
ConcatOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                           Adaptor adaptor,
                           SmallVectorImpl<Type> &inferredReturnTypes) {
  auto emitError = optionalErrorAt(loc);
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitError() << "expected at least one input";
  FailureOr<RankedTensorType> first =
      getStaticTensorType(emitError, inputs.front(), "inputs #0");
  if (failed(first))
    return failure();
  int64_t axis = adaptor.getAxisAttr().getInt();
  int64_t rank = first->getRank();
  if (failed(verifyAxes(emitError, axis, rank)))
    return failure();
  SmallVector<int64_t> shape(first->getShape());
  for (auto [index, input] : llvm::enumerate(inputs.drop_front())) {
    std::string name = "inputs #" + std::to_string(index + 1);
    FailureOr<RankedTensorType> type =
        getStaticTensorType(emitError, input, name);
    if (failed(type))
      return failure();
    if (type->getElementType() != first->getElementType())
      return emitError() << name << " has element type "
                         << type->getElementType() << ", expected "
                         << first->getElementType();
    if (type->getRank() != rank)
      return emitError() << name << " has rank " << type->getRank()
                         << ", expected " << rank;
    for (int64_t dim = 0; dim < rank; ++dim) {
      if (dim == axis || type->getDimSize(dim) == shape[dim])
        continue;
      return emitError() << name << " has shape "
                         << formatShape(type->getShape())
                         << ", which differs from "
                         << formatShape(first->getShape())
                         << " in dim " << dim << " other than the axis";
    }
    if (llvm::AddOverflow(shape[axis], type->getDimSize(axis), shape[axis]))
      return emitError() << "size of the concatenated axis overflows int64";
  }
  inferredReturnTypes.push_back(first->clone(shape));
  return success();
}

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1)
    return getInputs().front();
  return {};
}

//===----------------------------------------------------------------------===//
// SplitOp
//===----------------------------------------------------------------------===//

LogicalResult
SplitOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                          Adaptor adaptor,
                          SmallVectorImpl<Type> &inferredReturnTypes) {
  auto emitError = optionalErrorAt(loc);
  FailureOr<RankedTensorType> type =
      getStaticTensorType(emitError, adaptor.getInput(), "input");
  if (failed(type))
    return failure();
  int64_t axis = adaptor.getAxisAttr().getInt();
  if (failed(verifyAxes(emitError, axis, type->getRank())))
    return failure();
  ArrayRef<int64_t> sizes = adaptor.getSplitSizes();
  if (sizes.empty())
    return emitError() << "'split_sizes' must not be empty";
  int64_t total = 0;
  for (int64_t size : sizes) {
    if (size < 0)
      return emitError() << "split size " << size << " is negative";
    if (llvm::AddOverflow(total, size, total))
      return emitError() << "sum of the split sizes overflows int64";
  }
  int64_t axisSize = type->getDimSize(axis);
  if (total != axisSize)
    return emitError() << "split sizes sum to " << total
                       << ", but axis " << axis << " has size " << axisSize;
  SmallVector<int64_t> shape(type->getShape());
  for (int64_t size : sizes) {
    shape[axis] = size;
    inferredReturnTypes.push_back(type->clone(shape));
  }
  return success();
}

LogicalResult SplitOp::fold(FoldAdaptor adaptor,
                            SmallVectorImpl<OpFoldResult> &results) {
  // A split into one piece is the input itself.
  if (getSplitSizes().size() != 1)
    return failure();
  results.push_back(getInput());
  return success();
}

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

LogicalResult
SliceOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                          Adaptor adaptor,
                          SmallVectorImpl<Type> &inferredReturnTypes) {
  auto emitError = optionalErrorAt(loc);
  FailureOr<RankedTensorType> type =
      getStaticTensorType(emitError, adaptor.getInput(), "input");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  ArrayRef<int64_t> starts = adaptor.getStarts();
  ArrayRef<int64_t> stops = adaptor.getStops();
  ArrayRef<int64_t> strides = adaptor.getStrides();
  if (failed(verifyOnePerDim(emitError, "starts", starts, rank)) ||
      failed(verifyOnePerDim(emitError, "stops", stops, rank)) ||
      failed(verifyOnePerDim(emitError, "strides", strides, rank)))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t dim = 0; dim < rank; ++dim) {
    int64_t start = starts[dim], stop = stops[dim], stride = strides[dim];
    int64_t size = type->getDimSize(dim);
    if (start < 0)
      return emitError() << "start " << start << " of dim " << dim
                         << " is negative";
    if (start > stop)
      return emitError() << "start " << start << " of dim " << dim
                         << " is after stop " << stop;
    if (stop > size)
      return emitError() << "stop " << stop << " of dim " << dim
                         << " is past size " << size;
    if (stride < 1)
      return emitError() << "stride " << stride << " of dim " << dim
                         << " is not positive";
    // 0 <= stop - start <= size, so neither step overflows.
    int64_t extent = stop - start;
    shape.push_back(extent / stride + (extent % stride != 0 ? 1 : 0));
  }
  inferredReturnTypes.push_back(type->clone(shape));
  return success();
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> shape = getInput().getType().getShape();
  if (llvm::all_of(getStarts(), [](int64_t start) { return start == 0; }) &&
      getStops() == shape &&
      llvm::all_of(getStrides(), [](int64_t stride) { return stride == 1; }))
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// PadOp
//===----------------------------------------------------------------------===//

LogicalResult
PadOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                        Adaptor adaptor,
                        SmallVectorImpl<Type> &inferredReturnTypes) {
  auto emitError = optionalErrorAt(loc);
  FailureOr<RankedTensorType> type =
      getStaticTensorType(emitError, adaptor.getInput(), "input");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  ArrayRef<int64_t> low = adaptor.getLow();
  ArrayRef<int64_t> high = adaptor.getHigh();
  if (failed(verifyOnePerDim(emitError, "low", low, rank)) ||
      failed(verifyOnePerDim(emitError, "high", high, rank)))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t dim = 0; dim < rank; ++dim) {
    if (low[dim] < 0)
      return emitError() << "low padding " << low[dim] << " of dim " << dim
                         << " is negative";
    if (high[dim] < 0)
      return emitError() << "high padding " << high[dim] << " of dim " << dim
                         << " is negative";
    int64_t size = type->getDimSize(dim);
    if (llvm::AddOverflow(size, low[dim], size) ||
        llvm::AddOverflow(size, high[dim], size))
      return emitError() << "padded size of dim " << dim << " overflows int64";
    shape.push_back(size);
  }
  inferredReturnTypes.push_back(type->clone(shape));
  return success();
}

LogicalResult PadOp::verify() {
  auto intType = dyn_cast<IntegerType>(getType().getElementType());
  if (!intType)
    return success();
  double value = getValue().convertToDouble();
  // i1 holds 0 and 1, wider types their signed range [-2^(w-1), 2^(w-1)).
  unsigned width = intType.getWidth();
  double lower = width == 1 ? 0.0 : -std::ldexp(1.0, width - 1);
  double upperBound = width == 1 ? 2.0 : std::ldexp(1.0, width - 1);
  if (value != std::trunc(value) || value < lower || value >= upperBound) {
    SmallString<16> text;
    getValue().toString(text);
    return emitOpError() << "padding value " << text
                         << " is not an integer that element type " << intType
                         << " holds";
  }
  return success();
}

OpFoldResult PadOp::fold(FoldAdaptor adaptor) {
  auto isZero = [](int64_t padding) { return padding == 0; };
  if (llvm::all_of(getLow(), isZero) && llvm::all_of(getHigh(), isZero))
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// TrilOp and TriuOp
//===----------------------------------------------------------------------===//

/// Checks the rank of a triangular-mask op.
static LogicalResult verifyTriangular(Operation *op, RankedTensorType type) {
  if (type.getRank() < 2)
    return op->emitOpError() << "operand has rank " << type.getRank()
                             << ", expected at least 2";
  return success();
}

LogicalResult TrilOp::verify() { return verifyTriangular(*this, getType()); }
LogicalResult TriuOp::verify() { return verifyTriangular(*this, getType()); }

/// Returns true when the triangular mask over the last two dims of `type`
/// keeps every element: `j - i` ranges over `[1 - rows, cols - 1]`.
static bool keepsAll(RankedTensorType type, bool lower, int64_t diagonal) {
  if (type.getRank() < 2)
    return false;
  if (type.getNumElements() == 0)
    return true;
  int64_t rows = type.getDimSize(type.getRank() - 2);
  int64_t cols = type.getDimSize(type.getRank() - 1);
  return lower ? diagonal >= cols - 1 : diagonal <= 1 - rows;
}

OpFoldResult TrilOp::fold(FoldAdaptor adaptor) {
  if (keepsAll(getType(), /*lower=*/true, getDiagonalAttr().getInt()))
    return getInput();
  return {};
}

OpFoldResult TriuOp::fold(FoldAdaptor adaptor) {
  if (keepsAll(getType(), /*lower=*/false, getDiagonalAttr().getInt()))
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// UnfoldOp
//===----------------------------------------------------------------------===//

LogicalResult
UnfoldOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                           Adaptor adaptor,
                           SmallVectorImpl<Type> &inferredReturnTypes) {
  auto emitError = optionalErrorAt(loc);
  FailureOr<RankedTensorType> type =
      getStaticTensorType(emitError, adaptor.getInput(), "input");
  if (failed(type))
    return failure();
  int64_t dim = adaptor.getDimAttr().getInt();
  int64_t size = adaptor.getSizeAttr().getInt();
  int64_t step = adaptor.getStepAttr().getInt();
  if (failed(verifyAxes(emitError, dim, type->getRank(), "dim")))
    return failure();
  int64_t dimSize = type->getDimSize(dim);
  if (size < 1)
    return emitError() << "window size " << size << " is not positive";
  if (size > dimSize)
    return emitError() << "window size " << size << " exceeds size "
                       << dimSize << " of dim " << dim;
  if (step < 1)
    return emitError() << "step " << step << " is not positive";
  SmallVector<int64_t> shape(type->getShape());
  shape[dim] = (dimSize - size) / step + 1;
  shape.push_back(size);
  inferredReturnTypes.push_back(type->clone(shape));
  return success();
}

//===----------------------------------------------------------------------===//
// GatherOp and IndexSelectOp
//===----------------------------------------------------------------------===//

/// Infers the type of an op that replaces dim `axis` of `data` by the dims of
/// `indices`.
template <typename AdaptorT>
static LogicalResult inferIndexingType(std::optional<Location> loc,
                                       AdaptorT adaptor, bool rankOneIndices,
                                       SmallVectorImpl<Type> &inferredTypes) {
  auto emitError = optionalErrorAt(loc);
  FailureOr<RankedTensorType> dataType =
      getStaticTensorType(emitError, adaptor.getData(), "data");
  if (failed(dataType))
    return failure();
  FailureOr<RankedTensorType> indicesType =
      getStaticTensorType(emitError, adaptor.getIndices(), "indices");
  if (failed(indicesType))
    return failure();
  int64_t axis = adaptor.getAxisAttr().getInt();
  if (failed(verifyAxes(emitError, axis, dataType->getRank())))
    return failure();
  if (rankOneIndices && indicesType->getRank() != 1)
    return emitError() << "indices must have rank 1, got rank "
                       << indicesType->getRank();
  ArrayRef<int64_t> dataShape = dataType->getShape();
  // No index value is valid on an empty axis (PyTorch raises); clamping has
  // nothing to clamp to.
  if (dataShape[axis] == 0 && indicesType->getNumElements() > 0)
    return emitError() << "cannot index axis " << axis
                       << " of size 0 with " << indicesType->getNumElements()
                       << " indices";
  SmallVector<int64_t> shape(dataShape.take_front(axis));
  llvm::append_range(shape, indicesType->getShape());
  llvm::append_range(shape, dataShape.drop_front(axis + 1));
  inferredTypes.push_back(dataType->clone(shape));
  return success();
}

LogicalResult
GatherOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                           Adaptor adaptor,
                           SmallVectorImpl<Type> &inferredReturnTypes) {
  return inferIndexingType(loc, adaptor, /*rankOneIndices=*/false,
                           inferredReturnTypes);
}

LogicalResult IndexSelectOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  return inferIndexingType(loc, adaptor, /*rankOneIndices=*/true,
                           inferredReturnTypes);
}

//===----------------------------------------------------------------------===//
// GatherPagesOp
//===----------------------------------------------------------------------===//

LogicalResult GatherPagesOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  auto emitError = optionalErrorAt(loc);
  FailureOr<RankedTensorType> pagesType =
      getStaticTensorType(emitError, adaptor.getPages(), "pages");
  if (failed(pagesType))
    return failure();
  FailureOr<RankedTensorType> tableType =
      getStaticTensorType(emitError, adaptor.getBlockTable(), "block_table");
  if (failed(tableType))
    return failure();
  if (pagesType->getRank() != 4)
    return emitError() << "pages must have rank 4 [P, H, T, D], got rank "
                       << pagesType->getRank();
  if (tableType->getRank() != 2)
    return emitError() << "block_table must have rank 2 [B, M], got rank "
                       << tableType->getRank();
  ArrayRef<int64_t> pages = pagesType->getShape();
  ArrayRef<int64_t> table = tableType->getShape();
  // As for the gathers: no table entry is valid without pages.
  if (pages[0] == 0 && tableType->getNumElements() > 0)
    return emitError() << "cannot read pages from an empty pool (P = 0) with "
                       << tableType->getNumElements() << " table entries";
  int64_t positions;
  if (llvm::MulOverflow(table[1], pages[2], positions))
    return emitError() << "M * T = " << table[1] << " * " << pages[2]
                       << " positions overflow int64";
  inferredReturnTypes.push_back(
      pagesType->clone({table[0], pages[1], positions, pages[3]}));
  return success();
}

//===----------------------------------------------------------------------===//
// IndexAddOp
//===----------------------------------------------------------------------===//

LogicalResult
IndexAddOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                             Adaptor adaptor,
                             SmallVectorImpl<Type> &inferredReturnTypes) {
  auto emitError = optionalErrorAt(loc);
  FailureOr<RankedTensorType> destType =
      getStaticTensorType(emitError, adaptor.getDest(), "dest");
  if (failed(destType))
    return failure();
  FailureOr<RankedTensorType> indicesType =
      getStaticTensorType(emitError, adaptor.getIndices(), "indices");
  if (failed(indicesType))
    return failure();
  FailureOr<RankedTensorType> sourceType =
      getStaticTensorType(emitError, adaptor.getSource(), "source");
  if (failed(sourceType))
    return failure();
  int64_t axis = adaptor.getAxisAttr().getInt();
  if (failed(verifyAxes(emitError, axis, destType->getRank())))
    return failure();
  if (indicesType->getRank() != 1)
    return emitError() << "indices must have rank 1, got rank "
                       << indicesType->getRank();
  if (sourceType->getElementType() != destType->getElementType())
    return emitError() << "source element type " << sourceType->getElementType()
                       << " differs from dest element type "
                       << destType->getElementType();
  int64_t numIndices = indicesType->getDimSize(0);
  SmallVector<int64_t> expected(destType->getShape());
  expected[axis] = numIndices;
  if (sourceType->getShape() != ArrayRef<int64_t>(expected))
    return emitError() << "source must have type " << destType->clone(expected)
                       << " (dest's shape with dim " << axis
                       << " replaced by the " << numIndices << " indices), got "
                       << *sourceType;
  // As for the gathers: no index value is valid on an empty axis.
  if (destType->getDimSize(axis) == 0 && numIndices > 0)
    return emitError() << "cannot index axis " << axis << " of size 0 with "
                       << numIndices << " indices";
  inferredReturnTypes.push_back(*destType);
  return success();
}

/// Adding nothing: with no indices the result is `dest`.
OpFoldResult IndexAddOp::fold(FoldAdaptor adaptor) {
  if (getIndices().getType().getNumElements() == 0)
    return getDest();
  return {};
}
