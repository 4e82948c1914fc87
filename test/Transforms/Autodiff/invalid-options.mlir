// RUN: kiln-opt %s --kiln-autodiff="function=f wrt=1" --verify-diagnostics
// RUN: not kiln-opt %s --kiln-autodiff="function=g" 2>&1 | FileCheck %s --check-prefix=VECTOR
// RUN: not kiln-opt %s --kiln-autodiff="function=missing" 2>&1 | FileCheck %s --check-prefix=MISSING --implicit-check-not=builtin.module --implicit-check-not="see current operation"
// RUN: not kiln-opt %s --kiln-autodiff="function=f wrt=0,0" 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not kiln-opt %s --kiln-autodiff="function=f wrt=7" 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not kiln-opt %s --kiln-autodiff="function=integers" 2>&1 | FileCheck %s --check-prefix=NOFLOAT

// A differentiated integer argument is an error at the function.
// expected-error @+1 {{cannot differentiate with respect to argument 1 of non-floating-point type 'tensor<3xi64>'}}
func.func @f(%x: tensor<3xf32>, %i: tensor<3xi64>) -> tensor<f32> {
  %0 = kiln.sum %x {axes = array<i64: 0>} : tensor<3xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

func.func @g(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}

// Without `wrt`, every floating-point argument; here there is none.
func.func @integers(%i: tensor<3xi64>) -> tensor<f32> {
  %0 = kiln.constant dense<0.0> : tensor<f32>
  return %0 : tensor<f32>
}

// VECTOR: cannot differentiate 'g': it must return exactly one rank-0 floating-point tensor (mode=split differentiates other results, with one cotangent argument per result)
// An option naming no function is an error at the module, which is not
// printed.
// MISSING: invalid-options.mlir:0:0: error: kiln-autodiff: function=missing: the module has no function named 'missing'
// TWICE: 'wrt' entry 0 appears twice
// RANGE: 'wrt' entry 7 is out of range [0, 2)
// NOFLOAT: cannot differentiate 'integers': no floating-point argument to differentiate with respect to (weights held as constants are not arguments; kiln-translate --lift-parameters makes graph JSON parameters arguments)
