//===- KilnReductionOps.td - Reduction and contraction kiln ops -----------===//
//
// Reductions over a set of axes (sum, mean, max, min, variance), argmax,
// softmax-style normalizations along one axis, the cumulative sum along one
// axis, and matmul. Every op infers its result type from its operand types
// and attributes.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNREDUCTIONOPS_TD
#define KILN_DIALECT_KILN_IR_KILNREDUCTIONOPS_TD

include "kiln/Dialect/Kiln/IR/KilnBase.td"
include "kiln/Dialect/Kiln/IR/KilnAttrs.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Reductions over axes
//===----------------------------------------------------------------------===//

/// The inferReturnTypes definition shared by all reductions over `axes`.
defvar kilnAxesReductionInference = [{
  ::llvm::LogicalResult $cppClass::inferReturnTypes(
      ::mlir::MLIRContext *context, std::optional<::mlir::Location> loc,
      Adaptor adaptor,
      ::llvm::SmallVectorImpl<::mlir::Type> &inferredReturnTypes) {
    return inferReductionResult(loc, adaptor.getInput().getType(),
                                adaptor.getAxesAttr(),
                                adaptor.getKeepDimsAttr(),
                                inferredReturnTypes);
  }
}];

/// A reduction of `input` over `axes`. The result has the input's shape with
/// the reduced dimensions dropped, or kept with size 1 when `keep_dims` is
/// set, and the input's element type. `extraArguments` are appended to the
/// common arguments. Each op defines its own verify().
class Kiln_AxesReductionOp<string mnemonic, Type inputType,
                           dag extraArguments = (ins)>
    : Kiln_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let arguments = !con((ins inputType:$input,
                            DenseI64ArrayAttr:$axes,
                            DefaultValuedAttr<BoolAttr, "false">:$keep_dims),
                       extraArguments);
  let results = (outs inputType:$result);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDefinition = kilnAxesReductionInference;
}

/// sum, mean, max and min: reducing only size-1 axes with `keep_dims` set is
/// the identity, so all four fold it away.
class Kiln_SimpleReductionOp<string mnemonic, Type inputType>
    : Kiln_AxesReductionOp<mnemonic, inputType> {
  let hasFolder = 1;
  let extraClassDefinition = kilnAxesReductionInference # [{
    ::mlir::OpFoldResult $cppClass::fold(FoldAdaptor) {
      return foldIdentityReduction(getInput(), getAxes(), getKeepDims(),
                                   getType());
    }
  }];
}

def Kiln_SumOp : Kiln_SimpleReductionOp<"sum", Kiln_Tensor> {
  let summary = "sum over axes";
  let description = [{
    Sums `input` over the dimensions listed in `axes` (non-empty, unique, each
    in `[0, rank)`). The reduced dimensions are dropped from the result, or
    kept with size 1 when `keep_dims` is true. Summing over a size-0
    dimension gives 0.

    ```mlir
    %0 = kiln.sum %x {axes = array<i64: 1>} : tensor<2x3xf32> -> tensor<2xf32>
    ```
  }];
}

def Kiln_MeanOp : Kiln_SimpleReductionOp<"mean", Kiln_FloatTensor> {
  let summary = "arithmetic mean over axes";
  let description = [{
    The mean of a floating-point `input` over the dimensions listed in `axes`
    (non-empty, unique, each in `[0, rank)`). The reduced dimensions are
    dropped from the result, or kept with size 1 when `keep_dims` is true. The
    mean over a size-0 dimension is NaN, as in PyTorch.

    ```mlir
    %0 = kiln.mean %x {axes = array<i64: 0, 2>, keep_dims = true}
        : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
    ```
  }];
}

def Kiln_MaxOp : Kiln_SimpleReductionOp<"max", Kiln_Tensor> {
  let summary = "maximum over axes";
  let description = [{
    The largest element of `input` over the dimensions listed in `axes`
    (non-empty, unique, each in `[0, rank)`). The reduced dimensions are
    dropped from the result, or kept with size 1 when `keep_dims` is true.
    Reduced dimensions must not have size 0 (there is no maximum of nothing).
    A NaN anywhere in the reduced slice gives NaN, as in PyTorch.

    ```mlir
    %0 = kiln.max %x {axes = array<i64: 1>} : tensor<2x3xf32> -> tensor<2xf32>
    ```
  }];
}

def Kiln_MinOp : Kiln_SimpleReductionOp<"min", Kiln_Tensor> {
  let summary = "minimum over axes";
  let description = [{
    The smallest element of `input` over the dimensions listed in `axes`
    (non-empty, unique, each in `[0, rank)`). The reduced dimensions are
    dropped from the result, or kept with size 1 when `keep_dims` is true.
    Reduced dimensions must not have size 0 (there is no minimum of nothing).
    A NaN anywhere in the reduced slice gives NaN, as in PyTorch.

    ```mlir
    %0 = kiln.min %x {axes = array<i64: 0>} : tensor<2x3xi32> -> tensor<3xi32>
    ```
  }];
}

