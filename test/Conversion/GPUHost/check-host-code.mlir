// RUN: kiln-opt %s --kiln-gpu-check-host-code --split-input-file --verify-diagnostics | FileCheck %s

// Host code that only calls the runtime and computes views passes; buffers
// are dereferenced in kernels only.
// CHECK-LABEL: func.func @ok
memref.global "private" constant @k : memref<2xf32> = dense<1.0>
func.func @ok(%a: memref<2xf32>) {
  %c1 = arith.constant 1 : index
  %g = memref.get_global @k : memref<2xf32>
  %d = gpu.alloc () : memref<2xf32>
  gpu.memcpy %d, %g : memref<2xf32>, memref<2xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c1, %w = %c1, %t = %c1) {
    %v = memref.load %d[%tx] : memref<2xf32>
    memref.store %v, %a[%tx] : memref<2xf32>
    gpu.terminator
  }
  gpu.dealloc %d : memref<2xf32>
  return
}

// -----

func.func @load(%a: memref<2xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'memref.load' op dereferences a buffer on the host, but every buffer is device memory here}}
  %v = memref.load %a[%c0] : memref<2xf32>
  return %v : f32
}

// -----

func.func @alloc() {
  // expected-error @+1 {{'memref.alloc' op allocates a host buffer, but kernels can only read device buffers (use gpu.alloc)}}
  %a = memref.alloc() : memref<2xf32>
  return
}

// -----

func.func @copy(%a: memref<2xf32>, %b: memref<2xf32>) {
  // expected-error @+1 {{'memref.copy' op dereferences a buffer on the host, but every buffer is device memory here}}
  memref.copy %a, %b : memref<2xf32> to memref<2xf32>
  return
}
