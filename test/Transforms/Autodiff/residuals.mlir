// RUN: kiln-opt %s --split-input-file --kiln-autodiff="function=f mode=split print-residuals" --verify-diagnostics -o /dev/null
// RUN: kiln-opt %s --split-input-file --kiln-autodiff="function=f print-residuals" --verify-diagnostics -o /dev/null
// RUN: kiln-opt %kiln_src_root/examples/transformer_block.mlir --kiln-autodiff="function=loss mode=split print-residuals" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BLOCK

// print-residuals: one remark per residual at the op or argument that
// defines it, then the total at the function; the same listing in split and
// combined mode (what the backward reads from the forward).

// expected-remark @+3 {{residual 0: tensor<2x3xf32> (24 bytes), argument 0}}
// expected-remark @+2 {{residual 1: tensor<3x4xf32> (48 bytes), argument 1}}
// expected-remark @+1 {{'f' saves 3 residuals, 104 bytes}}
func.func @f(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) -> tensor<f32> {
  %m = kiln.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  // expected-remark @+1 {{residual 2: tensor<2x4xf32> (32 bytes), from kiln.tanh}}
  %t = kiln.tanh %m : tensor<2x4xf32>
  %l = kiln.sum %t {axes = array<i64: 0, 1>} : tensor<2x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Attention under the default policy: attention_grad reads Q, K and V (and
// the key lengths, an integer residual), the forward's O and its row
// log-sum-exp LSE, and rebuilds the probabilities from them, so no residual
// is Sq x Sk (1x1x6x6). Bytes: 96 + 64 + 64 + 4 + 96 + 96 (x, wq, wv, kl,
// q, v) + 96 (O, 1x1x6x4 f32) + 24 (LSE, 1x1x6 f32) = 540.
// expected-remark @+5 {{residual 0: tensor<1x6x4xf32> (96 bytes), argument 0}}
// expected-remark @+4 {{residual 1: tensor<4x4xf32> (64 bytes), argument 1}}
// expected-remark @+3 {{residual 2: tensor<4x4xf32> (64 bytes), argument 2}}
// expected-remark @+2 {{residual 3: tensor<1xi32> (4 bytes), argument 3}}
// expected-remark @+1 {{'f' saves 8 residuals, 540 bytes}}
func.func @f(%x: tensor<1x6x4xf32>, %wq: tensor<4x4xf32>, %wv: tensor<4x4xf32>, %kl: tensor<1xi32>) -> tensor<f32> {
  %qp = kiln.matmul %x, %wq : (tensor<1x6x4xf32>, tensor<4x4xf32>) -> tensor<1x6x4xf32>
  %vp = kiln.matmul %x, %wv : (tensor<1x6x4xf32>, tensor<4x4xf32>) -> tensor<1x6x4xf32>
  // expected-remark @+1 {{residual 4: tensor<1x1x6x4xf32> (96 bytes), from kiln.reshape}}
  %q = kiln.reshape %qp : tensor<1x6x4xf32> -> tensor<1x1x6x4xf32>
  // expected-remark @+1 {{residual 5: tensor<1x1x6x4xf32> (96 bytes), from kiln.reshape}}
  %v = kiln.reshape %vp : tensor<1x6x4xf32> -> tensor<1x1x6x4xf32>
  // expected-remark @+2 {{residual 6: tensor<1x1x6x4xf32> (96 bytes), from kiln.attention result 0}}
  // expected-remark @+1 {{residual 7: tensor<1x1x6xf32> (24 bytes), from kiln.attention result 1}}
  %o = kiln.attention %q, %q, %v key_lengths(%kl : tensor<1xi32>) {causal} : tensor<1x1x6x4xf32>, tensor<1x1x6x4xf32>, tensor<1x1x6x4xf32> -> tensor<1x1x6x4xf32>
  %l = kiln.sum %o {axes = array<i64: 0, 1, 2, 3>} : tensor<1x1x6x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// The transformer block (Sq = Sk = 8) under the default policy: no
// residual has the attention scores' Sq x Sk trailing dims; Q, K, V, O and
// LSE are saved instead. O (2x4x8x4 f32, 1024 bytes) and LSE (2x4x8 f32,
// 256 bytes) are the two residuals the lse path adds: 27840 + 1280 = 29120.
// BLOCK-NOT: residual {{.*}}x8x8xf32
// BLOCK: residual 17: tensor<2x4x8x4xf32> (1024 bytes), from kiln.transpose
// BLOCK: residual 18: tensor<2x2x8x4xf32> (512 bytes), from kiln.transpose
// BLOCK: residual 19: tensor<2x2x8x4xf32> (512 bytes), from kiln.transpose
// BLOCK: residual 20: tensor<2x4x8x4xf32> (1024 bytes), from kiln.attention result 0
// BLOCK: residual 21: tensor<2x4x8xf32> (256 bytes), from kiln.attention result 1
// BLOCK-NOT: residual {{.*}}x8x8xf32
// BLOCK: 'loss' saves 36 residuals, 29120 bytes
