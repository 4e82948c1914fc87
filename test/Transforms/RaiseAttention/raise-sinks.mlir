// RUN: kiln-opt %s --kiln-raise-attention=empty-rows-as-zero | FileCheck %s
// The raised function computes what the written-out one does (f64):
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-opt %s --kiln-raise-attention=empty-rows-as-zero -o %t/raised.mlir
// RUN: kiln-run %s --entry gpt_oss --random-inputs --seed 11 --output-dir %t/eager > /dev/null
// RUN: kiln-run %t/raised.mlir --entry gpt_oss --random-inputs --seed 11 --output-dir %t/raised > /dev/null
// RUN: %python %S/Inputs/compare_npy.py %t/eager/result0.npy %t/raised/result0.npy 1e-12
// RUN: kiln-run %s --entry sink_first --random-inputs --seed 12 --output-dir %t/eager-first > /dev/null
// RUN: kiln-run %t/raised.mlir --entry sink_first --random-inputs --seed 12 --output-dir %t/raised-first > /dev/null
// RUN: %python %S/Inputs/compare_npy.py %t/eager-first/result0.npy %t/raised-first/result0.npy 1e-12

// gpt-oss's eager attention with sinks (Hugging Face's GptOss):
//   w = matmul(q, k.transpose(2, 3)) * scaling + mask
//   c = cat([w, sinks.reshape(1, -1, 1, 1).expand(B, -1, Sq, -1)], dim=-1)
//   c = c - c.max(dim=-1, keepdim=True).values
//   p = softmax(c, dim=-1)[..., :-1]; o = matmul(dropout(p), v)
// becomes one kiln.attention with the sinks as its operand.
func.func @gpt_oss(%q: tensor<2x4x3x8xf64>, %k: tensor<2x4x5x8xf64>, %v: tensor<2x4x5x8xf64>, %sinks: tensor<4xf64>, %m: tensor<2x1x3x5xf64>) -> tensor<2x4x3x8xf64> {
  %kt = kiln.transpose %k {dim0 = 2 : i64, dim1 = 3 : i64} : tensor<2x4x5x8xf64> -> tensor<2x4x8x5xf64>
  %s = kiln.matmul %q, %kt : (tensor<2x4x3x8xf64>, tensor<2x4x8x5xf64>) -> tensor<2x4x3x5xf64>
  %c = kiln.constant dense<0.35355339059327379> : tensor<f64>
  %ss = kiln.mul %s, %c : (tensor<2x4x3x5xf64>, tensor<f64>) -> tensor<2x4x3x5xf64>
  %w = kiln.add %ss, %m : (tensor<2x4x3x5xf64>, tensor<2x1x3x5xf64>) -> tensor<2x4x3x5xf64>
  %s4 = kiln.reshape %sinks : tensor<4xf64> -> tensor<1x4x1x1xf64>
  %col = kiln.broadcast_to %s4 : tensor<1x4x1x1xf64> -> tensor<2x4x3x1xf64>
  %cat = kiln.concat %w, %col {axis = 3 : i64} : (tensor<2x4x3x5xf64>, tensor<2x4x3x1xf64>) -> tensor<2x4x3x6xf64>
  %max = kiln.max %cat {axes = array<i64: 3>, keep_dims = true} : tensor<2x4x3x6xf64> -> tensor<2x4x3x1xf64>
  %sub = kiln.sub %cat, %max : (tensor<2x4x3x6xf64>, tensor<2x4x3x1xf64>) -> tensor<2x4x3x6xf64>
  %p = kiln.softmax %sub {axis = 3 : i64} : tensor<2x4x3x6xf64>
  %ps = kiln.slice %p {starts = array<i64: 0, 0, 0, 0>, stops = array<i64: 2, 4, 3, 5>, strides = array<i64: 1, 1, 1, 1>} : tensor<2x4x3x6xf64> -> tensor<2x4x3x5xf64>
  %o = kiln.matmul %ps, %v : (tensor<2x4x3x5xf64>, tensor<2x4x5x8xf64>) -> tensor<2x4x3x8xf64>
  return %o : tensor<2x4x3x8xf64>
}
// CHECK-LABEL: func.func @gpt_oss
// CHECK-SAME: (%[[Q:[^:]*]]: {{[^,]*}}, %[[K:[^:]*]]: {{[^,]*}}, %[[V:[^:]*]]: {{[^,]*}}, %[[S:[^:]*]]: tensor<4xf64>, %[[M:[^:]*]]: tensor<2x1x3x5xf64>)
// CHECK-NOT: kiln.softmax
// CHECK: %[[O:.*]] = kiln.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]] : tensor<2x1x3x5xf64>) sinks(%[[S]] : tensor<4xf64>) {scale = 0.35355339059327379 : f64}
// CHECK-NEXT: return %[[O]]

