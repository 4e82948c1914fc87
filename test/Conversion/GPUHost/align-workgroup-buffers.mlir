// RUN: kiln-opt %s --kiln-gpu-align-workgroup-buffers | FileCheck %s
// RUN: kiln-opt %s --kiln-gpu-align-workgroup-buffers="alignment=64" | FileCheck %s --check-prefix=A64
// RUN: kiln-opt %s --kiln-gpu-align-workgroup-buffers | mlir-opt --convert-gpu-to-nvvm | FileCheck %s --check-prefix=NVVM

// Every workgroup attribution gets llvm.align = 16 unless it has more; the
// private attribution is left alone. convert-gpu-to-nvvm makes it the
// alignment of the shared-memory global.

gpu.module @m {
  // CHECK-LABEL: gpu.func @k(
  // CHECK-SAME: workgroup(%{{.*}} : memref<64x72xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64},
  // CHECK-SAME: %{{.*}} : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64},
  // CHECK-SAME: %{{.*}} : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 32 : i64})
  // CHECK-SAME: private(%{{.*}} : memref<4xf32, #gpu.address_space<private>>)
  // A64-LABEL: gpu.func @k(
  // A64-SAME: {llvm.align = 64 : i64}, %{{.*}} : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 64 : i64},
  // A64-SAME: {llvm.align = 64 : i64})
  // NVVM-DAG: llvm.mlir.global internal @__wg_k_0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<4608 x f16>
  // NVVM-DAG: llvm.mlir.global internal @__wg_k_1() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<8 x f32>
  // NVVM-DAG: llvm.mlir.global internal @__wg_k_2() {addr_space = 3 : i32, alignment = 32 : i64} : !llvm.array<8 x f32>
  gpu.func @k(%out: memref<4xf16>)
      workgroup(%tile : memref<64x72xf16, #gpu.address_space<workgroup>>,
                %row : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 4 : i64},
                %wide : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 32 : i64})
      private(%p : memref<4xf32, #gpu.address_space<private>>) kernel {
    %c0 = arith.constant 0 : index
    %x = memref.load %tile[%c0, %c0] : memref<64x72xf16, #gpu.address_space<workgroup>>
    memref.store %x, %out[%c0] : memref<4xf16>
    gpu.return
  }

  // A function without workgroup memory is unchanged.
  // CHECK-LABEL: gpu.func @none(
  // CHECK-NOT: llvm.align
  // CHECK: gpu.return
  gpu.func @none(%out: memref<4xf16>) kernel {
    gpu.return
  }
}
