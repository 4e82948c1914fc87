// RUN: kiln-opt %s --convert-kiln-to-linalg --canonicalize --split-input-file | FileCheck %s
// RUN: kiln-opt %s --convert-kiln-to-linalg=sequential-attention --canonicalize --split-input-file | FileCheck %s --check-prefix=SEQ

// The loops of the attention lowerings: scf.forall ops whose iterations own
// disjoint blocks of the results (the CPU's threads), or, with
// sequential-attention (the GPU pipeline's fallback), scf.for loops over the
// same iterations. Only the loops are checked here (attention.mlir,
// attention_grad.mlir and attention_tiles.mlir have the blocks).

// The forward: Kᵀ of every (b, g) once, then the (b, h, full query block)
// tasks, blocks in the order 0, 1 (t / 2 for an even t, 1 - t / 2 for an
// odd one), each owning its 64 rows of O; then the remainder rows 128..129
// of each (b, h). The kv head is g = h / 2.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x130x8xf32>, %[[K:.*]]: tensor<2x2x70x8xf32>, %[[V:.*]]: tensor<2x2x70x8xf32>)
// CHECK: %[[KT:.*]] = linalg.transpose ins(%[[K]] : tensor<2x2x70x8xf32>) outs(%{{.*}} : tensor<2x2x8x70xf32>) permutation = [0, 1, 3, 2]
// CHECK: %[[FULL:.*]] = scf.forall (%[[B:.*]], %[[H:.*]], %[[T:.*]]) in (2, 4, 2) shared_outs(%[[O:.*]] = %{{.*}}) -> (tensor<2x4x130x8xf32>)
// CHECK: %[[HALF:.*]] = arith.divui %[[T]], %[[C2:.*]] : index
// CHECK: %[[PARITY:.*]] = arith.remui %[[T]], %[[C2]] : index
// CHECK: %[[ODD:.*]] = arith.cmpi ne, %[[PARITY]], %{{.*}} : index
// CHECK: %[[MIRROR:.*]] = arith.subi %{{.*}}, %[[HALF]] : index
// CHECK: %[[BLOCK:.*]] = arith.select %[[ODD]], %[[MIRROR]], %[[HALF]] : index
// CHECK: %[[ROW:.*]] = arith.muli %[[BLOCK]], %{{.*}} : index
// CHECK: %[[G:.*]] = arith.divui %[[H]], %[[C2]] : index
// CHECK: tensor.extract_slice %[[KT]][%[[B]], %[[G]], 0, 0] [1, 1, 8, 70]
// CHECK: tensor.extract_slice %[[V]][%[[B]], %[[G]], 0, 0] [1, 1, 70, 8]
// CHECK: tensor.extract_slice %[[Q]][%[[B]], %[[H]], %[[ROW]], 0] [1, 1, 64, 8]
// CHECK: scf.forall.in_parallel
// CHECK-NEXT: tensor.parallel_insert_slice %{{.*}} into %[[O]][%[[B]], %[[H]], %[[ROW]], 0] [1, 1, 64, 8] [1, 1, 1, 1] : tensor<64x8xf32> into tensor<2x4x130x8xf32>
// CHECK: %[[REST:.*]] = scf.forall (%[[B2:.*]], %[[H2:.*]]) in (2, 4) shared_outs(%[[O2:.*]] = %[[FULL]])
// CHECK: tensor.extract_slice %[[Q]][%[[B2]], %[[H2]], 128, 0] [1, 1, 2, 8]
// CHECK: scf.forall.in_parallel
// CHECK-NEXT: tensor.parallel_insert_slice %{{.*}} into %[[O2]][%[[B2]], %[[H2]], 128, 0] [1, 1, 2, 8]
// CHECK: return %[[REST]]
// SEQ-LABEL: func.func @forward
// SEQ-NOT: scf.forall
// SEQ: %[[KT:.*]] = linalg.transpose
// SEQ: scf.for %[[B:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<2x4x130x8xf32>)
// SEQ: scf.for %[[H:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<2x4x130x8xf32>)
// SEQ: scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[O:.*]] = %{{.*}}) -> (tensor<2x4x130x8xf32>)
// SEQ: tensor.insert_slice %{{.*}} into %[[O]][%[[B]], %[[H]], %{{.*}}, 0] [1, 1, 64, 8]
// SEQ-NOT: scf.forall
// SEQ: return
func.func @forward(%q: tensor<2x4x130x8xf32>, %k: tensor<2x2x70x8xf32>, %v: tensor<2x2x70x8xf32>) -> tensor<2x4x130x8xf32> {
  %0 = kiln.attention %q, %k, %v : tensor<2x4x130x8xf32>, tensor<2x2x70x8xf32>, tensor<2x2x70x8xf32> -> tensor<2x4x130x8xf32>
  return %0 : tensor<2x4x130x8xf32>
}

