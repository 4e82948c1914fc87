// kiln-gpu-module-to-binary is gpu-module-to-binary with the NVPTX backend
// under crash recovery. An intrinsic of sm_90a called in a module for sm_80
// verifies, but instruction selection aborts on it ("LLVM ERROR: Cannot
// select"); here that is an error, and kiln-opt exits with 1, not a signal
// (`not` fails on a crash). The same module for sm_90a compiles.
//
// RUN: not kiln-opt %s --split-input-file --kiln-gpu-module-to-binary="format=isa" 2>&1 | FileCheck %s
// Through the whole GPU pipeline:
// RUN: not kiln-opt %s --split-input-file --kiln-lower-to-nvvm="format=isa chip=sm_80" 2>&1 | FileCheck %s --check-prefix=PIPELINE
//
// CHECK: LLVM ERROR: Cannot select: intrinsic %llvm.nvvm.wgmma.fence.sync.aligned
// CHECK: module-to-binary.mlir:[[# @LINE + 7]]:1: error: LLVM's NVPTX code generator aborted (its message is above) while compiling @kernels (sm_80): a kernel uses something its chip cannot run
// CHECK: gpu.binary @kernels
// CHECK-SAME: #nvvm.target<chip = "sm_90a">
// CHECK-SAME: wgmma.fence.sync.aligned;
// PIPELINE: LLVM ERROR: Cannot select: intrinsic %llvm.nvvm.wgmma.fence.sync.aligned
// PIPELINE: error: LLVM's NVPTX code generator aborted (its message is above) while compiling @kernels (sm_80): a kernel uses something its chip cannot run

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
    llvm.func @k() attributes {gpu.kernel, nvvm.kernel} {
      llvm.call_intrinsic "llvm.nvvm.wgmma.fence.sync.aligned"() : () -> ()
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
    llvm.func @k() attributes {gpu.kernel, nvvm.kernel} {
      llvm.call_intrinsic "llvm.nvvm.wgmma.fence.sync.aligned"() : () -> ()
      llvm.return
    }
  }
}
