//===- KilnConvOps.td - Convolution, pooling and upsampling kiln ops ------===//
//
// PyTorch's convolutions, 2-d pooling and 2-d upsampling on batched tensors in
// NC + spatial layout ([N, C, D...]). All operands are floating-point tensors
// of one element type; every op infers its result type from its operand types
// and attributes with PyTorch's output-size formulas.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNCONVOPS_TD
#define KILN_DIALECT_KILN_IR_KILNCONVOPS_TD

include "kiln/Dialect/Kiln/IR/KilnBase.td"
include "kiln/Dialect/Kiln/IR/KilnAttrs.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

/// The C++ initializer `{v, v, ...}` with `n` entries: the default value of a
/// per-spatial-dim DenseI64ArrayAttr.
class Kiln_SplatList<int v, int n> {
  string value = "{" # !interleave(!listsplat(v, n), ", ") # "}";
}

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

/// A convolution over `spatialRank` spatial dims (PyTorch's convNd). The
/// verifier and the type inference of all ranks share one C++ implementation,
/// parametrised by the spatial rank.
class Kiln_ConvNdOp<string mnemonic, int spatialRank>
    : Kiln_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let arguments = (ins
    Kiln_FloatTensor:$input,
    Kiln_FloatTensor:$weight,
    Optional<Kiln_FloatTensor>:$bias,
    DefaultValuedAttr<DenseI64ArrayAttr,
                      Kiln_SplatList<1, spatialRank>.value>:$stride,
    DefaultValuedAttr<DenseI64ArrayAttr,
                      Kiln_SplatList<0, spatialRank>.value>:$padding,
    DefaultValuedAttr<DenseI64ArrayAttr,
                      Kiln_SplatList<1, spatialRank>.value>:$dilation,
    DefaultValuedAttr<I64Attr, "1">:$groups
  );
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`bias` `(` $bias^ `)`)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> loc,
        Adaptor adaptor,
        ::llvm::SmallVectorImpl<::mlir::Type> &inferredReturnTypes) {
      Adaptor full = withDefaults<$cppClass>(context, adaptor);
      return inferConvNdResult(ErrorEmitter{nullptr, loc},
                               /*spatialRank=*/}] # spatialRank # [{,
                               full.getOperands(), full.getStride(),
                               full.getPadding(), full.getDilation(),
                               inferredReturnTypes);
    }
    ::llvm::LogicalResult $cppClass::verify() {
      return verifyConvNd(getOperation(), /*spatialRank=*/}] # spatialRank # [{,
                          getInput(), getWeight(), getBias(), getStride(),
                          getPadding(), getDilation(), getGroups());
    }
  }];
}

def Kiln_Conv1dOp : Kiln_ConvNdOp<"conv1d", 1> {
  let summary = "1-d convolution (PyTorch's conv1d)";
  let description = [{
    Convolves `input` `[N, Cin, L]` with `weight` `[Cout, Cin / groups, K]`
    and adds the optional `bias` `[Cout]` per output channel. The result is
    `[N, Cout, Lo]` with

        Lo = floor((L + 2 * padding - dilation * (K - 1) - 1) / stride) + 1

    which must be at least 1. `stride`, `padding` (symmetric, added on both
    sides) and `dilation` have one entry; they default to 1, 0 and 1.
    `groups` (default 1) must divide both Cin and Cout.

    ```mlir
    %0 = kiln.conv1d %x, %w bias(%b) {stride = array<i64: 2>, padding = array<i64: 1>}
        : (tensor<1x4x16xf32>, tensor<8x4x3xf32>, tensor<8xf32>) -> tensor<1x8x8xf32>
    ```
  }];
}

def Kiln_Conv2dOp : Kiln_ConvNdOp<"conv2d", 2> {
  let summary = "2-d convolution (PyTorch's conv2d)";
  let description = [{
    Convolves `input` `[N, Cin, H, W]` with `weight`
    `[Cout, Cin / groups, KH, KW]` and adds the optional `bias` `[Cout]` per
    output channel. The result is `[N, Cout, Ho, Wo]`, each spatial size being

        out = floor((in + 2 * padding - dilation * (k - 1) - 1) / stride) + 1

    which must be at least 1. `stride`, `padding` (symmetric, added on both
    sides of its dim) and `dilation` have one entry per spatial dim; they
    default to all 1, all 0 and all 1. `groups` (default 1) must divide both
    Cin and Cout.

    ```mlir
    %0 = kiln.conv2d %x, %w bias(%b) {padding = array<i64: 1, 1>, groups = 2 : i64}
        : (tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<2x6x8x8xf32>
    ```
  }];
}

