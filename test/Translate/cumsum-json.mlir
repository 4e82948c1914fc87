// kiln.cumsum through the JSON graph format: its axis, and `reverse` only
// when set (false is the default); the import infers the result type.
// Export then import gives the same IR. A reverse that is not a bool is an
// error of the import.
// RUN: kiln-translate --export-graph-json %s | FileCheck %s
// RUN: kiln-opt %s > %t.before.mlir
// RUN: kiln-translate --export-graph-json %s | kiln-translate --import-graph-json | kiln-opt > %t.after.mlir
// RUN: diff %t.before.mlir %t.after.mlir
// RUN: kiln-translate --export-graph-json %s | sed 's/"reverse":true/"reverse":1/' > %t.bad.json
// RUN: not kiln-translate --import-graph-json %t.bad.json 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK: "nodes": [
// CHECK-NEXT: {"id":"n0","op":"cumsum","inputs":["x"],"attrs":{"axis":1}},
// CHECK-NEXT: {"id":"n1","op":"cumsum","inputs":["n0:0"],"attrs":{"axis":0,"reverse":true}}
// BAD: error: nodes[1] (id "n1").attrs.reverse: expected a boolean, got an integer

func.func @cumsum(%x: tensor<4x3xi64>) -> tensor<4x3xi64>
    attributes {kiln.input_names = ["x"], kiln.output_names = ["y"]} {
  %0 = kiln.cumsum %x {axis = 1 : i64} : tensor<4x3xi64>
  %1 = kiln.cumsum %0 {axis = 0 : i64, reverse = true} : tensor<4x3xi64>
  return %1 : tensor<4x3xi64>
}