// -----

// The adjoint with sinks: the (b, g) iterations own dQ[b, 2g : 2g + 2],
// dK[b, g] and dV[b, g]; d_sinks sums over b, so each b adds into its own
// row of a [B, Hq] partial (the iteration owns the entries of its heads),
// and the rows are summed in order after the loop.
// CHECK-LABEL: func.func @grad_sinks
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK: %[[PZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK: %[[LOOP:.*]]:4 = scf.forall (%[[B:.*]], %[[G:.*]]) in (2, 2) shared_outs(%[[DQ:.*]] = %{{.*}}, %[[DK:.*]] = %{{.*}}, %[[DV:.*]] = %{{.*}}, %[[P:.*]] = %[[PZERO]])
// CHECK: %[[H0:.*]] = arith.muli %[[G]], %{{.*}} : index
// CHECK: %[[ROW:.*]] = tensor.extract_slice %[[P]][%[[B]], 0] [1, 4] [1, 1] : tensor<2x4xf32> to tensor<4xf32>
// CHECK: %[[HEADS:.*]]:4 = scf.for {{.*}} iter_args(%{{.*}} = %[[DQ]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %[[ROW]])
// CHECK: %[[ROW2:.*]] = tensor.insert_slice %[[HEADS]]#3 into %[[P]][%[[B]], 0] [1, 4] [1, 1]
// CHECK: %[[MINE:.*]] = tensor.extract_slice %[[ROW2]][%[[B]], %[[H0]]] [1, 2] [1, 1]
// CHECK: scf.forall.in_parallel
// CHECK-NEXT: tensor.parallel_insert_slice %{{.*}} into %[[DQ]][%[[B]], %[[H0]], 0, 0] [1, 2, 3, 8]
// CHECK-NEXT: tensor.parallel_insert_slice %[[HEADS]]#1 into %[[DK]][%[[B]], %[[G]], 0, 0] [1, 1, 5, 8]
// CHECK-NEXT: tensor.parallel_insert_slice %[[HEADS]]#2 into %[[DV]][%[[B]], %[[G]], 0, 0] [1, 1, 5, 8]
// CHECK-NEXT: tensor.parallel_insert_slice %[[MINE]] into %[[P]][%[[B]], %[[H0]]] [1, 2]
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%[[LOOP]]#3 : tensor<2x4xf32>) outs(%[[ZERO]] : tensor<4xf32>)
// CHECK: arith.addf
// CHECK: return %[[LOOP]]#0, %[[LOOP]]#1, %[[LOOP]]#2, %[[SUM]]
// SEQ-LABEL: func.func @grad_sinks
// SEQ-NOT: scf.forall
// SEQ-NOT: tensor<2x4xf32>
// SEQ: return
func.func @grad_sinks(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x8xf32>,
                      %do: tensor<2x4x3x8xf32>, %s: tensor<4xf32>)
    -> (tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>, tensor<4xf32>) {
  %dq, %dk, %dv, %ds = kiln.attention_grad %q, %k, %v, %do sinks(%s : tensor<4xf32>)
      : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>, tensor<2x4x3x8xf32>
      -> tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>, tensor<4xf32>
  return %dq, %dk, %dv, %ds : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>, tensor<4xf32>
}

// -----

// A mask with every batch and head: each (b, g) adds only to
// d_mask[b, 2g : 2g + 2], which it owns, in place.
// CHECK-LABEL: func.func @grad_mask_owned
// CHECK: %[[LOOP:.*]]:4 = scf.forall (%[[B:.*]], %[[G:.*]]) in (2, 2) shared_outs({{.*}}, %[[DM:.*]] = %{{.*}}) -> ({{.*}}, tensor<2x4x3x5xf32>)
// CHECK: %[[H0:.*]] = arith.muli %[[G]], %{{.*}} : index
// CHECK: %[[HEADS:.*]]:4 = scf.for {{.*}}, %{{.*}} = %[[DM]]) -> ({{.*}}, tensor<2x4x3x5xf32>)
// CHECK: %[[MINE:.*]] = tensor.extract_slice %[[HEADS]]#3[%[[B]], %[[H0]], 0, 0] [1, 2, 3, 5]
// CHECK: scf.forall.in_parallel
// CHECK: tensor.parallel_insert_slice %[[MINE]] into %[[DM]][%[[B]], %[[H0]], 0, 0] [1, 2, 3, 5]
// CHECK-NOT: linalg.generic
// CHECK: return %[[LOOP]]#0, %[[LOOP]]#1, %[[LOOP]]#2, %[[LOOP]]#3
func.func @grad_mask_owned(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x8xf32>,
                           %do: tensor<2x4x3x8xf32>, %m: tensor<2x4x3x5xf32>)
    -> (tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>, tensor<2x4x3x5xf32>) {
  %dq, %dk, %dv, %dm = kiln.attention_grad %q, %k, %v, %do mask(%m : tensor<2x4x3x5xf32>)
      : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>, tensor<2x4x3x8xf32>
      -> tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>, tensor<2x4x3x5xf32>
  return %dq, %dk, %dv, %dm : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>, tensor<2x4x3x5xf32>
}

// -----

// A [Sq, Sk] mask shared by all four (b, g): four partials of 2048 x 2048
// would be 16M floats, beyond kMaxMaskAdjointPartials, so the loops stay
// sequential and accumulate d_mask in place.
// CHECK-LABEL: func.func @grad_mask_too_big
// CHECK-NOT: scf.forall
// CHECK: scf.for {{.*}} -> (tensor<2x2x2048x8xf32>, tensor<2x2x2048x8xf32>, tensor<2x2x2048x8xf32>, tensor<1x1x2048x2048xf32>)
// CHECK: scf.for {{.*}} -> (tensor<2x2x2048x8xf32>, tensor<2x2x2048x8xf32>, tensor<2x2x2048x8xf32>, tensor<1x1x2048x2048xf32>)
// CHECK-NOT: scf.forall
// CHECK: return
func.func @grad_mask_too_big(%q: tensor<2x2x2048x8xf32>, %k: tensor<2x2x2048x8xf32>, %v: tensor<2x2x2048x8xf32>,
                             %do: tensor<2x2x2048x8xf32>, %m: tensor<2048x2048xf32>)
    -> (tensor<2x2x2048x8xf32>, tensor<2x2x2048x8xf32>, tensor<2x2x2048x8xf32>, tensor<2048x2048xf32>) {
  %dq, %dk, %dv, %dm = kiln.attention_grad %q, %k, %v, %do mask(%m : tensor<2048x2048xf32>)
      : tensor<2x2x2048x8xf32>, tensor<2x2x2048x8xf32>, tensor<2x2x2048x8xf32>, tensor<2x2x2048x8xf32>
      -> tensor<2x2x2048x8xf32>, tensor<2x2x2048x8xf32>, tensor<2x2x2048x8xf32>, tensor<2048x2048xf32>
  return %dq, %dk, %dv, %dm : tensor<2x2x2048x8xf32>, tensor<2x2x2048x8xf32>, tensor<2x2x2048x8xf32>, tensor<2048x2048xf32>
}
