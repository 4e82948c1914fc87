// RUN: kiln-opt %s --convert-kiln-to-linalg --split-input-file | FileCheck %s

// Grouped conv2d: zero padding, the channels split into [groups, C / groups],
// the bias broadcast into the accumulator, strides in the input's map.
// CHECK-DAG: #[[$BIAS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2)>
// CHECK-DAG: #[[$ID5:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
// CHECK-DAG: #[[$IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 * 2 + d6, d4 * 2 + d7)>
// CHECK-DAG: #[[$W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
// CHECK-DAG: #[[$OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @conv2d_groups_bias
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x5x5xf32>, %[[W:.*]]: tensor<6x2x3x3xf32>, %[[B:.*]]: tensor<6xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[PAD:.*]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[ZERO]] : f32
// CHECK: } : tensor<2x4x5x5xf32> to tensor<2x4x7x7xf32>
// CHECK: %[[XG:.*]] = tensor.expand_shape %[[PAD]] {{\[\[}}0], [1, 2], [3], [4]] output_shape [2, 2, 2, 7, 7]
// CHECK: %[[WG:.*]] = tensor.expand_shape %[[W]] {{\[\[}}0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 3]
// CHECK: %[[BG:.*]] = tensor.expand_shape %[[B]] {{\[\[}}0, 1]] output_shape [2, 3]
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<2x2x3x3x3xf32>
// CHECK: %[[INIT:.*]] = linalg.generic {indexing_maps = [#[[$BIAS]], #[[$ID5]]]
// CHECK-SAME: ins(%[[BG]] : tensor<2x3xf32>) outs(%[[EMPTY]] : tensor<2x2x3x3x3xf32>)
// CHECK: %[[CONV:.*]] = linalg.generic {indexing_maps = [#[[$IN]], #[[$W]], #[[$OUT]]]
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-SAME: ins(%[[XG]], %[[WG]] : tensor<2x2x2x7x7xf32>, tensor<2x3x2x3x3xf32>) outs(%[[INIT]] : tensor<2x2x3x3x3xf32>)
// CHECK: ^bb0(%[[A:.*]]: f32, %[[C:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK: %[[MUL:.*]] = arith.mulf %[[A]], %[[C]] : f32
// CHECK: %[[ADD:.*]] = arith.addf %[[ACC]], %[[MUL]] : f32
// CHECK: linalg.yield %[[ADD]] : f32
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[CONV]] {{\[\[}}0], [1, 2], [3], [4]] : tensor<2x2x3x3x3xf32> into tensor<2x6x3x3xf32>
// CHECK: return %[[R]]
// CHECK-NOT: kiln.
func.func @conv2d_groups_bias(%x: tensor<2x4x5x5xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>) -> tensor<2x6x3x3xf32> {
  %0 = kiln.conv2d %x, %w bias(%b) {padding = array<i64: 1, 1>, stride = array<i64: 2, 2>, groups = 2 : i64}
      : (tensor<2x4x5x5xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<2x6x3x3xf32>
  return %0 : tensor<2x6x3x3xf32>
}

// -----

// Without bias the accumulator is zeros; without padding there is no pad.
// CHECK-DAG: #[[$IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d3 + d5 * 2)>
// CHECK-LABEL: func.func @conv1d_dilation_no_bias
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x9xf64>, %[[W:.*]]: tensor<4x3x3xf64>)
// CHECK-NOT: tensor.pad
// CHECK: %[[XG:.*]] = tensor.expand_shape %[[X]]
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK: %[[FILL:.*]] = linalg.fill ins(%[[ZERO]] : f64) outs(%{{.*}} : tensor<1x1x4x5xf64>)
// CHECK: linalg.generic {indexing_maps = [#[[$IN]],
// CHECK-SAME: ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME: outs(%[[FILL]] : tensor<1x1x4x5xf64>)
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f64
func.func @conv1d_dilation_no_bias(%x: tensor<1x3x9xf64>, %w: tensor<4x3x3xf64>) -> tensor<1x4x5xf64> {
  %0 = kiln.conv1d %x, %w {dilation = array<i64: 2>} : (tensor<1x3x9xf64>, tensor<4x3x3xf64>) -> tensor<1x4x5xf64>
  return %0 : tensor<1x4x5xf64>
}

