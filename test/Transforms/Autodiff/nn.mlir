// RUN: kiln-opt %s --split-input-file --kiln-autodiff=function=f | FileCheck %s

// cross_entropy: (softmax(x) - onehot(label)) times the reduction's factor
// (plus NaN where a label is outside [0, C), whose loss is NaN), selected
// by the valid-sample mask, so an ignored sample gets 0 even where the
// factor is not finite: for mean, the adjoint over the valid count, counted
// in i64, which is 0 when every label is ignored. The labels get no adjoint.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[T:.*]]: tensor<2xi64>) -> (tensor<f32>, tensor<2x3xf32>)
// CHECK: %[[ONE:.*]] = kiln.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[P:.*]] = kiln.softmax %[[X]] {axis = 1 : i64}
// CHECK: %[[COL:.*]] = kiln.reshape %[[T]] : tensor<2xi64> -> tensor<2x1xi64>
// CHECK: %[[IOTA:.*]] = kiln.iota {axis = 1 : i64} : tensor<2x3xi64>
// CHECK: %[[EQ:.*]] = kiln.eq %[[IOTA]], %[[COL]]
// CHECK: %[[OH:.*]] = kiln.convert %[[EQ]] : tensor<2x3xi1> to tensor<2x3xf32>
// CHECK: %[[II:.*]] = kiln.constant dense<-100> : tensor<i64>
// CHECK: %[[NE:.*]] = kiln.ne %[[T]], %[[II]]
// CHECK: %[[C:.*]] = kiln.constant dense<3> : tensor<i64>
// CHECK: %[[HIGH:.*]] = kiln.ge %[[T]], %[[C]]
// CHECK: %[[ZERO:.*]] = kiln.constant dense<0> : tensor<i64>
// CHECK: %[[LOW:.*]] = kiln.lt %[[T]], %[[ZERO]]
// CHECK: %[[OUT:.*]] = kiln.add %[[LOW]], %[[HIGH]] : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
// CHECK: %[[NAN:.*]] = kiln.constant dense<0x7FC00000> : tensor<f32>
// CHECK: %[[POISON:.*]] = kiln.select %[[OUT]], %[[NAN]], %{{.*}}
// CHECK: %[[ONES:.*]] = kiln.convert %[[NE]] : tensor<2xi1> to tensor<2xi64>
// CHECK: %[[N:.*]] = kiln.sum %[[ONES]] {axes = array<i64: 0>} : tensor<2xi64> -> tensor<i64>
// CHECK: %[[COUNT:.*]] = kiln.convert %[[N]] : tensor<i64> to tensor<f32>
// CHECK: %[[SCALE:.*]] = kiln.div %[[ONE]], %[[COUNT]]
// CHECK: %[[PC:.*]] = kiln.reshape %[[POISON]] : tensor<2xf32> -> tensor<2x1xf32>
// CHECK: %[[PS:.*]] = kiln.add %[[PC]], %[[SCALE]]
// CHECK: %[[VALID:.*]] = kiln.reshape %[[NE]] : tensor<2xi1> -> tensor<2x1xi1>
// CHECK: %[[W:.*]] = kiln.select %[[VALID]], %[[PS]], %{{.*}} : (tensor<2x1xi1>, tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
// CHECK: %[[DIFF:.*]] = kiln.sub %[[P]], %[[OH]]
// CHECK: %[[D:.*]] = kiln.mul %[[DIFF]], %[[W]]
// CHECK: return %{{.*}}, %[[D]]
func.func @f(%x: tensor<2x3xf32>, %t: tensor<2xi64>) -> tensor<f32> {
  %0 = kiln.cross_entropy %x, %t : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// dropout: the adjoint goes through dropout with the same seed and p (the
// same mask and scale); layer_norm recomputes its statistics, and the
// weight and bias adjoints are summed over the leading dims.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>, %[[S:.*]]: tensor<i64>, %[[W:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK: %[[DROP:.*]] = kiln.dropout %[[X]], %[[S]] {p = 2.500000e-01 : f64}
// CHECK: %[[G:.*]] = kiln.broadcast_to
// CHECK: %[[MEAN:.*]] = kiln.mean %[[DROP]] {axes = array<i64: 1>, keep_dims = true}
// CHECK: %[[RSTD:.*]] = kiln.rsqrt
// CHECK: %[[XHAT:.*]] = kiln.mul %{{.*}}, %[[RSTD]]
// CHECK: %[[GX:.*]] = kiln.mul %[[G]], %[[XHAT]]
// CHECK: %[[DW:.*]] = kiln.sum %[[GX]] {axes = array<i64: 0>} : tensor<2x4xf32> -> tensor<4xf32>
// CHECK: %[[DB:.*]] = kiln.sum %[[G]] {axes = array<i64: 0>} : tensor<2x4xf32> -> tensor<4xf32>
// CHECK: %[[GH:.*]] = kiln.mul %[[G]], %[[W]]
// CHECK: %[[DN:.*]] = kiln.mul %[[RSTD]], %{{.*}}
// CHECK: %[[DX:.*]] = kiln.dropout %[[DN]], %[[S]] {p = 2.500000e-01 : f64}
// CHECK: return %{{.*}}, %[[DX]], %[[DW]], %[[DB]]
func.func @f(%x: tensor<2x4xf32>, %s: tensor<i64>, %w: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<f32> {
  %0 = kiln.dropout %x, %s {p = 0.25 : f64} : tensor<2x4xf32>, tensor<i64>
  %1 = kiln.layer_norm %0 weight(%w : tensor<4xf32>) bias(%b : tensor<4xf32>) : tensor<2x4xf32>
  %2 = kiln.sum %1 {axes = array<i64: 0, 1>} : tensor<2x4xf32> -> tensor<f32>
  return %2 : tensor<f32>
}

// -----

// rms_norm without a weight.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[X:.*]]: tensor<3x4xf64>)
// CHECK: %[[SQ:.*]] = kiln.mul %[[X]], %[[X]]
// CHECK: %[[MS:.*]] = kiln.mean %[[SQ]] {axes = array<i64: 1>, keep_dims = true}
// CHECK: %[[R:.*]] = kiln.rsqrt
// CHECK: %[[XHAT:.*]] = kiln.mul %[[X]], %[[R]]
// CHECK: %[[GX:.*]] = kiln.mul %[[G:.*]], %[[XHAT]]
// CHECK: %[[M:.*]] = kiln.mean %[[GX]] {axes = array<i64: 1>, keep_dims = true}
// CHECK: %[[T:.*]] = kiln.mul %[[XHAT]], %[[M]]
// CHECK: %[[IN:.*]] = kiln.sub %[[G]], %[[T]]
// CHECK: %[[D:.*]] = kiln.mul %[[R]], %[[IN]]
// CHECK: return %{{.*}}, %[[D]]
func.func @f(%x: tensor<3x4xf64>) -> tensor<f64> {
  %0 = kiln.rms_norm %x {normalized_rank = 1 : i64} : tensor<3x4xf64>
  %1 = kiln.sum %0 {axes = array<i64: 0, 1>} : tensor<3x4xf64> -> tensor<f64>
  return %1 : tensor<f64>
}
