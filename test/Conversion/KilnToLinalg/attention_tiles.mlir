// RUN: kiln-opt %s --convert-kiln-to-linalg --canonicalize --split-input-file | FileCheck %s

// The query blocks (64 rows) and key tiles (64 keys) of kiln.attention.
// The full blocks are the iterations of an scf.forall, in the order 0, 2, 1
// (task t is block t / 2 for an even t, 2 - t / 2 for an odd one), each
// owning its rows of O; the remainder block follows (one (b, h): no loop).
// causal, bottom_right, Sq = 200 < Sk = 300: p(i) = i + 100, so the block
// of rows [i0, i0 + 64) sees keys up to i0 + 163, the tiles [0, end) with
// end = min(max(floor((i0 + 163) / 64) + 1, 0), 5), one affine.max and one
// affine.min. The full tiles run in an scf.for over first keys up to
// min(end * 64, 256); the remainder tile (keys 256..299, 44 of them) only
// when end > 4. The softmax runs on the visible columns
// [0, min(end * 64, 300)) of the block's [64, Sk] scores, with the block's
// first row added to the row index (the predicate's j < i + 101). The remainder block (rows 192..199) is
// static: all 4 full tiles and the remainder tile, and no tile arithmetic.
// CHECK-DAG: #[[$END0:.*]] = affine_map<(d0) -> ((d0 + 163) floordiv 64 + 1, 0)>
// CHECK-DAG: #[[$END:.*]] = affine_map<(d0) -> (5, d0)>
// CHECK-DAG: #[[$ENDKEY:.*]] = affine_map<(d0) -> (300, d0 * 64)>
// CHECK-DAG: #[[$FULLKEYS:.*]] = affine_map<(d0) -> (256, d0 * 64)>
// CHECK-DAG: #[[$ADD:.*]] = affine_map<(d0)[s0] -> (d0 + s0)>
// CHECK-LABEL: func.func @causal_bottom_right
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C101:.*]] = arith.constant 101 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: %[[KTALL:.*]] = linalg.transpose ins(%{{.*}} : tensor<1x1x300x4xf32>) outs(%{{.*}} : tensor<1x1x4x300xf32>) permutation = [0, 1, 3, 2]
// CHECK: scf.forall (%[[T:.*]]) in (3) shared_outs(%[[OUT:.*]] = %{{.*}})
// CHECK: %[[HALF:.*]] = arith.divui %[[T]], %[[C2]] : index
// CHECK: %[[PARITY:.*]] = arith.remui %[[T]], %[[C2]] : index
// CHECK: %[[ODD:.*]] = arith.cmpi ne, %[[PARITY]], %[[C0]] : index
// CHECK: %[[MIRROR:.*]] = arith.subi %[[C2]], %[[HALF]] : index
// CHECK: %[[BLOCK:.*]] = arith.select %[[ODD]], %[[MIRROR]], %[[HALF]] : index
// CHECK: %[[I0:.*]] = arith.muli %[[BLOCK]], %[[C64]] : index
// CHECK: %[[KT:.*]] = tensor.extract_slice %[[KTALL]][0, 0, 0, 0] [1, 1, 4, 300] [1, 1, 1, 1] : tensor<1x1x4x300xf32> to tensor<4x300xf32>
// CHECK: %[[VS:.*]] = tensor.extract_slice %{{.*}} : tensor<1x1x300x4xf32> to tensor<300x4xf32>
// CHECK: %[[Q:.*]] = tensor.extract_slice %{{.*}}[0, 0, %[[I0]], 0] [1, 1, 64, 4] [1, 1, 1, 1] : tensor<1x1x200x4xf32> to tensor<64x4xf32>
// CHECK: %[[E0:.*]] = affine.max #[[$END0]](%[[I0]])
// CHECK: %[[END:.*]] = affine.min #[[$END]](%[[E0]])
// CHECK: %[[ENDKEY:.*]] = affine.min #[[$ENDKEY]](%[[END]])
// CHECK: %[[SCORES:.*]] = tensor.empty() : tensor<64x300xf32>
// CHECK: %[[FULLKEYS:.*]] = affine.min #[[$FULLKEYS]](%[[END]])
// CHECK: %[[S1:.*]] = scf.for %[[J0:.*]] = %[[C0]] to %[[FULLKEYS]] step %[[C64]] iter_args(%[[SACC:.*]] = %[[SCORES]])
// CHECK: %[[KTILE:.*]] = tensor.extract_slice %[[KT]][0, %[[J0]]] [4, 64] [1, 1] : tensor<4x300xf32> to tensor<4x64xf32>
// CHECK: %[[ST:.*]] = linalg.matmul ins(%[[Q]], %[[KTILE]] : tensor<64x4xf32>, tensor<4x64xf32>) outs(%{{.*}} : tensor<64x64xf32>)
// CHECK: tensor.insert_slice %[[ST]] into %[[SACC]][0, %[[J0]]] [64, 64] [1, 1] : tensor<64x64xf32> into tensor<64x300xf32>
// CHECK: %[[HASREM:.*]] = arith.cmpi sgt, %[[END]], %[[C4]] : index
// CHECK: %[[S2:.*]] = scf.if %[[HASREM]] -> (tensor<64x300xf32>)
// CHECK: tensor.extract_slice %[[KT]][0, 256] [4, 44] [1, 1] : tensor<4x300xf32> to tensor<4x44xf32>
// CHECK: linalg.matmul ins(%[[Q]], %{{.*}} : tensor<64x4xf32>, tensor<4x44xf32>) outs(%{{.*}} : tensor<64x44xf32>)
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[S1]]
// CHECK: %[[VISIBLE:.*]] = tensor.extract_slice %[[S2]][0, 0] [64, %[[ENDKEY]]] [1, 1] : tensor<64x300xf32> to tensor<64x?xf32>
// The logits, in place, and the lanes of their row max in one generic over
// the visible columns in groups of 16 (then one over the last width mod 16),
// each under an scf.if on its dynamic width (a GPU grid cannot be empty).
// CHECK: scf.if %{{.*}} -> (tensor<64x?xf32>, tensor<64x16xf32>)
// CHECK: %[[GROUPS:.*]] = tensor.expand_shape %[[VISIBLE]] {{\[\[}}0], [1, 2]] output_shape [64, %{{.*}}, 16] : tensor<64x?xf32> into tensor<64x?x16xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} outs(%[[GROUPS]], %{{.*}} : tensor<64x?x16xf32>, tensor<64x16xf32>)
// CHECK: %[[LI:.*]] = linalg.index 0 : index
// CHECK: %[[I:.*]] = affine.apply #[[$ADD]](%[[I0]])[%[[LI]]]
// CHECK: %[[END:.*]] = arith.addi %[[I]], %[[C101]] : index
// CHECK: arith.cmpi slt, %{{.*}}, %[[END]] : index
// e'·V over the same tiles.
// CHECK: scf.for %[[J1:.*]] = %[[C0]] to %{{.*}} step %[[C64]]
// CHECK: %[[PT:.*]] = tensor.extract_slice %{{.*}}[0, %[[J1]]] [64, 64] [1, 1] : tensor<64x?xf32> to tensor<64x64xf32>
// CHECK: %[[VT:.*]] = tensor.extract_slice %[[VS]][%[[J1]], 0] [64, 4] [1, 1] : tensor<300x4xf32> to tensor<64x4xf32>
// CHECK: linalg.matmul ins(%[[PT]], %[[VT]] : tensor<64x64xf32>, tensor<64x4xf32>)
// CHECK: scf.if
// CHECK: scf.forall.in_parallel
// CHECK-NEXT: tensor.parallel_insert_slice %{{.*}} into %[[OUT]][0, 0, %[[I0]], 0] [1, 1, 64, 4]
// The remainder block: static bounds, no scf.if, no affine.min or max.
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 192, 0] [1, 1, 8, 4] [1, 1, 1, 1] : tensor<1x1x200x4xf32> to tensor<8x4xf32>
// CHECK-NOT: affine.m
// CHECK: scf.for %{{.*}} = %[[C0]] to %[[C256]] step %[[C64]]
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x4xf32>, tensor<4x64xf32>)
// CHECK-NOT: scf.if
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x4xf32>, tensor<4x44xf32>)
// CHECK-NOT: affine.m
// CHECK: return
func.func @causal_bottom_right(%q: tensor<1x1x200x4xf32>, %k: tensor<1x1x300x4xf32>, %v: tensor<1x1x300x4xf32>) -> tensor<1x1x200x4xf32> {
  %0 = kiln.attention %q, %k, %v {causal} : tensor<1x1x200x4xf32>, tensor<1x1x300x4xf32>, tensor<1x1x300x4xf32> -> tensor<1x1x200x4xf32>
  return %0 : tensor<1x1x200x4xf32>
}

