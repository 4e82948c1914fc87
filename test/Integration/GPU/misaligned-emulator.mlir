// The GPU emulator reports a misaligned access as the GPU would (a CUDA
// error, "misaligned address"), where the host would just load: a 16-byte
// vector load from an address that is only 4-byte aligned. Upstream passes
// lower the gpu.launch to NVVM, kiln-gpu-emulate-kernels compiles it for the
// host (with its alignment tests), and a C program runs it on
// libKilnGPUEmulator.a.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: mlir-opt %s --pass-pipeline="builtin.module(gpu-kernel-outlining, convert-vector-to-llvm, convert-scf-to-cf, convert-func-to-llvm, finalize-memref-to-llvm, convert-arith-to-llvm, convert-index-to-llvm, gpu.module(convert-gpu-to-nvvm), gpu-to-llvm, reconcile-unrealized-casts)" -o %t/nvvm.mlir
// RUN: kiln-opt %t/nvvm.mlir --kiln-gpu-emulate-kernels | mlir-translate --mlir-to-llvmir -o %t/copy.ll
// RUN: llc -O0 -relocation-model=pic -filetype=obj %t/copy.ll -o %t/copy.o
// RUN: cc %kiln_cflags -o %t/copy %t/copy.o %S/Inputs/misaligned_emulator_main.c %kiln_gpu_emulator -lm -lpthread
// RUN: %t/copy | FileCheck %s
//
// CHECK: offset 0: 128 of 128 copied: no error
// Thread 0 loads from in + 1 float: reported before any thread copies.
// CHECK-NEXT: offset 1: 0 of 128 copied: GPU emulator: misaligned address in block (0,0,0): thread 0 (0,0,0): a load from 0x{{[0-9a-f]*}}4, which is not 16-byte aligned (called from 0x{{[0-9a-f]+}})

module attributes {gpu.container_module} {
  func.func @copy(%in: memref<?xf32>, %offset: index, %out: memref<?xf32>) attributes {llvm.emit_c_interface} {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
      %c4 = arith.constant 4 : index
      %t4 = arith.muli %tx, %c4 : index
      %i = arith.addi %t4, %offset : index
      %v = vector.load %in[%i] {alignment = 16} : memref<?xf32>, vector<4xf32>
      vector.store %v, %out[%t4] {alignment = 16} : memref<?xf32>, vector<4xf32>
      gpu.terminator
    }
    return
  }
}
