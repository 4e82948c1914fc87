// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --emit-bytecode | kiln-opt | FileCheck %s

// CHECK-LABEL: func.func @add
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: kiln.add %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
func.func @add(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @sub
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: kiln.sub %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
func.func @sub(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.sub %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @sub_i64
// CHECK-SAME: (%[[A:.*]]: tensor<4xi64>, %[[B:.*]]: tensor<1xi64>)
// CHECK: kiln.sub %[[A]], %[[B]] : (tensor<4xi64>, tensor<1xi64>) -> tensor<4xi64>
func.func @sub_i64(%a: tensor<4xi64>, %b: tensor<1xi64>) -> tensor<4xi64> {
  %0 = kiln.sub %a, %b : (tensor<4xi64>, tensor<1xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// CHECK-LABEL: func.func @mul
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x1xf32>)
// CHECK: kiln.mul %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
func.func @mul(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>) -> tensor<2x3xf32> {
  %0 = kiln.mul %a, %b : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @mul_i1
// CHECK-SAME: (%[[A:.*]]: tensor<4xi1>, %[[B:.*]]: tensor<4xi1>)
// CHECK: kiln.mul %[[A]], %[[B]] : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
func.func @mul_i1(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  %0 = kiln.mul %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// CHECK-LABEL: func.func @div
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<f32>)
// CHECK: kiln.div %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
func.func @div(%a: tensor<2x3xf32>, %b: tensor<f32>) -> tensor<2x3xf32> {
  %0 = kiln.div %a, %b : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @div_i32
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xi32>, %[[B:.*]]: tensor<3xi32>)
// CHECK: kiln.div %[[A]], %[[B]] : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
func.func @div_i32(%a: tensor<2x3xi32>, %b: tensor<3xi32>) -> tensor<2x3xi32> {
  %0 = kiln.div %a, %b : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// CHECK-LABEL: func.func @pow
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<f32>)
// CHECK: kiln.pow %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
func.func @pow(%a: tensor<2x3xf32>, %b: tensor<f32>) -> tensor<2x3xf32> {
  %0 = kiln.pow %a, %b : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @maximum
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: kiln.maximum %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
func.func @maximum(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.maximum %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @minimum
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: kiln.minimum %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
func.func @minimum(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.minimum %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @minimum_bf16
// CHECK-SAME: (%[[A:.*]]: tensor<1x3xbf16>, %[[B:.*]]: tensor<2x1xbf16>)
// CHECK: kiln.minimum %[[A]], %[[B]] : (tensor<1x3xbf16>, tensor<2x1xbf16>) -> tensor<2x3xbf16>
func.func @minimum_bf16(%a: tensor<1x3xbf16>, %b: tensor<2x1xbf16>) -> tensor<2x3xbf16> {
  %0 = kiln.minimum %a, %b : (tensor<1x3xbf16>, tensor<2x1xbf16>) -> tensor<2x3xbf16>
  return %0 : tensor<2x3xbf16>
}

// CHECK-LABEL: func.func @lt
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: kiln.lt %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
func.func @lt(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xi1> {
  %0 = kiln.lt %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  return %0 : tensor<2x3xi1>
}

// CHECK-LABEL: func.func @le
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: kiln.le %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
func.func @le(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xi1> {
  %0 = kiln.le %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  return %0 : tensor<2x3xi1>
}

// CHECK-LABEL: func.func @gt
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: kiln.gt %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
func.func @gt(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xi1> {
  %0 = kiln.gt %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  return %0 : tensor<2x3xi1>
}

// CHECK-LABEL: func.func @ge
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: kiln.ge %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
func.func @ge(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xi1> {
  %0 = kiln.ge %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  return %0 : tensor<2x3xi1>
}

// CHECK-LABEL: func.func @eq
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: kiln.eq %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
func.func @eq(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xi1> {
  %0 = kiln.eq %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  return %0 : tensor<2x3xi1>
}

// CHECK-LABEL: func.func @ne
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: kiln.ne %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
func.func @ne(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xi1> {
  %0 = kiln.ne %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  return %0 : tensor<2x3xi1>
}

// CHECK-LABEL: func.func @eq_i8
// CHECK-SAME: (%[[A:.*]]: tensor<4x1xi8>, %[[B:.*]]: tensor<5xi8>)
// CHECK: kiln.eq %[[A]], %[[B]] : (tensor<4x1xi8>, tensor<5xi8>) -> tensor<4x5xi1>
func.func @eq_i8(%a: tensor<4x1xi8>, %b: tensor<5xi8>) -> tensor<4x5xi1> {
  %0 = kiln.eq %a, %b : (tensor<4x1xi8>, tensor<5xi8>) -> tensor<4x5xi1>
  return %0 : tensor<4x5xi1>
}

// CHECK-LABEL: func.func @select
// CHECK-SAME: (%[[C:.*]]: tensor<2x1xi1>, %[[A:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<f32>)
// CHECK: kiln.select %[[C]], %[[A]], %[[B]] : (tensor<2x1xi1>, tensor<3xf32>, tensor<f32>) -> tensor<2x3xf32>
func.func @select(%c: tensor<2x1xi1>, %a: tensor<3xf32>, %b: tensor<f32>) -> tensor<2x3xf32> {
  %0 = kiln.select %c, %a, %b : (tensor<2x1xi1>, tensor<3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @exp
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.exp %[[X]] : tensor<2x3xf32>
func.func @exp(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.exp %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @expm1
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.expm1 %[[X]] : tensor<2x3xf32>
func.func @expm1(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.expm1 %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @log
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.log %[[X]] : tensor<2x3xf32>
func.func @log(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.log %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @log2
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.log2 %[[X]] : tensor<2x3xf32>
func.func @log2(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.log2 %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @log10
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.log10 %[[X]] : tensor<2x3xf32>
func.func @log10(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.log10 %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @log1p
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.log1p %[[X]] : tensor<2x3xf32>
func.func @log1p(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.log1p %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @sqrt
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.sqrt %[[X]] : tensor<2x3xf32>
func.func @sqrt(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.sqrt %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @rsqrt
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.rsqrt %[[X]] : tensor<2x3xf32>
func.func @rsqrt(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.rsqrt %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @sin
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.sin %[[X]] : tensor<2x3xf32>
func.func @sin(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.sin %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @cos
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.cos %[[X]] : tensor<2x3xf32>
func.func @cos(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.cos %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @tanh
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.tanh %[[X]] : tensor<2x3xf32>
func.func @tanh(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.tanh %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @sigmoid
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.sigmoid %[[X]] : tensor<2x3xf32>
func.func @sigmoid(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.sigmoid %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @erf
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.erf %[[X]] : tensor<2x3xf32>
func.func @erf(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.erf %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @relu
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.relu %[[X]] : tensor<2x3xf32>
func.func @relu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.relu %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @silu
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.silu %[[X]] : tensor<2x3xf32>
func.func @silu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.silu %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @leaky_relu
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.leaky_relu %[[X]] {alpha = 2.000000e-01 : f64} : tensor<2x3xf32>
func.func @leaky_relu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.leaky_relu %x {alpha = 2.000000e-01 : f64} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @leaky_relu_default
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.leaky_relu %[[X]] : tensor<2x3xf32>
func.func @leaky_relu_default(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.leaky_relu %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @elu
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.elu %[[X]] {alpha = 5.000000e-01 : f64} : tensor<2x3xf32>
func.func @elu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.elu %x {alpha = 5.000000e-01 : f64} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @elu_default
// CHECK-SAME: (%[[X:.*]]: tensor<4xbf16>)
// CHECK: kiln.elu %[[X]] : tensor<4xbf16>
func.func @elu_default(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = kiln.elu %x : tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// CHECK-LABEL: func.func @gelu
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.gelu %[[X]] {approximate = #kiln.approximation<tanh>} : tensor<2x3xf32>
func.func @gelu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.gelu %x {approximate = #kiln.approximation<tanh>} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @gelu_default
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.gelu %[[X]] : tensor<2x3xf32>
func.func @gelu_default(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.gelu %x {approximate = #kiln.approximation<none>} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @clamp
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.clamp %[[X]] {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<2x3xf32>
func.func @clamp(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.clamp %x {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @clamp_min_only
// CHECK-SAME: (%[[X:.*]]: tensor<4xf16>)
// CHECK: kiln.clamp %[[X]] {min = 0xFFF0000000000000 : f64} : tensor<4xf16>
func.func @clamp_min_only(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = kiln.clamp %x {min = 0xFFF0000000000000 : f64} : tensor<4xf16>
  return %0 : tensor<4xf16>
}

// CHECK-LABEL: func.func @neg
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.neg %[[X]] : tensor<2x3xf32>
func.func @neg(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.neg %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @neg_i32
// CHECK-SAME: (%[[X:.*]]: tensor<4xi32>)
// CHECK: kiln.neg %[[X]] : tensor<4xi32>
func.func @neg_i32(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = kiln.neg %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// CHECK-LABEL: func.func @abs
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.abs %[[X]] : tensor<2x3xf32>
func.func @abs(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.abs %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @abs_i32
// CHECK-SAME: (%[[X:.*]]: tensor<4xi32>)
// CHECK: kiln.abs %[[X]] : tensor<4xi32>
func.func @abs_i32(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = kiln.abs %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// CHECK-LABEL: func.func @sign
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.sign %[[X]] : tensor<2x3xf32>
func.func @sign(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.sign %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @sign_i32
// CHECK-SAME: (%[[X:.*]]: tensor<4xi32>)
// CHECK: kiln.sign %[[X]] : tensor<4xi32>
func.func @sign_i32(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = kiln.sign %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// CHECK-LABEL: func.func @convert
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: kiln.convert %[[X]] : tensor<2x3xf32> to tensor<2x3xf16>
func.func @convert(%x: tensor<2x3xf32>) -> tensor<2x3xf16> {
  %0 = kiln.convert %x : tensor<2x3xf32> to tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}

// CHECK-LABEL: func.func @convert_to_bool
// CHECK-SAME: (%[[X:.*]]: tensor<4xi64>)
// CHECK: kiln.convert %[[X]] : tensor<4xi64> to tensor<4xi1>
func.func @convert_to_bool(%x: tensor<4xi64>) -> tensor<4xi1> {
  %0 = kiln.convert %x : tensor<4xi64> to tensor<4xi1>
  return %0 : tensor<4xi1>
}
