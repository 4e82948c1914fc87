// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-gpu-deallocate-temporaries))' --split-input-file | FileCheck %s

// A temporary read by a kernel (whose body holds gpu.barrier, which upstream's
// ownership-based deallocation rejects) is freed just before the return,
// after the copy into the out-param; the kernel's workgroup buffer and the
// argument are not touched.
// CHECK-LABEL: func.func @temporary
// CHECK: %[[T:.*]] = memref.alloc() : memref<64xf32>
// CHECK: gpu.launch
// CHECK: gpu.barrier
// CHECK: memref.copy %[[T]], %{{.*}}
// CHECK-NEXT: memref.dealloc %[[T]] : memref<64xf32>
// CHECK-NEXT: return
// CHECK-NOT: memref.dealloc
func.func @temporary(%a: memref<64xf32>, %out: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %t = memref.alloc() : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c64, %w = %c1, %v = %c1)
             workgroup(%sh : memref<64xf32, #gpu.address_space<workgroup>>) {
    %e = memref.load %a[%tx] : memref<64xf32>
    memref.store %e, %sh[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %f = memref.load %sh[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %f, %t[%tx] : memref<64xf32>
    gpu.terminator
  }
  memref.copy %t, %out : memref<64xf32> to memref<64xf32>
  return
}

// -----

// A per-iteration temporary is freed at the end of the loop body; one that a
// view carries out through the yield escapes and is left alone.
// CHECK-LABEL: func.func @loop
// CHECK: scf.for
// CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[B:.*]] = memref.alloc() : memref<2x2xf32>
// CHECK: %[[V:.*]] = memref.collapse_shape %[[B]]
// CHECK: memref.dealloc %[[A]] : memref<4xf32>
// CHECK-NEXT: scf.yield %[[V]]
// CHECK-NOT: memref.dealloc
func.func @loop(%init: memref<4xf32>) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %init) -> (memref<4xf32>) {
    %a = memref.alloc() : memref<4xf32>
    memref.copy %acc, %a : memref<4xf32> to memref<4xf32>
    %b = memref.alloc() : memref<2x2xf32>
    %v = memref.collapse_shape %b [[0, 1]] : memref<2x2xf32> into memref<4xf32>
    memref.copy %a, %v : memref<4xf32> to memref<4xf32>
    scf.yield %v : memref<4xf32>
  }
  return %r : memref<4xf32>
}

// -----

// In a block without terminator (a graph region) the dealloc goes last; it
// went before the block's last op, here the alloc itself (found by
// reading the pass).
// CHECK-LABEL: func.func @no_terminator
// CHECK: builtin.module
// CHECK-NEXT: %[[A:.*]] = memref.alloc()
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: }
func.func @no_terminator() {
  builtin.module {
    %a = memref.alloc() : memref<2xf32>
  }
  return
}
