// The raised functions compute what the written-out ones compute: each is
// run by kiln-run on the same seeded random inputs before and after
// kiln-raise-attention, in f64, and the results must agree to 1e-12
// (relative). The last check shows that the comparison tells functions
// apart: the near-miss repeat on axis 1, raised the naive way, differs.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-opt %s --kiln-raise-attention="empty-rows-as-zero" -o %t/raised-empty.mlir
// RUN: kiln-opt %s --kiln-raise-attention -o %t/raised.mlir
// RUN: FileCheck %s --input-file=%t/raised-empty.mlir --check-prefix=EMPTY
// RUN: FileCheck %s --input-file=%t/raised.mlir --check-prefix=EXACT
//
// Llama with GQA, a sliding window and padding from per-batch lengths in
// [1, 6): key 0 is always visible, so no row is empty and the finfo.min
// mask's boolean form is exact on these inputs.
// RUN: kiln-run %s --entry llama_gqa --random-inputs --seed 7 --random-range 3:1:6 --output-dir %t/llama-eager > /dev/null
// RUN: kiln-run %t/raised-empty.mlir --entry llama_gqa --random-inputs --seed 7 --random-range 3:1:6 --output-dir %t/llama-raised > /dev/null
// RUN: %python %S/Inputs/compare_npy.py %t/llama-eager/result0.npy %t/llama-raised/result0.npy 1e-12
//
// Gemma 2's softcap with dropout (the fused op draws the same Philox mask)
// and a random boolean padding mask as where(m, 0, finfo.min), kept
// additive without the option: exact even for a row with no visible key.
// RUN: kiln-run %s --entry gemma_softcap --random-inputs --seed 3 --output-dir %t/gemma-eager > /dev/null
// RUN: kiln-run %t/raised.mlir --entry gemma_softcap --random-inputs --seed 3 --output-dir %t/gemma-raised > /dev/null
// RUN: %python %S/Inputs/compare_npy.py %t/gemma-eager/result0.npy %t/gemma-raised/result0.npy 1e-12
//
// The axis-1 repeat stays repeated (only the eager form is raised) and is
// right; reading the unrepeated K and V instead would be wrong.
// RUN: kiln-run %s --entry interleaved --random-inputs --seed 5 --output-dir %t/inter-eager > /dev/null
// RUN: kiln-run %t/raised.mlir --entry interleaved --random-inputs --seed 5 --output-dir %t/inter-raised > /dev/null
// RUN: %python %S/Inputs/compare_npy.py %t/inter-eager/result0.npy %t/inter-raised/result0.npy 1e-12
// RUN: kiln-run %s --entry interleaved_naive --random-inputs --seed 5 --output-dir %t/inter-naive > /dev/null
// RUN: not %python %S/Inputs/compare_npy.py %t/inter-eager/result0.npy %t/inter-naive/result0.npy 1e-12

