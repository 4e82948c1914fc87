// A pre-norm transformer block with a classification loss, in the kiln dialect.
//
//   tokens [B=2, S=8] (the last position is the class token), vocabulary V=32, model dim D=16
//   RMSNorm written with primitives (mul, mean, add, rsqrt)
//   causal grouped-query attention: 4 query heads over 2 kv heads, head dim 4
//   gated GELU feed-forward (tanh form), hidden 32
//   class-token head to C=5 classes and a mean cross-entropy loss
//
// The parameters are function arguments so that autodiff can differentiate the
// loss with respect to each of them.

func.func @loss(%tokens: tensor<2x8xi64>, %labels: tensor<2xi64>,
                %embed: tensor<32x16xf32>,
                %attn_norm: tensor<16xf32>,
                %wq: tensor<16x16xf32>, %wk: tensor<16x8xf32>,
                %wv: tensor<16x8xf32>, %wo: tensor<16x16xf32>,
                %ffn_norm: tensor<16xf32>,
                %w_gate: tensor<16x32xf32>, %w_up: tensor<16x32xf32>,
                %w_down: tensor<32x16xf32>,
                %final_norm: tensor<16xf32>, %w_head: tensor<16x5xf32>)
    -> tensor<f32> {
  %eps = kiln.constant dense<1.0e-06> : tensor<f32>

  // Token embedding: [V, D] gathered by [B, S] -> [B, S, D].
  %x = kiln.gather %embed, %tokens {axis = 0 : i64}
      : (tensor<32x16xf32>, tensor<2x8xi64>) -> tensor<2x8x16xf32>

  // RMSNorm before attention, from primitives.
  %x_sq = kiln.mul %x, %x : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %x_ms = kiln.mean %x_sq {axes = array<i64: 2>, keep_dims = true}
      : tensor<2x8x16xf32> -> tensor<2x8x1xf32>
  %x_mse = kiln.add %x_ms, %eps : (tensor<2x8x1xf32>, tensor<f32>) -> tensor<2x8x1xf32>
  %x_rs = kiln.rsqrt %x_mse : tensor<2x8x1xf32>
  %x_n = kiln.mul %x, %x_rs : (tensor<2x8x16xf32>, tensor<2x8x1xf32>) -> tensor<2x8x16xf32>
  %h = kiln.mul %x_n, %attn_norm : (tensor<2x8x16xf32>, tensor<16xf32>) -> tensor<2x8x16xf32>

  // Projections to 4 query heads and 2 kv heads of size 4: [B, H, S, 4].
  %q_p = kiln.matmul %h, %wq : (tensor<2x8x16xf32>, tensor<16x16xf32>) -> tensor<2x8x16xf32>
  %q_r = kiln.reshape %q_p : tensor<2x8x16xf32> -> tensor<2x8x4x4xf32>
  %q = kiln.transpose %q_r {dim0 = 1 : i64, dim1 = 2 : i64} : tensor<2x8x4x4xf32> -> tensor<2x4x8x4xf32>
  %k_p = kiln.matmul %h, %wk : (tensor<2x8x16xf32>, tensor<16x8xf32>) -> tensor<2x8x8xf32>
  %k_r = kiln.reshape %k_p : tensor<2x8x8xf32> -> tensor<2x8x2x4xf32>
  %k = kiln.transpose %k_r {dim0 = 1 : i64, dim1 = 2 : i64} : tensor<2x8x2x4xf32> -> tensor<2x2x8x4xf32>
  %v_p = kiln.matmul %h, %wv : (tensor<2x8x16xf32>, tensor<16x8xf32>) -> tensor<2x8x8xf32>
  %v_r = kiln.reshape %v_p : tensor<2x8x8xf32> -> tensor<2x8x2x4xf32>
  %v = kiln.transpose %v_r {dim0 = 1 : i64, dim1 = 2 : i64} : tensor<2x8x2x4xf32> -> tensor<2x2x8x4xf32>

  // Causal grouped-query attention, then merge heads and project out.
  %attn = kiln.attention %q, %k, %v {causal}
      : tensor<2x4x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32> -> tensor<2x4x8x4xf32>
  %a_t = kiln.transpose %attn {dim0 = 1 : i64, dim1 = 2 : i64} : tensor<2x4x8x4xf32> -> tensor<2x8x4x4xf32>
  %a_m = kiln.reshape %a_t : tensor<2x8x4x4xf32> -> tensor<2x8x16xf32>
  %a_o = kiln.matmul %a_m, %wo : (tensor<2x8x16xf32>, tensor<16x16xf32>) -> tensor<2x8x16xf32>
  %x1 = kiln.add %x, %a_o : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>

  // RMSNorm before the feed-forward.
  %y_sq = kiln.mul %x1, %x1 : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %y_ms = kiln.mean %y_sq {axes = array<i64: 2>, keep_dims = true}
      : tensor<2x8x16xf32> -> tensor<2x8x1xf32>
  %y_mse = kiln.add %y_ms, %eps : (tensor<2x8x1xf32>, tensor<f32>) -> tensor<2x8x1xf32>
  %y_rs = kiln.rsqrt %y_mse : tensor<2x8x1xf32>
  %y_n = kiln.mul %x1, %y_rs : (tensor<2x8x16xf32>, tensor<2x8x1xf32>) -> tensor<2x8x16xf32>
  %g = kiln.mul %y_n, %ffn_norm : (tensor<2x8x16xf32>, tensor<16xf32>) -> tensor<2x8x16xf32>

  // Gated GELU feed-forward: down(gelu(g @ w_gate) * (g @ w_up)).
  %gate_p = kiln.matmul %g, %w_gate : (tensor<2x8x16xf32>, tensor<16x32xf32>) -> tensor<2x8x32xf32>
  %gate = kiln.gelu %gate_p {approximate = #kiln.approximation<tanh>} : tensor<2x8x32xf32>
  %up = kiln.matmul %g, %w_up : (tensor<2x8x16xf32>, tensor<16x32xf32>) -> tensor<2x8x32xf32>
  %ff_h = kiln.mul %gate, %up : (tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %ff = kiln.matmul %ff_h, %w_down : (tensor<2x8x32xf32>, tensor<32x16xf32>) -> tensor<2x8x16xf32>
  %x2 = kiln.add %x1, %ff : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>

  // Final RMSNorm of the class token (the last position, which attends to every
  // token under the causal mask) and the classification head.
  %cls3 = kiln.slice %x2 {starts = array<i64: 0, 7, 0>, stops = array<i64: 2, 8, 16>,
                          strides = array<i64: 1, 1, 1>} : tensor<2x8x16xf32> -> tensor<2x1x16xf32>
  %cls = kiln.reshape %cls3 : tensor<2x1x16xf32> -> tensor<2x16xf32>
  %c_sq = kiln.mul %cls, %cls : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>
  %c_ms = kiln.mean %c_sq {axes = array<i64: 1>, keep_dims = true} : tensor<2x16xf32> -> tensor<2x1xf32>
  %c_mse = kiln.add %c_ms, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %c_rs = kiln.rsqrt %c_mse : tensor<2x1xf32>
  %c_n = kiln.mul %cls, %c_rs : (tensor<2x16xf32>, tensor<2x1xf32>) -> tensor<2x16xf32>
  %c = kiln.mul %c_n, %final_norm : (tensor<2x16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
  %logits = kiln.matmul %c, %w_head : (tensor<2x16xf32>, tensor<16x5xf32>) -> tensor<2x5xf32>
  %loss = kiln.cross_entropy %logits, %labels {reduction = #kiln.reduction<mean>}
      : (tensor<2x5xf32>, tensor<2xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
