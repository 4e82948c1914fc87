// The forward kernels of bench_attention_fwd.py's shapes (bf16, B = 4, S = 1024):
// D = 64 causal with 16 query heads over 4 kv heads, D = 128 not causal.
// bench/gpu/kernel_stats.sh compiles them for sm_90 and prints ptxas's
// registers and spills and the PTX instruction count of each kernel.
func.func @f64c(%q: tensor<4x16x1024x64xbf16>, %k: tensor<4x4x1024x64xbf16>, %v: tensor<4x4x1024x64xbf16>) -> tensor<4x16x1024x64xbf16> {
  %o = kiln.attention %q, %k, %v {causal} : tensor<4x16x1024x64xbf16>, tensor<4x4x1024x64xbf16>, tensor<4x4x1024x64xbf16> -> tensor<4x16x1024x64xbf16>
  return %o : tensor<4x16x1024x64xbf16>
}
func.func @f128(%q: tensor<4x16x1024x128xbf16>, %k: tensor<4x16x1024x128xbf16>, %v: tensor<4x16x1024x128xbf16>) -> tensor<4x16x1024x128xbf16> {
  %o = kiln.attention %q, %k, %v : tensor<4x16x1024x128xbf16>, tensor<4x16x1024x128xbf16>, tensor<4x16x1024x128xbf16> -> tensor<4x16x1024x128xbf16>
  return %o : tensor<4x16x1024x128xbf16>
}
