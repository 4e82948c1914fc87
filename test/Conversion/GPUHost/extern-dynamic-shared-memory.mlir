// RUN: kiln-opt %s --pass-pipeline="builtin.module(gpu.module(kiln-gpu-extern-dynamic-shared-memory))" | FileCheck %s

// The zero-sized shared global that convert-gpu-to-nvvm makes of
// gpu.dynamic_shared_memory becomes an external declaration with the same
// alignment (NVPTX: `.extern .shared .align 16 .b8 __dynamic_shmem__0[];`).
// Sized shared globals, zero-sized globals in other address spaces and
// the functions are left alone.

// CHECK-LABEL: gpu.module @m
// CHECK: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.mlir.global internal @static_tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x f16>
// CHECK: llvm.mlir.global internal @global_empty() {addr_space = 1 : i32} : !llvm.array<0 x i8>
// CHECK: llvm.mlir.global external @already() {addr_space = 3 : i32, alignment = 4 : i64} : !llvm.array<0 x f32>
// CHECK: llvm.func @k()
gpu.module @m {
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global internal @static_tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x f16>
  llvm.mlir.global internal @global_empty() {addr_space = 1 : i32} : !llvm.array<0 x i8>
  llvm.mlir.global external @already() {addr_space = 3 : i32, alignment = 4 : i64} : !llvm.array<0 x f32>
  llvm.func @k() attributes {nvvm.kernel} {
    %0 = llvm.mlir.addressof @__dynamic_shmem__0 : !llvm.ptr<3>
    llvm.return
  }
}
