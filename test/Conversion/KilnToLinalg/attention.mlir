// RUN: kiln-opt %s --convert-kiln-to-linalg --split-input-file | FileCheck %s

// Plain GQA (Hq = 4 over Hkv = 2): K transposed once, [B, Hkv, Dk, Sk],
// then one scf.forall over the (b, h) query heads (their one query block
// each), whose iteration slices Kᵀ and V of its kv head g = h / 2 (never
// repeated) and owns O[b, h]: an [Sq, Sk] score block, the safe softmax and
// P·V, parallel-inserted at [b, h]. Sq and Sk fit in one query block and one key tile
// (attention_tiles.mlir has the tile loops), so there is no loop and no
// slice of the blocks. Each step after the scores updates the one [Sq, Sk]
// block through its outs.
// CHECK-DAG: #[[$IJ:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$I:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @gqa
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x3x5xf32>, %[[K:.*]]: tensor<2x2x6x5xf32>, %[[V:.*]]: tensor<2x2x6x7xf32>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<2x4x3x7xf32>
// CHECK: %[[KTALL:.*]] = linalg.transpose ins(%[[K]] : tensor<2x2x6x5xf32>) outs(%{{.*}} : tensor<2x2x5x6xf32>) permutation = [0, 1, 3, 2]
// CHECK: %[[LOOP:.*]] = scf.forall (%[[B:.*]], %[[H:.*]]) in (2, 4) shared_outs(%[[ACC:.*]] = %[[INIT]])
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[G:.*]] = arith.divui %[[H]], %[[C2]]
// CHECK: %[[KT:.*]] = tensor.extract_slice %[[KTALL]][%[[B]], %[[G]], 0, 0] [1, 1, 5, 6] [1, 1, 1, 1] : tensor<2x2x5x6xf32> to tensor<5x6xf32>
// CHECK: %[[VS:.*]] = tensor.extract_slice %[[V]][%[[B]], %[[G]], 0, 0] [1, 1, 6, 7] [1, 1, 1, 1] : tensor<2x2x6x7xf32> to tensor<6x7xf32>
// CHECK-NOT: linalg.transpose
// CHECK: %[[QS:.*]] = tensor.extract_slice %[[Q]][%[[B]], %[[H]], 0, 0] [1, 1, 3, 5] [1, 1, 1, 1] : tensor<2x4x3x5xf32> to tensor<3x5xf32>
// The scores are a named matmul on Kᵀ (kiln-matmul-kernels takes it).
// CHECK: %[[S:.*]] = linalg.matmul ins(%[[QS]], %[[KT]] : tensor<3x5xf32>, tensor<5x6xf32>) outs(%{{.*}} : tensor<3x6xf32>)
// The scores, scaled by 1/sqrt(5) in place (no mask: every key is
// visible), and their row max in the same generic: Sk = 6 is less than the
// 16 lanes, so the lanes loop has only its tail step, on the [3, 6] corner
// of the [3, 16] lanes, which are then reduced in order.
// CHECK: %[[MLANES:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<3x16xf32>)
// CHECK: %[[MTAIL:.*]] = tensor.extract_slice %[[MLANES]][0, 0] [3, 6] [1, 1] : tensor<3x16xf32> to tensor<3x6xf32>
// CHECK: %[[T:.*]]:2 = linalg.generic {indexing_maps = [#[[$IJ]], #[[$IJ]]], iterator_types = ["parallel", "parallel"]} outs(%[[S]], %[[MTAIL]] : tensor<3x6xf32>, tensor<3x6xf32>)
// CHECK: ^bb0(%[[SV:[^:]*]]: f32, %[[MACC:[^:]*]]: f32):
// CHECK: %[[SCALE:.*]] = arith.constant 0.44721359 : f32
// CHECK: %[[X:.*]] = arith.mulf %[[SV]], %[[SCALE]] : f32
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[TV0:.*]] = arith.select %[[TRUE]], %[[X]], %[[NEGINF]] : f32
// CHECK: %[[MAX:.*]] = arith.maximumf %[[TV0]], %[[MACC]] : f32
// CHECK: linalg.yield %[[TV0]], %[[MAX]]
// CHECK: %[[MLANES2:.*]] = tensor.insert_slice %[[T]]#1 into %[[MLANES]][0, 0] [3, 6] [1, 1]
// CHECK: %[[M:.*]] = linalg.generic {indexing_maps = [#[[$IJ]], #[[$I]]], iterator_types = ["parallel", "reduction"]} ins(%[[MLANES2]] : tensor<3x16xf32>)
// CHECK: arith.maximumf
// e = exp(t - m) in place and the lanes of its row sum, in one generic. An
// empty row (max -inf) gives 0, not exp(-inf - -inf).
// CHECK: %[[LLANES:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<3x16xf32>)
// CHECK: %[[LTAIL:.*]] = tensor.extract_slice %[[LLANES]][0, 0] [3, 6] [1, 1]
// CHECK: %[[E:.*]]:2 = linalg.generic {indexing_maps = [#[[$I]], #[[$IJ]], #[[$IJ]]], iterator_types = ["parallel", "parallel"]} ins(%[[M]] : tensor<3xf32>) outs(%[[T]]#0, %[[LTAIL]] : tensor<3x6xf32>, tensor<3x6xf32>)
// CHECK: ^bb0(%[[MV:[^:]*]]: f32, %[[TV:[^:]*]]: f32, %[[LACC:[^:]*]]: f32):
// CHECK: %[[EMPTY:.*]] = arith.cmpf oeq, %[[MV]], %{{.*}} : f32
// CHECK: %[[D:.*]] = arith.subf %[[TV]], %[[MV]] : f32
// CHECK: %[[EXP:.*]] = math.exp %[[D]] : f32
// CHECK: %[[EV:.*]] = arith.select %[[EMPTY]], %{{.*}}, %[[EXP]] : f32
// CHECK: %[[SUM:.*]] = arith.addf %[[LACC]], %[[EV]] : f32
// CHECK: linalg.yield %[[EV]], %[[SUM]]
// CHECK: %[[LLANES2:.*]] = tensor.insert_slice %[[E]]#1 into %[[LLANES]][0, 0] [3, 6] [1, 1]
// CHECK: %[[L:.*]] = linalg.generic {indexing_maps = [#[[$IJ]], #[[$I]]], iterator_types = ["parallel", "reduction"]} ins(%[[LLANES2]] : tensor<3x16xf32>)
// CHECK: arith.addf
// e·V is a named matmul, which elementwise fusion leaves alone; the rows
// of the result are divided by l (0 for an empty row).
// CHECK: %[[EVV:.*]] = linalg.matmul ins(%[[E]]#0, %[[VS]] : tensor<3x6xf32>, tensor<6x7xf32>) outs(%{{.*}} : tensor<3x7xf32>)
// CHECK: %[[O:.*]] = linalg.generic {{.*}} ins(%[[L]] : tensor<3xf32>) outs(%[[EVV]] : tensor<3x7xf32>)
// CHECK: ^bb0(%[[LV:[^:]*]]: f32, %[[AV:[^:]*]]: f32):
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[NOROW:.*]] = arith.cmpf oeq, %[[LV]], %[[ZERO]] : f32
// CHECK: %[[DIV:.*]] = arith.divf %[[AV]], %[[LV]] : f32
// CHECK: arith.select %[[NOROW]], %[[ZERO]], %[[DIV]] : f32
// CHECK: %[[INS:.*]] = tensor.insert_slice %[[O]] into %[[ACC]][%[[B]], %[[H]], 0, 0] [1, 1, 3, 7] [1, 1, 1, 1] : tensor<3x7xf32> into tensor<2x4x3x7xf32>
// CHECK: %[[OWN:.*]] = tensor.extract_slice %[[INS]][%[[B]], %[[H]], 0, 0] [1, 1, 3, 7] [1, 1, 1, 1] : tensor<2x4x3x7xf32> to tensor<3x7xf32>
// CHECK: scf.forall.in_parallel
// CHECK-NEXT: tensor.parallel_insert_slice %[[OWN]] into %[[ACC]][%[[B]], %[[H]], 0, 0] [1, 1, 3, 7] [1, 1, 1, 1] : tensor<3x7xf32> into tensor<2x4x3x7xf32>
// CHECK: return %[[LOOP]]
// CHECK-NOT: kiln.
func.func @gqa(%q: tensor<2x4x3x5xf32>, %k: tensor<2x2x6x5xf32>, %v: tensor<2x2x6x7xf32>) -> tensor<2x4x3x7xf32> {
  %0 = kiln.attention %q, %k, %v : tensor<2x4x3x5xf32>, tensor<2x2x6x5xf32>, tensor<2x2x6x7xf32> -> tensor<2x4x3x7xf32>
  return %0 : tensor<2x4x3x7xf32>
}

