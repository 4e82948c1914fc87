// The C entry points of a --target=cuda library, run here without a GPU:
// --gpu-pipeline swaps kiln-lower-to-nvvm for kiln-lower-to-cpu, so the
// library computes on host memory while its wrappers are the GPU ones
// (the runtime's error slot cleared per call, return code 0 with
// kiln_last_error() == "" after a success, 1 and a message for NULL).
//
// REQUIRES: kiln-cuda-runtime
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-compile --target=cuda --gpu-pipeline=kiln-lower-to-cpu %s -o %t/libwrap.so
// RUN: %python %S/Inputs/call_host.py %t/libwrap.so | FileCheck %s
// CHECK: rc 0, error '', result [11.5, 22.5, 33.5]
// CHECK-NEXT: rc 1, error 'kiln_add_bias: inputs[1] is NULL'
// CHECK-NEXT: rc 0, error '', result [11.5, 22.5, 33.5]
// RUN: nm -D --defined-only %t/libwrap.so | FileCheck %s --check-prefix=SYMS --implicit-check-not=mgpu --implicit-check-not=kilnCuda
// SYMS-DAG: T kiln_add_bias
// SYMS-DAG: T kiln_last_error

func.func @add_bias(%x: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %half = kiln.constant dense<0.5> : tensor<f32>
  %0 = kiln.add %x, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = kiln.add %0, %half : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
}
