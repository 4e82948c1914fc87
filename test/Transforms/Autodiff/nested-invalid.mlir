// RUN: kiln-opt %s --split-input-file --kiln-autodiff --verify-diagnostics
// RUN: not kiln-opt %s --split-input-file --kiln-autodiff="wrt=0" 2>&1 | FileCheck %s --check-prefix=WRT --implicit-check-not=builtin.module --implicit-check-not="see current operation"

// WRT: <unknown>:0: error: kiln-autodiff: wrt needs function=<name> (a kiln.value_and_grad op names its own wrt)

// A function that reaches its own gradient.
// expected-error @+1 {{'f' takes the gradient of itself through kiln.value_and_grad}}
func.func private @f(%x: tensor<3xf64>) -> tensor<f64> {
  %l, %g = kiln.value_and_grad @f(%x) {wrt = array<i64: 0>} : (tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>)
  return %l : tensor<f64>
}

// -----

// The same through another function.
// expected-error @+1 {{'a' takes the gradient of itself through kiln.value_and_grad}}
func.func private @a(%x: tensor<3xf64>) -> tensor<f64> {
  %l, %g = kiln.value_and_grad @b(%x) {wrt = array<i64: 0>} : (tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>)
  return %l : tensor<f64>
}
func.func private @b(%x: tensor<3xf64>) -> tensor<f64> {
  %l, %g = kiln.value_and_grad @a(%x) {wrt = array<i64: 0>} : (tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>)
  return %l : tensor<f64>
}
