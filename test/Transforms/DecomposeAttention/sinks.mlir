// RUN: kiln-opt %s --kiln-decompose-attention | FileCheck %s

// Sinks: each row's softmax gets one more column, sinks[h] (viewed as
// [1, Hkv, R, 1, 1] and broadcast over the batch and the rows), which is
// split off after it; the adjoint's d_sinks is -sum_{b,i} P_sink * D.
func.func @sinks(%q: tensor<2x4x3x2xf32>, %k: tensor<2x2x5x2xf32>, %v: tensor<2x2x5x2xf32>, %s: tensor<4xf32>) -> tensor<2x4x3x2xf32> {
  %o = kiln.attention %q, %k, %v sinks(%s : tensor<4xf32>)
      : tensor<2x4x3x2xf32>, tensor<2x2x5x2xf32>, tensor<2x2x5x2xf32> -> tensor<2x4x3x2xf32>
  return %o : tensor<2x4x3x2xf32>
}

// CHECK-LABEL: func.func @sinks
// CHECK-SAME: %[[S:[^:]*]]: tensor<4xf32>)
// CHECK-NOT: kiln.attention
// CHECK: %[[S5:.*]] = kiln.reshape %[[S]] : tensor<4xf32> -> tensor<1x2x2x1x1xf32>
// CHECK: %[[COL:.*]] = kiln.broadcast_to %[[S5]] : tensor<1x2x2x1x1xf32> -> tensor<2x2x2x3x1xf32>
// CHECK: %[[T:.*]] = kiln.concat %{{.*}}, %[[COL]] {axis = 4 : i64} : (tensor<2x2x2x3x5xf32>, tensor<2x2x2x3x1xf32>) -> tensor<2x2x2x3x6xf32>
// CHECK: kiln.softmax %{{.*}} {axis = 4 : i64} : tensor<2x2x2x3x6xf32>
// CHECK: %[[P:.*]]:2 = kiln.split %{{.*}} {axis = 4 : i64, split_sizes = array<i64: 5, 1>}
// CHECK: kiln.matmul %[[P]]#0

func.func @sinks_grad(%q: tensor<2x4x3x2xf32>, %k: tensor<2x2x5x2xf32>, %v: tensor<2x2x5x2xf32>, %do: tensor<2x4x3x2xf32>, %s: tensor<4xf32>) -> tensor<4xf32> {
  %dq, %dk, %dv, %ds = kiln.attention_grad %q, %k, %v, %do sinks(%s : tensor<4xf32>)
      : tensor<2x4x3x2xf32>, tensor<2x2x5x2xf32>, tensor<2x2x5x2xf32>, tensor<2x4x3x2xf32>
      -> tensor<2x4x3x2xf32>, tensor<2x2x5x2xf32>, tensor<2x2x5x2xf32>, tensor<4xf32>
  return %ds : tensor<4xf32>
}

// CHECK-LABEL: func.func @sinks_grad
// CHECK: %[[P:.*]]:2 = kiln.split %{{.*}} {axis = 4 : i64, split_sizes = array<i64: 5, 1>}
// CHECK: %[[D:.*]] = kiln.sum %{{.*}} {axes = array<i64: 4>, keep_dims = true}
// CHECK: %[[PD:.*]] = kiln.mul %[[P]]#1, %[[D]] : (tensor<2x2x2x3x1xf32>, tensor<2x2x2x3x1xf32>) -> tensor<2x2x2x3x1xf32>
// CHECK: %[[NEG:.*]] = kiln.neg %[[PD]]
// CHECK: %[[SUM:.*]] = kiln.sum %[[NEG]] {axes = array<i64: 0, 3, 4>} : tensor<2x2x2x3x1xf32> -> tensor<2x2xf32>
// CHECK: %[[DS:.*]] = kiln.reshape %[[SUM]] : tensor<2x2xf32> -> tensor<4xf32>
// CHECK: return %[[DS]]
