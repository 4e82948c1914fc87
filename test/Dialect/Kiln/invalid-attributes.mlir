// RUN: kiln-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// Every kiln op rejects a discardable attribute without a dialect prefix:
// MLIR would keep a misspelt inherent attribute as a discardable one, and
// the op would silently compute something else (`causl` left attention
// non-causal).

func.func @misspelt_flag(%q: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  // expected-error @+1 {{'kiln.attention' op has unknown attribute 'causl' (expected one of alignment, causal, dropout_p, scale, softcap, window_left, window_right)}}
  %o = kiln.attention %q, %q, %q {causl} : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
  return %o : tensor<1x2x4x8xf32>
}

// -----

func.func @misspelt_value(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'kiln.gelu' op has unknown attribute 'approximation' (expected one of approximate)}}
  %y = kiln.gelu %x {approximation = #kiln.approximation<tanh>} : tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @none_taken(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.exp' op has unknown attribute 'fast' (it takes none)}}
  %y = kiln.exp %x {fast} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @empty_name(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.exp' op has unknown attribute 'foo.' (it takes none)}}
  %y = kiln.exp %x {"foo." = 1 : i64} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// A dialect-prefixed discardable attribute is the user's to carry along.
// CHECK-LABEL: func.func @prefixed
// CHECK: kiln.exp %{{.*}} {foo.note = "kept"}
func.func @prefixed(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = kiln.exp %x {foo.note = "kept"} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// A `kiln.*` discardable attribute must be one of Kiln's own, wherever it
// sits (on an op, a function argument or result): a misspelt one would be
// ignored by the pass that reads it.
// expected-error @+1 {{unknown Kiln attribute 'kiln.entry_pont'; did you mean 'kiln.entry_point'?}}
func.func @misspelt_op_attribute(%x: tensor<4xf32>) -> tensor<4xf32> attributes {kiln.entry_pont = "f"} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{unknown Kiln attribute 'kiln.paramter' on argument 1; did you mean 'kiln.parameter'?}}
func.func @misspelt_argument_attribute(%x: tensor<4xf32>, %w: tensor<4xf32> {kiln.paramter}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{unknown Kiln attribute 'kiln.gradients' on result 0; did you mean 'kiln.gradient'?}}
func.func @misspelt_result_attribute(%x: tensor<4xf32>) -> (tensor<4xf32> {kiln.gradients = 0 : i64}) {
  return %x : tensor<4xf32>
}

// -----

func.func @unknown_on_other_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unknown Kiln attribute 'kiln.note' (Kiln's are kiln.backward, kiln.cotangent, kiln.entry_point, kiln.forward, kiln.gradient, kiln.input_names, kiln.kernel_attributes, kiln.output, kiln.output_names, kiln.parameter, kiln.residual)}}
  %y = arith.negf %x {kiln.note = "x"} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// Kiln's own are accepted.
// CHECK-LABEL: func.func @known
// CHECK-SAME: kiln.parameter
// CHECK-SAME: kiln.residual
// CHECK-SAME: kiln.gradient
// CHECK-SAME: kiln.entry_point = "known"
func.func @known(%x: tensor<4xf32>, %w: tensor<4xf32> {kiln.parameter}, %r: tensor<4xf32> {kiln.residual = 0 : i64}) -> (tensor<4xf32> {kiln.gradient = 1 : i64}) attributes {kiln.entry_point = "known", kiln.input_names = ["x", "w", "r"]} {
  return %x : tensor<4xf32>
}
