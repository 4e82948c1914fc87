// RUN: kiln-opt %s --convert-kiln-to-linalg --split-input-file | FileCheck %s

// GQA 4/2 with a per-head additive mask and softcap: an scf.for over the
// B * Hkv = 4 (b, g) pairs slices K[b, g] and V[b, g] once; the inner scf.for
// over the R = 2 heads h = g * 2 + r of the group recomputes the [Sq, Sk]
// probabilities, accumulates dK and dV of the group in its iter_args (K and V
// never repeated), adds dS into the mask's [1, h, 1, :] row, and inserts dQ
// at [b, h]. dK and dV are inserted once per (b, g). Kᵀ and Vᵀ are built
// once per (b, g) for the score and dO·Vᵀ contractions. Sq and Sk fit in one
// query block and one key tile (attention-tiles.mlir has the tile loops).
// CHECK-DAG: #[[$IJ3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$TR:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[$RD:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[$IJ:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$J:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @gqa
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x3x5xf32>, %[[K:.*]]: tensor<2x2x6x5xf32>, %[[V:.*]]: tensor<2x2x6x7xf32>, %[[DO:.*]]: tensor<2x4x3x7xf32>, %[[M:.*]]: tensor<1x4x1x6xf32>)
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[OUT:.*]]:4 = scf.for %[[BG:.*]] = %{{.*}} to %[[C4]] step %{{.*}} iter_args(%[[DQ0:.*]] = %{{.*}}, %[[DK0:.*]] = %{{.*}}, %[[DV0:.*]] = %{{.*}}, %[[DM0:.*]] = %{{.*}})
// CHECK: %[[B:.*]] = arith.divui %[[BG]], %[[C2:.*]] : index
// CHECK: %[[G:.*]] = arith.remui %[[BG]], %[[C2]] : index
// CHECK: %[[KS:.*]] = tensor.extract_slice %[[K]][%[[B]], %[[G]], 0, 0] [1, 1, 6, 5] [1, 1, 1, 1] : tensor<2x2x6x5xf32> to tensor<6x5xf32>
// CHECK: %[[VS:.*]] = tensor.extract_slice %[[V]][%[[B]], %[[G]], 0, 0] [1, 1, 6, 7] [1, 1, 1, 1] : tensor<2x2x6x7xf32> to tensor<6x7xf32>
// CHECK: %[[KT:.*]] = linalg.transpose ins(%[[KS]] : tensor<6x5xf32>)
// CHECK: %[[VT:.*]] = linalg.transpose ins(%[[VS]] : tensor<6x7xf32>)
// CHECK: %[[IN:.*]]:4 = scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[DQ:.*]] = %[[DQ0]], %[[DKACC:.*]] = %{{.*}}, %[[DVACC:.*]] = %{{.*}}, %[[DM:.*]] = %[[DM0]]) -> (tensor<2x4x3x5xf32>, tensor<6x5xf32>, tensor<6x7xf32>, tensor<1x4x1x6xf32>)
// CHECK: %[[GR:.*]] = arith.muli %[[G]], %{{.*}} : index
// CHECK: %[[H:.*]] = arith.addi %[[GR]], %[[R]] : index
// CHECK: %[[QS:.*]] = tensor.extract_slice %[[Q]][%[[B]], %[[H]], 0, 0] [1, 1, 3, 5]
// CHECK: %[[DOS:.*]] = tensor.extract_slice %[[DO]][%[[B]], %[[H]], 0, 0] [1, 1, 3, 7]
// The raw scores s, kept for the softcap factor.
// CHECK: %[[S:.*]] = linalg.matmul ins(%[[QS]], %[[KT]] :
// CHECK: math.tanh
// P' (no dropout: P itself), then dV += P'ᵀ dO into the group's accumulator.
// CHECK: %[[DV1:.*]] = linalg.matmul indexing_maps = [#[[$TR]], #[[$RD]], #[[$IJ3]]] ins(%[[P:[^,]*]], %[[DOS]] : tensor<3x6xf32>, tensor<3x7xf32>) outs(%[[DVACC]] : tensor<6x7xf32>)
// dP = dO Vᵀ, dS = P (dP - rowsum(dP P)).
// CHECK: %[[DP:.*]] = linalg.matmul ins(%[[DOS]], %[[VT]] :
// CHECK: %[[DS:.*]] = linalg.generic {{.*}} ins(%[[P]], %[[DP]], %{{.*}} : tensor<3x6xf32>, tensor<3x6xf32>, tensor<3xf32>)
// d_mask gets dS before the softcap factor, summed over the queries.
// CHECK: %[[MS:.*]] = tensor.extract_slice %[[DM]][0, %[[H]], 0, 0] [1, 1, 1, 6] [1, 1, 1, 1] : tensor<1x4x1x6xf32> to tensor<6xf32>
// CHECK: %[[MSUM:.*]] = linalg.generic {indexing_maps = [#[[$IJ]], #[[$J]]], iterator_types = ["reduction", "parallel"]} ins(%[[DS]] : tensor<3x6xf32>) outs(%[[MS]] : tensor<6xf32>)
// CHECK: %[[DM1:.*]] = tensor.insert_slice %[[MSUM]] into %[[DM]][0, %[[H]], 0, 0] [1, 1, 1, 6]
// dS' = scale dS (1 - tanh²(scale s / c)).
// CHECK: %[[DSC:.*]] = linalg.generic {{.*}} ins(%[[DS]], %[[S]] : tensor<3x6xf32>, tensor<3x6xf32>)
// CHECK: math.tanh
// CHECK: %[[DQB:.*]] = linalg.matmul ins(%[[DSC]], %[[KS]] :
// CHECK: %[[DK1:.*]] = linalg.matmul indexing_maps = [#[[$TR]], #[[$RD]], #[[$IJ3]]] ins(%[[DSC]], %[[QS]] : tensor<3x6xf32>, tensor<3x5xf32>) outs(%[[DKACC]] : tensor<6x5xf32>)
// CHECK: %[[DQ1:.*]] = tensor.insert_slice %[[DQB]] into %[[DQ]][%[[B]], %[[H]], 0, 0] [1, 1, 3, 5]
// CHECK: scf.yield %[[DQ1]], %[[DK1]], %[[DV1]], %[[DM1]]
// CHECK: %[[DK2:.*]] = tensor.insert_slice %[[IN]]#1 into %{{.*}}[%[[B]], %[[G]], 0, 0] [1, 1, 6, 5]
// CHECK: %[[DV2:.*]] = tensor.insert_slice %[[IN]]#2 into %{{.*}}[%[[B]], %[[G]], 0, 0] [1, 1, 6, 7]
// CHECK: scf.yield %[[IN]]#0, %[[DK2]], %[[DV2]], %[[IN]]#3
// CHECK: return %[[OUT]]#0, %[[OUT]]#1, %[[OUT]]#2, %[[OUT]]#3
func.func @gqa(%q: tensor<2x4x3x5xf32>, %k: tensor<2x2x6x5xf32>, %v: tensor<2x2x6x7xf32>, %do: tensor<2x4x3x7xf32>, %m: tensor<1x4x1x6xf32>)
    -> (tensor<2x4x3x5xf32>, tensor<2x2x6x5xf32>, tensor<2x2x6x7xf32>, tensor<1x4x1x6xf32>) {
  %dq, %dk, %dv, %dm = kiln.attention_grad %q, %k, %v, %do mask(%m : tensor<1x4x1x6xf32>) {softcap = 2.0 : f64}
      : tensor<2x4x3x5xf32>, tensor<2x2x6x5xf32>, tensor<2x2x6x7xf32>, tensor<2x4x3x7xf32>
      -> tensor<2x4x3x5xf32>, tensor<2x2x6x5xf32>, tensor<2x2x6x7xf32>, tensor<1x4x1x6xf32>
  return %dq, %dk, %dv, %dm : tensor<2x4x3x5xf32>, tensor<2x2x6x5xf32>, tensor<2x2x6x7xf32>, tensor<1x4x1x6xf32>
}