// -----

// A window, top_left, Sq = Sk = 200, L = 70, R = 10: the block of rows
// [i0, i0 + 64) sees keys [i0 - 70, i0 + 73], the tiles [first, end) with
// end = min(max(floor((i0 + 73) / 64) + 1, 0), 4) and first =
// min(max(floor((i0 - 70) / 64), 0), end) (the canonicalizer merges the
// nested affine.min). The full-tile loop starts at the first visible key
// min(first * 64, 200); the softmax's columns start there too, and the
// payload adds it to the column index. The remainder block (rows 192..199,
// keys 122..209) statically runs the full tiles from key 64.
// CHECK-DAG: #[[$END0:.*]] = affine_map<(d0) -> ((d0 + 73) floordiv 64 + 1, 0)>
// CHECK-DAG: #[[$END:.*]] = affine_map<(d0) -> (4, d0)>
// CHECK-DAG: #[[$FIRST0:.*]] = affine_map<(d0) -> ((d0 - 70) floordiv 64, 0)>
// CHECK-DAG: #[[$FIRST:.*]] = affine_map<(d0, d1) -> (4, d1, d0)>
// CHECK-DAG: #[[$KEY:.*]] = affine_map<(d0) -> (200, d0 * 64)>
// CHECK-DAG: #[[$FULLKEYS:.*]] = affine_map<(d0) -> (192, d0 * 64)>
// CHECK-DAG: #[[$WIDTH:.*]] = affine_map<(d0, d1) -> (d0 - d1)>
// CHECK-DAG: #[[$ADD:.*]] = affine_map<(d0)[s0] -> (d0 + s0)>
// CHECK-LABEL: func.func @window_top_left
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C192:.*]] = arith.constant 192 : index
// CHECK: scf.forall
// CHECK: %[[I0:.*]] = arith.muli %{{.*}}, %[[C64]] : index
// CHECK: %[[E0:.*]] = affine.max #[[$END0]](%[[I0]])
// CHECK: %[[END:.*]] = affine.min #[[$END]](%[[E0]])
// CHECK: %[[F0:.*]] = affine.max #[[$FIRST0]](%[[I0]])
// CHECK: %[[FIRST:.*]] = affine.min #[[$FIRST]](%[[F0]], %[[E0]])
// CHECK: %[[KEY0:.*]] = affine.min #[[$KEY]](%[[FIRST]])
// CHECK: %[[ENDKEY:.*]] = affine.min #[[$KEY]](%[[END]])
// CHECK: %[[FULLKEYS:.*]] = affine.min #[[$FULLKEYS]](%[[END]])
// CHECK: scf.for %{{.*}} = %[[KEY0]] to %[[FULLKEYS]] step %[[C64]]
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x4xf32>, tensor<4x64xf32>)
// CHECK: %[[REM1:.*]] = arith.cmpi sgt, %[[END]], %[[C3]] : index
// CHECK: %[[REM2:.*]] = arith.cmpi sle, %[[FIRST]], %[[C3]] : index
// CHECK: %[[REM:.*]] = arith.andi %[[REM2]], %[[REM1]] : i1
// CHECK: scf.if %[[REM]]
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x4xf32>, tensor<4x8xf32>)
// CHECK: %[[WIDTH:.*]] = affine.apply #[[$WIDTH]](%[[ENDKEY]], %[[KEY0]])
// CHECK: tensor.extract_slice %{{.*}}[0, %[[KEY0]]] [64, %[[WIDTH]]] [1, 1] : tensor<64x200xf32> to tensor<64x?xf32>
// CHECK: tensor.expand_shape
// CHECK: linalg.index 0 : index
// CHECK: %[[LL:.*]] = linalg.index 2 : index
// CHECK: %[[LB:.*]] = linalg.index 1 : index
// CHECK: %[[LB16:.*]] = arith.muli %[[LB]], %{{.*}} : index
// CHECK: %[[LJ:.*]] = arith.addi %[[LB16]], %[[LL]] : index
// CHECK: affine.apply #[[$ADD]](%[[I0]])
// CHECK: affine.apply #[[$ADD]](%[[KEY0]])[%[[LJ]]]
// The remainder block.
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 192, 0] [1, 1, 8, 4]
// CHECK: scf.for %{{.*}} = %[[C64]] to %[[C192]] step %[[C64]]
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x4xf32>, tensor<4x64xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x4xf32>, tensor<4x8xf32>)
// CHECK: tensor.extract_slice %{{.*}}[0, 64] [8, 136] [1, 1] : tensor<8x200xf32> to tensor<8x136xf32>
func.func @window_top_left(%q: tensor<1x1x200x4xf32>, %k: tensor<1x1x200x4xf32>, %v: tensor<1x1x200x4xf32>) -> tensor<1x1x200x4xf32> {
  %0 = kiln.attention %q, %k, %v {alignment = #kiln.alignment<top_left>, window_left = 70 : i64, window_right = 10 : i64}
       : tensor<1x1x200x4xf32>, tensor<1x1x200x4xf32>, tensor<1x1x200x4xf32> -> tensor<1x1x200x4xf32>
  return %0 : tensor<1x1x200x4xf32>
}

// -----

// top_left causal with window_left = 3 and Sq = 200 > Sk = 70: the
// remainder block (rows 192..199) sees keys from 189 on, none of which
// exists; its range is statically empty, so it has no contraction and no
// pass over a block: its output is the zero fill, divided by its row sum 0
// (0 by the select: its rows are empty).
// CHECK-LABEL: func.func @no_visible_tile
// CHECK: %[[LOOP:.*]] = scf.forall {{.*}} -> (tensor<1x1x200x2xf32>)
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<8x2xf32>)
// CHECK-NOT: linalg.matmul
// CHECK: %[[O:.*]] = linalg.generic {{.*}} outs(%[[ZERO]] : tensor<8x2xf32>)
// CHECK: arith.divf
// CHECK: tensor.insert_slice %[[O]] into %[[LOOP]][0, 0, 192, 0] [1, 1, 8, 2]
func.func @no_visible_tile(%q: tensor<1x1x200x2xf32>, %k: tensor<1x1x70x2xf32>, %v: tensor<1x1x70x2xf32>) -> tensor<1x1x200x2xf32> {
  %0 = kiln.attention %q, %k, %v {alignment = #kiln.alignment<top_left>, causal, window_left = 3 : i64}
       : tensor<1x1x200x2xf32>, tensor<1x1x70x2xf32>, tensor<1x1x70x2xf32> -> tensor<1x1x200x2xf32>
  return %0 : tensor<1x1x200x2xf32>
}

// -----

// kiln.attention_grad, causal, Sq = Sk = 130: each query block's key tiles
// end at min(max(floor((i0 + 63) / 64) + 1, 0), 3). dV and dK of a key tile
// accumulate P'ᵀ·dO and dS'ᵀ·Q of the blocks that see it into their rows
// [j0, j0 + 64) of the group's [Sk, D] accumulators; dQ of the block sums
// dS'·K over the same tiles.
// CHECK-DAG: #[[$TR:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[$RD:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[$IJ3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$END0:.*]] = affine_map<(d0) -> ((d0 + 63) floordiv 64 + 1, 0)>
// CHECK-DAG: #[[$END:.*]] = affine_map<(d0) -> (3, d0)>
// CHECK-DAG: #[[$FULLKEYS:.*]] = affine_map<(d0) -> (128, d0 * 64)>
// CHECK-LABEL: func.func @grad_causal
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : index
// CHECK: scf.for %[[I0:.*]] = %[[C0]] to %[[C128]] step %[[C64]] iter_args(%[[DQ:.*]] = %{{.*}}, %[[DK:.*]] = %{{.*}}, %[[DV:.*]] = %{{.*}})
// CHECK: %[[Q:.*]] = tensor.extract_slice %{{.*}}[0, 0, %[[I0]], 0] [1, 1, 64, 3]
// CHECK: %[[DO:.*]] = tensor.extract_slice %{{.*}}[0, 0, %[[I0]], 0] [1, 1, 64, 2]
// CHECK: %[[E0:.*]] = affine.max #[[$END0]](%[[I0]])
// CHECK: %[[END:.*]] = affine.min #[[$END]](%[[E0]])
// CHECK: %[[FULLKEYS:.*]] = affine.min #[[$FULLKEYS]](%[[END]])
// CHECK: scf.for %{{.*}} = %[[C0]] to %[[FULLKEYS]] step %[[C64]]
// dV: the rows [j0, j0 + 64) of the accumulator.
// CHECK: %[[DVLOOP:.*]] = scf.for %[[J0:.*]] = %[[C0]] to %{{.*}} step %[[C64]] iter_args(%[[DVACC:.*]] = %[[DV]])
// CHECK: %[[PT:.*]] = tensor.extract_slice %{{.*}}[0, %[[J0]]] [64, 64] [1, 1] : tensor<64x?xf32> to tensor<64x64xf32>
// CHECK: %[[DVT:.*]] = tensor.extract_slice %[[DVACC]][%[[J0]], 0] [64, 2] [1, 1] : tensor<130x2xf32> to tensor<64x2xf32>
// CHECK: %[[DVNEW:.*]] = linalg.matmul indexing_maps = [#[[$TR]], #[[$RD]], #[[$IJ3]]] ins(%[[PT]], %[[DO]] : tensor<64x64xf32>, tensor<64x2xf32>) outs(%[[DVT]] : tensor<64x2xf32>)
// CHECK: tensor.insert_slice %[[DVNEW]] into %[[DVACC]][%[[J0]], 0] [64, 2] [1, 1] : tensor<64x2xf32> into tensor<130x2xf32>
// CHECK: arith.cmpi sgt, %[[END]], %[[C2]] : index
// CHECK: scf.if
// CHECK: tensor.extract_slice %{{.*}}[128, 0] [2, 2] [1, 1] : tensor<130x2xf32> to tensor<2x2xf32>
// dQ of the block: dS'·K over the visible tiles.
// CHECK: scf.for %[[J1:.*]] = %[[C0]] to %{{.*}} step %[[C64]] iter_args(%[[DQACC:.*]] = %{{.*}}) -> (tensor<64x3xf32>)
// CHECK: %[[KR:.*]] = tensor.extract_slice %{{.*}}[%[[J1]], 0] [64, 3] [1, 1] : tensor<130x3xf32> to tensor<64x3xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %[[KR]] : tensor<64x64xf32>, tensor<64x3xf32>) outs(%[[DQACC]] : tensor<64x3xf32>)
// dK: the rows [j0, j0 + 64) of the accumulator.
// CHECK: scf.for %[[J2:.*]] = %[[C0]] to %{{.*}} step %[[C64]] iter_args(%[[DKACC:.*]] = %[[DK]])
// CHECK: %[[DKT:.*]] = tensor.extract_slice %[[DKACC]][%[[J2]], 0] [64, 3] [1, 1] : tensor<130x3xf32> to tensor<64x3xf32>
// CHECK: %[[DKNEW:.*]] = linalg.matmul indexing_maps = [#[[$TR]], #[[$RD]], #[[$IJ3]]] ins(%{{.*}}, %[[Q]] : tensor<64x64xf32>, tensor<64x3xf32>) outs(%[[DKT]] : tensor<64x3xf32>)
// CHECK: tensor.insert_slice %[[DKNEW]] into %[[DKACC]][%[[J2]], 0] [64, 3] [1, 1] : tensor<64x3xf32> into tensor<130x3xf32>
// CHECK: tensor.insert_slice %{{.*}} into %[[DQ]][0, 0, %[[I0]], 0] [1, 1, 64, 3]
func.func @grad_causal(%q: tensor<1x1x130x3xf32>, %k: tensor<1x1x130x3xf32>, %v: tensor<1x1x130x2xf32>, %do: tensor<1x1x130x2xf32>)
    -> (tensor<1x1x130x3xf32>, tensor<1x1x130x3xf32>, tensor<1x1x130x2xf32>) {
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do {causal}
      : tensor<1x1x130x3xf32>, tensor<1x1x130x3xf32>, tensor<1x1x130x2xf32>, tensor<1x1x130x2xf32>
      -> tensor<1x1x130x3xf32>, tensor<1x1x130x3xf32>, tensor<1x1x130x2xf32>
  return %dq, %dk, %dv : tensor<1x1x130x3xf32>, tensor<1x1x130x3xf32>, tensor<1x1x130x2xf32>
}
