// An unwritable summary file fails the pass with the option and the reason,
// before any output and without printing the module.
// RUN: not kiln-opt %s --kiln-graph-summary="output=%t.missing/summary.txt" -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=builtin.module --implicit-check-not="see current operation"

// CHECK: <unknown>:0: error: kiln-graph-summary: output={{.*}}.missing/summary.txt: cannot open output file '{{.*}}summary.txt': {{.+}}
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
