// Public functions named after C library symbols (exp, expf, tanhf, erff,
// malloc, memcpy) run under the JIT and in a kiln-compile'd library. The
// lowered bodies kept the user's names, so LLVM's libm call for an exp (or
// convert-math-to-libm's erff, or the runtime's malloc) bound to the user's
// function: the JIT and the library segfaulted, and @erff failed to lower.
// kiln-prepare-entry-points now renames the bodies (__kiln_func_<name>);
// only the C interfaces keep the names (_mlir_ciface_<name>, kiln_<name>).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../CPU/Inputs/make_npy.py %t/x64.npy '<f8' 4 0,1,-1,2
// RUN: %python %S/../CPU/Inputs/make_npy.py %t/x32.npy '<f4' 4 0,1,-1,2
// RUN: %python %S/../CPU/Inputs/make_npy.py %t/m.npy '<f4' 2,3 1,2,3,4,5,6
// RUN: kiln-run %s --entry exp --input %t/x64.npy | FileCheck %s --check-prefix=EXP
// EXP: [1, 2.71828, 0.367879, 7.38906]
// RUN: kiln-run %s --entry expf --input %t/x32.npy | FileCheck %s --check-prefix=EXPF
// EXPF: [1, 2.71828, 0.367879, 7.38906]
// RUN: kiln-run %s --entry tanhf --input %t/x32.npy | FileCheck %s --check-prefix=TANHF
// TANHF: [0, 0.761594, -0.761594, 0.964028]
// RUN: kiln-run %s --entry erff --input %t/x32.npy | FileCheck %s --check-prefix=ERFF
// ERFF: [0, 0.841345, -0.158655, 1.9545]
// RUN: kiln-run %s --entry malloc --input %t/m.npy | FileCheck %s --check-prefix=MALLOC
// MALLOC: [-1, 0, 1, -1, 0, 1]
// RUN: kiln-run %s --entry memcpy --input %t/m.npy | FileCheck %s --check-prefix=MEMCPY
// MEMCPY: [2, 3, 5, 6]
//
// RUN: kiln-compile %s -o %t/liblibc.so --header %t/libc.h
// RUN: cc %kiln_cflags -std=c99 -Wall -Werror -I%t %S/Inputs/libc_names_main.c -L%t -llibc -Wl,-rpath,%t -lm -o %t/libc_main
// RUN: %t/libc_main | FileCheck %s --check-prefix=AOT
// AOT: exp ok
// AOT-NEXT: expf ok
// AOT-NEXT: tanhf ok
// AOT-NEXT: erff ok
// AOT-NEXT: malloc ok
// AOT-NEXT: memcpy ok
// The same through the GPU pipeline, its kernels emulated on the host (the
// emulator's own expf call bound to @expf: return code 2 and garbage).
// RUN: mkdir -p %t/emu
// RUN: kiln-compile --target=cuda-emulator %s -o %t/emu/liblibc.so --header %t/emu/libc.h
// RUN: cc %kiln_cflags -std=c99 -Wall -Werror -I%t/emu %S/Inputs/libc_names_main.c -L%t/emu -llibc -Wl,-rpath,%t/emu -lm -o %t/libc_emu
// RUN: %t/libc_emu | FileCheck %s --check-prefix=AOT
// The library defines none of those names, not even as local symbols.
// RUN: nm %t/liblibc.so | FileCheck %s --check-prefix=NM
// NM-NOT: {{ [tT] (exp|expf|tanhf|erff|malloc|memcpy)$}}
// NM: T kiln_exp
// Kiln's host allocator (the temporary of @malloc) is in the library but not
// exported: two libraries in one process keep their own.
// RUN: nm %t/liblibc.so | FileCheck %s --check-prefix=ALLOC
// ALLOC: t _mlir_memref_to_llvm_alloc
// RUN: nm -D --defined-only %t/liblibc.so | FileCheck %s --check-prefix=DYN
// DYN-NOT: _mlir_memref_to_llvm
// DYN: T kiln_exp
// DYN-NOT: _mlir_memref_to_llvm

func.func @exp(%x: tensor<4xf64>) -> tensor<4xf64> {
  %0 = kiln.exp %x : tensor<4xf64>
  return %0 : tensor<4xf64>
}

func.func @expf(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @tanhf(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.tanh %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// The exact GELU calls erff (convert-math-to-libm).
func.func @erff(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.gelu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// x - mean(x) over rows: the row means are a temporary buffer (malloc).
func.func @malloc(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %m = kiln.mean %x {axes = array<i64: 1>, keep_dims = true} : tensor<2x3xf32> -> tensor<2x1xf32>
  %0 = kiln.sub %x, %m : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// A strided slice returned as is: a memrefCopy, whose C version (in the
// library's wrapper) copies with memcpy.
func.func @memcpy(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %0 = kiln.slice %x {starts = array<i64: 0, 1>, stops = array<i64: 2, 3>, strides = array<i64: 1, 1>} : tensor<2x3xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
