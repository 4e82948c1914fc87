// RUN: kiln-opt %s --convert-kiln-to-linalg --split-input-file | FileCheck %s

// GQA 4/2 with a per-head additive mask and softcap: an scf.forall over the
// B * Hkv = 4 (b, g) pairs slices K[b, g] and V[b, g] once; the inner scf.for
// over the R = 2 heads h = g * 2 + r of the group recomputes the [Sq, Sk]
// probabilities, accumulates dK and dV of the group in its iter_args (K and V
// never repeated), adds dS into the mask's [1, h, 1, :] row, and inserts dQ
// at [b, h]. dK and dV are inserted once per (b, g). Kᵀ and Vᵀ are built
// once per (b, g) for the score and dO·Vᵀ contractions. Sq and Sk fit in one
// query block and one key tile (attention-tiles.mlir has the tile loops).
// The iteration (b, g) owns dQ[b, 2g : 2g + 2], dK[b, g] and dV[b, g]; the
// mask's batch dim is 1, so the two b add to the same d_mask: each b adds
// into a partial of its own ([B, mask dims]), of which (b, g) owns the rows
// of its heads, and the partials are summed in order after the loop.
// CHECK-DAG: #[[$IJ3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$TR:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[$RD:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[$IJ:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$J:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$ALL5:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
// CHECK-DAG: #[[$DROP0:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3, d4)>
// CHECK-LABEL: func.func @gqa
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x3x5xf32>, %[[K:.*]]: tensor<2x2x6x5xf32>, %[[V:.*]]: tensor<2x2x6x7xf32>, %[[DO:.*]]: tensor<2x4x3x7xf32>, %[[M:.*]]: tensor<1x4x1x6xf32>)
// CHECK: %[[DMZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x4x1x6xf32>)
// CHECK: %[[DMP0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x1x4x1x6xf32>)
// CHECK: %[[OUT:.*]]:4 = scf.forall (%[[B:.*]], %[[G:.*]]) in (2, 2) shared_outs(%[[DQ0:.*]] = %{{.*}}, %[[DK0:.*]] = %{{.*}}, %[[DV0:.*]] = %{{.*}}, %[[DMP:.*]] = %[[DMP0]])
// CHECK: %[[HEAD0:.*]] = arith.muli %[[G]], %{{.*}} : index
// CHECK: %[[DM0:.*]] = tensor.extract_slice %[[DMP]][%[[B]], 0, 0, 0, 0] [1, 1, 4, 1, 6] [1, 1, 1, 1, 1] : tensor<2x1x4x1x6xf32> to tensor<1x4x1x6xf32>
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
// CHECK: %[[DK2:.*]] = tensor.insert_slice %[[IN]]#1 into %[[DK0]][%[[B]], %[[G]], 0, 0] [1, 1, 6, 5]
// CHECK: %[[DV2:.*]] = tensor.insert_slice %[[IN]]#2 into %[[DV0]][%[[B]], %[[G]], 0, 0] [1, 1, 6, 7]
// CHECK: %[[DMP1:.*]] = tensor.insert_slice %[[IN]]#3 into %[[DMP]][%[[B]], 0, 0, 0, 0] [1, 1, 4, 1, 6]
// CHECK: %[[DQOWN:.*]] = tensor.extract_slice %[[IN]]#0[%[[B]], %[[HEAD0]], 0, 0] [1, 2, 3, 5]
// CHECK: %[[DKOWN:.*]] = tensor.extract_slice %[[DK2]][%[[B]], %[[G]], 0, 0] [1, 1, 6, 5] [1, 1, 1, 1] : tensor<2x2x6x5xf32> to tensor<6x5xf32>
// CHECK: %[[DVOWN:.*]] = tensor.extract_slice %[[DV2]][%[[B]], %[[G]], 0, 0] [1, 1, 6, 7] [1, 1, 1, 1] : tensor<2x2x6x7xf32> to tensor<6x7xf32>
// CHECK: %[[DMOWN:.*]] = tensor.extract_slice %[[DMP1]][%[[B]], 0, %[[HEAD0]], 0, 0] [1, 1, 2, 1, 6]
// CHECK: scf.forall.in_parallel
// CHECK-NEXT: tensor.parallel_insert_slice %[[DQOWN]] into %[[DQ0]][%[[B]], %[[HEAD0]], 0, 0] [1, 2, 3, 5]
// CHECK-NEXT: tensor.parallel_insert_slice %[[DKOWN]] into %[[DK0]][%[[B]], %[[G]], 0, 0] [1, 1, 6, 5]
// CHECK-NEXT: tensor.parallel_insert_slice %[[DVOWN]] into %[[DV0]][%[[B]], %[[G]], 0, 0] [1, 1, 6, 7]
// CHECK-NEXT: tensor.parallel_insert_slice %[[DMOWN]] into %[[DMP]][%[[B]], 0, %[[HEAD0]], 0, 0] [1, 1, 2, 1, 6]
// The partials of d_mask summed over b, in order.
// CHECK: %[[DMASK:.*]] = linalg.generic {indexing_maps = [#[[$ALL5]], #[[$DROP0]]], iterator_types = ["reduction", "parallel", "parallel", "parallel", "parallel"]} ins(%[[OUT]]#3 : tensor<2x1x4x1x6xf32>) outs(%[[DMZERO]] : tensor<1x4x1x6xf32>)
// CHECK: arith.addf
// CHECK: return %[[OUT]]#0, %[[OUT]]#1, %[[OUT]]#2, %[[DMASK]]
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
// e = exp(t - LSE) in place of the logits, with the lanes of its row sum
// (Sk = 5: the lanes' tail step only).
// CHECK: linalg.generic {{.*}} ins(%[[LS]] : tensor<3xf32>) outs(%{{.*}}, %{{.*}} : tensor<3x5xf32>, tensor<3x5xf32>)
// CHECK: ^bb0(%[[L:.*]]: f32, %[[T:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[EMPTY:.*]] = arith.cmpf oeq, %[[L]], %{{.*}} : f32
// CHECK: %[[D:.*]] = arith.subf %[[T]], %[[L]] : f32
// CHECK: %[[E:.*]] = math.exp %[[D]] : f32
// CHECK: arith.select %[[EMPTY]], %{{.*}}, %[[E]] : f32
// CHECK-NOT: tensor.extract_slice %[[O]]
// CHECK: %[[DP:.*]] = linalg.matmul ins(%[[DOS]], %{{.*}} : tensor<3x2xf32>, tensor<2x5xf32>)
// rowsum(dP * P): the products summed into the lanes as they are made (no
// [3, 5] product block), then the lanes.
// CHECK: %[[PROD:.*]] = linalg.generic {{.*}} ins(%[[DP]], %{{.*}} : tensor<3x5xf32>, tensor<3x5xf32>) outs(%{{.*}} : tensor<3x5xf32>)
// CHECK: %[[PV:.*]] = arith.mulf
// CHECK: arith.addf %{{.*}}, %[[PV]]
// CHECK: %[[LANES:.*]] = tensor.insert_slice %[[PROD]] into %{{.*}}[0, 0] [3, 5] [1, 1] : tensor<3x5xf32> into tensor<3x16xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[LANES]] : tensor<3x16xf32>)
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
