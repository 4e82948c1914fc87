//===- KilnElementwiseOps.td - Elementwise kiln ops ----------------------===//
//
// Binary, comparison and select ops broadcast NumPy-style (trailing-aligned,
// each dim equal or 1) and infer their result type; unary ops keep their
// operand's type; `convert` changes the element type only.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNELEMENTWISEOPS_TD
#define KILN_DIALECT_KILN_IR_KILNELEMENTWISEOPS_TD

include "kiln/Dialect/Kiln/IR/KilnBase.td"
include "kiln/Dialect/Kiln/IR/KilnAttrs.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Local constraints
//===----------------------------------------------------------------------===//

/// A statically shaped tensor of numbers: floats or i8/i32/i64, not i1.
def Kiln_NumericTensor : StaticShapeTensorOf<[Kiln_Float, I8, I32, I64]>;

//===----------------------------------------------------------------------===//
// Binary arithmetic
//===----------------------------------------------------------------------===//

/// A broadcasting binary op whose result has the broadcast shape and the
/// operands' (common) element type.
class Kiln_BinaryOp<string mnemonic, list<Trait> traits = [],
                    Type tensorType = Kiln_Tensor>
    : Kiln_Op<mnemonic, !listconcat(traits, [Pure, Kiln_CheapToRecompute,
          DeclareOpInterfaceMethods<InferTypeOpInterface>])> {
  let arguments = (ins tensorType:$lhs, tensorType:$rhs);
  let results = (outs tensorType:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> loc,
        ::mlir::ValueRange operands, ::mlir::DictionaryAttr attributes,
        ::mlir::OpaqueProperties properties, ::mlir::RegionRange regions,
        ::llvm::SmallVectorImpl<::mlir::Type> &inferredReturnTypes) {
      if (operands.size() != 2)
        return ::mlir::emitOptionalError(loc, "expected 2 operands, got ",
                                         operands.size());
      return ::mlir::kiln::inferBroadcastBinaryResult(
          loc, operands, /*resultElementType=*/nullptr, inferredReturnTypes);
    }
  }];
}

