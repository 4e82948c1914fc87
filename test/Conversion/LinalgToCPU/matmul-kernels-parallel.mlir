// RUN: kiln-opt %s --kiln-matmul-kernels=parallel --canonicalize --split-input-file | FileCheck %s
// RUN: kiln-opt %s --kiln-matmul-kernels --canonicalize --split-input-file | FileCheck %s --check-prefix=SEQ

// kiln-matmul-kernels{parallel} (the enable-openmp stage): a matmul that no
// parallel op encloses runs its column tiles of 32 f32 columns as the
// iterations of an scf.parallel, each packing its blocks of B into a buffer
// of its own; 35 columns are a full tile and a partial one (an scf.if on the
// tile). Without the option, the sequential kernel with one stack buffer.
// CHECK-LABEL: func.func @top_level
// CHECK-NOT: memref.alloca
// CHECK: scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK: %[[J0:.*]] = arith.muli %[[T]], %{{.*}} : index
// CHECK: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<256x32xf32>
// CHECK: %[[FULL:.*]] = arith.cmpi ult, %[[T]], %{{.*}} : index
// CHECK: scf.if %[[FULL]] {
// CHECK: vector.store %{{.*}}, %[[P]]
// CHECK: vector.fma
// CHECK: } else {
// CHECK: vector.constant_mask [3] : vector<16xi1>
// CHECK: vector.fma
// CHECK: memref.dealloc %[[P]] : memref<256x32xf32>
// CHECK-NEXT: scf.reduce
// SEQ-LABEL: func.func @top_level
// SEQ: memref.alloca() {alignment = 64 : i64} : memref<256x32xf32>
// SEQ-NOT: scf.parallel
// SEQ: return
func.func @top_level(%a: memref<9x20xf32>, %b: memref<20x35xf32>, %c: memref<9x35xf32>) {
  linalg.matmul ins(%a, %b : memref<9x20xf32>, memref<20x35xf32>) outs(%c : memref<9x35xf32>)
  return
}

// -----

// A batch_matmul: its batches and column tiles (one here) are the parallel
// iterations.
// CHECK-LABEL: func.func @batch
// CHECK: scf.parallel (%[[N:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<256x32xf32>
// CHECK: vector.load %{{.*}}[%[[N]], %{{.*}}, %{{.*}}] : memref<3x9x32xf32>, vector<16xf32>
// CHECK: memref.dealloc
func.func @batch(%a: memref<3x9x20xf32>, %b: memref<3x20x32xf32>, %c: memref<3x9x32xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<3x9x20xf32>, memref<3x20x32xf32>) outs(%c : memref<3x9x32xf32>)
  return
}

// -----

// One column tile and no batch: nothing to split, the sequential kernel.
// CHECK-LABEL: func.func @one_tile
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<256x32xf32>
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @one_tile(%a: memref<9x20xf32>, %b: memref<20x32xf32>, %c: memref<9x32xf32>) {
  linalg.matmul ins(%a, %b : memref<9x20xf32>, memref<20x32xf32>) outs(%c : memref<9x32xf32>)
  return
}

// -----

// A matmul in an scf.parallel (attention's, in the loop that its query-block
// forall became) runs sequentially in its thread, packing into a buffer
// allocated in the body of each iteration (a stack buffer there would need
// a scope of its own once the body is an OpenMP loop body), with or without
// the option.
// CHECK-LABEL: func.func @in_parallel
// CHECK: scf.parallel
// CHECK-NEXT: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<256x32xf32>
// CHECK-NOT: scf.parallel
// CHECK: vector.store %{{.*}}, %[[P]]
// CHECK: memref.dealloc %[[P]]
// CHECK-NEXT: scf.reduce
// SEQ-LABEL: func.func @in_parallel
// SEQ: scf.parallel
// SEQ-NEXT: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<256x32xf32>
// SEQ: memref.dealloc %[[P]]
// SEQ-NEXT: scf.reduce
func.func @in_parallel(%a: memref<4x9x20xf32>, %b: memref<20x64xf32>, %c: memref<4x9x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %ai = memref.subview %a[%i, 0, 0] [1, 9, 20] [1, 1, 1] : memref<4x9x20xf32> to memref<9x20xf32, strided<[20, 1], offset: ?>>
    %ci = memref.subview %c[%i, 0, 0] [1, 9, 64] [1, 1, 1] : memref<4x9x64xf32> to memref<9x64xf32, strided<[64, 1], offset: ?>>
    linalg.matmul ins(%ai, %b : memref<9x20xf32, strided<[20, 1], offset: ?>>, memref<20x64xf32>)
                  outs(%ci : memref<9x64xf32, strided<[64, 1], offset: ?>>)
    scf.reduce
  }
  return
}

// -----

// In an omp.parallel, each thread gets a stack buffer in the region.
// CHECK-LABEL: func.func @in_omp
// CHECK: omp.parallel {
// CHECK-NEXT: %[[P:.*]] = memref.alloca() {alignment = 64 : i64} : memref<256x32xf32>
// CHECK-NOT: scf.parallel
// CHECK: vector.store %{{.*}}, %[[P]]
// CHECK: omp.terminator
// SEQ-LABEL: func.func @in_omp
// SEQ: omp.parallel {
// SEQ-NEXT: memref.alloca() {alignment = 64 : i64} : memref<256x32xf32>
func.func @in_omp(%a: memref<9x20xf32>, %b: memref<20x64xf32>, %c: memref<9x64xf32>) {
  omp.parallel {
    linalg.matmul ins(%a, %b : memref<9x20xf32>, memref<20x64xf32>) outs(%c : memref<9x64xf32>)
    omp.terminator
  }
  return
}
