// RUN: kiln-opt %s --canonicalize --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @add_zero
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: kiln.add
// CHECK: return %[[X]]
func.func @add_zero(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %zero = kiln.constant dense<0.0> : tensor<2x3xf32>
  %0 = kiln.add %x, %zero : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A zero that broadcasts x to a larger shape is not a no-op.
// CHECK-LABEL: func.func @negative_add_zero_broadcast
// CHECK: kiln.add
func.func @negative_add_zero_broadcast(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  %zero = kiln.constant dense<0.0> : tensor<2x3xf32>
  %0 = kiln.add %x, %zero : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