// -----

// conv3d: per-dim strides and dilations in the input's map.
// CHECK-DAG: #[[$IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1, d6, d3 + d7, d4 * 2 + d8 * 2, d5 + d9)>
// CHECK-DAG: #[[$W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d1, d2, d6, d7, d8, d9)>
// CHECK-LABEL: func.func @conv3d_attrs
// CHECK: tensor.pad %{{.*}} low[0, 0, 0, 1, 1] high[0, 0, 0, 1, 1]
// CHECK: linalg.generic {indexing_maps = [#[[$IN]], #[[$W]],
// CHECK-SAME: ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4], [5]] : tensor<1x2x2x4x2x6xf32> into tensor<1x4x4x2x6xf32>
func.func @conv3d_attrs(%x: tensor<1x4x4x6x5xf32>, %w: tensor<4x2x1x3x2xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x2x6xf32> {
  %0 = kiln.conv3d %x, %w bias(%b) {stride = array<i64: 1, 2, 1>, padding = array<i64: 0, 1, 1>, dilation = array<i64: 1, 2, 1>, groups = 2 : i64}
      : (tensor<1x4x4x6x5xf32>, tensor<4x2x1x3x2xf32>, tensor<4xf32>) -> tensor<1x4x4x2x6xf32>
  return %0 : tensor<1x4x4x2x6xf32>
}

// -----

// 16-bit floats accumulate in f32 and round once at the end.
// CHECK-LABEL: func.func @conv2d_f16
// CHECK: %[[INIT:.*]] = linalg.generic
// CHECK: ^bb0(%[[BIAS:.*]]: f16, %{{.*}}: f32):
// CHECK: arith.extf %[[BIAS]] : f16 to f32
// CHECK: %[[CONV:.*]] = linalg.generic
// CHECK-SAME: outs(%[[INIT]] : tensor<1x1x2x3x3xf32>)
// CHECK: ^bb0(%[[A:.*]]: f16, %[[C:.*]]: f16, %[[ACC:.*]]: f32):
// CHECK: %[[AE:.*]] = arith.extf %[[A]] : f16 to f32
// CHECK: %[[CE:.*]] = arith.extf %[[C]] : f16 to f32
// CHECK: %[[MUL:.*]] = arith.mulf %[[AE]], %[[CE]] : f32
// CHECK: arith.addf %[[ACC]], %[[MUL]] : f32
// CHECK: %[[COLLAPSED:.*]] = tensor.collapse_shape %[[CONV]]
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[COLLAPSED]] : tensor<1x2x3x3xf32>) outs(%{{.*}} : tensor<1x2x3x3xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: return %[[R]]
func.func @conv2d_f16(%x: tensor<1x4x5x5xf16>, %w: tensor<2x4x3x3xf16>, %b: tensor<2xf16>) -> tensor<1x2x3x3xf16> {
  %0 = kiln.conv2d %x, %w bias(%b) : (tensor<1x4x5x5xf16>, tensor<2x4x3x3xf16>, tensor<2xf16>) -> tensor<1x2x3x3xf16>
  return %0 : tensor<1x2x3x3xf16>
}

// -----

// conv_transpose1d: the input lands `stride` apart at dilation * (K - 1) in
// zeros, then a stride-1 convolution walks it backwards (the flipped kernel):
// out[l] += z[l + padding + dilation * (K - 1) - k * dilation] * w[k].
// CHECK-DAG: #[[$IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d3 - d5 + 3)>
// CHECK-DAG: #[[$W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d4, d2, d5)>
// CHECK-LABEL: func.func @conv_transpose1d
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x8xf32>, %[[W:.*]]: tensor<4x3x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x4x19xf32>)
// CHECK: %[[Z:.*]] = tensor.insert_slice %[[X]] into %[[ZEROS]][0, 0, 2] [1, 4, 8] [1, 1, 2]
// CHECK: %[[ZG:.*]] = tensor.expand_shape %[[Z]] {{\[\[}}0], [1, 2], [3]] output_shape [1, 1, 4, 19]
// CHECK: %[[WG:.*]] = tensor.expand_shape %[[W]] {{\[\[}}0, 1], [2], [3]] output_shape [1, 4, 3, 3]
// CHECK: linalg.generic {indexing_maps = [#[[$IN]], #[[$W]],
// CHECK-SAME: ins(%[[ZG]], %[[WG]] : tensor<1x1x4x19xf32>, tensor<1x4x3x3xf32>)
// CHECK-SAME: outs(%{{.*}} : tensor<1x1x3x16xf32>)
func.func @conv_transpose1d(%x: tensor<1x4x8xf32>, %w: tensor<4x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x3x16xf32> {
  %0 = kiln.conv_transpose1d %x, %w bias(%b) {stride = array<i64: 2>, padding = array<i64: 1>, output_padding = array<i64: 1>}
      : (tensor<1x4x8xf32>, tensor<4x3x3xf32>, tensor<3xf32>) -> tensor<1x3x16xf32>
  return %0 : tensor<1x3x16xf32>
}

// -----

// max_pool2d pads with -inf; in ceil mode the last window hangs one past the
// padded input, so the high padding grows by one.
// CHECK-LABEL: func.func @max_pool2d_ceil
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x8x8xf32>)
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[PAD:.*]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 2, 2]
// CHECK: tensor.yield %[[NEGINF]] : f32
// CHECK: } : tensor<1x3x8x8xf32> to tensor<1x3x11x11xf32>
// CHECK: %[[WINDOW:.*]] = tensor.empty() : tensor<3x3xf32>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x3x5x5xf32>)
// CHECK: %[[R:.*]] = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
// CHECK-SAME: ins(%[[PAD]], %[[WINDOW]] : tensor<1x3x11x11xf32>, tensor<3x3xf32>) outs(%[[INIT]] : tensor<1x3x5x5xf32>)
// CHECK: return %[[R]]
func.func @max_pool2d_ceil(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x5x5xf32> {
  %0 = kiln.max_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode = true}
      : (tensor<1x3x8x8xf32>) -> tensor<1x3x5x5xf32>
  return %0 : tensor<1x3x5x5xf32>
}

