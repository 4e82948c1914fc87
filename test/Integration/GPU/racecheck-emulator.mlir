// The GPU emulator's race check (KILN_EMU_RACECHECK=1) on a gpu.launch
// that rotates a vector through workgroup memory and misses the gpu.barrier
// between the writes and the reads: thread t reads the element thread
// t + 1 writes. Upstream passes lower it to NVVM (the workgroup attribution
// becomes an address-space-3 global), kiln-gpu-emulate-kernels compiles it
// for the host, a C program runs it on libKilnGPUEmulator.a. Without the
// check the emulator's schedule (each thread runs to its end) gives a wrong
// answer silently; with the barrier both are right.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: mlir-opt %s --pass-pipeline="builtin.module(gpu-kernel-outlining, convert-scf-to-cf, convert-func-to-llvm, finalize-memref-to-llvm, convert-arith-to-llvm, convert-index-to-llvm, gpu.module(convert-gpu-to-nvvm), gpu-to-llvm, reconcile-unrealized-casts)" -o %t/nvvm.mlir
// RUN: kiln-opt %t/nvvm.mlir --kiln-gpu-emulate-kernels | mlir-translate --mlir-to-llvmir -o %t/rotate.ll
// RUN: llc -O0 -relocation-model=pic -filetype=obj %t/rotate.ll -o %t/rotate.o
// RUN: cc %kiln_cflags -o %t/rotate %t/rotate.o %S/Inputs/racecheck_emulator_main.c %kiln_gpu_emulator -lm -lpthread
// RUN: env -u KILN_EMU_RACECHECK %t/rotate | FileCheck %s --check-prefix=OFF
// RUN: env KILN_EMU_RACECHECK=1 %t/rotate | FileCheck %s --check-prefix=ON
//
// OFF: rotate_racy: 1 of 64 right: no error
// OFF-NEXT: rotate: 64 of 64 right: no error
// Thread 0 runs first: it writes element 0, then reads element 1 (bytes
// 4..7), which thread 1 writes next.
// ON: rotate_racy: {{[0-9]+}} of 64 right: GPU emulator: workgroup memory race (write after read) in block (0,0,0), epoch 0 (after 0 barriers): thread 1 (1,0,0) writes byte 4 of @rotate_racy_kernel::@__wg_rotate_racy_kernel_0 (at 0x{{[0-9a-f]+}}), which thread 0 (0,0,0) read in the same epoch (called from 0x{{[0-9a-f]+}})
// ON-NEXT: rotate: 64 of 64 right: no error

module attributes {gpu.container_module} {
  func.func @rotate_racy(%in: memref<64xf32>, %out: memref<64xf32>) attributes {llvm.emit_c_interface} {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
               workgroup(%tile : memref<64xf32, #gpu.address_space<workgroup>>) {
      %v = memref.load %in[%tx] : memref<64xf32>
      memref.store %v, %tile[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      %one = arith.constant 1 : index
      %n = arith.constant 64 : index
      %next = arith.addi %tx, %one : index
      %j = arith.remui %next, %n : index
      %w = memref.load %tile[%j] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %w, %out[%tx] : memref<64xf32>
      gpu.terminator
    }
    return
  }

  func.func @rotate(%in: memref<64xf32>, %out: memref<64xf32>) attributes {llvm.emit_c_interface} {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
               workgroup(%tile : memref<64xf32, #gpu.address_space<workgroup>>) {
      %v = memref.load %in[%tx] : memref<64xf32>
      memref.store %v, %tile[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %one = arith.constant 1 : index
      %n = arith.constant 64 : index
      %next = arith.addi %tx, %one : index
      %j = arith.remui %next, %n : index
      %w = memref.load %tile[%j] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %w, %out[%tx] : memref<64xf32>
      gpu.terminator
    }
    return
  }
}
