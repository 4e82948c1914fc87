// RUN: kiln-opt %s --convert-kiln-to-linalg --split-input-file | FileCheck %s

// A reduction over axes: reduction iterators on the reduced dims, an output
// map onto the kept dims, a filled init; keep_dims expands afterwards.
// CHECK-DAG: #[[$ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$D1:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @sum_keep_dims
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<3xf32>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<3xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [#[[$ID3]], #[[$D1]]]
// CHECK-SAME: iterator_types = ["reduction", "parallel", "reduction"]
// CHECK-SAME: ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<3xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK: %[[ADD:.*]] = arith.addf %[[ACC]], %[[IN]] : f32
// CHECK: linalg.yield %[[ADD]]
// CHECK: %[[R:.*]] = tensor.expand_shape %[[SUM]] {{\[}}[0, 1, 2]] output_shape [1, 3, 1] : tensor<3xf32> into tensor<1x3x1xf32>
// CHECK: return %[[R]]
func.func @sum_keep_dims(%x: tensor<2x3x4xf32>) -> tensor<1x3x1xf32> {
  %0 = kiln.sum %x {axes = array<i64: 0, 2>, keep_dims = true} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
  return %0 : tensor<1x3x1xf32>
}

// -----

// Summing booleans is a logical or; reducing every dim gives rank 0.
// CHECK-LABEL: func.func @sum_i1_all
// CHECK: %[[FALSE:.*]] = arith.constant false
// CHECK: linalg.fill ins(%[[FALSE]] : i1) outs(%{{.*}} : tensor<i1>)
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["reduction", "reduction"]
// CHECK: arith.ori
// CHECK-NOT: tensor.expand_shape
func.func @sum_i1_all(%x: tensor<2x3xi1>) -> tensor<i1> {
  %0 = kiln.sum %x {axes = array<i64: 0, 1>} : tensor<2x3xi1> -> tensor<i1>
  return %0 : tensor<i1>
}

// -----

// Float max starts at -inf and propagates NaN; integer min is signed.
// CHECK-LABEL: func.func @max_f64
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFFF0000000000000 : f64
// CHECK: linalg.fill ins(%[[NEGINF]] : f64)
// CHECK: arith.maximumf
// CHECK-LABEL: func.func @min_i8
// CHECK: %[[MAX:.*]] = arith.constant 127 : i8
// CHECK: linalg.fill ins(%[[MAX]] : i8)
// CHECK: arith.minsi
// CHECK-LABEL: func.func @max_i1
// CHECK: arith.ori
// CHECK-LABEL: func.func @min_i1
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: linalg.fill ins(%[[TRUE]] : i1)
// CHECK: arith.andi
func.func @max_f64(%x: tensor<2x3xf64>) -> tensor<2xf64> {
  %0 = kiln.max %x {axes = array<i64: 1>} : tensor<2x3xf64> -> tensor<2xf64>
  return %0 : tensor<2xf64>
}
func.func @min_i8(%x: tensor<2x3xi8>) -> tensor<3xi8> {
  %0 = kiln.min %x {axes = array<i64: 0>} : tensor<2x3xi8> -> tensor<3xi8>
  return %0 : tensor<3xi8>
}
func.func @max_i1(%x: tensor<2x3xi1>) -> tensor<3xi1> {
  %0 = kiln.max %x {axes = array<i64: 0>} : tensor<2x3xi1> -> tensor<3xi1>
  return %0 : tensor<3xi1>
}
func.func @min_i1(%x: tensor<2x3xi1>) -> tensor<3xi1> {
  %0 = kiln.min %x {axes = array<i64: 0>} : tensor<2x3xi1> -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

// The mean divides the sum by the number of reduced elements.
// CHECK-LABEL: func.func @mean
// CHECK: %[[SUM:.*]] = linalg.generic
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[SUM]] : tensor<2xf32>)
// CHECK: %[[N:.*]] = arith.constant 1.200000e+01 : f32
// CHECK: arith.divf %{{.*}}, %[[N]] : f32
func.func @mean(%x: tensor<2x3x4xf32>) -> tensor<2xf32> {
  %0 = kiln.mean %x {axes = array<i64: 1, 2>} : tensor<2x3x4xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Variance: the mean, the sum of squared deviations from it, then a division
// by max(0, N - correction): here max(0, 2 - 3) = 0.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @variance
// CHECK-SAME: (%[[X:.*]]: tensor<3x2xf64>)
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: %[[MEAN:.*]] = linalg.generic
// CHECK: arith.constant 2.000000e+00 : f64
// CHECK: %[[SQ:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ROW]]]
// CHECK-SAME: ins(%[[X]], %[[MEAN]] : tensor<3x2xf64>, tensor<3xf64>)
// CHECK: ^bb0(%[[V:.*]]: f64, %[[M:.*]]: f64, %[[ACC:.*]]: f64):
// CHECK: %[[D:.*]] = arith.subf %[[V]], %[[M]]
// CHECK: %[[D2:.*]] = arith.mulf %[[D]], %[[D]]
// CHECK: arith.addf %[[ACC]], %[[D2]]
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[SQ]] : tensor<3xf64>)
// CHECK: %[[DIV:.*]] = arith.constant 0.000000e+00 : f64
// CHECK: arith.divf %{{.*}}, %[[DIV]]
func.func @variance(%x: tensor<3x2xf64>) -> tensor<3xf64> {
  %0 = kiln.variance %x {axes = array<i64: 1>, correction = 3 : i64} : tensor<3x2xf64> -> tensor<3xf64>
  return %0 : tensor<3xf64>
}

