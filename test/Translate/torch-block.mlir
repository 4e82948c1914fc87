// The transformer block exported from PyTorch by scripts/export_torch.py
// (committed: the suite needs no torch) imports, verifies, and computes
// PyTorch's loss through the CPU pipeline.
// RUN: kiln-translate --import-graph-json %S/Inputs/torch_block.json | FileCheck %s
// RUN: kiln-translate --import-graph-json %S/Inputs/torch_block.json > %t.mlir
// Export then import gives the same IR.
// RUN: kiln-translate --export-graph-json %t.mlir | kiln-translate --import-graph-json > %t.again.mlir
// RUN: diff %t.mlir %t.again.mlir
// RUN: rm -rf %t.out && mkdir -p %t.out
// RUN: kiln-run %t.mlir --entry torch_block --input %S/Inputs/torch_block.tokens.npy \
// RUN:   --input %S/Inputs/torch_block.labels.npy --output-dir %t.out
// RUN: python3 %S/Inputs/compare_loss.py %t.out/result0.npy %S/Inputs/torch_block.ref.json | FileCheck %s --check-prefix=NUM

// CHECK-LABEL: func.func @torch_block(
// CHECK-SAME: tensor<2x5xi64>, %{{.*}}: tensor<2xi64>) -> tensor<f32>
// CHECK-SAME: kiln.input_names = ["tokens", "labels"], kiln.output_names = ["loss"]
// CHECK: kiln.constant {kiln.parameter = "embed.weight"} {{.*}} : tensor<16x8xf32>
// CHECK: kiln.gather
// CHECK: kiln.rsqrt
// CHECK: kiln.attention {{.*}} {causal}
// CHECK: kiln.gelu {{.*}} {approximate = #kiln.approximation<tanh>}
// CHECK: kiln.slice
// CHECK: %[[LOSS:.*]] = kiln.cross_entropy
// CHECK: return %[[LOSS]] : tensor<f32>

// NUM: loss_f64: {{.*}}: ok
// NUM: loss_f32: {{.*}}: ok
