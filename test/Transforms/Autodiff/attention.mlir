// RUN: kiln-opt %s --split-input-file --kiln-autodiff=function=f | FileCheck %s

// attention: the forward gets its lse result, and one kiln.attention_grad
// takes the forward's operands and attributes, the result's adjoint and the
// forward's O and LSE; dQ, dK, dV are its first results.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[Q:.*]]: tensor<1x4x3x2xf32>, %[[K:.*]]: tensor<1x2x5x2xf32>, %[[V:.*]]: tensor<1x2x5x3xf32>, %[[KL:.*]]: tensor<1xi32>, %[[S:.*]]: tensor<i64>)
// CHECK: %[[O:.*]], %[[LSE:.*]] = kiln.attention %[[Q]], %[[K]], %[[V]]
// CHECK-SAME: -> tensor<1x4x3x3xf32>, tensor<1x4x3xf32>
// CHECK: %[[DQ:[^ ]*]], %[[DK:[^ ]*]], %[[DV:[^ ]*]] = kiln.attention_grad %[[Q]], %[[K]], %[[V]], %{{.*}} key_lengths(%[[KL]] : tensor<1xi32>) seed(%[[S]] : tensor<i64>) out(%[[O]] : tensor<1x4x3x3xf32>) lse(%[[LSE]] : tensor<1x4x3xf32>) {causal, dropout_p = 2.500000e-01 : f64, softcap = 5.000000e+00 : f64}
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

// -----

// An attention that does not depend on a wrt argument is not differentiated
// and keeps its one result; the lse an active attention already has is
// passed on as it is.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK: %[[C:.*]] = kiln.attention {{.*}} -> tensor<1x1x3x2xf64>{{$}}
// CHECK: %[[O:.*]], %[[LSE:.*]] = kiln.attention {{.*}} -> tensor<1x1x3x2xf64>, tensor<1x1x3xf64>{{$}}
// CHECK: kiln.attention_grad {{.*}} out(%[[O]] : tensor<1x1x3x2xf64>) lse(%[[LSE]] : tensor<1x1x3xf64>)
// CHECK-NOT: kiln.attention_grad
func.func @f(%q: tensor<1x1x3x2xf64>) -> tensor<f64> {
  %c = kiln.constant dense<0.5> : tensor<1x1x3x2xf64>
  %const = kiln.attention %c, %c, %c : tensor<1x1x3x2xf64>, tensor<1x1x3x2xf64>, tensor<1x1x3x2xf64> -> tensor<1x1x3x2xf64>
  %o, %lse = kiln.attention %q, %const, %const : tensor<1x1x3x2xf64>, tensor<1x1x3x2xf64>, tensor<1x1x3x2xf64> -> tensor<1x1x3x2xf64>, tensor<1x1x3xf64>
  %l = kiln.sum %o {axes = array<i64: 0, 1, 2, 3>} : tensor<1x1x3x2xf64> -> tensor<f64>
  return %l : tensor<f64>
}

// -----

// Sinks get the last result, d_sinks, after d_mask.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x3x2xf32>, %[[K:.*]]: tensor<1x2x4x2xf32>, %[[V:.*]]: tensor<1x2x4x2xf32>, %[[M:.*]]: tensor<3x4xf32>, %[[S:.*]]: tensor<2xf32>)
// CHECK: %[[DQ:[^ ]*]], %[[DK:[^ ]*]], %[[DV:[^ ]*]], %[[DM:[^ ]*]], %[[DS:[^ ]*]] = kiln.attention_grad %[[Q]], %[[K]], %[[V]], %{{.*}} mask(%[[M]] : tensor<3x4xf32>) sinks(%[[S]] : tensor<2xf32>)
// CHECK-SAME: -> tensor<1x2x3x2xf32>, tensor<1x2x4x2xf32>, tensor<1x2x4x2xf32>, tensor<3x4xf32>, tensor<2xf32>
// CHECK: return %{{.*}}, %[[DQ]], %[[DK]], %[[DV]], %[[DM]], %[[DS]]
func.func @f(%q: tensor<1x2x3x2xf32>, %k: tensor<1x2x4x2xf32>, %v: tensor<1x2x4x2xf32>, %m: tensor<3x4xf32>, %s: tensor<2xf32>) -> tensor<f32> {
  %o = kiln.attention %q, %k, %v mask(%m : tensor<3x4xf32>) sinks(%s : tensor<2xf32>) : tensor<1x2x3x2xf32>, tensor<1x2x4x2xf32>, tensor<1x2x4x2xf32> -> tensor<1x2x3x2xf32>
  %l = kiln.sum %o {axes = array<i64: 0, 1, 2, 3>} : tensor<1x2x3x2xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Packed sequences: the adjoint reads the forward's offsets (which get no
// gradient: integer arguments are not differentiated).
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x5x2xf32>, %[[K:.*]]: tensor<1x2x5x2xf32>, %[[V:.*]]: tensor<1x2x5x2xf32>, %[[CQ:.*]]: tensor<3xi32>, %[[CK:.*]]: tensor<3xi32>)
// CHECK: %[[O:[^,]*]], %[[LSE:[^ ]*]] = kiln.attention %[[Q]], %[[K]], %[[V]] cu_seqlens(%[[CQ]], %[[CK]] : tensor<3xi32>, tensor<3xi32>) {causal}
// CHECK: %[[DQ:[^ ]*]], %[[DK:[^ ]*]], %[[DV:[^ ]*]] = kiln.attention_grad %[[Q]], %[[K]], %[[V]], %{{.*}} cu_seqlens(%[[CQ]], %[[CK]] : tensor<3xi32>, tensor<3xi32>) out(%[[O]] : tensor<1x2x5x2xf32>) lse(%[[LSE]] : tensor<1x2x5xf32>) {causal}
// CHECK: return %{{.*}}, %[[DQ]], %[[DK]], %[[DV]] :
func.func @f(%q: tensor<1x2x5x2xf32>, %k: tensor<1x2x5x2xf32>, %v: tensor<1x2x5x2xf32>, %cq: tensor<3xi32>, %ck: tensor<3xi32>) -> tensor<f32> {
  %o = kiln.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<3xi32>, tensor<3xi32>) {causal} : tensor<1x2x5x2xf32>, tensor<1x2x5x2xf32>, tensor<1x2x5x2xf32> -> tensor<1x2x5x2xf32>
  %l = kiln.sum %o {axes = array<i64: 0, 1, 2, 3>} : tensor<1x2x5x2xf32> -> tensor<f32>
  return %l : tensor<f32>
}
