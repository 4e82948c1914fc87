// Kiln's CUDA runtime links into a shared library of GPU code that needs
// only libc at link time and opens the CUDA driver when first called:
// Inputs/runtime_smoke.mlir (upstream dialects) lowered by mlir-opt's NVVM
// pipeline, with its C entry point, against libKilnCudaRuntime.a. The
// `#gpu.select_object` constructor runs at load without touching the driver;
// the call then reports the missing driver.
//
// REQUIRES: kiln-cuda-runtime, ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: mlir-opt %S/Inputs/runtime_smoke.mlir --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=bin" -o %t/smoke.mlir
// RUN: mlir-translate --mlir-to-llvmir %t/smoke.mlir -o %t/smoke.ll
// RUN: llc -O2 -relocation-model=pic -filetype=obj %t/smoke.ll -o %t/smoke.o
// RUN: cc %kiln_cflags -shared -fPIC -o %t/libsmoke.so %t/smoke.o %S/Inputs/runtime_smoke_entry.c %kiln_cuda_runtime -Wl,--no-undefined -ldl -lpthread
//
// A sanitized build links the sanitizers' runtimes, which bring libstdc++:
// the dependency check is for the normal build.
// RUN: %if !sanitized %{ ldd %t/libsmoke.so | FileCheck %s --check-prefix=LDD --implicit-check-not=libcuda --implicit-check-not=libstdc++ --implicit-check-not=libLLVM --implicit-check-not=libMLIR %}
// LDD: libc.so
//
// The runtime's symbols stay inside the library.
// RUN: nm -D --defined-only %t/libsmoke.so | FileCheck %s --check-prefix=SYMS --implicit-check-not=mgpu --implicit-check-not=kilnCuda
// SYMS-DAG: T kiln_smoke
// SYMS-DAG: T kiln_last_error
//
// RUN: env KILN_CUDA_DRIVER=%t/missing/libcuda.so.1 %python %S/Inputs/call_without_driver.py %t/libsmoke.so smoke | FileCheck %s
// CHECK: smoke f32[4096]->f32[4096]: rc 2: cannot load the CUDA driver {{.*}}missing/libcuda.so.1 ({{.*}}): is an NVIDIA driver installed?
// CHECK-NEXT: smoke NULL: rc 1: kiln_smoke: a pointer is NULL
