// The occupancy hints of the tensor-core kernels: forward-min-blocks-per-sm
// on the forward's launch, backward-min-blocks-per-sm on the backward's
// main kernel (the one with the K, Q, dO and dS tiles), as
// kiln.kernel_attributes that kiln-gpu-kernel-outlining moves to the
// outlined kernel; none by default.
//
// RUN: kiln-opt %s --convert-kiln-attention-to-gpu="forward-min-blocks-per-sm=4 backward-min-blocks-per-sm=3" --split-input-file | FileCheck %s
// RUN: kiln-opt %s --convert-kiln-attention-to-gpu --split-input-file | FileCheck %s --check-prefix=NONE
// Through kiln-lower-to-nvvm to PTX's .minnctapersm (the PTX text of
// format=isa, where ptxas reads it).
// RUN: kiln-opt %s --kiln-lower-to-nvvm="format=isa forward-min-blocks-per-sm=4 backward-min-blocks-per-sm=3" --split-input-file | FileCheck %s --check-prefix=PTX
// A multiprocessor holds at most 32 blocks.
// An option error, reported once, without the module.
// RUN: not kiln-opt %s --convert-kiln-attention-to-gpu="forward-min-blocks-per-sm=33" 2>&1 | FileCheck %s --check-prefix=BIG --implicit-check-not=error: --implicit-check-not=module
// RUN: not kiln-opt %s --kiln-lower-to-nvvm="backward-min-blocks-per-sm=1000" 2>&1 | FileCheck %s --check-prefix=BIGB --implicit-check-not=error: --implicit-check-not=module
// BIG: error: convert-kiln-attention-to-gpu: forward-min-blocks-per-sm must be at most 32 (the most blocks a multiprocessor holds), got 33
// BIGB: error: convert-kiln-attention-to-gpu: backward-min-blocks-per-sm must be at most 32 (the most blocks a multiprocessor holds), got 1000
// NONE-NOT: kiln.kernel_attributes

// CHECK-LABEL: func.func @forward
// CHECK: gpu.launch
// CHECK: nvvm.mma.sync
// CHECK: } {kiln.kernel_attributes = {nvvm.minctasm = 4 : i32}}
// PTX: gpu.binary @__kiln_func_forward_kernel [{{.*}}.minnctapersm 4
func.func @forward(%q: tensor<1x2x70x64xf16>, %k: tensor<1x2x80x64xf16>, %v: tensor<1x2x80x64xf16>) -> tensor<1x2x70x64xf16> {
  %o = kiln.attention %q, %k, %v : tensor<1x2x70x64xf16>, tensor<1x2x80x64xf16>, tensor<1x2x80x64xf16> -> tensor<1x2x70x64xf16>
  return %o : tensor<1x2x70x64xf16>
}

// -----

// Four kernels (zero, preprocess, main, cast); the main kernel's alone.
// CHECK-LABEL: func.func @backward
// CHECK-NOT: kiln.kernel_attributes
// CHECK: nvvm.mma.sync
// CHECK: } {kiln.kernel_attributes = {nvvm.minctasm = 3 : i32}}
// CHECK-NOT: kiln.kernel_attributes
// CHECK: return
// PTX: gpu.binary @__kiln_func_backward_kernel [
// PTX-NOT: minnctapersm
// PTX: gpu.binary @__kiln_func_backward_kernel_0 [
// PTX-NOT: minnctapersm
// PTX: gpu.binary @__kiln_func_backward_kernel_1 [{{.*}}.minnctapersm 3
// PTX: gpu.binary @__kiln_func_backward_kernel_2 [
// PTX-NOT: minnctapersm
func.func @backward(%q: tensor<1x2x70x64xf16>, %k: tensor<1x2x80x64xf16>, %v: tensor<1x2x80x64xf16>, %do: tensor<1x2x70x64xf16>) -> (tensor<1x2x70x64xf16>, tensor<1x2x80x64xf16>, tensor<1x2x80x64xf16>) {
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do : tensor<1x2x70x64xf16>, tensor<1x2x80x64xf16>, tensor<1x2x80x64xf16>, tensor<1x2x70x64xf16> -> tensor<1x2x70x64xf16>, tensor<1x2x80x64xf16>, tensor<1x2x80x64xf16>
  return %dq, %dk, %dv : tensor<1x2x70x64xf16>, tensor<1x2x80x64xf16>, tensor<1x2x80x64xf16>
}
