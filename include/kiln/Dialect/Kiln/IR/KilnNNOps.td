//===- KilnNNOps.td - Training-helper kiln ops ----------------------------===//
//
// Ops that model training layers as single ops: dropout, the cross-entropy
// loss and the normalization layers. Every op infers its result type.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNNNOPS_TD
#define KILN_DIALECT_KILN_IR_KILNNNOPS_TD

include "kiln/Dialect/Kiln/IR/KilnBase.td"
include "kiln/Dialect/Kiln/IR/KilnAttrs.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Dropout
//===----------------------------------------------------------------------===//

// ODS derives InferTypeOpInterface from AllTypesMatch on the ops below whose
// result has the type of `input`.

def Kiln_DropoutOp : Kiln_Op<"dropout",
    [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "zeroes elements with probability p, seeded";
  let description = [{
    Inverted dropout: each element of `input` is kept with probability
    `1 - p` and then scaled by `1 / (1 - p)`, or replaced by 0 with
    probability `p`. `p` is in `[0, 1)`; `p = 0` is the identity.

    The op is pure: its randomness is a function of the rank-0 i64 `seed`
    operand. The keep decision for the element at row-major flat index `n` is
    a function of `(seed, n)` only, drawn from the counter-based Philox 4x32-10
    generator, so the forward pass and its gradient (which recomputes the
    mask from the same seed) draw the same mask, and no state is carried
    between ops. Concretely, Philox 4x32-10 runs with key
    `(lo32(seed), hi32(seed))` on counter `(lo32(n / 4), hi32(n / 4), 0, 0)`;
    its output word `n % 4`, read as `u = word * 2^-32` in `[0, 1)`, keeps
    the element when `u >= p`.

    ```mlir
    %0 = kiln.dropout %x, %seed {p = 1.000000e-01 : f64} : tensor<4x8xf32>, tensor<i64>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input, Kiln_SeedTensor:$seed,
                       F64Attr:$p);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $seed attr-dict `:` type($input) `,` type($seed)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input, "::mlir::Value":$seed,
                   "double":$p), [{
      build($_builder, $_state, input, seed, $_builder.getF64FloatAttr(p));
    }]>
  ];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Cross entropy
//===----------------------------------------------------------------------===//

def Kiln_CrossEntropyOp : Kiln_Op<"cross_entropy",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "softmax cross-entropy loss of logits against class labels";
  let description = [{
    The cross-entropy loss of `logits` (`[N, C]`, unnormalized scores of `C`
    classes for `N` samples) against `labels` (`[N]`, class indices in
    `[0, C)`), as `torch.nn.functional.cross_entropy` with class-index
    targets: sample `i` contributes `-log_softmax(logits[i])[labels[i]]`,
    or 0 when `labels[i] == ignore_index`.

    - `reduction = none`: the result is `[N]`, one loss per sample (0 at
      ignored samples).
    - `reduction = sum`: the result is rank 0, the sum over samples.
    - `reduction = mean` (default): the result is rank 0, the sum divided by
      the number of samples whose label is not `ignore_index`. Kiln follows
      PyTorch exactly here: when every label is ignored (or `N = 0`) this is
      `0 / 0 = NaN`.

    The result has the element type of `logits`. `ignore_index` defaults to
    -100, as in PyTorch. Labels are compared with `ignore_index` as i64. A
    label outside `[0, C)` that is not `ignore_index` is a run-time error of
    the values, not of the IR: the lowerings give its sample a NaN loss, and
    the backward rule a NaN gradient row.

    ```mlir
    %0 = kiln.cross_entropy %logits, %labels {reduction = #kiln.reduction<sum>}
        : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<f32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$logits, Kiln_IndexTensor:$labels,
                       DefaultValuedAttr<Kiln_LossReductionAttr,
                           "::mlir::kiln::LossReduction::mean">:$reduction,
                       DefaultValuedAttr<I64Attr, "-100">:$ignore_index);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = [{
    $logits `,` $labels attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Normalization layers
//===----------------------------------------------------------------------===//

/// A normalization over the last `normalized_rank` dims of `input`, with the
/// result of the input's type. `parameters` are the optional affine operands,
/// each of the normalized shape; `epsilonDefault` is the default epsilon.
class Kiln_NormalizationOp<string mnemonic, dag parameters,
                           string epsilonDefault, list<Trait> traits = []>
    : Kiln_Op<mnemonic, !listconcat(traits,
          [Pure, AllTypesMatch<["input", "result"]>])> {
  let arguments = !con((ins Kiln_FloatTensor:$input), parameters,
                       (ins DefaultValuedAttr<I64Attr, "1">:$normalized_rank,
                            DefaultValuedAttr<F64Attr, epsilonDefault>:$epsilon));
  let results = (outs Kiln_FloatTensor:$result);
  let hasVerifier = 1;
}

def Kiln_LayerNormOp : Kiln_NormalizationOp<"layer_norm",
    (ins Optional<Kiln_FloatTensor>:$weight, Optional<Kiln_FloatTensor>:$bias),
    "1.0e-05", [AttrSizedOperandSegments]> {
  let summary = "layer normalization over the trailing dims";
  let description = [{
    Normalizes `input` over its last `normalized_rank` dimensions (the
    normalized shape; `1 <= normalized_rank <= rank`), as
    `torch.nn.functional.layer_norm`:
    `y = (x - mean(x)) / sqrt(var(x) + epsilon) * weight + bias`, where the
    mean and the biased variance (`correction = 0`) are taken over the
    normalized shape. `weight` and `bias` are optional (absent: 1 and 0); when
    present each has exactly the normalized shape and the element type of
    `input`. `epsilon` (default 1e-5) is positive and finite.

    ```mlir
    %0 = kiln.layer_norm %x weight(%w : tensor<8xf32>) bias(%b : tensor<8xf32>)
        {epsilon = 1.000000e-05 : f64, normalized_rank = 1 : i64} : tensor<2x8xf32>
    ```
  }];
  let assemblyFormat = [{
    $input (`weight` `(` $weight^ `:` type($weight) `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)? attr-dict `:` type($input)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input,
                   CArg<"::mlir::Value", "{}">:$weight,
                   CArg<"::mlir::Value", "{}">:$bias,
                   CArg<"int64_t", "1">:$normalizedRank,
                   CArg<"double", "1.0e-05">:$epsilon), [{
      build($_builder, $_state, input, weight, bias,
            $_builder.getI64IntegerAttr(normalizedRank),
            $_builder.getF64FloatAttr(epsilon));
    }]>
  ];
}

def Kiln_RmsNormOp : Kiln_NormalizationOp<"rms_norm",
    (ins Optional<Kiln_FloatTensor>:$weight), "1.0e-06"> {
  let summary = "root-mean-square normalization over the trailing dims";
  let description = [{
    Normalizes `input` by its root mean square over its last
    `normalized_rank` dimensions (`1 <= normalized_rank <= rank`), as
    `torch.nn.functional.rms_norm`:
    `y = x / sqrt(mean(x^2) + epsilon) * weight`. `weight` is optional
    (absent: 1); when present it has exactly the normalized shape and the
    element type of `input`. `epsilon` is positive and finite; its default,
    1e-6, is the usual value of transformer models (PyTorch's own default is
    the machine epsilon of the element type), so front ends pass it
    explicitly when they mean PyTorch's.

    ```mlir
    %0 = kiln.rms_norm %x weight(%w : tensor<8xf32>) {normalized_rank = 1 : i64} : tensor<2x8xf32>
    ```
  }];
  let assemblyFormat = [{
    $input (`weight` `(` $weight^ `:` type($weight) `)`)? attr-dict
    `:` type($input)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input,
                   CArg<"::mlir::Value", "{}">:$weight,
                   CArg<"int64_t", "1">:$normalizedRank,
                   CArg<"double", "1.0e-06">:$epsilon), [{
      build($_builder, $_state, input, weight,
            $_builder.getI64IntegerAttr(normalizedRank),
            $_builder.getF64FloatAttr(epsilon));
    }]>
  ];
}

#endif // KILN_DIALECT_KILN_IR_KILNNNOPS_TD
