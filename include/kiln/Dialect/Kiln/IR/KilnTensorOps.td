//===- KilnTensorOps.td - Creation, layout and shape kiln ops -----------===//

#ifndef KILN_DIALECT_KILN_IR_KILNTENSOROPS_TD
#define KILN_DIALECT_KILN_IR_KILNTENSOROPS_TD

include "kiln/Dialect/Kiln/IR/KilnBase.td"
include "kiln/Dialect/Kiln/IR/KilnAttrs.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

def Kiln_ConstantOp : Kiln_Op<"constant", [ConstantLike, Pure,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "a dense tensor constant";
  let description = [{
    A tensor whose elements are given by a dense elements attribute.

    ```mlir
    %0 = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

#endif // KILN_DIALECT_KILN_IR_KILNTENSOROPS_TD
