// RUN: kiln-opt %s --split-input-file --verify-diagnostics

func.func @conv2d_input_rank(%x: tensor<4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+1 {{'kiln.conv2d' op input must have rank 4 (N, Cin and spatial), got rank 3}}
  %0 = kiln.conv2d %x, %w : (tensor<4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv2d_weight_rank(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+1 {{'kiln.conv2d' op weight must have rank 4 (Cout, Cin / groups and kernel), got rank 3}}
  %0 = kiln.conv2d %x, %w : (tensor<1x4x8x8xf32>, tensor<6x4x3xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv2d_stride_entries(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+1 {{'kiln.conv2d' op 'stride' must have 2 entries, one per spatial dim, got 3}}
  %0 = kiln.conv2d %x, %w {stride = array<i64: 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv1d_stride_entries(%x: tensor<1x4x8xf32>, %w: tensor<6x4x3xf32>) -> tensor<1x6x6xf32> {
  // expected-error @+1 {{'kiln.conv1d' op 'stride' must have 1 entry, one per spatial dim, got 2}}
  %0 = kiln.conv1d %x, %w {stride = array<i64: 1, 1>} : (tensor<1x4x8xf32>, tensor<6x4x3xf32>) -> tensor<1x6x6xf32>
  return %0 : tensor<1x6x6xf32>
}

// -----

func.func @conv2d_stride_zero(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+1 {{'kiln.conv2d' op 'stride' entries must be positive, got [1, 0]}}
  %0 = kiln.conv2d %x, %w {stride = array<i64: 1, 0>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv2d_padding_entries(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+1 {{'kiln.conv2d' op 'padding' must have 2 entries, one per spatial dim, got 1}}
  %0 = kiln.conv2d %x, %w {padding = array<i64: 1>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv2d_padding_negative(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+1 {{'kiln.conv2d' op 'padding' entries must be non-negative, got [-1, 0]}}
  %0 = kiln.conv2d %x, %w {padding = array<i64: -1, 0>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv3d_dilation_entries(%x: tensor<1x2x4x9x9xf32>, %w: tensor<4x2x1x3x3xf32>) -> tensor<1x4x4x5x5xf32> {
  // expected-error @+1 {{'kiln.conv3d' op 'dilation' must have 3 entries, one per spatial dim, got 2}}
  %0 = kiln.conv3d %x, %w {dilation = array<i64: 2, 2>} : (tensor<1x2x4x9x9xf32>, tensor<4x2x1x3x3xf32>) -> tensor<1x4x4x5x5xf32>
  return %0 : tensor<1x4x4x5x5xf32>
}

// -----

func.func @conv2d_dilation_zero(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+1 {{'kiln.conv2d' op 'dilation' entries must be positive, got [0, 1]}}
  %0 = kiln.conv2d %x, %w {dilation = array<i64: 0, 1>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv2d_kernel_zero(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x0xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+1 {{'kiln.conv2d' op kernel size of spatial dim 1 must be positive, got 0}}
  %0 = kiln.conv2d %x, %w : (tensor<1x4x8x8xf32>, tensor<6x4x3x0xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv2d_output_too_small(%x: tensor<1x4x2x8xf32>, %w: tensor<6x4x2x3xf32>) -> tensor<1x6x1x6xf32> {
  // expected-error @+1 {{'kiln.conv2d' op spatial dim 0: dilated kernel size 4 exceeds padded input size 2}}
  %0 = kiln.conv2d %x, %w {dilation = array<i64: 3, 1>} : (tensor<1x4x2x8xf32>, tensor<6x4x2x3xf32>) -> tensor<1x6x1x6xf32>
  return %0 : tensor<1x6x1x6xf32>
}

// -----

func.func @conv2d_overflow(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+1 {{'kiln.conv2d' op output size of spatial dim 0 overflows}}
  %0 = kiln.conv2d %x, %w {padding = array<i64: 4611686018427387904, 0>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv2d_groups_zero(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+1 {{'kiln.conv2d' op 'groups' must be positive, got 0}}
  %0 = kiln.conv2d %x, %w {groups = 0 : i64} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv2d_input_channels_groups(%x: tensor<1x4x8x8xf32>, %w: tensor<6x1x3x3xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+1 {{'kiln.conv2d' op input channels 4 are not divisible by groups 3}}
  %0 = kiln.conv2d %x, %w {groups = 3 : i64} : (tensor<1x4x8x8xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv2d_output_channels_groups(%x: tensor<1x4x8x8xf32>, %w: tensor<5x2x3x3xf32>) -> tensor<1x5x6x6xf32> {
  // expected-error @+1 {{'kiln.conv2d' op output channels 5 (weight dim 0) are not divisible by groups 2}}
  %0 = kiln.conv2d %x, %w {groups = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<5x2x3x3xf32>) -> tensor<1x5x6x6xf32>
  return %0 : tensor<1x5x6x6xf32>
}

// -----

func.func @conv2d_weight_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+1 {{'kiln.conv2d' op weight dim 1 must be input channels / groups = 4 / 2 = 2, got 4}}
  %0 = kiln.conv2d %x, %w {groups = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv2d_bias_shape(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+1 {{'kiln.conv2d' op bias must have shape [6] (one entry per output channel), got [4]}}
  %0 = kiln.conv2d %x, %w bias(%b) : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>, tensor<4xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv2d_weight_element_type(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf16>) -> tensor<1x6x6x6xf32> {
  // expected-error @+1 {{'kiln.conv2d' op weight element type 'f16' does not match input element type 'f32'}}
  %0 = kiln.conv2d %x, %w : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf16>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv2d_bias_element_type(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>, %b: tensor<6xbf16>) -> tensor<1x6x6x6xf32> {
  // expected-error @+1 {{'kiln.conv2d' op bias element type 'bf16' does not match input element type 'f32'}}
  %0 = kiln.conv2d %x, %w bias(%b) : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>, tensor<6xbf16>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv2d_wrong_result(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32> {
  // expected-error @+2 {{'kiln.conv2d' op inferred type(s) 'tensor<1x6x6x6xf32>' are incompatible with return type(s) of operation 'tensor<1x6x8x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.conv2d %x, %w : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32>
  return %0 : tensor<1x6x8x8xf32>
}

// -----

func.func @conv2d_integer(%x: tensor<1x4x8x8xi32>, %w: tensor<6x4x3x3xi32>) -> tensor<1x6x6x6xi32> {
  // expected-error @+1 {{'kiln.conv2d' op operand #0 must be statically shaped tensor of floating-point values}}
  %0 = kiln.conv2d %x, %w : (tensor<1x4x8x8xi32>, tensor<6x4x3x3xi32>) -> tensor<1x6x6x6xi32>
  return %0 : tensor<1x6x6x6xi32>
}

// -----

func.func @conv_transpose1d_input_rank(%x: tensor<4x8xf32>, %w: tensor<4x3x3xf32>) -> tensor<1x3x10xf32> {
  // expected-error @+1 {{'kiln.conv_transpose1d' op input must have rank 3 (N, Cin and L), got rank 2}}
  %0 = kiln.conv_transpose1d %x, %w : (tensor<4x8xf32>, tensor<4x3x3xf32>) -> tensor<1x3x10xf32>
  return %0 : tensor<1x3x10xf32>
}

// -----

func.func @conv_transpose1d_weight_rank(%x: tensor<1x4x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x3x10xf32> {
  // expected-error @+1 {{'kiln.conv_transpose1d' op weight must have rank 3 (Cin, Cout / groups and kernel), got rank 4}}
  %0 = kiln.conv_transpose1d %x, %w : (tensor<1x4x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x10xf32>
  return %0 : tensor<1x3x10xf32>
}

// -----

func.func @conv_transpose1d_stride_zero(%x: tensor<1x4x8xf32>, %w: tensor<4x3x3xf32>) -> tensor<1x3x10xf32> {
  // expected-error @+1 {{'kiln.conv_transpose1d' op 'stride' entries must be positive, got [0]}}
  %0 = kiln.conv_transpose1d %x, %w {stride = array<i64: 0>} : (tensor<1x4x8xf32>, tensor<4x3x3xf32>) -> tensor<1x3x10xf32>
  return %0 : tensor<1x3x10xf32>
}

// -----

func.func @conv_transpose1d_padding_negative(%x: tensor<1x4x8xf32>, %w: tensor<4x3x3xf32>) -> tensor<1x3x10xf32> {
  // expected-error @+1 {{'kiln.conv_transpose1d' op 'padding' entries must be non-negative, got [-2]}}
  %0 = kiln.conv_transpose1d %x, %w {padding = array<i64: -2>} : (tensor<1x4x8xf32>, tensor<4x3x3xf32>) -> tensor<1x3x10xf32>
  return %0 : tensor<1x3x10xf32>
}

// -----

func.func @conv_transpose1d_output_padding_entries(%x: tensor<1x4x8xf32>, %w: tensor<4x3x3xf32>) -> tensor<1x3x10xf32> {
  // expected-error @+1 {{'kiln.conv_transpose1d' op 'output_padding' must have 1 entry, one per spatial dim, got 2}}
  %0 = kiln.conv_transpose1d %x, %w {output_padding = array<i64: 0, 0>} : (tensor<1x4x8xf32>, tensor<4x3x3xf32>) -> tensor<1x3x10xf32>
  return %0 : tensor<1x3x10xf32>
}

// -----

func.func @conv_transpose1d_output_padding_negative(%x: tensor<1x4x8xf32>, %w: tensor<4x3x3xf32>) -> tensor<1x3x10xf32> {
  // expected-error @+1 {{'kiln.conv_transpose1d' op 'output_padding' entries must be non-negative, got [-1]}}
  %0 = kiln.conv_transpose1d %x, %w {output_padding = array<i64: -1>} : (tensor<1x4x8xf32>, tensor<4x3x3xf32>) -> tensor<1x3x10xf32>
  return %0 : tensor<1x3x10xf32>
}

// -----

func.func @conv_transpose1d_dilation_zero(%x: tensor<1x4x8xf32>, %w: tensor<4x3x3xf32>) -> tensor<1x3x10xf32> {
  // expected-error @+1 {{'kiln.conv_transpose1d' op 'dilation' entries must be positive, got [0]}}
  %0 = kiln.conv_transpose1d %x, %w {dilation = array<i64: 0>} : (tensor<1x4x8xf32>, tensor<4x3x3xf32>) -> tensor<1x3x10xf32>
  return %0 : tensor<1x3x10xf32>
}

// -----

func.func @conv_transpose1d_groups_zero(%x: tensor<1x4x8xf32>, %w: tensor<4x3x3xf32>) -> tensor<1x3x10xf32> {
  // expected-error @+1 {{'kiln.conv_transpose1d' op 'groups' must be positive, got 0}}
  %0 = kiln.conv_transpose1d %x, %w {groups = 0 : i64} : (tensor<1x4x8xf32>, tensor<4x3x3xf32>) -> tensor<1x3x10xf32>
  return %0 : tensor<1x3x10xf32>
}

// -----

func.func @conv_transpose1d_kernel_zero(%x: tensor<1x4x8xf32>, %w: tensor<4x3x0xf32>) -> tensor<1x3x10xf32> {
  // expected-error @+1 {{'kiln.conv_transpose1d' op kernel size of spatial dim 0 must be positive, got 0}}
  %0 = kiln.conv_transpose1d %x, %w : (tensor<1x4x8xf32>, tensor<4x3x0xf32>) -> tensor<1x3x10xf32>
  return %0 : tensor<1x3x10xf32>
}

// -----

func.func @conv_transpose1d_overflow(%x: tensor<1x4x8xf32>, %w: tensor<4x3x3xf32>) -> tensor<1x3x10xf32> {
  // expected-error @+1 {{'kiln.conv_transpose1d' op result shape overflows}}
  %0 = kiln.conv_transpose1d %x, %w {groups = 4611686018427387904 : i64} : (tensor<1x4x8xf32>, tensor<4x3x3xf32>) -> tensor<1x3x10xf32>
  return %0 : tensor<1x3x10xf32>
}

// -----

func.func @conv_transpose1d_output_too_small(%x: tensor<1x4x1xf32>, %w: tensor<4x3x1xf32>) -> tensor<1x3x1xf32> {
  // expected-error @+1 {{'kiln.conv_transpose1d' op spatial dim 0 has output size -1, it must be at least 1}}
  %0 = kiln.conv_transpose1d %x, %w {padding = array<i64: 1>} : (tensor<1x4x1xf32>, tensor<4x3x1xf32>) -> tensor<1x3x1xf32>
  return %0 : tensor<1x3x1xf32>
}

// -----

func.func @conv_transpose1d_output_padding_rule(%x: tensor<1x4x8xf32>, %w: tensor<4x3x3xf32>) -> tensor<1x3x22xf32> {
  // expected-error @+1 {{'kiln.conv_transpose1d' op 'output_padding' 2 must be smaller than either 'stride' 2 or 'dilation' 2}}
  %0 = kiln.conv_transpose1d %x, %w {stride = array<i64: 2>, dilation = array<i64: 2>, output_padding = array<i64: 2>} : (tensor<1x4x8xf32>, tensor<4x3x3xf32>) -> tensor<1x3x22xf32>
  return %0 : tensor<1x3x22xf32>
}

// -----

func.func @conv_transpose1d_input_channels_groups(%x: tensor<1x4x8xf32>, %w: tensor<4x3x3xf32>) -> tensor<1x9x10xf32> {
  // expected-error @+1 {{'kiln.conv_transpose1d' op input channels 4 are not divisible by groups 3}}
  %0 = kiln.conv_transpose1d %x, %w {groups = 3 : i64} : (tensor<1x4x8xf32>, tensor<4x3x3xf32>) -> tensor<1x9x10xf32>
  return %0 : tensor<1x9x10xf32>
}

// -----

func.func @conv_transpose1d_weight_channels(%x: tensor<1x4x8xf32>, %w: tensor<2x3x3xf32>) -> tensor<1x3x10xf32> {
  // expected-error @+1 {{'kiln.conv_transpose1d' op weight dim 0 must be input channels 4, got 2}}
  %0 = kiln.conv_transpose1d %x, %w : (tensor<1x4x8xf32>, tensor<2x3x3xf32>) -> tensor<1x3x10xf32>
  return %0 : tensor<1x3x10xf32>
}

// -----

func.func @conv_transpose1d_bias_shape(%x: tensor<1x4x8xf32>, %w: tensor<4x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x6x10xf32> {
  // expected-error @+1 {{'kiln.conv_transpose1d' op bias must have shape [6] (one entry per output channel), got [4]}}
  %0 = kiln.conv_transpose1d %x, %w bias(%b) {groups = 2 : i64} : (tensor<1x4x8xf32>, tensor<4x3x3xf32>, tensor<4xf32>) -> tensor<1x6x10xf32>
  return %0 : tensor<1x6x10xf32>
}

// -----

func.func @conv_transpose1d_weight_element_type(%x: tensor<1x4x8xf32>, %w: tensor<4x3x3xf64>) -> tensor<1x3x10xf32> {
  // expected-error @+1 {{'kiln.conv_transpose1d' op weight element type 'f64' does not match input element type 'f32'}}
  %0 = kiln.conv_transpose1d %x, %w : (tensor<1x4x8xf32>, tensor<4x3x3xf64>) -> tensor<1x3x10xf32>
  return %0 : tensor<1x3x10xf32>
}

// -----

func.func @conv_transpose1d_bias_element_type(%x: tensor<1x4x8xf32>, %w: tensor<4x3x3xf32>, %b: tensor<3xf16>) -> tensor<1x3x10xf32> {
  // expected-error @+1 {{'kiln.conv_transpose1d' op bias element type 'f16' does not match input element type 'f32'}}
  %0 = kiln.conv_transpose1d %x, %w bias(%b) : (tensor<1x4x8xf32>, tensor<4x3x3xf32>, tensor<3xf16>) -> tensor<1x3x10xf32>
  return %0 : tensor<1x3x10xf32>
}

// -----

func.func @max_pool2d_input_rank(%x: tensor<3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+1 {{'kiln.max_pool2d' op input must have rank 4 (N, C, H and W), got rank 3}}
  %0 = kiln.max_pool2d %x {kernel_size = array<i64: 2, 2>} : (tensor<3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

func.func @max_pool2d_kernel_entries(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+1 {{'kiln.max_pool2d' op 'kernel_size' must have 2 entries, one per spatial dim, got 1}}
  %0 = kiln.max_pool2d %x {kernel_size = array<i64: 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

func.func @max_pool2d_kernel_zero(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+1 {{'kiln.max_pool2d' op 'kernel_size' entries must be positive, got [2, 0]}}
  %0 = kiln.max_pool2d %x {kernel_size = array<i64: 2, 0>, stride = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

func.func @max_pool2d_stride_entries(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+1 {{'kiln.max_pool2d' op 'stride' must have 2 entries, one per spatial dim, got 3}}
  %0 = kiln.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

func.func @max_pool2d_stride_zero(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+1 {{'kiln.max_pool2d' op 'stride' entries must be positive, got [0, 2]}}
  %0 = kiln.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 0, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

func.func @max_pool2d_padding_negative(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+1 {{'kiln.max_pool2d' op 'padding' entries must be non-negative, got [0, -1]}}
  %0 = kiln.max_pool2d %x {kernel_size = array<i64: 2, 2>, padding = array<i64: 0, -1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

func.func @max_pool2d_dilation_zero(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+1 {{'kiln.max_pool2d' op 'dilation' entries must be positive, got [0, 0]}}
  %0 = kiln.max_pool2d %x {kernel_size = array<i64: 2, 2>, dilation = array<i64: 0, 0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

func.func @max_pool2d_output_too_small(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x2x0xf32> {
  // expected-error @+1 {{'kiln.max_pool2d' op spatial dim 1 has output size 0, it must be at least 1}}
  %0 = kiln.max_pool2d %x {kernel_size = array<i64: 3, 3>, dilation = array<i64: 1, 4>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x2x0xf32>
  return %0 : tensor<1x3x2x0xf32>
}

// -----

func.func @max_pool2d_overflow(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+1 {{'kiln.max_pool2d' op output size of spatial dim 0 overflows}}
  %0 = kiln.max_pool2d %x {kernel_size = array<i64: 2, 2>, padding = array<i64: 4611686018427387904, 0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

func.func @max_pool2d_padding_rule(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x3x4xf32> {
  // expected-error @+1 {{'kiln.max_pool2d' op 'padding' 2 of spatial dim 1 must be at most half of 'kernel_size' 3}}
  %0 = kiln.max_pool2d %x {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x3x4xf32>
  return %0 : tensor<1x3x3x4xf32>
}

// -----

func.func @max_pool2d_ceil_mode_wrong_result(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x3x3xf32> {
  // expected-error @+2 {{'kiln.max_pool2d' op inferred type(s) 'tensor<1x3x4x4xf32>' are incompatible with return type(s) of operation 'tensor<1x3x3x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.max_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, ceil_mode = true} : (tensor<1x3x8x8xf32>) -> tensor<1x3x3x3xf32>
  return %0 : tensor<1x3x3x3xf32>
}

// -----

func.func @avg_pool2d_input_rank(%x: tensor<1x1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+1 {{'kiln.avg_pool2d' op input must have rank 4 (N, C, H and W), got rank 5}}
  %0 = kiln.avg_pool2d %x {kernel_size = array<i64: 2, 2>} : (tensor<1x1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

func.func @avg_pool2d_output_too_small(%x: tensor<1x3x1x8xf32>) -> tensor<1x3x1x4xf32> {
  // expected-error @+1 {{'kiln.avg_pool2d' op spatial dim 0 has output size 0, it must be at least 1}}
  %0 = kiln.avg_pool2d %x {kernel_size = array<i64: 2, 2>} : (tensor<1x3x1x8xf32>) -> tensor<1x3x1x4xf32>
  return %0 : tensor<1x3x1x4xf32>
}

// -----

func.func @avg_pool2d_padding_rule(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x6x4xf32> {
  // expected-error @+1 {{'kiln.avg_pool2d' op 'padding' 2 of spatial dim 0 must be at most half of 'kernel_size' 2}}
  %0 = kiln.avg_pool2d %x {kernel_size = array<i64: 2, 2>, padding = array<i64: 2, 0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x6x4xf32>
  return %0 : tensor<1x3x6x4xf32>
}

// -----

func.func @avg_pool2d_integer(%x: tensor<1x3x8x8xi8>) -> tensor<1x3x4x4xi8> {
  // expected-error @+1 {{'kiln.avg_pool2d' op operand #0 must be statically shaped tensor of floating-point values}}
  %0 = kiln.avg_pool2d %x {kernel_size = array<i64: 2, 2>} : (tensor<1x3x8x8xi8>) -> tensor<1x3x4x4xi8>
  return %0 : tensor<1x3x4x4xi8>
}

// -----

func.func @upsample2d_input_rank(%x: tensor<3x4x4xf32>) -> tensor<3x8x8xf32> {
  // expected-error @+1 {{'kiln.upsample2d' op input must have rank 4 (N, C, H and W), got rank 3}}
  %0 = kiln.upsample2d %x {size = array<i64: 8, 8>} : (tensor<3x4x4xf32>) -> tensor<3x8x8xf32>
  return %0 : tensor<3x8x8xf32>
}

// -----

func.func @upsample2d_size_entries(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32> {
  // expected-error @+1 {{'kiln.upsample2d' op 'size' must have 2 entries, one per spatial dim, got 3}}
  %0 = kiln.upsample2d %x {size = array<i64: 8, 8, 8>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

// -----

func.func @upsample2d_size_zero(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x0x8xf32> {
  // expected-error @+1 {{'kiln.upsample2d' op 'size' entries must be positive, got [0, 8]}}
  %0 = kiln.upsample2d %x {size = array<i64: 0, 8>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x0x8xf32>
  return %0 : tensor<1x3x0x8xf32>
}

// -----

func.func @upsample2d_align_corners_nearest(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32> {
  // expected-error @+1 {{'kiln.upsample2d' op 'align_corners' = true requires bilinear mode}}
  %0 = kiln.upsample2d %x {size = array<i64: 8, 8>, align_corners = true} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

// -----

func.func @upsample2d_empty_input(%x: tensor<1x3x0x4xf32>) -> tensor<1x3x8x8xf32> {
  // expected-error @+1 {{'kiln.upsample2d' op input spatial dims must be at least 1, got [0, 4]}}
  %0 = kiln.upsample2d %x {size = array<i64: 8, 8>} : (tensor<1x3x0x4xf32>) -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

// -----

func.func @upsample2d_wrong_result(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32> {
  // expected-error @+2 {{'kiln.upsample2d' op inferred type(s) 'tensor<1x3x8x6xf32>' are incompatible with return type(s) of operation 'tensor<1x3x8x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.upsample2d %x {size = array<i64: 8, 6>, mode = #kiln.upsample_mode<bilinear>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}
