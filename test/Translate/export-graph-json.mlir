// The export of kiln IR, and export then import gives the same IR.
// RUN: kiln-translate --export-graph-json %s | FileCheck %s
// RUN: kiln-opt %s > %t.before.mlir
// RUN: kiln-translate --export-graph-json %s | kiln-translate --import-graph-json | kiln-opt > %t.after.mlir
// RUN: diff %t.before.mlir %t.after.mlir

// CHECK: "name": "block",
// CHECK: "inputs": [
// CHECK-NEXT: {"name":"x","dtype":"f32","shape":[2,4]},
// CHECK-NEXT: {"name":"labels","dtype":"i64","shape":[2]}
// CHECK: "parameters": [
// CHECK-NEXT: {"name":"w","dtype":"f32","shape":[4,3],"splat":0.5}
// CHECK: "nodes": [
// CHECK-NEXT: {"id":"n0","op":"constant","attrs":{"value":{"dtype":"f32","shape":[],"data":[1e-06]}}},
// CHECK-NEXT: {"id":"n1","op":"mul","inputs":["x","x"]},
// CHECK-NEXT: {"id":"n2","op":"mean","inputs":["n1:0"],"attrs":{"axes":[1],"keep_dims":true}},
// CHECK-NEXT: {"id":"n3","op":"add","inputs":["n2:0","n0:0"]},
// CHECK-NEXT: {"id":"n4","op":"rsqrt","inputs":["n3:0"]},
// CHECK-NEXT: {"id":"n5","op":"mul","inputs":["x","n4:0"]},
// CHECK-NEXT: {"id":"n6","op":"matmul","inputs":["n5:0","w"]},
// CHECK-NEXT: {"id":"n7","op":"reshape","inputs":["n6:0"],"type":{"dtype":"f32","shape":[3,2]}},
// CHECK-NEXT: {"id":"n8","op":"transpose","inputs":["n7:0"],"attrs":{"dim0":0,"dim1":1}},
// CHECK-NEXT: {"id":"n9","op":"cross_entropy","inputs":["n8:0","labels"],"attrs":{"reduction":"sum"}}
// CHECK: "outputs": [
// CHECK-NEXT: {"name":"loss","value":"n9:0"},
// CHECK-NEXT: {"name":"rstd","value":"n4:0"}

func.func @block(%x: tensor<2x4xf32>, %labels: tensor<2xi64>) -> (tensor<f32>, tensor<2x1xf32>)
    attributes {kiln.input_names = ["x", "labels"], kiln.output_names = ["loss", "rstd"]} {
  %w = kiln.constant {kiln.parameter = "w"} dense<0.5> : tensor<4x3xf32>
  %eps = kiln.constant dense<1.0e-06> : tensor<f32>
  %sq = kiln.mul %x, %x : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %ms = kiln.mean %sq {axes = array<i64: 1>, keep_dims = true} : tensor<2x4xf32> -> tensor<2x1xf32>
  %mse = kiln.add %ms, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %rs = kiln.rsqrt %mse : tensor<2x1xf32>
  %n = kiln.mul %x, %rs : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %h = kiln.matmul %n, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %r = kiln.reshape %h : tensor<2x3xf32> -> tensor<3x2xf32>
  %t = kiln.transpose %r {dim0 = 0 : i64, dim1 = 1 : i64} : tensor<3x2xf32> -> tensor<2x3xf32>
  %loss = kiln.cross_entropy %t, %labels {reduction = #kiln.reduction<sum>} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<f32>
  return %loss, %rs : tensor<f32>, tensor<2x1xf32>
}
