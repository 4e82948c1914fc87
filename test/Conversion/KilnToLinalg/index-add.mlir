// RUN: kiln-opt %s --convert-kiln-to-linalg --split-input-file | FileCheck %s
// RUN: kiln-opt %s --split-input-file --kiln-lower-to-cpu --mlir-print-ir-before=kiln-matmul-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUF

// One thread per position of the non-axis dims: it extracts its column of
// the shared output, adds source[a, i, b] at the clamped indices[i] in index
// order, and writes the column back.
// CHECK-LABEL: func.func @middle_axis
// CHECK-SAME: (%[[X:.*]]: tensor<2x5x3xf32>, %[[I:.*]]: tensor<4xi32>, %[[S:.*]]: tensor<2x4x3xf32>)
// CHECK: %[[R:.*]] = scf.forall (%[[A:.*]], %[[B:.*]]) in (2, 3) shared_outs(%[[OUT:.*]] = %[[X]]) -> (tensor<2x5x3xf32>) {
// CHECK: %[[COL:.*]] = tensor.extract_slice %[[OUT]][%[[A]], 0, %[[B]]] [1, 5, 1] [1, 1, 1] : tensor<2x5x3xf32> to tensor<5xf32>
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[LAST:.*]] = arith.constant 4 : index
// CHECK: %[[SUM:.*]] = scf.for %[[K:.*]] = %[[C0]] to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[COL]]) -> (tensor<5xf32>) {
// CHECK: %[[RAW:.*]] = tensor.extract %[[I]][%[[K]]] : tensor<4xi32>
// CHECK: %[[IDX0:.*]] = arith.index_cast %[[RAW]] : i32 to index
// CHECK: %[[IDX1:.*]] = arith.maxsi %[[IDX0]], %[[C0]] : index
// CHECK: %[[IDX:.*]] = arith.minsi %[[IDX1]], %[[LAST]] : index
// CHECK: %[[U:.*]] = tensor.extract %[[S]][%[[A]], %[[K]], %[[B]]] : tensor<2x4x3xf32>
// CHECK: %[[OLD:.*]] = tensor.extract %[[ACC]][%[[IDX]]] : tensor<5xf32>
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %[[U]] : f32
// CHECK: %[[INS:.*]] = tensor.insert %[[NEW]] into %[[ACC]][%[[IDX]]] : tensor<5xf32>
// CHECK: scf.yield %[[INS]] : tensor<5xf32>
// CHECK: scf.forall.in_parallel {
// CHECK: tensor.parallel_insert_slice %[[SUM]] into %[[OUT]][%[[A]], 0, %[[B]]] [1, 5, 1] [1, 1, 1] : tensor<5xf32> into tensor<2x5x3xf32>
// CHECK: return %[[R]]

// After bufferization: an scf.parallel whose threads update their column of
// the result in place; no allocation or copy per index or per column.
// BUF-LABEL: func.func @__kiln_func_middle_axis
// BUF: memref.copy %arg0, %[[RES:.*]] : memref<2x5x3xf32> to memref<2x5x3xf32>
// BUF-NEXT: scf.parallel
// BUF-NEXT: %[[COL:.*]] = memref.subview %[[RES]]
// BUF-NEXT: scf.for
// BUF-NOT: memref.alloc
// BUF-NOT: memref.copy
// BUF: memref.store %{{.*}}, %[[COL]][%{{.*}}]
// BUF-NOT: memref.alloc
// BUF-NOT: memref.copy
// BUF: return
func.func @middle_axis(%x: tensor<2x5x3xf32>, %i: tensor<4xi32>, %s: tensor<2x4x3xf32>) -> tensor<2x5x3xf32> {
  %0 = kiln.index_add %x, %i, %s {axis = 1 : i64} : (tensor<2x5x3xf32>, tensor<4xi32>, tensor<2x4x3xf32>) -> tensor<2x5x3xf32>
  return %0 : tensor<2x5x3xf32>
}

