// REQUIRES: ptxas
// The tensor-core main kernel of the backward through one-shot bufferization
// and upstream's gpu-lower-to-nvvm-pipeline: PTX text, then cubins from
// ptxas for sm_90 and sm_80 (the serializer runs the toolkit's ptxas and
// fails if it rejects the PTX).
// RUN: kiln-opt %s --convert-kiln-attention-to-gpu \
// RUN:   | mlir-opt --one-shot-bufferize="bufferize-function-boundaries" \
// RUN:       --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=isa" \
// RUN:   | FileCheck %s
// RUN: kiln-opt %s --convert-kiln-attention-to-gpu \
// RUN:   | mlir-opt --one-shot-bufferize="bufferize-function-boundaries" \
// RUN:       --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=bin" \
// RUN:   | FileCheck %s --check-prefix=BIN
// RUN: kiln-opt %s --convert-kiln-attention-to-gpu \
// RUN:   | mlir-opt --one-shot-bufferize="bufferize-function-boundaries" \
// RUN:       --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_80 cubin-features=+ptx80 cubin-format=bin" \
// RUN:   | FileCheck %s --check-prefix=BIN

// The main kernels (after the zero and preprocess launches; @d128 zeroes
// the d_mask accumulator too): workgroup tiles of K, Q, dO, dS (f16/bf16,
// padded rows), LSE and D; m16n8k16 mma with f32 accumulators; bar.sync;
// f32 atomics into dQ (and d_mask); no private (.local) memory. The kernels
// serialize for sm_90 and sm_80.
// CHECK-NOT: __nv_
// CHECK: gpu.binary @d64_kernel_1
// CHECK-NOT: .local
// CHECK-SAME: .shared .align 2 .b8 __wg_d64_kernel_0[9216]
// CHECK-SAME: .shared .align 2 .b8 __wg_d64_kernel_1[9216]
// CHECK-SAME: .shared .align 2 .b8 __wg_d64_kernel_2[9216]
// CHECK-SAME: .shared .align 2 .b8 __wg_d64_kernel_3[9216]
// CHECK-SAME: .shared .align 4 .b8 __wg_d64_kernel_4[256]
// CHECK-SAME: bar.sync
// CHECK-SAME: ld.shared.b16
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-SAME: atom.global.add.f32
// CHECK: gpu.binary @d64_kernel_2
// CHECK: gpu.binary @d128_kernel_5
// CHECK-SAME: .shared .align 2 .b8 __wg_d128_kernel_0[17408]
// CHECK-SAME: .shared .align 2 .b8 __wg_d128_kernel_1[8704]
// CHECK-SAME: bar.sync
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-SAME: atom.global.add.f32
// CHECK-SAME: atom.global.add.f32
// CHECK-SAME: cvt.rn.bf16.f32
// CHECK-NOT: __nv_
// BIN-COUNT-10: gpu.binary @{{.*}}kernel{{.*}} [#gpu.object<#nvvm.target<chip = "sm_{{[89]}}0"{{.*}}bin = "
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