def Kiln_AddOp : Kiln_BinaryOp<"add", [Commutative]> {
  let summary = "elementwise addition with broadcasting";
  let description = [{
    `lhs + rhs`, broadcasting NumPy-style. Both operands have the same element
    type. Integers wrap around on overflow; on `i1` it is a logical or, as
    PyTorch's `bool + bool`.

    ```mlir
    %0 = kiln.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let hasFolder = 1;
}

def Kiln_SubOp : Kiln_BinaryOp<"sub", [], Kiln_NumericTensor> {
  let summary = "elementwise subtraction with broadcasting";
  let description = [{
    `lhs - rhs`, broadcasting NumPy-style. Both operands have the same element
    type, which is not `i1` (PyTorch rejects boolean subtraction too).
    Integers wrap around on overflow.

    ```mlir
    %0 = kiln.sub %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let hasFolder = 1;
}

def Kiln_MulOp : Kiln_BinaryOp<"mul", [Commutative]> {
  let summary = "elementwise multiplication with broadcasting";
  let description = [{
    `lhs * rhs`, broadcasting NumPy-style. Both operands have the same element
    type. Integers wrap around on overflow; on `i1` it is a logical and.

    ```mlir
    %0 = kiln.mul %a, %b : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
    ```
  }];
  let hasFolder = 1;
}

def Kiln_DivOp : Kiln_BinaryOp<"div", [], Kiln_NumericTensor> {
  let summary = "elementwise division with broadcasting";
  let description = [{
    `lhs / rhs`, broadcasting NumPy-style. Both operands have the same element
    type, which is not `i1`. The result keeps that element type: on floats
    this is IEEE division; on integers it truncates toward zero, like
    `torch.div(a, b, rounding_mode="trunc")` (integer division by zero is
    undefined). Front ends lower PyTorch's true division of integers by
    converting to a float type first.

    ```mlir
    %0 = kiln.div %a, %b : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    ```
  }];
  let hasFolder = 1;
}

def Kiln_PowOp : Kiln_BinaryOp<"pow", [], Kiln_FloatTensor> {
  let summary = "elementwise power with broadcasting";
  let description = [{
    `lhs ** rhs` on floating-point tensors, broadcasting NumPy-style, with the
    semantics of C's `pow` (e.g. `pow(x, 0) = 1` even for NaN `x`).

    ```mlir
    %0 = kiln.pow %a, %b : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    ```
  }];
}

def Kiln_MaximumOp : Kiln_BinaryOp<"maximum", [Commutative]> {
  let summary = "elementwise maximum with broadcasting";
  let description = [{
    The larger of `lhs` and `rhs`, broadcasting NumPy-style, as
    `torch.maximum`: a NaN in either operand gives NaN, and `-0.0 < +0.0`.
    Integers compare signed, except `i1` where `false < true`.

    ```mlir
    %0 = kiln.maximum %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let hasFolder = 1;
}

def Kiln_MinimumOp : Kiln_BinaryOp<"minimum", [Commutative]> {
  let summary = "elementwise minimum with broadcasting";
  let description = [{
    The smaller of `lhs` and `rhs`, broadcasting NumPy-style, as
    `torch.minimum`: a NaN in either operand gives NaN, and `-0.0 < +0.0`.
    Integers compare signed, except `i1` where `false < true`.

    ```mlir
    %0 = kiln.minimum %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Comparisons
//===----------------------------------------------------------------------===//

/// A broadcasting comparison: operands of one element type, an `i1` result of
/// the broadcast shape.
class Kiln_CompareOp<string mnemonic, string relation, list<Trait> traits = []>
    : Kiln_Op<mnemonic, !listconcat(traits, [Pure, Kiln_CheapToRecompute,
          DeclareOpInterfaceMethods<InferTypeOpInterface>])> {
  let summary = "elementwise `lhs " # relation # " rhs` with broadcasting";
  let description = "`lhs " # relation # " rhs`, broadcasting NumPy-style, "
    "giving an `i1` tensor of the broadcast shape. Both operands have the "
    "same element type. Floats compare as IEEE ordered predicates (any NaN "
    "gives false), except `ne`, which is true when either operand is NaN; "
    "integers compare signed, except `i1`, where `false < true`.\n\n"
    "```mlir\n"
    "%0 = kiln." # mnemonic # " %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> "
    "tensor<2x3xi1>\n"
    "```\n";
  let arguments = (ins Kiln_Tensor:$lhs, Kiln_Tensor:$rhs);
  let results = (outs Kiln_BoolTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> loc,
        ::mlir::ValueRange operands, ::mlir::DictionaryAttr attributes,
        ::mlir::OpaqueProperties properties, ::mlir::RegionRange regions,
        ::llvm::SmallVectorImpl<::mlir::Type> &inferredReturnTypes) {
      return ::inferCompareResult(context, loc, operands,
                                              inferredReturnTypes);
    }
  }];
}

def Kiln_LtOp : Kiln_CompareOp<"lt", "<">;
def Kiln_LeOp : Kiln_CompareOp<"le", "<=">;
def Kiln_GtOp : Kiln_CompareOp<"gt", ">">;
def Kiln_GeOp : Kiln_CompareOp<"ge", ">=">;
def Kiln_EqOp : Kiln_CompareOp<"eq", "==", [Commutative]>;
def Kiln_NeOp : Kiln_CompareOp<"ne", "!=", [Commutative]>;

//===----------------------------------------------------------------------===//
// Select
//===----------------------------------------------------------------------===//

def Kiln_SelectOp : Kiln_Op<"select", [Pure, Kiln_CheapToRecompute,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "elementwise choice between two tensors, with broadcasting";
  let description = [{
    `cond ? on_true : on_false` per element, as `torch.where`, with `cond`
    an `i1` tensor. The three operands broadcast together NumPy-style;
    `on_true` and `on_false` have the same element type, which is the
    result's.

    ```mlir
    %0 = kiln.select %c, %a, %b : (tensor<2x1xi1>, tensor<3xf32>, tensor<f32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Kiln_BoolTensor:$cond, Kiln_Tensor:$on_true,
                       Kiln_Tensor:$on_false);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $cond `,` $on_true `,` $on_false attr-dict `:`
    functional-type(operands, results)
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Unary math
//===----------------------------------------------------------------------===//

/// An elementwise unary op whose result has its operand's type. `semantics`
/// is the description; a one-line example of the op is appended to it.
class Kiln_UnaryOp<string mnemonic, string summaryText, string semantics,
                   Type tensorType = Kiln_FloatTensor,
                   list<Trait> traits = [],
                   string exampleAttrs = "">
    : Kiln_Op<mnemonic, !listconcat(traits, [Pure, SameOperandsAndResultType,
                                             Kiln_CheapToRecompute])> {
  let summary = summaryText;
  let description = semantics # "\n\n```mlir\n%0 = kiln." # mnemonic # " %x"
    # exampleAttrs # " : tensor<2x3xf32>\n```\n";
  let arguments = (ins tensorType:$operand);
  let results = (outs tensorType:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
}

def Kiln_ExpOp : Kiln_UnaryOp<"exp", "elementwise exponential", "`e ** x`.">;
def Kiln_Expm1Op : Kiln_UnaryOp<"expm1", "elementwise `exp(x) - 1`",
    "`exp(x) - 1`, accurate for `x` near 0.">;
def Kiln_LogOp : Kiln_UnaryOp<"log", "elementwise natural logarithm",
    "The natural logarithm; NaN for negative `x`, `-inf` at 0.">;
def Kiln_Log2Op : Kiln_UnaryOp<"log2", "elementwise base-2 logarithm",
    "The base-2 logarithm; NaN for negative `x`, `-inf` at 0.">;
def Kiln_Log10Op : Kiln_UnaryOp<"log10", "elementwise base-10 logarithm",
    "The base-10 logarithm; NaN for negative `x`, `-inf` at 0.">;
def Kiln_Log1pOp : Kiln_UnaryOp<"log1p", "elementwise `log(1 + x)`",
    "`log(1 + x)`, accurate for `x` near 0.">;
def Kiln_SqrtOp : Kiln_UnaryOp<"sqrt", "elementwise square root",
    "The square root; NaN for negative `x`.">;
def Kiln_RsqrtOp : Kiln_UnaryOp<"rsqrt", "elementwise reciprocal square root",
    "`1 / sqrt(x)`; `inf` at 0, NaN for negative `x`.">;
def Kiln_SinOp : Kiln_UnaryOp<"sin", "elementwise sine", "`sin(x)`, radians.">;
def Kiln_CosOp : Kiln_UnaryOp<"cos", "elementwise cosine", "`cos(x)`, radians.">;
def Kiln_TanhOp : Kiln_UnaryOp<"tanh", "elementwise hyperbolic tangent",
    "`tanh(x)`.">;
def Kiln_SigmoidOp : Kiln_UnaryOp<"sigmoid", "elementwise logistic sigmoid",
    "`1 / (1 + exp(-x))`.">;
def Kiln_ErfOp : Kiln_UnaryOp<"erf", "elementwise Gauss error function",
    "`erf(x)`.">;
def Kiln_ReluOp : Kiln_UnaryOp<"relu", "elementwise rectified linear unit",
    "`max(x, 0)`; NaN stays NaN, as `torch.relu`."> {
  let hasFolder = 1;
}
def Kiln_SiluOp : Kiln_UnaryOp<"silu", "elementwise sigmoid linear unit",
    "`x * sigmoid(x)` (also called swish).">;

def Kiln_LeakyReluOp : Kiln_UnaryOp<"leaky_relu", "elementwise leaky ReLU",
    "`x` where `x >= 0`, else `alpha * x`, as `torch.nn.functional.leaky_relu` "
    "with `negative_slope = alpha`. `alpha` defaults to 0.01 and must be "
    "finite.", Kiln_FloatTensor, [], " {alpha = 2.000000e-01 : f64}"> {
  let arguments = (ins Kiln_FloatTensor:$operand,
                       DefaultValuedAttr<F64Attr, "0.01">:$alpha);
  let hasVerifier = 1;
}

def Kiln_EluOp : Kiln_UnaryOp<"elu", "elementwise exponential linear unit",
    "`x` where `x > 0`, else `alpha * (exp(x) - 1)`, as "
    "`torch.nn.functional.elu`. `alpha` defaults to 1.0 and must be finite.",
    Kiln_FloatTensor, [], " {alpha = 5.000000e-01 : f64}"> {
  let arguments = (ins Kiln_FloatTensor:$operand,
                       DefaultValuedAttr<F64Attr, "1.0">:$alpha);
  let hasVerifier = 1;
}

def Kiln_GeluOp : Kiln_UnaryOp<"gelu", "elementwise Gaussian error linear unit",
    "`x * Phi(x)`, with `Phi` the standard normal CDF, as "
    "`torch.nn.functional.gelu`. With `approximate = tanh`, `Phi(x)` is "
    "approximated by `0.5 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x**3)))`.",
    Kiln_FloatTensor, [], " {approximate = #kiln.approximation<tanh>}"> {
  let arguments = (ins Kiln_FloatTensor:$operand,
      DefaultValuedAttr<Kiln_GeluApproximationAttr,
                        "::mlir::kiln::GeluApproximation::none">:$approximate);
}

def Kiln_ClampOp : Kiln_UnaryOp<"clamp", "elementwise clamp to a range",
    "`min(max(x, min), max)`, as `torch.clamp`: a NaN `x` stays NaN. At least "
    "one of `min` and `max` is set; neither is NaN (infinities are allowed), "
    "and `min <= max`. The bounds are rounded to the element type when the op "
    "is lowered.",
    Kiln_FloatTensor, [], " {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64}"> {
  let arguments = (ins Kiln_FloatTensor:$operand, OptionalAttr<F64Attr>:$min,
                       OptionalAttr<F64Attr>:$max);
  let hasVerifier = 1;
}

// Unary ops on floats and on i8/i32/i64.

def Kiln_NegOp : Kiln_UnaryOp<"neg", "elementwise negation",
    "`-x`; integers wrap around (`-INT_MIN == INT_MIN`).", Kiln_NumericTensor> {
  let hasFolder = 1;
}
def Kiln_AbsOp : Kiln_UnaryOp<"abs", "elementwise absolute value",
    "`|x|`; integers wrap around (`abs(INT_MIN) == INT_MIN`).",
    Kiln_NumericTensor> {
  let hasFolder = 1;
}
def Kiln_SignOp : Kiln_UnaryOp<"sign", "elementwise sign",
    "`(x > 0) - (x < 0)`: -1, 0 or 1, as `torch.sign`. Zeros of either "
    "sign give +0, and NaN gives 0 (PyTorch's behavior, unlike `np.sign`).",
    Kiln_NumericTensor>;

//===----------------------------------------------------------------------===//
// Element type conversion
//===----------------------------------------------------------------------===//

def Kiln_ConvertOp : Kiln_Op<"convert", [Pure, Kiln_CheapToRecompute]> {
  let summary = "elementwise element type conversion";
  let description = [{
    Converts each element to the result's element type; the shape is kept.
    The semantics follow PyTorch's `Tensor.to(dtype)`:

    - float to float rounds to nearest, ties to even;
    - float to integer truncates toward zero; values beyond the integer
      type's range (infinities included) saturate to its bound and NaN gives
      0 (PyTorch leaves these undefined);
    - integer to float rounds to nearest; integers are signed, except `i1`,
      which converts as 0 or 1;
    - integer to integer sign-extends or truncates (wraps around); `i1`
      zero-extends (true is 1);
    - any type to `i1` is `x != 0` (so NaN gives true).

    ```mlir
    %0 = kiln.convert %x : tensor<2x3xf32> to tensor<2x3xf16>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$operand);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `to` type($result)";
  let builders = [
    // Converts the ranked tensor `operand` to `elementType`, keeping its shape.
    OpBuilder<(ins "::mlir::Value":$operand, "::mlir::Type":$elementType)>
  ];
  let hasVerifier = 1;
  let hasFolder = 1;
}

#endif // KILN_DIALECT_KILN_IR_KILNELEMENTWISEOPS_TD
