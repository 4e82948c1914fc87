//===- ReductionOps.cpp - Reduction and contraction kiln ops --------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::kiln;

//===----------------------------------------------------------------------===//
// Helpers shared by the generated op definitions
//===----------------------------------------------------------------------===//

/// Returns the shape of `type` reduced over `axes`: reduced dimensions are
/// dropped, or kept with size 1 when `keepDims` is set. Fails, with a
/// diagnostic at `loc` when given, if an axis is outside [0, rank). Repeated
/// axes are accepted here and rejected by the verifiers.
static FailureOr<SmallVector<int64_t>>
inferReducedShape(std::optional<Location> loc, RankedTensorType type,
                  ArrayRef<int64_t> axes, bool keepDims) {
  int64_t rank = type.getRank();
  SmallVector<bool> reduced(rank, false);
  for (int64_t axis : axes) {
    if (axis < 0 || axis >= rank) {
      (void)emitOptionalError(loc, "axis ", axis, " is out of range [0, ", rank,
                              ")");
      return failure();
    }
    reduced[axis] = true;
  }
  SmallVector<int64_t> shape;
  for (auto [dim, size] : llvm::enumerate(type.getShape())) {
    if (!reduced[dim])
      shape.push_back(size);
    else if (keepDims)
      shape.push_back(1);
  }
  return shape;
}

/// Returns the value of an optional `keep_dims` attribute. Type inference may
/// run on an operation state that lacks it, meaning the default, false.
static bool getKeepDimsValue(BoolAttr keepDims) {
  return keepDims && keepDims.getValue();
}

/// Type inference of the reductions over `axes`: the input's element type on
/// the reduced shape.
static LogicalResult
inferReductionResult(std::optional<Location> loc, Type inputType,
                     DenseI64ArrayAttr axes, BoolAttr keepDims,
                     SmallVectorImpl<Type> &inferredReturnTypes) {
  auto type = dyn_cast<RankedTensorType>(inputType);
  if (!type)
    return emitOptionalError(loc, "input must be a ranked tensor, got ",
                             inputType);
  if (!axes)
    return emitOptionalError(loc, "requires an 'axes' attribute");
  FailureOr<SmallVector<int64_t>> shape = inferReducedShape(
      loc, type, axes.asArrayRef(), getKeepDimsValue(keepDims));
  if (failed(shape))
    return failure();
  inferredReturnTypes.push_back(
      RankedTensorType::get(*shape, type.getElementType()));
  return success();
}

/// Folds a reduction to its input when every reduced axis has size 1 and
/// `keep_dims` is set: then each output element is its only input element.
static OpFoldResult foldIdentityReduction(Value input, ArrayRef<int64_t> axes,
                                          bool keepDims, Type resultType) {
  if (!keepDims || input.getType() != resultType)
    return {};
  auto type = cast<RankedTensorType>(input.getType());
  for (int64_t axis : axes)
    if (axis < 0 || axis >= type.getRank() || type.getDimSize(axis) != 1)
      return {};
  return input;
}

/// Checks the `axis` of softmax and log_softmax against the input rank.
static LogicalResult verifySoftmaxAxis(Operation *op, int64_t axis) {
  auto type = cast<RankedTensorType>(op->getOperand(0).getType());
  return verifyAxes([&] { return op->emitOpError(); }, {axis}, type.getRank());
}

#define GET_OP_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnReductionOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Reductions over axes
//===----------------------------------------------------------------------===//

/// Checks `axes` (non-empty, unique, in range) and, when `what` is given
/// (the reductions without an identity element), that no reduced dimension
/// is empty.
template <typename OpTy>
static LogicalResult verifyAxesReduction(OpTy op,
                                         StringRef what = StringRef()) {
  ArrayRef<int64_t> axes = op.getAxes();
  if (axes.empty())
    return op.emitOpError("'axes' must not be empty");
  auto type = cast<RankedTensorType>(op.getInput().getType());
  if (failed(
          verifyAxes([&] { return op.emitOpError(); }, axes, type.getRank())))
    return failure();
  if (what.empty())
    return success();
  for (int64_t axis : axes)
    if (type.getDimSize(axis) == 0)
      return op.emitOpError("cannot take the ")
             << what << " over axis " << axis << " of size 0";
  return success();
}

LogicalResult SumOp::verify() { return verifyAxesReduction(*this); }
LogicalResult MeanOp::verify() { return verifyAxesReduction(*this); }
LogicalResult MaxOp::verify() { return verifyAxesReduction(*this, "max"); }
LogicalResult MinOp::verify() { return verifyAxesReduction(*this, "min"); }