// -----

// The visibility predicate: causal bottom_right (p(i) = i + Sk - Sq = i + 2)
// and window_left = 1 as the band i + 1 <= j < i + 3 (minDistance = 2 - 1,
// maxDistance = 2 + 0), clamped key and query lengths, a rank-2 boolean mask
// read at [i, j]. The scale attribute replaces 1/sqrt(Dk).
// CHECK-LABEL: func.func @predicate
// CHECK-SAME: %[[KL:[^:]*]]: tensor<2xi32>, %[[QL:[^:]*]]: tensor<2xi64>, %[[MASK:[^:]*]]: tensor<3x5xi1>
// CHECK: scf.forall (%[[B:.*]]) in (2)
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: arith.constant 5.000000e-01 : f64
// CHECK: %[[MIN:.*]] = arith.constant 1 : index
// CHECK: %[[LO:.*]] = arith.addi %[[I]], %[[MIN]] : index
// CHECK: %[[LEFT:.*]] = arith.cmpi sge, %[[J]], %[[LO]] : index
// CHECK: %[[END:.*]] = arith.constant 3 : index
// CHECK: %[[HI:.*]] = arith.addi %[[I]], %[[END]] : index
// CHECK: %[[RIGHT:.*]] = arith.cmpi slt, %[[J]], %[[HI]] : index
// CHECK: %[[BAND:.*]] = arith.andi %[[LEFT]], %[[RIGHT]] : i1
// CHECK: %[[KLB:.*]] = tensor.extract %[[KL]][%[[B]]] : tensor<2xi32>
// CHECK: %[[KL64:.*]] = arith.extsi %[[KLB]] : i32 to i64
// CHECK: %[[KLMAX:.*]] = arith.maxsi %[[KL64]], %{{.*}} : i64
// CHECK: %[[C5:.*]] = arith.constant 5 : i64
// CHECK: %[[KLC:.*]] = arith.minsi %[[KLMAX]], %[[C5]] : i64
// CHECK: %[[KLI:.*]] = arith.index_cast %[[KLC]] : i64 to index
// CHECK: %[[KEYOK:.*]] = arith.cmpi slt, %[[J]], %[[KLI]] : index
// CHECK: %[[V1:.*]] = arith.andi %[[BAND]], %[[KEYOK]] : i1
// CHECK: %[[QLB:.*]] = tensor.extract %[[QL]][%[[B]]] : tensor<2xi64>
// CHECK: %[[QLMAX:.*]] = arith.maxsi %[[QLB]], %{{.*}} : i64
// CHECK: %[[C3:.*]] = arith.constant 3 : i64
// CHECK: %[[QLC:.*]] = arith.minsi %[[QLMAX]], %[[C3]] : i64
// CHECK: %[[QLI:.*]] = arith.index_cast %[[QLC]] : i64 to index
// CHECK: %[[QUERYOK:.*]] = arith.cmpi slt, %[[I]], %[[QLI]] : index
// CHECK: %[[V2:.*]] = arith.andi %[[V1]], %[[QUERYOK]] : i1
// CHECK: %[[BIT:.*]] = tensor.extract %[[MASK]][%[[I]], %[[J]]] : tensor<3x5xi1>
// CHECK: %[[VIS:.*]] = arith.andi %[[V2]], %[[BIT]] : i1
// CHECK: arith.select %[[VIS]]
func.func @predicate(%q: tensor<2x1x3x2xf64>, %k: tensor<2x1x5x2xf64>, %v: tensor<2x1x5x2xf64>,
                     %kl: tensor<2xi32>, %ql: tensor<2xi64>, %m: tensor<3x5xi1>) -> tensor<2x1x3x2xf64> {
  %0 = kiln.attention %q, %k, %v mask(%m : tensor<3x5xi1>) key_lengths(%kl : tensor<2xi32>)
         query_lengths(%ql : tensor<2xi64>) {causal, window_left = 1 : i64, scale = 0.5 : f64}
       : tensor<2x1x3x2xf64>, tensor<2x1x5x2xf64>, tensor<2x1x5x2xf64> -> tensor<2x1x3x2xf64>
  return %0 : tensor<2x1x3x2xf64>
}

