//===- KilnDialect.cpp - The kiln dialect ---------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::kiln;

#include "kiln/Dialect/Kiln/IR/KilnDialect.cpp.inc"
#include "kiln/Dialect/Kiln/IR/KilnEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnAttrs.cpp.inc"

namespace {
/// Every kiln op can be inlined: none has regions or side effects, and
/// kiln.value_and_grad names its callee by a module-level symbol. This lets
/// `--inline` flatten the calls that kiln-autodiff does not differentiate
/// through.
struct KilnInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;

  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void KilnDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "kiln/Dialect/Kiln/IR/KilnAttrs.cpp.inc"
      >();
  // One list per op family; each family's definitions live in its own .cpp.
  addOperations<
#define GET_OP_LIST
#include "kiln/Dialect/Kiln/IR/KilnElementwiseOps.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "kiln/Dialect/Kiln/IR/KilnTensorOps.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "kiln/Dialect/Kiln/IR/KilnReductionOps.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "kiln/Dialect/Kiln/IR/KilnConvOps.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "kiln/Dialect/Kiln/IR/KilnNNOps.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "kiln/Dialect/Kiln/IR/KilnAttentionOps.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "kiln/Dialect/Kiln/IR/KilnAutodiffOps.cpp.inc"
      >();
  addInterfaces<KilnInlinerInterface>();
}

Operation *KilnDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}

/// The `kiln.*` discardable attributes of Kiln's passes and tools, as
/// declared in KilnBase.td (discardableAttrs).
static constexpr llvm::StringLiteral kKnownDiscardableAttributes[] = {
    KilnDialect::BackwardAttrHelper::getNameStr(),
    KilnDialect::CotangentAttrHelper::getNameStr(),
    KilnDialect::EntryPointAttrHelper::getNameStr(),
    KilnDialect::ForwardAttrHelper::getNameStr(),
    KilnDialect::GradientAttrHelper::getNameStr(),
    KilnDialect::InputNamesAttrHelper::getNameStr(),
    KilnDialect::KernelAttributesAttrHelper::getNameStr(),
    KilnDialect::OutputAttrHelper::getNameStr(),
    KilnDialect::OutputNamesAttrHelper::getNameStr(),
    KilnDialect::ParameterAttrHelper::getNameStr(),
    KilnDialect::ResidualAttrHelper::getNameStr()};

/// Fails with a diagnostic at `op` if `attr` is not one of
/// kKnownDiscardableAttributes; `where` says what carries it.
static LogicalResult verifyKnownDiscardable(Operation *op, NamedAttribute attr,
                                            const Twine &where) {
  StringRef name = attr.getName().strref();
  if (llvm::is_contained(kKnownDiscardableAttributes, name))
    return success();
  InFlightDiagnostic diag = op->emitError() << "unknown Kiln attribute '"
                                            << name << "'" << where;
  StringRef closest;
  unsigned best = 3;
  for (StringRef known : kKnownDiscardableAttributes) {
    unsigned distance = name.edit_distance(known, /*AllowReplacements=*/true,
                                           /*MaxEditDistance=*/best);
    if (distance < best) {
      best = distance;
      closest = known;
    }
  }
  if (!closest.empty()) {
    diag << "; did you mean '" << closest << "'?";
  } else {
    diag << " (Kiln's are ";
    llvm::interleaveComma(kKnownDiscardableAttributes, diag);
    diag << ")";
  }
  return diag;
}

LogicalResult KilnDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  return verifyKnownDiscardable(op, attr, "");
}

LogicalResult KilnDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  return verifyKnownDiscardable(op, attr, " on argument " + Twine(argIndex));
}

LogicalResult KilnDialect::verifyRegionResultAttribute(Operation *op,
                                                       unsigned regionIndex,
                                                       unsigned resultIndex,
                                                       NamedAttribute attr) {
  return verifyKnownDiscardable(op, attr, " on result " + Twine(resultIndex));
}

LogicalResult mlir::OpTrait::kiln::verifyKnownAttributes(Operation *op) {
  for (NamedAttribute attr : op->getDiscardableAttrs()) {
    // A dialect prefix and a name: `foo.bar`, not `.bar` or `foo.`.
    auto [prefix, name] = attr.getName().strref().split('.');
    if (!prefix.empty() && !name.empty())
      continue;
    InFlightDiagnostic diag = op->emitOpError("has unknown attribute '")
                              << attr.getName().strref() << "'";
    SmallVector<StringRef> known;
    for (StringAttr name : op->getName().getAttributeNames())
      if (!name.strref().ends_with("SegmentSizes"))
        known.push_back(name.strref());
    if (known.empty()) {
      diag << " (it takes none)";
    } else {
      diag << " (expected one of ";
      llvm::interleaveComma(known, diag);
      diag << ")";
    }
    return diag;
  }
  return success();
}

/// Whether the static `type` holds more bytes than int64_t counts (an element
/// of i1 takes a byte, as the lowerings store it).
static bool overflowsByteSize(ShapedType type) {
  int64_t bytes = llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  for (int64_t size : type.getShape())
    if (llvm::MulOverflow(bytes, size, bytes))
      return true;
  return false;
}

LogicalResult mlir::OpTrait::kiln::verifyAddressableTensors(Operation *op) {
  auto check = [&](Type type, StringRef what, unsigned index) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape() ||
        !tensor.getElementType().isIntOrFloat() || !overflowsByteSize(tensor))
      return success();
    return op->emitOpError() << what << " #" << index << " (" << type
                             << ") needs more than 2^63 - 1 bytes, more than "
                                "a 64-bit address space indexes";
  };
  for (auto [index, type] : llvm::enumerate(op->getOperandTypes()))
    if (failed(check(type, "operand", index)))
      return failure();
  for (auto [index, type] : llvm::enumerate(op->getResultTypes()))
    if (failed(check(type, "result", index)))
      return failure();
  return success();
}

Type mlir::kiln::getComputeType(Type elementType) {
  if (elementType.isF16() || elementType.isBF16())
    return Float32Type::get(elementType.getContext());
  return elementType;
}
