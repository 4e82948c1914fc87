// RUN: kiln-opt %s --split-input-file --kiln-autodiff=function=f | FileCheck %s

// attention: one kiln.attention_grad with the forward's operands and
// attributes and the result's adjoint; dQ, dK, dV are its first results.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[Q:.*]]: tensor<1x4x3x2xf32>, %[[K:.*]]: tensor<1x2x5x2xf32>, %[[V:.*]]: tensor<1x2x5x3xf32>, %[[KL:.*]]: tensor<1xi32>, %[[S:.*]]: tensor<i64>)
// CHECK: %[[O:.*]] = kiln.attention %[[Q]], %[[K]], %[[V]]
// CHECK: %[[DQ:[^ ]*]], %[[DK:[^ ]*]], %[[DV:[^ ]*]] = kiln.attention_grad %[[Q]], %[[K]], %[[V]], %{{.*}} key_lengths(%[[KL]] : tensor<1xi32>) seed(%[[S]] : tensor<i64>) {causal, dropout_p = 2.500000e-01 : f64, softcap = 5.000000e+00 : f64}
// CHECK-SAME: -> tensor<1x4x3x2xf32>, tensor<1x2x5x2xf32>, tensor<1x2x5x3xf32>
// CHECK: return %{{.*}}, %[[DQ]], %[[DK]], %[[DV]]
func.func @f(%q: tensor<1x4x3x2xf32>, %k: tensor<1x2x5x2xf32>, %v: tensor<1x2x5x3xf32>, %kl: tensor<1xi32>, %s: tensor<i64>) -> tensor<f32> {
  %o = kiln.attention %q, %k, %v key_lengths(%kl : tensor<1xi32>) seed(%s : tensor<i64>) {causal, dropout_p = 0.25 : f64, softcap = 5.0 : f64}
      : tensor<1x4x3x2xf32>, tensor<1x2x5x2xf32>, tensor<1x2x5x3xf32> -> tensor<1x4x3x3xf32>
  %l = kiln.sum %o {axes = array<i64: 0, 1, 2, 3>} : tensor<1x4x3x3xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// An additive mask gets the fourth result, d_mask, in its own shape.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x3x2xf32>, %[[K:.*]]: tensor<1x2x4x2xf32>, %[[V:.*]]: tensor<1x2x4x2xf32>, %[[M:.*]]: tensor<3x4xf32>)
// CHECK: %[[DQ:[^ ]*]], %[[DK:[^ ]*]], %[[DV:[^ ]*]], %[[DM:[^ ]*]] = kiln.attention_grad %[[Q]], %[[K]], %[[V]], %{{.*}} mask(%[[M]] : tensor<3x4xf32>)
// CHECK-SAME: -> tensor<1x2x3x2xf32>, tensor<1x2x4x2xf32>, tensor<1x2x4x2xf32>, tensor<3x4xf32>
// CHECK: return %{{.*}}, %[[DQ]], %[[DK]], %[[DV]], %[[DM]]
func.func @f(%q: tensor<1x2x3x2xf32>, %k: tensor<1x2x4x2xf32>, %v: tensor<1x2x4x2xf32>, %m: tensor<3x4xf32>) -> tensor<f32> {
  %o = kiln.attention %q, %k, %v mask(%m : tensor<3x4xf32>) : tensor<1x2x3x2xf32>, tensor<1x2x4x2xf32>, tensor<1x2x4x2xf32> -> tensor<1x2x3x2xf32>
  %l = kiln.sum %o {axes = array<i64: 0, 1, 2, 3>} : tensor<1x2x3x2xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A boolean mask is inactive: no d_mask result.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: -> (tensor<f32>, tensor<1x2x3x2xf32>, tensor<1x2x4x2xf32>, tensor<1x2x4x2xf32>)
// CHECK: %[[DQ:[^ ]*]], %[[DK:[^ ]*]], %[[DV:[^ ]*]] = kiln.attention_grad
// CHECK-SAME: mask(%{{.*}} : tensor<3x4xi1>)
// CHECK-SAME: -> tensor<1x2x3x2xf32>, tensor<1x2x4x2xf32>, tensor<1x2x4x2xf32>{{$}}
// CHECK: return %{{.*}}, %[[DQ]], %[[DK]], %[[DV]] :
func.func @f(%q: tensor<1x2x3x2xf32>, %k: tensor<1x2x4x2xf32>, %v: tensor<1x2x4x2xf32>, %m: tensor<3x4xi1>) -> tensor<f32> {
  %o = kiln.attention %q, %k, %v mask(%m : tensor<3x4xi1>) : tensor<1x2x3x2xf32>, tensor<1x2x4x2xf32>, tensor<1x2x4x2xf32> -> tensor<1x2x3x2xf32>
  %l = kiln.sum %o {axes = array<i64: 0, 1, 2, 3>} : tensor<1x2x3x2xf32> -> tensor<f32>
  return %l : tensor<f32>
}