// -----

// top_left: p(i) = i, so window_right = 1 is j < i + 2. A window edge of
// Sq + Sk or more bounds nothing and is left out (and cannot overflow the
// index arithmetic).
// CHECK-LABEL: func.func @top_left_window
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK-NOT: arith.cmpi sge
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[HI:.*]] = arith.addi %[[I]], %[[C2]] : index
// CHECK: %[[RIGHT:.*]] = arith.cmpi slt, %[[J]], %[[HI]] : index
// CHECK-NOT: arith.andi
// CHECK: arith.select %[[RIGHT]]
func.func @top_left_window(%q: tensor<1x1x3x2xf32>, %k: tensor<1x1x4x2xf32>, %v: tensor<1x1x4x2xf32>) -> tensor<1x1x3x2xf32> {
  %0 = kiln.attention %q, %k, %v {alignment = #kiln.alignment<top_left>, window_left = 7 : i64, window_right = 1 : i64}
       : tensor<1x1x3x2xf32>, tensor<1x1x4x2xf32>, tensor<1x1x4x2xf32> -> tensor<1x1x3x2xf32>
  return %0 : tensor<1x1x3x2xf32>
}

// -----

// f16: the contractions extend to f32, the softmax runs in f32, softcap is
// c * tanh(s / c), the additive [1, Hq, 1, Sk] mask is read at [0, h, 0, j]
// and added after the cap, and the output is rounded to f16 once.
// CHECK-LABEL: func.func @f16_softcap_bias
// CHECK-SAME: %[[MASK:[^:]*]]: tensor<1x2x1x5xf16>
// CHECK: scf.forall (%[[H:.*]]) in (2)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<3x4xf16>, tensor<4x5xf16>) outs(%{{.*}} : tensor<3x5xf32>)
// CHECK: linalg.generic
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[X:.*]] = arith.mulf
// CHECK: %[[CAP:.*]] = arith.constant 2.000000e+00 : f32
// CHECK: %[[R:.*]] = arith.divf %[[X]], %[[CAP]] : f32
// CHECK: %[[TH:.*]] = math.tanh %[[R]] : f32
// CHECK: %[[CAPPED:.*]] = arith.mulf %[[CAP]], %[[TH]] : f32
// CHECK: %[[BIAS:.*]] = tensor.extract %[[MASK]][%{{.*}}, %[[H]], %{{.*}}, %[[J]]] : tensor<1x2x1x5xf16>
// CHECK: %[[BX:.*]] = arith.extf %[[BIAS]] : f16 to f32
// CHECK: arith.addf %[[CAPPED]], %[[BX]] : f32
// CHECK: %[[O:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<3x5xf32>, tensor<5x4xf16>) outs(%{{.*}} : tensor<3x4xf32>)
// CHECK: %[[ON:.*]] = linalg.generic {{.*}} outs(%[[O]] : tensor<3x4xf32>)
// CHECK: arith.divf
// CHECK: %[[O16:.*]] = linalg.generic {{.*}} ins(%[[ON]] : tensor<3x4xf32>) outs(%{{.*}} : tensor<3x4xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: tensor.insert_slice %[[O16]]
func.func @f16_softcap_bias(%q: tensor<1x2x3x4xf16>, %k: tensor<1x2x5x4xf16>, %v: tensor<1x2x5x4xf16>,
                            %m: tensor<1x2x1x5xf16>) -> tensor<1x2x3x4xf16> {
  %0 = kiln.attention %q, %k, %v mask(%m : tensor<1x2x1x5xf16>) {softcap = 2.0 : f64}
       : tensor<1x2x3x4xf16>, tensor<1x2x5x4xf16>, tensor<1x2x5x4xf16> -> tensor<1x2x3x4xf16>
  return %0 : tensor<1x2x3x4xf16>
}

