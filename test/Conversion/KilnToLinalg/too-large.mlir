// RUN: kiln-opt %s --split-input-file --convert-kiln-to-linalg -verify-diagnostics \
// RUN:   | FileCheck %s

// Pooling divisors and upsampling indices are built as per-index constant
// tables; sizes above 2^24 are refused with a diagnostic that names the size,
// not the generic "failed to legalize operation".

func.func @upsample_result(%x: tensor<1x1x1x2xf32>) -> tensor<1x1x1x33554432xf32> {
  // expected-error @below {{'kiln.upsample2d' op spatial size 33554432 exceeds 16777216, the largest the linalg lowering builds index tables for}}
  %0 = kiln.upsample2d %x {size = array<i64: 1, 33554432>} : (tensor<1x1x1x2xf32>) -> tensor<1x1x1x33554432xf32>
  return %0 : tensor<1x1x1x33554432xf32>
}

// -----

func.func @upsample_input(%x: tensor<1x1x33554432x1xf32>) -> tensor<1x1x2x1xf32> {
  // expected-error @below {{spatial size 33554432 exceeds 16777216}}
  %0 = kiln.upsample2d %x {size = array<i64: 2, 1>, mode = #kiln.upsample_mode<bilinear>} : (tensor<1x1x33554432x1xf32>) -> tensor<1x1x2x1xf32>
  return %0 : tensor<1x1x2x1xf32>
}

// -----

func.func @avg_pool(%x: tensor<1x1x1x33554432xf32>) -> tensor<1x1x1x33554432xf32> {
  // expected-error @below {{'kiln.avg_pool2d' op spatial size 33554432 exceeds 16777216}}
  %0 = kiln.avg_pool2d %x {kernel_size = array<i64: 1, 1>, count_include_pad = false} : (tensor<1x1x1x33554432xf32>) -> tensor<1x1x1x33554432xf32>
  return %0 : tensor<1x1x1x33554432xf32>
}

// -----

// Without elements the result is a tensor.empty whatever its sizes.
// CHECK-LABEL: func.func @empty
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<0x1x1x33554432xf32>
// CHECK-NEXT: return %[[E]]
func.func @empty(%x: tensor<0x1x1x2xf32>) -> tensor<0x1x1x33554432xf32> {
  %0 = kiln.upsample2d %x {size = array<i64: 1, 33554432>} : (tensor<0x1x1x2xf32>) -> tensor<0x1x1x33554432xf32>
  return %0 : tensor<0x1x1x33554432xf32>
}
