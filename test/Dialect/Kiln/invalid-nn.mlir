// RUN: kiln-opt %s --split-input-file --verify-diagnostics

func.func @dropout_p_one(%x: tensor<4xf32>, %seed: tensor<i64>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.dropout' op 'p' must be in [0, 1), got 1.000000e+00}}
  %0 = kiln.dropout %x, %seed {p = 1.0} : tensor<4xf32>, tensor<i64>
  return %0 : tensor<4xf32>
}

// -----

func.func @dropout_p_negative(%x: tensor<4xf32>, %seed: tensor<i64>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.dropout' op 'p' must be in [0, 1), got -1.000000e-01}}
  %0 = kiln.dropout %x, %seed {p = -0.1} : tensor<4xf32>, tensor<i64>
  return %0 : tensor<4xf32>
}

// -----

func.func @dropout_p_nan(%x: tensor<4xf32>, %seed: tensor<i64>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.dropout' op 'p' must be in [0, 1), got nan}}
  %0 = kiln.dropout %x, %seed {p = 0x7FF8000000000000 : f64} : tensor<4xf32>, tensor<i64>
  return %0 : tensor<4xf32>
}

// -----

func.func @dropout_p_f32(%x: tensor<4xf32>, %seed: tensor<i64>) -> tensor<4xf32> {
  // expected-error @+1 {{attribute 'p' failed to satisfy constraint: 64-bit float attribute}}
  %0 = kiln.dropout %x, %seed {p = 0.5 : f32} : tensor<4xf32>, tensor<i64>
  return %0 : tensor<4xf32>
}

// -----

func.func @dropout_seed_rank(%x: tensor<4xf32>, %seed: tensor<1xi64>) -> tensor<4xf32> {
  // expected-error @+1 {{operand #1 must be 0D tensor of 64-bit signless integer values}}
  %0 = kiln.dropout %x, %seed {p = 0.5} : tensor<4xf32>, tensor<1xi64>
  return %0 : tensor<4xf32>
}

// -----

func.func @dropout_int(%x: tensor<4xi32>, %seed: tensor<i64>) -> tensor<4xi32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of floating-point values}}
  %0 = kiln.dropout %x, %seed {p = 0.5} : tensor<4xi32>, tensor<i64>
  return %0 : tensor<4xi32>
}

// -----

