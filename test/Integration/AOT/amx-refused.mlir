// Where the process may not use the AMX tiles, nothing runs on them and
// nothing crashes: every entry point of a library compiled for a CPU with
// AMX-BF16 (its other code may use instructions such a CPU has, too)
// returns 4 with a message, each time it is called, and the JIT chooses the vector kernels (the same bits as --amx=false).
// Linux refuses the tile state on a CPU without AMX, and it would raise
// SIGILL at the first tile instruction had nobody asked; Inputs/deny_amx.c
// makes it refuse on any x86-64 host (a seccomp filter on
// arch_prctl(ARCH_REQ_XCOMP_PERM)), so the test does not need AMX.
//
// REQUIRES: host-x86_64, seccomp-filter
// RUN: rm -rf %t && mkdir -p %t
// RUN: cc -std=c99 -Wall -Werror %S/Inputs/deny_amx.c -o %t/deny_amx
// RUN: kiln-compile %s -o %t/librefused.so --header %t/refused.h --mcpu sapphirerapids
// RUN: objdump -d %t/librefused.so | FileCheck %s --check-prefix=CODE
// CODE: tdpbf16ps
// RUN: cc %kiln_cflags -std=c99 -Wall -Werror -I%t %S/Inputs/amx_refused_main.c -L%t -lrefused -Wl,-rpath,%t -o %t/refused
// RUN: %t/deny_amx %t/refused | FileCheck %s
// CHECK: mm: 4 "kiln_mm: this library runs bf16 matmuls on AMX tiles (it was compiled for a CPU with AMX-BF16), and this CPU or its operating system does not let the process use them (rebuild with --amx=false or --mcpu for this CPU)" 0
// CHECK-NEXT: mm: 4 "kiln_mm: this library runs bf16 matmuls on AMX tiles{{.*}}" 0
// CHECK-NEXT: scale: 4 "kiln_scale: this library runs bf16 matmuls on AMX tiles{{.*}}" 0
//
// The JIT under the same refusal: the vector kernels.
// RUN: %t/deny_amx kiln-run %s --entry mm --random-inputs --seed 5 --output-dir %t/denied
// RUN: kiln-run %s --entry mm --random-inputs --seed 5 --amx=false --output-dir %t/vector
// RUN: diff -r %t/denied %t/vector
// RUN: %t/deny_amx kiln-run %s --entry mm --random-inputs --seed 5 --mlir-print-ir-after=kiln-matmul-kernels 2>&1 | FileCheck %s --check-prefix=JIT
// RUN: kiln-run %s --entry mm --random-inputs --seed 5 --mlir-print-ir-after=kiln-matmul-kernels 2>&1 | FileCheck %s --check-prefix=GRANTED
// JIT-NOT: amx.tile_mulf
// JIT: vector.fma
// JIT-NOT: amx.tile_mulf
// GRANTED: amx.tile_mulf
func.func @mm(%a: tensor<32x32xbf16>, %b: tensor<32x32xbf16>) -> tensor<32x32xbf16> {
  %0 = kiln.matmul %a, %b : (tensor<32x32xbf16>, tensor<32x32xbf16>) -> tensor<32x32xbf16>
  return %0 : tensor<32x32xbf16>
}

func.func @scale(%x: tensor<f32>) -> tensor<f32> {
  %0 = kiln.add %x, %x : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
