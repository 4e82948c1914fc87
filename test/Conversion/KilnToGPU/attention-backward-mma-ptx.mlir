// REQUIRES: ptxas
// The tensor-core main kernel of the backward through kiln-lower-to-nvvm:
// PTX text, then cubins from ptxas for sm_90 and sm_80 (the serializer runs
// the toolkit's ptxas and fails if it rejects the PTX). Then the same
// kernel through upstream's gpu-lower-to-nvvm-pipeline: ldmatrix needs
// 16-byte aligned row addresses, which the tiles get there too (views of
// the dynamic shared memory, whose global upstream aligns to 16 bytes).
// RUN: kiln-opt %s --kiln-lower-to-nvvm="format=isa" > %t.sm90.mlir
// RUN: FileCheck %s < %t.sm90.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.sm90.mlir
// RUN: %python %S/Inputs/extract-ptx.py __kiln_func_d64_kernel_1 < %t.sm90.mlir \
// RUN:   | FileCheck %s --check-prefix=D64 --implicit-check-not=ld.shared.b16 --implicit-check-not=.local
// RUN: %python %S/Inputs/extract-ptx.py __kiln_func_d128_kernel_5 < %t.sm90.mlir \
// RUN:   | FileCheck %s --check-prefix=D128 --implicit-check-not=ld.shared.b16 --implicit-check-not=.local
// RUN: kiln-opt %s --convert-kiln-attention-to-gpu \
// RUN:   | mlir-opt --one-shot-bufferize="bufferize-function-boundaries" \
// RUN:       --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=isa" \
// RUN:   | %python %S/Inputs/extract-ptx.py d64_kernel_1 \
// RUN:   | FileCheck %s --check-prefix=UPSTREAM
// RUN: kiln-opt %s --kiln-lower-to-nvvm | FileCheck %s --check-prefix=BIN90
// RUN: kiln-opt %s --kiln-lower-to-nvvm="chip=sm_80 features=+ptx80" | FileCheck %s --check-prefix=BIN80

// The main kernels come after the zero and preprocess launches (@d128
// zeroes the d_mask accumulator too); no libdevice call anywhere.
// CHECK-NOT: __nv_
// CHECK: gpu.binary @__kiln_func_d64_kernel_1
// CHECK: gpu.binary @__kiln_func_d64_kernel_2
// CHECK: gpu.binary @__kiln_func_d128_kernel_5
// CHECK-NOT: __nv_

// Tiles of K, Q, dO, dS (f16/bf16, rows padded by 8 halves: 144 or 272
// bytes, multiples of 16), LSE, D and LSE's correction c in the dynamic
// shared memory, each at a 16-byte aligned offset: D = 64 K, Q, dO, dS
// 64 x 72 halves (9216 bytes each) + 3 x 256 = 37632 bytes; D = 128 (32
// query rows) K 64 x 136, Q and dO 32 x 136, dS 32 x 72 halves + 3 x 128 =
// 39808 bytes. Every
// fragment of a tile is an ldmatrix.x4 (.trans for the B operands of dK,
// dV and dQ, which pair two rows of a column): no 16-bit shared load is
// left. m16n8k16 mma with f32 accumulators; f32 atomics into dQ (and
// d_mask); no private (.local) memory. K, Q and dO are staged 16 bytes per
// global load and shared store.
// HOST-LABEL: llvm.func internal @__kiln_func_d64(
// HOST: %[[SMEM:.*]] = llvm.mlir.constant(37632 : i32) : i32
// HOST: gpu.launch_func {{.*}}@__kiln_func_d64_kernel_1::@__kiln_func_d64_kernel {{.*}} dynamic_shared_memory_size %[[SMEM]]
// HOST-LABEL: llvm.func internal @__kiln_func_d128(
// HOST: %[[SMEM:.*]] = llvm.mlir.constant(39808 : i32) : i32
// HOST: gpu.launch_func {{.*}}@__kiln_func_d128_kernel_5::@__kiln_func_d128_kernel {{.*}} dynamic_shared_memory_size %[[SMEM]]
// D64-NOT: {{^[[:space:]]*}}.shared
// D64: .extern .shared .align 16 .b8 __dynamic_shmem__0[];
// D64-NOT: {{^[[:space:]]*}}.shared
// D64: ld.global.v4.b32
// D64: st.shared.v4.b32
// D64: bar.sync
// D64: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// D64: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// D64: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// D64: atom.global.add.f32
// D128-NOT: {{^[[:space:]]*}}.shared
// D128: .extern .shared .align 16 .b8 __dynamic_shmem__0[];
// D128-NOT: {{^[[:space:]]*}}.shared
// D128: bar.sync
// d_mask's atomics and dS rounded to bf16 in the step loop, dQ's after it.
// D128: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// D128: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// D128: atom.global.add.f32
// D128: cvt.rn.bf16.f32
// D128: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// D128: atom.global.add.f32

// Upstream's pipeline keeps the dynamic shared memory global internal (a
// one-byte static variable that the kernel reads past; Kiln's
// kiln-gpu-extern-dynamic-shared-memory makes it CUDA's extern array) but
// aligned to 16 bytes, so the tiles and ldmatrix's rows are aligned.
// UPSTREAM: .shared .align 16 .b8 __dynamic_shmem__0;
// UPSTREAM: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// UPSTREAM: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

// BIN90-COUNT-10: gpu.binary @{{.*}}kernel{{.*}} [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{.*}}, bin = "\7FELF
// BIN80-COUNT-10: gpu.binary @{{.*}}kernel{{.*}} [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">, properties = {{.*}}, bin = "\7FELF
func.func @d64(%q: tensor<1x2x256x64xf16>, %k: tensor<1x2x256x64xf16>, %v: tensor<1x2x256x64xf16>, %do: tensor<1x2x256x64xf16>)
    -> (tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16>) {
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do {causal}
      : tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16>
      -> tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16>
  return %dq, %dk, %dv : tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16>
}

func.func @d128(%q: tensor<1x4x128x128xbf16>, %k: tensor<1x2x128x128xbf16>, %v: tensor<1x2x128x128xbf16>, %do: tensor<1x4x128x128xbf16>, %m: tensor<1x1x128x128xbf16>)
    -> (tensor<1x4x128x128xbf16>, tensor<1x2x128x128xbf16>, tensor<1x2x128x128xbf16>, tensor<1x1x128x128xbf16>) {
  %dq, %dk, %dv, %dm = kiln.attention_grad %q, %k, %v, %do mask(%m : tensor<1x1x128x128xbf16>)
      : tensor<1x4x128x128xbf16>, tensor<1x2x128x128xbf16>, tensor<1x2x128x128xbf16>, tensor<1x4x128x128xbf16>
      -> tensor<1x4x128x128xbf16>, tensor<1x2x128x128xbf16>, tensor<1x2x128x128xbf16>, tensor<1x1x128x128xbf16>
  return %dq, %dk, %dv, %dm : tensor<1x4x128x128xbf16>, tensor<1x2x128x128xbf16>, tensor<1x2x128x128xbf16>, tensor<1x1x128x128xbf16>
}