func.func @cross_entropy_logits_rank(%logits: tensor<10xf32>, %labels: tensor<i64>) -> tensor<f32> {
  // expected-error @+1 {{'kiln.cross_entropy' op logits must have rank 2 ([N, C]), got 'tensor<10xf32>'}}
  %0 = kiln.cross_entropy %logits, %labels : (tensor<10xf32>, tensor<i64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @cross_entropy_no_classes(%logits: tensor<4x0xf32>, %labels: tensor<4xi64>) -> tensor<f32> {
  // expected-error @+1 {{'kiln.cross_entropy' op logits must have at least one class, got 'tensor<4x0xf32>'}}
  %0 = kiln.cross_entropy %logits, %labels : (tensor<4x0xf32>, tensor<4xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @cross_entropy_labels_rank(%logits: tensor<4x10xf32>, %labels: tensor<4x1xi64>) -> tensor<f32> {
  // expected-error @+1 {{'kiln.cross_entropy' op labels must have rank 1 ([N]), got 'tensor<4x1xi64>'}}
  %0 = kiln.cross_entropy %logits, %labels : (tensor<4x10xf32>, tensor<4x1xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @cross_entropy_batch(%logits: tensor<4x10xf32>, %labels: tensor<3xi64>) -> tensor<f32> {
  // expected-error @+1 {{'kiln.cross_entropy' op labels have 3 entries but logits have 4 rows}}
  %0 = kiln.cross_entropy %logits, %labels : (tensor<4x10xf32>, tensor<3xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @cross_entropy_float_labels(%logits: tensor<4x10xf32>, %labels: tensor<4xf32>) -> tensor<f32> {
  // expected-error @+1 {{operand #1 must be statically shaped tensor of 32/64-bit signless integer values}}
  %0 = kiln.cross_entropy %logits, %labels : (tensor<4x10xf32>, tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @cross_entropy_none_result(%logits: tensor<4x10xf32>, %labels: tensor<4xi64>) -> tensor<f32> {
  // expected-error @+2 {{'kiln.cross_entropy' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<f32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.cross_entropy %logits, %labels {reduction = #kiln.reduction<none>} : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @layer_norm_rank_zero(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'kiln.layer_norm' op 'normalized_rank' 0 is out of range [1, 2]}}
  %0 = kiln.layer_norm %x {normalized_rank = 0 : i64} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @layer_norm_rank_too_large(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'kiln.layer_norm' op 'normalized_rank' 9223372036854775807 is out of range [1, 2]}}
  %0 = kiln.layer_norm %x {normalized_rank = 9223372036854775807 : i64} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @layer_norm_epsilon_zero(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'kiln.layer_norm' op 'epsilon' must be positive and finite, got 0.000000e+00}}
  %0 = kiln.layer_norm %x {epsilon = 0.0} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @layer_norm_epsilon_inf(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'kiln.layer_norm' op 'epsilon' must be positive and finite, got INF}}
  %0 = kiln.layer_norm %x {epsilon = 0x7FF0000000000000 : f64} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @layer_norm_weight_shape(%x: tensor<2x8xf32>, %w: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'kiln.layer_norm' op weight must be 'tensor<8xf32>' (the normalized trailing dims of the input), got 'tensor<2x8xf32>'}}
  %0 = kiln.layer_norm %x weight(%w : tensor<2x8xf32>) : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @layer_norm_bias_element_type(%x: tensor<2x8xf32>, %b: tensor<8xf16>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'kiln.layer_norm' op bias must be 'tensor<8xf32>' (the normalized trailing dims of the input), got 'tensor<8xf16>'}}
  %0 = kiln.layer_norm %x bias(%b : tensor<8xf16>) : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @layer_norm_result_type(%x: tensor<2x8xf32>) -> tensor<2x8xf16> {
  // expected-error @+1 {{'kiln.layer_norm' op failed to verify that all of {input, result} have same type}}
  %0 = "kiln.layer_norm"(%x) <{epsilon = 1.0e-5 : f64, normalized_rank = 1 : i64, operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<2x8xf32>) -> tensor<2x8xf16>
  return %0 : tensor<2x8xf16>
}

// -----

func.func @rms_norm_rank(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'kiln.rms_norm' op 'normalized_rank' 2 is out of range [1, 1]}}
  %0 = kiln.rms_norm %x {normalized_rank = 2 : i64} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @rms_norm_epsilon_negative(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'kiln.rms_norm' op 'epsilon' must be positive and finite, got -1.000000e+00}}
  %0 = kiln.rms_norm %x {epsilon = -1.0} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @rms_norm_weight_shape(%x: tensor<2x3x4xf32>, %w: tensor<4xf32>) -> tensor<2x3x4xf32> {
  // expected-error @+1 {{'kiln.rms_norm' op weight must be 'tensor<3x4xf32>' (the normalized trailing dims of the input), got 'tensor<4xf32>'}}
  %0 = kiln.rms_norm %x weight(%w : tensor<4xf32>) {normalized_rank = 2 : i64} : tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Generic form: the segment sizes add up, but give the input two operands.
func.func @layer_norm_bad_segments(%x: tensor<2x8xf32>, %w: tensor<8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'operandSegmentSizes' must give the input exactly one operand}}
  %0 = "kiln.layer_norm"(%x, %w) <{operandSegmentSizes = array<i32: 2, 0, 0>, normalized_rank = 1 : i64, epsilon = 1.0e-5 : f64}> : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}
