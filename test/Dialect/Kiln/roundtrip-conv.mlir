// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --emit-bytecode | kiln-opt | FileCheck %s

// CHECK-LABEL: func.func @conv1d
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x16xf32>, %[[W:.*]]: tensor<8x4x3xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK: kiln.conv1d %[[X]], %[[W]] bias(%[[B]]) {padding = array<i64: 1>, stride = array<i64: 2>} : (tensor<1x4x16xf32>, tensor<8x4x3xf32>, tensor<8xf32>) -> tensor<1x8x8xf32>
func.func @conv1d(%x: tensor<1x4x16xf32>, %w: tensor<8x4x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x8xf32> {
  %0 = kiln.conv1d %x, %w bias(%b) {stride = array<i64: 2>, padding = array<i64: 1>}
      : (tensor<1x4x16xf32>, tensor<8x4x3xf32>, tensor<8xf32>) -> tensor<1x8x8xf32>
  return %0 : tensor<1x8x8xf32>
}

// CHECK-LABEL: func.func @conv2d
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8x8xf32>, %[[W:.*]]: tensor<6x2x3x3xf32>, %[[B:.*]]: tensor<6xf32>)
// CHECK: kiln.conv2d %[[X]], %[[W]] bias(%[[B]]) {groups = 2 : i64, padding = array<i64: 1, 1>} : (tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<2x6x8x8xf32>
func.func @conv2d(%x: tensor<2x4x8x8xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>) -> tensor<2x6x8x8xf32> {
  %0 = kiln.conv2d %x, %w bias(%b) {padding = array<i64: 1, 1>, groups = 2 : i64}
      : (tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<2x6x8x8xf32>
  return %0 : tensor<2x6x8x8xf32>
}

// Attributes equal to their defaults are not printed.
// CHECK-LABEL: func.func @conv2d_defaults
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x9x8xbf16>, %[[W:.*]]: tensor<6x4x3x3xbf16>)
// CHECK: kiln.conv2d %[[X]], %[[W]] {stride = array<i64: 2, 1>} : (tensor<2x4x9x8xbf16>, tensor<6x4x3x3xbf16>) -> tensor<2x6x4x6xbf16>
func.func @conv2d_defaults(%x: tensor<2x4x9x8xbf16>, %w: tensor<6x4x3x3xbf16>) -> tensor<2x6x4x6xbf16> {
  %0 = kiln.conv2d %x, %w {stride = array<i64: 2, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64}
      : (tensor<2x4x9x8xbf16>, tensor<6x4x3x3xbf16>) -> tensor<2x6x4x6xbf16>
  return %0 : tensor<2x6x4x6xbf16>
}

// CHECK-LABEL: func.func @conv3d
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x4x9x9xf32>, %[[W:.*]]: tensor<4x2x1x3x3xf32>)
// CHECK: kiln.conv3d %[[X]], %[[W]] {dilation = array<i64: 1, 2, 2>} : (tensor<1x2x4x9x9xf32>, tensor<4x2x1x3x3xf32>) -> tensor<1x4x4x5x5xf32>
func.func @conv3d(%x: tensor<1x2x4x9x9xf32>, %w: tensor<4x2x1x3x3xf32>) -> tensor<1x4x4x5x5xf32> {
  %0 = kiln.conv3d %x, %w {dilation = array<i64: 1, 2, 2>}
      : (tensor<1x2x4x9x9xf32>, tensor<4x2x1x3x3xf32>) -> tensor<1x4x4x5x5xf32>
  return %0 : tensor<1x4x4x5x5xf32>
}

// CHECK-LABEL: func.func @conv_transpose1d
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x8xf32>, %[[W:.*]]: tensor<4x3x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: kiln.conv_transpose1d %[[X]], %[[W]] bias(%[[B]]) {output_padding = array<i64: 1>, padding = array<i64: 1>, stride = array<i64: 2>} : (tensor<1x4x8xf32>, tensor<4x3x3xf32>, tensor<3xf32>) -> tensor<1x3x16xf32>
func.func @conv_transpose1d(%x: tensor<1x4x8xf32>, %w: tensor<4x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x3x16xf32> {
  %0 = kiln.conv_transpose1d %x, %w bias(%b) {stride = array<i64: 2>, padding = array<i64: 1>, output_padding = array<i64: 1>}
      : (tensor<1x4x8xf32>, tensor<4x3x3xf32>, tensor<3xf32>) -> tensor<1x3x16xf32>
  return %0 : tensor<1x3x16xf32>
}

// Cout = groups * weight dim 1; output_padding 1 < dilation 2 with stride 1.
// CHECK-LABEL: func.func @conv_transpose1d_groups
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x5xf64>, %[[W:.*]]: tensor<4x3x2xf64>)
// CHECK: kiln.conv_transpose1d %[[X]], %[[W]] {dilation = array<i64: 2>, groups = 2 : i64, output_padding = array<i64: 1>} : (tensor<2x4x5xf64>, tensor<4x3x2xf64>) -> tensor<2x6x8xf64>
func.func @conv_transpose1d_groups(%x: tensor<2x4x5xf64>, %w: tensor<4x3x2xf64>) -> tensor<2x6x8xf64> {
  %0 = kiln.conv_transpose1d %x, %w {groups = 2 : i64, dilation = array<i64: 2>, output_padding = array<i64: 1>}
      : (tensor<2x4x5xf64>, tensor<4x3x2xf64>) -> tensor<2x6x8xf64>
  return %0 : tensor<2x6x8xf64>
}

