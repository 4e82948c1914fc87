// RUN: kiln-opt %s --split-input-file --kiln-autodiff="function=f mode=split" --verify-diagnostics
// RUN: not kiln-opt %s --split-input-file --kiln-autodiff="function=f mode=both" 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not kiln-opt %s --split-input-file --kiln-autodiff="function=f remat=everything" 2>&1 | FileCheck %s --check-prefix=REMAT
// RUN: not kiln-opt %s --split-input-file --kiln-autodiff="mode=split" 2>&1 | FileCheck %s --check-prefix=NOFUNC --implicit-check-not=builtin.module --implicit-check-not="see current operation"

// MODE: for the --mode option: Cannot find option named 'both'!
// REMAT: for the --remat option: Cannot find option named 'everything'!
// NOFUNC: <unknown>:0: error: kiln-autodiff: mode=split needs function=<name>

// Only float outputs get a cotangent: with none there is nothing to
// differentiate.
// expected-error @+1 {{cannot split 'f': no result is a floating-point tensor, so there is nothing to differentiate}}
func.func @f(%x: tensor<3xf32>, %i: tensor<3xi64>) -> (tensor<3xi1>, tensor<3xi64>) {
  %c = kiln.constant dense<0.0> : tensor<3xf32>
  %m = kiln.gt %x, %c : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  return %m, %i : tensor<3xi1>, tensor<3xi64>
}

// -----

// expected-error @+1 {{cannot split 'f': it returns nothing}}
func.func @f(%x: tensor<3xf32>) {
  return
}

// -----

// The checks of combined mode apply too; nothing is generated on failure.
func.func @f(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  // Every kiln op has a rule; an upstream op on tensors has none.
  // expected-error @+1 {{'arith.mulf' has no backward rule}}
  %u = arith.mulf %x, %x : tensor<2x3xf32>
  %s = kiln.slice %u {starts = array<i64: 0, 0>, stops = array<i64: 2, 2>, strides = array<i64: 1, 1>} : tensor<2x3xf32> -> tensor<2x2xf32>
  return %s : tensor<2x2xf32>
}
