//===- Passes.td - Kiln dialect transformation passes --------------------===//

#ifndef KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD
#define KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def KilnGraphSummaryPass : Pass<"kiln-graph-summary", "ModuleOp"> {
  let summary = "Print a summary of each function's ops and shapes";
  let description = [{
    For every function in the module, prints its argument and result types,
    the number of each kiln op it holds, the number of elements flowing
    through its arguments, and the largest intermediate tensor. The IR is
    not changed. The summary goes to the `output` file (`-` for stdout, the
    default) so it can be read next to the printed IR.

    ```
    func @loss: 13 args (812608 elements), 1 result
      results: tensor<f32>
      ops: 61 kiln (attention 1, matmul 8, ...)
      largest value: tensor<2x16x128xf32> (4096 elements) from kiln.gather
    ```
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where to write the summary (a path, or - for stdout)">,
  ];
}

def KilnAutodiffPass : Pass<"kiln-autodiff", "ModuleOp"> {
  let summary = "Reverse-mode automatic differentiation of kiln functions";
  let description = [{
    Replaces each `kiln.value_and_grad @f(...) {wrt = ...}` with a
    `func.call` of a generated function `@f_value_and_grad` (combined mode:
    the forward ops of `@f`, then the reverse sweep over its DAG in reverse
    program order) that returns the value of `@f` and its gradients with
    respect to the `wrt` arguments. With `function=f` (and optionally
    `wrt=0,1`, default: every floating-point argument) it generates the same
    function without the op.

    Only active values get adjoints: a value is active when it depends on a
    differentiated argument and reaches the result; integer and boolean
    values are inactive by type. Every active op needs a backward rule
    (`AutodiffOpInterface`); the rules only build kiln ops that have rules
    themselves, so the pass can run again on its output. The differentiated
    function must be a single block of ops without regions; a call in it must
    be inactive (`--inline` first). A `kiln.value_and_grad` inside a
    differentiated function is expanded first and its gradient inlined, so
    nesting gives second order.

    With `mode=split` (and `function=f`) it generates instead
    `@f_forward(args) -> (outputs..., residuals...)` and
    `@f_backward(residuals..., output cotangents...) -> (gradients...)`:
    the residuals are the forward values, arguments included, that the
    backward reads. `remat` chooses what the backward recomputes instead of
    reading (in both modes); `print-residuals` emits a remark per residual
    with its byte size, and the total.
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"\"",
           "Also generate the value-and-gradient function of this function">,
    ListOption<"wrt", "wrt", "int64_t",
               "With `function` (an error without it): the arguments to "
               "differentiate with respect "
               "to (default: every floating-point argument)">,
    Option<"mode", "mode", "::mlir::kiln::AutodiffMode",
           /*default=*/"::mlir::kiln::AutodiffMode::Combined",
           "The form generated for `function`",
           [{::llvm::cl::values(
             clEnumValN(::mlir::kiln::AutodiffMode::Combined, "combined",
                        "one @f_value_and_grad returning the value and the "
                        "gradients"),
             clEnumValN(::mlir::kiln::AutodiffMode::Split, "split",
                        "@f_forward returning the outputs and the residuals, "
                        "@f_backward taking the residuals and the output "
                        "cotangents"))}]>,
    Option<"remat", "remat", "::mlir::kiln::RematPolicy",
           /*default=*/"::mlir::kiln::RematPolicy::RecomputeAttention",
           "What the backward recomputes instead of reading from the forward",
           [{::llvm::cl::values(
             clEnumValN(::mlir::kiln::RematPolicy::SaveAll, "save-all",
                        "recompute nothing: attention is decomposed first, "
                        "so its probabilities are saved"),
             clEnumValN(::mlir::kiln::RematPolicy::RecomputeAttention,
                        "recompute-attention",
                        "attention_grad recomputes the probabilities"),
             clEnumValN(::mlir::kiln::RematPolicy::RecomputeElementwise,
                        "recompute-elementwise",
                        "also recompute cheap elementwise and layout ops "
                        "where that shrinks the residual bytes"))}]>,
    Option<"printResiduals", "print-residuals", "bool", /*default=*/"false",
           "Emit a remark per residual (type, bytes, defining op) and the "
           "total">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::kiln::KilnDialect"];
}

def KilnDecomposeAttentionPass : Pass<"kiln-decompose-attention"> {
  let summary = "Expand kiln.attention and kiln.attention_grad into primitive "
                "kiln ops";
  let description = [{
    Rewrites every `kiln.attention` and `kiln.attention_grad` nested under
    the op it runs on into primitive kiln ops (matmul, softmax, select,
    dropout, sum, ...) in the rank-5 grouped-query layout
    `[B, Hkv, R, Sq, .]`: Q and dO are reshaped to `[B, Hkv, R, Sq, D]`,
    K and V to `[B, Hkv, 1, Sk, D]`, and broadcast over `R` inside
    `kiln.matmul`, never repeated. Every mask form, softcap, dropout (the same
    Philox draws as the fused op, through `kiln.dropout`) and the exact-zero
    empty rows are kept. Every op of the result has a backward rule, so the
    decomposed graph can be differentiated again.

    The decomposition materializes `[B, Hq, Sq, Sk]` scores; it is a
    reference form and the basis of second-order differentiation, not a
    faster lowering.
  }];
  let dependentDialects = ["::mlir::kiln::KilnDialect"];
}

def KilnRaiseAttentionPass : Pass<"kiln-raise-attention"> {
  let summary = "Raise PyTorch's spellings of attention to kiln.attention";
  let description = [{
    Rewrites the forms in which PyTorch models (Hugging Face transformers
    imported through torch.export) spell attention into one
    `kiln.attention`, nested under the op it runs on, wherever the
    equivalence is proven on the IR (shapes, constants element by element,
    index arithmetic); everything else is left as it is. Nothing is folded;
    ops left dead by a rewrite are erased.

    - **Written-out attention.** `matmul(P, V)` with `P =
      [dropout(] [convert(] softmax([convert(] cap(scale * matmul(Q,
      transpose(K, 2, 3))) [+ mask] [)], axis = 3) [)] [)]` becomes
      `kiln.attention %Q, %K, %V [mask(...)] {scale, [softcap], [dropout_p]}`.
      `scale` is a scalar constant multiplier (`mul`) or divisor (`div`),
      absent meaning 1; `cap(s) = c * tanh(s / c)` with one scalar constant
      `c`; the converts are a softmax in a wider float type and back; a
      dropout with `p > 0` becomes `dropout_p` and `seed` (the fused op
      draws the same Philox mask at the same [B, Hq, Sq, Sk] index). Every
      intermediate has one use. The additive mask has Q's element type; a
      mask that may hold -inf (anything but finite constants, selects of
      them and layout ops) is raised only with `empty-rows-as-zero`: where
      it blocks a whole row the written-out softmax gives NaN and
      kiln.attention 0.
    - **Repeated K/V** (`repeat_kv`): K and V that are both
      `reshape(broadcast_to(x : [B, Hkv, 1, S, D] -> [B, Hkv, R, S, D]) ->
      [B, Hkv * R, S, D])`, with the same R, x an `unsqueeze` at 2 (or a
      reshape) of [B, Hkv, S, D], are replaced by the unrepeated tensors:
      query head h then reads kv head h / (R0 R), as before.
    - **Boolean masks that are bands.** The mask is split into a
      conjunction (`kiln.mul` on i1, `select(a, b, false)`) through layout
      ops that keep each element's index (broadcast_to, reshapes of size-1
      dims, prefix slices). A term that depends on both the query position
      i and the key position j must be a band `lo <= j - i <= hi`: an i1
      constant checked on every element, or `lt`/`le`/`gt`/`ge`/`eq` of
      index expressions (`kiln.iota` along the query or key dim, integer
      constants, `add`, `sub`, converts). The bands and the op's own band
      become `causal` / `window_left` / `window_right` with `alignment =
      top_left` (bottom_right when only that represents them, or when the
      op had a band in it). Terms independent of i or of j stay as the
      mask, at their own shape (never broadcast to [Sq, Sk]). Any other
      term that depends on both leaves the op alone.
    - **Additive masks.** A sum of `select(m, 0, C)` and of constants
      holding only 0 and C, with C = -inf, becomes the boolean mask (the
      op treats a -inf bias as a blocked key); with C finite and at most
      the type's lowest value (`torch.finfo(dtype).min`, what Hugging Face
      builds) only with `empty-rows-as-zero`, since kiln.attention gives an
      empty row 0 where the finite bias gives the mean of V.

    See docs/Attention.md, "Raising attention from PyTorch graphs", for the
    exact forms.
  }];
  let options = [
    Option<"emptyRowsAsZero", "empty-rows-as-zero", "bool",
           /*default=*/"false",
           "Accept that rows in which the mask leaves no key visible become "
           "0 (kiln.attention's empty row): raise finfo.min additive masks "
           "to boolean masks and bands, and written-out attention with an "
           "additive mask that may hold -inf">,
  ];
  let dependentDialects = ["::mlir::kiln::KilnDialect"];
}

#endif // KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD
