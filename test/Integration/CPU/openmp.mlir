// kiln-run --openmp runs the parallel loops on OpenMP threads (libomp). The
// results do not depend on the thread count: each output element is
// computed by exactly one thread, and a reduction dim stays a sequential
// loop inside the work-shared parallel dims, so even sums come out bit for
// bit the same with 1 thread, 2 threads and without OpenMP.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: env %no_leak_check OMP_NUM_THREADS=1 kiln-run %s --entry add_bias --openmp --random-inputs --seed 3 --output-dir %t/add1
// RUN: env %no_leak_check OMP_NUM_THREADS=2 kiln-run %s --entry add_bias --openmp --random-inputs --seed 3 --output-dir %t/add2
// RUN: kiln-run %s --entry add_bias --random-inputs --seed 3 --output-dir %t/add0
// RUN: cmp %t/add1/result0.npy %t/add2/result0.npy
// RUN: cmp %t/add0/result0.npy %t/add2/result0.npy
//
// RUN: env %no_leak_check OMP_NUM_THREADS=1 kiln-run %s --entry outer_sum --openmp --random-inputs --output-dir %t/outer1
// RUN: env %no_leak_check OMP_NUM_THREADS=2 kiln-run %s --entry outer_sum --openmp --random-inputs --output-dir %t/outer2
// RUN: kiln-run %s --entry outer_sum --random-inputs --output-dir %t/outer0
// RUN: cmp %t/outer1/result0.npy %t/outer2/result0.npy
// RUN: cmp %t/outer0/result0.npy %t/outer2/result0.npy
//
// RUN: env %no_leak_check OMP_NUM_THREADS=1 kiln-run %s --entry row_sums --openmp --random-inputs --output-dir %t/sum1
// RUN: env %no_leak_check OMP_NUM_THREADS=2 kiln-run %s --entry row_sums --openmp --random-inputs --output-dir %t/sum2
// RUN: kiln-run %s --entry row_sums --random-inputs --output-dir %t/sum0
// RUN: cmp %t/sum1/result0.npy %t/sum2/result0.npy
// RUN: cmp %t/sum0/result0.npy %t/sum2/result0.npy
//
// The bundled transformer block (matmuls, reductions, attention, loss):
// the same loss bit for bit with and without threads.
// RUN: env %no_leak_check OMP_NUM_THREADS=2 kiln-run %kiln_src_root/examples/transformer_block.mlir --entry loss --openmp --random-inputs --random-range 0:0:32 --random-range 1:0:5 --output-dir %t/block2
// RUN: kiln-run %kiln_src_root/examples/transformer_block.mlir --entry loss --random-inputs --random-range 0:0:32 --random-range 1:0:5 --output-dir %t/block0
// RUN: cmp %t/block0/result0.npy %t/block2/result0.npy
//
// Known values on threads: the broadcasting add of a column and a row.
// RUN: %python %S/Inputs/make_npy.py %t/col.npy '<i8' 3,1 1,2,3
// RUN: %python %S/Inputs/make_npy.py %t/row.npy '<i8' 1,4 10,20,30,40
// RUN: env %no_leak_check OMP_NUM_THREADS=2 kiln-run %s --entry small_outer --openmp --input %t/col.npy --input %t/row.npy | FileCheck %s
// CHECK: result0: tensor<3x4xi64>
// CHECK-NEXT: [11, 21, 31, 41, 12, 22, 32, 42, 13, 23, 33, 43]
//
// --repeat N runs N times (the first run also starts libomp's threads) and
// reports the fastest.
// RUN: env %no_leak_check OMP_NUM_THREADS=2 kiln-run %s --entry small_outer --openmp --input %t/col.npy --input %t/row.npy --repeat 3 --time | FileCheck %s --check-prefix=REPEAT
// REPEAT: result0: tensor<3x4xi64>
// REPEAT-NEXT: [11, 21, 31, 41, 12, 22, 32, 42, 13, 23, 33, 43]
// REPEAT-NEXT: compile: {{[0-9.]+}} ms, run: {{[0-9.]+}} ms (best of 3)
// RUN: not kiln-run %s --entry small_outer --random-inputs --repeat 0 2>&1 | FileCheck %s --check-prefix=REPEAT0
// REPEAT0: error: --repeat must be at least 1
//
// Zero-size and rank-0 tensors run on threads too.
// RUN: env %no_leak_check OMP_NUM_THREADS=2 kiln-run %s --entry empty_and_scalar --openmp --random-inputs | FileCheck %s --check-prefix=EDGE
// EDGE: result0: tensor<0x5xf32>
// EDGE-NEXT: []
// EDGE: result1: tensor<f64>

func.func @add_bias(%x: tensor<128x1000xf32>, %b: tensor<1000xf32>) -> tensor<128x1000xf32> {
  %half = kiln.constant dense<0.5> : tensor<f32>
  %0 = kiln.add %x, %b : (tensor<128x1000xf32>, tensor<1000xf32>) -> tensor<128x1000xf32>
  %1 = kiln.add %0, %half : (tensor<128x1000xf32>, tensor<f32>) -> tensor<128x1000xf32>
  return %1 : tensor<128x1000xf32>
}

func.func @outer_sum(%col: tensor<333x1xi64>, %row: tensor<1x77xi64>) -> tensor<333x77xi64> {
  %0 = kiln.add %col, %row : (tensor<333x1xi64>, tensor<1x77xi64>) -> tensor<333x77xi64>
  return %0 : tensor<333x77xi64>
}

func.func @small_outer(%col: tensor<3x1xi64>, %row: tensor<1x4xi64>) -> tensor<3x4xi64> {
  %0 = kiln.add %col, %row : (tensor<3x1xi64>, tensor<1x4xi64>) -> tensor<3x4xi64>
  return %0 : tensor<3x4xi64>
}

func.func @empty_and_scalar(%x: tensor<0x5xf32>, %y: tensor<5xf32>, %s: tensor<f64>)
    -> (tensor<0x5xf32>, tensor<f64>) {
  %0 = kiln.add %x, %y : (tensor<0x5xf32>, tensor<5xf32>) -> tensor<0x5xf32>
  %1 = kiln.add %s, %s : (tensor<f64>, tensor<f64>) -> tensor<f64>
  return %0, %1 : tensor<0x5xf32>, tensor<f64>
}

// A row reduction written in linalg directly (the pipeline passes linalg on
// tensors through): the reduction dim must stay sequential per row.
func.func @row_sums(%x: tensor<64x999xf32>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x999xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %sum : tensor<64xf32>
}
