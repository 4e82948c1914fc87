// RUN: kiln-opt %s --split-input-file --kiln-autodiff=function=f | FileCheck %s

// Broadcasting: each operand's adjoint is summed back to its own shape, and
// the two contributions to %b (fan-out through mul and div) are added.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>) -> (tensor<f32>, tensor<2x3xf32>, tensor<3xf32>)
// CHECK: %[[M:.*]] = kiln.mul %[[A]], %[[B]]
// CHECK: %[[Q:.*]] = kiln.div %[[M]], %[[B]]
// CHECK: %[[L:.*]] = kiln.sum %[[Q]]
// CHECK: %[[ONE:.*]] = kiln.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[G:.*]] = kiln.broadcast_to %{{.*}} : tensor<1x1xf32> -> tensor<2x3xf32>
// CHECK: %[[DM:.*]] = kiln.div %[[G]], %[[B]]
// CHECK: %[[GQ:.*]] = kiln.mul %[[G]], %[[Q]]
// CHECK: %[[T:.*]] = kiln.div %[[GQ]], %[[B]]
// CHECK: %[[N:.*]] = kiln.neg %[[T]]
// CHECK: %[[DB1:.*]] = kiln.sum %[[N]] {axes = array<i64: 0>} : tensor<2x3xf32> -> tensor<3xf32>
// CHECK: %[[DA:.*]] = kiln.mul %[[DM]], %[[B]]
// CHECK: %[[P:.*]] = kiln.mul %[[DM]], %[[A]]
// CHECK: %[[DB2:.*]] = kiln.sum %[[P]] {axes = array<i64: 0>} : tensor<2x3xf32> -> tensor<3xf32>
// CHECK: %[[DB:.*]] = kiln.add %[[DB1]], %[[DB2]]
// CHECK: return %[[L]], %[[DA]], %[[DB]]
func.func @f(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<f32> {
  %0 = kiln.mul %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = kiln.div %0, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %2 = kiln.sum %1 {axes = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<f32>
  return %2 : tensor<f32>
}

// -----

// A size-1 dim of the operand is summed with the leading dim, then reshaped.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[A:.*]]: tensor<2x4x3xf64>, %[[B:.*]]: tensor<4x1xf64>)
// CHECK: %[[N:.*]] = kiln.neg %{{.*}} : tensor<2x4x3xf64>
// CHECK: %[[S:.*]] = kiln.sum %[[N]] {axes = array<i64: 0, 2>} : tensor<2x4x3xf64> -> tensor<4xf64>
// CHECK: %[[R:.*]] = kiln.reshape %[[S]] : tensor<4xf64> -> tensor<4x1xf64>
// CHECK: return %{{.*}}, %[[R]]
func.func @f(%a: tensor<2x4x3xf64>, %b: tensor<4x1xf64>) -> tensor<f64> {
  %0 = kiln.sub %a, %b : (tensor<2x4x3xf64>, tensor<4x1xf64>) -> tensor<2x4x3xf64>
  %1 = kiln.sum %0 {axes = array<i64: 0, 1, 2>} : tensor<2x4x3xf64> -> tensor<f64>
  return %1 : tensor<f64>
}

// -----

// maximum splits a tie half-half, as torch.maximum; otherwise an operand
// takes all unless it loses (so both take it at a NaN).
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[A:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: %[[HALF:.*]] = kiln.mul %[[G:.*]], %{{.*}} : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK: %[[TIE:.*]] = kiln.eq %[[A]], %[[B]]
// CHECK: %[[AL:.*]] = kiln.lt %[[A]], %[[B]]
// CHECK: %[[AG:.*]] = kiln.select %[[AL]], %{{.*}}, %[[G]]
// CHECK: %[[DA:.*]] = kiln.select %[[TIE]], %[[HALF]], %[[AG]]
// CHECK: %[[BL:.*]] = kiln.lt %[[B]], %[[A]]
// CHECK: %[[BG:.*]] = kiln.select %[[BL]], %{{.*}}, %[[G]]
// CHECK: %[[DB:.*]] = kiln.select %[[TIE]], %[[HALF]], %[[BG]]
// CHECK: return %{{.*}}, %[[DA]], %[[DB]]
func.func @f(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<f32> {
  %0 = kiln.maximum %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = kiln.sum %0 {axes = array<i64: 0>} : tensor<3xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

// relu: the adjoint is dropped where the result is <= 0, so relu'(0) = 0
// and a NaN passes it (threshold_backward).
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK: %[[Y:.*]] = kiln.relu %{{.*}} : tensor<3xf32>
// CHECK: %[[Z:.*]] = kiln.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[DROP:.*]] = kiln.le %[[Y]], %[[Z]]
// CHECK: %[[D:.*]] = kiln.select %[[DROP]], %[[Z]], %{{.*}} : (tensor<3xi1>, tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK: return %{{.*}}, %[[D]]
func.func @f(%a: tensor<3xf32>) -> tensor<f32> {
  %0 = kiln.relu %a : tensor<3xf32>
  %1 = kiln.sum %0 {axes = array<i64: 0>} : tensor<3xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

// clamp: the adjoint passes where min < x < max, the bounds excluded (torch 2).
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>)
// CHECK: %[[LO:.*]] = kiln.constant dense<-1.000000e+00> : tensor<f32>
// CHECK: kiln.gt %[[X]], %[[LO]]
// CHECK: %[[HI:.*]] = kiln.constant dense<2.000000e+00> : tensor<f32>
// CHECK: kiln.lt %[[X]], %[[HI]]
func.func @f(%x: tensor<3xf32>) -> tensor<f32> {
  %0 = kiln.clamp %x {max = 2.0 : f64, min = -1.0 : f64} : tensor<3xf32>
  %1 = kiln.sum %0 {axes = array<i64: 0>} : tensor<3xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

// exp reuses its result; tanh builds 1 - y^2; abs multiplies by sign.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[X:.*]]: tensor<3xf64>)
// CHECK: %[[E:.*]] = kiln.exp %[[X]]
// CHECK: %[[T:.*]] = kiln.tanh %[[E]]
// CHECK: %[[A:.*]] = kiln.abs %[[T]]
// CHECK: %[[SG:.*]] = kiln.sign %[[T]]
// CHECK: %[[DA:.*]] = kiln.mul %{{.*}}, %[[SG]]
// CHECK: %[[T2:.*]] = kiln.mul %[[T]], %[[T]]
// CHECK: %[[OMT:.*]] = kiln.sub %{{.*}}, %[[T2]]
// CHECK: %[[DT:.*]] = kiln.mul %[[DA]], %[[OMT]]
// CHECK: %[[DX:.*]] = kiln.mul %[[DT]], %[[E]]
// CHECK: return %{{.*}}, %[[DX]]
func.func @f(%x: tensor<3xf64>) -> tensor<f64> {
  %0 = kiln.exp %x : tensor<3xf64>
  %1 = kiln.tanh %0 : tensor<3xf64>
  %2 = kiln.abs %1 : tensor<3xf64>
  %3 = kiln.sum %2 {axes = array<i64: 0>} : tensor<3xf64> -> tensor<f64>
  return %3 : tensor<f64>
}

// -----

// select: the condition (i1) is inactive; each branch gets the adjoint where
// it was chosen, reduced to its shape.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[C:.*]]: tensor<2x3xi1>, %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: %[[Z:.*]] = kiln.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[DA:.*]] = kiln.select %[[C]], %[[G:.*]], %[[Z]]
// CHECK: %[[FB:.*]] = kiln.select %[[C]], %[[Z]], %[[G]]
// CHECK: %[[DB:.*]] = kiln.sum %[[FB]] {axes = array<i64: 0>}
// CHECK: return %{{.*}}, %[[DA]], %[[DB]]
func.func @f(%c: tensor<2x3xi1>, %a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<f32> {
  %0 = kiln.select %c, %a, %b : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = kiln.sum %0 {axes = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

// convert: the adjoint converts back to the operand's float type.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>)
// CHECK: %[[D:.*]] = kiln.convert %{{.*}} : tensor<3xf64> to tensor<3xf32>
// CHECK: return %{{.*}}, %[[D]]
func.func @f(%x: tensor<3xf32>) -> tensor<f64> {
  %0 = kiln.convert %x : tensor<3xf32> to tensor<3xf64>
  %1 = kiln.sum %0 {axes = array<i64: 0>} : tensor<3xf64> -> tensor<f64>
  return %1 : tensor<f64>
}
