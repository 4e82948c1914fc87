// RUN: kiln-opt %s --kiln-autodiff=function=f --kiln-graph-summary -o /dev/null | FileCheck %s --implicit-check-not=matmul --implicit-check-not=iota

// The gradient of a GPT-2-sized embedding (50257 x 768 table, 8 x 1024
// token ids): kiln.index_add adds the 8192 cotangent rows into the table's
// zeros, so the largest value is the table-sized gradient, O(V x D). The
// one-hot adjoint it replaced made a tensor<50257x8192xi64> iota (and its
// eq and convert, each V x N) and a V x N x D matmul.
// The whole summary, the ops line included, names neither matmul nor iota.
// CHECK-LABEL: func @f_value_and_grad: 2 args
// CHECK-NEXT: results:
// CHECK-NEXT: ops: {{[0-9]+}} kiln (
// CHECK-SAME: index_add 1
// CHECK: largest value: tensor<50257x768xf32> (38597376 elements)
func.func @f(%w: tensor<50257x768xf32>, %ids: tensor<8x1024xi64>) -> tensor<f32> {
  %e = kiln.gather %w, %ids {axis = 0 : i64} : (tensor<50257x768xf32>, tensor<8x1024xi64>) -> tensor<8x1024x768xf32>
  %l = kiln.sum %e {axes = array<i64: 0, 1, 2>} : tensor<8x1024x768xf32> -> tensor<f32>
  return %l : tensor<f32>
}