// -----

// No key (Sk = 0): nothing to compute, every adjoint is a zero fill; a
// rank-2 additive mask's adjoint comes back in its own shape.
// CHECK-LABEL: func.func @no_keys
// CHECK-NOT: scf.for
// CHECK: return
func.func @no_keys(%q: tensor<1x2x3x4xf64>, %k: tensor<1x1x0x4xf64>, %v: tensor<1x1x0x2xf64>, %do: tensor<1x2x3x2xf64>, %m: tensor<3x0xf64>)
    -> (tensor<1x2x3x4xf64>, tensor<3x0xf64>) {
  %dq, %dk, %dv, %dm = kiln.attention_grad %q, %k, %v, %do mask(%m : tensor<3x0xf64>)
      : tensor<1x2x3x4xf64>, tensor<1x1x0x4xf64>, tensor<1x1x0x2xf64>, tensor<1x2x3x2xf64>
      -> tensor<1x2x3x4xf64>, tensor<1x1x0x4xf64>, tensor<1x1x0x2xf64>, tensor<3x0xf64>
  return %dq, %dm : tensor<1x2x3x4xf64>, tensor<3x0xf64>
}

// -----

// With the forward's O and LSE: P = exp(t - LSE) (0 where LSE = +inf) from
// the LSE slice; no row max (maximumf) and no division by a row sum. D stays
// rowsum(dP * P) (not rowsum(dO * O)): O is not read.
// CHECK-LABEL: func.func @saved_forward
// CHECK-SAME: %[[DO:[^:]*]]: tensor<1x2x3x2xf32>, %[[O:[^:]*]]: tensor<1x2x3x2xf32>, %[[LSE:[^:]*]]: tensor<1x2x3xf32>
// CHECK-NOT: arith.maximumf
// CHECK-NOT: arith.divf
// CHECK: %[[DOS:.*]] = tensor.extract_slice %[[DO]]
// CHECK: %[[LS:.*]] = tensor.extract_slice %[[LSE]][%{{.*}}, %{{.*}}, 0] [1, 1, 3] [1, 1, 1] : tensor<1x2x3xf32> to tensor<3xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[LS]] : tensor<3x5xf32>, tensor<3xf32>)
// CHECK: ^bb0(%[[T:.*]]: f32, %[[L:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[EMPTY:.*]] = arith.cmpf oeq, %[[L]], %{{.*}} : f32
// CHECK: %[[D:.*]] = arith.subf %[[T]], %[[L]] : f32
// CHECK: %[[E:.*]] = math.exp %[[D]] : f32
// CHECK: arith.select %[[EMPTY]], %{{.*}}, %[[E]] : f32
// CHECK-NOT: tensor.extract_slice %[[O]]
// CHECK: %[[DP:.*]] = linalg.matmul ins(%[[DOS]], %{{.*}} : tensor<3x2xf32>, tensor<2x5xf32>)
// CHECK: %[[PROD:.*]] = linalg.generic {{.*}} ins(%[[DP]], %{{.*}} : tensor<3x5xf32>, tensor<3x5xf32>)
// CHECK: arith.mulf
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[PROD]] : tensor<3x5xf32>)
// CHECK: arith.addf
// CHECK-NOT: arith.maximumf
// CHECK-NOT: arith.divf
// CHECK-NOT: tensor.extract_slice %[[O]]
// CHECK: return
func.func @saved_forward(%q: tensor<1x2x3x4xf32>, %k: tensor<1x1x5x4xf32>, %v: tensor<1x1x5x2xf32>, %do: tensor<1x2x3x2xf32>,
                         %o: tensor<1x2x3x2xf32>, %lse: tensor<1x2x3xf32>)
    -> (tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x2xf32>) {
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do out(%o : tensor<1x2x3x2xf32>) lse(%lse : tensor<1x2x3xf32>) {causal}
      : tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x2xf32>, tensor<1x2x3x2xf32>
      -> tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x2xf32>
  return %dq, %dk, %dv : tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x2xf32>
}
