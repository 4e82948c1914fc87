// RUN: kiln-opt %s --convert-kiln-to-linalg --split-input-file | FileCheck %s

// Cross entropy: the stable log-softmax pieces per row, the label's logit by
// tensor.extract (clamped; NaN for an out-of-range label, 0 when ignored),
// then the mean over non-ignored samples, counted in i64.
// CHECK-LABEL: func.func @cross_entropy_mean
// CHECK-SAME: (%[[L:.*]]: tensor<4x5xf32>, %[[T:.*]]: tensor<4xi32>)
// CHECK: %[[MAX:.*]] = linalg.generic
// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = linalg.generic
// CHECK-SAME: ins(%[[L]], %[[MAX]] : tensor<4x5xf32>, tensor<4xf32>)
// CHECK: math.exp
// CHECK: %[[LOSS:.*]] = linalg.generic
// CHECK-SAME: ins(%[[T]], %[[MAX]], %[[SUM]] : tensor<4xi32>, tensor<4xf32>, tensor<4xf32>)
// CHECK: ^bb0(%[[LABEL:.*]]: i32, %[[M:.*]]: f32, %[[S:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[L64:.*]] = arith.extsi %[[LABEL]] : i32 to i64
// CHECK: %[[IGN:.*]] = arith.constant 2 : i64
// CHECK: %[[IGNORED:.*]] = arith.cmpi eq, %[[L64]], %[[IGN]]
// CHECK: %[[C:.*]] = arith.constant 5 : i64
// CHECK: arith.cmpi slt, %[[L64]], %[[C]]
// CHECK: %[[OK:.*]] = arith.andi
// CHECK: %[[SAFE:.*]] = arith.select %[[OK]], %[[L64]]
// CHECK: %[[ROW:.*]] = linalg.index 0
// CHECK: %[[COL:.*]] = arith.index_cast %[[SAFE]] : i64 to index
// CHECK: %[[X:.*]] = tensor.extract %[[L]][%[[ROW]], %[[COL]]]
// CHECK: %[[SH:.*]] = arith.subf %[[X]], %[[M]]
// CHECK: %[[LOG:.*]] = math.log %[[S]]
// CHECK: %[[NLL:.*]] = arith.subf %[[LOG]], %[[SH]]
// CHECK: %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[CHECKED:.*]] = arith.select %[[OK]], %[[NLL]], %[[NAN]]
// CHECK: arith.select %[[IGNORED]], %[[ZERO]], %[[CHECKED]]
// CHECK: %[[TOT:.*]]:2 = linalg.generic
// CHECK-SAME: iterator_types = ["reduction"]
// CHECK-SAME: ins(%[[LOSS]], %[[T]] : tensor<4xf32>, tensor<4xi32>)
// CHECK-SAME: outs(%{{.*}}, %{{.*}} : tensor<f32>, tensor<i64>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[TOT]]#0, %[[TOT]]#1 : tensor<f32>, tensor<i64>)
// CHECK: %[[N:.*]] = arith.sitofp %{{.*}} : i64 to f32
// CHECK: arith.divf %{{.*}}, %[[N]]
func.func @cross_entropy_mean(%l: tensor<4x5xf32>, %t: tensor<4xi32>) -> tensor<f32> {
  %0 = kiln.cross_entropy %l, %t {ignore_index = 2 : i64} : (tensor<4x5xf32>, tensor<4xi32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// reduction = none returns the per-sample losses; sum adds them up.
// CHECK-LABEL: func.func @cross_entropy_none
// CHECK: math.exp
// CHECK: %[[LOSS:.*]] = linalg.generic
// CHECK: tensor.extract
// CHECK: return %[[LOSS]] : tensor<3xf64>
// CHECK-LABEL: func.func @cross_entropy_sum
// CHECK: math.exp
// CHECK: %[[LOSS:.*]] = linalg.generic
// CHECK: tensor.extract
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["reduction"]
// CHECK-SAME: ins(%[[LOSS]] : tensor<3xf64>)
// CHECK: return %[[R]] : tensor<f64>
func.func @cross_entropy_none(%l: tensor<3x2xf64>, %t: tensor<3xi64>) -> tensor<3xf64> {
  %0 = kiln.cross_entropy %l, %t {reduction = #kiln.reduction<none>} : (tensor<3x2xf64>, tensor<3xi64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func @cross_entropy_sum(%l: tensor<3x2xf64>, %t: tensor<3xi64>) -> tensor<f64> {
  %0 = kiln.cross_entropy %l, %t {reduction = #kiln.reduction<sum>} : (tensor<3x2xf64>, tensor<3xi64>) -> tensor<f64>
  return %0 : tensor<f64>
}

// -----

// Layer norm over the trailing 2 dims: row mean, row 1 / sqrt(var + eps),
// then (x - mean) * rstd * weight + bias with the parameters read through
// the trailing dims.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-DAG: #[[$PARAM:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>, %[[W:.*]]: tensor<3x4xf32>, %[[B:.*]]: tensor<3x4xf32>)
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction", "reduction"]
// CHECK: %[[MEAN:.*]] = linalg.generic
// CHECK: arith.constant 1.200000e+01 : f32
// CHECK: %[[SQ:.*]] = linalg.generic
// CHECK-SAME: ins(%[[X]], %[[MEAN]] :
// CHECK: %[[RSTD:.*]] = linalg.generic
// CHECK-SAME: ins(%[[SQ]] : tensor<2xf32>)
// CHECK: %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// CHECK: %[[VE:.*]] = arith.addf %{{.*}}, %[[EPS]]
// CHECK: %[[SQRT:.*]] = math.sqrt %[[VE]]
// CHECK: arith.divf %{{.*}}, %[[SQRT]]
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ROW]], #[[$PARAM]], #[[$PARAM]], #[[$ID]]]
// CHECK-SAME: ins(%[[X]], %[[MEAN]], %[[RSTD]], %[[W]], %[[B]] :
// CHECK: ^bb0(%[[V:.*]]: f32, %[[M:.*]]: f32, %[[R:.*]]: f32, %[[WV:.*]]: f32, %[[BV:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[D:.*]] = arith.subf %[[V]], %[[M]]
// CHECK: %[[N:.*]] = arith.mulf %[[D]], %[[R]]
// CHECK: %[[Y:.*]] = arith.mulf %[[N]], %[[WV]]
// CHECK: arith.addf %[[Y]], %[[BV]]
func.func @layer_norm(%x: tensor<2x3x4xf32>, %w: tensor<3x4xf32>, %b: tensor<3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = kiln.layer_norm %x weight(%w : tensor<3x4xf32>) bias(%b : tensor<3x4xf32>) {epsilon = 1.0e-05 : f64, normalized_rank = 2 : i64} : tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Without weight and bias the last generic only normalizes.
// CHECK-LABEL: func.func @layer_norm_plain
// CHECK: math.sqrt
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<4x8xf64>, tensor<4xf64>, tensor<4xf64>)
// CHECK: %[[D:.*]] = arith.subf
// CHECK: %[[N:.*]] = arith.mulf %[[D]], %{{.*}}
// CHECK-NEXT: linalg.yield %[[N]]
func.func @layer_norm_plain(%x: tensor<4x8xf64>) -> tensor<4x8xf64> {
  %0 = kiln.layer_norm %x : tensor<4x8xf64>
  return %0 : tensor<4x8xf64>
}

// -----

// RMS norm: row sum of squares, 1 / sqrt(mean + eps), x * that * weight.
// CHECK-LABEL: func.func @rms_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xf64>, %[[W:.*]]: tensor<8xf64>)
// CHECK: %[[SQ:.*]] = linalg.generic
// CHECK: %[[P:.*]] = arith.mulf %[[IN:.*]], %[[IN]] : f64
// CHECK: arith.addf %{{.*}}, %[[P]]
// CHECK: %[[RRMS:.*]] = linalg.generic
// CHECK-SAME: ins(%[[SQ]] : tensor<2xf64>)
// CHECK: arith.constant 8.000000e+00 : f64
// CHECK: arith.constant 9.9999999999999995E-7 : f64
// CHECK: math.sqrt
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[X]], %[[RRMS]], %[[W]] : tensor<2x8xf64>, tensor<2xf64>, tensor<8xf64>)
// CHECK: %[[Y:.*]] = arith.mulf
// CHECK: arith.mulf %[[Y]]
func.func @rms_norm(%x: tensor<2x8xf64>, %w: tensor<8xf64>) -> tensor<2x8xf64> {
  %0 = kiln.rms_norm %x weight(%w : tensor<8xf64>) {normalized_rank = 1 : i64} : tensor<2x8xf64>
  return %0 : tensor<2x8xf64>
}

// -----

// bf16 layer norm: statistics and the normalized values in f32, one
// rounding at the end.
// CHECK-LABEL: func.func @layer_norm_bf16
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2xf32>)
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: math.sqrt %{{.*}} : f32
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<2x8xbf16>, tensor<2xf32>, tensor<2xf32>)
// CHECK: %[[X:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK: %[[D:.*]] = arith.subf %[[X]], %{{.*}} : f32
// CHECK: %[[Y:.*]] = arith.mulf %[[D]], %{{.*}} : f32
// CHECK: arith.truncf %[[Y]] : f32 to bf16
func.func @layer_norm_bf16(%x: tensor<2x8xbf16>) -> tensor<2x8xbf16> {
  %0 = kiln.layer_norm %x : tensor<2x8xbf16>
  return %0 : tensor<2x8xbf16>
}
