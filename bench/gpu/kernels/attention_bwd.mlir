// The backward kernels of bench_attention_bwd.py's shapes (bf16, B = 4, S = 1024,
// causal, 16 query heads over 4 kv heads), D = 64 and 128; see
// bench/gpu/kernel_stats.sh.
func.func @d64(%q: tensor<4x16x1024x64xbf16>, %k: tensor<4x4x1024x64xbf16>, %v: tensor<4x4x1024x64xbf16>, %do: tensor<4x16x1024x64xbf16>)
    -> (tensor<4x16x1024x64xbf16>, tensor<4x4x1024x64xbf16>, tensor<4x4x1024x64xbf16>) {
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do {causal}
      : tensor<4x16x1024x64xbf16>, tensor<4x4x1024x64xbf16>, tensor<4x4x1024x64xbf16>, tensor<4x16x1024x64xbf16>
      -> tensor<4x16x1024x64xbf16>, tensor<4x4x1024x64xbf16>, tensor<4x4x1024x64xbf16>
  return %dq, %dk, %dv : tensor<4x16x1024x64xbf16>, tensor<4x4x1024x64xbf16>, tensor<4x4x1024x64xbf16>
}
func.func @d128(%q: tensor<4x16x1024x128xbf16>, %k: tensor<4x4x1024x128xbf16>, %v: tensor<4x4x1024x128xbf16>, %do: tensor<4x16x1024x128xbf16>)
    -> (tensor<4x16x1024x128xbf16>, tensor<4x4x1024x128xbf16>, tensor<4x4x1024x128xbf16>) {
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do {causal}
      : tensor<4x16x1024x128xbf16>, tensor<4x4x1024x128xbf16>, tensor<4x4x1024x128xbf16>, tensor<4x16x1024x128xbf16>
      -> tensor<4x16x1024x128xbf16>, tensor<4x4x1024x128xbf16>, tensor<4x4x1024x128xbf16>
  return %dq, %dk, %dv : tensor<4x16x1024x128xbf16>, tensor<4x4x1024x128xbf16>, tensor<4x4x1024x128xbf16>
}
