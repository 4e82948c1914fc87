// Split mode's functions compile and run like any other: the kiln.output,
// kiln.residual, kiln.cotangent and kiln.gradient attributes of their
// arguments and results are dropped before the LLVM translation, which
// warned "Unhandled parameter attribute" about each of them (and printed
// the whole llvm.func) on every compile.
// RUN: kiln-opt %s --kiln-autodiff="function=f mode=split" -o %t.mlir
// RUN: kiln-run %t.mlir --entry f_forward --random-inputs 2>&1 | FileCheck %s --implicit-check-not=warning --check-prefix=FWD
// RUN: kiln-run %t.mlir --entry f_backward --random-inputs 2>&1 | FileCheck %s --implicit-check-not=warning --check-prefix=BWD
// FWD: result0: tensor<f32>
// FWD: result1: tensor<2x3xf32>
// BWD: result0: tensor<2x3xf32>
// BWD: result1: tensor<3x4xf32>

func.func @f(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) -> tensor<f32> {
  %m = kiln.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %t = kiln.tanh %m : tensor<2x4xf32>
  %l = kiln.sum %t {axes = array<i64: 0, 1>} : tensor<2x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
