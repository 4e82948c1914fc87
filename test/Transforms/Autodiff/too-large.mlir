// RUN: kiln-opt %s --split-input-file --kiln-autodiff=function=f --verify-diagnostics

// Rules that build a constant from a shape, or unroll one op per tap, reject
// shapes that would exhaust memory instead of aborting ("SmallVector unable
// to grow") or being killed (found by test/robustness/campaign.py).

func.func @f(%x: tensor<2x3x4x6xf32>) -> tensor<f32> {
  // expected-error @+1 {{cannot differentiate 'kiln.upsample2d': the width matrix would be a constant of 4294967296 x 6 elements, more than 16777216}}
  %0 = kiln.upsample2d %x {size = array<i64: 3, 4294967296>, mode = #kiln.upsample_mode<nearest>}
      : (tensor<2x3x4x6xf32>) -> tensor<2x3x3x4294967296xf32>
  %1 = kiln.sum %0 {axes = array<i64: 0, 1, 2, 3>} : tensor<2x3x3x4294967296xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

func.func @f(%x: tensor<1x1x65536x65537xf32>) -> tensor<f32> {
  // expected-error @+1 {{cannot differentiate 'kiln.avg_pool2d': the divisor table would be a constant of 65536 x 65537 elements, more than 16777216}}
  %0 = kiln.avg_pool2d %x {kernel_size = array<i64: 1, 1>}
      : (tensor<1x1x65536x65537xf32>) -> tensor<1x1x65536x65537xf32>
  %1 = kiln.sum %0 {axes = array<i64: 0, 1, 2, 3>} : tensor<1x1x65536x65537xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

func.func @f(%x: tensor<1x1x4294967296xf32>, %w: tensor<1x1x4294967296xf32>) -> tensor<f32> {
  // expected-error @+1 {{cannot differentiate 'kiln.conv1d': the kernel flip would be a constant of 4294967296 x 1 elements, more than 16777216}}
  %0 = kiln.conv1d %x, %w : (tensor<1x1x4294967296xf32>, tensor<1x1x4294967296xf32>) -> tensor<1x1x1xf32>
  %1 = kiln.sum %0 {axes = array<i64: 0, 1, 2>} : tensor<1x1x1xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

func.func @f(%x: tensor<1x1x70000x70000xf32>) -> tensor<f32> {
  // expected-error @+1 {{cannot differentiate 'kiln.max_pool2d': its rule would unroll 70000 x 70000 taps, more than 65536}}
  %0 = kiln.max_pool2d %x {kernel_size = array<i64: 70000, 70000>}
      : (tensor<1x1x70000x70000xf32>) -> tensor<1x1x1x1xf32>
  %1 = kiln.sum %0 {axes = array<i64: 0, 1, 2, 3>} : tensor<1x1x1x1xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

func.func @f(%x: tensor<70000xf32>) -> tensor<f32> {
  // expected-error @+1 {{cannot differentiate 'kiln.unfold': its rule would unroll 70000 x 1 taps, more than 65536}}
  %0 = kiln.unfold %x {dim = 0 : i64, size = 70000 : i64, step = 1 : i64}
      : tensor<70000xf32> -> tensor<1x70000xf32>
  %1 = kiln.sum %0 {axes = array<i64: 0, 1>} : tensor<1x70000xf32> -> tensor<f32>
  return %1 : tensor<f32>
}
