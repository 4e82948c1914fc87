// RUN: kiln-opt %s --kiln-autodiff="function=f mode=split remat=save-all" | FileCheck %s --check-prefixes=CHECK,SAVE
// RUN: kiln-opt %s --kiln-autodiff="function=f mode=split remat=recompute-attention" | FileCheck %s --check-prefixes=CHECK,SAVE
// RUN: kiln-opt %s --kiln-autodiff="function=f mode=split" | FileCheck %s --check-prefixes=CHECK,SAVE
// RUN: kiln-opt %s --kiln-autodiff="function=f mode=split remat=recompute-elementwise" | FileCheck %s --check-prefixes=CHECK,ELEM
// RUN: kiln-opt %s --kiln-autodiff="function=f remat=recompute-elementwise" | FileCheck %s --check-prefix=COMBINED

// The three policies on one graph without attention (where save-all and
// recompute-attention, the default, save the same values).
//
// save-all saves every forward value a rule reads: x, w, w2 (the matmuls),
// m (gelu's operand), g and u (the product's operands), bb and p (the second
// product's operands): 8 residuals, 1280 bytes.
//
// recompute-elementwise walks the forward backwards and recomputes a cheap
// op when that strictly shrinks the residual bytes:
//   p = g * u   its operands are saved already: recomputed (-128 bytes)
//   bb          from b, 32 bytes instead of 128: recomputed
//   u = tanh(y) y is not saved and as large as u: kept (no gain)
//   g = gelu(m) m is saved already (gelu's rule reads it): recomputed
// leaving x, w, w2, b, m, u: 6 residuals, 928 bytes.

// CHECK-LABEL: func.func @f_forward(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x8xf32>, %[[W:[^:]*]]: tensor<8x8xf32>, %[[W2:[^:]*]]: tensor<8x8xf32>, %[[B:[^:]*]]: tensor<8xf32>)
// CHECK: %[[M:.*]] = kiln.matmul %[[X]], %[[W]]
// CHECK: %[[G:.*]] = kiln.gelu %[[M]]
// CHECK: %[[Y:.*]] = kiln.matmul %[[X]], %[[W2]]
// CHECK: %[[U:.*]] = kiln.tanh %[[Y]]
// CHECK: %[[BB:.*]] = kiln.broadcast_to %[[B]]
// CHECK: %[[P:.*]] = kiln.mul %[[G]], %[[U]]
// CHECK: %[[Q:.*]] = kiln.mul %[[P]], %[[BB]]
// CHECK: %[[L:.*]] = kiln.sum %[[Q]]
// SAVE: return %[[L]], %[[X]], %[[W]], %[[W2]], %[[M]], %[[G]], %[[U]], %[[BB]], %[[P]] :
// ELEM: return %[[L]], %[[X]], %[[W]], %[[W2]], %[[B]], %[[M]], %[[U]] :

// CHECK-LABEL: func.func @f_backward(
// SAVE-SAME: %[[RX:[^:]*]]: tensor<4x8xf32> {kiln.residual = 0 : i64}, %[[RW:[^:]*]]: tensor<8x8xf32> {kiln.residual = 1 : i64}, %[[RW2:[^:]*]]: tensor<8x8xf32> {kiln.residual = 2 : i64}, %[[RM:[^:]*]]: tensor<4x8xf32> {kiln.residual = 3 : i64}, %[[RG:[^:]*]]: tensor<4x8xf32> {kiln.residual = 4 : i64}, %[[RU:[^:]*]]: tensor<4x8xf32> {kiln.residual = 5 : i64}, %[[RBB:[^:]*]]: tensor<4x8xf32> {kiln.residual = 6 : i64}, %[[RP:[^:]*]]: tensor<4x8xf32> {kiln.residual = 7 : i64}, %{{.*}}: tensor<f32> {kiln.cotangent = 0 : i64})
// SAVE-NOT: kiln.gelu
// SAVE-NOT: kiln.broadcast_to %{{.*}} : tensor<8xf32>
// SAVE: kiln.mul %{{.*}}, %[[RBB]]
// SAVE: kiln.mul %{{.*}}, %[[RP]]
// SAVE: kiln.mul %{{.*}}, %[[RU]]
// SAVE: kiln.mul %{{.*}}, %[[RG]]
// ELEM-SAME: %[[RX:[^:]*]]: tensor<4x8xf32> {kiln.residual = 0 : i64}, %[[RW:[^:]*]]: tensor<8x8xf32> {kiln.residual = 1 : i64}, %[[RW2:[^:]*]]: tensor<8x8xf32> {kiln.residual = 2 : i64}, %[[RB:[^:]*]]: tensor<8xf32> {kiln.residual = 3 : i64}, %[[RM:[^:]*]]: tensor<4x8xf32> {kiln.residual = 4 : i64}, %[[RU:[^:]*]]: tensor<4x8xf32> {kiln.residual = 5 : i64}, %{{.*}}: tensor<f32> {kiln.cotangent = 0 : i64})
// ELEM-NEXT: %[[G2:.*]] = kiln.gelu %[[RM]] : tensor<4x8xf32>
// ELEM-NEXT: %[[BB2:.*]] = kiln.broadcast_to %[[RB]] : tensor<8xf32> -> tensor<4x8xf32>
// ELEM-NEXT: %[[P2:.*]] = kiln.mul %[[G2]], %[[RU]]
// ELEM-NOT: kiln.tanh
// ELEM: kiln.mul %{{.*}}, %[[BB2]]
// ELEM: kiln.mul %{{.*}}, %[[P2]]
// CHECK: return

// In combined mode the policy recomputes the same ops, at the start of the
// reverse sweep.
// COMBINED-LABEL: func.func @f_value_and_grad(
// COMBINED: %[[M:.*]] = kiln.matmul
// COMBINED: kiln.gelu %[[M]]
// COMBINED: %[[U:.*]] = kiln.tanh
// COMBINED: kiln.sum
// COMBINED-NEXT: %[[G2:.*]] = kiln.gelu %[[M]]
// COMBINED-NEXT: kiln.broadcast_to %{{.*}} : tensor<8xf32> -> tensor<4x8xf32>
// COMBINED-NEXT: kiln.mul %[[G2]], %[[U]]
func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %w2: tensor<8x8xf32>, %b: tensor<8xf32>) -> tensor<f32> {
  %m = kiln.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %g = kiln.gelu %m : tensor<4x8xf32>
  %y = kiln.matmul %x, %w2 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %u = kiln.tanh %y : tensor<4x8xf32>
  %bb = kiln.broadcast_to %b : tensor<8xf32> -> tensor<4x8xf32>
  %p = kiln.mul %g, %u : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %q = kiln.mul %p, %bb : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %l = kiln.sum %q {axes = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}