// CHECK-LABEL: func.func @max_pool2d
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x8x8xf32>)
// CHECK: kiln.max_pool2d %[[X]] {ceil_mode = true, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x5x5xf32>
func.func @max_pool2d(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x5x5xf32> {
  %0 = kiln.max_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode = true}
      : (tensor<1x3x8x8xf32>) -> tensor<1x3x5x5xf32>
  return %0 : tensor<1x3x5x5xf32>
}

// Without `stride`, the window moves by `kernel_size`; the ceil_mode window
// that would start in the right padding is dropped (2x2, not 3x3).
// CHECK-LABEL: func.func @max_pool2d_default_stride
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x4x5xf16>)
// CHECK: kiln.max_pool2d %[[X]] {kernel_size = array<i64: 3, 3>} : (tensor<1x3x4x5xf16>) -> tensor<1x3x1x1xf16>
// CHECK: kiln.max_pool2d %[[X]] {ceil_mode = true, dilation = array<i64: 2, 1>, kernel_size = array<i64: 2, 1>, padding = array<i64: 1, 0>, stride = array<i64: 3, 3>} : (tensor<1x3x4x5xf16>) -> tensor<1x3x2x2xf16>
func.func @max_pool2d_default_stride(%x: tensor<1x3x4x5xf16>) -> (tensor<1x3x1x1xf16>, tensor<1x3x2x2xf16>) {
  %0 = kiln.max_pool2d %x {kernel_size = array<i64: 3, 3>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false}
      : (tensor<1x3x4x5xf16>) -> tensor<1x3x1x1xf16>
  %1 = kiln.max_pool2d %x {kernel_size = array<i64: 2, 1>, stride = array<i64: 3, 3>, padding = array<i64: 1, 0>, dilation = array<i64: 2, 1>, ceil_mode = true}
      : (tensor<1x3x4x5xf16>) -> tensor<1x3x2x2xf16>
  return %0, %1 : tensor<1x3x1x1xf16>, tensor<1x3x2x2xf16>
}

// CHECK-LABEL: func.func @avg_pool2d
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x7x7xf32>)
// CHECK: kiln.avg_pool2d %[[X]] {count_include_pad = false, kernel_size = array<i64: 2, 2>} : (tensor<1x3x7x7xf32>) -> tensor<1x3x3x3xf32>
func.func @avg_pool2d(%x: tensor<1x3x7x7xf32>) -> tensor<1x3x3x3xf32> {
  %0 = kiln.avg_pool2d %x {kernel_size = array<i64: 2, 2>, count_include_pad = false}
      : (tensor<1x3x7x7xf32>) -> tensor<1x3x3x3xf32>
  return %0 : tensor<1x3x3x3xf32>
}

// In ceil_mode the last window may hang over the input's end.
// CHECK-LABEL: func.func @avg_pool2d_ceil_mode
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x1x7xf32>)
// CHECK: kiln.avg_pool2d %[[X]] {ceil_mode = true, kernel_size = array<i64: 2, 2>, padding = array<i64: 1, 0>, stride = array<i64: 1, 2>} : (tensor<1x3x1x7xf32>) -> tensor<1x3x2x4xf32>
func.func @avg_pool2d_ceil_mode(%x: tensor<1x3x1x7xf32>) -> tensor<1x3x2x4xf32> {
  %0 = kiln.avg_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 1, 2>, padding = array<i64: 1, 0>, ceil_mode = true, count_include_pad = true}
      : (tensor<1x3x1x7xf32>) -> tensor<1x3x2x4xf32>
  return %0 : tensor<1x3x2x4xf32>
}

// CHECK-LABEL: func.func @upsample2d
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x4x6xf32>)
// CHECK: kiln.upsample2d %[[X]] {align_corners = true, mode = #kiln.upsample_mode<bilinear>, size = array<i64: 8, 12>} : (tensor<1x3x4x6xf32>) -> tensor<1x3x8x12xf32>
func.func @upsample2d(%x: tensor<1x3x4x6xf32>) -> tensor<1x3x8x12xf32> {
  %0 = kiln.upsample2d %x {size = array<i64: 8, 12>, mode = #kiln.upsample_mode<bilinear>, align_corners = true}
      : (tensor<1x3x4x6xf32>) -> tensor<1x3x8x12xf32>
  return %0 : tensor<1x3x8x12xf32>
}

// CHECK-LABEL: func.func @upsample2d_nearest
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4x6xf32>)
// CHECK: kiln.upsample2d %[[X]] {size = array<i64: 3, 13>} : (tensor<2x3x4x6xf32>) -> tensor<2x3x3x13xf32>
// CHECK: kiln.upsample2d %[[X]] {mode = #kiln.upsample_mode<bilinear>, size = array<i64: 1, 1>} : (tensor<2x3x4x6xf32>) -> tensor<2x3x1x1xf32>
func.func @upsample2d_nearest(%x: tensor<2x3x4x6xf32>) -> (tensor<2x3x3x13xf32>, tensor<2x3x1x1xf32>) {
  %0 = kiln.upsample2d %x {size = array<i64: 3, 13>, mode = #kiln.upsample_mode<nearest>, align_corners = false}
      : (tensor<2x3x4x6xf32>) -> tensor<2x3x3x13xf32>
  %1 = kiln.upsample2d %x {size = array<i64: 1, 1>, mode = #kiln.upsample_mode<bilinear>}
      : (tensor<2x3x4x6xf32>) -> tensor<2x3x1x1xf32>
  return %0, %1 : tensor<2x3x3x13xf32>, tensor<2x3x1x1xf32>
}
