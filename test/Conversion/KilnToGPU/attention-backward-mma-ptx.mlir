// REQUIRES: ptxas
// The tensor-core main kernel of the backward through kiln-lower-to-nvvm:
// PTX text, then cubins from ptxas for sm_90 and sm_80 (the serializer runs
// the toolkit's ptxas and fails if it rejects the PTX). Kiln's pipeline, not
// upstream's gpu-lower-to-nvvm-pipeline: ldmatrix needs 16-byte aligned row
// addresses, and only kiln-gpu-align-workgroup-buffers (after outlining)
// gives the workgroup tiles that alignment; upstream's pipeline has no place
// for it and would leave the tiles 2-byte aligned.
// RUN: kiln-opt %s --kiln-lower-to-nvvm="format=isa" > %t.sm90.mlir
// RUN: FileCheck %s < %t.sm90.mlir
// RUN: %python %S/Inputs/extract-ptx.py d64_kernel_1 < %t.sm90.mlir \
// RUN:   | FileCheck %s --check-prefix=D64 --implicit-check-not=ld.shared.b16 --implicit-check-not=.local
// RUN: %python %S/Inputs/extract-ptx.py d128_kernel_5 < %t.sm90.mlir \
// RUN:   | FileCheck %s --check-prefix=D128 --implicit-check-not=ld.shared.b16 --implicit-check-not=.local
// RUN: kiln-opt %s --kiln-lower-to-nvvm | FileCheck %s --check-prefix=BIN90
// RUN: kiln-opt %s --kiln-lower-to-nvvm="chip=sm_80 features=+ptx80" | FileCheck %s --check-prefix=BIN80

// The main kernels come after the zero and preprocess launches (@d128
// zeroes the d_mask accumulator too); no libdevice call anywhere.
// CHECK-NOT: __nv_
// CHECK: gpu.binary @d64_kernel_1
// CHECK: gpu.binary @d64_kernel_2
// CHECK: gpu.binary @d128_kernel_5
// CHECK-NOT: __nv_

// Workgroup tiles of K, Q, dO, dS (f16/bf16, rows padded by 8 halves: 144
// or 272 bytes, multiples of 16), LSE and D, all 16-byte aligned; every
// fragment of a tile is an ldmatrix.x4 (.trans for the B operands of dK,
// dV and dQ, which pair two rows of a column): no 16-bit shared load is
// left. m16n8k16 mma with f32 accumulators; f32 atomics into dQ (and
// d_mask); no private (.local) memory.
// D64: .shared .align 16 .b8 __wg_d64_kernel_0[9216];
// D64: .shared .align 16 .b8 __wg_d64_kernel_1[9216];
// D64: .shared .align 16 .b8 __wg_d64_kernel_2[9216];
// D64: .shared .align 16 .b8 __wg_d64_kernel_3[9216];
// D64: .shared .align 16 .b8 __wg_d64_kernel_4[256];
// D64: bar.sync
// D64: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// D64: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// D64: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// D64: atom.global.add.f32
// D128: .shared .align 16 .b8 __wg_d128_kernel_0[17408];
// D128: .shared .align 16 .b8 __wg_d128_kernel_1[8704];
// D128: .shared .align 16 .b8 __wg_d128_kernel_2[8704];
// D128: .shared .align 16 .b8 __wg_d128_kernel_3[4608];
// D128: bar.sync
// d_mask's atomics and dS rounded to bf16 in the step loop, dQ's after it.
// D128: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// D128: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// D128: atom.global.add.f32
// D128: cvt.rn.bf16.f32
// D128: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// D128: atom.global.add.f32

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