// -----

// Argmax reduces (value, index) pairs; the index comes from linalg.index and
// the result is the second output.
// CHECK-LABEL: func.func @argmax
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[BIG:.*]] = arith.constant 9223372036854775807 : i64
// CHECK: %[[VALS:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<3xf32>)
// CHECK: %[[IDXS:.*]] = linalg.fill ins(%[[BIG]] : i64) outs(%{{.*}} : tensor<3xi64>)
// CHECK: %[[R:.*]]:2 = linalg.generic
// CHECK-SAME: iterator_types = ["reduction", "parallel"]
// CHECK-SAME: outs(%[[VALS]], %[[IDXS]] : tensor<3xf32>, tensor<3xi64>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[BEST:.*]]: f32, %[[BESTI:.*]]: i64):
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[I64:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK: arith.cmpi slt, %[[I64]], %[[BESTI]]
// CHECK: arith.cmpf ogt, %[[X]], %[[BEST]]
// CHECK: arith.cmpf uno, %[[X]], %[[X]]
// CHECK: %[[NV:.*]] = arith.select %[[TAKE:[0-9]+]], %[[X]], %[[BEST]] : f32
// CHECK: %[[NI:.*]] = arith.select %[[TAKE]], %[[I64]], %[[BESTI]] : i64
// CHECK: linalg.yield %[[NV]], %[[NI]]
// CHECK: return %[[R]]#1
func.func @argmax(%x: tensor<4x3xf32>) -> tensor<3xi64> {
  %0 = kiln.argmax %x {axis = 0 : i64} : tensor<4x3xf32> -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// Integer argmax compares signed, booleans unsigned.
// CHECK-LABEL: func.func @argmax_i32
// CHECK: arith.cmpi sgt
// CHECK-LABEL: func.func @argmax_i1
// CHECK: arith.cmpi ugt
func.func @argmax_i32(%x: tensor<4x3xi32>) -> tensor<4xi64> {
  %0 = kiln.argmax %x {axis = 1 : i64} : tensor<4x3xi32> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}
func.func @argmax_i1(%x: tensor<4x3xi1>) -> tensor<4xi64> {
  %0 = kiln.argmax %x {axis = 1 : i64} : tensor<4x3xi1> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// Softmax: the row max, the sum of exp(x - max), then exp(x - max) / sum.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[MAX:.*]] = linalg.generic
// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = linalg.generic
// CHECK-SAME: ins(%[[X]], %[[MAX]] : tensor<2x3xf32>, tensor<2xf32>)
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ROW]], #[[$ID]]]
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-SAME: ins(%[[X]], %[[MAX]], %[[SUM]] :
// CHECK: ^bb0(%[[V:.*]]: f32, %[[M:.*]]: f32, %[[S:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[SH:.*]] = arith.subf %[[V]], %[[M]]
// CHECK: %[[E:.*]] = math.exp %[[SH]]
// CHECK: arith.divf %[[E]], %[[S]]
func.func @softmax(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.softmax %x {axis = 1 : i64} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// log_softmax: x - max - log(sum).
// CHECK-LABEL: func.func @log_softmax
// CHECK: ^bb0(%[[V:.*]]: f64, %[[M:.*]]: f64, %[[S:.*]]: f64, %{{.*}}: f64):
// CHECK: %[[SH:.*]] = arith.subf %[[V]], %[[M]]
// CHECK: %[[L:.*]] = math.log %[[S]]
// CHECK: arith.subf %[[SH]], %[[L]]
func.func @log_softmax(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %0 = kiln.log_softmax %x {axis = 0 : i64} : tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}

// -----

// Matmul: batch dims of lhs fold into the rows of one linalg.matmul when
// rhs is a matrix.
// CHECK-LABEL: func.func @matmul_batch_mat
// CHECK-SAME: (%[[A:.*]]: tensor<2x3x4xf32>, %[[B:.*]]: tensor<4x5xf32>)
// CHECK: %[[A2:.*]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: %[[INIT:.*]] = linalg.fill
// CHECK: %[[P:.*]] = linalg.matmul ins(%[[A2]], %[[B]] : tensor<6x4xf32>, tensor<4x5xf32>) outs(%[[INIT]] : tensor<6x5xf32>)
// CHECK: %[[R:.*]] = tensor.expand_shape %[[P]] {{\[}}[0, 1], [2]] output_shape [2, 3, 5]
// CHECK: return %[[R]]
func.func @matmul_batch_mat(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = kiln.matmul %a, %b : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// Broadcast batches: the operand with the smaller batch is materialized at
// the common batch shape, batch dims collapse into one for
// linalg.batch_matmul.
// CHECK-DAG: #[[$BCAST:.*]] = affine_map<(d0, d1, d2, d3) -> (0, d2, d3)>
// CHECK-LABEL: func.func @matmul_broadcast
// CHECK-SAME: (%[[A:.*]]: tensor<1x3x4xf64>, %[[B:.*]]: tensor<2x2x4x5xf64>)
// CHECK: %[[AB:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [#[[$BCAST]],
// CHECK-SAME: ins(%[[A]] : tensor<1x3x4xf64>) outs(%{{.*}} : tensor<2x2x3x4xf64>)
// CHECK: %[[A3:.*]] = tensor.collapse_shape %[[AB]] {{\[}}[0, 1], [2], [3]] : tensor<2x2x3x4xf64> into tensor<4x3x4xf64>
// CHECK: %[[B3:.*]] = tensor.collapse_shape %[[B]] {{\[}}[0, 1], [2], [3]] : tensor<2x2x4x5xf64> into tensor<4x4x5xf64>
// CHECK: %[[P:.*]] = linalg.batch_matmul ins(%[[A3]], %[[B3]] : tensor<4x3x4xf64>, tensor<4x4x5xf64>)
// CHECK: tensor.expand_shape %[[P]] {{\[}}[0, 1], [2], [3]] output_shape [2, 2, 3, 5]
func.func @matmul_broadcast(%a: tensor<1x3x4xf64>, %b: tensor<2x2x4x5xf64>) -> tensor<2x2x3x5xf64> {
  %0 = kiln.matmul %a, %b : (tensor<1x3x4xf64>, tensor<2x2x4x5xf64>) -> tensor<2x2x3x5xf64>
  return %0 : tensor<2x2x3x5xf64>
}

// -----

// Rank-1 operands become [1, K] / [K, 1]; the added dims are dropped, down
// to rank 0 for a dot product.
// CHECK-LABEL: func.func @matmul_dot
// CHECK: %[[L:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [1, 3] : tensor<3xf32> into tensor<1x3xf32>
// CHECK: %[[R:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [3, 1] : tensor<3xf32> into tensor<3x1xf32>
// CHECK: %[[P:.*]] = linalg.matmul ins(%[[L]], %[[R]] :
// CHECK: tensor.collapse_shape %[[P]] [] : tensor<1x1xf32> into tensor<f32>
// CHECK-LABEL: func.func @matmul_batch_vec
// CHECK: %[[P:.*]] = linalg.matmul
// CHECK-SAME: outs(%{{.*}} : tensor<6x1xi32>)
// CHECK: %[[E:.*]] = tensor.expand_shape %[[P]] {{\[}}[0, 1], [2]] output_shape [2, 3, 1]
// CHECK: tensor.collapse_shape %[[E]] {{\[}}[0], [1, 2]] : tensor<2x3x1xi32> into tensor<2x3xi32>
func.func @matmul_dot(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<f32> {
  %0 = kiln.matmul %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func @matmul_batch_vec(%a: tensor<2x3x4xi32>, %b: tensor<4xi32>) -> tensor<2x3xi32> {
  %0 = kiln.matmul %a, %b : (tensor<2x3x4xi32>, tensor<4xi32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// Boolean matmul is an or of ands, as a generic contraction.
// CHECK-DAG: #[[$LHS:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$RHS:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[$OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul_i1
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [#[[$LHS]], #[[$RHS]], #[[$OUT]]]
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: ^bb0(%[[X:.*]]: i1, %[[Y:.*]]: i1, %[[ACC:.*]]: i1):
// CHECK: %[[AND:.*]] = arith.andi %[[X]], %[[Y]]
// CHECK: arith.ori %[[ACC]], %[[AND]]
func.func @matmul_i1(%a: tensor<2x3xi1>, %b: tensor<3x4xi1>) -> tensor<2x4xi1> {
  %0 = kiln.matmul %a, %b : (tensor<2x3xi1>, tensor<3x4xi1>) -> tensor<2x4xi1>
  return %0 : tensor<2x4xi1>
}

// -----

// f16 and bf16 sums accumulate in f32 and round once; max stays in f16.
// CHECK-LABEL: func.func @sum_f16
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2xf32>)
// CHECK: ^bb0(%[[X:.*]]: f16, %[[ACC:.*]]: f32):
// CHECK: %[[W:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK: arith.addf %[[ACC]], %[[W]] : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK-LABEL: func.func @max_bf16
// CHECK-NOT: arith.extf
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : bf16
// CHECK-LABEL: func.func @matmul_bf16
// CHECK: %[[P:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<2x3xbf16>, tensor<3x4xbf16>) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[P]] : tensor<2x4xf32>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @sum_f16(%x: tensor<2x3xf16>) -> tensor<2xf16> {
  %0 = kiln.sum %x {axes = array<i64: 1>} : tensor<2x3xf16> -> tensor<2xf16>
  return %0 : tensor<2xf16>
}
func.func @max_bf16(%x: tensor<2x3xbf16>) -> tensor<2xbf16> {
  %0 = kiln.max %x {axes = array<i64: 1>} : tensor<2x3xbf16> -> tensor<2xbf16>
  return %0 : tensor<2xbf16>
}
func.func @matmul_bf16(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>) -> tensor<2x4xbf16> {
  %0 = kiln.matmul %a, %b : (tensor<2x3xbf16>, tensor<3x4xbf16>) -> tensor<2x4xbf16>
  return %0 : tensor<2x4xbf16>
}
