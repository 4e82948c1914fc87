// kiln-compile --openmp: the library runs its parallel loops on libomp
// threads (it links libomp, found by rpath), and its results do not depend
// on the thread count. The C program of add.mlir checks the values.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-compile %S/add.mlir --openmp -o %t/libkadd.so --header %t/kadd.h
// RUN: cc %kiln_cflags -std=c99 -Wall -Werror -I%t %S/Inputs/add_main.c -L%t -lkadd -Wl,-rpath,%t -o %t/add_main
// RUN: env OMP_NUM_THREADS=1 %t/add_main | FileCheck %s
// RUN: env OMP_NUM_THREADS=2 %t/add_main | FileCheck %s
// CHECK: all ok
// RUN: ldd %t/libkadd.so | FileCheck %s --check-prefix=LDD --implicit-check-not=libMLIR --implicit-check-not=libLLVM
// LDD-DAG: libomp.so
// LDD-DAG: libc.so
