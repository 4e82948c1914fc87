// REQUIRES: ptxas
// The backward kernels through one-shot bufferization and upstream's
// gpu-lower-to-nvvm-pipeline: PTX text, then cubins from ptxas for sm_90 and
// sm_80 (the serializer runs the toolkit's ptxas and fails if it rejects).
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

// Four kernels for @gqa (zero, preprocess, main, cast) and six for
// @additive (the d_mask accumulator is zeroed and cast too). The main kernel
// keeps its tiles in dynamic shared memory (upstream's 16-byte aligned
// global) and its rows in private memory, synchronizes with bar.sync and
// adds into dQ (and d_mask) with f32 atomics; bf16 is converted in
// registers. libdevice is linked: no call into it is left unresolved.
// CHECK-NOT: __nv_
// CHECK: gpu.binary @gqa_kernel_1
// CHECK-SAME: .shared .align 16 .b8 __dynamic_shmem__0;
// CHECK-SAME: .local
// CHECK-SAME: bar.sync
// CHECK-SAME: bar.sync
// CHECK-SAME: bar.sync
// CHECK-SAME: atom.global.add.f32
// CHECK: gpu.binary @additive_kernel_5
// CHECK-SAME: cvt.f32.bf16
// CHECK-SAME: atom.global.add.f32
// CHECK-SAME: atom.global.add.f32
// CHECK-SAME: cvt.rn.bf16.f32
// CHECK-NOT: __nv_
// BIN-COUNT-10: gpu.binary @{{.*}}kernel{{.*}} [#gpu.object<#nvvm.target<chip = "sm_{{[89]}}0"{{.*}}bin = "
func.func @gqa(%q: tensor<2x4x48x8xf16>, %k: tensor<2x2x80x8xf16>, %v: tensor<2x2x80x16xf16>, %do: tensor<2x4x48x16xf16>, %kl: tensor<2xi32>, %s: tensor<i64>)
    -> (tensor<2x4x48x8xf16>, tensor<2x2x80x8xf16>, tensor<2x2x80x16xf16>) {
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do key_lengths(%kl : tensor<2xi32>) seed(%s : tensor<i64>) {causal, dropout_p = 0.1 : f64}
      : tensor<2x4x48x8xf16>, tensor<2x2x80x8xf16>, tensor<2x2x80x16xf16>, tensor<2x4x48x16xf16>
      -> tensor<2x4x48x8xf16>, tensor<2x2x80x8xf16>, tensor<2x2x80x16xf16>
  return %dq, %dk, %dv : tensor<2x4x48x8xf16>, tensor<2x2x80x8xf16>, tensor<2x2x80x16xf16>
}

func.func @additive(%q: tensor<1x2x20x8xbf16>, %k: tensor<1x2x30x8xbf16>, %v: tensor<1x2x30x8xbf16>, %do: tensor<1x2x20x8xbf16>, %m: tensor<1x2x20x30xbf16>)
    -> (tensor<1x2x20x8xbf16>, tensor<1x2x30x8xbf16>, tensor<1x2x30x8xbf16>, tensor<1x2x20x30xbf16>) {
  %dq, %dk, %dv, %dm = kiln.attention_grad %q, %k, %v, %do mask(%m : tensor<1x2x20x30xbf16>) {softcap = 3.0 : f64}
      : tensor<1x2x20x8xbf16>, tensor<1x2x30x8xbf16>, tensor<1x2x30x8xbf16>, tensor<1x2x20x8xbf16>
      -> tensor<1x2x20x8xbf16>, tensor<1x2x30x8xbf16>, tensor<1x2x30x8xbf16>, tensor<1x2x20x30xbf16>
  return %dq, %dk, %dv, %dm : tensor<1x2x20x8xbf16>, tensor<1x2x30x8xbf16>, tensor<1x2x30x8xbf16>, tensor<1x2x20x30xbf16>
}
