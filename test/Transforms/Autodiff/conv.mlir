// RUN: kiln-opt %s --split-input-file --kiln-autodiff=function=f | FileCheck %s

// conv2d (stride 2, padding 1, 2 groups, bias). Input: the cotangent spread
// 2 apart (unsqueeze, pad, merge, trim per dim), padded by
// dilation * (K - 1) - padding = 1, convolved with stride 1 by the kernel
// with its channels swapped per group and both spatial dims reversed.
// Weight: the input arranged [Cin/G, G*N, H, W] convolved with the
// transposed cotangent, stride and dilation exchanged. Bias: summed.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x5x5xf32>, %[[W:.*]]: tensor<2x2x3x3xf32>, %{{.*}}: tensor<2xf32>)
// CHECK: %[[G:.*]] = kiln.broadcast_to %{{.*}} : tensor<1x1x1x1xf32> -> tensor<1x2x3x3xf32>
// CHECK: %[[WG:.*]] = kiln.reshape %[[W]] : tensor<2x2x3x3xf32> -> tensor<2x1x2x3x3xf32>
// CHECK: %[[WS:.*]] = kiln.transpose %[[WG]] {dim0 = 1 : i64, dim1 = 2 : i64} : tensor<2x1x2x3x3xf32> -> tensor<2x2x1x3x3xf32>
// CHECK: %[[WM:.*]] = kiln.reshape %[[WS]] : tensor<2x2x1x3x3xf32> -> tensor<4x1x3x3xf32>
// CHECK: %[[REV:.*]] = kiln.constant dense<[2, 1, 0]> : tensor<3xi64>
// CHECK: %[[WH:.*]] = kiln.index_select %[[WM]], %[[REV]] {axis = 2 : i64}
// CHECK: %[[WF:.*]] = kiln.index_select %[[WH]], %{{.*}} {axis = 3 : i64} : (tensor<4x1x3x3xf32>, tensor<3xi64>) -> tensor<4x1x3x3xf32>
// CHECK: kiln.unsqueeze %[[G]] {dim = 3 : i64}
// CHECK: %[[SH:.*]] = kiln.slice %{{.*}} : tensor<1x2x6x3xf32> -> tensor<1x2x5x3xf32>
// CHECK: %[[SW:.*]] = kiln.slice %{{.*}} : tensor<1x2x5x6xf32> -> tensor<1x2x5x5xf32>
// CHECK: %[[GP:.*]] = kiln.pad %[[SW]] {high = array<i64: 0, 0, 1, 1>, low = array<i64: 0, 0, 1, 1>} : tensor<1x2x5x5xf32> -> tensor<1x2x7x7xf32>
// CHECK: %[[DX:.*]] = kiln.conv2d %[[GP]], %[[WF]] {groups = 2 : i64} : (tensor<1x2x7x7xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x5x5xf32>
// CHECK: %[[XG:.*]] = kiln.reshape %[[X]] : tensor<1x4x5x5xf32> -> tensor<1x2x2x5x5xf32>
// CHECK: %[[XP:.*]] = kiln.permute %[[XG]] {permutation = array<i64: 2, 1, 0, 3, 4>} : tensor<1x2x2x5x5xf32> -> tensor<2x2x1x5x5xf32>
// CHECK: %[[XA:.*]] = kiln.reshape %[[XP]] : tensor<2x2x1x5x5xf32> -> tensor<2x2x5x5xf32>
// CHECK: %[[GT:.*]] = kiln.transpose %[[G]] {dim0 = 0 : i64, dim1 = 1 : i64} : tensor<1x2x3x3xf32> -> tensor<2x1x3x3xf32>
// CHECK: %[[DWT:.*]] = kiln.conv2d %[[XA]], %[[GT]] {dilation = array<i64: 2, 2>, groups = 2 : i64, padding = array<i64: 1, 1>} : (tensor<2x2x5x5xf32>, tensor<2x1x3x3xf32>) -> tensor<2x2x3x3xf32>
// CHECK: %[[DW:.*]] = kiln.transpose %[[DWT]] {dim0 = 0 : i64, dim1 = 1 : i64}
// CHECK: %[[DB:.*]] = kiln.sum %[[G]] {axes = array<i64: 0, 2, 3>} : tensor<1x2x3x3xf32> -> tensor<2xf32>
// CHECK: return %{{.*}}, %[[DX]], %[[DW]], %[[DB]]
func.func @f(%x: tensor<1x4x5x5xf32>, %w: tensor<2x2x3x3xf32>, %b: tensor<2xf32>) -> tensor<f32> {
  %y = kiln.conv2d %x, %w bias(%b) {groups = 2 : i64, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x4x5x5xf32>, tensor<2x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %l = kiln.sum %y {axes = array<i64: 0, 1, 2, 3>} : tensor<1x2x3x3xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// conv_transpose1d: the input adjoint is conv1d of the cotangent with the
// same weight and stride (its output already has the input's length here);
// the weight adjoint is conv1d's weight adjoint with input and cotangent
// exchanged, cropped to the kernel size.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x3xf32>, %[[W:.*]]: tensor<2x3x3xf32>)
// CHECK: %[[G:.*]] = kiln.broadcast_to %{{.*}} : tensor<1x1x1xf32> -> tensor<1x3x8xf32>
// CHECK: %[[DX:.*]] = kiln.conv1d %[[G]], %[[W]] {stride = array<i64: 2>} : (tensor<1x3x8xf32>, tensor<2x3x3xf32>) -> tensor<1x2x3xf32>
// CHECK: %[[GA:.*]] = kiln.transpose %[[G]] {dim0 = 0 : i64, dim1 = 1 : i64} : tensor<1x3x8xf32> -> tensor<3x1x8xf32>
// CHECK: %[[XT:.*]] = kiln.transpose %[[X]] {dim0 = 0 : i64, dim1 = 1 : i64} : tensor<1x2x3xf32> -> tensor<2x1x3xf32>
// CHECK: %[[FULL:.*]] = kiln.conv1d %[[GA]], %[[XT]] {dilation = array<i64: 2>} : (tensor<3x1x8xf32>, tensor<2x1x3xf32>) -> tensor<3x2x4xf32>
// CHECK: %[[CROP:.*]] = kiln.slice %[[FULL]] {starts = array<i64: 0, 0, 0>, stops = array<i64: 3, 2, 3>, strides = array<i64: 1, 1, 1>}
// CHECK: %[[DW:.*]] = kiln.transpose %[[CROP]] {dim0 = 0 : i64, dim1 = 1 : i64} : tensor<3x2x3xf32> -> tensor<2x3x3xf32>
// CHECK: return %{{.*}}, %[[DX]], %[[DW]]
func.func @f(%x: tensor<1x2x3xf32>, %w: tensor<2x3x3xf32>) -> tensor<f32> {
  %y = kiln.conv_transpose1d %x, %w {output_padding = array<i64: 1>, stride = array<i64: 2>} : (tensor<1x2x3xf32>, tensor<2x3x3xf32>) -> tensor<1x3x8xf32>
  %l = kiln.sum %y {axes = array<i64: 0, 1, 2>} : tensor<1x3x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// max_pool2d with overlapping 2x1 windows (stride 1, no padding, so no
// pad): per tap, the slice of the input equal to the result; the
// second tap only wins where the first did not (ties go to the first
// maximum). A NaN tap (`ne` with itself) wins a NaN window where no later
// tap is NaN (the last NaN, as PyTorch); the two routes add. Each share is
// padded to its offset and the shares add up.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[X:.*]]: tensor<1x1x4x4xf32>)
// CHECK: %[[Y:.*]] = kiln.max_pool2d %[[X]]
// CHECK: %[[G:.*]] = kiln.broadcast_to %{{.*}} -> tensor<1x1x3x4xf32>
// CHECK-NOT: kiln.pad %[[X]]
// CHECK: %[[T0:.*]] = kiln.slice %[[X]] {starts = array<i64: 0, 0, 0, 0>, stops = array<i64: 1, 1, 3, 4>, strides = array<i64: 1, 1, 1, 1>}
// CHECK: %[[E0:.*]] = kiln.eq %[[T0]], %[[Y]]
// CHECK: %[[M0:.*]] = kiln.convert %[[E0]] : tensor<1x1x3x4xi1> to tensor<1x1x3x4xf32>
// CHECK: %[[NE0:.*]] = kiln.ne %[[T0]], %[[T0]]
// CHECK: %[[NAN0:.*]] = kiln.convert %[[NE0]]
// CHECK: %[[T1:.*]] = kiln.slice %[[X]] {starts = array<i64: 0, 0, 1, 0>, stops = array<i64: 1, 1, 4, 4>, strides = array<i64: 1, 1, 1, 1>}
// CHECK: %[[E1:.*]] = kiln.eq %[[T1]], %[[Y]]
// CHECK: %[[M1:.*]] = kiln.convert %[[E1]]
// CHECK: %[[ONE:.*]] = kiln.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[FREE:.*]] = kiln.sub %[[ONE]], %[[M0]]
// CHECK: %[[WIN1:.*]] = kiln.mul %[[M1]], %[[FREE]]
// CHECK: %[[NE1:.*]] = kiln.ne %[[T1]], %[[T1]]
// CHECK: %[[NAN1:.*]] = kiln.convert %[[NE1]]
// CHECK: %[[W1:.*]] = kiln.add %[[WIN1]], %[[NAN1]]
// CHECK: %[[ONE2:.*]] = kiln.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[NFREE:.*]] = kiln.sub %[[ONE2]], %[[NAN1]]
// CHECK: %[[NWIN0:.*]] = kiln.mul %[[NAN0]], %[[NFREE]]
// CHECK: %[[W0:.*]] = kiln.add %[[M0]], %[[NWIN0]]
// CHECK: %[[S0:.*]] = kiln.mul %[[G]], %[[W0]]
// CHECK: %[[S1:.*]] = kiln.mul %[[G]], %[[W1]]
// CHECK: %[[P0:.*]] = kiln.pad %[[S0]] {high = array<i64: 0, 0, 1, 0>, low = array<i64: 0, 0, 0, 0>} : tensor<1x1x3x4xf32> -> tensor<1x1x4x4xf32>
// CHECK: %[[P1:.*]] = kiln.pad %[[S1]] {high = array<i64: 0, 0, 0, 0>, low = array<i64: 0, 0, 1, 0>} : tensor<1x1x3x4xf32> -> tensor<1x1x4x4xf32>
// CHECK: %[[DX:.*]] = kiln.add %[[P0]], %[[P1]]
// CHECK: return %{{.*}}, %[[DX]]
func.func @f(%x: tensor<1x1x4x4xf32>) -> tensor<f32> {
  %y = kiln.max_pool2d %x {kernel_size = array<i64: 2, 1>, stride = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x4xf32>
  %l = kiln.sum %y {axes = array<i64: 0, 1, 2, 3>} : tensor<1x1x3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// max_pool2d with 2x2 windows tiling the NaN padded input (stride = kernel;
// NaN equals nothing, so a padding tap never takes the cotangent; the NaN
// route reads the zero-padded input, so the padding is never a NaN tap):
// the four shares interleave through concats into [N, C, Ho, 2, Wo, 2], one
// reshape, and a crop of the padding row.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK-SAME: (%[[X:.*]]: tensor<1x1x3x4xf32>)
// CHECK: %[[XP:.*]] = kiln.pad %[[X]] {high = array<i64: 0, 0, 1, 0>, low = array<i64: 0, 0, 1, 0>, value = 0x7FF8000000000000 : f64} : tensor<1x1x3x4xf32> -> tensor<1x1x5x4xf32>
// CHECK: %[[XZ:.*]] = kiln.pad %[[X]] {high = array<i64: 0, 0, 1, 0>, low = array<i64: 0, 0, 1, 0>} : tensor<1x1x3x4xf32> -> tensor<1x1x5x4xf32>
// CHECK-COUNT-4: kiln.slice %[[XZ]]
// CHECK-NOT: kiln.pad
// CHECK: %[[R0:.*]] = kiln.concat %{{.*}}, %{{.*}} {axis = 4 : i64} : (tensor<1x1x2x2x1xf32>, tensor<1x1x2x2x1xf32>) -> tensor<1x1x2x2x2xf32>
// CHECK: %[[U0:.*]] = kiln.unsqueeze %[[R0]] {dim = 3 : i64}
// CHECK: %[[R1:.*]] = kiln.concat %{{.*}}, %{{.*}} {axis = 4 : i64}
// CHECK: %[[U1:.*]] = kiln.unsqueeze %[[R1]] {dim = 3 : i64}
// CHECK: %[[ALL:.*]] = kiln.concat %[[U0]], %[[U1]] {axis = 3 : i64} : (tensor<1x1x2x1x2x2xf32>, tensor<1x1x2x1x2x2xf32>) -> tensor<1x1x2x2x2x2xf32>
// CHECK: %[[M:.*]] = kiln.reshape %[[ALL]] : tensor<1x1x2x2x2x2xf32> -> tensor<1x1x4x4xf32>
// CHECK: %[[DX:.*]] = kiln.slice %[[M]] {starts = array<i64: 0, 0, 1, 0>, stops = array<i64: 1, 1, 4, 4>, strides = array<i64: 1, 1, 1, 1>} : tensor<1x1x4x4xf32> -> tensor<1x1x3x4xf32>
// CHECK: return %{{.*}}, %[[DX]]
func.func @f(%x: tensor<1x1x3x4xf32>) -> tensor<f32> {
  %y = kiln.max_pool2d %x {kernel_size = array<i64: 2, 2>, padding = array<i64: 1, 0>} : (tensor<1x1x3x4xf32>) -> tensor<1x1x2x2xf32>
  %l = kiln.sum %y {axes = array<i64: 0, 1, 2, 3>} : tensor<1x1x2x2xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// avg_pool2d (count_include_pad = false): the cotangent over the per-window
// divisors (corner windows hold 1 input tap, edges 2, the middle 4), then
// the conv input adjoint with a 2x2 kernel of ones over the 6 images.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK: %[[G:.*]] = kiln.broadcast_to %{{.*}} -> tensor<2x3x3x3xf32>
// CHECK: %[[DIV:.*]] = kiln.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00, 1.000000e+00], [2.000000e+00, 4.000000e+00, 2.000000e+00], [1.000000e+00, 2.000000e+00, 1.000000e+00]]> : tensor<3x3xf32>
// CHECK: %[[S:.*]] = kiln.div %[[G]], %[[DIV]] : (tensor<2x3x3x3xf32>, tensor<3x3xf32>) -> tensor<2x3x3x3xf32>
// CHECK: kiln.reshape %[[S]] : tensor<2x3x3x3xf32> -> tensor<6x1x3x3xf32>
// CHECK: %[[ONES:.*]] = kiln.constant dense<1.000000e+00> : tensor<1x1x2x2xf32>
// CHECK: %[[C:.*]] = kiln.conv2d %{{.*}}, %[[ONES]] : (tensor<6x1x5x5xf32>, tensor<1x1x2x2xf32>) -> tensor<6x1x4x4xf32>
// CHECK: %[[DX:.*]] = kiln.reshape %[[C]] : tensor<6x1x4x4xf32> -> tensor<2x3x4x4xf32>
// CHECK: return %{{.*}}, %[[DX]]
func.func @f(%x: tensor<2x3x4x4xf32>) -> tensor<f32> {
  %y = kiln.avg_pool2d %x {count_include_pad = false, kernel_size = array<i64: 2, 2>, padding = array<i64: 1, 1>} : (tensor<2x3x4x4xf32>) -> tensor<2x3x3x3xf32>
  %l = kiln.sum %y {axes = array<i64: 0, 1, 2, 3>} : tensor<2x3x3x3xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// upsample2d (bilinear, 2x3 -> 3x3): W keeps its size, so only A_H^T (the
// transposed [3, 2] interpolation matrix) multiplies the cotangent.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK: %[[G:.*]] = kiln.broadcast_to %{{.*}} -> tensor<1x1x3x3xf32>
// CHECK: %[[AT:.*]] = kiln.constant dense<{{\[\[}}1.000000e+00, 5.000000e-01, 0.000000e+00], [0.000000e+00, 5.000000e-01, 1.000000e+00]]> : tensor<2x3xf32>
// CHECK: %[[DX:.*]] = kiln.matmul %[[AT]], %[[G]] : (tensor<2x3xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x2x3xf32>
// CHECK: return %{{.*}}, %[[DX]]
func.func @f(%x: tensor<1x1x2x3xf32>) -> tensor<f32> {
  %y = kiln.upsample2d %x {mode = #kiln.upsample_mode<bilinear>, size = array<i64: 3, 3>} : (tensor<1x1x2x3xf32>) -> tensor<1x1x3x3xf32>
  %l = kiln.sum %y {axes = array<i64: 0, 1, 2, 3>} : tensor<1x1x3x3xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// upsample2d (nearest, 2x2 -> 2x3): a one-hot [Wo, W] matrix on the right.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK: %[[A:.*]] = kiln.constant dense<{{\[\[}}1.000000e+00, 0.000000e+00], [1.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00]]> : tensor<3x2xf32>
// CHECK: %[[DX:.*]] = kiln.matmul %{{.*}}, %[[A]] : (tensor<1x1x2x3xf32>, tensor<3x2xf32>) -> tensor<1x1x2x2xf32>
// CHECK: return %{{.*}}, %[[DX]]
func.func @f(%x: tensor<1x1x2x2xf32>) -> tensor<f32> {
  %y = kiln.upsample2d %x {size = array<i64: 2, 3>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x3xf32>
  %l = kiln.sum %y {axes = array<i64: 0, 1, 2, 3>} : tensor<1x1x2x3xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// unfold (size 2, step 2 on 5 elements): window offset j takes the slice
// [:, j], spread 2 apart and padded by j; element 4 gets nothing.
// CHECK-LABEL: func.func @f_value_and_grad
// CHECK: %[[G:.*]] = kiln.broadcast_to %{{.*}} -> tensor<2x2xf32>
// CHECK: kiln.slice %[[G]] {starts = array<i64: 0, 0>, stops = array<i64: 2, 1>, strides = array<i64: 1, 1>}
// CHECK: %[[P0:.*]] = kiln.pad %{{.*}} {high = array<i64: 2>, low = array<i64: 0>} : tensor<3xf32> -> tensor<5xf32>
// CHECK: kiln.slice %[[G]] {starts = array<i64: 0, 1>, stops = array<i64: 2, 2>, strides = array<i64: 1, 1>}
// CHECK: %[[P1:.*]] = kiln.pad %{{.*}} {high = array<i64: 1>, low = array<i64: 1>} : tensor<3xf32> -> tensor<5xf32>
// CHECK: %[[DX:.*]] = kiln.add %[[P0]], %[[P1]]
// CHECK: return %{{.*}}, %[[DX]]
func.func @f(%x: tensor<5xf32>) -> tensor<f32> {
  %y = kiln.unfold %x {dim = 0 : i64, size = 2 : i64, step = 2 : i64} : tensor<5xf32> -> tensor<2x2xf32>
  %l = kiln.sum %y {axes = array<i64: 0, 1>} : tensor<2x2xf32> -> tensor<f32>
  return %l : tensor<f32>
}