// -----

// The stride defaults to the kernel size; dilation goes to the named op.
// CHECK-LABEL: func.func @max_pool2d_default_stride_dilation
// CHECK-NOT: tensor.pad
// CHECK: linalg.pooling_nchw_max {dilations = dense<[2, 1]> : tensor<2xi64>, strides = dense<[2, 3]> : tensor<2xi64>}
// CHECK-SAME: tensor<1x1x7x9xf64>, tensor<2x3xf64>
func.func @max_pool2d_default_stride_dilation(%x: tensor<1x1x7x9xf64>) -> tensor<1x1x3x3xf64> {
  %0 = kiln.max_pool2d %x {kernel_size = array<i64: 2, 3>, dilation = array<i64: 2, 1>}
      : (tensor<1x1x7x9xf64>) -> tensor<1x1x3x3xf64>
  return %0 : tensor<1x1x3x3xf64>
}

// -----

// avg_pool2d sums zero-padded windows and divides by PyTorch's divisor,
// divH[h] * divW[w]. Here (7x7, kernel 3, stride 2, padding 1, ceil mode,
// count_include_pad = false) the windows start at -1, 1, 3, 5 and the last
// one hangs past the padded input: 2, 3, 3, 2 taps inside the input.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$H:.*]] = affine_map<(d0, d1, d2, d3) -> (d2)>
// CHECK-DAG: #[[$W:.*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-LABEL: func.func @avg_pool2d_ceil_exclude_pad
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x7x7xf32>)
// CHECK: %[[PAD:.*]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: %[[SUM:.*]] = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
// CHECK-SAME: ins(%[[PAD]], %{{.*}} : tensor<1x2x9x9xf32>, tensor<3x3xf32>)
// CHECK-DAG: %[[DH:.*]] = arith.constant dense<[2, 3, 3, 2]> : tensor<4xi64>
// CHECK-DAG: %[[DW:.*]] = arith.constant dense<[2, 3, 3, 2]> : tensor<4xi64>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$H]], #[[$W]], #[[$ID]]]
// CHECK-SAME: ins(%[[SUM]], %[[DH]], %[[DW]] : tensor<1x2x4x4xf32>, tensor<4xi64>, tensor<4xi64>)
// CHECK: ^bb0(%[[S:.*]]: f32, %[[A:.*]]: i64, %[[B:.*]]: i64, %{{.*}}: f32):
// CHECK: %[[N:.*]] = arith.muli %[[A]], %[[B]] : i64
// CHECK: %[[NF:.*]] = arith.sitofp %[[N]] : i64 to f32
// CHECK: %[[MEAN:.*]] = arith.divf %[[S]], %[[NF]] : f32
// CHECK: linalg.yield %[[MEAN]] : f32
// CHECK: return %[[R]]
func.func @avg_pool2d_ceil_exclude_pad(%x: tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32> {
  %0 = kiln.avg_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode = true, count_include_pad = false}
      : (tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

// count_include_pad = true counts the padding, but not the overhang past it:
// along H (6, padded to [-1, 7)) the windows [-1, 2), [1, 4), [3, 6), [5, 8)
// count 3, 3, 3, 2; along W (7, padded to [-1, 8)) 3 each.
// CHECK-LABEL: func.func @avg_pool2d_ceil_include_pad
// CHECK: tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 2, 1]
// CHECK: linalg.pooling_nchw_sum
// CHECK-DAG: arith.constant dense<[3, 3, 3, 2]> : tensor<4xi64>
// CHECK-DAG: arith.constant dense<3> : tensor<4xi64>
func.func @avg_pool2d_ceil_include_pad(%x: tensor<1x2x6x7xf64>) -> tensor<1x2x4x4xf64> {
  %0 = kiln.avg_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode = true}
      : (tensor<1x2x6x7xf64>) -> tensor<1x2x4x4xf64>
  return %0 : tensor<1x2x4x4xf64>
}

// -----

// Nearest reads floor(dst * in / out) through the input's indexing map.
// CHECK-DAG: #[[$NEAREST:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, (d2 * 4) floordiv 8, (d3 * 6) floordiv 5)>
// CHECK-LABEL: func.func @upsample2d_nearest
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x4x6xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[$NEAREST]],
// CHECK-SAME: ins(%[[X]] : tensor<1x3x4x6xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
func.func @upsample2d_nearest(%x: tensor<1x3x4x6xf32>) -> tensor<1x3x8x5xf32> {
  %0 = kiln.upsample2d %x {size = array<i64: 8, 5>} : (tensor<1x3x4x6xf32>) -> tensor<1x3x8x5xf32>
  return %0 : tensor<1x3x8x5xf32>
}

