// kiln.attention's sinks operand and kiln.attention_grad's optional results
// through the JSON graph format: attention_grad writes one "types" entry per
// result group, null for an absent d_mask, and export then import gives the
// same IR.
// RUN: kiln-translate --export-graph-json %s | FileCheck %s
// RUN: kiln-opt %s > %t.before.mlir
// RUN: kiln-translate --export-graph-json %s | kiln-translate --import-graph-json | kiln-opt > %t.after.mlir
// RUN: diff %t.before.mlir %t.after.mlir

// CHECK: "nodes": [
// CHECK-NEXT: {"id":"n0","op":"attention","inputs":["q","k","v",null,null,null,null,null,"s"],"attrs":{"causal":true},"types":[{"dtype":"f32","shape":[1,2,3,4]},{"dtype":"f32","shape":[1,2,3]}]},
// CHECK-NEXT: {"id":"n1","op":"attention_grad","inputs":["q","k","v","do",null,null,null,null,"n0:0","n0:1",null,"s"],"attrs":{"causal":true},"types":[{"dtype":"f32","shape":[1,2,3,4]},{"dtype":"f32","shape":[1,1,5,4]},{"dtype":"f32","shape":[1,1,5,4]},null,{"dtype":"f32","shape":[2]}]},
// CHECK-NEXT: {"id":"n2","op":"attention_grad","inputs":["q","k","v","do","m"],"types":[{"dtype":"f32","shape":[1,2,3,4]},{"dtype":"f32","shape":[1,1,5,4]},{"dtype":"f32","shape":[1,1,5,4]},{"dtype":"f32","shape":[3,5]}]}

func.func @attention_sinks(%q: tensor<1x2x3x4xf32>, %k: tensor<1x1x5x4xf32>, %v: tensor<1x1x5x4xf32>, %do: tensor<1x2x3x4xf32>, %s: tensor<2xf32>, %m: tensor<3x5xf32>)
    -> (tensor<1x2x3x4xf32>, tensor<2xf32>, tensor<3x5xf32>)
    attributes {kiln.input_names = ["q", "k", "v", "do", "s", "m"], kiln.output_names = ["o", "ds", "dm"]} {
  %o, %lse = kiln.attention %q, %k, %v sinks(%s : tensor<2xf32>) {causal}
      : tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x4xf32> -> tensor<1x2x3x4xf32>, tensor<1x2x3xf32>
  %dq, %dk, %dv, %ds = kiln.attention_grad %q, %k, %v, %do sinks(%s : tensor<2xf32>) out(%o : tensor<1x2x3x4xf32>) lse(%lse : tensor<1x2x3xf32>) {causal}
      : tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x4xf32>, tensor<1x2x3x4xf32>
      -> tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x4xf32>, tensor<2xf32>
  %dq2, %dk2, %dv2, %dm = kiln.attention_grad %q, %k, %v, %do mask(%m : tensor<3x5xf32>)
      : tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x4xf32>, tensor<1x2x3x4xf32>
      -> tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x4xf32>, tensor<3x5xf32>
  return %o, %ds, %dm : tensor<1x2x3x4xf32>, tensor<2xf32>, tensor<3x5xf32>
}
