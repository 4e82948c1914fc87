// kiln-compile builds a shared library with a plain C ABI and a header; a C
// program (Inputs/add_main.c) built with cc against them checks kiln.add with
// broadcasting against plain C loops. The library depends on libc/libm only,
// never on LLVM or MLIR.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-compile %s -o %t/libkadd.so --header %t/kadd.h
// RUN: cc %kiln_cflags -std=c99 -Wall -Werror -I%t %S/Inputs/add_main.c -L%t -lkadd -Wl,-rpath,%t -o %t/add_main
// RUN: %t/add_main | FileCheck %s
// CHECK: add_bias: f32[4,5],f32[5]->f32[4,5]
// CHECK-NEXT: add_bias ok: 20 values, [0] = 100.5, [19] = 122.75
// CHECK-NEXT: outer_sum ok: [11, 21, 31, 41, 12, 22, 32, 42, 13, 23, 33, 43]
// CHECK-NEXT: flags ok: [0, 1, 1, 1] [0, 1, 1, 1] 2.5
// CHECK-NEXT: empty ok: 0.75
// CHECK-NEXT: window ok: [7, 9, 11, 19, 21, 23]
// CHECK-NEXT: halves ok: f16 [0x3e00, 0xc100, 0x4600] bf16 [0x3f80, 0x3f82, 0x4040]
// CHECK-NEXT: null pointers rejected
// CHECK-NEXT: all ok
//
// RUN: ldd %t/libkadd.so | FileCheck %s --check-prefix=LDD --implicit-check-not=libMLIR --implicit-check-not=libLLVM --implicit-check-not=mlir_c_runner --implicit-check-not=libomp
// LDD: libc.so
//
// Only the C entry points are exported.
// RUN: nm -D --defined-only %t/libkadd.so | FileCheck %s --check-prefix=SYMS --implicit-check-not=mlir --implicit-check-not=memrefCopy
// SYMS-DAG: T kiln_add_bias
// SYMS-DAG: T kiln_add_bias_signature
// SYMS-DAG: T kiln_outer_sum
// SYMS-DAG: T kiln_flags
// SYMS-DAG: T kiln_empty
// SYMS-DAG: T kiln_window
// SYMS-DAG: T kiln_halves
//
// Built for the generic x86-64 CPU (the default), an f32 -> bf16 rounding is
// a call to __truncsfbf2, which kiln-compile defines in the library.
// RUN: nm %t/libkadd.so | FileCheck %s --check-prefix=BF16
// BF16: t __truncsfbf2
//
// The same library from Python, through ctypes (standard library only).
// RUN: %python %S/Inputs/add_ctypes.py %t/libkadd.so | FileCheck %s --check-prefix=PY
// PY: ctypes add_bias: [1.5, 8.5, 15.5, 22.5, 24.5, 6.5]
// PY-NEXT: ctypes outer_sum: [11, 21, 31, 41, 12, 22, 32, 42, 13, 23, 33, 43]

func.func @add_bias(%x: tensor<4x5xf32>, %b: tensor<5xf32>) -> tensor<4x5xf32> {
  %half = kiln.constant dense<0.5> : tensor<f32>
  %0 = kiln.add %x, %b : (tensor<4x5xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  %1 = kiln.add %0, %half : (tensor<4x5xf32>, tensor<f32>) -> tensor<4x5xf32>
  return %1 : tensor<4x5xf32>
}

func.func @outer_sum(%col: tensor<3x1xi64>, %row: tensor<1x4xi64>) -> tensor<3x4xi64> {
  %0 = kiln.add %col, %row : (tensor<3x1xi64>, tensor<1x4xi64>) -> tensor<3x4xi64>
  return %0 : tensor<3x4xi64>
}

// i1 add is a logical or; one result returned twice (a copy); a rank-0 f64.
func.func @flags(%p: tensor<4xi1>, %q: tensor<4xi1>, %s: tensor<f64>)
    -> (tensor<4xi1>, tensor<4xi1>, tensor<f64>) {
  %one = kiln.constant dense<1.0> : tensor<f64>
  %0 = kiln.add %p, %q : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %1 = kiln.add %s, %one : (tensor<f64>, tensor<f64>) -> tensor<f64>
  return %0, %0, %1 : tensor<4xi1>, tensor<4xi1>, tensor<f64>
}

// A zero-size result next to a rank-0 one.
func.func @empty(%x: tensor<0x3xf32>, %y: tensor<3xf32>, %s: tensor<f32>)
    -> (tensor<0x3xf32>, tensor<f32>) {
  %0 = kiln.add %x, %y : (tensor<0x3xf32>, tensor<3xf32>) -> tensor<0x3xf32>
  %1 = kiln.add %s, %s : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %0, %1 : tensor<0x3xf32>, tensor<f32>
}

// A strided window of an input: the copy into the result goes through
// memrefCopy, which the library defines itself (no MLIR runtime library).
func.func @window(%x: tensor<4x6xi32>) -> tensor<2x3xi32> {
  %0 = tensor.extract_slice %x[1, 1] [2, 3] [2, 2] : tensor<4x6xi32> to tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// f16 and bf16 (their 2-byte encodings), with broadcasting; the bf16 sums
// need rounding (ties to even).
func.func @halves(%a: tensor<3xf16>, %b: tensor<1xf16>, %c: tensor<3xbf16>, %d: tensor<3xbf16>)
    -> (tensor<3xf16>, tensor<3xbf16>) {
  %0 = kiln.add %a, %b : (tensor<3xf16>, tensor<1xf16>) -> tensor<3xf16>
  %1 = kiln.add %c, %d : (tensor<3xbf16>, tensor<3xbf16>) -> tensor<3xbf16>
  return %0, %1 : tensor<3xf16>, tensor<3xbf16>
}
