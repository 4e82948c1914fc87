// RUN: kiln-opt %s --kiln-gpu-kernel-outlining --split-input-file | FileCheck %s

// Each outlined kernel gets the entries of its launch's
// kiln.kernel_attributes; a launch without them is outlined as upstream
// does, and a kernel outlined before is left alone.

// CHECK-LABEL: func.func @two
// CHECK: gpu.launch_func @two_kernel::@two_kernel
// CHECK: gpu.launch_func @two_kernel_0::@two_kernel
// CHECK-NOT: kiln.kernel_attributes
// CHECK: gpu.module @two_kernel
// CHECK: gpu.func @two_kernel(%{{.*}}: memref<128xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 2, 1, 1>, nvvm.minctasm = 3 : i32}
// CHECK: gpu.module @two_kernel_0
// CHECK: gpu.func @two_kernel(%{{.*}}: memref<128xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
module {
  func.func @two(%m: memref<128xf32>) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
      %v = memref.load %m[%tx] : memref<128xf32>
      memref.store %v, %m[%tx] : memref<128xf32>
      gpu.terminator
    } {kiln.kernel_attributes = {nvvm.minctasm = 3 : i32}}
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
      %v = memref.load %m[%tx] : memref<128xf32>
      memref.store %v, %m[%tx] : memref<128xf32>
      gpu.terminator
    }
    return
  }
}

// -----

// CHECK-LABEL: func.func @after_outlined
// CHECK: gpu.launch_func @old::@old
// CHECK: gpu.launch_func @after_outlined_kernel::@after_outlined_kernel
// CHECK: gpu.module @after_outlined_kernel
// CHECK: gpu.func @after_outlined_kernel({{.*}}) kernel attributes {known_block_size = array<i32: 4, 1, 1>, known_grid_size = array<i32: 1, 1, 1>, nvvm.minctasm = 2 : i32}
// CHECK: gpu.module @old
// CHECK: gpu.func @old(%{{.*}}: memref<4xf32>) kernel {
module attributes {gpu.container_module} {
  func.func @after_outlined(%m: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    gpu.launch_func @old::@old blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
      %v = memref.load %m[%tx] : memref<4xf32>
      memref.store %v, %m[%tx] : memref<4xf32>
      gpu.terminator
    } {kiln.kernel_attributes = {nvvm.minctasm = 2 : i32}}
    return
  }
  gpu.module @old {
    gpu.func @old(%m: memref<4xf32>) kernel {
      gpu.return
    }
  }
}
