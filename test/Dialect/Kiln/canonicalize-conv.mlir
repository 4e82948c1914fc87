// RUN: kiln-opt %s --canonicalize --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @max_pool2d_identity
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x5x5xf32>)
// CHECK-NOT: kiln.max_pool2d
// CHECK: return %[[X]], %[[X]]
func.func @max_pool2d_identity(%x: tensor<1x3x5x5xf32>) -> (tensor<1x3x5x5xf32>, tensor<1x3x5x5xf32>) {
  %0 = kiln.max_pool2d %x {kernel_size = array<i64: 1, 1>}
      : (tensor<1x3x5x5xf32>) -> tensor<1x3x5x5xf32>
  %1 = kiln.max_pool2d %x {kernel_size = array<i64: 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 3, 2>, ceil_mode = true}
      : (tensor<1x3x5x5xf32>) -> tensor<1x3x5x5xf32>
  return %0, %1 : tensor<1x3x5x5xf32>, tensor<1x3x5x5xf32>
}

// -----

// A 1x1 window with stride 2 subsamples.
// CHECK-LABEL: func.func @negative_max_pool2d_stride
// CHECK: kiln.max_pool2d
func.func @negative_max_pool2d_stride(%x: tensor<1x3x5x5xf32>) -> tensor<1x3x3x5xf32> {
  %0 = kiln.max_pool2d %x {kernel_size = array<i64: 1, 1>, stride = array<i64: 2, 1>}
      : (tensor<1x3x5x5xf32>) -> tensor<1x3x3x5xf32>
  return %0 : tensor<1x3x3x5xf32>
}

// -----

// CHECK-LABEL: func.func @negative_max_pool2d_kernel
// CHECK: kiln.max_pool2d
func.func @negative_max_pool2d_kernel(%x: tensor<1x3x5x5xf32>) -> tensor<1x3x5x5xf32> {
  %0 = kiln.max_pool2d %x {kernel_size = array<i64: 3, 1>, stride = array<i64: 1, 1>, padding = array<i64: 1, 0>}
      : (tensor<1x3x5x5xf32>) -> tensor<1x3x5x5xf32>
  return %0 : tensor<1x3x5x5xf32>
}

// -----

// CHECK-LABEL: func.func @avg_pool2d_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4x5xf16>)
// CHECK-NOT: kiln.avg_pool2d
// CHECK: return %[[X]]
func.func @avg_pool2d_identity(%x: tensor<2x3x4x5xf16>) -> tensor<2x3x4x5xf16> {
  %0 = kiln.avg_pool2d %x {kernel_size = array<i64: 1, 1>, count_include_pad = false}
      : (tensor<2x3x4x5xf16>) -> tensor<2x3x4x5xf16>
  return %0 : tensor<2x3x4x5xf16>
}

// -----

// CHECK-LABEL: func.func @negative_avg_pool2d_kernel
// CHECK: kiln.avg_pool2d
func.func @negative_avg_pool2d_kernel(%x: tensor<2x3x4x5xf16>) -> tensor<2x3x3x4xf16> {
  %0 = kiln.avg_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 1, 1>}
      : (tensor<2x3x4x5xf16>) -> tensor<2x3x3x4xf16>
  return %0 : tensor<2x3x3x4xf16>
}

// -----

// CHECK-LABEL: func.func @upsample2d_same_size
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x4x6xf32>)
// CHECK-NOT: kiln.upsample2d
// CHECK: return %[[X]], %[[X]]
func.func @upsample2d_same_size(%x: tensor<1x3x4x6xf32>) -> (tensor<1x3x4x6xf32>, tensor<1x3x4x6xf32>) {
  %0 = kiln.upsample2d %x {size = array<i64: 4, 6>}
      : (tensor<1x3x4x6xf32>) -> tensor<1x3x4x6xf32>
  %1 = kiln.upsample2d %x {size = array<i64: 4, 6>, mode = #kiln.upsample_mode<bilinear>, align_corners = true}
      : (tensor<1x3x4x6xf32>) -> tensor<1x3x4x6xf32>
  return %0, %1 : tensor<1x3x4x6xf32>, tensor<1x3x4x6xf32>
}

// -----

// CHECK-LABEL: func.func @negative_upsample2d_resize
// CHECK: kiln.upsample2d
func.func @negative_upsample2d_resize(%x: tensor<1x3x4x6xf32>) -> tensor<1x3x4x12xf32> {
  %0 = kiln.upsample2d %x {size = array<i64: 4, 12>}
      : (tensor<1x3x4x6xf32>) -> tensor<1x3x4x12xf32>
  return %0 : tensor<1x3x4x12xf32>
}