// The sink column first, dropped by [..., 1:], without the max
// subtraction; the sinks a [1, Hq, 1, 1] value, reshaped to [Hq].
func.func @sink_first(%q: tensor<1x2x3x4xf64>, %k: tensor<1x2x3x4xf64>, %v: tensor<1x2x3x4xf64>, %s4: tensor<1x2x1x1xf64>) -> tensor<1x2x3x4xf64> {
  %kt = kiln.transpose %k {dim0 = 2 : i64, dim1 = 3 : i64} : tensor<1x2x3x4xf64> -> tensor<1x2x4x3xf64>
  %w = kiln.matmul %q, %kt : (tensor<1x2x3x4xf64>, tensor<1x2x4x3xf64>) -> tensor<1x2x3x3xf64>
  %col = kiln.broadcast_to %s4 : tensor<1x2x1x1xf64> -> tensor<1x2x3x1xf64>
  %cat = kiln.concat %col, %w {axis = 3 : i64} : (tensor<1x2x3x1xf64>, tensor<1x2x3x3xf64>) -> tensor<1x2x3x4xf64>
  %p = kiln.softmax %cat {axis = 3 : i64} : tensor<1x2x3x4xf64>
  %ps = kiln.slice %p {starts = array<i64: 0, 0, 0, 1>, stops = array<i64: 1, 2, 3, 4>, strides = array<i64: 1, 1, 1, 1>} : tensor<1x2x3x4xf64> -> tensor<1x2x3x3xf64>
  %o = kiln.matmul %ps, %v : (tensor<1x2x3x3xf64>, tensor<1x2x3x4xf64>) -> tensor<1x2x3x4xf64>
  return %o : tensor<1x2x3x4xf64>
}
// CHECK-LABEL: func.func @sink_first
// CHECK-SAME: %[[S4:[^:]*]]: tensor<1x2x1x1xf64>)
// CHECK: %[[S:.*]] = kiln.reshape %[[S4]] : tensor<1x2x1x1xf64> -> tensor<2xf64>
// CHECK: kiln.attention %{{.*}}, %{{.*}}, %{{.*}} sinks(%[[S]] : tensor<2xf64>) {scale = 1.000000e+00 : f64}

// Near misses, left alone: the slice drops the sink column's neighbour
// (the last key), not the sink; a column that is not one logit per head
// (it varies with the query row); and a concat that something else reads.
func.func @drops_a_key(%q: tensor<1x2x3x4xf64>, %k: tensor<1x2x3x4xf64>, %v: tensor<1x2x2x4xf64>, %sinks: tensor<2xf64>) -> tensor<1x2x3x4xf64> {
  %kt = kiln.transpose %k {dim0 = 2 : i64, dim1 = 3 : i64} : tensor<1x2x3x4xf64> -> tensor<1x2x4x3xf64>
  %w = kiln.matmul %q, %kt : (tensor<1x2x3x4xf64>, tensor<1x2x4x3xf64>) -> tensor<1x2x3x3xf64>
  %s4 = kiln.reshape %sinks : tensor<2xf64> -> tensor<1x2x1x1xf64>
  %col = kiln.broadcast_to %s4 : tensor<1x2x1x1xf64> -> tensor<1x2x3x1xf64>
  %cat = kiln.concat %col, %w {axis = 3 : i64} : (tensor<1x2x3x1xf64>, tensor<1x2x3x3xf64>) -> tensor<1x2x3x4xf64>
  %p = kiln.softmax %cat {axis = 3 : i64} : tensor<1x2x3x4xf64>
  %ps = kiln.slice %p {starts = array<i64: 0, 0, 0, 1>, stops = array<i64: 1, 2, 3, 3>, strides = array<i64: 1, 1, 1, 1>} : tensor<1x2x3x4xf64> -> tensor<1x2x3x2xf64>
  %o = kiln.matmul %ps, %v : (tensor<1x2x3x2xf64>, tensor<1x2x2x4xf64>) -> tensor<1x2x3x4xf64>
  return %o : tensor<1x2x3x4xf64>
}
// CHECK-LABEL: func.func @drops_a_key
// CHECK-NOT: kiln.attention
// CHECK: kiln.softmax

