//===- Graphs.h - Test graphs shared by the f64 gradient tests --*- C++ -*-===//

#ifndef KILN_TEST_UNITTESTS_TESTSUPPORT_GRAPHS_H
#define KILN_TEST_UNITTESTS_TESTSUPPORT_GRAPHS_H

#include "TestSupport/JitHarness.h"

#include <vector>

namespace mlir::kiln::test {

/// A small pre-norm MLP block with a class head, in f64: embedding gather
/// (@f's argument 6 holds the token ids, 7 the labels), RMSNorm from
/// primitives, matmuls, gated GELU, a residual fan-out, and the
/// cross-entropy loss. Arguments 0 to 5 are the float parameters.
inline constexpr const char kMlpBlockSource[] = R"mlir(
func.func @f(%emb: tensor<5x4xf64>, %w1: tensor<4x6xf64>, %w2: tensor<4x6xf64>,
             %w3: tensor<6x4xf64>, %head: tensor<4x3xf64>, %norm: tensor<4xf64>,
             %ids: tensor<2x3xi64>, %labels: tensor<2xi64>) -> tensor<f64> {
  %x = kiln.gather %emb, %ids {axis = 0 : i64} : (tensor<5x4xf64>, tensor<2x3xi64>) -> tensor<2x3x4xf64>
  %sq = kiln.mul %x, %x : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  %ms = kiln.mean %sq {axes = array<i64: 2>, keep_dims = true} : tensor<2x3x4xf64> -> tensor<2x3x1xf64>
  %eps = kiln.constant dense<1.0e-06> : tensor<f64>
  %mse = kiln.add %ms, %eps : (tensor<2x3x1xf64>, tensor<f64>) -> tensor<2x3x1xf64>
  %r = kiln.rsqrt %mse : tensor<2x3x1xf64>
  %xn = kiln.mul %x, %r : (tensor<2x3x4xf64>, tensor<2x3x1xf64>) -> tensor<2x3x4xf64>
  %h = kiln.mul %xn, %norm : (tensor<2x3x4xf64>, tensor<4xf64>) -> tensor<2x3x4xf64>
  %a = kiln.matmul %h, %w1 : (tensor<2x3x4xf64>, tensor<4x6xf64>) -> tensor<2x3x6xf64>
  %b = kiln.matmul %h, %w2 : (tensor<2x3x4xf64>, tensor<4x6xf64>) -> tensor<2x3x6xf64>
  %g = kiln.gelu %a {approximate = #kiln.approximation<tanh>} : tensor<2x3x6xf64>
  %gb = kiln.mul %g, %b : (tensor<2x3x6xf64>, tensor<2x3x6xf64>) -> tensor<2x3x6xf64>
  %o = kiln.matmul %gb, %w3 : (tensor<2x3x6xf64>, tensor<6x4xf64>) -> tensor<2x3x4xf64>
  %res = kiln.add %x, %o : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  %t = kiln.transpose %res {dim0 = 1 : i64, dim1 = 2 : i64} : tensor<2x3x4xf64> -> tensor<2x4x3xf64>
  %cls = kiln.slice %t {starts = array<i64: 0, 0, 0>, stops = array<i64: 2, 4, 1>, strides = array<i64: 1, 1, 1>} : tensor<2x4x3xf64> -> tensor<2x4x1xf64>
  %c = kiln.reshape %cls : tensor<2x4x1xf64> -> tensor<2x4xf64>
  %logits = kiln.matmul %c, %head : (tensor<2x4xf64>, tensor<4x3xf64>) -> tensor<2x3xf64>
  %l = kiln.cross_entropy %logits, %labels : (tensor<2x3xf64>, tensor<2xi64>) -> tensor<f64>
  return %l : tensor<f64>
}
)mlir";

/// kMlpBlockSource's inputs: random parameters, the norm weight (argument
/// 5) filled with `normFill`, token ids with a repeated token, and labels.
inline std::vector<InputSpec> getMlpBlockInputs(Fill normFill) {
  return {f64({5, 4}),
          f64({4, 6}),
          f64({4, 6}),
          f64({6, 4}),
          f64({4, 3}),
          f64({4}, normFill),
          given(DType::I64, {2, 3}, {0, 3, 3, 4, 1, 3}),
          given(DType::I64, {2}, {2, 0})};
}

} // namespace mlir::kiln::test

#endif // KILN_TEST_UNITTESTS_TESTSUPPORT_GRAPHS_H