// -----

// PyTorch computes the nearest index with a float32 scale, which for 26 -> 22
// reads index 12 (not 13) at dst 11: such sizes gather through a table.
// CHECK-LABEL: func.func @upsample2d_nearest_float_scale
// CHECK-SAME: (%[[X:.*]]: tensor<1x1x26x2xf64>)
// CHECK-DAG: %[[H:.*]] = arith.constant dense<[0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 14, 15, 16, 17, 18, 20, 21, 22, 23, 24]> : tensor<22xi64>
// CHECK-DAG: %[[W:.*]] = arith.constant dense<[0, 0, 1]> : tensor<3xi64>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[H]], %[[W]] : tensor<22xi64>, tensor<3xi64>)
// CHECK: %[[N:.*]] = linalg.index 0 : index
// CHECK: %[[C:.*]] = linalg.index 1 : index
// CHECK: %[[HI:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[WI:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: tensor.extract %[[X]][%[[N]], %[[C]], %[[HI]], %[[WI]]] : tensor<1x1x26x2xf64>
func.func @upsample2d_nearest_float_scale(%x: tensor<1x1x26x2xf64>) -> tensor<1x1x22x3xf64> {
  %0 = kiln.upsample2d %x {size = array<i64: 22, 3>} : (tensor<1x1x26x2xf64>) -> tensor<1x1x22x3xf64>
  return %0 : tensor<1x1x22x3xf64>
}

// -----

