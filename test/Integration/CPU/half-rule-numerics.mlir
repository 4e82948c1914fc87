// Backward rules whose intermediate values overflow or round away in f16 or
// bf16: they compute in f32 and round each gradient once (getComputeType).
// The expected values are PyTorch's float64 gradients rounded once to the
// half type, printed by Inputs/gen_rule_numerics.py; the closed forms are
// exact. Before, in f16:
// - layer_norm and rms_norm: (x - mean)^2 and x^2 were inf for |x| > 256,
//   so rstd = 0 and row 0's dx was 0 and dw wrong; in bf16 the mean was
//   rounded before x - mean;
// - gelu (tanh form): x * x = inf for |x| >= 256 and 0 * inf gave NaN;
// - rsqrt: y^3 = 2^18 overflowed (dx -inf instead of -2^18 * 2^-11 = -128);
// - log10: x ln(10) overflowed for x > 28448 (dx 0);
// - dropout: the scale 1 / (1 - p) = 2^17 was inf as an f16 constant, and
//   each kept x = 2^-10 became inf instead of 128.
// RUN: kiln-run %s --entry main | FileCheck %s

// CHECK: result0: tensor<2x4xf16>
// CHECK-NEXT: [-0.0131073, 0.0114212, 0.0189667, -0.0172882, -0.822266, -0.25293, 4.04688, -2.97266]
// CHECK-NEXT: result1: tensor<4xf16>
// CHECK-NEXT: [0.126099, -2.93359, 3.40039, 0.831055]
// CHECK-NEXT: result2: tensor<4xf16>
// CHECK-NEXT: [2, 4, 6, 8]
// CHECK-NEXT: result3: tensor<2x4xf16>
// CHECK-NEXT: [-0.0100403, 0.0140991, 0.0218353, -0.014595, 0.314209, 0.333252, 1.84668, -1.67285]
// CHECK-NEXT: result4: tensor<4xf16>
// CHECK-NEXT: [1.62793, -0.598145, 4.87109, 1.45312]
// CHECK-NEXT: result5: tensor<1x4xbf16>
// CHECK-NEXT: [2.95312, -3.9375, -0.984375, 1.96875]
// CHECK-NEXT: result6: tensor<5xf16>
// CHECK-NEXT: [1.08301, 1.01172, 1, 1, 0]
// CHECK-NEXT: result7: tensor<5xf16>
// CHECK-NEXT: [1.08301, 1.01172, 1, 1, 0]
// CHECK-NEXT: result8: tensor<2xf16>
// CHECK-NEXT: [-128, -0.00390625]
// CHECK-NEXT: result9: tensor<2xf16>
// CHECK-NEXT: [1.44839e-05, 0.0434265]
// CHECK-NEXT: result10: tensor<f16>
// CHECK-NEXT: [128]
// CHECK-NEXT: result11: tensor<i1>
// CHECK-NEXT: [true]

func.func @layer_norm(%x: tensor<2x4xf16>, %w: tensor<4xf16>, %b: tensor<4xf16>) -> tensor<f16> {
  %y = kiln.layer_norm %x weight(%w : tensor<4xf16>) bias(%b : tensor<4xf16>) : tensor<2x4xf16>
  %c = kiln.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf16>
  %yc = kiln.mul %y, %c : (tensor<2x4xf16>, tensor<4xf16>) -> tensor<2x4xf16>
  %l = kiln.sum %yc {axes = array<i64: 0, 1>} : tensor<2x4xf16> -> tensor<f16>
  return %l : tensor<f16>
}

func.func @rms_norm(%x: tensor<2x4xf16>, %w: tensor<4xf16>) -> tensor<f16> {
  %y = kiln.rms_norm %x weight(%w : tensor<4xf16>) : tensor<2x4xf16>
  %c = kiln.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf16>
  %yc = kiln.mul %y, %c : (tensor<2x4xf16>, tensor<4xf16>) -> tensor<2x4xf16>
  %l = kiln.sum %yc {axes = array<i64: 0, 1>} : tensor<2x4xf16> -> tensor<f16>
  return %l : tensor<f16>
}

func.func @layer_norm_bf16(%x: tensor<1x4xbf16>) -> tensor<bf16> {
  %y = kiln.layer_norm %x : tensor<1x4xbf16>
  %c = kiln.constant dense<[1.0, -2.0, 0.5, 3.0]> : tensor<4xbf16>
  %yc = kiln.mul %y, %c : (tensor<1x4xbf16>, tensor<4xbf16>) -> tensor<1x4xbf16>
  %l = kiln.sum %yc {axes = array<i64: 0, 1>} : tensor<1x4xbf16> -> tensor<bf16>
  return %l : tensor<bf16>
}

