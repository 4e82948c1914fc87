// RUN: kiln-opt %s --split-input-file --verify-diagnostics

func.func @add_not_broadcastable(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{operand shapes [2, 3] and [4] are not broadcastable}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @add_element_types(%a: tensor<3xf32>, %b: tensor<3xf64>) -> tensor<3xf32> {
  // expected-error @+2 {{operands must have the same element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.add %a, %b : (tensor<3xf32>, tensor<3xf64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @add_wrong_result(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+2 {{'kiln.add' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @add_dynamic(%a: tensor<?xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor}}
  %0 = kiln.add %a, %b : (tensor<?xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @sub_bool(%a: tensor<3xi1>, %b: tensor<3xi1>) -> tensor<3xi1> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of floating-point or 8-bit signless integer or 32-bit signless integer or 64-bit signless integer values}}
  %0 = kiln.sub %a, %b : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

func.func @div_bool(%a: tensor<3xi1>, %b: tensor<3xi1>) -> tensor<3xi1> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of floating-point or 8-bit signless integer}}
  %0 = kiln.div %a, %b : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

func.func @pow_int(%a: tensor<3xi32>, %b: tensor<3xi32>) -> tensor<3xi32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of floating-point values}}
  %0 = kiln.pow %a, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

func.func @mul_not_broadcastable(%a: tensor<2x3xf32>, %b: tensor<2xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{operand shapes [2, 3] and [2] are not broadcastable}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.mul %a, %b : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @compare_element_types(%a: tensor<3xf32>, %b: tensor<3xf16>) -> tensor<3xi1> {
  // expected-error @+2 {{operands must have the same element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.lt %a, %b : (tensor<3xf32>, tensor<3xf16>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

func.func @compare_not_broadcastable(%a: tensor<2x3xi32>, %b: tensor<2xi32>) -> tensor<2x3xi1> {
  // expected-error @+2 {{operand shapes [2, 3] and [2] are not broadcastable}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.eq %a, %b : (tensor<2x3xi32>, tensor<2xi32>) -> tensor<2x3xi1>
  return %0 : tensor<2x3xi1>
}

// -----

func.func @compare_result_not_bool(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{result #0 must be statically shaped tensor of 1-bit signless integer values}}
  %0 = kiln.gt %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @compare_wrong_result_shape(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<3xi1> {
  // expected-error @+2 {{'kiln.ge' op inferred type(s) 'tensor<2x3xi1>' are incompatible with return type(s) of operation 'tensor<3xi1>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.ge %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

func.func @select_element_types(%c: tensor<3xi1>, %a: tensor<3xf32>, %b: tensor<3xf16>) -> tensor<3xf32> {
  // expected-error @+2 {{'on_true' and 'on_false' must have the same element type, got 'f32' and 'f16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.select %c, %a, %b : (tensor<3xi1>, tensor<3xf32>, tensor<3xf16>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @select_not_broadcastable(%c: tensor<2x1xi1>, %a: tensor<3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{operand shapes [2, 3] and [4] are not broadcastable}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.select %c, %a, %b : (tensor<2x1xi1>, tensor<3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @select_cond_not_bool(%c: tensor<3xf32>, %a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 1-bit signless integer values}}
  %0 = kiln.select %c, %a, %b : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @select_wrong_result(%c: tensor<2x1xi1>, %a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+2 {{'kiln.select' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.select %c, %a, %b : (tensor<2x1xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @unary_int(%x: tensor<3xi32>) -> tensor<3xi32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of floating-point values}}
  %0 = kiln.exp %x : tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

func.func @unary_type_mismatch(%x: tensor<3xf32>) -> tensor<3xf16> {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "kiln.tanh"(%x) : (tensor<3xf32>) -> tensor<3xf16>
  return %0 : tensor<3xf16>
}

// -----

func.func @neg_bool(%x: tensor<3xi1>) -> tensor<3xi1> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of floating-point or 8-bit signless integer}}
  %0 = kiln.neg %x : tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

func.func @leaky_relu_alpha_inf(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'kiln.leaky_relu' op 'alpha' must be finite, got inf}}
  %0 = kiln.leaky_relu %x {alpha = 0x7FF0000000000000 : f64} : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @leaky_relu_alpha_neg_inf(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'kiln.leaky_relu' op 'alpha' must be finite, got -inf}}
  %0 = kiln.leaky_relu %x {alpha = 0xFFF0000000000000 : f64} : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @elu_alpha_nan(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'kiln.elu' op 'alpha' must be finite, got nan}}
  %0 = kiln.elu %x {alpha = 0x7FF8000000000000 : f64} : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @gelu_bad_approximation(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+2 {{expected ::mlir::kiln::GeluApproximation to be one of: none, tanh}}
  // expected-error @+1 {{failed to parse Kiln_GeluApproximationAttr parameter 'value'}}
  %0 = kiln.gelu %x {approximate = #kiln.approximation<erf>} : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @clamp_no_bounds(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'kiln.clamp' op at least one of 'min' and 'max' must be set}}
  %0 = kiln.clamp %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @clamp_min_nan(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'kiln.clamp' op 'min' must not be NaN}}
  %0 = kiln.clamp %x {min = 0x7FF8000000000000 : f64} : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @clamp_max_nan(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'kiln.clamp' op 'max' must not be NaN}}
  %0 = kiln.clamp %x {min = 0.0 : f64, max = 0x7FF8000000000000 : f64} : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @clamp_min_above_max(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'kiln.clamp' op 'min' 2.000000e+00 must not be greater than 'max' 1.000000e+00}}
  %0 = kiln.clamp %x {min = 2.0 : f64, max = 1.0 : f64} : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @convert_shape(%x: tensor<2x3xf32>) -> tensor<3x2xf16> {
  // expected-error @+1 {{'kiln.convert' op result shape [3, 2] must equal operand shape [2, 3]}}
  %0 = kiln.convert %x : tensor<2x3xf32> to tensor<3x2xf16>
  return %0 : tensor<3x2xf16>
}

// -----

func.func @convert_dynamic(%x: tensor<?xf32>) -> tensor<?xf16> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor}}
  %0 = kiln.convert %x : tensor<?xf32> to tensor<?xf16>
  return %0 : tensor<?xf16>
}
