// kiln-compile --target=cuda: a shared library whose kiln_<name> take device
// pointers, with Kiln's CUDA runtime linked in. It needs only libc at load
// time (the runtime opens libcuda.so.1 at the first call) and exports the C
// entry points and kiln_last_error only. Without a driver a call returns 2
// and kiln_last_error() says why.
//
// REQUIRES: kiln-cuda-runtime, ptxas, kiln-lower-to-nvvm
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-compile --target=cuda %s -o %t/libkgpu.so --header %t/kgpu.h
// A sanitized build links the sanitizers' runtimes, which bring libstdc++:
// the dependency check is for the normal build.
// RUN: %if !sanitized %{ ldd %t/libkgpu.so | FileCheck %s --check-prefix=LDD --implicit-check-not=libcuda --implicit-check-not=libstdc++ --implicit-check-not=libLLVM --implicit-check-not=libMLIR --implicit-check-not=mlir_c_runner %}
// LDD: libc.so
// ... and holds no MLIR or LLVM code either (issue #27).
// RUN: %python %kiln_src_root/scripts/check-one-mlir.py --no-mlir %t/libkgpu.so | FileCheck %s --check-prefix=NOMLIR
// NOMLIR: ok   libkgpu.so: no MLIR or LLVM library loaded or linked in
//
// RUN: nm -D --defined-only %t/libkgpu.so | FileCheck %s --check-prefix=SYMS --implicit-check-not=mgpu --implicit-check-not=kilnCuda --implicit-check-not=ciface
// SYMS-DAG: T kiln_add_bias
// SYMS-DAG: T kiln_add_bias_signature
// SYMS-DAG: T kiln_scale
// SYMS-DAG: T kiln_scale_signature
// SYMS-DAG: T kiln_last_error
//
// The header declares kiln_last_error and describes device pointers.
// RUN: FileCheck %s --check-prefix=HEADER < %t/kgpu.h
// HEADER: in CUDA device memory
// HEADER: const char *kiln_last_error(void);
// HEADER: /* @add_bias: f32[4,5],f32[5]->f32[4,5] */
// HEADER-NEXT: int kiln_add_bias(const void *const *inputs, void *const *outputs);
// HEADER: #define KILN_SCALE_OUTPUT0_NUM_BYTES 24
//
// RUN: env KILN_CUDA_DRIVER=%t/missing/libcuda.so.1 %python %S/Inputs/call_without_driver.py %t/libkgpu.so add_bias scale | FileCheck %s
// CHECK: add_bias f32[4,5],f32[5]->f32[4,5]: rc 2: cannot load the CUDA driver {{.*}}missing/libcuda.so.1
// CHECK-NEXT: add_bias NULL: rc 1: kiln_add_bias: inputs is NULL
// CHECK-NEXT: scale f64[3]->f64[3]: rc 2: cannot load the CUDA driver
// CHECK-NEXT: scale NULL: rc 1: kiln_scale: inputs is NULL
//
// --gpu-chip and --gpu-format=isa embed PTX for that chip, which the driver
// compiles at load.
// RUN: kiln-compile --target=cuda --gpu-chip=sm_80 --gpu-format=isa %s -o %t/libkgpu80.so
// RUN: strings %t/libkgpu80.so | FileCheck %s --check-prefix=PTX
// PTX: .target sm_80

func.func @add_bias(%x: tensor<4x5xf32>, %b: tensor<5xf32>) -> tensor<4x5xf32> {
  %half = kiln.constant dense<0.5> : tensor<f32>
  %0 = kiln.add %x, %b : (tensor<4x5xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  %1 = kiln.add %0, %half : (tensor<4x5xf32>, tensor<f32>) -> tensor<4x5xf32>
  return %1 : tensor<4x5xf32>
}

func.func @scale(%x: tensor<3xf64>) -> tensor<3xf64> {
  %two = kiln.constant dense<2.0> : tensor<f64>
  %0 = kiln.mul %x, %two : (tensor<3xf64>, tensor<f64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}