// EMPTY-LABEL: func.func @llama_gqa
// EMPTY-SAME: (%[[Q:[^:]*]]: {{[^,]*}}, %[[K:[^:]*]]: {{[^,]*}}, %[[V:[^:]*]]: {{[^,]*}}, %{{[^:]*}}: tensor<2xi64>)
// EMPTY: %[[PAD:.*]] = kiln.lt %{{.*}} -> tensor<2x1x1x5xi1>
// EMPTY: kiln.attention %[[Q]], %[[K]], %[[V]] mask(%[[PAD]] : tensor<2x1x1x5xi1>) {alignment = #kiln.alignment<top_left>, causal, scale = 0.35355339059327373 : f64, window_left = 2 : i64} : tensor<2x4x5x8xf64>, tensor<2x2x5x8xf64>, tensor<2x2x5x8xf64> -> tensor<2x4x5x8xf64>
func.func @llama_gqa(%q: tensor<2x4x5x8xf64>, %k: tensor<2x2x5x8xf64>, %v: tensor<2x2x5x8xf64>, %len: tensor<2xi64>) -> tensor<2x4x5x8xf64> {
  %k5 = kiln.unsqueeze %k {dim = 2 : i64} : tensor<2x2x5x8xf64> -> tensor<2x2x1x5x8xf64>
  %kb = kiln.broadcast_to %k5 : tensor<2x2x1x5x8xf64> -> tensor<2x2x2x5x8xf64>
  %kr = kiln.reshape %kb : tensor<2x2x2x5x8xf64> -> tensor<2x4x5x8xf64>
  %v5 = kiln.unsqueeze %v {dim = 2 : i64} : tensor<2x2x5x8xf64> -> tensor<2x2x1x5x8xf64>
  %vb = kiln.broadcast_to %v5 : tensor<2x2x1x5x8xf64> -> tensor<2x2x2x5x8xf64>
  %vr = kiln.reshape %vb : tensor<2x2x2x5x8xf64> -> tensor<2x4x5x8xf64>
  %kt = kiln.transpose %kr {dim0 = 2 : i64, dim1 = 3 : i64} : tensor<2x4x5x8xf64> -> tensor<2x4x8x5xf64>
  %s = kiln.matmul %q, %kt : (tensor<2x4x5x8xf64>, tensor<2x4x8x5xf64>) -> tensor<2x4x5x5xf64>
  %c = kiln.constant dense<0.35355339059327373> : tensor<f64>
  %ss = kiln.mul %s, %c : (tensor<2x4x5x5xf64>, tensor<f64>) -> tensor<2x4x5x5xf64>
  // causal & (kv_idx > q_idx - 3) & (kv_idx < len[b])
  %i = kiln.iota {axis = 2 : i64} : tensor<1x1x5x1xi64>
  %j = kiln.iota {axis = 3 : i64} : tensor<1x1x1x5xi64>
  %causal = kiln.le %j, %i : (tensor<1x1x1x5xi64>, tensor<1x1x5x1xi64>) -> tensor<1x1x5x5xi1>
  %w = kiln.constant dense<3> : tensor<i64>
  %lo = kiln.sub %i, %w : (tensor<1x1x5x1xi64>, tensor<i64>) -> tensor<1x1x5x1xi64>
  %window = kiln.gt %j, %lo : (tensor<1x1x1x5xi64>, tensor<1x1x5x1xi64>) -> tensor<1x1x5x5xi1>
  %len4 = kiln.reshape %len : tensor<2xi64> -> tensor<2x1x1x1xi64>
  %pad = kiln.lt %j, %len4 : (tensor<1x1x1x5xi64>, tensor<2x1x1x1xi64>) -> tensor<2x1x1x5xi1>
  %band = kiln.mul %causal, %window : (tensor<1x1x5x5xi1>, tensor<1x1x5x5xi1>) -> tensor<1x1x5x5xi1>
  %b = kiln.mul %band, %pad : (tensor<1x1x5x5xi1>, tensor<2x1x1x5xi1>) -> tensor<2x1x5x5xi1>
  %zero = kiln.constant dense<0.0> : tensor<f64>
  %min = kiln.constant dense<-1.7976931348623157E+308> : tensor<f64>
  %m = kiln.select %b, %zero, %min : (tensor<2x1x5x5xi1>, tensor<f64>, tensor<f64>) -> tensor<2x1x5x5xf64>
  %t = kiln.add %ss, %m : (tensor<2x4x5x5xf64>, tensor<2x1x5x5xf64>) -> tensor<2x4x5x5xf64>
  %p = kiln.softmax %t {axis = 3 : i64} : tensor<2x4x5x5xf64>
  %o = kiln.matmul %p, %vr : (tensor<2x4x5x5xf64>, tensor<2x4x5x8xf64>) -> tensor<2x4x5x8xf64>
  return %o : tensor<2x4x5x8xf64>
}