// -----

// A splat dest (an adjoint's zeros) is filled, not copied from a constant.
// CHECK-LABEL: func.func @zeros_dest
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<10x4xf32>
// CHECK: %[[FILL:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<10x4xf32>) -> tensor<10x4xf32>
// CHECK: scf.forall (%{{.*}}) in (4) shared_outs(%{{.*}} = %[[FILL]])

// BUF-LABEL: func.func @__kiln_func_zeros_dest
// BUF-NOT: memref.get_global
// BUF: linalg.fill ins(%{{.*}} : f32) outs(%[[RES:.*]] : memref<10x4xf32>)
// BUF-NEXT: scf.parallel
// BUF-NEXT: memref.subview %[[RES]]
func.func @zeros_dest(%g: tensor<6x4xf32>, %ids: tensor<6xi64>) -> tensor<10x4xf32> {
  %z = kiln.constant dense<0.0> : tensor<10x4xf32>
  %0 = kiln.index_add %z, %ids, %g {axis = 0 : i64} : (tensor<10x4xf32>, tensor<6xi64>, tensor<6x4xf32>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}

// -----

// bf16 accumulates in f32: dest widened once, updates widened, one rounding.
// CHECK-LABEL: func.func @bf16
// CHECK: %[[WIDE:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<5xbf16>) outs(%{{.*}} : tensor<5xf32>)
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: %[[R:.*]] = scf.forall {{.*}} shared_outs(%{{.*}} = %[[WIDE]]) -> (tensor<5xf32>)
// CHECK: %[[U:.*]] = tensor.extract %{{.*}} : tensor<4xbf16>
// CHECK: %[[UW:.*]] = arith.extf %[[U]] : bf16 to f32
// CHECK: arith.addf %{{.*}}, %[[UW]] : f32
// CHECK: linalg.generic {{.*}} ins(%[[R]] : tensor<5xf32>) outs(%{{.*}} : tensor<5xbf16>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @bf16(%x: tensor<5xbf16>, %i: tensor<4xi64>, %s: tensor<4xbf16>) -> tensor<5xbf16> {
  %0 = kiln.index_add %x, %i, %s {axis = 0 : i64} : (tensor<5xbf16>, tensor<4xi64>, tensor<4xbf16>) -> tensor<5xbf16>
  return %0 : tensor<5xbf16>
}

// -----

// Integers wrap (addi); i1 adds with a logical or.
// CHECK-LABEL: func.func @integers
// CHECK: arith.addi %{{.*}}, %{{.*}} : i8
// CHECK: arith.ori %{{.*}}, %{{.*}} : i1
func.func @integers(%x: tensor<3x2xi8>, %i: tensor<2xi32>, %s: tensor<2x2xi8>, %b: tensor<4xi1>, %j: tensor<3xi64>, %t: tensor<3xi1>) -> (tensor<3x2xi8>, tensor<4xi1>) {
  %0 = kiln.index_add %x, %i, %s {axis = 0 : i64} : (tensor<3x2xi8>, tensor<2xi32>, tensor<2x2xi8>) -> tensor<3x2xi8>
  %1 = kiln.index_add %b, %j, %t {axis = 0 : i64} : (tensor<4xi1>, tensor<3xi64>, tensor<3xi1>) -> tensor<4xi1>
  return %0, %1 : tensor<3x2xi8>, tensor<4xi1>
}

// -----

// No indices: the result is dest.
// CHECK-LABEL: func.func @no_indices
// CHECK-SAME: (%[[X:.*]]: tensor<5x4xf32>,
// CHECK-NOT: scf.forall
// CHECK: return %[[X]]
func.func @no_indices(%x: tensor<5x4xf32>, %i: tensor<0xi64>, %s: tensor<0x4xf32>) -> tensor<5x4xf32> {
  %0 = kiln.index_add %x, %i, %s {axis = 0 : i64} : (tensor<5x4xf32>, tensor<0xi64>, tensor<0x4xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}
