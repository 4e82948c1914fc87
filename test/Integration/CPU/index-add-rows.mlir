// kiln.index_add's CPU form (threads own chunks of contiguous row elements
// and add whole vectors of a source row at a time) against its column form
// (one thread per column, one element at a time: the GPU's form, and the
// CPU's before, which the PyTorch fixtures of test/fixtures/tensor.json
// check): the same bits for every axis, rank and element type, with many
// repeated indices (float sums then depend on the order of the additions)
// and out-of-range ones, which clamp. And the same bits again on two OpenMP
// threads.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-opt %s --kiln-lower-to-cpu --mlir-print-ir-before=kiln-matmul-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=ROWS
// RUN: kiln-opt %s --convert-kiln-to-linalg=index-add-thread-per-column -o %t/columns.mlir
// RUN: kiln-opt %t/columns.mlir --kiln-lower-to-cpu --mlir-print-ir-before=kiln-matmul-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=COLUMNS
//
// DEFINE: %{args} = --entry cases --random-inputs --seed 7 \
// DEFINE:   --random-range 1:-5:55 --random-range 4:-3:23 --random-range 7:-2:11 \
// DEFINE:   --random-range 10:-2:18 --random-range 13:-2:10 --random-range 16:-1:11 \
// DEFINE:   --random-range 19:-2:8 --random-range 20:-128:128 --random-range 22:-1:6 \
// DEFINE:   --random-range 25:-2:9 --random-range 28:-3:53 --random-range 31:-4:34 \
// DEFINE:   --random-range 33:-3:43 --random-range 36:0:5
// RUN: kiln-run %s %{args} --output-dir %t/rows
// RUN: kiln-run %t/columns.mlir %{args} --output-dir %t/columns
// RUN: env %no_leak_check OMP_NUM_THREADS=2 kiln-run %s %{args} --openmp --output-dir %t/openmp
// RUN: ls %t/rows | FileCheck %s --check-prefix=FILES
// RUN: diff -r %t/rows %t/columns
// RUN: diff -r %t/rows %t/openmp
//
// The default lowering has vector adds; the reference has none.
// ROWS-LABEL: func.func @__kiln_func_cases
// ROWS: vector.transfer_read
// COLUMNS-LABEL: func.func @__kiln_func_cases
// COLUMNS-NOT: vector.transfer_read
//
// FILES: result0.npy
// FILES: result11.npy
// FILES: result12.npy
// FILES-NOT: result13.npy

