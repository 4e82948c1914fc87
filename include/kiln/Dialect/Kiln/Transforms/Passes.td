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

#endif // KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD
