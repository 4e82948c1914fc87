// REQUIRES: ptxas
// The forward kernels down to PTX through kiln-lower-to-nvvm: the f16 and
// bf16 tensor-core kernels and the f32 SIMT kernel, for sm_90 and sm_80;
// ptxas must accept every kernel. The tiles live in the launch's dynamic
// shared memory: CUDA's `extern __shared__` array, 16-byte aligned, its
// size given by the host's launch.
//
// RUN: kiln-opt %s --kiln-lower-to-nvvm="format=isa" > %t.sm90.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.sm90.mlir
// RUN: %python %S/Inputs/extract-ptx.py __kiln_func_f16_kernel < %t.sm90.mlir > %t.f16.ptx
// RUN: %python %S/Inputs/extract-ptx.py __kiln_func_bf16_kernel < %t.sm90.mlir > %t.bf16.ptx
// RUN: %python %S/Inputs/extract-ptx.py __kiln_func_f32_kernel < %t.sm90.mlir > %t.f32.ptx
// RUN: FileCheck %s --check-prefix=F16 < %t.f16.ptx
// RUN: FileCheck %s --check-prefix=BF16 < %t.bf16.ptx
// RUN: FileCheck %s --check-prefix=F32 < %t.f32.ptx
// RUN: %ptxas -arch=sm_90 %t.f16.ptx -o %t.o
// RUN: %ptxas -arch=sm_90 %t.bf16.ptx -o %t.o
// RUN: %ptxas -arch=sm_90 %t.f32.ptx -o %t.o
//
// RUN: kiln-opt %s --kiln-lower-to-nvvm="format=isa chip=sm_80 features=+ptx80" > %t.sm80.mlir
// RUN: %python %S/Inputs/extract-ptx.py __kiln_func_f16_kernel < %t.sm80.mlir > %t.f16.sm80.ptx
// RUN: %python %S/Inputs/extract-ptx.py __kiln_func_bf16_kernel < %t.sm80.mlir > %t.bf16.sm80.ptx
// RUN: %python %S/Inputs/extract-ptx.py __kiln_func_f32_kernel < %t.sm80.mlir > %t.f32.sm80.ptx
// RUN: FileCheck %s --check-prefix=F16 < %t.f16.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.f16.sm80.ptx -o %t.o
// RUN: %ptxas -arch=sm_80 %t.bf16.sm80.ptx -o %t.o
// RUN: %ptxas -arch=sm_80 %t.f32.sm80.ptx -o %t.o
//
// The software-pipelined tensor-core kernel, for both targets; cubins from
// ptxas (format=bin fails if ptxas rejects the PTX).
// RUN: kiln-opt %s --kiln-lower-to-nvvm="format=isa software-pipeline=true" \
// RUN:   | %python %S/Inputs/extract-ptx.py __kiln_func_bf16_kernel | FileCheck %s --check-prefix=PIPE
// RUN: kiln-opt %s --kiln-lower-to-nvvm="software-pipeline=true" | FileCheck %s --check-prefix=BIN
// RUN: kiln-opt %s --kiln-lower-to-nvvm="software-pipeline=true chip=sm_80 features=+ptx80" | FileCheck %s --check-prefix=BIN