// -----

// Dropout: the seed is read once; each kept (unnormalized) probability is
// scaled by 1 / (1 - p) = 2 after the row sum, keyed by the flat index
// ((b * Hq + h) * Sq + i) * Sk + j of [B, Hq, Sq, Sk] = [1, 2, 3, 4]
// through Philox 4x32-10; the output rows are divided by the sum after
// e'·V.
// CHECK-LABEL: func.func @dropout
// CHECK-SAME: %[[SEEDT:[^:]*]]: tensor<i64>
// CHECK: %[[SEED:.*]] = tensor.extract %[[SEEDT]][] : tensor<i64>
// CHECK: scf.forall (%[[H:.*]]) in (2)
// CHECK: %[[B:.*]] = arith.constant 0 : index
// CHECK: math.exp
// CHECK: arith.addf
// CHECK-NOT: arith.divf
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[N0:.*]] = arith.muli %[[B]], %[[C2]] : index
// CHECK: %[[N1:.*]] = arith.addi %[[N0]], %[[H]] : index
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: arith.muli %[[N1]], %[[C3]] : index
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[N:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: arith.trunci %[[SEED]] : i64 to i32
// CHECK: arith.constant 3528531795 : i64
// CHECK: arith.constant 3449720151 : i64
// CHECK: arith.constant -1640531527 : i32
// CHECK: arith.constant -1150833019 : i32
// CHECK: %[[THRESHOLD:.*]] = arith.constant 2147483648 : i64
// CHECK: %[[KEEP:.*]] = arith.cmpi sge, %{{.*}}, %[[THRESHOLD]] : i64
// CHECK: %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK: %[[SCALED:.*]] = arith.mulf %{{.*}}, %[[TWO]] : f32
// CHECK: arith.select %[[KEEP]], %[[SCALED]], %{{.*}} : f32
// CHECK: linalg.matmul
// CHECK: arith.divf
func.func @dropout(%q: tensor<1x2x3x2xf32>, %k: tensor<1x1x4x2xf32>, %v: tensor<1x1x4x2xf32>,
                   %s: tensor<i64>) -> tensor<1x2x3x2xf32> {
  %0 = kiln.attention %q, %k, %v seed(%s : tensor<i64>) {dropout_p = 0.5 : f64}
       : tensor<1x2x3x2xf32>, tensor<1x1x4x2xf32>, tensor<1x1x4x2xf32> -> tensor<1x2x3x2xf32>
  return %0 : tensor<1x2x3x2xf32>
}

// -----

// An empty result (Sq = 0) needs no loop.
// CHECK-LABEL: func.func @empty_result
// CHECK-NOT: scf.for
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x4x0x7xf32>
// CHECK-NOT: scf.for
// CHECK: return %[[E]]
func.func @empty_result(%q: tensor<2x4x0x5xf32>, %k: tensor<2x2x6x5xf32>, %v: tensor<2x2x6x7xf32>) -> tensor<2x4x0x7xf32> {
  %0 = kiln.attention %q, %k, %v : tensor<2x4x0x5xf32>, tensor<2x2x6x5xf32>, tensor<2x2x6x7xf32> -> tensor<2x4x0x7xf32>
  return %0 : tensor<2x4x0x7xf32>
}

// -----

// kiln.dropout: one parallel generic over the input; the flat index comes
// from linalg.index, i0 * 5 + i1 for a 3x5 input.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @dropout_op
// CHECK-SAME: (%[[X:.*]]: tensor<3x5xf32>, %[[SEEDT:.*]]: tensor<i64>)
// CHECK: %[[SEED:.*]] = tensor.extract %[[SEEDT]][] : tensor<i64>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]] : tensor<3x5xf32>)
// CHECK: %[[I0:.*]] = linalg.index 0 : index
// CHECK: %[[C5:.*]] = arith.constant 5 : index
// CHECK: %[[M:.*]] = arith.muli %{{.*}}, %[[C5]] : index
// CHECK: %[[I1:.*]] = linalg.index 1 : index
// CHECK: %[[N:.*]] = arith.addi %[[M]], %[[I1]] : index
// CHECK: %[[N64:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK: %[[C2:.*]] = arith.constant 2 : i64
// CHECK: %[[BLOCK:.*]] = arith.shrui %[[N64]], %[[C2]] : i64
// CHECK: %[[C3:.*]] = arith.constant 3 : i64
// CHECK: %[[LANE:.*]] = arith.andi %[[N64]], %[[C3]] : i64
// CHECK: %[[THRESHOLD:.*]] = arith.constant 1073741824 : i64
// CHECK: %[[KEEP:.*]] = arith.cmpi sge, %{{.*}}, %[[THRESHOLD]] : i64
// CHECK: %[[SCALE:.*]] = arith.constant 1.33333337 : f32
// CHECK: %[[SCALED:.*]] = arith.mulf %{{.*}}, %[[SCALE]] : f32
// CHECK: %[[SEL:.*]] = arith.select %[[KEEP]], %[[SCALED]], %{{.*}} : f32
// CHECK: linalg.yield %[[SEL]] : f32
// CHECK: return %[[R]]
func.func @dropout_op(%x: tensor<3x5xf32>, %s: tensor<i64>) -> tensor<3x5xf32> {
  %0 = kiln.dropout %x, %s {p = 0.25 : f64} : tensor<3x5xf32>, tensor<i64>
  return %0 : tensor<3x5xf32>
}

// -----

// p = 0 is the identity.
// CHECK-LABEL: func.func @dropout_p0
// CHECK-SAME: (%[[X:.*]]: tensor<3x5xf32>,
// CHECK-NEXT: return %[[X]]
func.func @dropout_p0(%x: tensor<3x5xf32>, %s: tensor<i64>) -> tensor<3x5xf32> {
  %0 = kiln.dropout %x, %s {p = 0.0 : f64} : tensor<3x5xf32>, tensor<i64>
  return %0 : tensor<3x5xf32>
}

// -----

// The lse result: a second shared output [B, Hq, Sq] (f32 for f16), each
// block's LSE = m + log(l) from the row max and row sum the softmax computes
// anyway (into a fresh tensor, not in place), +inf for an empty row
// (m = -inf), inserted at [b, h] (by the iteration of head h).
// CHECK-LABEL: func.func @lse_f16
// CHECK: %[[LINIT:.*]] = tensor.empty() : tensor<1x2x3xf32>
// CHECK: scf.forall (%{{.*}}) in (2) shared_outs(%[[OACC:.*]] = %{{.*}}, %[[LACC:.*]] = %[[LINIT]]) -> (tensor<1x2x3x2xf16>, tensor<1x2x3xf32>)
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: %[[O:.*]] = tensor.insert_slice %{{.*}} into %[[OACC]]
// CHECK: %[[LSE:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%[[MAX]], %[[SUM]] : tensor<3xf32>, tensor<3xf32>) outs(%{{.*}} : tensor<3xf32>)
// CHECK: ^bb0(%[[M:.*]]: f32, %[[L:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[EMPTY:.*]] = arith.cmpf oeq, %[[M]], %{{.*}} : f32
// CHECK: %[[LOG:.*]] = math.log %[[L]] : f32
// CHECK: %[[ADD:.*]] = arith.addf %[[M]], %[[LOG]] : f32
// CHECK: %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK: arith.select %[[EMPTY]], %[[INF]], %[[ADD]] : f32
// CHECK: %[[L2:.*]] = tensor.insert_slice %[[LSE]] into %[[LACC]][%{{.*}}, %{{.*}}, 0] [1, 1, 3] [1, 1, 1] : tensor<3xf32> into tensor<1x2x3xf32>
// CHECK: scf.forall.in_parallel
// CHECK-NEXT: tensor.parallel_insert_slice %{{.*}} into %[[OACC]]
// CHECK-NEXT: tensor.parallel_insert_slice %{{.*}} into %[[LACC]]
func.func @lse_f16(%q: tensor<1x2x3x4xf16>, %k: tensor<1x1x5x4xf16>, %v: tensor<1x1x5x2xf16>) -> (tensor<1x2x3x2xf16>, tensor<1x2x3xf32>) {
  %o, %l = kiln.attention %q, %k, %v {causal} : tensor<1x2x3x4xf16>, tensor<1x1x5x4xf16>, tensor<1x1x5x2xf16> -> tensor<1x2x3x2xf16>, tensor<1x2x3xf32>
  return %o, %l : tensor<1x2x3x2xf16>, tensor<1x2x3xf32>
}

// -----

// Dv = 0: O is empty but the lse is not, so the block still runs and only
// writes the lse (one block in all: no loop).
// CHECK-LABEL: func.func @lse_dv_0
// CHECK-NOT: scf.forall
// CHECK: linalg.matmul ins({{.*}} : tensor<3x4xf64>, tensor<4x5xf64>)
// CHECK-NOT: linalg.matmul
// CHECK: math.log
// CHECK: tensor.insert_slice {{.*}} : tensor<3xf64> into tensor<1x1x3xf64>
func.func @lse_dv_0(%q: tensor<1x1x3x4xf64>, %k: tensor<1x1x5x4xf64>, %v: tensor<1x1x5x0xf64>) -> (tensor<1x1x3x0xf64>, tensor<1x1x3xf64>) {
  %o, %l = kiln.attention %q, %k, %v : tensor<1x1x3x4xf64>, tensor<1x1x5x4xf64>, tensor<1x1x5x0xf64> -> tensor<1x1x3x0xf64>, tensor<1x1x3xf64>
  return %o, %l : tensor<1x1x3x0xf64>, tensor<1x1x3xf64>
}

// -----

// ALiBi: the score block's payload subtracts slope[h] * |j - p(i)|, with
// p(i) = i + Sk - Sq (bottom_right) and the distance exact in i64: no
// [Sq, Sk] bias tensor is built.
// CHECK-LABEL: func.func @alibi
// CHECK-SAME: %[[S:[^:]*]]: tensor<2xf32>)
// CHECK: scf.forall (%[[H:.*]]) in (2)
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[X:.*]] = arith.mulf
// CHECK: %[[SLOPE:.*]] = tensor.extract %[[S]][%[[H]]] : tensor<2xf32>
// CHECK: %[[OFF:.*]] = arith.constant 2 : index
// CHECK: %[[P:.*]] = arith.addi %[[I]], %[[OFF]] : index
// CHECK: %[[D:.*]] = arith.subi %[[J]], %[[P]] : index
// CHECK: %[[D64:.*]] = arith.index_cast %[[D]] : index to i64
// CHECK: %[[ABS:.*]] = math.absi %[[D64]] : i64
// CHECK: %[[DF:.*]] = arith.sitofp %[[ABS]] : i64 to f32
// CHECK: %[[PEN:.*]] = arith.mulf %[[SLOPE]], %[[DF]] : f32
// CHECK: arith.subf %[[X]], %[[PEN]] : f32
func.func @alibi(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x5x4xf32>, %v: tensor<1x2x5x4xf32>, %s: tensor<2xf32>) -> tensor<1x2x3x4xf32> {
  %o = kiln.attention %q, %k, %v alibi_slopes(%s : tensor<2xf32>) : tensor<1x2x3x4xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32> -> tensor<1x2x3x4xf32>
  return %o : tensor<1x2x3x4xf32>
}

