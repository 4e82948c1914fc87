// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-linalg-to-parallel-loops,canonicalize))" | FileCheck %s

// The parallel dims of a linalg op on buffers become one scf.parallel, its
// reduction dims an scf.for inside; matmuls stay for kiln-matmul-kernels.

// CHECK-LABEL: func.func @row_sums
// CHECK-SAME: (%[[X:.*]]: memref<4x8xf32>, %[[Y:.*]]: memref<4xf32>)
// CHECK-NOT: linalg.generic
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK: scf.for %[[J:.*]] =
// CHECK: memref.load %[[X]][%[[I]], %[[J]]]
// CHECK: arith.addf
// CHECK: memref.store %{{.*}}, %[[Y]][%[[I]]]
func.func @row_sums(%x: memref<4x8xf32>, %y: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  return
}

// CHECK-LABEL: func.func @matmuls
// CHECK-NOT: scf.parallel
// CHECK: linalg.matmul
// CHECK: linalg.batch_matmul
func.func @matmuls(%a: memref<4x8xf32>, %b: memref<8x2xf32>, %c: memref<4x2xf32>,
                   %ba: memref<3x4x8xf32>, %bb: memref<3x8x2xf32>, %bc: memref<3x4x2xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x2xf32>) outs(%c : memref<4x2xf32>)
  linalg.batch_matmul ins(%ba, %bb : memref<3x4x8xf32>, memref<3x8x2xf32>) outs(%bc : memref<3x4x2xf32>)
  return
}

// Tensors are not touched (the pass runs after bufferization).
// CHECK-LABEL: func.func @on_tensors
// CHECK: linalg.generic
func.func @on_tensors(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%x : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.mulf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// A linalg op already in a parallel loop or region (attention's block ops,
// in the scf.parallel that its bufferized forall became) runs in one thread
// of it: it stays for convert-linalg-to-loops, so that no thread forks
// again.
// CHECK-LABEL: func.func @nested
// CHECK: scf.parallel
// CHECK-NOT: scf.parallel
// CHECK: linalg.generic
// CHECK: omp.parallel
// CHECK-NOT: scf.parallel
// CHECK: linalg.generic
// CHECK: return
func.func @nested(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %row = memref.subview %x[%i, 0] [1, 8] [1, 1] : memref<4x8xf32> to memref<8xf32, strided<[1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(j) -> (j)>], iterator_types = ["parallel"]}
        outs(%row : memref<8xf32, strided<[1], offset: ?>>) {
    ^bb0(%a: f32):
      %s = arith.mulf %a, %a : f32
      linalg.yield %s : f32
    }
    scf.reduce
  }
  omp.parallel {
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
        outs(%y : memref<4x8xf32>) {
    ^bb0(%a: f32):
      %s = arith.addf %a, %a : f32
      linalg.yield %s : f32
    }
    omp.terminator
  }
  return
}
