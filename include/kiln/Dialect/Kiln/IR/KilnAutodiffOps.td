//===- KilnAutodiffOps.td - Autodiff kiln ops ----------------------------===//
//
// Ops of reverse-mode autodiff: `value_and_grad`, which the `kiln-autodiff`
// pass replaces with a call of a generated gradient function.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNAUTODIFFOPS_TD
#define KILN_DIALECT_KILN_IR_KILNAUTODIFFOPS_TD

include "kiln/Dialect/Kiln/IR/KilnBase.td"
include "mlir/IR/SymbolInterfaces.td"

def Kiln_ValueAndGradOp : Kiln_Op<"value_and_grad",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "a function's value and its gradients with respect to arguments";
  let description = [{
    Calls `callee`, a function returning one rank-0 floating-point tensor (a
    loss), on `operands`, and returns that value followed by the gradient of
    the loss with respect to each argument listed in `wrt` (in `wrt` order),
    each of its argument's type. `wrt` is non-empty, its entries are unique
    and in `[0, number of arguments)`, and each names a floating-point
    argument: integer and boolean arguments have no gradient.

    The `kiln-autodiff` pass replaces the op with a `func.call` of a
    generated function `@<callee>_value_and_grad` that computes the forward
    and the reverse sweep (combined mode).

    ```mlir
    %loss, %ga, %gb = kiln.value_and_grad @f(%a, %b, %c) {wrt = array<i64: 0, 1>}
        : (tensor<2x3xf32>, tensor<3xf32>, tensor<2xi64>)
        -> (tensor<f32>, tensor<2x3xf32>, tensor<3xf32>)
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       Variadic<Kiln_Tensor>:$operands,
                       DenseI64ArrayAttr:$wrt);
  let results = (outs Variadic<Kiln_Tensor>:$results);
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` functional-type($operands, $results)
  }];
  let hasVerifier = 1;
}

#endif // KILN_DIALECT_KILN_IR_KILNAUTODIFFOPS_TD