def Kiln_VarianceOp : Kiln_AxesReductionOp<"variance", Kiln_FloatTensor,
    (ins DefaultValuedAttr<I64Attr, "1">:$correction)> {
  let summary = "variance over axes";
  let description = [{
    The variance of a floating-point `input` over the dimensions listed in
    `axes` (non-empty, unique, each in `[0, rank)`), as `torch.var`:
    `sum((x - mean(x))^2) / (N - correction)` where `N` is the number of
    reduced elements. `correction` defaults to 1 (Bessel's correction, the
    unbiased estimator); 0 gives the population variance. It must be
    non-negative. When `N - correction <= 0` the division gives inf or NaN at
    run time, as in PyTorch; this is a property of the values, not an error.
    The reduced dimensions are dropped from the result, or kept with size 1
    when `keep_dims` is true.

    ```mlir
    %0 = kiln.variance %x {axes = array<i64: 1>, correction = 0 : i64}
        : tensor<2x3xf32> -> tensor<2xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Argmax
//===----------------------------------------------------------------------===//

def Kiln_ArgmaxOp : Kiln_Op<"argmax", [Pure, InferTypeOpAdaptor]> {
  let summary = "index of the maximum along one axis";
  let description = [{
    The index (as i64) of the largest element of `input` along `axis`, which
    must be in `[0, rank)` and have a non-zero size. The reduced dimension is
    dropped from the result, or kept with size 1 when `keep_dims` is true.

    Ties resolve to the first (smallest) index, as in PyTorch. NaN counts as
    larger than every number, so the index of the first NaN is returned when
    there is one.

    ```mlir
    %0 = kiln.argmax %x {axis = 1 : i64} : tensor<2x3xf32> -> tensor<2xi64>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, I64Attr:$axis,
                       DefaultValuedAttr<BoolAttr, "false">:$keep_dims);
  let results = (outs StaticShapeTensorOf<[I64]>:$result);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

/// A normalization along one axis whose result has its operand's type. ODS
/// derives InferTypeOpInterface from AllTypesMatch.
class Kiln_SoftmaxLikeOp<string mnemonic>
    : Kiln_Op<mnemonic, [Pure, AllTypesMatch<["input", "result"]>]> {
  let arguments = (ins Kiln_FloatTensor:$input, I64Attr:$axis);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return verifySoftmaxAxis(*this, getAxisAttr().getInt());
    }
  }];
}

def Kiln_SoftmaxOp : Kiln_SoftmaxLikeOp<"softmax"> {
  let summary = "softmax along one axis";
  let description = [{
    `exp(x - max(x)) / sum(exp(x - max(x)))` along `axis` (in `[0, rank)`),
    computed in the numerically stable form. The result has the type of
    `input`.

    ```mlir
    %0 = kiln.softmax %x {axis = 1 : i64} : tensor<2x3xf32>
    ```
  }];
}

def Kiln_LogSoftmaxOp : Kiln_SoftmaxLikeOp<"log_softmax"> {
  let summary = "log of softmax along one axis";
  let description = [{
    `x - max(x) - log(sum(exp(x - max(x))))` along `axis` (in `[0, rank)`),
    the numerically stable form of `log(softmax(x))`. The result has the type
    of `input`.

    ```mlir
    %0 = kiln.log_softmax %x {axis = 1 : i64} : tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Scans
//===----------------------------------------------------------------------===//

def Kiln_CumsumOp : Kiln_Op<"cumsum",
    [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "cumulative sum along one axis";
  let description = [{
    The inclusive prefix sums of `input` along `axis` (in `[0, rank)`, so the
    input has rank >= 1), as `torch.cumsum`: `result[..., i, ...]` is the sum
    of `input[..., j, ...]` for `j <= i`, or for `j >= i` when `reverse` is
    true (the suffix sums, `flip(cumsum(flip(x)))`, which the backward rule
    uses). The result has the type of `input`.

    Each position of the other dims is summed in order along `axis`, starting
    from 0 (so a leading `-0.0` gives `0.0`, as in PyTorch). f16 and bf16
    accumulate in f32 and round each output once; integers wrap around in
    their type (PyTorch promotes integer and bool inputs to int64 first: the
    importer converts, this op keeps the type); on i1 the sum is a logical
    or, as `kiln.sum` on i1.

    ```mlir
    %0 = kiln.cumsum %x {axis = 1 : i64} : tensor<2x3xf32>
    %1 = kiln.cumsum %x {axis = 0 : i64, reverse = true} : tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, I64Attr:$axis,
                       DefaultValuedAttr<BoolAttr, "false">:$reverse);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

def Kiln_MatmulOp : Kiln_Op<"matmul", [Pure, InferTypeOpAdaptor]> {
  let summary = "matrix product with NumPy/PyTorch matmul rules";
  let description = [{
    The matrix product of `lhs` and `rhs`, following `numpy.matmul` and
    `torch.matmul`:

    - Both operands have rank >= 1 and the same element type.
    - A rank-1 `lhs` of shape `[K]` is treated as `[1, K]` and the prepended
      dimension is removed from the result; a rank-1 `rhs` of shape `[K]` is
      treated as `[K, 1]` and the appended dimension is removed from the
      result. Two rank-1 operands give a rank-0 result (the dot product).
    - The last dimension of `lhs` and the second-to-last of `rhs` (the
      contraction dimension `K`) must have the same size.
    - Leading (batch) dimensions, all but the last two, broadcast NumPy-style.

    So `[B..., M, K] x [B'..., K, N]` gives `[broadcast(B, B')..., M, N]`.

    ```mlir
    %0 = kiln.matmul %a, %b : (tensor<4x2x3xf32>, tensor<3x5xf32>) -> tensor<4x2x5xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$lhs, Kiln_Tensor:$rhs);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

#endif // KILN_DIALECT_KILN_IR_KILNREDUCTIONOPS_TD
