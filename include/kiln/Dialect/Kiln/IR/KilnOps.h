//===- KilnOps.h - The kiln ops --------------------------------*- C++ -*-===//

#ifndef KILN_DIALECT_KILN_IR_KILNOPS_H
#define KILN_DIALECT_KILN_IR_KILNOPS_H

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnInterfaces.h"
#include "kiln/Dialect/Kiln/IR/KilnShapeUtils.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::OpTrait::kiln {
/// The verifier of KnownAttributes.
LogicalResult verifyKnownAttributes(Operation *op);

/// Every kiln op: a discardable attribute must carry a dialect prefix, so a
/// misspelt inherent attribute is an error rather than ignored.
template <typename ConcreteType>
class KnownAttributes : public TraitBase<ConcreteType, KnownAttributes> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyKnownAttributes(op);
  }
};

/// The verifier of AddressableTensors.
LogicalResult verifyAddressableTensors(Operation *op);

/// Every kiln op: each operand and result tensor's byte size fits in int64.
template <typename ConcreteType>
class AddressableTensors : public TraitBase<ConcreteType, AddressableTensors> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyAddressableTensors(op);
  }
};

/// Marks an op that autodiff's recompute-elementwise policy recomputes
/// rather than saves (Kiln_CheapToRecompute in KilnBase.td).
template <typename ConcreteType>
class CheapToRecompute : public TraitBase<ConcreteType, CheapToRecompute> {};
} // namespace mlir::OpTrait::kiln

#include "kiln/Dialect/Kiln/IR/KilnEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnAttrs.h.inc"

namespace mlir::kiln {
/// The type a kiln op with elements of `elementType` computes in: f32 for
/// f16 and bf16 (sums, statistics and transcendental functions in f32,
/// rounded once at the end), the type itself otherwise.
Type getComputeType(Type elementType);

namespace detail {
/// AttentionOpInterface::getEffectiveScale: `scale`, or 1/sqrt(Dk) of the
/// [B, Hq, Sq, Dk] `queryType` when it is null (1 when Dk = 0).
double getEffectiveAttentionScale(FloatAttr scale, Type queryType);
} // namespace detail
} // namespace mlir::kiln

#include "kiln/Dialect/Kiln/IR/KilnAttentionInterface.h.inc"

#define GET_OP_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnElementwiseOps.h.inc"
#define GET_OP_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnTensorOps.h.inc"
#define GET_OP_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnReductionOps.h.inc"
#define GET_OP_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnConvOps.h.inc"
#define GET_OP_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnNNOps.h.inc"
#define GET_OP_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnAttentionOps.h.inc"
#define GET_OP_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnAutodiffOps.h.inc"

#endif // KILN_DIALECT_KILN_IR_KILNOPS_H