// Sq = Sk = 200: an [Sq, Sk] block would be 40000 elements. Only the K and
// V tiles live in shared memory, rows padded by 8 halves (K: 64 keys x
// (64 + 8) halves = 9216 bytes; V: 64 x (32 + 8) = 5120): 14336 bytes of
// dynamic shared memory, no static shared variable, nothing declared in
// global memory. Every B fragment comes from an ldmatrix (.trans for V), K
// and V are staged 16 bytes per load and store when they are 16-byte
// aligned, and P is one ex2.approx per score.
// HOST-LABEL: llvm.func internal @__kiln_func_f16(
// HOST: %[[SMEM:.*]] = llvm.mlir.constant(14336 : i32) : i32
// HOST: gpu.launch_func {{.*}}@__kiln_func_f16_kernel::@__kiln_func_f16_kernel {{.*}} dynamic_shared_memory_size %[[SMEM]]
// HOST-LABEL: llvm.func internal @__kiln_func_bf16(
// HOST: %[[SMEM:.*]] = llvm.mlir.constant(34816 : i32) : i32
// HOST: gpu.launch_func {{.*}}@__kiln_func_bf16_kernel::@__kiln_func_bf16_kernel {{.*}} dynamic_shared_memory_size %[[SMEM]]
// HOST-LABEL: llvm.func internal @__kiln_func_f32(
// HOST: %[[SMEM:.*]] = llvm.mlir.constant(32768 : i32) : i32
// HOST: gpu.launch_func {{.*}}@__kiln_func_f32_kernel::@__kiln_func_f32_kernel {{.*}} dynamic_shared_memory_size %[[SMEM]]
// F16-NOT: .global .align
// F16-NOT: {{^[[:space:]]*}}.shared
// F16: .extern .shared .align 16 .b8 __dynamic_shmem__0[];
// F16-NOT: {{^[[:space:]]*}}.shared
// F16-NOT: .global .align
// F16-NOT: ld.shared.b16
// F16-DAG: bar.sync
// F16-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// F16-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// F16-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// F16-DAG: shfl.sync.bfly
// F16-DAG: ld.global.v4.b32
// F16-DAG: st.shared.v4.b32
// F16-DAG: ex2.approx
// F16-NOT: .global .align
// F16-NOT: ld.shared.b16
func.func @f16(%q: tensor<1x2x200x64xf16>, %k: tensor<1x2x200x64xf16>, %v: tensor<1x2x200x32xf16>) -> tensor<1x2x200x32xf16> {
  %o = kiln.attention %q, %k, %v {causal} : tensor<1x2x200x64xf16>, tensor<1x2x200x64xf16>, tensor<1x2x200x32xf16> -> tensor<1x2x200x32xf16>
  return %o : tensor<1x2x200x32xf16>
}

// BF16-NOT: .global .align
// BF16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// BF16-NOT: .global .align
// The pipelined kernel loads the first K/V tile before the loop and the next
// one after staging the current one (16-byte global loads, 8 of K and 8 of
// V per thread and tile at D = 128), stored by 16-byte shared stores between
// the two barriers; the default kernel has no load between them and the mma.
// PIPE: ld.global.v4.b32
// PIPE: bar.sync
// PIPE: st.shared.v4.b32
// PIPE: bar.sync
// PIPE: ld.global.v4.b32
// PIPE: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// BIN-COUNT-3: gpu.binary @{{.*}}_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_{{[89]}}0", features = "+ptx80">, properties = {{.*}}, bin = "\7FELF
func.func @bf16(%q: tensor<1x2x200x128xbf16>, %k: tensor<1x2x200x128xbf16>, %v: tensor<1x2x200x128xbf16>) -> tensor<1x2x200x128xbf16> {
  %o = kiln.attention %q, %k, %v : tensor<1x2x200x128xbf16>, tensor<1x2x200x128xbf16>, tensor<1x2x200x128xbf16> -> tensor<1x2x200x128xbf16>
  return %o : tensor<1x2x200x128xbf16>
}

// The SIMT kernel: K and V tiles of 64 keys x 64 floats in shared memory
// (32768 bytes); the q row, the accumulator and the 64 scores of a tile
// (3 x 256 bytes) in local memory.
// F32-NOT: .global .align
// F32-NOT: mma.sync
// F32: .extern .shared .align 16 .b8 __dynamic_shmem__0[];
// F32: .local .align {{[0-9]+}} .b8 {{.*}}[768];
// F32-NOT: mma.sync
// F32: bar.sync
// F32: st.shared
// F32-NOT: .global .align
// F32-NOT: mma.sync
func.func @f32(%q: tensor<1x2x200x64xf32>, %k: tensor<1x2x200x64xf32>, %v: tensor<1x2x200x64xf32>, %m: tensor<200x200xi1>) -> tensor<1x2x200x64xf32> {
  %o = kiln.attention %q, %k, %v mask(%m : tensor<200x200xi1>) : tensor<1x2x200x64xf32>, tensor<1x2x200x64xf32>, tensor<1x2x200x64xf32> -> tensor<1x2x200x64xf32>
  return %o : tensor<1x2x200x64xf32>
}
