// The import of a JSON graph: every attribute kind, optional and variadic
// inputs, multi-result nodes, .npy and inline weights, explicit result types.
// RUN: kiln-translate --import-graph-json %S/Inputs/graph-with-file.json | FileCheck %s

// Import then export gives the same graph (node ids travel as NameLocs).
// RUN: kiln-translate --import-graph-json %S/Inputs/graph.json -mlir-print-debuginfo \
// RUN:   | kiln-translate --export-graph-json > %t.json
// RUN: diff %S/Inputs/graph.json %t.json

// A graph with .npy weights exports them inline; the IR is the same.
// RUN: kiln-translate --import-graph-json %S/Inputs/graph-with-file.json > %t.file.mlir
// RUN: kiln-translate --import-graph-json %S/Inputs/graph.json > %t.inline.mlir
// RUN: diff %t.file.mlir %t.inline.mlir

// An export with the parameters as .npy files imports to the same IR.
// RUN: rm -rf %t.w && mkdir -p %t.w
// RUN: kiln-translate --export-graph-json %t.inline.mlir --graph-json-export-weights-dir %t.w > %t.w/graph.json
// RUN: FileCheck %s --check-prefix=FILES < %t.w/graph.json
// RUN: kiln-translate --import-graph-json %t.w/graph.json | diff - %t.inline.mlir

// FILES: {"name":"embed","dtype":"f32","shape":[4,3],"file":"embed.npy"},
// FILES-NEXT: {"name":"scale","dtype":"f32","shape":[3],"file":"scale.npy"},
// FILES-NEXT: {"name":"flags","dtype":"i1","shape":[2],"file":"flags.npy"},
// FILES-NEXT: {"name":"zeros","dtype":"bf16","shape":[0,3],"data":[]}

// CHECK-LABEL: func.func @graph(
// CHECK-SAME: %[[TOK:[^:]*]]: tensor<2xi64>, %[[X:[^:]*]]: tensor<2x3xf32>, %[[Q:[^:]*]]: tensor<1x2x2x4xf64>)
// CHECK-SAME: -> (tensor<2x1xf32>, tensor<12xf32>, tensor<1x2x2x4xf64>, tensor<2x2xi32>, tensor<2xi1>, tensor<0x3xbf16>)
// CHECK-SAME: attributes {kiln.input_names = ["tokens", "x", "q"], kiln.output_names = ["mean", "cat", "att", "k", "flags", "zeros"]}
// CHECK: %[[EMBED:.*]] = kiln.constant {kiln.parameter = "embed"} dense<{{\[\[}}-5.000000e-01, -3.750000e-01, -2.500000e-01], {{.*}}, 8.750000e-01]]> : tensor<4x3xf32>
// CHECK: %[[SCALE:.*]] = kiln.constant {kiln.parameter = "scale"} dense<[1.500000e+00, -2.500000e-01, 0x7F800000]> : tensor<3xf32>
// CHECK: %[[FLAGS:.*]] = kiln.constant {kiln.parameter = "flags"} dense<[true, false]> : tensor<2xi1>
// CHECK: %[[ZEROS:.*]] = kiln.constant {kiln.parameter = "zeros"} dense<> : tensor<0x3xbf16>
// CHECK: %[[EMB:.*]] = kiln.gather %[[EMBED]], %[[TOK]] {axis = 0 : i64}
// CHECK: %[[SUM:.*]] = kiln.add %[[EMB]], %[[X]]
// CHECK: %[[ACT:.*]] = kiln.gelu %[[SUM]] {approximate = #kiln.approximation<tanh>}
// CHECK: %[[NORM:.*]] = kiln.layer_norm %[[ACT]] bias(%[[SCALE]] : tensor<3xf32>) {epsilon = 1.000000e-03 : f64}
// CHECK: %[[T:.*]] = kiln.transpose %[[NORM]] {dim0 = 0 : i64, dim1 = 1 : i64}
// CHECK: %[[FLAT:.*]] = kiln.reshape %[[T]] : tensor<3x2xf32> -> tensor<6xf32>
// CHECK: %[[MEAN:.*]] = kiln.mean %[[NORM]] {axes = array<i64: 1>, keep_dims = true}
// CHECK: %[[PARTS:.*]]:2 = kiln.split %[[FLAT]] {axis = 0 : i64, split_sizes = array<i64: 2, 4>}
// CHECK: %[[CAT:.*]] = kiln.concat %[[PARTS]]#1, %[[PARTS]]#0, %[[FLAT]] {axis = 0 : i64}
// CHECK: %[[ATT:.*]] = kiln.attention %[[Q]], %[[Q]], %[[Q]] {alignment = #kiln.alignment<top_left>, causal, scale = 5.000000e-01 : f64}
// CHECK: %[[K:.*]] = kiln.constant dense<{{\[\[}}-3, 0], [7, 2147483647]]> : tensor<2x2xi32>
// CHECK: return %[[MEAN]], %[[CAT]], %[[ATT]], %[[K]], %[[FLAGS]], %[[ZEROS]]