func.func @gelu_tanh(%x: tensor<5xf16>) -> tensor<f16> {
  %y = kiln.gelu %x {approximate = #kiln.approximation<tanh>} : tensor<5xf16>
  %l = kiln.sum %y {axes = array<i64: 0>} : tensor<5xf16> -> tensor<f16>
  return %l : tensor<f16>
}

func.func @gelu(%x: tensor<5xf16>) -> tensor<f16> {
  %y = kiln.gelu %x : tensor<5xf16>
  %l = kiln.sum %y {axes = array<i64: 0>} : tensor<5xf16> -> tensor<f16>
  return %l : tensor<f16>
}

// d/dx sum(rsqrt(x) c) = -c / 2 x^-3/2, c = 2^-10: at x = 2^-12 (y = 64),
// -2^-11 * 2^18 = -128; at x = 1/4 (y = 2), -2^-11 * 8 = -2^-8.
func.func @rsqrt(%x: tensor<2xf16>) -> tensor<f16> {
  %y = kiln.rsqrt %x : tensor<2xf16>
  %c = kiln.constant dense<9.765625E-4> : tensor<f16>
  %yc = kiln.mul %y, %c : (tensor<2xf16>, tensor<f16>) -> tensor<2xf16>
  %l = kiln.sum %yc {axes = array<i64: 0>} : tensor<2xf16> -> tensor<f16>
  return %l : tensor<f16>
}

func.func @log10(%x: tensor<2xf16>) -> tensor<f16> {
  %y = kiln.log10 %x : tensor<2xf16>
  %l = kiln.sum %y {axes = array<i64: 0>} : tensor<2xf16> -> tensor<f16>
  return %l : tensor<f16>
}

func.func @main() -> (tensor<2x4xf16>, tensor<4xf16>, tensor<4xf16>,
                      tensor<2x4xf16>, tensor<4xf16>, tensor<1x4xbf16>,
                      tensor<5xf16>, tensor<5xf16>, tensor<2xf16>,
                      tensor<2xf16>, tensor<f16>, tensor<i1>) {
  %x = kiln.constant dense<[[300.0, -200.0, 100.0, -250.0], [1.0, 2.0, 4.0, 5.0]]> : tensor<2x4xf16>
  %w = kiln.constant dense<[1.0, 0.5, 2.0, -1.5]> : tensor<4xf16>
  %b = kiln.constant dense<[0.25, 0.0, 0.0, 0.0]> : tensor<4xf16>
  %l0, %dx0, %dw0, %db0 = kiln.value_and_grad @layer_norm(%x, %w, %b) {wrt = array<i64: 0, 1, 2>}
      : (tensor<2x4xf16>, tensor<4xf16>, tensor<4xf16>) -> (tensor<f16>, tensor<2x4xf16>, tensor<4xf16>, tensor<4xf16>)
  %l1, %dx1, %dw1 = kiln.value_and_grad @rms_norm(%x, %w) {wrt = array<i64: 0, 1>}
      : (tensor<2x4xf16>, tensor<4xf16>) -> (tensor<f16>, tensor<2x4xf16>, tensor<4xf16>)

  %xb = kiln.constant dense<[[100.0, 100.5, 101.0, 101.5]]> : tensor<1x4xbf16>
  %l2, %dx2 = kiln.value_and_grad @layer_norm_bf16(%xb) {wrt = array<i64: 0>}
      : (tensor<1x4xbf16>) -> (tensor<bf16>, tensor<1x4xbf16>)

  %xg = kiln.constant dense<[1.0, 3.0, 100.0, 300.0, -300.0]> : tensor<5xf16>
  %l3, %dx3 = kiln.value_and_grad @gelu_tanh(%xg) {wrt = array<i64: 0>}
      : (tensor<5xf16>) -> (tensor<f16>, tensor<5xf16>)
  %l4, %dx4 = kiln.value_and_grad @gelu(%xg) {wrt = array<i64: 0>}
      : (tensor<5xf16>) -> (tensor<f16>, tensor<5xf16>)

  %xr = kiln.constant dense<[2.44140625E-4, 0.25]> : tensor<2xf16>
  %l5, %dx5 = kiln.value_and_grad @rsqrt(%xr) {wrt = array<i64: 0>}
      : (tensor<2xf16>) -> (tensor<f16>, tensor<2xf16>)

  %xl = kiln.constant dense<[30000.0, 10.0]> : tensor<2xf16>
  %l6, %dx6 = kiln.value_and_grad @log10(%xl) {wrt = array<i64: 0>}
      : (tensor<2xf16>) -> (tensor<f16>, tensor<2xf16>)

  // Dropout with 1 - p = 2^-17 of 2^20 values 2^-10: the kept ones are
  // 2^-10 * 2^17 = 128 (exact), the others 0. Checked: the maximum is 128,
  // and every value is 0 or 128 (the sum is 128 times the number kept).
  %small = kiln.constant dense<9.765625E-4> : tensor<1048576xf16>
  %seed = kiln.constant dense<7> : tensor<i64>
  %y = kiln.dropout %small, %seed {p = 0.99999237060546875 : f64} : tensor<1048576xf16>, tensor<i64>
  %max = kiln.max %y {axes = array<i64: 0>} : tensor<1048576xf16> -> tensor<f16>
  %y32 = kiln.convert %y : tensor<1048576xf16> to tensor<1048576xf32>
  %sum = kiln.sum %y32 {axes = array<i64: 0>} : tensor<1048576xf32> -> tensor<f32>
  %zero = kiln.constant dense<0.0> : tensor<1048576xf16>
  %kept = kiln.ne %y, %zero : (tensor<1048576xf16>, tensor<1048576xf16>) -> tensor<1048576xi1>
  %kept32 = kiln.convert %kept : tensor<1048576xi1> to tensor<1048576xf32>
  %count = kiln.sum %kept32 {axes = array<i64: 0>} : tensor<1048576xf32> -> tensor<f32>
  %c128 = kiln.constant dense<128.0> : tensor<f32>
  %expected = kiln.mul %count, %c128 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %ok = kiln.eq %sum, %expected : (tensor<f32>, tensor<f32>) -> tensor<i1>

  return %dx0, %dw0, %db0, %dx1, %dw1, %dx2, %dx3, %dx4, %dx5, %dx6, %max, %ok
      : tensor<2x4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<2x4xf16>,
        tensor<4xf16>, tensor<1x4xbf16>, tensor<5xf16>, tensor<5xf16>,
        tensor<2xf16>, tensor<2xf16>, tensor<f16>, tensor<i1>
}
