// kiln.cumsum on the CPU: values worked out by hand, then its CPU form
// (threads own chunks of contiguous row elements) against its column form
// (one thread per position of the other dims: the GPU's form) on random
// inputs, for every axis position, both directions and several element
// types: the same bits, since both add the same terms in the same order.
// And the same bits again on two OpenMP threads. The PyTorch fixtures of
// test/fixtures/cumsum.json check the values.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-run %s --entry small | FileCheck %s --check-prefix=SMALL
// RUN: kiln-opt %s --convert-kiln-to-linalg=index-add-thread-per-column -o %t/columns.mlir
// RUN: kiln-run %s --entry cases --random-inputs --seed 5 --output-dir %t/rows
// RUN: kiln-run %t/columns.mlir --entry cases --random-inputs --seed 5 --output-dir %t/columns
// RUN: env %no_leak_check OMP_NUM_THREADS=2 kiln-run %s --entry cases --random-inputs --seed 5 --openmp --output-dir %t/openmp
// RUN: ls %t/rows | FileCheck %s --check-prefix=FILES
// RUN: diff -r %t/rows %t/columns
// RUN: diff -r %t/rows %t/openmp
//
// SMALL: result0: tensor<2x4xi32>
// SMALL-NEXT: [1, 3, 6, 10, 10, 30, 60, 100]
// SMALL-NEXT: result1: tensor<2x4xi32>
// SMALL-NEXT: [11, 22, 33, 44, 10, 20, 30, 40]
// SMALL-NEXT: result2: tensor<4xf32>
// SMALL-NEXT: [1.75, 1.25, 2.25, 0.25]
// SMALL-NEXT: result3: tensor<5xi1>
// SMALL-NEXT: [false, true, true, true, true]
// SMALL-NEXT: result4: tensor<3xi8>
// SMALL-NEXT: [100, -56, 44]
//
// FILES: result0.npy
// FILES: result7.npy
// FILES-NOT: result8.npy

func.func @small() -> (tensor<2x4xi32>, tensor<2x4xi32>, tensor<4xf32>, tensor<5xi1>, tensor<3xi8>) {
  %c = kiln.constant dense<[[1, 2, 3, 4], [10, 20, 30, 40]]> : tensor<2x4xi32>
  %0 = kiln.cumsum %c {axis = 1 : i64} : tensor<2x4xi32>
  %1 = kiln.cumsum %c {axis = 0 : i64, reverse = true} : tensor<2x4xi32>
  %f = kiln.constant dense<[0.5, -1.0, 2.0, 0.25]> : tensor<4xf32>
  %2 = kiln.cumsum %f {axis = 0 : i64, reverse = true} : tensor<4xf32>
  %b = kiln.constant dense<[false, true, false, false, true]> : tensor<5xi1>
  %3 = kiln.cumsum %b {axis = 0 : i64} : tensor<5xi1>
  // 100 + 100 wraps to -56 in i8, + 100 to 44.
  %i = kiln.constant dense<100> : tensor<3xi8>
  %4 = kiln.cumsum %i {axis = 0 : i64} : tensor<3xi8>
  return %0, %1, %2, %3, %4 : tensor<2x4xi32>, tensor<2x4xi32>, tensor<4xf32>, tensor<5xi1>, tensor<3xi8>
}

func.func @cases(
    // #0: axis 0 of a matrix; inner 300 = chunks of 128, 128 and 44.
    %x0: tensor<50x300xf32>,
    // #1: a middle axis, reversed; inner 2 x 37 collapses into one dim.
    %x1: tensor<3x20x2x37xf32>,
    // #2: the last axis (the column form on both), f64.
    %x2: tensor<4x3x33xf64>,
    // #3, #4: bf16 and f16 accumulate in f32 and round each output once.
    %x3: tensor<16x200xbf16>, %x4: tensor<8x5x7xf16>,
    // #5, #6: integers wrap; #7: i1 is a logical or.
    %x5: tensor<30x40xi8>, %x6: tensor<2x9x130xi64>, %x7: tensor<6x140xi1>)
    -> (tensor<50x300xf32>, tensor<3x20x2x37xf32>, tensor<4x3x33xf64>,
        tensor<16x200xbf16>, tensor<8x5x7xf16>, tensor<30x40xi8>,
        tensor<2x9x130xi64>, tensor<6x140xi1>) {
  %0 = kiln.cumsum %x0 {axis = 0 : i64} : tensor<50x300xf32>
  %1 = kiln.cumsum %x1 {axis = 1 : i64, reverse = true} : tensor<3x20x2x37xf32>
  %2 = kiln.cumsum %x2 {axis = 2 : i64} : tensor<4x3x33xf64>
  %3 = kiln.cumsum %x3 {axis = 0 : i64, reverse = true} : tensor<16x200xbf16>
  %4 = kiln.cumsum %x4 {axis = 1 : i64} : tensor<8x5x7xf16>
  %5 = kiln.cumsum %x5 {axis = 0 : i64} : tensor<30x40xi8>
  %6 = kiln.cumsum %x6 {axis = 1 : i64, reverse = true} : tensor<2x9x130xi64>
  %7 = kiln.cumsum %x7 {axis = 0 : i64} : tensor<6x140xi1>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<50x300xf32>, tensor<3x20x2x37xf32>,
      tensor<4x3x33xf64>, tensor<16x200xbf16>, tensor<8x5x7xf16>, tensor<30x40xi8>,
      tensor<2x9x130xi64>, tensor<6x140xi1>
}
