// The bundled transformer block verifies, survives canonicalization unchanged
// in meaning, and round-trips through the generic form and bytecode.
// RUN: kiln-opt %kiln_src_root/examples/transformer_block.mlir --canonicalize --kiln-graph-summary -o /dev/null | FileCheck %s --check-prefix=SUMMARY
// RUN: kiln-opt %kiln_src_root/examples/transformer_block.mlir --mlir-print-op-generic | kiln-opt --emit-bytecode | kiln-opt | FileCheck %s

// SUMMARY: func @loss: 14 args (2962 elements), 1 result
// SUMMARY-NEXT: results: tensor<f32>
// SUMMARY-NEXT: ops: 44 kiln (constant 1, gather 1, mul 10, mean 3, add 5, rsqrt 3, matmul 8, reshape 5, transpose 4, attention 1, gelu 1, slice 1, cross_entropy 1)

// CHECK-LABEL: func.func @loss
// CHECK: kiln.gather
// CHECK: kiln.attention {{.*}} {causal} : tensor<2x4x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32> -> tensor<2x4x8x4xf32>
// CHECK: kiln.cross_entropy
// CHECK: return {{.*}} : tensor<f32>
