// Two kiln-compile libraries in one C program (Inputs/two_libraries_main.c):
// each defines kiln_last_error, and the program's calls resolve to the first
// library's, so the message of liba's kiln_fb was lost ("" after rc 1).
// kiln_<name>_last_error() reads the slot of the library that defines
// kiln_<name>: each library's error is readable, whatever the link order.
//
// RUN: rm -rf %t && split-file %s %t && mkdir %t/emu
// RUN: kiln-compile %t/a.mlir -o %t/liba.so --header %t/a.h
// RUN: kiln-compile %t/b.mlir -o %t/libb.so --header %t/b.h
// RUN: cc %kiln_cflags -std=c99 -Wall -Werror -I%t %S/Inputs/two_libraries_main.c -L%t -la -lb -Wl,-rpath,%t -o %t/ab
// RUN: %t/ab | FileCheck %s
// CHECK: fb: 1, fb's "kiln_fb: outputs[0] is NULL", fa's "", shared ""
// CHECK-NEXT: fa: 1, fa's "kiln_fa: inputs is NULL", fb's "kiln_fb: outputs[0] is NULL"
// CHECK-NEXT: fa: 0, fa's "", fb's "kiln_fb: outputs[0] is NULL", [2, 4]
// RUN: nm -D --defined-only %t/libb.so | FileCheck %s --check-prefix=SYMS
// SYMS-DAG: T kiln_fb_last_error
// SYMS-DAG: T kiln_last_error
// RUN: FileCheck %s --check-prefix=HEADER < %t/b.h
// HEADER: const char *kiln_last_error(void);
// HEADER: const char *kiln_fb_last_error(void);
//
// The GPU targets' libraries have the same C ABI: the emulated one here
// (host pointers, no GPU needed).
// RUN: kiln-compile --target=cuda-emulator %t/a.mlir -o %t/emu/liba.so --header %t/emu/a.h
// RUN: kiln-compile --target=cuda-emulator %t/b.mlir -o %t/emu/libb.so --header %t/emu/b.h
// RUN: cc %kiln_cflags -std=c99 -Wall -Werror -I%t/emu %S/Inputs/two_libraries_main.c -L%t/emu -la -lb -Wl,-rpath,%t/emu -o %t/emu/ab
// RUN: %t/emu/ab | FileCheck %s

//--- a.mlir
func.func @fa(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = kiln.add %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

//--- b.mlir
func.func @fb(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = kiln.neg %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
