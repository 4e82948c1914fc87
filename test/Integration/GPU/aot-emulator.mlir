// kiln-compile --target=cuda-emulator: the GPU pipeline's kernels compiled
// for the host and linked with Kiln's GPU emulator, with the C ABI of
// --target=cuda on host pointers. No CUDA toolkit, driver or GPU is needed:
// the test runs with every CUDA location variable pointing nowhere and needs
// neither the kiln-cuda-runtime nor the ptxas feature.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: env CUDA_ROOT=%t/none CUDA_HOME=%t/none CUDA_PATH=%t/none kiln-compile --target=cuda-emulator %s -o %t/libemu.so --header %t/emu.h
// RUN: kiln-compile --target=cpu %s -o %t/libcpu.so
// RUN: %python %S/Inputs/compare_emulator.py %t/libcpu.so %t/libemu.so attention_f32:100 attention_bf16:100 attention_bf16:100:misaligned attention_bf16:100:same attention_grad_bf16:100:same matmul:100 | FileCheck %s
// CHECK: attention_f32: PASS
// CHECK: attention_bf16: PASS
// The tensor-core kernels' element-by-element staging, for buffers that do
// not start 16-byte aligned (a 16-byte load from them would be reported as a
// misaligned address): the forward against the CPU, then the forward and
// the backward (whose K, Q and dO staging has the same two paths) with each
// input misaligned in turn against their own results on aligned buffers,
// bit for bit (3 x 2240 and 4 x 5440 elements compared).
// CHECK: attention_bf16 (misaligned): PASS
// CHECK: attention_bf16 (misaligned vs aligned): PASS, 0 of 6720 elements differ
// CHECK: attention_grad_bf16 (misaligned vs aligned): PASS, 0 of 21760 elements differ
// CHECK: matmul: PASS
//
// Only libc, libm and pthreads at load time; only the kiln_* functions
// exported (the emulator's symbols are hidden).
// A sanitized build links the sanitizers' runtimes, which bring libstdc++:
// the dependency check is for the normal build.
// RUN: %if !sanitized %{ ldd %t/libemu.so | FileCheck %s --check-prefix=LDD %}
// LDD-NOT: libcuda
// LDD-NOT: libstdc++
// LDD-NOT: libLLVM
// LDD-NOT: libMLIR
// LDD-NOT: libkiln_gpu_emulator
// RUN: nm -D --defined-only %t/libemu.so | FileCheck %s --check-prefix=SYMS --implicit-check-not=mgpu --implicit-check-not=__kiln_emu --implicit-check-not=__nv_
// SYMS-DAG: T kiln_attention_f32
// SYMS-DAG: T kiln_last_error
// RUN: FileCheck %s --check-prefix=HEADER < %t/emu.h
// HEADER: in host memory
// HEADER: const char *kiln_last_error(void);

func.func @attention_f32(%q: tensor<1x2x70x16xf32>, %k: tensor<1x1x100x16xf32>, %v: tensor<1x1x100x16xf32>) -> tensor<1x2x70x16xf32> {
  %o = kiln.attention %q, %k, %v {causal} : tensor<1x2x70x16xf32>, tensor<1x1x100x16xf32>, tensor<1x1x100x16xf32> -> tensor<1x2x70x16xf32>
  return %o : tensor<1x2x70x16xf32>
}

// The tensor-core kernel.
func.func @attention_bf16(%q: tensor<1x2x70x16xbf16>, %k: tensor<1x2x100x16xbf16>, %v: tensor<1x2x100x16xbf16>) -> tensor<1x2x70x16xbf16> {
  %o = kiln.attention %q, %k, %v : tensor<1x2x70x16xbf16>, tensor<1x2x100x16xbf16>, tensor<1x2x100x16xbf16> -> tensor<1x2x70x16xbf16>
  return %o : tensor<1x2x70x16xbf16>
}

// The tensor-core backward (causal, 2 query heads over 1 kv head).
func.func @attention_grad_bf16(%q: tensor<1x2x70x16xbf16>, %k: tensor<1x1x100x16xbf16>, %v: tensor<1x1x100x16xbf16>, %do: tensor<1x2x70x16xbf16>) -> (tensor<1x2x70x16xbf16>, tensor<1x1x100x16xbf16>, tensor<1x1x100x16xbf16>) {
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do {causal}
      : tensor<1x2x70x16xbf16>, tensor<1x1x100x16xbf16>, tensor<1x1x100x16xbf16>, tensor<1x2x70x16xbf16>
      -> tensor<1x2x70x16xbf16>, tensor<1x1x100x16xbf16>, tensor<1x1x100x16xbf16>
  return %dq, %dk, %dv : tensor<1x2x70x16xbf16>, tensor<1x1x100x16xbf16>, tensor<1x1x100x16xbf16>
}

func.func @matmul(%a: tensor<9x100xf32>, %b: tensor<100x7xf32>) -> tensor<9x7xf32> {
  %0 = kiln.matmul %a, %b : (tensor<9x100xf32>, tensor<100x7xf32>) -> tensor<9x7xf32>
  return %0 : tensor<9x7xf32>
}
