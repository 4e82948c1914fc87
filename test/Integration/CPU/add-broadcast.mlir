// Runs kiln.add with broadcasting on the CPU through kiln-run, with inputs
// from .npy files written by Inputs/make_npy.py.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/make_npy.py %t/x.npy '<f4' 2,3 1,2,3,4,5,6
// RUN: %python %S/Inputs/make_npy.py %t/b.npy '<f4' 3 10,20,30
// RUN: kiln-run %s --entry add_bias --input %t/x.npy --input %t/b.npy | FileCheck %s --check-prefix=BIAS
// BIAS: result0: tensor<2x3xf32>
// BIAS-NEXT: [11.5, 22.5, 33.5, 14.5, 25.5, 36.5]
//
// The written result reads back as an input (a .npy round trip), here with
// a v2.0 header on the other input.
// RUN: kiln-run %s --entry add_bias --input %t/x.npy --input %t/b.npy --output-dir %t/out
// RUN: %python %S/Inputs/make_npy.py %t/b2.npy '<f4' 3 100,200,300 --version 2
// RUN: kiln-run %s --entry add_bias --input %t/out/result0.npy --input %t/b2.npy --print | FileCheck %s --check-prefix=AGAIN
// AGAIN: result0: tensor<2x3xf32>
// AGAIN-NEXT: [112, 223, 334, 115, 226, 337]
//
// RUN: %python %S/Inputs/make_npy.py %t/col.npy '<i8' 4,1 1,2,3,4
// RUN: %python %S/Inputs/make_npy.py %t/row.npy '<i8' 1,3 10,20,30
// RUN: kiln-run %s --entry outer_sum --input %t/col.npy --input %t/row.npy | FileCheck %s --check-prefix=OUTER
// OUTER: result0: tensor<4x3xi64>
// OUTER-NEXT: [11, 21, 31, 12, 22, 32, 13, 23, 33, 14, 24, 34]
//
// RUN: %python %S/Inputs/make_npy.py %t/p.npy '|b1' 4 0,1,0,1
// RUN: %python %S/Inputs/make_npy.py %t/q.npy '|b1' 4 0,0,1,1
// RUN: %python %S/Inputs/make_npy.py %t/s.npy '<f8' '' 0.25
// RUN: kiln-run %s --entry two_results --input %t/p.npy --input %t/q.npy --input %t/s.npy | FileCheck %s --check-prefix=TWO
// TWO: result0: tensor<4xi1>
// TWO-NEXT: [false, true, true, true]
// TWO: result1: tensor<f64>
// TWO-NEXT: [1.25]
//
// Seeded random inputs are reproducible; --print-limit shortens the output.
// RUN: kiln-run %s --entry add_bias --random-inputs --seed 7 --print-limit 2 > %t/r1.txt
// RUN: kiln-run %s --entry add_bias --random-inputs --seed 7 --print-limit 2 > %t/r2.txt
// RUN: diff %t/r1.txt %t/r2.txt
// RUN: FileCheck %s --check-prefix=RANDOM < %t/r1.txt
// RANDOM: result0: tensor<2x3xf32>
// RANDOM-NEXT: [{{[-0-9.e]+}}, {{[-0-9.e]+}}, ... (6 values)]
//
// RUN: kiln-run %s --entry add_bias --random-inputs --time | FileCheck %s --check-prefix=TIME
// TIME: compile: {{[0-9.]+}} ms, run: {{[0-9.]+}} ms

func.func @add_bias(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %half = kiln.constant dense<0.5> : tensor<f32>
  %0 = kiln.add %x, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = kiln.add %0, %half : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

func.func @outer_sum(%col: tensor<4x1xi64>, %row: tensor<1x3xi64>) -> tensor<4x3xi64> {
  %0 = kiln.add %col, %row : (tensor<4x1xi64>, tensor<1x3xi64>) -> tensor<4x3xi64>
  return %0 : tensor<4x3xi64>
}

func.func @two_results(%p: tensor<4xi1>, %q: tensor<4xi1>, %s: tensor<f64>) -> (tensor<4xi1>, tensor<f64>) {
  %one = kiln.constant dense<1.0> : tensor<f64>
  %0 = kiln.add %p, %q : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %1 = kiln.add %s, %one : (tensor<f64>, tensor<f64>) -> tensor<f64>
  return %0, %1 : tensor<4xi1>, tensor<f64>
}
