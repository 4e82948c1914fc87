// RUN: kiln-opt %s --kiln-decompose-attention | FileCheck %s

// A per-head additive mask [1, Hq, 1, Sk] with Hq = 4 = 2 x 2 is viewed as
// [1, Hkv, R, 1, Sk] and added to the scores after the softcap; rows whose
// biases are all -inf are empty and come out exactly 0.
func.func @additive(%q: tensor<1x4x3x2xf32>, %k: tensor<1x2x5x2xf32>, %v: tensor<1x2x5x2xf32>, %m: tensor<1x4x1x5xf32>) -> tensor<1x4x3x2xf32> {
  %o = kiln.attention %q, %k, %v mask(%m : tensor<1x4x1x5xf32>) {softcap = 2.0 : f64}
      : tensor<1x4x3x2xf32>, tensor<1x2x5x2xf32>, tensor<1x2x5x2xf32> -> tensor<1x4x3x2xf32>
  return %o : tensor<1x4x3x2xf32>
}

// CHECK-LABEL: func.func @additive
// CHECK-SAME: %[[M:[^:]*]]: tensor<1x4x1x5xf32>)
// CHECK-NOT: kiln.attention
// CHECK: %[[CAP:.*]] = kiln.constant dense<2.000000e+00> : tensor<f32>
// CHECK: %[[SC:.*]] = kiln.div %{{.*}}, %[[CAP]]
// CHECK: %[[TANH:.*]] = kiln.tanh %[[SC]]
// CHECK: %[[S:.*]] = kiln.mul %[[TANH]], %[[CAP]]
// CHECK: %[[M5:.*]] = kiln.reshape %[[M]] : tensor<1x4x1x5xf32> -> tensor<1x2x2x1x5xf32>
// CHECK: %[[T:.*]] = kiln.add %[[S]], %[[M5]] : (tensor<1x2x2x3x5xf32>, tensor<1x2x2x1x5xf32>) -> tensor<1x2x2x3x5xf32>
// CHECK: %[[MAX:.*]] = kiln.max %[[T]] {axes = array<i64: 4>, keep_dims = true}
// CHECK: %[[EMPTY:.*]] = kiln.eq %[[MAX]]
// CHECK: %[[T0:.*]] = kiln.select %[[EMPTY]], %{{.*}}, %[[T]]
// CHECK: %[[SM:.*]] = kiln.softmax %[[T0]] {axis = 4 : i64}
// CHECK: %[[P:.*]] = kiln.select %[[EMPTY]], %{{.*}}, %[[SM]]
// CHECK: kiln.matmul %[[P]]
