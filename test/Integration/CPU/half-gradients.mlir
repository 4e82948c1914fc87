// Backward rules that divide by a count or a size, on f16 tensors of more
// than 65504 elements (f16's largest finite value): variance, cross_entropy
// (mean) and amax with 70000 tied maxima. The rules take the count in i64
// and divide in f32, or apply 2 / (N - 1) as an f32 constant, then round
// to f16; as f16 constants, N - 1 and the count were +inf and every
// gradient came out 0.
//
// Each result is max |gradient - reference| (in f64) <= 2^-24, with the
// reference from the closed form in f64: the gradients lie in f16's
// subnormal range, where one ulp is 2^-24, and each is rounded at most twice
// by half an ulp (the f32 quotient to f16, then its product with an exact
// +-0.5). The inputs make every other step exact: x alternates 0 and 1
// (mean 0.5), the logits are 0 (p = 0.5).
// RUN: kiln-run %s --entry main | FileCheck %s
// CHECK: result0: tensor<i1>
// CHECK-NEXT: [true]
// CHECK: result1: tensor<i1>
// CHECK-NEXT: [true]
// CHECK: result2: tensor<i1>
// CHECK-NEXT: [true]

func.func @variance(%x: tensor<70000xf16>) -> tensor<f16> {
  %v = kiln.variance %x {axes = array<i64: 0>, correction = 1 : i64} : tensor<70000xf16> -> tensor<f16>
  return %v : tensor<f16>
}

func.func @cross_entropy(%x: tensor<70000x2xf16>, %t: tensor<70000xi64>) -> tensor<f16> {
  %l = kiln.cross_entropy %x, %t : (tensor<70000x2xf16>, tensor<70000xi64>) -> tensor<f16>
  return %l : tensor<f16>
}

func.func @amax(%x: tensor<70000xf16>) -> tensor<f16> {
  %m = kiln.max %x {axes = array<i64: 0>} : tensor<70000xf16> -> tensor<f16>
  return %m : tensor<f16>
}

// max |g - ref| <= 2^-24
func.func @within(%g: tensor<70000xf16>, %ref: tensor<70000xf64>) -> tensor<i1> {
  %g64 = kiln.convert %g : tensor<70000xf16> to tensor<70000xf64>
  %d = kiln.sub %g64, %ref : (tensor<70000xf64>, tensor<70000xf64>) -> tensor<70000xf64>
  %a = kiln.abs %d : tensor<70000xf64>
  %m = kiln.max %a {axes = array<i64: 0>} : tensor<70000xf64> -> tensor<f64>
  %ulp = kiln.constant dense<5.9604644775390625E-8> : tensor<f64>
  %ok = kiln.le %m, %ulp : (tensor<f64>, tensor<f64>) -> tensor<i1>
  return %ok : tensor<i1>
}

func.func @main() -> (tensor<i1>, tensor<i1>, tensor<i1>) {
  // x = [0, 1, 0, 1, ...]
  %pairs = kiln.iota {axis = 1} : tensor<35000x2xi64>
  %flat = kiln.reshape %pairs : tensor<35000x2xi64> -> tensor<70000xi64>
  %x = kiln.convert %flat : tensor<70000xi64> to tensor<70000xf16>
  %x64 = kiln.convert %flat : tensor<70000xi64> to tensor<70000xf64>

  // d var / dx = 2 (x - mean) / (N - 1)
  %v, %gv = kiln.value_and_grad @variance(%x) {wrt = array<i64: 0>}
      : (tensor<70000xf16>) -> (tensor<f16>, tensor<70000xf16>)
  %half = kiln.constant dense<0.5> : tensor<f64>
  %centered = kiln.sub %x64, %half : (tensor<70000xf64>, tensor<f64>) -> tensor<70000xf64>
  %factor = kiln.constant dense<2.8571836740524864E-5> : tensor<f64>
  %refv = kiln.mul %centered, %factor : (tensor<70000xf64>, tensor<f64>) -> tensor<70000xf64>
  %okv = func.call @within(%gv, %refv) : (tensor<70000xf16>, tensor<70000xf64>) -> tensor<i1>

  // d ce / d logits = (p - onehot(label)) / N = [-0.5, 0.5] / N
  %logits = kiln.constant dense<0.0> : tensor<70000x2xf16>
  %labels = kiln.constant dense<0> : tensor<70000xi64>
  %l, %gl = kiln.value_and_grad @cross_entropy(%logits, %labels) {wrt = array<i64: 0>}
      : (tensor<70000x2xf16>, tensor<70000xi64>) -> (tensor<f16>, tensor<70000x2xf16>)
  %col0 = kiln.slice %gl {starts = array<i64: 0, 0>, stops = array<i64: 70000, 1>, strides = array<i64: 1, 1>} : tensor<70000x2xf16> -> tensor<70000x1xf16>
  %col1 = kiln.slice %gl {starts = array<i64: 0, 1>, stops = array<i64: 70000, 2>, strides = array<i64: 1, 1>} : tensor<70000x2xf16> -> tensor<70000x1xf16>
  %g0 = kiln.reshape %col0 : tensor<70000x1xf16> -> tensor<70000xf16>
  %g1 = kiln.reshape %col1 : tensor<70000x1xf16> -> tensor<70000xf16>
  %neg = kiln.neg %g0 : tensor<70000xf16>
  %refl = kiln.constant dense<7.1428571428571429E-6> : tensor<70000xf64>
  %ok0 = func.call @within(%neg, %refl) : (tensor<70000xf16>, tensor<70000xf64>) -> tensor<i1>
  %ok1 = func.call @within(%g1, %refl) : (tensor<70000xf16>, tensor<70000xf64>) -> tensor<i1>
  // i1 mul is a logical and
  %okl = kiln.mul %ok0, %ok1 : (tensor<i1>, tensor<i1>) -> tensor<i1>

  // d amax / dx = 1 / (number of maxima) = 1 / N, all tied at 0
  %zeros = kiln.constant dense<0.0> : tensor<70000xf16>
  %m, %gm = kiln.value_and_grad @amax(%zeros) {wrt = array<i64: 0>}
      : (tensor<70000xf16>) -> (tensor<f16>, tensor<70000xf16>)
  %refm = kiln.constant dense<1.4285714285714286E-5> : tensor<70000xf64>
  %okm = func.call @within(%gm, %refm) : (tensor<70000xf16>, tensor<70000xf64>) -> tensor<i1>
  return %okv, %okl, %okm : tensor<i1>, tensor<i1>, tensor<i1>
}
