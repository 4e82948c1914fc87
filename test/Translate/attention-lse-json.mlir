// kiln.attention's optional lse result and kiln.attention_grad's out/lse
// operands through the JSON graph format: the lse form writes its "types"
// (inference gives the one-result form), and export then import gives the
// same IR.
// RUN: kiln-translate --export-graph-json %s | FileCheck %s
// RUN: kiln-opt %s > %t.before.mlir
// RUN: kiln-translate --export-graph-json %s | kiln-translate --import-graph-json | kiln-opt > %t.after.mlir
// RUN: diff %t.before.mlir %t.after.mlir

// CHECK: "nodes": [
// CHECK-NEXT: {"id":"n0","op":"attention","inputs":["q","k","v"],"attrs":{"causal":true},"types":[{"dtype":"f32","shape":[1,2,3,4]},{"dtype":"f32","shape":[1,2,3]}]},
// CHECK-NEXT: {"id":"n1","op":"attention_grad","inputs":["q","k","v","do",null,null,null,null,"n0:0","n0:1"],"attrs":{"causal":true},"types":
// CHECK: "outputs": [
// CHECK-NEXT: {"name":"o","value":"n0:0"},
// CHECK-NEXT: {"name":"lse","value":"n0:1"},
// CHECK-NEXT: {"name":"dq","value":"n1:0"}

func.func @attention_lse(%q: tensor<1x2x3x4xf32>, %k: tensor<1x1x5x4xf32>, %v: tensor<1x1x5x4xf32>, %do: tensor<1x2x3x4xf32>)
    -> (tensor<1x2x3x4xf32>, tensor<1x2x3xf32>, tensor<1x2x3x4xf32>)
    attributes {kiln.input_names = ["q", "k", "v", "do"], kiln.output_names = ["o", "lse", "dq"]} {
  %o, %lse = kiln.attention %q, %k, %v {causal}
      : tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x4xf32> -> tensor<1x2x3x4xf32>, tensor<1x2x3xf32>
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do out(%o : tensor<1x2x3x4xf32>) lse(%lse : tensor<1x2x3xf32>) {causal}
      : tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x4xf32>, tensor<1x2x3x4xf32>
      -> tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x4xf32>
  return %o, %lse, %dq : tensor<1x2x3x4xf32>, tensor<1x2x3xf32>, tensor<1x2x3x4xf32>
}
