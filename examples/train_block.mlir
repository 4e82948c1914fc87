// A training step of the transformer block (examples/transformer_block.mlir,
// whose @loss is repeated below unchanged), compiled once and called once per
// step (scripts/train-aot.py, run by scripts/demo.sh):
//
//   @train_step(tokens, labels, 12 parameters, their 12 first moments m,
//               their 12 second moments v, step, lr)
//     -> (loss, 12 updated parameters, 12 updated m, 12 updated v, step + 1)
//
// computes the loss and its gradients with kiln.value_and_grad
// (kiln-lower-to-cpu runs kiln-autodiff first) and applies one Adam update
// (Kingma & Ba, with bias correction, written as torch.optim.Adam computes it):
//
//   t = step + 1
//   m' = beta1 m + (1 - beta1) g          v' = beta2 v + (1 - beta2) g^2
//   p' = p - (lr / (1 - beta1^t)) m' / (sqrt(v') / sqrt(1 - beta2^t) + eps)
//
// beta1 = 0.9, beta2 = 0.999 and eps = 1e-8 are constants; lr is an argument
// so a driver can schedule it. The step count is a rank-0 f32 tensor, as
// torch.optim.Adam keeps it (exact up to 2^24 steps); a driver starts it, m
// and v at 0 and feeds every result but the loss back in.
//
// @loss_and_grads returns the loss and the gradient of every parameter; the
// demo compiles an f64 copy of this file (f32 -> f64) and checks it against
// central differences of @loss.
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

func.func @loss_and_grads(%tokens: tensor<2x8xi64>,
                           %labels: tensor<2xi64>,
                           %embed: tensor<32x16xf32>,
                           %attn_norm: tensor<16xf32>,
                           %wq: tensor<16x16xf32>,
                           %wk: tensor<16x8xf32>,
                           %wv: tensor<16x8xf32>,
                           %wo: tensor<16x16xf32>,
                           %ffn_norm: tensor<16xf32>,
                           %w_gate: tensor<16x32xf32>,
                           %w_up: tensor<16x32xf32>,
                           %w_down: tensor<32x16xf32>,
                           %final_norm: tensor<16xf32>,
                           %w_head: tensor<16x5xf32>)
    -> (tensor<f32>, tensor<32x16xf32>, tensor<16xf32>, tensor<16x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x16xf32>, tensor<16xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<32x16xf32>, tensor<16xf32>, tensor<16x5xf32>) {
  %l, %d_embed, %d_attn_norm, %d_wq, %d_wk, %d_wv, %d_wo, %d_ffn_norm, %d_w_gate, %d_w_up, %d_w_down, %d_final_norm, %d_w_head = kiln.value_and_grad @loss(%tokens, %labels, %embed, %attn_norm, %wq, %wk, %wv, %wo, %ffn_norm, %w_gate, %w_up, %w_down, %final_norm, %w_head)
      {wrt = array<i64: 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13>}
      : (tensor<2x8xi64>, tensor<2xi64>, tensor<32x16xf32>, tensor<16xf32>, tensor<16x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x16xf32>, tensor<16xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<32x16xf32>, tensor<16xf32>, tensor<16x5xf32>)
      -> (tensor<f32>, tensor<32x16xf32>, tensor<16xf32>, tensor<16x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x16xf32>, tensor<16xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<32x16xf32>, tensor<16xf32>, tensor<16x5xf32>)
  return %l, %d_embed, %d_attn_norm, %d_wq, %d_wk, %d_wv, %d_wo, %d_ffn_norm, %d_w_gate, %d_w_up, %d_w_down, %d_final_norm, %d_w_head
      : tensor<f32>, tensor<32x16xf32>, tensor<16xf32>, tensor<16x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x16xf32>, tensor<16xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<32x16xf32>, tensor<16xf32>, tensor<16x5xf32>
}

