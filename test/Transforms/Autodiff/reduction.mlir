// RUN: kiln-opt %s --split-input-file --kiln-autodiff=function=f | FileCheck %s

// max: the adjoint is split evenly between the elements equal to the
// maximum (PyTorch's amax rule), counted in i64; mean scales by 1/N and
// broadcasts back.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[MAX:.*]] = kiln.max %[[X]]
// CHECK: %[[INV:.*]] = kiln.constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[GS:.*]] = kiln.mul %{{.*}}, %[[INV]]
// CHECK: %[[GB:.*]] = kiln.broadcast_to %{{.*}} : tensor<1xf32> -> tensor<2xf32>
// CHECK: %[[YK:.*]] = kiln.reshape %[[MAX]] : tensor<2xf32> -> tensor<2x1xf32>
// CHECK: %[[GK:.*]] = kiln.reshape %[[GB]] : tensor<2xf32> -> tensor<2x1xf32>
// CHECK: %[[EQ:.*]] = kiln.eq %[[X]], %[[YK]]
// CHECK: %[[MASK:.*]] = kiln.convert %[[EQ]] : tensor<2x3xi1> to tensor<2x3xf32>
// CHECK: %[[ONES:.*]] = kiln.convert %[[EQ]] : tensor<2x3xi1> to tensor<2x3xi64>
// CHECK: %[[N:.*]] = kiln.sum %[[ONES]] {axes = array<i64: 1>, keep_dims = true}
// CHECK: %[[COUNT:.*]] = kiln.convert %[[N]] : tensor<2x1xi64> to tensor<2x1xf32>
// CHECK: %[[SHARE:.*]] = kiln.div %[[GK]], %[[COUNT]]
// CHECK: %[[D:.*]] = kiln.mul %[[MASK]], %[[SHARE]]
// CHECK: return %{{.*}}, %[[D]]
func.func @f(%x: tensor<2x3xf32>) -> tensor<f32> {
  %0 = kiln.max %x {axes = array<i64: 1>} : tensor<2x3xf32> -> tensor<2xf32>
  %1 = kiln.mean %0 {axes = array<i64: 0>} : tensor<2xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

// softmax: y (g - sum(g y)); log_softmax: g - exp(y) sum(g).
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK: %[[LS:.*]] = kiln.log_softmax %{{.*}} {axis = 1 : i64}
// CHECK: %[[S:.*]] = kiln.softmax %[[LS]] {axis = 1 : i64}
// CHECK: %[[G:.*]] = kiln.broadcast_to
// CHECK: %[[GY:.*]] = kiln.mul %[[G]], %[[S]]
// CHECK: %[[DOT:.*]] = kiln.sum %[[GY]] {axes = array<i64: 1>, keep_dims = true}
// CHECK: %[[C:.*]] = kiln.sub %[[G]], %[[DOT]]
// CHECK: %[[DS:.*]] = kiln.mul %[[S]], %[[C]]
// CHECK: %[[TOT:.*]] = kiln.sum %[[DS]] {axes = array<i64: 1>, keep_dims = true}
// CHECK: %[[P:.*]] = kiln.exp %[[LS]]
// CHECK: %[[PT:.*]] = kiln.mul %[[P]], %[[TOT]]
// CHECK: %[[D:.*]] = kiln.sub %[[DS]], %[[PT]]
// CHECK: return %{{.*}}, %[[D]]
func.func @f(%x: tensor<2x3xf32>) -> tensor<f32> {
  %0 = kiln.log_softmax %x {axis = 1 : i64} : tensor<2x3xf32>
  %1 = kiln.softmax %0 {axis = 1 : i64} : tensor<2x3xf32>
  %2 = kiln.sum %1 {axes = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<f32>
  return %2 : tensor<f32>
}

// -----

// matmul of a vector and a batch of matrices: the vector is promoted to a
// row, dA = g B^T summed over the batch, dB = A^T g.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[A:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[A2:.*]] = kiln.reshape %[[A]] : tensor<3xf32> -> tensor<1x3xf32>
// CHECK: %[[G:.*]] = kiln.reshape %{{.*}} : tensor<2x4xf32> -> tensor<2x1x4xf32>
// CHECK: %[[BT:.*]] = kiln.transpose %[[B]] {dim0 = 1 : i64, dim1 = 2 : i64} : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
// CHECK: %[[DA3:.*]] = kiln.matmul %[[G]], %[[BT]] : (tensor<2x1x4xf32>, tensor<2x4x3xf32>) -> tensor<2x1x3xf32>
// CHECK: %[[DA2:.*]] = kiln.sum %[[DA3]] {axes = array<i64: 0>} : tensor<2x1x3xf32> -> tensor<1x3xf32>
// CHECK: %[[DA:.*]] = kiln.reshape %[[DA2]] : tensor<1x3xf32> -> tensor<3xf32>
// CHECK: %[[AT:.*]] = kiln.transpose %[[A2]] {dim0 = 0 : i64, dim1 = 1 : i64} : tensor<1x3xf32> -> tensor<3x1xf32>
// CHECK: %[[DB:.*]] = kiln.matmul %[[AT]], %[[G]] : (tensor<3x1xf32>, tensor<2x1x4xf32>) -> tensor<2x3x4xf32>
// CHECK: return %{{.*}}, %[[DA]], %[[DB]]
func.func @f(%a: tensor<3xf32>, %b: tensor<2x3x4xf32>) -> tensor<f32> {
  %y = kiln.matmul %a, %b : (tensor<3xf32>, tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %1 = kiln.sum %y {axes = array<i64: 0, 1>} : tensor<2x4xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

// variance: (2 / (N - correction)) g (x - mean), the factor one constant.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[X:.*]]: tensor<2x5xf64>)
// CHECK: %[[M:.*]] = kiln.mean %[[X]] {axes = array<i64: 1>, keep_dims = true}
// CHECK: %[[G:.*]] = kiln.reshape %{{.*}} : tensor<2xf64> -> tensor<2x1xf64>
// CHECK: %[[C:.*]] = kiln.sub %[[X]], %[[M]]
// CHECK: %[[F:.*]] = kiln.constant dense<5.000000e-01> : tensor<f64>
// CHECK: %[[GF:.*]] = kiln.mul %[[G]], %[[F]]
// CHECK: %[[D:.*]] = kiln.mul %[[GF]], %[[C]]
// CHECK: return %{{.*}}, %[[D]]
func.func @f(%x: tensor<2x5xf64>) -> tensor<f64> {
  %0 = kiln.variance %x {axes = array<i64: 1>, correction = 1 : i64} : tensor<2x5xf64> -> tensor<2xf64>
  %1 = kiln.sum %0 {axes = array<i64: 0>} : tensor<2xf64> -> tensor<f64>
  return %1 : tensor<f64>
}

// -----

// variance of f16 over 70000 elements: 2 / 69999 is below f16's normal
// range, so the adjoint is scaled in f32 and rounded once (as an f16
// constant, N - 1 itself was +inf and the gradient 0).
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK: %[[G32:.*]] = kiln.convert %{{.*}} : tensor<1xf16> to tensor<1xf32>
// CHECK: %[[F:.*]] = kiln.constant dense<2.85718361E-5> : tensor<f32>
// CHECK: %[[S:.*]] = kiln.mul %[[G32]], %[[F]]
// CHECK: %[[S16:.*]] = kiln.convert %[[S]] : tensor<1xf32> to tensor<1xf16>
// CHECK: kiln.mul %[[S16]], %{{.*}} : (tensor<1xf16>, tensor<70000xf16>) -> tensor<70000xf16>
func.func @f(%x: tensor<70000xf16>) -> tensor<f16> {
  %0 = kiln.variance %x {axes = array<i64: 0>, correction = 1 : i64} : tensor<70000xf16> -> tensor<f16>
  return %0 : tensor<f16>
}

// -----

// cumsum: the adjoint is the cumulative sum of the cotangent in the other
// direction, along the same axis (a reverse scan back to a forward one).
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[W:.*]]: tensor<2x3xf32>)
// CHECK: %[[C:.*]] = kiln.cumsum %[[X]] {axis = 1 : i64} : tensor<2x3xf32>
// CHECK: %[[R:.*]] = kiln.cumsum %[[C]] {axis = 0 : i64, reverse = true} : tensor<2x3xf32>
// CHECK: %[[G:.*]] = kiln.broadcast_to
// CHECK: %[[GW:.*]] = kiln.mul %[[G]], %[[W]]
// CHECK: %[[DW:.*]] = kiln.mul %[[G]], %[[R]]
// CHECK: %[[GC:.*]] = kiln.cumsum %[[GW]] {axis = 0 : i64} : tensor<2x3xf32>
// CHECK: %[[GX:.*]] = kiln.cumsum %[[GC]] {axis = 1 : i64, reverse = true} : tensor<2x3xf32>
// CHECK: return %{{.*}}, %[[GX]], %[[DW]]
func.func @f(%x: tensor<2x3xf32>, %w: tensor<2x3xf32>) -> tensor<f32> {
  %0 = kiln.cumsum %x {axis = 1 : i64} : tensor<2x3xf32>
  %1 = kiln.cumsum %0 {axis = 0 : i64, reverse = true} : tensor<2x3xf32>
  %2 = kiln.mul %1, %w : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = kiln.sum %2 {axes = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<f32>
  return %3 : tensor<f32>
}
