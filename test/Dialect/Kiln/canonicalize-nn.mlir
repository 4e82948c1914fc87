// RUN: kiln-opt %s --canonicalize --split-input-file | FileCheck %s

// Dropout with p = 0 keeps every element and scales by 1.
// CHECK-LABEL: func.func @dropout_p_zero
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %{{.*}}: tensor<i64>)
// CHECK-NOT: kiln.dropout
// CHECK: return %[[X]]
func.func @dropout_p_zero(%x: tensor<4xf32>, %seed: tensor<i64>) -> tensor<4xf32> {
  %0 = kiln.dropout %x, %seed {p = 0.0} : tensor<4xf32>, tensor<i64>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @negative_dropout_p_nonzero
// CHECK: kiln.dropout
func.func @negative_dropout_p_nonzero(%x: tensor<4xf32>, %seed: tensor<i64>) -> tensor<4xf32> {
  %0 = kiln.dropout %x, %seed {p = 1.0e-300} : tensor<4xf32>, tensor<i64>
  return %0 : tensor<4xf32>
}
