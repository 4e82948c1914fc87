// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-gpu-host-code-to-kernels))" --split-input-file --verify-diagnostics | FileCheck %s

// A reduction without parallel dims is a plain loop nest on the host: it
// runs as one kernel of one thread.
// CHECK-LABEL: func.func @sum
// CHECK: arith.constant 8 : index
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: gpu.launch blocks({{.*}}) in ({{.*}} = %[[ONE]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]]) threads({{.*}}) in ({{.*}} = %[[ONE]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]])
// CHECK-NEXT: scf.for
// CHECK: memref.load
// CHECK: memref.store
// CHECK: gpu.terminator
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @sum(%a: memref<8xf32>, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %a[%i] : memref<8xf32>
    %acc = memref.load %out[] : memref<f32>
    %s = arith.addf %x, %acc : f32
    memref.store %s, %out[] : memref<f32>
  }
  return
}

// -----

// A scalar read on the host (tensor.extract of a seed) and used in a later
// kernel leaves its one-thread kernel through a device buffer, reloaded
// inside the kernel that uses it.
// CHECK-LABEL: func.func @scalar
// CHECK-SAME: (%[[SEED:.*]]: memref<i64>, %[[OUT:.*]]: memref<4xi64>)
// CHECK: %[[BUF:.*]] = gpu.alloc () : memref<i64>
// CHECK: gpu.launch
// CHECK-NEXT: %[[V:.*]] = memref.load %[[SEED]][] : memref<i64>
// CHECK-NEXT: memref.store %[[V]], %[[BUF]][] : memref<i64>
// CHECK-NEXT: gpu.terminator
// CHECK: gpu.launch
// CHECK-NEXT: %[[R:.*]] = memref.load %[[BUF]][] : memref<i64>
// CHECK: memref.store %[[R]], %[[OUT]]
// CHECK: gpu.dealloc %[[BUF]] : memref<i64>
// CHECK-NEXT: return
func.func @scalar(%seed: memref<i64>, %out: memref<4xi64>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %v = memref.load %seed[] : memref<i64>
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c4, %w = %c1, %t = %c1) {
    memref.store %v, %out[%tx] : memref<4xi64>
    gpu.terminator
  }
  return
}

// -----

// Host loops around launches stay on the host; the code inside them that
// touches buffers moves into its own kernel.
// CHECK-LABEL: func.func @host_loop
// CHECK: scf.for
// CHECK: gpu.launch
// CHECK: memref.store
// CHECK: gpu.terminator
// CHECK: gpu.launch
// CHECK: memref.load
// CHECK: gpu.terminator
func.func @host_loop(%a: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %zero, %a[%i] : memref<4xf32>
    gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
               threads(%tx, %ty, %tz) in (%u = %c1, %w = %c1, %t = %c1) {
      %v = memref.load %a[%i] : memref<4xf32>
      gpu.terminator
    }
  }
  return
}

// -----

// Host code that reads no buffer is left alone.
// CHECK-LABEL: func.func @negative_views
// CHECK-NOT: gpu.launch
// CHECK: memref.subview
func.func @negative_views(%a: memref<4xf32>) -> memref<2xf32, strided<[1], offset: 2>> {
  %s = memref.subview %a[2] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: 2>>
  return %s : memref<2xf32, strided<[1], offset: 2>>
}

// -----

// A value read from device memory cannot steer host control flow.
func.func @host_use(%a: memref<index>, %b: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  // expected-note @+1 {{the value is computed here}}
  %n = memref.load %a[] : memref<index>
  // expected-error @+1 {{'scf.for' op uses a value that only a kernel can compute (it reads device memory), but runs on the host}}
  scf.for %i = %c0 to %n step %c1 {
    gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
               threads(%tx, %ty, %tz) in (%u = %c1, %w = %c1, %t = %c1) {
      memref.store %zero, %b[%i] : memref<4xf32>
      gpu.terminator
    }
  }
  return
}

// -----

// In a block without terminator (a graph region) the buffer of an escaping
// value is freed after the last launch that reads it, not before the
// block's last op (found by reading the pass).
// CHECK-LABEL: func.func @no_terminator
// CHECK: %[[BUF:.*]] = gpu.alloc () : memref<f32>
// CHECK: gpu.launch
// CHECK: memref.store %{{.*}}, %[[BUF]][]
// CHECK: gpu.launch
// CHECK: memref.load %[[BUF]][]
// CHECK: gpu.terminator
// CHECK-NEXT: }
// CHECK-NEXT: gpu.dealloc %[[BUF]]
// CHECK-NEXT: }
func.func @no_terminator() {
  builtin.module {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = memref.alloc() : memref<4xf32>
    %x = memref.load %m[%c0] : memref<4xf32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      memref.store %x, %m[%c1] : memref<4xf32>
      gpu.terminator
    }
  }
  return
}

// -----

// A scalar read from a buffer, then an allocation (which ends the group: it
// stays on the host), then more scalar code on the value: that code reads
// the value back from the device buffer, so it moves into a kernel of its
// own instead of running on the host.
// CHECK-LABEL: func.func @use_after_allocation
// CHECK-SAME: (%[[SEED:.*]]: memref<i64>, %[[OUT:.*]]: memref<i64>)
// CHECK: %[[BUF:.*]] = gpu.alloc () : memref<i64>
// CHECK: gpu.launch
// CHECK-NEXT: %[[V:.*]] = memref.load %[[SEED]][] : memref<i64>
// CHECK-NEXT: memref.store %[[V]], %[[BUF]][] : memref<i64>
// CHECK-NEXT: gpu.terminator
// CHECK: %[[TMP:.*]] = gpu.alloc () : memref<i64>
// CHECK: gpu.launch
// CHECK-NEXT: %[[R:.*]] = memref.load %[[BUF]][] : memref<i64>
// CHECK-NEXT: %[[S:.*]] = arith.shrui %[[R]]
// CHECK-NEXT: memref.store %[[S]], %[[TMP]][] : memref<i64>
// CHECK: gpu.terminator
// CHECK-NOT: arith.shrui
// CHECK: return
func.func @use_after_allocation(%seed: memref<i64>, %out: memref<i64>) {
  %c32 = arith.constant 32 : i64
  %v = memref.load %seed[] : memref<i64>
  %tmp = gpu.alloc () : memref<i64>
  %s = arith.shrui %v, %c32 : i64
  memref.store %s, %tmp[] : memref<i64>
  %t = memref.load %tmp[] : memref<i64>
  memref.store %t, %out[] : memref<i64>
  gpu.dealloc %tmp : memref<i64>
  return
}

// -----

// A loop without launches whose body allocates stays on the host (a kernel
// cannot call gpu.alloc); its body is split into kernels around the
// allocation instead of the whole loop becoming one kernel.
// CHECK-LABEL: func.func @loop_with_allocation
// CHECK: scf.for
// CHECK-NEXT: %[[TMP:.*]] = gpu.alloc () : memref<f32>
// CHECK: gpu.launch
// CHECK: memref.store %{{.*}}, %[[TMP]][] : memref<f32>
// CHECK: gpu.terminator
// CHECK: gpu.dealloc %[[TMP]]
func.func @loop_with_allocation(%a: memref<4xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %tmp = gpu.alloc () : memref<f32>
    %x = memref.load %a[%i] : memref<4xf32>
    memref.store %x, %tmp[] : memref<f32>
    %y = memref.load %tmp[] : memref<f32>
    memref.store %y, %out[%i] : memref<4xf32>
    gpu.dealloc %tmp : memref<f32>
  }
  return
}
