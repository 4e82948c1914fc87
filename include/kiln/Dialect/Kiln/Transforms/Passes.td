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

#endif // KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD
