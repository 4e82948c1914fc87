// A kiln-compile'd library and the JIT agree: scripts/run-aot.py draws the
// same seeded inputs as kiln-run --random-inputs (--random-range included)
// and prints the results the same way, for every dtype. Built for this CPU
// (--mcpu native) like the JIT: with --mcpu generic an f32 matmul's
// multiply-adds are not fused on x86-64, so they may round differently.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-compile %s -o %t/libdt.so --mcpu native --time | FileCheck %s --check-prefix=TIME
// TIME: pipeline: {{[0-9.]+}} ms, llvm: {{[0-9.]+}} ms, link: {{[0-9.]+}} ms
// RUN: kiln-run %s --entry f --random-inputs --seed 5 > %t/jit.txt
// RUN: %python %kiln_src_root/scripts/run-aot.py %t/libdt.so f --seed 5 > %t/aot.txt
// RUN: diff %t/jit.txt %t/aot.txt
// RUN: kiln-run %s --entry f --random-inputs --seed 9 --random-range 0:-100:100 --random-range 1:3:5 --random-range 4:-50:50 > %t/jit-range.txt
// RUN: %python %kiln_src_root/scripts/run-aot.py %t/libdt.so f --seed 9 --random-range 0:-100:100 --random-range 1:3:5 --random-range 4:-50:50 > %t/aot-range.txt
// RUN: diff %t/jit-range.txt %t/aot-range.txt
// RUN: FileCheck %s < %t/aot-range.txt
// CHECK: result0: tensor<7xi64>
// CHECK: result7: tensor<3xi32>
// A function the library does not have is a message, not a traceback.
// RUN: not %python %kiln_src_root/scripts/run-aot.py %t/libdt.so nosuch 2>&1 | FileCheck %s --check-prefix=NOFN
// NOFN: run-aot.py: {{.*}}libdt.so has no function 'nosuch' (no kiln_nosuch_signature
// NOFN-NOT: Traceback
//
// The bundled transformer block, ahead of time: the same loss as the JIT.
// RUN: kiln-compile %kiln_src_root/examples/transformer_block.mlir -o %t/libblock.so --mcpu native
// RUN: kiln-run %kiln_src_root/examples/transformer_block.mlir --entry loss --random-inputs --random-range 0:0:32 --random-range 1:0:5 > %t/block-jit.txt
// RUN: %python %kiln_src_root/scripts/run-aot.py %t/libblock.so loss --random-range 0:0:32 --random-range 1:0:5 > %t/block-aot.txt
// RUN: diff %t/block-jit.txt %t/block-aot.txt
//
// RUN: %python %kiln_src_root/scripts/run-aot.py %t/libdt.so f --repeat 3 --time | FileCheck %s --check-prefix=RUNTIME
// RUNTIME: run: {{[0-9.]+}} ms (best of 3)

func.func @f(%a: tensor<7xi64>, %b: tensor<5xf32>, %c: tensor<3xbf16>, %d: tensor<4xi1>,
             %e: tensor<3xi8>, %g: tensor<2x2xf16>, %h: tensor<3xf64>, %i: tensor<3xi32>)
    -> (tensor<7xi64>, tensor<5xf32>, tensor<3xbf16>, tensor<4xi1>, tensor<3xi8>,
        tensor<2x2xf16>, tensor<3xf64>, tensor<3xi32>) {
  %0 = kiln.add %a, %a : (tensor<7xi64>, tensor<7xi64>) -> tensor<7xi64>
  %1 = kiln.add %b, %b : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  %2 = kiln.add %c, %c : (tensor<3xbf16>, tensor<3xbf16>) -> tensor<3xbf16>
  %3 = kiln.add %d, %d : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %4 = kiln.add %e, %e : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
  %5 = kiln.add %g, %g : (tensor<2x2xf16>, tensor<2x2xf16>) -> tensor<2x2xf16>
  %6 = kiln.add %h, %h : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %7 = kiln.add %i, %i : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7
      : tensor<7xi64>, tensor<5xf32>, tensor<3xbf16>, tensor<4xi1>, tensor<3xi8>,
        tensor<2x2xf16>, tensor<3xf64>, tensor<3xi32>
}