LogicalResult VarianceOp::verify() {
  int64_t correction = getCorrectionAttr().getInt();
  if (correction < 0)
    return emitOpError("'correction' must be non-negative, got ") << correction;
  return verifyAxesReduction(*this);
}

//===----------------------------------------------------------------------===//
// ArgmaxOp
//===----------------------------------------------------------------------===//

LogicalResult
ArgmaxOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                           Adaptor adaptor,
                           SmallVectorImpl<Type> &inferredReturnTypes) {
  Type inputType = adaptor.getInput().getType();
  auto type = dyn_cast<RankedTensorType>(inputType);
  if (!type)
    return emitOptionalError(loc, "input must be a ranked tensor, got ",
                             inputType);
  IntegerAttr axis = adaptor.getAxisAttr();
  if (!axis)
    return emitOptionalError(loc, "requires an 'axis' attribute");
  FailureOr<SmallVector<int64_t>> shape = inferReducedShape(
      loc, type, {axis.getInt()}, getKeepDimsValue(adaptor.getKeepDimsAttr()));
  if (failed(shape))
    return failure();
  inferredReturnTypes.push_back(
      RankedTensorType::get(*shape, IntegerType::get(context, 64)));
  return success();
}

LogicalResult ArgmaxOp::verify() {
  int64_t axis = getAxisAttr().getInt();
  auto type = cast<RankedTensorType>(getInput().getType());
  if (failed(verifyAxes([&] { return emitOpError(); }, {axis}, type.getRank())))
    return failure();
  if (type.getDimSize(axis) == 0)
    return emitOpError("cannot take the argmax over axis ")
           << axis << " of size 0";
  return success();
}

//===----------------------------------------------------------------------===//
// CumsumOp
//===----------------------------------------------------------------------===//

LogicalResult CumsumOp::verify() {
  auto type = cast<RankedTensorType>(getInput().getType());
  if (type.getRank() == 0)
    return emitOpError("input must have rank >= 1 (a rank-0 cumulative sum is "
                       "the input itself), got ")
           << type;
  return verifyAxes([&] { return emitOpError(); }, {getAxisAttr().getInt()},
                    type.getRank());
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult
MatmulOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                           Adaptor adaptor,
                           SmallVectorImpl<Type> &inferredReturnTypes) {
  auto lhsType = dyn_cast<RankedTensorType>(adaptor.getLhs().getType());
  auto rhsType = dyn_cast<RankedTensorType>(adaptor.getRhs().getType());
  if (!lhsType || !rhsType)
    return emitOptionalError(loc, "operands must be ranked tensors");
  if (lhsType.getRank() == 0)
    return emitOptionalError(loc, "lhs must have rank >= 1, got ", lhsType);
  if (rhsType.getRank() == 0)
    return emitOptionalError(loc, "rhs must have rank >= 1, got ", rhsType);
  if (lhsType.getElementType() != rhsType.getElementType())
    return emitOptionalError(loc, "lhs element type ", lhsType.getElementType(),
                             " does not match rhs element type ",
                             rhsType.getElementType());

  // Promote rank-1 operands to matrices: [K] is [1, K] on the left and
  // [K, 1] on the right; the added dimension is dropped from the result.
  bool lhsIsVector = lhsType.getRank() == 1;
  bool rhsIsVector = rhsType.getRank() == 1;
  SmallVector<int64_t> lhsShape(lhsType.getShape());
  SmallVector<int64_t> rhsShape(rhsType.getShape());
  if (lhsIsVector)
    lhsShape.insert(lhsShape.begin(), 1);
  if (rhsIsVector)
    rhsShape.push_back(1);

  int64_t lhsK = lhsShape.back();
  int64_t rhsK = rhsShape[rhsShape.size() - 2];
  if (lhsK != rhsK)
    return emitOptionalError(
        loc, "contraction dimension of lhs ", formatShape(lhsType.getShape()),
        " has size ", lhsK, " but that of rhs ",
        formatShape(rhsType.getShape()), " has size ", rhsK);

  ArrayRef<int64_t> lhsBatch = ArrayRef(lhsShape).drop_back(2);
  ArrayRef<int64_t> rhsBatch = ArrayRef(rhsShape).drop_back(2);
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(lhsBatch, rhsBatch);
  if (!shape)
    return emitOptionalError(loc, "batch dimensions ", formatShape(lhsBatch),
                             " and ", formatShape(rhsBatch),
                             " are not broadcastable");
  if (!lhsIsVector)
    shape->push_back(lhsShape[lhsShape.size() - 2]);
  if (!rhsIsVector)
    shape->push_back(rhsShape.back());
  inferredReturnTypes.push_back(
      RankedTensorType::get(*shape, lhsType.getElementType()));
  return success();
}
