// RUN: kiln-opt %s --split-input-file --verify-diagnostics

func.func @sum_axis_out_of_range(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'kiln.sum' op axis 2 is out of range [0, 2)}}
  %0 = kiln.sum %x {axes = array<i64: 2>} : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @sum_negative_axis(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'kiln.sum' op axis -1 is out of range [0, 2)}}
  %0 = kiln.sum %x {axes = array<i64: -1>} : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @sum_huge_axis(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'kiln.sum' op axis 9223372036854775807 is out of range [0, 2)}}
  %0 = kiln.sum %x {axes = array<i64: 9223372036854775807>} : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @sum_rank0(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'kiln.sum' op axis 0 is out of range [0, 0)}}
  %0 = kiln.sum %x {axes = array<i64: 0>} : tensor<f32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @sum_empty_axes(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'kiln.sum' op 'axes' must not be empty}}
  %0 = kiln.sum %x {axes = array<i64>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @mean_repeated_axis(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'kiln.mean' op axis 1 is repeated}}
  %0 = kiln.mean %x {axes = array<i64: 1, 1>} : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @sum_missing_axes(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'kiln.sum' op requires attribute 'axes'}}
  %0 = kiln.sum %x : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @sum_wrong_result(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{'kiln.sum' op inferred type(s) 'tensor<2x1xf32>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.sum %x {axes = array<i64: 1>, keep_dims = true} : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @mean_int(%x: tensor<2x3xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of floating-point values}}
  %0 = kiln.mean %x {axes = array<i64: 1>} : tensor<2x3xi32> -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @sum_dynamic(%x: tensor<?x3xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor}}
  %0 = kiln.sum %x {axes = array<i64: 1>} : tensor<?x3xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @max_empty_dim(%x: tensor<2x0xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'kiln.max' op cannot take the max over axis 1 of size 0}}
  %0 = kiln.max %x {axes = array<i64: 1>} : tensor<2x0xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @min_empty_dim(%x: tensor<0x3xi32>) -> tensor<3xi32> {
  // expected-error @+1 {{'kiln.min' op cannot take the min over axis 0 of size 0}}
  %0 = kiln.min %x {axes = array<i64: 0>} : tensor<0x3xi32> -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

func.func @variance_negative_correction(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'kiln.variance' op 'correction' must be non-negative, got -1}}
  %0 = kiln.variance %x {axes = array<i64: 1>, correction = -1 : i64} : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @variance_axis_out_of_range(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'kiln.variance' op axis 5 is out of range [0, 2)}}
  %0 = kiln.variance %x {axes = array<i64: 5>} : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @argmax_axis_out_of_range(%x: tensor<2x3xf32>) -> tensor<2xi64> {
  // expected-error @+1 {{'kiln.argmax' op axis 2 is out of range [0, 2)}}
  %0 = kiln.argmax %x {axis = 2 : i64} : tensor<2x3xf32> -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

func.func @argmax_empty_dim(%x: tensor<2x0xf32>) -> tensor<2xi64> {
  // expected-error @+1 {{'kiln.argmax' op cannot take the argmax over axis 1 of size 0}}
  %0 = kiln.argmax %x {axis = 1 : i64} : tensor<2x0xf32> -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

func.func @argmax_result_type(%x: tensor<2x3xf32>) -> tensor<2xi32> {
  // expected-error @+1 {{result #0 must be statically shaped tensor of 64-bit signless integer values}}
  %0 = kiln.argmax %x {axis = 1 : i64} : tensor<2x3xf32> -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @softmax_axis_out_of_range(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'kiln.softmax' op axis 2 is out of range [0, 2)}}
  %0 = kiln.softmax %x {axis = 2 : i64} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @log_softmax_negative_axis(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'kiln.log_softmax' op axis -1 is out of range [0, 2)}}
  %0 = kiln.log_softmax %x {axis = -1 : i64} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @softmax_int(%x: tensor<2x3xi32>) -> tensor<2x3xi32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of floating-point values}}
  %0 = kiln.softmax %x {axis = 1 : i64} : tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

func.func @cumsum_axis_out_of_range(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'kiln.cumsum' op axis 2 is out of range [0, 2)}}
  %0 = kiln.cumsum %x {axis = 2 : i64} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Front ends normalize negative axes, as for every kiln op.
func.func @cumsum_negative_axis(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'kiln.cumsum' op axis -1 is out of range [0, 2)}}
  %0 = kiln.cumsum %x {axis = -1 : i64} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @cumsum_rank0(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'kiln.cumsum' op input must have rank >= 1 (a rank-0 cumulative sum is the input itself), got 'tensor<f32>'}}
  %0 = kiln.cumsum %x {axis = 0 : i64} : tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @cumsum_missing_axis(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'kiln.cumsum' op requires attribute 'axis'}}
  %0 = kiln.cumsum %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @cumsum_result_type(%x: tensor<2x3xf32>) -> tensor<2x3xf64> {
  // expected-error @+1 {{'kiln.cumsum' op failed to verify that all of {input, result} have same type}}
  %0 = "kiln.cumsum"(%x) {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}

// -----

func.func @cumsum_dynamic(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of kiln element values}}
  %0 = kiln.cumsum %x {axis = 1 : i64} : tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

func.func @cumsum_misspelt_attribute(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'kiln.cumsum' op has unknown attribute 'revers'}}
  %0 = kiln.cumsum %x {axis = 1 : i64, revers = true} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @matmul_rank0_lhs(%a: tensor<f32>, %b: tensor<3xf32>) -> tensor<f32> {
  // expected-error @+2 {{lhs must have rank >= 1, got 'tensor<f32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.matmul %a, %b : (tensor<f32>, tensor<3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @matmul_rank0_rhs(%a: tensor<3xf32>, %b: tensor<f32>) -> tensor<f32> {
  // expected-error @+2 {{rhs must have rank >= 1, got 'tensor<f32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.matmul %a, %b : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @matmul_element_types(%a: tensor<2x3xf32>, %b: tensor<3x4xf16>) -> tensor<2x4xf32> {
  // expected-error @+2 {{lhs element type 'f32' does not match rhs element type 'f16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf16>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @matmul_contraction(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+2 {{contraction dimension of lhs [2, 3] has size 3 but that of rhs [4, 5] has size 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @matmul_vectors(%a: tensor<3xf32>, %b: tensor<4xf32>) -> tensor<f32> {
  // expected-error @+2 {{contraction dimension of lhs [3] has size 3 but that of rhs [4] has size 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.matmul %a, %b : (tensor<3xf32>, tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @matmul_batch(%a: tensor<4x2x3xf32>, %b: tensor<5x3x2xf32>) -> tensor<4x2x2xf32> {
  // expected-error @+2 {{batch dimensions [4] and [5] are not broadcastable}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.matmul %a, %b : (tensor<4x2x3xf32>, tensor<5x3x2xf32>) -> tensor<4x2x2xf32>
  return %0 : tensor<4x2x2xf32>
}

// -----

func.func @matmul_wrong_result(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x1xf32> {
  // expected-error @+2 {{'kiln.matmul' op inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<2x1xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.matmul %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}