// EXACT-LABEL: func.func @gemma_softcap
// EXACT: %[[M:.*]] = kiln.select
// EXACT: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} mask(%[[M]] : tensor<2x1x1x6xf64>) seed(%{{.*}} : tensor<i64>) {dropout_p = 2.000000e-01 : f64, scale = 1.250000e-01 : f64, softcap = 2.000000e+00 : f64}
func.func @gemma_softcap(%q: tensor<2x2x4x8xf64>, %k: tensor<2x2x6x8xf64>, %v: tensor<2x2x6x8xf64>, %am: tensor<2x6xi1>, %seed: tensor<i64>) -> tensor<2x2x4x8xf64> {
  %kt = kiln.transpose %k {dim0 = 2 : i64, dim1 = 3 : i64} : tensor<2x2x6x8xf64> -> tensor<2x2x8x6xf64>
  %s = kiln.matmul %q, %kt : (tensor<2x2x4x8xf64>, tensor<2x2x8x6xf64>) -> tensor<2x2x4x6xf64>
  %c = kiln.constant dense<1.250000e-01> : tensor<f64>
  %ss = kiln.mul %s, %c : (tensor<2x2x4x6xf64>, tensor<f64>) -> tensor<2x2x4x6xf64>
  %cap = kiln.constant dense<2.0> : tensor<f64>
  %d = kiln.div %ss, %cap : (tensor<2x2x4x6xf64>, tensor<f64>) -> tensor<2x2x4x6xf64>
  %th = kiln.tanh %d : tensor<2x2x4x6xf64>
  %sc = kiln.mul %th, %cap : (tensor<2x2x4x6xf64>, tensor<f64>) -> tensor<2x2x4x6xf64>
  %am4 = kiln.reshape %am : tensor<2x6xi1> -> tensor<2x1x1x6xi1>
  %zero = kiln.constant dense<0.0> : tensor<f64>
  %min = kiln.constant dense<-1.7976931348623157E+308> : tensor<f64>
  %m = kiln.select %am4, %zero, %min : (tensor<2x1x1x6xi1>, tensor<f64>, tensor<f64>) -> tensor<2x1x1x6xf64>
  %t = kiln.add %sc, %m : (tensor<2x2x4x6xf64>, tensor<2x1x1x6xf64>) -> tensor<2x2x4x6xf64>
  %p = kiln.softmax %t {axis = 3 : i64} : tensor<2x2x4x6xf64>
  %pd = kiln.dropout %p, %seed {p = 2.000000e-01 : f64} : tensor<2x2x4x6xf64>, tensor<i64>
  %o = kiln.matmul %pd, %v : (tensor<2x2x4x6xf64>, tensor<2x2x6x8xf64>) -> tensor<2x2x4x8xf64>
  return %o : tensor<2x2x4x8xf64>
}

// EXACT-LABEL: func.func @interleaved
// EXACT: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {scale = 5.000000e-01 : f64} : tensor<1x4x3x4xf64>, tensor<1x4x3x4xf64>, tensor<1x4x3x4xf64>
func.func @interleaved(%q: tensor<1x4x3x4xf64>, %k: tensor<1x2x3x4xf64>, %v: tensor<1x2x3x4xf64>) -> tensor<1x4x3x4xf64> {
  %k5 = kiln.unsqueeze %k {dim = 1 : i64} : tensor<1x2x3x4xf64> -> tensor<1x1x2x3x4xf64>
  %kb = kiln.broadcast_to %k5 : tensor<1x1x2x3x4xf64> -> tensor<1x2x2x3x4xf64>
  %kr = kiln.reshape %kb : tensor<1x2x2x3x4xf64> -> tensor<1x4x3x4xf64>
  %v5 = kiln.unsqueeze %v {dim = 1 : i64} : tensor<1x2x3x4xf64> -> tensor<1x1x2x3x4xf64>
  %vb = kiln.broadcast_to %v5 : tensor<1x1x2x3x4xf64> -> tensor<1x2x2x3x4xf64>
  %vr = kiln.reshape %vb : tensor<1x2x2x3x4xf64> -> tensor<1x4x3x4xf64>
  %kt = kiln.transpose %kr {dim0 = 2 : i64, dim1 = 3 : i64} : tensor<1x4x3x4xf64> -> tensor<1x4x4x3xf64>
  %s = kiln.matmul %q, %kt : (tensor<1x4x3x4xf64>, tensor<1x4x4x3xf64>) -> tensor<1x4x3x3xf64>
  %c = kiln.constant dense<5.000000e-01> : tensor<f64>
  %ss = kiln.mul %s, %c : (tensor<1x4x3x3xf64>, tensor<f64>) -> tensor<1x4x3x3xf64>
  %p = kiln.softmax %ss {axis = 3 : i64} : tensor<1x4x3x3xf64>
  %o = kiln.matmul %p, %vr : (tensor<1x4x3x3xf64>, tensor<1x4x3x4xf64>) -> tensor<1x4x3x4xf64>
  return %o : tensor<1x4x3x4xf64>
}

func.func @interleaved_naive(%q: tensor<1x4x3x4xf64>, %k: tensor<1x2x3x4xf64>, %v: tensor<1x2x3x4xf64>) -> tensor<1x4x3x4xf64> {
  %o = kiln.attention %q, %k, %v {scale = 5.000000e-01 : f64} : tensor<1x4x3x4xf64>, tensor<1x2x3x4xf64>, tensor<1x2x3x4xf64> -> tensor<1x4x3x4xf64>
  return %o : tensor<1x4x3x4xf64>
}