func.func @cases(
    // #0: axis 0 of a matrix; inner 300 = chunks of 128, 128 and 44 (two
    // whole vectors and 12 elements in the last one).
    %x0: tensor<50x300xf32>, %i0: tensor<700xi64>, %s0: tensor<700x300xf32>,
    // #1: a middle axis; 3 outer positions, inner 37.
    %x1: tensor<3x20x37xf32>, %i1: tensor<90xi32>, %s1: tensor<3x90x37xf32>,
    // #2: f64 (8 lanes), rank 4, axis 2: outer 6, inner 20.
    %x2: tensor<2x3x9x20xf64>, %i2: tensor<40xi64>, %s2: tensor<2x3x40x20xf64>,
    // #3, #4: bf16 and f16 accumulate in f32 and round once.
    %x3: tensor<16x200xbf16>, %i3: tensor<300xi64>, %s3: tensor<300x200xbf16>,
    %x4: tensor<8x5x7xf16>, %i4: tensor<50xi64>, %s4: tensor<50x5x7xf16>,
    // #5, #6, #7: integers (i8 wraps: 64 lanes, 70 = one vector and 6).
    %x5: tensor<10x130xi32>, %i5: tensor<64xi32>, %s5: tensor<64x130xi32>,
    %x6: tensor<6x70xi8>, %i6: tensor<200xi64>, %s6: tensor<200x70xi8>,
    %x7: tensor<5x4x9xi64>, %i7: tensor<30xi64>, %s7: tensor<5x30x9xi64>,
    // #8: i1 (a logical or, element by element).
    %x8: tensor<7x33xi1>, %i8: tensor<40xi64>, %s8: tensor<40x33xi1>,
    // #9: the last axis (inner 1): the column form in both.
    %x9: tensor<4x50xf32>, %i9: tensor<80xi64>, %s9: tensor<4x80xf32>,
    // #10: rank 1.
    %x10: tensor<30xf32>, %i10: tensor<100xi64>, %s10: tensor<100xf32>,
    // #11: a splat dest (an adjoint's zeros).
    %i11: tensor<500xi64>, %s11: tensor<500x150xf32>,
    // #12: an empty inner dim: nothing to add.
    %x12: tensor<5x0xf32>, %i12: tensor<3xi64>, %s12: tensor<3x0xf32>)
    -> (tensor<50x300xf32>, tensor<3x20x37xf32>, tensor<2x3x9x20xf64>,
        tensor<16x200xbf16>, tensor<8x5x7xf16>, tensor<10x130xi32>,
        tensor<6x70xi8>, tensor<5x4x9xi64>, tensor<7x33xi1>, tensor<4x50xf32>,
        tensor<30xf32>, tensor<40x150xf32>, tensor<5x0xf32>) {
  %r0 = kiln.index_add %x0, %i0, %s0 {axis = 0 : i64} : (tensor<50x300xf32>, tensor<700xi64>, tensor<700x300xf32>) -> tensor<50x300xf32>
  %r1 = kiln.index_add %x1, %i1, %s1 {axis = 1 : i64} : (tensor<3x20x37xf32>, tensor<90xi32>, tensor<3x90x37xf32>) -> tensor<3x20x37xf32>
  %r2 = kiln.index_add %x2, %i2, %s2 {axis = 2 : i64} : (tensor<2x3x9x20xf64>, tensor<40xi64>, tensor<2x3x40x20xf64>) -> tensor<2x3x9x20xf64>
  %r3 = kiln.index_add %x3, %i3, %s3 {axis = 0 : i64} : (tensor<16x200xbf16>, tensor<300xi64>, tensor<300x200xbf16>) -> tensor<16x200xbf16>
  %r4 = kiln.index_add %x4, %i4, %s4 {axis = 0 : i64} : (tensor<8x5x7xf16>, tensor<50xi64>, tensor<50x5x7xf16>) -> tensor<8x5x7xf16>
  %r5 = kiln.index_add %x5, %i5, %s5 {axis = 0 : i64} : (tensor<10x130xi32>, tensor<64xi32>, tensor<64x130xi32>) -> tensor<10x130xi32>
  %r6 = kiln.index_add %x6, %i6, %s6 {axis = 0 : i64} : (tensor<6x70xi8>, tensor<200xi64>, tensor<200x70xi8>) -> tensor<6x70xi8>
  %r7 = kiln.index_add %x7, %i7, %s7 {axis = 1 : i64} : (tensor<5x4x9xi64>, tensor<30xi64>, tensor<5x30x9xi64>) -> tensor<5x4x9xi64>
  %r8 = kiln.index_add %x8, %i8, %s8 {axis = 0 : i64} : (tensor<7x33xi1>, tensor<40xi64>, tensor<40x33xi1>) -> tensor<7x33xi1>
  %r9 = kiln.index_add %x9, %i9, %s9 {axis = 1 : i64} : (tensor<4x50xf32>, tensor<80xi64>, tensor<4x80xf32>) -> tensor<4x50xf32>
  %r10 = kiln.index_add %x10, %i10, %s10 {axis = 0 : i64} : (tensor<30xf32>, tensor<100xi64>, tensor<100xf32>) -> tensor<30xf32>
  %zeros = kiln.constant dense<0.0> : tensor<40x150xf32>
  %r11 = kiln.index_add %zeros, %i11, %s11 {axis = 0 : i64} : (tensor<40x150xf32>, tensor<500xi64>, tensor<500x150xf32>) -> tensor<40x150xf32>
  %r12 = kiln.index_add %x12, %i12, %s12 {axis = 0 : i64} : (tensor<5x0xf32>, tensor<3xi64>, tensor<3x0xf32>) -> tensor<5x0xf32>
  return %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11, %r12
      : tensor<50x300xf32>, tensor<3x20x37xf32>, tensor<2x3x9x20xf64>,
        tensor<16x200xbf16>, tensor<8x5x7xf16>, tensor<10x130xi32>,
        tensor<6x70xi8>, tensor<5x4x9xi64>, tensor<7x33xi1>, tensor<4x50xf32>,
        tensor<30xf32>, tensor<40x150xf32>, tensor<5x0xf32>
}
