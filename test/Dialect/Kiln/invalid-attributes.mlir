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
