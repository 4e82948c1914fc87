// An AOT library whose compiled code cannot allocate a temporary (2^62
// bytes, on any machine) returns 3 and says so in kiln_last_error(); it
// was a NULL block and a segfault. The library stays usable. The header
// documents the code.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-compile %s -o %t/liboom.so --header %t/oom.h
// RUN: cc %kiln_cflags -std=c99 -Wall -Werror -I%t %S/Inputs/out_of_memory_main.c -L%t -loom -Wl,-rpath,%t -o %t/oom
// RUN: %t/oom | FileCheck %s
// CHECK: temporary: 3 "kiln_temporary: out of memory: its compiled code could not allocate a temporary of 4611686018427387968 bytes"
// CHECK-NEXT: temporary: 3 "kiln_temporary: out of memory: its compiled code could not allocate a temporary of 4611686018427387968 bytes"
// CHECK-NEXT: small: 0 "" [1, 3, 6, 10]
// RUN: FileCheck %s --check-prefix=HEADER < %t/oom.h
// HEADER: 3 when a temporary could not be allocated (out
// HEADER-NEXT: of memory; the outputs are then incomplete)

func.func @temporary(%x: tensor<f32>) -> tensor<f32> {
  %b = kiln.broadcast_to %x : tensor<f32> -> tensor<1073741824x1073741824xf32>
  %c = kiln.cumsum %b {axis = 1 : i64} : tensor<1073741824x1073741824xf32>
  %s = kiln.sum %c {axes = array<i64: 0, 1>} : tensor<1073741824x1073741824xf32> -> tensor<f32>
  return %s : tensor<f32>
}

func.func @small(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = kiln.cumsum %x {axis = 0 : i64} : tensor<4xf32>
  return %c : tensor<4xf32>
}
