// RUN: kiln-opt %s --convert-kiln-to-linalg --split-input-file | FileCheck %s

// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$TRAIL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @add_broadcast_missing_dim
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [#[[$ID2]], #[[$TRAIL]], #[[$ID2]]]
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<2x3xf32>, tensor<3xf32>)
// CHECK-SAME: outs(%[[INIT]] : tensor<2x3xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK: linalg.yield %[[S]] : f32
// CHECK: return %[[R]]
// CHECK-NOT: kiln.
func.func @add_broadcast_missing_dim(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A size-1 dim is read at index 0, on either side.
// CHECK-DAG: #[[$COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @add_broadcast_size_one
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [#[[$COL]], #[[$ROW]], #[[$ID2]]]
// CHECK-SAME: outs(%{{.*}} : tensor<4x3xf32>)
func.func @add_broadcast_size_one(%a: tensor<4x1xf32>, %b: tensor<1x3xf32>) -> tensor<4x3xf32> {
  %0 = kiln.add %a, %b : (tensor<4x1xf32>, tensor<1x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// A rank-0 operand has an indexing map with no results.
// CHECK-DAG: #[[$SCALAR:.*]] = affine_map<(d0) -> ()>
// CHECK-DAG: #[[$ID1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @add_scalar_f64
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [#[[$SCALAR]], #[[$ID1]], #[[$ID1]]]
// CHECK: arith.addf %{{.*}}, %{{.*}} : f64
func.func @add_scalar_f64(%a: tensor<f64>, %b: tensor<5xf64>) -> tensor<5xf64> {
  %0 = kiln.add %a, %b : (tensor<f64>, tensor<5xf64>) -> tensor<5xf64>
  return %0 : tensor<5xf64>
}

// -----

// Rank-0 results make a generic without loops.
// CHECK-LABEL: func.func @add_rank0
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = []
// CHECK: arith.addf %{{.*}}, %{{.*}} : bf16
func.func @add_rank0(%a: tensor<bf16>, %b: tensor<bf16>) -> tensor<bf16> {
  %0 = kiln.add %a, %b : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
  return %0 : tensor<bf16>
}

// -----

// CHECK-LABEL: func.func @add_integers
// CHECK: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK: arith.addi %{{.*}}, %{{.*}} : i8
func.func @add_integers(%a: tensor<2xi32>, %b: tensor<2xi8>) -> (tensor<2xi32>, tensor<2xi8>) {
  %0 = kiln.add %a, %a : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %1 = kiln.add %b, %b : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi8>
  return %0, %1 : tensor<2xi32>, tensor<2xi8>
}

// -----

// Booleans add like PyTorch's bool + bool: a logical or.
// CHECK-LABEL: func.func @add_bool
// CHECK: arith.ori %{{.*}}, %{{.*}} : i1
// CHECK-NOT: arith.addi
func.func @add_bool(%a: tensor<2xi1>, %b: tensor<2xi1>) -> tensor<2xi1> {
  %0 = kiln.add %a, %b : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

// CHECK-LABEL: func.func @constant
// CHECK: %[[C:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: return %[[C]] : tensor<2xf32>
func.func @constant() -> tensor<2xf32> {
  %0 = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @constant_splat_i64
// CHECK: arith.constant dense<7> : tensor<2x2xi64>
func.func @constant_splat_i64() -> tensor<2x2xi64> {
  %0 = kiln.constant dense<7> : tensor<2x2xi64>
  return %0 : tensor<2x2xi64>
}
