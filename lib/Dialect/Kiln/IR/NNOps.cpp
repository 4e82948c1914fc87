//===- NNOps.cpp - Training-helper kiln ops -------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::kiln;

#define GET_OP_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnNNOps.cpp.inc"

//===----------------------------------------------------------------------===//
// DropoutOp
//===----------------------------------------------------------------------===//

LogicalResult DropoutOp::verify() {
  double p = getPAttr().getValueAsDouble();
  // Written so that NaN fails too.
  if (!(p >= 0.0 && p < 1.0))
    return emitOpError("'p' must be in [0, 1), got ") << p;
  return success();
}

OpFoldResult DropoutOp::fold(FoldAdaptor) {
  // Nothing is dropped and the scale 1 / (1 - p) is 1.
  if (getPAttr().getValueAsDouble() == 0.0)
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// CrossEntropyOp
//===----------------------------------------------------------------------===//

LogicalResult
CrossEntropyOp::inferReturnTypes(MLIRContext *context,
                                 std::optional<Location> loc, Adaptor adaptor,
                                 SmallVectorImpl<Type> &inferredReturnTypes) {
  Type logitsType = adaptor.getLogits().getType();
  auto logits = dyn_cast<RankedTensorType>(logitsType);
  if (!logits || logits.getRank() != 2)
    return emitOptionalError(loc, "logits must have rank 2 ([N, C]), got ",
                             logitsType);
  // A missing `reduction` (possible on an operation state) means mean.
  LossReductionAttr reduction = adaptor.getReductionAttr();
  SmallVector<int64_t> shape;
  if (reduction && reduction.getValue() == LossReduction::none)
    shape.push_back(logits.getDimSize(0));
  inferredReturnTypes.push_back(
      RankedTensorType::get(shape, logits.getElementType()));
  return success();
}

LogicalResult CrossEntropyOp::verify() {
  auto logits = cast<RankedTensorType>(getLogits().getType());
  auto labels = cast<RankedTensorType>(getLabels().getType());
  if (logits.getRank() != 2)
    return emitOpError("logits must have rank 2 ([N, C]), got ") << logits;
  if (logits.getDimSize(1) == 0)
    return emitOpError("logits must have at least one class, got ") << logits;
  if (labels.getRank() != 1)
    return emitOpError("labels must have rank 1 ([N]), got ") << labels;
  if (labels.getDimSize(0) != logits.getDimSize(0))
    return emitOpError("labels have ")
           << labels.getDimSize(0) << " entries but logits have "
           << logits.getDimSize(0) << " rows";
  return success();
}

//===----------------------------------------------------------------------===//
// Normalization layers
//===----------------------------------------------------------------------===//

/// Checks `normalized_rank` against the rank of `input`, `epsilon`, and that
/// each present affine parameter (named by `names`) has the normalized
/// trailing shape and the input's element type.
static LogicalResult verifyNormalization(Operation *op, Value input,
                                         int64_t normalizedRank, double epsilon,
                                         ArrayRef<StringRef> names,
                                         ArrayRef<Value> parameters) {
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t rank = inputType.getRank();
  if (normalizedRank < 1 || normalizedRank > rank)
    return op->emitOpError("'normalized_rank' ")
           << normalizedRank << " is out of range [1, " << rank << "]";
  if (!(epsilon > 0.0 && std::isfinite(epsilon)))
    return op->emitOpError("'epsilon' must be positive and finite, got ")
           << epsilon;
  auto expected =
      RankedTensorType::get(inputType.getShape().take_back(normalizedRank),
                            inputType.getElementType());
  for (auto [name, parameter] : llvm::zip_equal(names, parameters)) {
    if (parameter && parameter.getType() != expected)
      return op->emitOpError()
             << name << " must be " << expected
             << " (the normalized trailing dims of the input), got "
             << parameter.getType();
  }
  return success();
}

LogicalResult LayerNormOp::verify() {
  // The ODS verifier checks that the optional weight and bias groups hold 0
  // or 1 operands, but not that the required input group holds exactly one.
  if (getODSOperandIndexAndLength(0).second != 1)
    return emitOpError()
           << "'operandSegmentSizes' must give the input exactly one operand";
  return verifyNormalization(*this, getInput(),
                             getNormalizedRankAttr().getInt(),
                             getEpsilonAttr().getValueAsDouble(),
                             {"weight", "bias"}, {getWeight(), getBias()});
}

LogicalResult RmsNormOp::verify() {
  return verifyNormalization(
      *this, getInput(), getNormalizedRankAttr().getInt(),
      getEpsilonAttr().getValueAsDouble(), {"weight"}, {getWeight()});
}
