//===- KilnShapeUtils.cpp - Shape helpers shared by kiln ops --------------===//

#include "kiln/Dialect/Kiln/IR/KilnShapeUtils.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

std::optional<SmallVector<int64_t>>
mlir::kiln::broadcastShapes(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  SmallVector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Walk both shapes from their trailing dimension.
    int64_t l = i < lhs.size() ? lhs[lhs.size() - 1 - i] : 1;
    int64_t r = i < rhs.size() ? rhs[rhs.size() - 1 - i] : 1;
    if (l != r && l != 1 && r != 1)
      return std::nullopt;
    result[rank - 1 - i] = l == 1 ? r : l;
  }
  return result;
}

bool mlir::kiln::isBroadcastableTo(ArrayRef<int64_t> from,
                                   ArrayRef<int64_t> to) {
  if (from.size() > to.size())
    return false;
  for (size_t i = 0; i < from.size(); ++i) {
    int64_t f = from[from.size() - 1 - i];
    int64_t t = to[to.size() - 1 - i];
    if (f != t && f != 1)
      return false;
  }
  return true;
}

std::string mlir::kiln::formatShape(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '[';
  llvm::interleaveComma(shape, os);
  os << ']';
  return text;
}

LogicalResult mlir::kiln::inferBroadcastBinaryResult(
    std::optional<Location> loc, ValueRange operands, Type resultElementType,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  auto emit = [&](const Twine &message) {
    if (loc)
      mlir::emitError(*loc) << message;
    return failure();
  };
  SmallVector<int64_t> shape;
  Type elementType;
  for (auto [index, operand] : llvm::enumerate(operands)) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type)
      return emit("operand #" + Twine(index) + " must be a ranked tensor");
    if (!resultElementType) {
      if (elementType && elementType != type.getElementType())
        return emit("operands must have the same element type");
      elementType = type.getElementType();
    }
    if (index == 0) {
      shape.assign(type.getShape().begin(), type.getShape().end());
      continue;
    }
    auto broadcast = broadcastShapes(shape, type.getShape());
    if (!broadcast)
      return emit("operand shapes " + formatShape(shape) + " and " +
                  formatShape(type.getShape()) + " are not broadcastable");
    shape = std::move(*broadcast);
  }
  inferredReturnTypes.push_back(RankedTensorType::get(
      shape, resultElementType ? resultElementType : elementType));
  return success();
}

LogicalResult
mlir::kiln::verifyAxes(function_ref<OptionalDiagnostic()> emitError,
                       ArrayRef<int64_t> axes, int64_t rank, StringRef what) {
  llvm::SmallSet<int64_t, 8> seen;
  for (int64_t axis : axes) {
    if (axis < 0 || axis >= rank)
      return emitError() << what << " " << axis << " is out of range [0, "
                         << rank << ")";
    if (!seen.insert(axis).second)
      return emitError() << what << " " << axis << " is repeated";
  }
  return success();
}

bool mlir::kiln::isScalarFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() == 0 &&
         isa<FloatType>(tensor.getElementType());
}
