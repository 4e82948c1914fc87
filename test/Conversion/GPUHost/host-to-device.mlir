// RUN: kiln-opt %s --kiln-gpu-host-to-device --split-input-file --verify-diagnostics | FileCheck %s

// Allocations and deallocations move to the device; copies become
// linalg.copy, which the loop mapping turns into a kernel.
// CHECK-LABEL: func.func @alloc_copy
// CHECK-SAME: (%[[A:.*]]: memref<4xf32>, %[[B:.*]]: memref<4xf32>)
// CHECK: %[[T:.*]] = gpu.alloc () : memref<4xf32>
// CHECK-NOT: memref.alloc
// CHECK: linalg.copy ins(%[[A]] : memref<4xf32>) outs(%[[T]] : memref<4xf32>)
// CHECK: linalg.copy ins(%[[T]] : memref<4xf32>) outs(%[[B]] : memref<4xf32>)
// CHECK: gpu.dealloc %[[T]] : memref<4xf32>
// CHECK-NOT: memref.dealloc
func.func @alloc_copy(%a: memref<4xf32>, %b: memref<4xf32>) {
  %t = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  memref.copy %a, %t : memref<4xf32> to memref<4xf32>
  memref.copy %t, %b : memref<4xf32> to memref<4xf32>
  memref.dealloc %t : memref<4xf32>
  return
}

// -----

// A constant global is copied to a device buffer that replaces it in the
// rest of the block, and freed at the block's end.
memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<[1.0, 2.0]>

// CHECK-LABEL: func.func @constant
// CHECK: %[[G:.*]] = memref.get_global @__constant_2xf32 : memref<2xf32>
// CHECK: %[[D:.*]] = gpu.alloc () : memref<2xf32>
// CHECK: gpu.memcpy %[[D]], %[[G]] : memref<2xf32>, memref<2xf32>
// CHECK: linalg.copy ins(%[[D]] : memref<2xf32>)
// CHECK: gpu.dealloc %[[D]] : memref<2xf32>
// CHECK-NEXT: return
func.func @constant(%b: memref<2xf32>) {
  %g = memref.get_global @__constant_2xf32 : memref<2xf32>
  memref.copy %g, %b : memref<2xf32> to memref<2xf32>
  return
}

// -----

// Code already on the device is left alone.
// CHECK-LABEL: func.func @negative_in_launch
// CHECK: gpu.launch
// CHECK: memref.alloca
// CHECK: memref.copy
func.func @negative_in_launch(%a: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    %t = memref.alloca() : memref<4xf32>
    memref.copy %a, %t : memref<4xf32> to memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

memref.global "private" @state : memref<2xf32> = dense<0.0>

func.func @mutable_global(%b: memref<2xf32>) {
  // expected-error @+1 {{'memref.get_global' op reads the mutable global @state, which cannot be copied to the device}}
  %g = memref.get_global @state : memref<2xf32>
  memref.copy %g, %b : memref<2xf32> to memref<2xf32>
  return
}

// -----

// In a block without terminator (here the module's) the device copy of a
// constant is freed last; the gpu.dealloc went before the block's last op,
// ahead of the copy that fills it (found by reading the pass).
// CHECK: %[[G:.*]] = memref.get_global @graph_region
// CHECK-NEXT: %[[D:.*]] = gpu.alloc () : memref<2xf32>
// CHECK-NEXT: gpu.memcpy %[[D]], %[[G]]
// CHECK-NEXT: gpu.dealloc %[[D]]
// CHECK-NEXT: }
memref.global "private" constant @graph_region : memref<2xf32> = dense<1.0>
%g = memref.get_global @graph_region : memref<2xf32>
