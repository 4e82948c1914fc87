// RUN: kiln-opt %s --kiln-decompose-attention | FileCheck %s

// kiln.attention_grad with GQA (R = 2), key lengths, dropout and an additive
// 2-d mask: the forward recomputes P and redraws Z with kiln.dropout, dV and
// dK are summed over the R axis, and d_mask is dT reduced to the mask's
// shape.
func.func @backward(%q: tensor<2x4x3x2xf32>, %k: tensor<2x2x5x2xf32>, %v: tensor<2x2x5x3xf32>, %do: tensor<2x4x3x3xf32>, %m: tensor<3x5xf32>, %kl: tensor<2xi32>, %s: tensor<i64>)
    -> (tensor<2x4x3x2xf32>, tensor<2x2x5x2xf32>, tensor<2x2x5x3xf32>, tensor<3x5xf32>) {
  %dq, %dk, %dv, %dm = kiln.attention_grad %q, %k, %v, %do mask(%m : tensor<3x5xf32>) key_lengths(%kl : tensor<2xi32>) seed(%s : tensor<i64>) {dropout_p = 0.25 : f64}
      : tensor<2x4x3x2xf32>, tensor<2x2x5x2xf32>, tensor<2x2x5x3xf32>, tensor<2x4x3x3xf32>
      -> tensor<2x4x3x2xf32>, tensor<2x2x5x2xf32>, tensor<2x2x5x3xf32>, tensor<3x5xf32>
  return %dq, %dk, %dv, %dm : tensor<2x4x3x2xf32>, tensor<2x2x5x2xf32>, tensor<2x2x5x3xf32>, tensor<3x5xf32>
}

// CHECK-LABEL: func.func @backward
// CHECK-SAME: (%[[Q:[^:]*]]: {{[^,]*}}, %[[K:[^:]*]]: {{[^,]*}}, %[[V:[^:]*]]: {{[^,]*}}, %[[DO:[^:]*]]: {{[^,]*}}, %[[M:[^:]*]]: {{[^,]*}}, %[[KL:[^:]*]]: {{[^,]*}}, %[[SEED:[^:]*]]: tensor<i64>)
// CHECK-NOT: kiln.attention_grad
// CHECK: %[[Q5:.*]] = kiln.reshape %[[Q]] : tensor<2x4x3x2xf32> -> tensor<2x2x2x3x2xf32>
// CHECK: %[[K5:.*]] = kiln.reshape %[[K]] : tensor<2x2x5x2xf32> -> tensor<2x2x1x5x2xf32>
// CHECK: %[[V5:.*]] = kiln.reshape %[[V]] : tensor<2x2x5x3xf32> -> tensor<2x2x1x5x3xf32>
// The key lengths: j < key_lengths[b] on [B, 1, 1, 1, Sk].
// CHECK: %[[J:.*]] = kiln.iota {axis = 4 : i64} : tensor<1x1x1x1x5xi64>
// CHECK: %[[KL64:.*]] = kiln.convert %[[KL]] : tensor<2xi32> to tensor<2xi64>
// CHECK: %[[KL5:.*]] = kiln.reshape %[[KL64]] : tensor<2xi64> -> tensor<2x1x1x1x1xi64>
// CHECK: kiln.lt %[[J]], %[[KL5]] : (tensor<1x1x1x1x5xi64>, tensor<2x1x1x1x1xi64>) -> tensor<2x1x1x1x5xi1>
// P, then P' with the forward's draws.
// CHECK: %[[SM:.*]] = kiln.softmax
// CHECK: %[[P:.*]] = kiln.select %{{.*}}, %{{.*}}, %[[SM]]
// CHECK: %[[PD:.*]] = kiln.dropout %[[P]], %[[SEED]] {p = 2.500000e-01 : f64} : tensor<2x2x2x3x5xf32>
// dV = sum over R of P'ᵀ · dO.
// CHECK: %[[DO5:.*]] = kiln.reshape %[[DO]] : tensor<2x4x3x3xf32> -> tensor<2x2x2x3x3xf32>
// CHECK: %[[PDT:.*]] = kiln.transpose %[[PD]]
// CHECK: %[[DV5:.*]] = kiln.matmul %[[PDT]], %[[DO5]] : (tensor<2x2x2x5x3xf32>, tensor<2x2x2x3x3xf32>) -> tensor<2x2x2x5x3xf32>
// CHECK: %[[DV:.*]] = kiln.sum %[[DV5]] {axes = array<i64: 2>} : tensor<2x2x2x5x3xf32> -> tensor<2x2x5x3xf32>
// dP = dropout(dO · Vᵀ), dT = P (dP - rowsum(dP P)).
// CHECK: %[[VT:.*]] = kiln.transpose %[[V5]]
// CHECK: %[[DPD:.*]] = kiln.matmul %[[DO5]], %[[VT]] : (tensor<2x2x2x3x3xf32>, tensor<2x2x1x3x5xf32>) -> tensor<2x2x2x3x5xf32>
// CHECK: %[[DP:.*]] = kiln.dropout %[[DPD]], %[[SEED]] {p = 2.500000e-01 : f64}
// CHECK: %[[DPP:.*]] = kiln.mul %[[DP]], %[[P]]
// CHECK: %[[ROW:.*]] = kiln.sum %[[DPP]] {axes = array<i64: 4>, keep_dims = true}
// CHECK: %[[DIFF:.*]] = kiln.sub %[[DP]], %[[ROW]]
// CHECK: %[[DT:.*]] = kiln.mul %[[P]], %[[DIFF]]
// dQ = scale dT · K, dK = sum over R of scale dTᵀ · Q.
// CHECK: %[[DQ5:.*]] = kiln.matmul %[[DT]], %[[K5]] : (tensor<2x2x2x3x5xf32>, tensor<2x2x1x5x2xf32>) -> tensor<2x2x2x3x2xf32>
// CHECK: %[[DQS:.*]] = kiln.mul %[[DQ5]]
// CHECK: %[[DQ:.*]] = kiln.reshape %[[DQS]] : tensor<2x2x2x3x2xf32> -> tensor<2x4x3x2xf32>
// CHECK: %[[DTT:.*]] = kiln.transpose %[[DT]]
// CHECK: %[[DK5:.*]] = kiln.matmul %[[DTT]], %[[Q5]] : (tensor<2x2x2x5x3xf32>, tensor<2x2x2x3x2xf32>) -> tensor<2x2x2x5x2xf32>
// CHECK: %[[DKS:.*]] = kiln.mul %[[DK5]]
// CHECK: %[[DK:.*]] = kiln.sum %[[DKS]] {axes = array<i64: 2>} : tensor<2x2x2x5x2xf32> -> tensor<2x2x5x2xf32>
// d_mask = dT reduced to the mask's [Sq, Sk].
// CHECK: %[[DT4:.*]] = kiln.reshape %[[DT]] : tensor<2x2x2x3x5xf32> -> tensor<2x4x3x5xf32>
// CHECK: %[[DM:.*]] = kiln.sum %[[DT4]] {axes = array<i64: 0, 1>} : tensor<2x4x3x5xf32> -> tensor<3x5xf32>
// CHECK: return %[[DQ]], %[[DK]], %[[DV]], %[[DM]]
