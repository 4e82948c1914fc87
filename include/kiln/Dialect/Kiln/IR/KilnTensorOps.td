//===- KilnTensorOps.td - Creation, layout and shape kiln ops -----------===//
//
// Ops that create tensors or move their elements around without arithmetic:
// iota, broadcasts, reshapes, transposes, concatenation and splitting,
// slicing and padding, triangular masks, sliding windows and gathers; and
// index_add, the gathers' adjoint, which adds the slices it moves.
//
// Ops whose result type follows from their operands and attributes infer it
// (InferTypeOpAdaptor); their inferReturnTypes implementations check the
// attributes and emit the diagnostics, since inference runs before verify().
// Ops whose result type is given (iota, broadcast_to, reshape) check it in
// their verifier.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNTENSOROPS_TD
#define KILN_DIALECT_KILN_IR_KILNTENSOROPS_TD

include "kiln/Dialect/Kiln/IR/KilnBase.td"
include "kiln/Dialect/Kiln/IR/KilnAttrs.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Base classes
//===----------------------------------------------------------------------===//

/// A shape op on one tensor `input` whose result type is given explicitly
/// and checked by the verifier.
class Kiln_GivenShapeOp<string mnemonic, list<Trait> traits = []>
    : Kiln_Op<mnemonic, !listconcat(traits, [Pure])> {
  let arguments = (ins Kiln_Tensor:$input);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

/// A shape op on one tensor `input` and the attributes `attrs`, whose result
/// type is inferred from them. The C++ class implements the adaptor form of
/// inferReturnTypes, which also checks the attributes.
class Kiln_InferredShapeOp<string mnemonic, dag attrs,
                           list<Trait> traits = []>
    : Kiln_Op<mnemonic, !listconcat(traits, [Pure, InferTypeOpAdaptor])> {
  let arguments = !con((ins Kiln_Tensor:$input), attrs);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($result)
  }];
}

/// An op that indexes `data` along `axis` with the integer tensor `indices`.
class Kiln_IndexingOp<string mnemonic, list<Trait> traits = []>
    : Kiln_Op<mnemonic, !listconcat(traits, [Pure, InferTypeOpAdaptor])> {
  let arguments = (ins Kiln_Tensor:$data, Kiln_IndexTensor:$indices,
                       I64Attr:$axis);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $data `,` $indices attr-dict `:` functional-type(operands, results)
  }];
}

