// RUN: kiln-opt %s --kiln-autodiff --split-input-file --verify-diagnostics

func.func private @no_rule(%x: tensor<2x4xf32>) -> tensor<f32> {
  // Every kiln op has a rule; an upstream op on tensors has none.
  // expected-error @+1 {{'arith.addf' has no backward rule}}
  %0 = arith.addf %x, %x : tensor<2x4xf32>
  %1 = kiln.sum %0 {axes = array<i64: 0, 1>} : tensor<2x4xf32> -> tensor<f32>
  return %1 : tensor<f32>
}
func.func @main(%x: tensor<2x4xf32>) -> (tensor<f32>, tensor<2x4xf32>) {
  %l, %g = kiln.value_and_grad @no_rule(%x) {wrt = array<i64: 0>} : (tensor<2x4xf32>) -> (tensor<f32>, tensor<2x4xf32>)
  return %l, %g : tensor<f32>, tensor<2x4xf32>
}

// -----

func.func private @callee(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func private @has_call(%x: tensor<3xf32>) -> tensor<f32> {
  // expected-error @+1 {{calls inside a differentiated function are not supported (inline them first)}}
  %0 = func.call @callee(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = kiln.sum %0 {axes = array<i64: 0>} : tensor<3xf32> -> tensor<f32>
  return %1 : tensor<f32>
}
func.func @main(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  %l, %g = kiln.value_and_grad @has_call(%x) {wrt = array<i64: 0>} : (tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>)
  return %l, %g : tensor<f32>, tensor<3xf32>
}

// -----

// expected-error @+1 {{cannot differentiate 'two_blocks': functions with more than one block are not supported}}
func.func private @two_blocks(%x: tensor<f32>) -> tensor<f32> {
  cf.br ^bb1
^bb1:
  return %x : tensor<f32>
}
func.func @main(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %l, %g = kiln.value_and_grad @two_blocks(%x) {wrt = array<i64: 0>} : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %l, %g : tensor<f32>, tensor<f32>
}

// -----

func.func private @region(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{ops with regions are not supported inside a differentiated function}}
  %0 = scf.execute_region -> tensor<f32> {
    scf.yield %x : tensor<f32>
  }
  return %0 : tensor<f32>
}
func.func @main(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %l, %g = kiln.value_and_grad @region(%x) {wrt = array<i64: 0>} : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %l, %g : tensor<f32>, tensor<f32>
}

// -----

// expected-error @+1 {{cannot differentiate the external function 'external'}}
func.func private @external(%x: tensor<f32>) -> tensor<f32>
func.func @main(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %l, %g = kiln.value_and_grad @external(%x) {wrt = array<i64: 0>} : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %l, %g : tensor<f32>, tensor<f32>
}

// -----

// A cotangent of attention's lse result is refused rather than dropped.
func.func private @through_lse(%q: tensor<1x1x3x2xf32>) -> tensor<f32> {
  // expected-error @+1 {{cannot differentiate through the 'lse' result of kiln.attention: only its first result 'O' may reach the differentiated output (remat=save-all decomposes attention first, and then differentiates through its lse)}}
  %o, %lse = kiln.attention %q, %q, %q : tensor<1x1x3x2xf32>, tensor<1x1x3x2xf32>, tensor<1x1x3x2xf32> -> tensor<1x1x3x2xf32>, tensor<1x1x3xf32>
  %l = kiln.sum %lse {axes = array<i64: 0, 1, 2>} : tensor<1x1x3xf32> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @main(%q: tensor<1x1x3x2xf32>) -> (tensor<f32>, tensor<1x1x3x2xf32>) {
  %l, %g = kiln.value_and_grad @through_lse(%q) {wrt = array<i64: 0>} : (tensor<1x1x3x2xf32>) -> (tensor<f32>, tensor<1x1x3x2xf32>)
  return %l, %g : tensor<f32>, tensor<1x1x3x2xf32>
}

// -----

// ALiBi slopes that depend on a differentiated argument are refused: their
// gradient is not computed, and a zero would be silently wrong.
func.func private @alibi_wrt(%q: tensor<1x2x3x2xf32>, %s: tensor<2xf32>) -> tensor<f32> {
  %t = kiln.tanh %s : tensor<2xf32>
  // expected-error @+1 {{cannot differentiate kiln.attention with respect to 'alibi_slopes': the slopes get no gradient (make them a constant or an input that is not differentiated)}}
  %o = kiln.attention %q, %q, %q alibi_slopes(%t : tensor<2xf32>) : tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32> -> tensor<1x2x3x2xf32>
  %l = kiln.sum %o {axes = array<i64: 0, 1, 2, 3>} : tensor<1x2x3x2xf32> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @main(%q: tensor<1x2x3x2xf32>, %s: tensor<2xf32>) -> (tensor<f32>, tensor<1x2x3x2xf32>, tensor<2xf32>) {
  %l, %gq, %gs = kiln.value_and_grad @alibi_wrt(%q, %s) {wrt = array<i64: 0, 1>} : (tensor<1x2x3x2xf32>, tensor<2xf32>) -> (tensor<f32>, tensor<1x2x3x2xf32>, tensor<2xf32>)
  return %l, %gq, %gs : tensor<f32>, tensor<1x2x3x2xf32>, tensor<2xf32>
}