func.func @train_step(%tokens: tensor<2x8xi64>,
                      %labels: tensor<2xi64>,
                      %embed: tensor<32x16xf32>,
                      %attn_norm: tensor<16xf32>,
                      %wq: tensor<16x16xf32>,
                      %wk: tensor<16x8xf32>,
                      %wv: tensor<16x8xf32>,
                      %wo: tensor<16x16xf32>,
                      %ffn_norm: tensor<16xf32>,
                      %w_gate: tensor<16x32xf32>,
                      %w_up: tensor<16x32xf32>,
                      %w_down: tensor<32x16xf32>,
                      %final_norm: tensor<16xf32>,
                      %w_head: tensor<16x5xf32>,
                      %m_embed: tensor<32x16xf32>,
                      %m_attn_norm: tensor<16xf32>,
                      %m_wq: tensor<16x16xf32>,
                      %m_wk: tensor<16x8xf32>,
                      %m_wv: tensor<16x8xf32>,
                      %m_wo: tensor<16x16xf32>,
                      %m_ffn_norm: tensor<16xf32>,
                      %m_w_gate: tensor<16x32xf32>,
                      %m_w_up: tensor<16x32xf32>,
                      %m_w_down: tensor<32x16xf32>,
                      %m_final_norm: tensor<16xf32>,
                      %m_w_head: tensor<16x5xf32>,
                      %v_embed: tensor<32x16xf32>,
                      %v_attn_norm: tensor<16xf32>,
                      %v_wq: tensor<16x16xf32>,
                      %v_wk: tensor<16x8xf32>,
                      %v_wv: tensor<16x8xf32>,
                      %v_wo: tensor<16x16xf32>,
                      %v_ffn_norm: tensor<16xf32>,
                      %v_w_gate: tensor<16x32xf32>,
                      %v_w_up: tensor<16x32xf32>,
                      %v_w_down: tensor<32x16xf32>,
                      %v_final_norm: tensor<16xf32>,
                      %v_w_head: tensor<16x5xf32>,
                      %step: tensor<f32>,
                      %lr: tensor<f32>)
    -> (tensor<f32>, tensor<32x16xf32>, tensor<16xf32>, tensor<16x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x16xf32>, tensor<16xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<32x16xf32>, tensor<16xf32>, tensor<16x5xf32>, tensor<32x16xf32>, tensor<16xf32>, tensor<16x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x16xf32>, tensor<16xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<32x16xf32>, tensor<16xf32>, tensor<16x5xf32>, tensor<32x16xf32>, tensor<16xf32>, tensor<16x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x16xf32>, tensor<16xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<32x16xf32>, tensor<16xf32>, tensor<16x5xf32>, tensor<f32>) {
  %l, %d_embed, %d_attn_norm, %d_wq, %d_wk, %d_wv, %d_wo, %d_ffn_norm, %d_w_gate, %d_w_up, %d_w_down, %d_final_norm, %d_w_head = kiln.value_and_grad @loss(%tokens, %labels, %embed, %attn_norm, %wq, %wk, %wv, %wo, %ffn_norm, %w_gate, %w_up, %w_down, %final_norm, %w_head)
      {wrt = array<i64: 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13>}
      : (tensor<2x8xi64>, tensor<2xi64>, tensor<32x16xf32>, tensor<16xf32>, tensor<16x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x16xf32>, tensor<16xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<32x16xf32>, tensor<16xf32>, tensor<16x5xf32>)
      -> (tensor<f32>, tensor<32x16xf32>, tensor<16xf32>, tensor<16x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x16xf32>, tensor<16xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<32x16xf32>, tensor<16xf32>, tensor<16x5xf32>)
  %beta1 = kiln.constant dense<0.9> : tensor<f32>
  %one_minus_beta1 = kiln.constant dense<0.1> : tensor<f32>
  %beta2 = kiln.constant dense<0.999> : tensor<f32>
  %one_minus_beta2 = kiln.constant dense<1.0e-03> : tensor<f32>
  %adam_eps = kiln.constant dense<1.0e-08> : tensor<f32>
  %one = kiln.constant dense<1.0> : tensor<f32>
  // Bias corrections of step t = step + 1, shared by every parameter:
  // step_size = lr / (1 - beta1^t), inv_sqrt_bc2 = 1 / sqrt(1 - beta2^t).
  %t = kiln.add %step, %one : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %beta1_t = kiln.pow %beta1, %t : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %bc1 = kiln.sub %one, %beta1_t : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %step_size = kiln.div %lr, %bc1 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %beta2_t = kiln.pow %beta2, %t : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %bc2 = kiln.sub %one, %beta2_t : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %inv_sqrt_bc2 = kiln.rsqrt %bc2 : tensor<f32>
  // embed
  %embed_m1 = kiln.mul %m_embed, %beta1 : (tensor<32x16xf32>, tensor<f32>) -> tensor<32x16xf32>
  %embed_m2 = kiln.mul %d_embed, %one_minus_beta1 : (tensor<32x16xf32>, tensor<f32>) -> tensor<32x16xf32>
  %new_m_embed = kiln.add %embed_m1, %embed_m2 : (tensor<32x16xf32>, tensor<32x16xf32>) -> tensor<32x16xf32>
  %embed_g2 = kiln.mul %d_embed, %d_embed : (tensor<32x16xf32>, tensor<32x16xf32>) -> tensor<32x16xf32>
  %embed_v1 = kiln.mul %v_embed, %beta2 : (tensor<32x16xf32>, tensor<f32>) -> tensor<32x16xf32>
  %embed_v2 = kiln.mul %embed_g2, %one_minus_beta2 : (tensor<32x16xf32>, tensor<f32>) -> tensor<32x16xf32>
  %new_v_embed = kiln.add %embed_v1, %embed_v2 : (tensor<32x16xf32>, tensor<32x16xf32>) -> tensor<32x16xf32>
  %embed_sq = kiln.sqrt %new_v_embed : tensor<32x16xf32>
  %embed_sqc = kiln.mul %embed_sq, %inv_sqrt_bc2 : (tensor<32x16xf32>, tensor<f32>) -> tensor<32x16xf32>
  %embed_den = kiln.add %embed_sqc, %adam_eps : (tensor<32x16xf32>, tensor<f32>) -> tensor<32x16xf32>
  %embed_dir = kiln.div %new_m_embed, %embed_den : (tensor<32x16xf32>, tensor<32x16xf32>) -> tensor<32x16xf32>
  %embed_upd = kiln.mul %embed_dir, %step_size : (tensor<32x16xf32>, tensor<f32>) -> tensor<32x16xf32>
  %new_embed = kiln.sub %embed, %embed_upd : (tensor<32x16xf32>, tensor<32x16xf32>) -> tensor<32x16xf32>
  // attn_norm
  %attn_norm_m1 = kiln.mul %m_attn_norm, %beta1 : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %attn_norm_m2 = kiln.mul %d_attn_norm, %one_minus_beta1 : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %new_m_attn_norm = kiln.add %attn_norm_m1, %attn_norm_m2 : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %attn_norm_g2 = kiln.mul %d_attn_norm, %d_attn_norm : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %attn_norm_v1 = kiln.mul %v_attn_norm, %beta2 : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %attn_norm_v2 = kiln.mul %attn_norm_g2, %one_minus_beta2 : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %new_v_attn_norm = kiln.add %attn_norm_v1, %attn_norm_v2 : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %attn_norm_sq = kiln.sqrt %new_v_attn_norm : tensor<16xf32>
  %attn_norm_sqc = kiln.mul %attn_norm_sq, %inv_sqrt_bc2 : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %attn_norm_den = kiln.add %attn_norm_sqc, %adam_eps : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %attn_norm_dir = kiln.div %new_m_attn_norm, %attn_norm_den : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %attn_norm_upd = kiln.mul %attn_norm_dir, %step_size : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %new_attn_norm = kiln.sub %attn_norm, %attn_norm_upd : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  // wq
  %wq_m1 = kiln.mul %m_wq, %beta1 : (tensor<16x16xf32>, tensor<f32>) -> tensor<16x16xf32>
  %wq_m2 = kiln.mul %d_wq, %one_minus_beta1 : (tensor<16x16xf32>, tensor<f32>) -> tensor<16x16xf32>
  %new_m_wq = kiln.add %wq_m1, %wq_m2 : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %wq_g2 = kiln.mul %d_wq, %d_wq : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %wq_v1 = kiln.mul %v_wq, %beta2 : (tensor<16x16xf32>, tensor<f32>) -> tensor<16x16xf32>
  %wq_v2 = kiln.mul %wq_g2, %one_minus_beta2 : (tensor<16x16xf32>, tensor<f32>) -> tensor<16x16xf32>
  %new_v_wq = kiln.add %wq_v1, %wq_v2 : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %wq_sq = kiln.sqrt %new_v_wq : tensor<16x16xf32>
  %wq_sqc = kiln.mul %wq_sq, %inv_sqrt_bc2 : (tensor<16x16xf32>, tensor<f32>) -> tensor<16x16xf32>
  %wq_den = kiln.add %wq_sqc, %adam_eps : (tensor<16x16xf32>, tensor<f32>) -> tensor<16x16xf32>
  %wq_dir = kiln.div %new_m_wq, %wq_den : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %wq_upd = kiln.mul %wq_dir, %step_size : (tensor<16x16xf32>, tensor<f32>) -> tensor<16x16xf32>
  %new_wq = kiln.sub %wq, %wq_upd : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  // wk
  %wk_m1 = kiln.mul %m_wk, %beta1 : (tensor<16x8xf32>, tensor<f32>) -> tensor<16x8xf32>
  %wk_m2 = kiln.mul %d_wk, %one_minus_beta1 : (tensor<16x8xf32>, tensor<f32>) -> tensor<16x8xf32>
  %new_m_wk = kiln.add %wk_m1, %wk_m2 : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
  %wk_g2 = kiln.mul %d_wk, %d_wk : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
  %wk_v1 = kiln.mul %v_wk, %beta2 : (tensor<16x8xf32>, tensor<f32>) -> tensor<16x8xf32>
  %wk_v2 = kiln.mul %wk_g2, %one_minus_beta2 : (tensor<16x8xf32>, tensor<f32>) -> tensor<16x8xf32>
  %new_v_wk = kiln.add %wk_v1, %wk_v2 : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
  %wk_sq = kiln.sqrt %new_v_wk : tensor<16x8xf32>
  %wk_sqc = kiln.mul %wk_sq, %inv_sqrt_bc2 : (tensor<16x8xf32>, tensor<f32>) -> tensor<16x8xf32>
  %wk_den = kiln.add %wk_sqc, %adam_eps : (tensor<16x8xf32>, tensor<f32>) -> tensor<16x8xf32>
  %wk_dir = kiln.div %new_m_wk, %wk_den : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
  %wk_upd = kiln.mul %wk_dir, %step_size : (tensor<16x8xf32>, tensor<f32>) -> tensor<16x8xf32>
  %new_wk = kiln.sub %wk, %wk_upd : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
  // wv
  %wv_m1 = kiln.mul %m_wv, %beta1 : (tensor<16x8xf32>, tensor<f32>) -> tensor<16x8xf32>
  %wv_m2 = kiln.mul %d_wv, %one_minus_beta1 : (tensor<16x8xf32>, tensor<f32>) -> tensor<16x8xf32>
  %new_m_wv = kiln.add %wv_m1, %wv_m2 : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
  %wv_g2 = kiln.mul %d_wv, %d_wv : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
  %wv_v1 = kiln.mul %v_wv, %beta2 : (tensor<16x8xf32>, tensor<f32>) -> tensor<16x8xf32>
  %wv_v2 = kiln.mul %wv_g2, %one_minus_beta2 : (tensor<16x8xf32>, tensor<f32>) -> tensor<16x8xf32>
  %new_v_wv = kiln.add %wv_v1, %wv_v2 : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
  %wv_sq = kiln.sqrt %new_v_wv : tensor<16x8xf32>
  %wv_sqc = kiln.mul %wv_sq, %inv_sqrt_bc2 : (tensor<16x8xf32>, tensor<f32>) -> tensor<16x8xf32>
  %wv_den = kiln.add %wv_sqc, %adam_eps : (tensor<16x8xf32>, tensor<f32>) -> tensor<16x8xf32>
  %wv_dir = kiln.div %new_m_wv, %wv_den : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
  %wv_upd = kiln.mul %wv_dir, %step_size : (tensor<16x8xf32>, tensor<f32>) -> tensor<16x8xf32>
  %new_wv = kiln.sub %wv, %wv_upd : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
  // wo
  %wo_m1 = kiln.mul %m_wo, %beta1 : (tensor<16x16xf32>, tensor<f32>) -> tensor<16x16xf32>
  %wo_m2 = kiln.mul %d_wo, %one_minus_beta1 : (tensor<16x16xf32>, tensor<f32>) -> tensor<16x16xf32>
  %new_m_wo = kiln.add %wo_m1, %wo_m2 : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %wo_g2 = kiln.mul %d_wo, %d_wo : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %wo_v1 = kiln.mul %v_wo, %beta2 : (tensor<16x16xf32>, tensor<f32>) -> tensor<16x16xf32>
  %wo_v2 = kiln.mul %wo_g2, %one_minus_beta2 : (tensor<16x16xf32>, tensor<f32>) -> tensor<16x16xf32>
  %new_v_wo = kiln.add %wo_v1, %wo_v2 : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %wo_sq = kiln.sqrt %new_v_wo : tensor<16x16xf32>
  %wo_sqc = kiln.mul %wo_sq, %inv_sqrt_bc2 : (tensor<16x16xf32>, tensor<f32>) -> tensor<16x16xf32>
  %wo_den = kiln.add %wo_sqc, %adam_eps : (tensor<16x16xf32>, tensor<f32>) -> tensor<16x16xf32>
  %wo_dir = kiln.div %new_m_wo, %wo_den : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %wo_upd = kiln.mul %wo_dir, %step_size : (tensor<16x16xf32>, tensor<f32>) -> tensor<16x16xf32>
  %new_wo = kiln.sub %wo, %wo_upd : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  // ffn_norm
  %ffn_norm_m1 = kiln.mul %m_ffn_norm, %beta1 : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %ffn_norm_m2 = kiln.mul %d_ffn_norm, %one_minus_beta1 : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %new_m_ffn_norm = kiln.add %ffn_norm_m1, %ffn_norm_m2 : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %ffn_norm_g2 = kiln.mul %d_ffn_norm, %d_ffn_norm : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %ffn_norm_v1 = kiln.mul %v_ffn_norm, %beta2 : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %ffn_norm_v2 = kiln.mul %ffn_norm_g2, %one_minus_beta2 : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %new_v_ffn_norm = kiln.add %ffn_norm_v1, %ffn_norm_v2 : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %ffn_norm_sq = kiln.sqrt %new_v_ffn_norm : tensor<16xf32>
  %ffn_norm_sqc = kiln.mul %ffn_norm_sq, %inv_sqrt_bc2 : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %ffn_norm_den = kiln.add %ffn_norm_sqc, %adam_eps : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %ffn_norm_dir = kiln.div %new_m_ffn_norm, %ffn_norm_den : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %ffn_norm_upd = kiln.mul %ffn_norm_dir, %step_size : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %new_ffn_norm = kiln.sub %ffn_norm, %ffn_norm_upd : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  // w_gate
  %w_gate_m1 = kiln.mul %m_w_gate, %beta1 : (tensor<16x32xf32>, tensor<f32>) -> tensor<16x32xf32>
  %w_gate_m2 = kiln.mul %d_w_gate, %one_minus_beta1 : (tensor<16x32xf32>, tensor<f32>) -> tensor<16x32xf32>
  %new_m_w_gate = kiln.add %w_gate_m1, %w_gate_m2 : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  %w_gate_g2 = kiln.mul %d_w_gate, %d_w_gate : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  %w_gate_v1 = kiln.mul %v_w_gate, %beta2 : (tensor<16x32xf32>, tensor<f32>) -> tensor<16x32xf32>
  %w_gate_v2 = kiln.mul %w_gate_g2, %one_minus_beta2 : (tensor<16x32xf32>, tensor<f32>) -> tensor<16x32xf32>
  %new_v_w_gate = kiln.add %w_gate_v1, %w_gate_v2 : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  %w_gate_sq = kiln.sqrt %new_v_w_gate : tensor<16x32xf32>
  %w_gate_sqc = kiln.mul %w_gate_sq, %inv_sqrt_bc2 : (tensor<16x32xf32>, tensor<f32>) -> tensor<16x32xf32>
  %w_gate_den = kiln.add %w_gate_sqc, %adam_eps : (tensor<16x32xf32>, tensor<f32>) -> tensor<16x32xf32>
  %w_gate_dir = kiln.div %new_m_w_gate, %w_gate_den : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  %w_gate_upd = kiln.mul %w_gate_dir, %step_size : (tensor<16x32xf32>, tensor<f32>) -> tensor<16x32xf32>
  %new_w_gate = kiln.sub %w_gate, %w_gate_upd : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  // w_up
  %w_up_m1 = kiln.mul %m_w_up, %beta1 : (tensor<16x32xf32>, tensor<f32>) -> tensor<16x32xf32>
  %w_up_m2 = kiln.mul %d_w_up, %one_minus_beta1 : (tensor<16x32xf32>, tensor<f32>) -> tensor<16x32xf32>
  %new_m_w_up = kiln.add %w_up_m1, %w_up_m2 : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  %w_up_g2 = kiln.mul %d_w_up, %d_w_up : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  %w_up_v1 = kiln.mul %v_w_up, %beta2 : (tensor<16x32xf32>, tensor<f32>) -> tensor<16x32xf32>
  %w_up_v2 = kiln.mul %w_up_g2, %one_minus_beta2 : (tensor<16x32xf32>, tensor<f32>) -> tensor<16x32xf32>
  %new_v_w_up = kiln.add %w_up_v1, %w_up_v2 : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  %w_up_sq = kiln.sqrt %new_v_w_up : tensor<16x32xf32>
  %w_up_sqc = kiln.mul %w_up_sq, %inv_sqrt_bc2 : (tensor<16x32xf32>, tensor<f32>) -> tensor<16x32xf32>
  %w_up_den = kiln.add %w_up_sqc, %adam_eps : (tensor<16x32xf32>, tensor<f32>) -> tensor<16x32xf32>
  %w_up_dir = kiln.div %new_m_w_up, %w_up_den : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  %w_up_upd = kiln.mul %w_up_dir, %step_size : (tensor<16x32xf32>, tensor<f32>) -> tensor<16x32xf32>
  %new_w_up = kiln.sub %w_up, %w_up_upd : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  // w_down
  %w_down_m1 = kiln.mul %m_w_down, %beta1 : (tensor<32x16xf32>, tensor<f32>) -> tensor<32x16xf32>
  %w_down_m2 = kiln.mul %d_w_down, %one_minus_beta1 : (tensor<32x16xf32>, tensor<f32>) -> tensor<32x16xf32>
  %new_m_w_down = kiln.add %w_down_m1, %w_down_m2 : (tensor<32x16xf32>, tensor<32x16xf32>) -> tensor<32x16xf32>
  %w_down_g2 = kiln.mul %d_w_down, %d_w_down : (tensor<32x16xf32>, tensor<32x16xf32>) -> tensor<32x16xf32>
  %w_down_v1 = kiln.mul %v_w_down, %beta2 : (tensor<32x16xf32>, tensor<f32>) -> tensor<32x16xf32>
  %w_down_v2 = kiln.mul %w_down_g2, %one_minus_beta2 : (tensor<32x16xf32>, tensor<f32>) -> tensor<32x16xf32>
  %new_v_w_down = kiln.add %w_down_v1, %w_down_v2 : (tensor<32x16xf32>, tensor<32x16xf32>) -> tensor<32x16xf32>
  %w_down_sq = kiln.sqrt %new_v_w_down : tensor<32x16xf32>
  %w_down_sqc = kiln.mul %w_down_sq, %inv_sqrt_bc2 : (tensor<32x16xf32>, tensor<f32>) -> tensor<32x16xf32>
  %w_down_den = kiln.add %w_down_sqc, %adam_eps : (tensor<32x16xf32>, tensor<f32>) -> tensor<32x16xf32>
  %w_down_dir = kiln.div %new_m_w_down, %w_down_den : (tensor<32x16xf32>, tensor<32x16xf32>) -> tensor<32x16xf32>
  %w_down_upd = kiln.mul %w_down_dir, %step_size : (tensor<32x16xf32>, tensor<f32>) -> tensor<32x16xf32>
  %new_w_down = kiln.sub %w_down, %w_down_upd : (tensor<32x16xf32>, tensor<32x16xf32>) -> tensor<32x16xf32>
  // final_norm
  %final_norm_m1 = kiln.mul %m_final_norm, %beta1 : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %final_norm_m2 = kiln.mul %d_final_norm, %one_minus_beta1 : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %new_m_final_norm = kiln.add %final_norm_m1, %final_norm_m2 : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %final_norm_g2 = kiln.mul %d_final_norm, %d_final_norm : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %final_norm_v1 = kiln.mul %v_final_norm, %beta2 : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %final_norm_v2 = kiln.mul %final_norm_g2, %one_minus_beta2 : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %new_v_final_norm = kiln.add %final_norm_v1, %final_norm_v2 : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %final_norm_sq = kiln.sqrt %new_v_final_norm : tensor<16xf32>
  %final_norm_sqc = kiln.mul %final_norm_sq, %inv_sqrt_bc2 : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %final_norm_den = kiln.add %final_norm_sqc, %adam_eps : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %final_norm_dir = kiln.div %new_m_final_norm, %final_norm_den : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %final_norm_upd = kiln.mul %final_norm_dir, %step_size : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %new_final_norm = kiln.sub %final_norm, %final_norm_upd : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  // w_head
  %w_head_m1 = kiln.mul %m_w_head, %beta1 : (tensor<16x5xf32>, tensor<f32>) -> tensor<16x5xf32>
  %w_head_m2 = kiln.mul %d_w_head, %one_minus_beta1 : (tensor<16x5xf32>, tensor<f32>) -> tensor<16x5xf32>
  %new_m_w_head = kiln.add %w_head_m1, %w_head_m2 : (tensor<16x5xf32>, tensor<16x5xf32>) -> tensor<16x5xf32>
  %w_head_g2 = kiln.mul %d_w_head, %d_w_head : (tensor<16x5xf32>, tensor<16x5xf32>) -> tensor<16x5xf32>
  %w_head_v1 = kiln.mul %v_w_head, %beta2 : (tensor<16x5xf32>, tensor<f32>) -> tensor<16x5xf32>
  %w_head_v2 = kiln.mul %w_head_g2, %one_minus_beta2 : (tensor<16x5xf32>, tensor<f32>) -> tensor<16x5xf32>
  %new_v_w_head = kiln.add %w_head_v1, %w_head_v2 : (tensor<16x5xf32>, tensor<16x5xf32>) -> tensor<16x5xf32>
  %w_head_sq = kiln.sqrt %new_v_w_head : tensor<16x5xf32>
  %w_head_sqc = kiln.mul %w_head_sq, %inv_sqrt_bc2 : (tensor<16x5xf32>, tensor<f32>) -> tensor<16x5xf32>
  %w_head_den = kiln.add %w_head_sqc, %adam_eps : (tensor<16x5xf32>, tensor<f32>) -> tensor<16x5xf32>
  %w_head_dir = kiln.div %new_m_w_head, %w_head_den : (tensor<16x5xf32>, tensor<16x5xf32>) -> tensor<16x5xf32>
  %w_head_upd = kiln.mul %w_head_dir, %step_size : (tensor<16x5xf32>, tensor<f32>) -> tensor<16x5xf32>
  %new_w_head = kiln.sub %w_head, %w_head_upd : (tensor<16x5xf32>, tensor<16x5xf32>) -> tensor<16x5xf32>
  return %l, %new_embed, %new_attn_norm, %new_wq, %new_wk, %new_wv, %new_wo, %new_ffn_norm, %new_w_gate, %new_w_up, %new_w_down, %new_final_norm, %new_w_head, %new_m_embed, %new_m_attn_norm, %new_m_wq, %new_m_wk, %new_m_wv, %new_m_wo, %new_m_ffn_norm, %new_m_w_gate, %new_m_w_up, %new_m_w_down, %new_m_final_norm, %new_m_w_head, %new_v_embed, %new_v_attn_norm, %new_v_wq, %new_v_wk, %new_v_wv, %new_v_wo, %new_v_ffn_norm, %new_v_w_gate, %new_v_w_up, %new_v_w_down, %new_v_final_norm, %new_v_w_head, %t
      : tensor<f32>, tensor<32x16xf32>, tensor<16xf32>, tensor<16x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x16xf32>, tensor<16xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<32x16xf32>, tensor<16xf32>, tensor<16x5xf32>, tensor<32x16xf32>, tensor<16xf32>, tensor<16x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x16xf32>, tensor<16xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<32x16xf32>, tensor<16xf32>, tensor<16x5xf32>, tensor<32x16xf32>, tensor<16xf32>, tensor<16x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x16xf32>, tensor<16xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<32x16xf32>, tensor<16xf32>, tensor<16x5xf32>, tensor<f32>
}