/// A triangular mask over the last two dims: the result has the operand's
/// type, elements outside the triangle are zero.
class Kiln_TriangularOp<string mnemonic, list<Trait> traits = []>
    : Kiln_Op<mnemonic, !listconcat(traits, [Pure,
          AllTypesMatch<["input", "result"]>])> {
  let arguments = (ins Kiln_Tensor:$input,
                       DefaultValuedAttr<I64Attr, "0">:$diagonal);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

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

def Kiln_IotaOp : Kiln_Op<"iota", [Pure]> {
  let summary = "a tensor whose elements count up along one axis";
  let description = [{
    Each element is its index along `axis`, converted to the element type of
    the given result type (integer or floating-point), like
    `torch.arange(n).expand(...)` along `axis`. `axis` is in `[0, rank)`.

    ```mlir
    %0 = kiln.iota {axis = 1} : tensor<2x3xi64>
    ```

    yields `[[0, 1, 2], [0, 1, 2]]`.
  }];
  let arguments = (ins I64Attr:$axis);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Broadcast and reshape
//===----------------------------------------------------------------------===//

def Kiln_BroadcastToOp : Kiln_GivenShapeOp<"broadcast_to", [Kiln_CheapToRecompute]> {
  let summary = "broadcasts a tensor to a given shape";
  let description = [{
    Broadcasts `input` NumPy-style to the result type: the shapes are aligned
    at their trailing dim and each dim of `input` equals the matching result
    dim or is 1. The element types are equal.

    ```mlir
    %0 = kiln.broadcast_to %x : tensor<3xf32> -> tensor<2x3xf32>
    ```
  }];
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Kiln_ReshapeOp : Kiln_GivenShapeOp<"reshape", [Kiln_CheapToRecompute]> {
  let summary = "reinterprets a tensor with another shape";
  let description = [{
    The elements of `input` in row-major order, laid out in the given result
    shape. The element types are equal and the element counts match.

    ```mlir
    %0 = kiln.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
    ```
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

def Kiln_TransposeOp : Kiln_InferredShapeOp<"transpose",
    (ins I64Attr:$dim0, I64Attr:$dim1), [Kiln_CheapToRecompute]> {
  let summary = "swaps two dims";
  let description = [{
    `torch.transpose(input, dim0, dim1)`: the result is `input` with dims
    `dim0` and `dim1` (both in `[0, rank)`) swapped.

    ```mlir
    %0 = kiln.transpose %x {dim0 = 0, dim1 = 1} : tensor<2x3xf32> -> tensor<3x2xf32>
    ```
  }];
  let hasFolder = 1;
}

def Kiln_PermuteOp : Kiln_InferredShapeOp<"permute",
    (ins DenseI64ArrayAttr:$permutation), [Kiln_CheapToRecompute]> {
  let summary = "reorders the dims";
  let description = [{
    `torch.permute(input, permutation)`: dim `i` of the result is dim
    `permutation[i]` of `input`. `permutation` is a permutation of
    `[0, rank)`.

    ```mlir
    %0 = kiln.permute %x {permutation = array<i64: 0, 2, 1>} : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
    ```
  }];
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Kiln_FlattenOp : Kiln_InferredShapeOp<"flatten",
    (ins I64Attr:$start_dim, I64Attr:$end_dim), [Kiln_CheapToRecompute]> {
  let summary = "merges a range of dims into one";
  let description = [{
    `torch.flatten(input, start_dim, end_dim)`: dims `start_dim` through
    `end_dim` (inclusive, `0 <= start_dim <= end_dim < rank`) are merged into
    one dim whose size is their product.

    ```mlir
    %0 = kiln.flatten %x {start_dim = 1, end_dim = 2} : tensor<2x3x4xf32> -> tensor<2x12xf32>
    ```
  }];
  let hasFolder = 1;
}

def Kiln_SqueezeOp : Kiln_InferredShapeOp<"squeeze",
    (ins DenseI64ArrayAttr:$dims), [Kiln_CheapToRecompute]> {
  let summary = "removes size-1 dims";
  let description = [{
    Removes the listed dims of `input`. `dims` is non-empty, each entry is in
    `[0, rank)`, appears once and names a dim of size 1.

    ```mlir
    %0 = kiln.squeeze %x {dims = array<i64: 0, 2>} : tensor<1x3x1xf32> -> tensor<3xf32>
    ```
  }];
  let hasFolder = 1;
}

def Kiln_UnsqueezeOp : Kiln_InferredShapeOp<"unsqueeze", (ins I64Attr:$dim),
    [Kiln_CheapToRecompute]> {
  let summary = "inserts a size-1 dim";
  let description = [{
    `torch.unsqueeze(input, dim)`: inserts a dim of size 1 at position `dim`
    of the result, in `[0, rank]` where `rank` is the rank of `input`.

    ```mlir
    %0 = kiln.unsqueeze %x {dim = 1} : tensor<2x3xf32> -> tensor<2x1x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Concatenation and splitting
//===----------------------------------------------------------------------===//

def Kiln_ConcatOp : Kiln_Op<"concat", [Pure, InferTypeOpAdaptor]> {
  let summary = "joins tensors along an axis";
  let description = [{
    `torch.cat(inputs, axis)`: one or more tensors of the same rank and
    element type, whose sizes agree on every dim but `axis`, joined along
    `axis`.

    ```mlir
    %0 = kiln.concat %a, %b {axis = 0} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
    ```
  }];
  let arguments = (ins Variadic<Kiln_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $inputs attr-dict `:` functional-type($inputs, $result)
  }];
  let hasFolder = 1;
}

def Kiln_SplitOp : Kiln_Op<"split", [Pure, InferTypeOpAdaptor]> {
  let summary = "splits a tensor into pieces along an axis";
  let description = [{
    `torch.split(input, split_sizes, axis)`: one result per entry of
    `split_sizes`, each the next `split_sizes[i]` slices of `input` along
    `axis`. The sizes are non-negative and sum to the size of `axis`.

    ```mlir
    %0:2 = kiln.split %x {axis = 0, split_sizes = array<i64: 1, 3>} : tensor<4x3xf32> -> tensor<1x3xf32>, tensor<3x3xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, I64Attr:$axis,
                       DenseI64ArrayAttr:$split_sizes);
  let results = (outs Variadic<Kiln_Tensor>:$results);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($results)
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Slicing and padding
//===----------------------------------------------------------------------===//

def Kiln_SliceOp : Kiln_InferredShapeOp<"slice",
    (ins DenseI64ArrayAttr:$starts, DenseI64ArrayAttr:$stops,
         DenseI64ArrayAttr:$strides)> {
  let summary = "takes a strided box out of a tensor";
  let description = [{
    Dim `d` of the result takes elements `starts[d]`, `starts[d] +
    strides[d]`, ... below `stops[d]` of dim `d` of `input`, so its size is
    `ceil((stops[d] - starts[d]) / strides[d])`. There is one entry per dim
    in each list, `0 <= start <= stop <= size` and `stride >= 1`.

    ```mlir
    %0 = kiln.slice %x {starts = array<i64: 0, 1>, stops = array<i64: 2, 5>, strides = array<i64: 1, 2>} : tensor<2x5xf32> -> tensor<2x2xf32>
    ```
  }];
  let hasFolder = 1;
}

def Kiln_PadOp : Kiln_InferredShapeOp<"pad",
    (ins DenseI64ArrayAttr:$low, DenseI64ArrayAttr:$high,
         DefaultValuedAttr<F64Attr, "0.0">:$value)> {
  let summary = "pads a tensor with a constant";
  let description = [{
    Adds `low[d]` elements before and `high[d]` elements after dim `d` of
    `input`, all equal to `value` (converted to the element type). There is
    one non-negative entry per dim in each list; negative padding (cropping)
    is rejected, use `kiln.slice`. For integer element types `value` is an
    integer that the type holds (0 or 1 for i1).

    ```mlir
    %0 = kiln.pad %x {low = array<i64: 0, 1>, high = array<i64: 2, 1>, value = 1.0} : tensor<2x3xf32> -> tensor<4x5xf32>
    ```
  }];
  let hasFolder = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Triangular masks and sliding windows
//===----------------------------------------------------------------------===//

def Kiln_TrilOp : Kiln_TriangularOp<"tril"> {
  let summary = "keeps the lower triangle of the last two dims";
  let description = [{
    `torch.tril(input, diagonal)`: element `[..., i, j]` is kept when
    `j - i <= diagonal` and is zero otherwise. `input` has rank >= 2.

    ```mlir
    %0 = kiln.tril %x {diagonal = 0} : tensor<2x4x4xf32>
    ```
  }];
}

def Kiln_TriuOp : Kiln_TriangularOp<"triu"> {
  let summary = "keeps the upper triangle of the last two dims";
  let description = [{
    `torch.triu(input, diagonal)`: element `[..., i, j]` is kept when
    `j - i >= diagonal` and is zero otherwise. `input` has rank >= 2.

    ```mlir
    %0 = kiln.triu %x {diagonal = 1} : tensor<4x4xf32>
    ```
  }];
}

def Kiln_UnfoldOp : Kiln_InferredShapeOp<"unfold",
    (ins I64Attr:$dim, I64Attr:$size, I64Attr:$step)> {
  let summary = "sliding windows along one dim";
  let description = [{
    `Tensor.unfold(dim, size, step)`: window `w` holds elements
    `w * step` to `w * step + size - 1` of dim `dim`. Dim `dim` of size `n`
    becomes the `(n - size) / step + 1` windows and a trailing dim of `size`
    is appended. `1 <= size <= n` and `step >= 1`.

    ```mlir
    %0 = kiln.unfold %x {dim = 1, size = 3, step = 1} : tensor<2x5xf32> -> tensor<2x3x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Gathers
//===----------------------------------------------------------------------===//

def Kiln_GatherOp : Kiln_IndexingOp<"gather"> {
  let summary = "takes slices of a tensor at the given indices";
  let description = [{
    `numpy.take(data, indices, axis)`: the result has shape
    `data.shape[:axis] + indices.shape + data.shape[axis+1:]`, where
    `result[a..., i..., b...] = data[a..., indices[i...], b...]`. An
    embedding lookup is a gather on axis 0 of the weight: `[V, D]` weights
    and `[B, S]` token ids give `[B, S, D]`.

    Index values out of `[0, data.shape[axis])` are not an error: lowerings
    clamp them to that range and never read out of bounds.

    ```mlir
    %0 = kiln.gather %w, %ids {axis = 0} : (tensor<10x4xf32>, tensor<2x5xi64>) -> tensor<2x5x4xf32>
    ```
  }];
}

def Kiln_IndexSelectOp : Kiln_IndexingOp<"index_select"> {
  let summary = "selects entries of one axis";
  let description = [{
    `torch.index_select(data, axis, indices)`: `indices` has rank 1 and the
    size of `axis` becomes its length; `result[..., i, ...] =
    data[..., indices[i], ...]`. Index values out of
    `[0, data.shape[axis])` are clamped to that range by lowerings.

    ```mlir
    %0 = kiln.index_select %x, %idx {axis = 1} : (tensor<2x5xf32>, tensor<3xi32>) -> tensor<2x3xf32>
    ```
  }];
}

def Kiln_IndexAddOp : Kiln_Op<"index_add", [Pure, InferTypeOpAdaptor]> {
  let summary = "adds slices into a tensor at the given indices";
  let description = [{
    `torch.index_add(dest, axis, indices, source)`: the result is `dest`,
    then for each `i` in order, `result[..., indices[i], ...] +=
    source[..., i, ...]`. `indices` has rank 1; `source` has `dest`'s shape
    with dim `axis` replaced by the number of indices, and the same element
    type; the result has `dest`'s type. Repeated indices accumulate. Index
    values out of `[0, dest.shape[axis])` are clamped to that range, exactly
    as `kiln.gather` and `kiln.index_select` clamp them, so that `index_add`
    is their adjoint: `<index_select(x, axis, indices), s> = <x,
    index_add(0, indices, s)>`.

    Integers wrap around on overflow; on `i1` the addition is a logical or,
    as PyTorch's `index_add` of bools. Lowerings accumulate f16 and bf16 in
    f32 and round once (PyTorch rounds after every addition).

    ```mlir
    %0 = kiln.index_add %x, %idx, %s {axis = 0} : (tensor<5x4xf32>, tensor<3xi64>, tensor<3x4xf32>) -> tensor<5x4xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$dest, Kiln_IndexTensor:$indices,
                       Kiln_Tensor:$source, I64Attr:$axis);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $dest `,` $indices `,` $source attr-dict `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
}

def Kiln_GatherPagesOp : Kiln_Op<"gather_pages", [Pure, InferTypeOpAdaptor]> {
  let summary = "the contiguous view of a paged KV cache";
  let description = [{
    A paged KV cache (vLLM's PagedAttention, FlashAttention's and PyTorch
    `varlen_attn`'s `block_table`) keeps keys or values in pages of `T`
    positions: `pages` is `[P, H, T, D]` (page, head, position in the page,
    feature; any element type) and `block_table` is `[B, M]` of i32 or i64,
    the pages of each batch entry's sequence in order. The result is the
    contiguous `[B, H, M * T, D]` cache that `kiln.attention` reads as its
    `key` or `value`, with `key_lengths` for the positions in use:

    ```
    result[b, h, m * T + t, d] = pages[block_table[b, m], h, t, d]
    ```

    Table entries out of `[0, P)` are clamped to that range, as
    `kiln.gather` clamps, so an unused entry reads some page and never out
    of bounds (`key_lengths` hides its positions). The pages' gradient adds
    each page-sized slice of the result's gradient into the page it came
    from (`kiln.index_add`, so a page listed twice gets both).

    ```mlir
    %k = kiln.gather_pages %pages, %table
        : (tensor<10x2x16x64xf16>, tensor<4x3xi32>) -> tensor<4x2x48x64xf16>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$pages, Kiln_IndexTensor:$block_table);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $pages `,` $block_table attr-dict `:` functional-type(operands, results)
  }];
}

#endif // KILN_DIALECT_KILN_IR_KILNTENSOROPS_TD
