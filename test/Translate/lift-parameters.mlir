// --lift-parameters: the parameters become the function's leading arguments,
// in JSON order, named by kiln.parameter argument attributes; the inputs
// follow, named by kiln.input_names.
// RUN: kiln-translate --import-graph-json --lift-parameters %S/Inputs/graph.json | FileCheck %s

// Export then lifted import gives the same IR; import then export gives the
// same graph (lifted parameters export as references to <name>.npy, which
// the lifted import does not read).
// RUN: kiln-translate --import-graph-json --lift-parameters %S/Inputs/graph.json > %t.mlir
// RUN: kiln-translate --import-graph-json --lift-parameters %S/Inputs/graph.json -mlir-print-debuginfo \
// RUN:   | kiln-translate --export-graph-json > %t.json
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: kiln-translate --import-graph-json --lift-parameters %t.json | diff - %t.mlir
// RUN: kiln-translate --import-graph-json --lift-parameters %t.json -mlir-print-debuginfo \
// RUN:   | kiln-translate --export-graph-json | diff - %t.json

// kiln-autodiff differentiates the PyTorch block's loss with respect to its
// lifted parameters, and the argument attributes do not reach LLVM IR.
// RUN: kiln-translate --import-graph-json --lift-parameters %S/Inputs/torch_block.json > %t.torch.mlir
// RUN: kiln-opt %t.torch.mlir --kiln-autodiff="function=torch_block wrt=0,13" | FileCheck %s --check-prefix=GRAD
// RUN: kiln-opt %t.torch.mlir --kiln-lower-to-cpu | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func @graph(
// CHECK-SAME: %[[EMBED:[^:]*]]: tensor<4x3xf32> {kiln.parameter = "embed"}, %{{[^:]*}}: tensor<3xf32> {kiln.parameter = "scale"},
// CHECK-SAME: %{{[^:]*}}: tensor<2xi1> {kiln.parameter = "flags"}, %{{[^:]*}}: tensor<0x3xbf16> {kiln.parameter = "zeros"},
// CHECK-SAME: %[[TOK:[^:]*]]: tensor<2xi64>, %{{[^:]*}}: tensor<2x3xf32>, %{{[^:]*}}: tensor<1x2x2x4xf64>)
// CHECK-SAME: kiln.input_names = ["tokens", "x", "q"]
// CHECK-NOT: kiln.constant {kiln.parameter
// CHECK: kiln.gather %[[EMBED]], %[[TOK]] {axis = 0 : i64}

// JSON: "inputs": [
// JSON-NEXT: {"name":"tokens","dtype":"i64","shape":[2]},
// JSON: "parameters": [
// JSON-NEXT: {"name":"embed","dtype":"f32","shape":[4,3],"file":"embed.npy"},
// JSON-NEXT: {"name":"scale","dtype":"f32","shape":[3],"file":"scale.npy"},
// JSON-NEXT: {"name":"flags","dtype":"i1","shape":[2],"file":"flags.npy"},
// JSON-NEXT: {"name":"zeros","dtype":"bf16","shape":[0,3],"file":"zeros.npy"}
// JSON-NEXT: ],

// GRAD: func.func @torch_block(%{{[^:]*}}: tensor<16x8xf32> {kiln.parameter = "embed.weight"},
// GRAD: func.func @torch_block_value_and_grad(
// GRAD-SAME: -> (tensor<f32>, tensor<16x8xf32>, tensor<3xf32>)

// LLVM-NOT: kiln.
// LLVM: define void @_mlir_ciface_torch_block(
// LLVM-NOT: kiln.
