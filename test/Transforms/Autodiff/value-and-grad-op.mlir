// RUN: kiln-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// RUN: kiln-opt %s --split-input-file --verify-diagnostics --mlir-print-op-generic | kiln-opt --split-input-file | FileCheck %s

// The op round-trips; its verifier and symbol-use checks reject the rest.

func.func private @f(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<2xi64>) -> tensor<f32>
// CHECK-LABEL: func.func @roundtrip
// CHECK: %{{.*}}:3 = kiln.value_and_grad @f(%{{.*}}, %{{.*}}, %{{.*}}) {wrt = array<i64: 0, 1>} : (tensor<2x3xf32>, tensor<3xf32>, tensor<2xi64>) -> (tensor<f32>, tensor<2x3xf32>, tensor<3xf32>)
func.func @roundtrip(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<2xi64>) -> tensor<f32> {
  %l, %ga, %gb = kiln.value_and_grad @f(%a, %b, %i) {wrt = array<i64: 0, 1>} : (tensor<2x3xf32>, tensor<3xf32>, tensor<2xi64>) -> (tensor<f32>, tensor<2x3xf32>, tensor<3xf32>)
  return %l : tensor<f32>
}

// -----

func.func @missing_callee(%a: tensor<3xf32>) {
  // expected-error @+1 {{'kiln.value_and_grad' op 'nothing' does not name a function}}
  %l, %g = kiln.value_and_grad @nothing(%a) {wrt = array<i64: 0>} : (tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>)
  return
}

// -----

func.func private @f(%a: tensor<3xf32>) -> tensor<f32>
func.func @operand_types(%a: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.value_and_grad' op operand types do not match 'f': expected ('tensor<3xf32>')}}
  %l, %g = kiln.value_and_grad @f(%a) {wrt = array<i64: 0>} : (tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
  return
}

// -----

func.func private @f(%a: tensor<3xf32>) -> tensor<3xf32>
func.func @vector_loss(%a: tensor<3xf32>) {
  // expected-error @+1 {{'kiln.value_and_grad' op 'f' must return exactly one rank-0 floating-point tensor}}
  %l, %g = kiln.value_and_grad @f(%a) {wrt = array<i64: 0>} : (tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>)
  return
}

// -----

func.func private @f(%a: tensor<3xf32>) -> tensor<f64>
func.func @loss_type(%a: tensor<3xf32>) {
  // expected-error @+1 {{'kiln.value_and_grad' op result #0 must have the type 'tensor<f64>' that 'f' returns}}
  %l, %g = kiln.value_and_grad @f(%a) {wrt = array<i64: 0>} : (tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>)
  return
}

// -----

func.func @wrt_range(%a: tensor<3xf32>) {
  // expected-error @+1 {{'kiln.value_and_grad' op 'wrt' entry 1 is out of range [0, 1)}}
  %l, %g = kiln.value_and_grad @f(%a) {wrt = array<i64: 1>} : (tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>)
  return
}

// -----

func.func @wrt_twice(%a: tensor<3xf32>) {
  // expected-error @+1 {{'kiln.value_and_grad' op 'wrt' entry 0 appears twice}}
  %l, %g, %h = kiln.value_and_grad @f(%a) {wrt = array<i64: 0, 0>} : (tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

func.func @wrt_empty(%a: tensor<3xf32>) {
  // expected-error @+1 {{'kiln.value_and_grad' op 'wrt' must list at least one argument}}
  %l = kiln.value_and_grad @f(%a) {wrt = array<i64>} : (tensor<3xf32>) -> (tensor<f32>)
  return
}

// -----

func.func @wrt_integer(%a: tensor<3xf32>, %i: tensor<3xi32>) {
  // expected-error @+1 {{'kiln.value_and_grad' op cannot differentiate with respect to argument 1 of non-floating-point type 'tensor<3xi32>'}}
  %l, %g = kiln.value_and_grad @f(%a, %i) {wrt = array<i64: 1>} : (tensor<3xf32>, tensor<3xi32>) -> (tensor<f32>, tensor<3xi32>)
  return
}

// -----

func.func @result_count(%a: tensor<3xf32>) {
  // expected-error @+1 {{'kiln.value_and_grad' op expected 2 results (the value and one gradient per 'wrt' entry), got 1}}
  %l = kiln.value_and_grad @f(%a) {wrt = array<i64: 0>} : (tensor<3xf32>) -> (tensor<f32>)
  return
}

// -----

func.func @vector_result(%a: tensor<3xf32>) {
  // expected-error @+1 {{'kiln.value_and_grad' op result #0 must be a rank-0 floating-point tensor, got 'tensor<3xf32>'}}
  %l, %g = kiln.value_and_grad @f(%a) {wrt = array<i64: 0>} : (tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

func.func @gradient_type(%a: tensor<3xf32>) {
  // expected-error @+1 {{'kiln.value_and_grad' op result #1 (the gradient of argument 0) must have the argument's type 'tensor<3xf32>', got 'tensor<3xf64>'}}
  %l, %g = kiln.value_and_grad @f(%a) {wrt = array<i64: 0>} : (tensor<3xf32>) -> (tensor<f32>, tensor<3xf64>)
  return
}

// -----

llvm.func @llvm_callee(f32) -> f32
func.func @callee_without_function_type(%a: tensor<3xf32>) {
  // expected-error @+1 {{'kiln.value_and_grad' op 'llvm_callee' has no function type}}
  %l, %g = kiln.value_and_grad @llvm_callee(%a) {wrt = array<i64: 0>} : (tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>)
  return
}