// -----

// Sinks: after the block's row max m and row sum l, one row generic folds
// the head's sink s in (m' = max(m, s), rescale = exp(m - m'),
// l' = l * rescale + exp(s - m'), w = rescale / l'), and O = (e·V) * w.
// CHECK-LABEL: func.func @sinks
// CHECK-SAME: %[[S:[^:]*]]: tensor<2xf32>)
// CHECK: scf.forall (%[[H:.*]]) in (2)
// CHECK: arith.maximumf
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}}["parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: %[[E:.*]]:2 = linalg.generic
// CHECK: math.exp
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}}["parallel", "reduction"]
// CHECK: %[[SINK:.*]] = tensor.extract %[[S]][%[[H]]] : tensor<2xf32>
// CHECK: %[[FOLD:.*]]:3 = linalg.generic {{.*}} ins(%[[MAX]], %[[SUM]] : tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT: ^bb0(%[[M:[^:]*]]: f32, %[[L:[^:]*]]: f32,
// CHECK-NEXT: %[[M2:.*]] = arith.maximumf %[[M]], %[[SINK]] : f32
// CHECK: %[[DM:.*]] = arith.subf %[[M]], %[[M2]] : f32
// CHECK: math.exp %[[DM]]
// CHECK: %[[RESCALE:.*]] = arith.select
// CHECK: %[[DS:.*]] = arith.subf %[[SINK]], %[[M2]] : f32
// CHECK: math.exp %[[DS]]
// CHECK: %[[TERM:.*]] = arith.select
// CHECK: %[[LR:.*]] = arith.mulf %[[L]], %[[RESCALE]] : f32
// CHECK: %[[L2:.*]] = arith.addf %[[LR]], %[[TERM]] : f32
// CHECK: %[[W:.*]] = arith.divf %[[RESCALE]], %[[L2]] : f32
// CHECK: %[[W0:.*]] = arith.select %{{.*}}, %{{.*}}, %[[W]] : f32
// CHECK: linalg.yield %[[M2]], %[[L2]], %[[W0]] : f32, f32, f32
// CHECK: %[[EV:.*]] = linalg.matmul ins(%[[E]]#0, %{{.*}} : tensor<3x5xf32>, tensor<5x4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[FOLD]]#2 : tensor<3xf32>) outs(%[[EV]] : tensor<3x4xf32>)
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
func.func @sinks(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x5x4xf32>, %v: tensor<1x2x5x4xf32>, %s: tensor<2xf32>) -> tensor<1x2x3x4xf32> {
  %o = kiln.attention %q, %k, %v sinks(%s : tensor<2xf32>) : tensor<1x2x3x4xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32> -> tensor<1x2x3x4xf32>
  return %o : tensor<1x2x3x4xf32>
}

