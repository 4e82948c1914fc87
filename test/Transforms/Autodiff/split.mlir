// RUN: kiln-opt %s --split-input-file --kiln-autodiff="function=f mode=split" | FileCheck %s

// The forward returns the output, then the residuals: the arguments and the
// forward values the backward reads, in program order. The backward takes the
// residuals and the output's cotangent, and recomputes nothing of the
// forward. @f itself is kept.
// CHECK-LABEL: func.func @f(
// CHECK-LABEL: func.func @f_forward(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x3xf32>, %[[W:[^:]*]]: tensor<3x4xf32>)
// CHECK-SAME: -> (tensor<f32> {kiln.output = 0 : i64}, tensor<2x3xf32> {kiln.residual = 0 : i64}, tensor<3x4xf32> {kiln.residual = 1 : i64}, tensor<2x4xf32> {kiln.residual = 2 : i64})
// CHECK-SAME: attributes {kiln.backward = @f_backward}
// CHECK-NEXT: %[[M:.*]] = kiln.matmul %[[X]], %[[W]]
// CHECK-NEXT: %[[T:.*]] = kiln.tanh %[[M]]
// CHECK-NEXT: %[[L:.*]] = kiln.sum %[[T]]
// CHECK-NEXT: return %[[L]], %[[X]], %[[W]], %[[T]] :
// CHECK-LABEL: func.func @f_backward(
// CHECK-SAME: %[[RX:[^:]*]]: tensor<2x3xf32> {kiln.residual = 0 : i64}, %[[RW:[^:]*]]: tensor<3x4xf32> {kiln.residual = 1 : i64}, %[[RT:[^:]*]]: tensor<2x4xf32> {kiln.residual = 2 : i64}, %[[DL:[^:]*]]: tensor<f32> {kiln.cotangent = 0 : i64})
// CHECK-SAME: -> (tensor<2x3xf32> {kiln.gradient = 0 : i64}, tensor<3x4xf32> {kiln.gradient = 1 : i64})
// CHECK-SAME: attributes {kiln.forward = @f_forward}
// CHECK-NOT: kiln.tanh
// CHECK: kiln.reshape %[[DL]] : tensor<f32> -> tensor<1x1xf32>
// CHECK: kiln.mul %[[RT]], %[[RT]]
// CHECK: %[[DX:.*]] = kiln.matmul %{{.*}}, %{{.*}} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
// CHECK: kiln.transpose %[[RX]]
// CHECK: %[[DW:.*]] = kiln.matmul
// CHECK: return %[[DX]], %[[DW]] : tensor<2x3xf32>, tensor<3x4xf32>
func.func @f(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) -> tensor<f32> {
  %m = kiln.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %t = kiln.tanh %m : tensor<2x4xf32>
  %l = kiln.sum %t {axes = array<i64: 0, 1>} : tensor<2x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Several outputs of any float tensor type each get a cotangent (their
// adjoints add up where one feeds the other). An integer argument the
// backward reads (gather's indices) is a residual; a forward constant is
// not: the backward gets its own copy. Only floating-point arguments are
// differentiated by default.
// CHECK-LABEL: func.func @f_forward(
// CHECK-SAME: %[[E:[^:]*]]: tensor<5x4xf32>, %[[I:[^:]*]]: tensor<3xi64>)
// CHECK-SAME: -> (tensor<3x4xf32> {kiln.output = 0 : i64}, tensor<f32> {kiln.output = 1 : i64}, tensor<3xi64> {kiln.residual = 0 : i64}, tensor<3x4xf32> {kiln.residual = 1 : i64})
// CHECK: %[[Y:.*]] = kiln.mul
// CHECK: %[[EXP:.*]] = kiln.exp %[[Y]]
// CHECK: %[[L:.*]] = kiln.sum %[[EXP]]
// CHECK: return %[[Y]], %[[L]], %[[I]], %[[EXP]] :
// CHECK-LABEL: func.func @f_backward(
// CHECK-SAME: %[[RI:[^:]*]]: tensor<3xi64> {kiln.residual = 0 : i64}, %[[REXP:[^:]*]]: tensor<3x4xf32> {kiln.residual = 1 : i64}, %[[DY:[^:]*]]: tensor<3x4xf32> {kiln.cotangent = 0 : i64}, %[[DL:[^:]*]]: tensor<f32> {kiln.cotangent = 1 : i64})
// CHECK-SAME: -> (tensor<5x4xf32> {kiln.gradient = 0 : i64})
// CHECK-NEXT: %[[C:.*]] = kiln.constant dense<2.000000e+00> : tensor<f32>
// CHECK: kiln.reshape %[[DL]]
// CHECK: kiln.mul %{{.*}}, %[[REXP]]
// CHECK: kiln.add %[[DY]], %{{.*}} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK: kiln.mul %{{.*}}, %[[C]]
// CHECK: kiln.index_add %{{.*}}, %[[RI]], %{{.*}} {axis = 0 : i64}
func.func @f(%emb: tensor<5x4xf32>, %ids: tensor<3xi64>) -> (tensor<3x4xf32>, tensor<f32>) {
  %x = kiln.gather %emb, %ids {axis = 0 : i64} : (tensor<5x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  %c = kiln.constant dense<2.0> : tensor<f32>
  %y = kiln.mul %x, %c : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  %e = kiln.exp %y : tensor<3x4xf32>
  %l = kiln.sum %e {axes = array<i64: 0, 1>} : tensor<3x4xf32> -> tensor<f32>
  return %y, %l : tensor<3x4xf32>, tensor<f32>
}

// -----

// A function whose output does not depend on the differentiated argument:
// no residual, the backward returns a zero gradient.
// CHECK-LABEL: func.func @f_forward(
// CHECK-SAME: -> (tensor<f32> {kiln.output = 0 : i64})
// CHECK-LABEL: func.func @f_backward(
// CHECK-SAME: %{{.*}}: tensor<f32> {kiln.cotangent = 0 : i64}) -> (tensor<3xf32> {kiln.gradient = 0 : i64})
// CHECK-NEXT: %[[Z:.*]] = kiln.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK-NEXT: return %[[Z]]
func.func @f(%x: tensor<3xf32>) -> tensor<f32> {
  %c = kiln.constant dense<1.0> : tensor<f32>
  return %c : tensor<f32>
}

// -----

// Integer and boolean outputs (a prediction, a mask) are returned by the
// forward but carry no derivative: only the float outputs get a cotangent,
// each naming its output's index, and the sweep is seeded with nothing for
// the others.
// CHECK-LABEL: func.func @f_forward(
// CHECK-SAME: -> (tensor<2xi64> {kiln.output = 0 : i64}, tensor<f32> {kiln.output = 1 : i64}, tensor<2x3xi1> {kiln.output = 2 : i64}, tensor<2x3xf32> {kiln.residual = 0 : i64})
// CHECK-NEXT: %[[A:.*]] = kiln.argmax
// CHECK-LABEL: func.func @f_backward(
// CHECK-SAME: %[[RT:[^:]*]]: tensor<2x3xf32> {kiln.residual = 0 : i64}, %[[DL:[^:]*]]: tensor<f32> {kiln.cotangent = 1 : i64})
// CHECK-SAME: -> (tensor<2x3xf32> {kiln.gradient = 0 : i64})
// CHECK-NOT: kiln.argmax
// CHECK: return
func.func @f(%x: tensor<2x3xf32>) -> (tensor<2xi64>, tensor<f32>, tensor<2x3xi1>) {
  %a = kiln.argmax %x {axis = 1} : tensor<2x3xf32> -> tensor<2xi64>
  %t = kiln.tanh %x : tensor<2x3xf32>
  %l = kiln.sum %t {axes = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<f32>
  %c = kiln.constant dense<0.0> : tensor<2x3xf32>
  %m = kiln.gt %x, %c : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  return %a, %l, %m : tensor<2xi64>, tensor<f32>, tensor<2x3xi1>
}
