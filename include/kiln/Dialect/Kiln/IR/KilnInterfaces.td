//===- KilnInterfaces.td - Kiln op interfaces ------------------*- tablegen -*-===//
//
// The reverse-mode autodiff interface. Each op owns its backward rule; the
// rules attach as external models (registerAutodiffExternalModels), one
// source file per op family, so the `kiln-autodiff` pass has no switch over
// ops.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNINTERFACES_TD
#define KILN_DIALECT_KILN_IR_KILNINTERFACES_TD

include "mlir/IR/OpBase.td"

def KilnAutodiffOpInterface : OpInterface<"AutodiffOpInterface"> {
  let cppNamespace = "::mlir::kiln";
  let description = [{
    The reverse-mode (vector-Jacobian product) rule of an op.

    `buildAdjoints` is called with the builder's insertion point after the
    forward computation, once per op, in reverse program order. It receives
    one adjoint per result (null: a symbolic zero, that result does not reach
    the loss) and, per operand, whether its adjoint is needed (the operand is
    active). It appends one value per operand to `operandAdjoints`: the
    operand's adjoint with exactly the operand's type (broadcasting rules
    reduce back to the operand's shape), or null where it is not needed or is
    a symbolic zero. Rules only create kiln ops that themselves have rules
    (closure), so the pass can run again on its own output.

    Ops whose derivative is zero wherever it is defined (comparisons, sign,
    argmax, iota, constant) report `isNonDifferentiable`: their results are
    never active, whatever their operands.

    An op may also say how its forward computation is kept for the sweep
    (each hook defaults to "as it is"): `expandForSaveAll` replaces it by
    ops whose intermediates the sweep saves like any other value, under
    `remat=save-all`; `addResiduals` gives it results its rule reuses
    instead of recomputing them, before the sweep; `dropUnreadResiduals`
    takes off those that nothing read, after it. Attention uses all three
    (its probabilities; its log-sum-exp), so the pass names no op.
  }];
  let methods = [
    InterfaceMethod<[{
        Builds the adjoints of the operands from the adjoints of the results.
        Returns failure, after emitting an error at the op, when the rule
        does not support this form of the op.
      }],
      "::llvm::LogicalResult", "buildAdjoints",
      (ins "::mlir::OpBuilder &":$builder,
           "::llvm::ArrayRef<::mlir::Value>":$resultAdjoints,
           "::llvm::ArrayRef<bool>":$neededOperands,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandAdjoints)>,
    StaticInterfaceMethod<[{
        Returns true when the op's results carry no derivative (their
        adjoints are never propagated). A property of the op, not of one
        instance, so that tools (the coverage matrix) can ask an
        `OperationName`.
      }],
      "bool", "isNonDifferentiable", (ins), [{}], [{ return false; }]>,
    InterfaceMethod<[{
        Under `remat=save-all`, before the sweep: builds, at the op, the ops
        that compute its results from its operands with every intermediate
        an SSA value (all with rules), and returns the values that replace
        its results; returns no values to keep the op as it is.
      }],
      "::llvm::SmallVector<::mlir::Value>", "expandForSaveAll",
      (ins "::mlir::OpBuilder &":$builder), [{}],
      [{ return {}; }]>,
    InterfaceMethod<[{
        Before the sweep: creates, at the op, the form of the op that also
        returns the residuals its rule reuses, and returns it; its leading
        results replace the op's. Returns null to keep the op.
      }],
      "::mlir::Operation *", "addResiduals",
      (ins "::mlir::OpBuilder &":$builder), [{}],
      [{ return nullptr; }]>,
    InterfaceMethod<[{
        After the sweep: when residual results of the op are unread,
        creates, at the op, its form without them and returns it; its
        results replace the op's leading results. Returns null to keep the
        op.
      }],
      "::mlir::Operation *", "dropUnreadResiduals",
      (ins "::mlir::OpBuilder &":$builder), [{}],
      [{ return nullptr; }]>,
  ];
}

#endif // KILN_DIALECT_KILN_IR_KILNINTERFACES_TD
