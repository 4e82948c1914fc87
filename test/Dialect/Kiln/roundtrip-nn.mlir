// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --emit-bytecode | kiln-opt | FileCheck %s

// CHECK-LABEL: func.func @dropout
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[SEED:.*]]: tensor<i64>)
// CHECK: kiln.dropout %[[X]], %[[SEED]] {p = 1.000000e-01 : f64} : tensor<4x8xf32>, tensor<i64>
func.func @dropout(%x: tensor<4x8xf32>, %seed: tensor<i64>) -> tensor<4x8xf32> {
  %0 = kiln.dropout %x, %seed {p = 1.000000e-01 : f64} : tensor<4x8xf32>, tensor<i64>
  return %0 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @cross_entropy_sum
// CHECK-SAME: (%[[LOGITS:.*]]: tensor<4x10xf32>, %[[LABELS:.*]]: tensor<4xi64>)
// CHECK: kiln.cross_entropy %[[LOGITS]], %[[LABELS]] {reduction = #kiln.reduction<sum>} : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<f32>
func.func @cross_entropy_sum(%logits: tensor<4x10xf32>, %labels: tensor<4xi64>) -> tensor<f32> {
  %0 = kiln.cross_entropy %logits, %labels {reduction = #kiln.reduction<sum>}
      : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// The defaults (mean, ignore_index = -100) are elided.
// CHECK-LABEL: func.func @cross_entropy_mean
// CHECK-SAME: (%[[LOGITS:.*]]: tensor<4x10xf16>, %[[LABELS:.*]]: tensor<4xi32>)
// CHECK: kiln.cross_entropy %[[LOGITS]], %[[LABELS]] : (tensor<4x10xf16>, tensor<4xi32>) -> tensor<f16>
func.func @cross_entropy_mean(%logits: tensor<4x10xf16>, %labels: tensor<4xi32>) -> tensor<f16> {
  %0 = kiln.cross_entropy %logits, %labels {reduction = #kiln.reduction<mean>, ignore_index = -100}
      : (tensor<4x10xf16>, tensor<4xi32>) -> tensor<f16>
  return %0 : tensor<f16>
}

// CHECK-LABEL: func.func @cross_entropy_none
// CHECK-SAME: (%[[LOGITS:.*]]: tensor<4x10xf32>, %[[LABELS:.*]]: tensor<4xi64>)
// CHECK: kiln.cross_entropy %[[LOGITS]], %[[LABELS]] {ignore_index = 0 : i64, reduction = #kiln.reduction<none>} : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<4xf32>
func.func @cross_entropy_none(%logits: tensor<4x10xf32>, %labels: tensor<4xi64>) -> tensor<4xf32> {
  %0 = kiln.cross_entropy %logits, %labels {reduction = #kiln.reduction<none>, ignore_index = 0}
      : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xf32>, %[[W:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK: kiln.layer_norm %[[X]] weight(%[[W]] : tensor<8xf32>) bias(%[[B]] : tensor<8xf32>) : tensor<2x8xf32>
func.func @layer_norm(%x: tensor<2x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
  %0 = kiln.layer_norm %x weight(%w : tensor<8xf32>) bias(%b : tensor<8xf32>)
      {epsilon = 1.000000e-05 : f64, normalized_rank = 1 : i64} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// CHECK-LABEL: func.func @layer_norm_no_params
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: kiln.layer_norm %[[X]] {epsilon = 1.000000e-03 : f64, normalized_rank = 2 : i64} : tensor<2x3x4xf32>
func.func @layer_norm_no_params(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = kiln.layer_norm %x {epsilon = 1.000000e-03 : f64, normalized_rank = 2 : i64} : tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @layer_norm_bias_only
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xbf16>, %[[B:.*]]: tensor<8xbf16>)
// CHECK: kiln.layer_norm %[[X]] bias(%[[B]] : tensor<8xbf16>) : tensor<2x8xbf16>
func.func @layer_norm_bias_only(%x: tensor<2x8xbf16>, %b: tensor<8xbf16>) -> tensor<2x8xbf16> {
  %0 = kiln.layer_norm %x bias(%b : tensor<8xbf16>) : tensor<2x8xbf16>
  return %0 : tensor<2x8xbf16>
}

// CHECK-LABEL: func.func @rms_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xf32>, %[[W:.*]]: tensor<8xf32>)
// CHECK: kiln.rms_norm %[[X]] weight(%[[W]] : tensor<8xf32>) : tensor<2x8xf32>
func.func @rms_norm(%x: tensor<2x8xf32>, %w: tensor<8xf32>) -> tensor<2x8xf32> {
  %0 = kiln.rms_norm %x weight(%w : tensor<8xf32>) {normalized_rank = 1 : i64} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// CHECK-LABEL: func.func @rms_norm_no_weight
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: kiln.rms_norm %[[X]] {epsilon = 1.000000e-05 : f64, normalized_rank = 3 : i64} : tensor<2x3x4xf32>
func.func @rms_norm_no_weight(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = kiln.rms_norm %x {epsilon = 1.000000e-05 : f64, normalized_rank = 3 : i64} : tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}
