// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-gpu-map-parallel-loops{block-size=128}))" --split-input-file --verify-diagnostics | FileCheck %s
// RUN: not kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-gpu-map-parallel-loops{block-size=0}))" --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-gpu-map-parallel-loops{block-size=1025}))" --split-input-file 2>&1 | FileCheck %s --check-prefix=BIG
// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-gpu-map-parallel-loops{block-size=1024}))" --split-input-file --verify-diagnostics -o /dev/null

// BAD: error: kiln-gpu-map-parallel-loops: block-size must be in [1, 1024], got 0
// CUDA's limit: 1024 threads per block.
// BIG: error: kiln-gpu-map-parallel-loops: block-size must be in [1, 1024], got 1025

// A 2-d loop becomes one flat loop of 6 x 200 = 1200 points, tiled by the
// block size: the tiles map to blocks, the points to threads, with a guard
// for the last, partial block. The original indices come back by div/rem,
// the last dimension varying fastest.
// CHECK-LABEL: func.func @flat
// CHECK: arith.constant 0.0{{.*}} : f32
// CHECK: %[[C6:.*]] = arith.constant 6 : index
// CHECK: %[[C200:.*]] = arith.constant 200 : index
// CHECK: %[[N0:.*]] = arith.muli %{{.*}}, %[[C6]] : index
// CHECK: %[[N:.*]] = arith.muli %[[N0]], %[[C200]] : index
// CHECK: %[[C128:.*]] = arith.constant 128 : index
// CHECK: %[[STEP:.*]] = arith.muli %{{.*}}, %[[C128]] : index
// CHECK: scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%[[N]]) step (%[[STEP]]) {
// CHECK: scf.parallel (%[[P:.*]]) = (%{{.*}}) to (%[[STEP]]) step (%{{.*}}) {
// CHECK: %[[I:.*]] = arith.addi %[[P]], %[[T]] : index
// CHECK: arith.cmpi ult, %{{.*}}, %[[N]] : index
// CHECK: scf.if
// CHECK: %[[J:.*]] = arith.remsi %[[I]], %[[C200]] : index
// CHECK: %[[K:.*]] = arith.divsi %[[I]], %[[C200]] : index
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[K]], %[[J]]]
// CHECK: {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// CHECK: {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
func.func @flat(%a: memref<6x200xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c200 = arith.constant 200 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c6, %c200) step (%c1, %c1) {
    memref.store %zero, %a[%i, %j] : memref<6x200xf32>
    scf.reduce
  }
  return
}

// -----

// Fewer points than the block size: one block of exactly that many threads.
// CHECK-LABEL: func.func @small
// CHECK: %[[C5:.*]] = arith.constant 5 : index
// CHECK: %[[C5B:.*]] = arith.constant 5 : index
// CHECK: %[[STEP:.*]] = arith.muli %{{.*}}, %[[C5B]] : index
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%[[STEP]])
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[STEP]])
// CHECK-NOT: scf.if
func.func @small(%a: memref<5xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c5) step (%c1) {
    memref.store %zero, %a[%i] : memref<5xf32>
    scf.reduce
  }
  return
}

// -----

// No points: no work and no launch.
// CHECK-LABEL: func.func @empty
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @empty(%a: memref<0x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c0, %c4) step (%c1, %c1) {
    memref.store %zero, %a[%i, %j] : memref<0x4xf32>
    scf.reduce
  }
  return
}

// -----

// A parallel loop inside a mapped one runs sequentially in its thread.
// CHECK-LABEL: func.func @nested
// CHECK: processor = sequential
// CHECK: processor = thread_x
// CHECK: processor = block_x
func.func @nested(%a: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.parallel (%j) = (%c0) to (%c4) step (%c1) {
      memref.store %zero, %a[%i, %j] : memref<4x4xf32>
      scf.reduce
    }
    scf.reduce
  }
  return
}

// -----

// A trip count that overflows int64_t is not a count of zero: the loop stays
// and is mapped (it was erased as empty; found by reading the pass while
// extending test/robustness/campaign.py).
// CHECK-LABEL: func.func @huge
// CHECK: processor = thread_x
// CHECK: processor = block_x
func.func @huge(%a: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %big = arith.constant 4611686018427387904 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%big, %big) step (%c1, %c1) {
    memref.store %zero, %a[%c0] : memref<4xf32>
    scf.reduce
  }
  return
}

// -----

// A loop last in a block without terminator (a graph region) is collapsed
// too (this crashed; found by reading the pass while extending
// test/robustness/campaign.py).
// CHECK-LABEL: func.func @no_terminator
// CHECK: builtin.module
// CHECK: processor = thread_x
// CHECK: processor = block_x
func.func @no_terminator() {
  builtin.module {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) {
      scf.reduce
    }
  }
  return
}