// Bilinear: per-dim tables of the two source indices and their weights,
// four gathers, PyTorch's order h0 * (w0 * x00 + w1 * x01) + h1 * (...).
// align_corners = false, 2 -> 4: src = max((dst + 0.5) / 2 - 0.5, 0).
// CHECK-LABEL: func.func @upsample2d_bilinear
// CHECK-SAME: (%[[X:.*]]: tensor<1x1x2x3xf64>)
// CHECK-DAG: %[[H0:.*]] = arith.constant dense<[0, 0, 0, 1]> : tensor<4xi64>
// CHECK-DAG: %[[H1:.*]] = arith.constant dense<1> : tensor<4xi64>
// CHECK-DAG: %[[HL0:.*]] = arith.constant dense<[1.000000e+00, 7.500000e-01, 2.500000e-01, 7.500000e-01]> : tensor<4xf64>
// CHECK-DAG: %[[HL1:.*]] = arith.constant dense<[0.000000e+00, 2.500000e-01, 7.500000e-01, 2.500000e-01]> : tensor<4xf64>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[H0]], %[[H1]], %[[HL0]], %[[HL1]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<4xi64>, tensor<4xi64>, tensor<4xf64>, tensor<4xf64>, tensor<3xi64>, tensor<3xi64>, tensor<3xf64>, tensor<3xf64>)
// CHECK-COUNT-4: tensor.extract %[[X]]
// CHECK: linalg.yield
func.func @upsample2d_bilinear(%x: tensor<1x1x2x3xf64>) -> tensor<1x1x4x3xf64> {
  %0 = kiln.upsample2d %x {size = array<i64: 4, 3>, mode = #kiln.upsample_mode<bilinear>}
      : (tensor<1x1x2x3xf64>) -> tensor<1x1x4x3xf64>
  return %0 : tensor<1x1x4x3xf64>
}

// -----

// align_corners = true, 3 -> 5: src = dst * 2 / 4.
// CHECK-LABEL: func.func @upsample2d_bilinear_align_corners
// CHECK-DAG: arith.constant dense<[0, 0, 1, 1, 2]> : tensor<5xi64>
// CHECK-DAG: arith.constant dense<[1, 1, 2, 2, 2]> : tensor<5xi64>
// CHECK-DAG: arith.constant dense<[0.000000e+00, 5.000000e-01, 0.000000e+00, 5.000000e-01, 0.000000e+00]> : tensor<5xf32>
// CHECK: linalg.generic
func.func @upsample2d_bilinear_align_corners(%x: tensor<1x1x3x3xf32>) -> tensor<1x1x5x3xf32> {
  %0 = kiln.upsample2d %x {size = array<i64: 5, 3>, mode = #kiln.upsample_mode<bilinear>, align_corners = true}
      : (tensor<1x1x3x3xf32>) -> tensor<1x1x5x3xf32>
  return %0 : tensor<1x1x5x3xf32>
}

// -----

// A result without elements is a tensor.empty: nothing to compute, and a
// tensor.pad or tensor.insert_slice of a zero-size dim would bufferize to an
// invalid memref.subview.
// CHECK-LABEL: func.func @conv1d_empty_result
// CHECK-NEXT: %[[R:.*]] = tensor.empty() : tensor<0x3x6xf64>
// CHECK-NEXT: return %[[R]]
func.func @conv1d_empty_result(%x: tensor<0x2x5xf64>, %w: tensor<3x2x2xf64>) -> tensor<0x3x6xf64> {
  %0 = kiln.conv1d %x, %w {padding = array<i64: 1>} : (tensor<0x2x5xf64>, tensor<3x2x2xf64>) -> tensor<0x3x6xf64>
  return %0 : tensor<0x3x6xf64>
}

// -----

// Padding an input without elements fills the padded shape instead.
// CHECK-LABEL: func.func @max_pool2d_empty_input
// CHECK-NOT: tensor.pad
// CHECK: %[[PADDED:.*]] = linalg.fill ins(%{{.*}} : f64) outs(%{{.*}} : tensor<1x2x2x5xf64>)
// CHECK: linalg.pooling_nchw_max
// CHECK-SAME: ins(%[[PADDED]], %{{.*}} : tensor<1x2x2x5xf64>, tensor<2x2xf64>)
func.func @max_pool2d_empty_input(%x: tensor<1x2x0x3xf64>) -> tensor<1x2x1x2xf64> {
  %0 = kiln.max_pool2d %x {kernel_size = array<i64: 2, 2>, padding = array<i64: 1, 1>} : (tensor<1x2x0x3xf64>) -> tensor<1x2x1x2xf64>
  return %0 : tensor<1x2x1x2xf64>
}