// -----

// Packed sequences: one generic over the Sq rows finds each row's sequence
// (an scf.for over the N = 2 sequences, from the last, so the first that
// holds the row wins) and writes its keys [begin, end) and position p(i)
// into [Sq] i64 tables. Each query block reads its rows' tables to narrow
// its key tiles (a loop over the rows, then the tile range), and the score
// block's predicate reads them (begin <= j < end, causal: j < p(i) + 1).
// No global band is applied.
// CHECK-LABEL: func.func @packed_sequences
// CHECK-SAME: %[[CQ:[^:]*]]: tensor<3xi32>, %[[CK:[^:]*]]: tensor<3xi64>)
// CHECK: %[[T:.*]]:3 = linalg.generic {{.*}}["parallel"]
// CHECK: linalg.index 0 : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %c2 step %{{.*}} iter_args
// CHECK: tensor.extract %[[CQ]]
// CHECK: tensor.extract %[[CK]]
// CHECK: arith.select
// CHECK: linalg.yield {{.*}} : i64, i64, i64
// CHECK: scf.forall
// CHECK: %[[RANGE:.*]]:2 = scf.for %[[R:.*]] = %{{.*}} to %c6 step %{{.*}} iter_args
// CHECK: tensor.extract %[[T]]#0[%[[R]]]
// CHECK: tensor.extract %[[T]]#1[%[[R]]]
// CHECK: tensor.extract %[[T]]#2[%[[R]]]
// CHECK: affine.min #{{.*}}()[%[[RANGE]]#1]
// CHECK: affine.max #{{.*}}()[%[[RANGE]]#0]
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK: %[[ROW:.*]] = linalg.index 0 : index
// CHECK: tensor.extract %[[T]]#0[%[[ROW]]] : tensor<6xi64>
// CHECK: tensor.extract %[[T]]#1[%[[ROW]]] : tensor<6xi64>
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi slt
// CHECK: tensor.extract %[[T]]#2[%[[ROW]]] : tensor<6xi64>
// CHECK: arith.cmpi slt
// CHECK: arith.select
func.func @packed_sequences(%q: tensor<1x2x6x4xf32>, %k: tensor<1x2x6x4xf32>, %v: tensor<1x2x6x4xf32>, %cq: tensor<3xi32>, %ck: tensor<3xi64>) -> tensor<1x2x6x4xf32> {
  %o = kiln.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<3xi32>, tensor<3xi64>) {causal} : tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32> -> tensor<1x2x6x4xf32>
  return %o : tensor<1x2x6x4xf32>
}