func.func @per_row_column(%q: tensor<1x2x3x4xf64>, %k: tensor<1x2x3x4xf64>, %v: tensor<1x2x3x4xf64>, %col: tensor<1x2x3x1xf64>) -> tensor<1x2x3x4xf64> {
  %kt = kiln.transpose %k {dim0 = 2 : i64, dim1 = 3 : i64} : tensor<1x2x3x4xf64> -> tensor<1x2x4x3xf64>
  %w = kiln.matmul %q, %kt : (tensor<1x2x3x4xf64>, tensor<1x2x4x3xf64>) -> tensor<1x2x3x3xf64>
  %cat = kiln.concat %w, %col {axis = 3 : i64} : (tensor<1x2x3x3xf64>, tensor<1x2x3x1xf64>) -> tensor<1x2x3x4xf64>
  %p = kiln.softmax %cat {axis = 3 : i64} : tensor<1x2x3x4xf64>
  %ps = kiln.slice %p {starts = array<i64: 0, 0, 0, 0>, stops = array<i64: 1, 2, 3, 3>, strides = array<i64: 1, 1, 1, 1>} : tensor<1x2x3x4xf64> -> tensor<1x2x3x3xf64>
  %o = kiln.matmul %ps, %v : (tensor<1x2x3x3xf64>, tensor<1x2x3x4xf64>) -> tensor<1x2x3x4xf64>
  return %o : tensor<1x2x3x4xf64>
}
// CHECK-LABEL: func.func @per_row_column
// CHECK-NOT: kiln.attention
// CHECK: kiln.softmax

func.func @concat_read_twice(%q: tensor<1x2x3x4xf64>, %k: tensor<1x2x3x4xf64>, %v: tensor<1x2x3x4xf64>, %sinks: tensor<2xf64>) -> (tensor<1x2x3x4xf64>, tensor<1x2x3x4xf64>) {
  %kt = kiln.transpose %k {dim0 = 2 : i64, dim1 = 3 : i64} : tensor<1x2x3x4xf64> -> tensor<1x2x4x3xf64>
  %w = kiln.matmul %q, %kt : (tensor<1x2x3x4xf64>, tensor<1x2x4x3xf64>) -> tensor<1x2x3x3xf64>
  %s4 = kiln.reshape %sinks : tensor<2xf64> -> tensor<1x2x1x1xf64>
  %col = kiln.broadcast_to %s4 : tensor<1x2x1x1xf64> -> tensor<1x2x3x1xf64>
  %cat = kiln.concat %w, %col {axis = 3 : i64} : (tensor<1x2x3x3xf64>, tensor<1x2x3x1xf64>) -> tensor<1x2x3x4xf64>
  %p = kiln.softmax %cat {axis = 3 : i64} : tensor<1x2x3x4xf64>
  %ps = kiln.slice %p {starts = array<i64: 0, 0, 0, 0>, stops = array<i64: 1, 2, 3, 3>, strides = array<i64: 1, 1, 1, 1>} : tensor<1x2x3x4xf64> -> tensor<1x2x3x3xf64>
  %o = kiln.matmul %ps, %v : (tensor<1x2x3x3xf64>, tensor<1x2x3x4xf64>) -> tensor<1x2x3x4xf64>
  return %o, %cat : tensor<1x2x3x4xf64>, tensor<1x2x3x4xf64>
}
// CHECK-LABEL: func.func @concat_read_twice
// CHECK-NOT: kiln.attention
// CHECK: kiln.softmax
