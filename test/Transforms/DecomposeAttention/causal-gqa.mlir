// RUN: kiln-opt %s --kiln-decompose-attention | FileCheck %s

// Causal grouped-query attention, 4 query heads over 2 kv heads (R = 2):
// Q splits its heads into [Hkv, R], K and V get a size-1 R axis that the
// matmuls broadcast (no repeat), and the causal band (bottom-right, so
// p(i) = i + 2) is j - i <= 2 on iotas.
func.func @causal_gqa(%q: tensor<1x4x3x2xf64>, %k: tensor<1x2x5x2xf64>, %v: tensor<1x2x5x2xf64>) -> tensor<1x4x3x2xf64> {
  %o = kiln.attention %q, %k, %v {causal} : tensor<1x4x3x2xf64>, tensor<1x2x5x2xf64>, tensor<1x2x5x2xf64> -> tensor<1x4x3x2xf64>
  return %o : tensor<1x4x3x2xf64>
}

// CHECK-LABEL: func.func @causal_gqa
// CHECK-SAME: (%[[Q:.*]]: tensor<1x4x3x2xf64>, %[[K:.*]]: tensor<1x2x5x2xf64>, %[[V:.*]]: tensor<1x2x5x2xf64>)
// CHECK-NOT: kiln.attention
// CHECK: %[[Q5:.*]] = kiln.reshape %[[Q]] : tensor<1x4x3x2xf64> -> tensor<1x2x2x3x2xf64>
// CHECK: %[[K5:.*]] = kiln.reshape %[[K]] : tensor<1x2x5x2xf64> -> tensor<1x2x1x5x2xf64>
// CHECK: %[[V5:.*]] = kiln.reshape %[[V]] : tensor<1x2x5x2xf64> -> tensor<1x2x1x5x2xf64>
// CHECK: %[[KT:.*]] = kiln.transpose %[[K5]]
// CHECK: kiln.matmul %[[Q5]], %[[KT]] : (tensor<1x2x2x3x2xf64>, tensor<1x2x1x2x5xf64>) -> tensor<1x2x2x3x5xf64>
// CHECK: %[[S:.*]] = kiln.mul
// CHECK: %[[I:.*]] = kiln.iota {axis = 3 : i64} : tensor<1x1x1x3x1xi64>
// CHECK: %[[J:.*]] = kiln.iota {axis = 4 : i64} : tensor<1x1x1x1x5xi64>
// CHECK: %[[JI:.*]] = kiln.sub %[[J]], %[[I]] : (tensor<1x1x1x1x5xi64>, tensor<1x1x1x3x1xi64>) -> tensor<1x1x1x3x5xi64>
// CHECK: %[[RIGHT:.*]] = kiln.constant dense<2> : tensor<i64>
// CHECK: %[[VIS:.*]] = kiln.le %[[JI]], %[[RIGHT]]
// CHECK: %[[NEGINF:.*]] = kiln.constant dense<0xFFF0000000000000> : tensor<f64>
// CHECK: %[[T:.*]] = kiln.select %[[VIS]], %[[S]], %[[NEGINF]] : (tensor<1x1x1x3x5xi1>, tensor<1x2x2x3x5xf64>, tensor<f64>)
// CHECK: %[[MAX:.*]] = kiln.max %[[T]] {axes = array<i64: 4>, keep_dims = true}
// CHECK: %[[EMPTY:.*]] = kiln.eq %[[MAX]], %[[NEGINF]]
// CHECK: %[[ZERO:.*]] = kiln.constant dense<0.000000e+00> : tensor<f64>
// CHECK: %[[T0:.*]] = kiln.select %[[EMPTY]], %[[ZERO]], %[[T]]
// CHECK: %[[SM:.*]] = kiln.softmax %[[T0]] {axis = 4 : i64}
// CHECK: %[[P:.*]] = kiln.select %[[EMPTY]], %[[ZERO]], %[[SM]]
// CHECK: %[[O5:.*]] = kiln.matmul %[[P]], %[[V5]] : (tensor<1x2x2x3x5xf64>, tensor<1x2x1x5x2xf64>) -> tensor<1x2x2x3x2xf64>
// CHECK: kiln.reshape %[[O5]] : tensor<1x2x2x3x2xf64> -> tensor<1x4x3x2xf64>
