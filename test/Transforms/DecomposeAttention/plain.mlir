// RUN: kiln-opt %s --kiln-decompose-attention | FileCheck %s

// Plain attention (Hq = Hkv = 2, so R = 1): Q, K, V viewed as rank 5, the
// scores as one matmul against the transposed keys, scaled by 1/sqrt(Dk),
// a softmax over the keys and one matmul with V. Nothing masks, so there is
// no select and no empty-row handling.
func.func @plain(%q: tensor<2x2x3x4xf32>, %k: tensor<2x2x5x4xf32>, %v: tensor<2x2x5x6xf32>) -> tensor<2x2x3x6xf32> {
  %o = kiln.attention %q, %k, %v : tensor<2x2x3x4xf32>, tensor<2x2x5x4xf32>, tensor<2x2x5x6xf32> -> tensor<2x2x3x6xf32>
  return %o : tensor<2x2x3x6xf32>
}

// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[Q:.*]]: tensor<2x2x3x4xf32>, %[[K:.*]]: tensor<2x2x5x4xf32>, %[[V:.*]]: tensor<2x2x5x6xf32>)
// CHECK-NOT: kiln.attention
// CHECK: %[[Q5:.*]] = kiln.reshape %[[Q]] : tensor<2x2x3x4xf32> -> tensor<2x2x1x3x4xf32>
// CHECK: %[[K5:.*]] = kiln.reshape %[[K]] : tensor<2x2x5x4xf32> -> tensor<2x2x1x5x4xf32>
// CHECK: %[[V5:.*]] = kiln.reshape %[[V]] : tensor<2x2x5x6xf32> -> tensor<2x2x1x5x6xf32>
// CHECK: %[[KT:.*]] = kiln.transpose %[[K5]] {dim0 = 3 : i64, dim1 = 4 : i64}
// CHECK: %[[QK:.*]] = kiln.matmul %[[Q5]], %[[KT]] : (tensor<2x2x1x3x4xf32>, tensor<2x2x1x4x5xf32>) -> tensor<2x2x1x3x5xf32>
// CHECK: %[[SCALE:.*]] = kiln.constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[S:.*]] = kiln.mul %[[QK]], %[[SCALE]]
// CHECK-NOT: kiln.select
// CHECK: %[[P:.*]] = kiln.softmax %[[S]] {axis = 4 : i64} : tensor<2x2x1x3x5xf32>
// CHECK: %[[O5:.*]] = kiln.matmul %[[P]], %[[V5]] : (tensor<2x2x1x3x5xf32>, tensor<2x2x1x5x6xf32>) -> tensor<2x2x1x3x6xf32>
// CHECK: %[[O:.*]] = kiln.reshape %[[O5]] : tensor<2x2x1x3x6xf32> -> tensor<2x2x3x6xf32>
// CHECK: return %[[O]]
