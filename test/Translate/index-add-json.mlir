// kiln.index_add through the JSON graph format: its three inputs in ODS
// order and its axis; export then import gives the same IR.
// RUN: kiln-translate --export-graph-json %s | FileCheck %s
// RUN: kiln-opt %s > %t.before.mlir
// RUN: kiln-translate --export-graph-json %s | kiln-translate --import-graph-json | kiln-opt > %t.after.mlir
// RUN: diff %t.before.mlir %t.after.mlir

// CHECK: "nodes": [
// CHECK-NEXT: {"id":"n0","op":"index_add","inputs":["x","ids","s"],"attrs":{"axis":1}}

func.func @index_add(%x: tensor<2x5x3xf32>, %ids: tensor<4xi64>, %s: tensor<2x4x3xf32>) -> tensor<2x5x3xf32>
    attributes {kiln.input_names = ["x", "ids", "s"], kiln.output_names = ["y"]} {
  %0 = kiln.index_add %x, %ids, %s {axis = 1 : i64} : (tensor<2x5x3xf32>, tensor<4xi64>, tensor<2x4x3xf32>) -> tensor<2x5x3xf32>
  return %0 : tensor<2x5x3xf32>
}
