// RUN: kiln-opt %s --kiln-lower-to-nvvm="format=isa" | FileCheck %s
// RUN: kiln-opt %s --kiln-lower-to-nvvm="format=isa" | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=HOST
// RUN: kiln-opt %s --kiln-lower-to-nvvm="format=isa chip=sm_80 features=+ptx70 opt-level=2" | FileCheck %s --check-prefix=SM80

// One function per op family. Each linalg op becomes a kernel in its own
// gpu.module, whose PTX lands in a gpu.binary; the host code launches them
// on one stream through the mgpu* runtime and waits before returning.
// Public functions keep the CPU's C interface.

// CHECK-NOT: gpu.module
// CHECK-NOT: memref.alloc
// SM80: #nvvm.target<chip = "sm_80", features = "+ptx70">
// SM80-SAME: .target sm_80

// HOST-LABEL: define internal void @__kiln_func_add_exp(
// HOST: call ptr @mgpuStreamCreate()
// HOST: call void @mgpuLaunchKernel(
// HOST: call void @mgpuStreamSynchronize(
// HOST: call void @mgpuStreamDestroy(
// HOST-LABEL: define void @_mlir_ciface_add_exp(ptr %0, ptr %1, ptr %2)

// Elementwise with broadcasting and a libdevice call (exp).
// The kernel's parameters are the function's buffers only: constants and
// index computations are sunk into the launch before outlining, so that
// NVPTX sees them as constants rather than kernel parameters.
// CHECK-LABEL: llvm.func internal @__kiln_func_add_exp(
// CHECK-SAME: attributes {always_inline, llvm.emit_c_interface}
// CHECK: gpu.launch_func <%{{.*}} : !llvm.ptr> @__kiln_func_add_exp_kernel::@__kiln_func_add_exp_kernel
// CHECK-SAME: args({{(%arg[0-9]+ : (!llvm.ptr|i64)(, )?)+}}){{$}}
// CHECK-LABEL: llvm.func @_mlir_ciface_add_exp(
// CHECK: gpu.binary @__kiln_func_add_exp_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">
// CHECK-SAME: .target sm_90
// CHECK-SAME: .visible .entry __kiln_func_add_exp_kernel(
// CHECK-SAME: ld.global
// CHECK-SAME: st.global
func.func @add_exp(%x: tensor<64x130xf32>, %b: tensor<130xf32>) -> tensor<64x130xf32> {
  %0 = kiln.add %x, %b : (tensor<64x130xf32>, tensor<130xf32>) -> tensor<64x130xf32>
  %1 = kiln.exp %0 : tensor<64x130xf32>
  return %1 : tensor<64x130xf32>
}

// A reduction: one thread per output, the reduced dim in a loop; and a
// full reduction (no parallel dim), which runs as a one-thread kernel.
// CHECK-LABEL: llvm.func internal @__kiln_func_sums(
// CHECK: gpu.launch_func
// CHECK-SAME: blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}})
// HOST-LABEL: define internal void @__kiln_func_sums(
// HOST: call void @mgpuLaunchKernel(ptr %{{.*}}, i64 1, i64 1, i64 1, i64 8, i64 1, i64 1,
// HOST: call void @mgpuLaunchKernel(ptr %{{.*}}, i64 1, i64 1, i64 1, i64 1, i64 1, i64 1,
func.func @sums(%x: tensor<8x300xf32>) -> (tensor<8xf32>, tensor<f32>) {
  %0 = kiln.sum %x {axes = array<i64: 1>} : tensor<8x300xf32> -> tensor<8xf32>
  %1 = kiln.sum %0 {axes = array<i64: 0>} : tensor<8xf32> -> tensor<f32>
  return %0, %1 : tensor<8xf32>, tensor<f32>
}

// Contraction, normalization, convolution, attention (the generic path)
// and dropout (a seed read on the device) in bf16/f16/f32.
// HOST-LABEL: define internal void @__kiln_func_matmul(
// HOST: call ptr @mgpuMemAlloc(
// HOST: call void @mgpuLaunchKernel(
// HOST: call void @mgpuMemFree(
func.func @matmul(%a: tensor<4x2x3xbf16>, %b: tensor<3x5xbf16>) -> tensor<4x2x5xbf16> {
  %0 = kiln.matmul %a, %b : (tensor<4x2x3xbf16>, tensor<3x5xbf16>) -> tensor<4x2x5xbf16>
  return %0 : tensor<4x2x5xbf16>
}

// CHECK-LABEL: llvm.func internal @__kiln_func_softmax_norm(
// CHECK: gpu.launch_func
func.func @softmax_norm(%x: tensor<2x8xf16>, %w: tensor<8xf16>, %b: tensor<8xf16>) -> tensor<2x8xf16> {
  %0 = kiln.softmax %x {axis = 1 : i64} : tensor<2x8xf16>
  %1 = kiln.layer_norm %0 weight(%w : tensor<8xf16>) bias(%b : tensor<8xf16>)
      {epsilon = 1.000000e-05 : f64, normalized_rank = 1 : i64} : tensor<2x8xf16>
  return %1 : tensor<2x8xf16>
}

// CHECK-LABEL: llvm.func internal @__kiln_func_conv(
// CHECK: gpu.launch_func
func.func @conv(%x: tensor<1x4x6x6xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x6x6xf32> {
  %0 = kiln.conv2d %x, %w bias(%b) {padding = array<i64: 1, 1>, groups = 2 : i64}
      : (tensor<1x4x6x6xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// CHECK-LABEL: llvm.func internal @__kiln_func_attention(
// CHECK: gpu.launch_func
func.func @attention(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x8xf32>, %seed: tensor<i64>) -> tensor<2x4x3x8xf32> {
  %0 = kiln.attention %q, %k, %v seed(%seed : tensor<i64>) {causal, dropout_p = 0.1 : f64}
      : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32> -> tensor<2x4x3x8xf32>
  return %0 : tensor<2x4x3x8xf32>
}

// CHECK-LABEL: llvm.func internal @__kiln_func_dropout(
// CHECK: gpu.launch_func
func.func @dropout(%x: tensor<4x8xf32>, %seed: tensor<i64>) -> tensor<4x8xf32> {
  %0 = kiln.dropout %x, %seed {p = 1.000000e-01 : f64} : tensor<4x8xf32>, tensor<i64>
  return %0 : tensor<4x8xf32>
}
