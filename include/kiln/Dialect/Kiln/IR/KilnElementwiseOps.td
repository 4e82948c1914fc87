//===- KilnElementwiseOps.td - Elementwise kiln ops ----------------------===//
//
// Binary ops broadcast NumPy-style (trailing-aligned, each dim equal or 1) and
// infer their result type; unary ops keep their operand's type.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNELEMENTWISEOPS_TD
#define KILN_DIALECT_KILN_IR_KILNELEMENTWISEOPS_TD

include "kiln/Dialect/Kiln/IR/KilnBase.td"
include "kiln/Dialect/Kiln/IR/KilnAttrs.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Binary arithmetic
//===----------------------------------------------------------------------===//

/// A broadcasting binary op whose result has the broadcast shape and the
/// operands' (common) element type.
class Kiln_BinaryOp<string mnemonic, list<Trait> traits = []>
    : Kiln_Op<mnemonic, !listconcat(traits, [Pure,
          DeclareOpInterfaceMethods<InferTypeOpInterface>])> {
  let arguments = (ins Kiln_Tensor:$lhs, Kiln_Tensor:$rhs);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> loc,
        ::mlir::ValueRange operands, ::mlir::DictionaryAttr attributes,
        ::mlir::OpaqueProperties properties, ::mlir::RegionRange regions,
        ::llvm::SmallVectorImpl<::mlir::Type> &inferredReturnTypes) {
      return ::mlir::kiln::inferBroadcastBinaryResult(
          loc, operands, /*resultElementType=*/nullptr, inferredReturnTypes);
    }
  }];
}

def Kiln_AddOp : Kiln_BinaryOp<"add", [Commutative]> {
  let summary = "elementwise addition with broadcasting";
  let description = [{
    `lhs + rhs`, broadcasting NumPy-style. Both operands have the same element
    type.

    ```mlir
    %0 = kiln.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let hasFolder = 1;
}

#endif // KILN_DIALECT_KILN_IR_KILNELEMENTWISEOPS_TD