def Kiln_Conv3dOp : Kiln_ConvNdOp<"conv3d", 3> {
  let summary = "3-d convolution (PyTorch's conv3d)";
  let description = [{
    Convolves `input` `[N, Cin, D, H, W]` with `weight`
    `[Cout, Cin / groups, KD, KH, KW]` and adds the optional `bias` `[Cout]`
    per output channel. The result is `[N, Cout, Do, Ho, Wo]`, each spatial
    size being

        out = floor((in + 2 * padding - dilation * (k - 1) - 1) / stride) + 1

    which must be at least 1. `stride`, `padding` (symmetric) and `dilation`
    have one entry per spatial dim; they default to all 1, all 0 and all 1.
    `groups` (default 1) must divide both Cin and Cout.

    ```mlir
    %0 = kiln.conv3d %x, %w {dilation = array<i64: 1, 2, 2>}
        : (tensor<1x2x4x9x9xf32>, tensor<4x2x1x3x3xf32>) -> tensor<1x4x4x5x5xf32>
    ```
  }];
}

def Kiln_ConvTranspose1dOp : Kiln_Op<"conv_transpose1d",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "1-d transposed convolution (PyTorch's conv_transpose1d)";
  let description = [{
    The gradient of `conv1d` with respect to its input: scatters `input`
    `[N, Cin, L]` through `weight` `[Cin, Cout / groups, K]` and adds the
    optional `bias` `[Cout]`. The result is `[N, Cout, Lo]` with
    `Cout = groups * weight dim 1` and

        Lo = (L - 1) * stride - 2 * padding + dilation * (K - 1)
             + output_padding + 1

    which must be at least 1. `output_padding` adds to one side of the output
    only and, as in PyTorch, must be smaller than `stride` or than
    `dilation`. `stride`, `padding`, `output_padding` and `dilation` have one
    entry each; they default to 1, 0, 0 and 1. `groups` (default 1) must
    divide Cin.

    ```mlir
    %0 = kiln.conv_transpose1d %x, %w bias(%b) {stride = array<i64: 2>, padding = array<i64: 1>, output_padding = array<i64: 1>}
        : (tensor<1x4x8xf32>, tensor<4x3x3xf32>, tensor<3xf32>) -> tensor<1x3x16xf32>
    ```
  }];
  let arguments = (ins
    Kiln_FloatTensor:$input,
    Kiln_FloatTensor:$weight,
    Optional<Kiln_FloatTensor>:$bias,
    DefaultValuedAttr<DenseI64ArrayAttr, "{1}">:$stride,
    DefaultValuedAttr<DenseI64ArrayAttr, "{0}">:$padding,
    DefaultValuedAttr<DenseI64ArrayAttr, "{0}">:$output_padding,
    DefaultValuedAttr<DenseI64ArrayAttr, "{1}">:$dilation,
    DefaultValuedAttr<I64Attr, "1">:$groups
  );
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`bias` `(` $bias^ `)`)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// A 2-d pooling op on `[N, C, H, W]` with PyTorch's output-size rule. Its
/// arguments are the input, `kernel_size`, an optional `stride`, `padding`,
/// the op's `extraArgs` (which hold `dilation` when `hasDilation` is set) and
/// `ceil_mode`. An op without a dilation attribute pools with dilation 1.
class Kiln_Pool2dOp<string mnemonic, dag extraArgs, bit hasDilation>
    : Kiln_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  defvar noDilation = "::llvm::SmallVector<int64_t>{1, 1}";
  let arguments = !con(
    (ins Kiln_FloatTensor:$input,
         DenseI64ArrayAttr:$kernel_size,
         OptionalAttr<DenseI64ArrayAttr>:$stride,
         DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding),
    extraArgs,
    (ins DefaultValuedAttr<BoolAttr, "false">:$ceil_mode));
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> loc,
        Adaptor adaptor,
        ::llvm::SmallVectorImpl<::mlir::Type> &inferredReturnTypes) {
      Adaptor full = withDefaults<$cppClass>(context, adaptor);
      return inferPool2dResult(ErrorEmitter{nullptr, loc}, full.getOperands(),
                               full.getKernelSizeAttr(), full.getStride(),
                               full.getPadding(), }] #
                               !if(hasDilation, "full.getDilation()",
                                   noDilation) # [{,
                               full.getCeilMode(), inferredReturnTypes);
    }
    ::llvm::LogicalResult $cppClass::verify() {
      return verifyPool2d(getOperation(), getKernelSizeAttr(), getStride(),
                          getPadding(), }] #
                          !if(hasDilation, "getDilation()", noDilation) # [{,
                          getCeilMode());
    }
    ::mlir::OpFoldResult $cppClass::fold(FoldAdaptor) {
      return foldPool2d(getInput(), getKernelSize(), getStride(), getPadding(),
                        getType());
    }
  }];
}

