// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --emit-bytecode | kiln-opt | FileCheck %s

// CHECK-LABEL: func.func @sum
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.sum %[[X]] {axes = array<i64: 1>} : tensor<2x3xf32> -> tensor<2xf32>
func.func @sum(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %0 = kiln.sum %x {axes = array<i64: 1>} : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// CHECK-LABEL: func.func @sum_keep_dims_int
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xi32>)
// CHECK: kiln.sum %[[X]] {axes = array<i64: 0, 1>, keep_dims = true} : tensor<2x3xi32> -> tensor<1x1xi32>
func.func @sum_keep_dims_int(%x: tensor<2x3xi32>) -> tensor<1x1xi32> {
  %0 = kiln.sum %x {axes = array<i64: 0, 1>, keep_dims = true} : tensor<2x3xi32> -> tensor<1x1xi32>
  return %0 : tensor<1x1xi32>
}

// CHECK-LABEL: func.func @mean
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: kiln.mean %[[X]] {axes = array<i64: 0, 2>, keep_dims = true} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
func.func @mean(%x: tensor<2x3x4xf32>) -> tensor<1x3x1xf32> {
  %0 = kiln.mean %x {axes = array<i64: 0, 2>, keep_dims = true}
      : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
  return %0 : tensor<1x3x1xf32>
}

// CHECK-LABEL: func.func @max
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.max %[[X]] {axes = array<i64: 1>} : tensor<2x3xf32> -> tensor<2xf32>
func.func @max(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %0 = kiln.max %x {axes = array<i64: 1>} : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// CHECK-LABEL: func.func @min
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xi32>)
// CHECK: kiln.min %[[X]] {axes = array<i64: 0>} : tensor<2x3xi32> -> tensor<3xi32>
func.func @min(%x: tensor<2x3xi32>) -> tensor<3xi32> {
  %0 = kiln.min %x {axes = array<i64: 0>} : tensor<2x3xi32> -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// Reducing every axis without keep_dims gives a rank-0 result.
// CHECK-LABEL: func.func @max_all
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf16>)
// CHECK: kiln.max %[[X]] {axes = array<i64: 1, 0>} : tensor<2x3xf16> -> tensor<f16>
func.func @max_all(%x: tensor<2x3xf16>) -> tensor<f16> {
  %0 = kiln.max %x {axes = array<i64: 1, 0>} : tensor<2x3xf16> -> tensor<f16>
  return %0 : tensor<f16>
}

// CHECK-LABEL: func.func @variance
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.variance %[[X]] {axes = array<i64: 1>, correction = 0 : i64} : tensor<2x3xf32> -> tensor<2xf32>
func.func @variance(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %0 = kiln.variance %x {axes = array<i64: 1>, correction = 0 : i64}
      : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// The default correction (1) is elided.
// CHECK-LABEL: func.func @variance_default
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf64>)
// CHECK: kiln.variance %[[X]] {axes = array<i64: 0>, keep_dims = true} : tensor<2x3xf64> -> tensor<1x3xf64>
func.func @variance_default(%x: tensor<2x3xf64>) -> tensor<1x3xf64> {
  %0 = kiln.variance %x {axes = array<i64: 0>, keep_dims = true, correction = 1}
      : tensor<2x3xf64> -> tensor<1x3xf64>
  return %0 : tensor<1x3xf64>
}

// CHECK-LABEL: func.func @argmax
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.argmax %[[X]] {axis = 1 : i64} : tensor<2x3xf32> -> tensor<2xi64>
func.func @argmax(%x: tensor<2x3xf32>) -> tensor<2xi64> {
  %0 = kiln.argmax %x {axis = 1 : i64} : tensor<2x3xf32> -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// CHECK-LABEL: func.func @argmax_keep_dims
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xi32>)
// CHECK: kiln.argmax %[[X]] {axis = 0 : i64, keep_dims = true} : tensor<2x3xi32> -> tensor<1x3xi64>
func.func @argmax_keep_dims(%x: tensor<2x3xi32>) -> tensor<1x3xi64> {
  %0 = kiln.argmax %x {axis = 0 : i64, keep_dims = true} : tensor<2x3xi32> -> tensor<1x3xi64>
  return %0 : tensor<1x3xi64>
}

// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.softmax %[[X]] {axis = 1 : i64} : tensor<2x3xf32>
func.func @softmax(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.softmax %x {axis = 1 : i64} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @log_softmax
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.log_softmax %[[X]] {axis = 1 : i64} : tensor<2x3xf32>
func.func @log_softmax(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.log_softmax %x {axis = 1 : i64} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @cumsum
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.cumsum %[[X]] {axis = 1 : i64} : tensor<2x3xf32>
func.func @cumsum(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.cumsum %x {axis = 1 : i64} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @cumsum_reverse
// CHECK-SAME: (%[[X:.*]]: tensor<4x2x3xf64>)
// CHECK: kiln.cumsum %[[X]] {axis = 0 : i64, reverse = true} : tensor<4x2x3xf64>
func.func @cumsum_reverse(%x: tensor<4x2x3xf64>) -> tensor<4x2x3xf64> {
  %0 = kiln.cumsum %x {axis = 0 : i64, reverse = true} : tensor<4x2x3xf64>
  return %0 : tensor<4x2x3xf64>
}

// `reverse = false` is the default and is not printed.
// CHECK-LABEL: func.func @cumsum_half
// CHECK-SAME: (%[[X:.*]]: tensor<3x5xbf16>, %[[Y:.*]]: tensor<5x2xf16>)
// CHECK: kiln.cumsum %[[X]] {axis = 1 : i64} : tensor<3x5xbf16>
// CHECK: kiln.cumsum %[[Y]] {axis = 0 : i64, reverse = true} : tensor<5x2xf16>
func.func @cumsum_half(%x: tensor<3x5xbf16>, %y: tensor<5x2xf16>) -> (tensor<3x5xbf16>, tensor<5x2xf16>) {
  %0 = kiln.cumsum %x {axis = 1 : i64, reverse = false} : tensor<3x5xbf16>
  %1 = kiln.cumsum %y {axis = 0 : i64, reverse = true} : tensor<5x2xf16>
  return %0, %1 : tensor<3x5xbf16>, tensor<5x2xf16>
}

// Integers and booleans keep their type.
// CHECK-LABEL: func.func @cumsum_int
// CHECK-SAME: (%[[A:.*]]: tensor<2x3x4xi64>, %[[B:.*]]: tensor<7xi1>, %[[C:.*]]: tensor<3x2xi8>, %[[D:.*]]: tensor<2x0xi32>)
// CHECK: kiln.cumsum %[[A]] {axis = 1 : i64} : tensor<2x3x4xi64>
// CHECK: kiln.cumsum %[[B]] {axis = 0 : i64} : tensor<7xi1>
// CHECK: kiln.cumsum %[[C]] {axis = 0 : i64, reverse = true} : tensor<3x2xi8>
// CHECK: kiln.cumsum %[[D]] {axis = 1 : i64} : tensor<2x0xi32>
func.func @cumsum_int(%a: tensor<2x3x4xi64>, %b: tensor<7xi1>, %c: tensor<3x2xi8>, %d: tensor<2x0xi32>) -> (tensor<2x3x4xi64>, tensor<7xi1>, tensor<3x2xi8>, tensor<2x0xi32>) {
  %0 = kiln.cumsum %a {axis = 1 : i64} : tensor<2x3x4xi64>
  %1 = kiln.cumsum %b {axis = 0 : i64} : tensor<7xi1>
  %2 = kiln.cumsum %c {axis = 0 : i64, reverse = true} : tensor<3x2xi8>
  %3 = kiln.cumsum %d {axis = 1 : i64} : tensor<2x0xi32>
  return %0, %1, %2, %3 : tensor<2x3x4xi64>, tensor<7xi1>, tensor<3x2xi8>, tensor<2x0xi32>
}

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: tensor<4x2x3xf32>, %[[B:.*]]: tensor<3x5xf32>)
// CHECK: kiln.matmul %[[A]], %[[B]] : (tensor<4x2x3xf32>, tensor<3x5xf32>) -> tensor<4x2x5xf32>
func.func @matmul(%a: tensor<4x2x3xf32>, %b: tensor<3x5xf32>) -> tensor<4x2x5xf32> {
  %0 = kiln.matmul %a, %b : (tensor<4x2x3xf32>, tensor<3x5xf32>) -> tensor<4x2x5xf32>
  return %0 : tensor<4x2x5xf32>
}

// Both rank 1: the dot product, rank 0.
// CHECK-LABEL: func.func @matmul_dot
// CHECK-SAME: (%[[A:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: kiln.matmul %[[A]], %[[B]] : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
func.func @matmul_dot(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<f32> {
  %0 = kiln.matmul %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// Rank-1 lhs: [K] x [B, K, N] -> [B, N].
// CHECK-LABEL: func.func @matmul_vector_matrix
// CHECK-SAME: (%[[A:.*]]: tensor<3xbf16>, %[[B:.*]]: tensor<2x3x5xbf16>)
// CHECK: kiln.matmul %[[A]], %[[B]] : (tensor<3xbf16>, tensor<2x3x5xbf16>) -> tensor<2x5xbf16>
func.func @matmul_vector_matrix(%a: tensor<3xbf16>, %b: tensor<2x3x5xbf16>) -> tensor<2x5xbf16> {
  %0 = kiln.matmul %a, %b : (tensor<3xbf16>, tensor<2x3x5xbf16>) -> tensor<2x5xbf16>
  return %0 : tensor<2x5xbf16>
}

// Rank-1 rhs: [M, K] x [K] -> [M].
// CHECK-LABEL: func.func @matmul_matrix_vector
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xi32>, %[[B:.*]]: tensor<3xi32>)
// CHECK: kiln.matmul %[[A]], %[[B]] : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2xi32>
func.func @matmul_matrix_vector(%a: tensor<2x3xi32>, %b: tensor<3xi32>) -> tensor<2xi32> {
  %0 = kiln.matmul %a, %b : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// Batch dims broadcast: [7, 1] with [6].
// CHECK-LABEL: func.func @matmul_batch_broadcast
// CHECK-SAME: (%[[A:.*]]: tensor<7x1x2x3xf32>, %[[B:.*]]: tensor<6x3x5xf32>)
// CHECK: kiln.matmul %[[A]], %[[B]] : (tensor<7x1x2x3xf32>, tensor<6x3x5xf32>) -> tensor<7x6x2x5xf32>
func.func @matmul_batch_broadcast(%a: tensor<7x1x2x3xf32>, %b: tensor<6x3x5xf32>) -> tensor<7x6x2x5xf32> {
  %0 = kiln.matmul %a, %b : (tensor<7x1x2x3xf32>, tensor<6x3x5xf32>) -> tensor<7x6x2x5xf32>
  return %0 : tensor<7x6x2x5xf32>
}
