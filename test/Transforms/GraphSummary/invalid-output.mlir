// An unwritable summary file fails the pass with the reason, before any output.
// RUN: not kiln-opt %s --kiln-graph-summary="output=%t.missing/summary.txt" -o /dev/null 2>&1 | FileCheck %s

// CHECK: error: kiln-graph-summary: cannot open output file '{{.*}}summary.txt': {{.+}}
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
