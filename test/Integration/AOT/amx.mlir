// bf16 matmuls on AMX tiles (kiln-matmul-kernels{amx}), on a host that has
// them: the JIT and a kiln-compile'd library built for this CPU run the
// same kernels and agree bit for bit, and so do the OpenMP runs on any
// number of threads (each element of C is one chain of tdpbf16ps over K,
// whatever thread computes its column block). Shapes cross the tiles'
// boundaries (M = 70, N = 300: a column block of 256 and a partial one,
// K = 45), a batch, and attention, whose Q Kᵀ runs on tiles inside the
// forall of its query blocks. test/unittests/AmxMatmulTest.cpp checks the
// values against float64.
//
// REQUIRES: host-amx
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-compile %s -o %t/libamx.so --mcpu native
// RUN: objdump -d %t/libamx.so | FileCheck %s --check-prefix=CODE
// CODE: ldtilecfg
// CODE: tdpbf16ps
// RUN: kiln-run %s --entry cases --random-inputs --seed 3 > %t/jit.txt
// RUN: %python %kiln_src_root/scripts/run-aot.py %t/libamx.so cases --seed 3 > %t/aot.txt
// RUN: diff %t/jit.txt %t/aot.txt
// RUN: kiln-run %s --entry cases --random-inputs --seed 3 --output-dir %t/seq
// RUN: env %no_leak_check OMP_NUM_THREADS=1 kiln-run %s --entry cases --openmp --random-inputs --seed 3 --output-dir %t/omp1
// RUN: env %no_leak_check OMP_NUM_THREADS=2 kiln-run %s --entry cases --openmp --random-inputs --seed 3 --output-dir %t/omp2
// RUN: diff -r %t/seq %t/omp1
// RUN: diff -r %t/omp1 %t/omp2
// RUN: ls %t/omp2 | FileCheck %s
// CHECK-COUNT-3: result{{[0-9]+}}.npy
// CHECK-NOT: result
//
// --amx=false: the vector kernels, in the JIT and in the library.
// RUN: kiln-compile %s -o %t/libvec.so --mcpu native --amx=false
// RUN: objdump -d %t/libvec.so | FileCheck %s --check-prefix=NOAMX
// NOAMX-NOT: tdpbf16ps
// RUN: kiln-run %s --entry cases --random-inputs --seed 3 --amx=false > %t/jit-vec.txt
// RUN: %python %kiln_src_root/scripts/run-aot.py %t/libvec.so cases --seed 3 > %t/aot-vec.txt
// RUN: diff %t/jit-vec.txt %t/aot-vec.txt
func.func @cases(%a: tensor<70x45xbf16>, %b: tensor<45x300xbf16>,
                 %ba: tensor<3x40x64xbf16>, %bb: tensor<3x64x50xbf16>,
                 %q: tensor<1x4x130x32xbf16>, %k: tensor<1x2x150x32xbf16>,
                 %v: tensor<1x2x150x32xbf16>)
    -> (tensor<70x300xbf16>, tensor<3x40x50xbf16>, tensor<1x4x130x32xbf16>) {
  %0 = kiln.matmul %a, %b : (tensor<70x45xbf16>, tensor<45x300xbf16>) -> tensor<70x300xbf16>
  %1 = kiln.matmul %ba, %bb : (tensor<3x40x64xbf16>, tensor<3x64x50xbf16>) -> tensor<3x40x50xbf16>
  %2 = kiln.attention %q, %k, %v {causal}
      : tensor<1x4x130x32xbf16>, tensor<1x2x150x32xbf16>, tensor<1x2x150x32xbf16>
      -> tensor<1x4x130x32xbf16>
  return %0, %1, %2 : tensor<70x300xbf16>, tensor<3x40x50xbf16>, tensor<1x4x130x32xbf16>
}