def Kiln_MaxPool2dOp : Kiln_Pool2dOp<"max_pool2d",
    (ins DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilation),
    /*hasDilation=*/1> {
  let summary = "2-d max pooling (PyTorch's max_pool2d)";
  let description = [{
    The maximum of each `kernel_size` window (taps `dilation` apart) of
    `input` `[N, C, H, W]`, padded with -inf by `padding` on both sides of
    each spatial dim. The result is `[N, C, Ho, Wo]`, each spatial size being

        out = floor_or_ceil((in + 2 * padding - dilation * (k - 1) - 1)
                            / stride) + 1

    rounding up when `ceil_mode` is set; then, as in PyTorch, a last window
    that would start at or after `in + padding` (inside the right padding
    only) is dropped: `out -= 1` when `(out - 1) * stride >= in + padding`.
    The size must be at least 1.

    `kernel_size`, `stride`, `padding` and `dilation` have 2 entries (H, W).
    `stride` is optional and defaults to `kernel_size` (PyTorch's
    `stride=None`); `padding` defaults to 0 and `dilation` to 1. Every
    `padding` entry must be at most half its `kernel_size` entry (PyTorch's
    rule). A 1x1 window with stride 1 and no padding folds to the input.

    ```mlir
    %0 = kiln.max_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode = true}
        : (tensor<1x3x8x8xf32>) -> tensor<1x3x5x5xf32>
    ```
  }];
}

def Kiln_AvgPool2dOp : Kiln_Pool2dOp<"avg_pool2d",
    (ins DefaultValuedAttr<BoolAttr, "true">:$count_include_pad),
    /*hasDilation=*/0> {
  let summary = "2-d average pooling (PyTorch's avg_pool2d)";
  let description = [{
    The mean of each `kernel_size` window of `input` `[N, C, H, W]`, padded
    with zeros by `padding` on both sides of each spatial dim. The result is
    `[N, C, Ho, Wo]` with the output-size rule of `kiln.max_pool2d` (dilation
    1), `ceil_mode` included.

    The divisor of a window is its size clipped to the padded input
    (`in + padding` on each side) when `count_include_pad` is true (the
    default), and the number of its taps inside the unpadded input when it is
    false. PyTorch's `divisor_override` is not modelled.

    `kernel_size`, `stride` and `padding` have 2 entries (H, W). `stride` is
    optional and defaults to `kernel_size`; `padding` defaults to 0 and every
    entry must be at most half its `kernel_size` entry. A 1x1 window with
    stride 1 and no padding folds to the input.

    ```mlir
    %0 = kiln.avg_pool2d %x {kernel_size = array<i64: 2, 2>, count_include_pad = false}
        : (tensor<1x3x7x7xf32>) -> tensor<1x3x3x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Upsampling
//===----------------------------------------------------------------------===//

def Kiln_Upsample2dOp : Kiln_Op<"upsample2d", [Pure, InferTypeOpAdaptor]> {
  let summary = "2-d resize to a given size (PyTorch's interpolate)";
  let description = [{
    Resizes the spatial dims of `input` `[N, C, H, W]` to `size` (Ho, Wo),
    giving `[N, C, Ho, Wo]`. H, W, Ho and Wo must be at least 1. Despite the
    name, `size` may also be smaller than the input.

    With `mode = #kiln.upsample_mode<nearest>` (the default), output index
    `dst` along a dim of input size `in` and output size `out` reads input
    index

        src = min(floor(float32(dst) * float32(in / out)), in - 1)

    with the scale `in / out` and the product rounded to float32, exactly as
    PyTorch's legacy `nearest` (not `nearest-exact`) computes it; this is
    sometimes one less than the exact `floor(dst * in / out)` (e.g. 26 to 22
    at dst 11 reads 12).

    With `mode = #kiln.upsample_mode<bilinear>`, each output element
    interpolates linearly along H and along W between input indices
    `floor(src)` and `min(floor(src) + 1, in - 1)` with weight
    `src - floor(src)`, where

        align_corners = true:  src = dst * (in - 1) / (out - 1)  (0 if out = 1)
        align_corners = false: src = max((dst + 0.5) * in / out - 0.5, 0)

    `align_corners` (default false) only has a meaning for bilinear and must
    be false with nearest. Resizing to the input's own size folds to the
    input in every mode.

    ```mlir
    %0 = kiln.upsample2d %x {size = array<i64: 8, 12>, mode = #kiln.upsample_mode<bilinear>, align_corners = true}
        : (tensor<1x3x4x6xf32>) -> tensor<1x3x8x12xf32>
    ```
  }];
  let arguments = (ins
    Kiln_FloatTensor:$input,
    DenseI64ArrayAttr:$size,
    DefaultValuedAttr<Kiln_UpsampleModeAttr,
                      "::mlir::kiln::UpsampleMode::nearest">:$mode,
    DefaultValuedAttr<BoolAttr, "false">:$align_corners
  );
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

#endif // KILN_DIALECT_KILN_IR_KILNCONVOPS_TD
