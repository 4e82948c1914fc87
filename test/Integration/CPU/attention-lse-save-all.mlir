// A loss through attention's lse result: the default remat refuses it (the
// composite kiln.attention_grad has no lse cotangent; see
// Transforms/Autodiff/invalid.mlir), and the error points at remat=save-all,
// which decomposes attention first and differentiates through the
// primitives. The gradient against PyTorch's autograd in f64
// (Inputs/gen_rule_numerics.py prints it).
// RUN: kiln-opt %s --kiln-autodiff="remat=save-all" | kiln-run - --entry main | FileCheck %s

// CHECK: result0: tensor<1x1x3x2xf64>
// CHECK-NEXT: [0.980836, -0.676139, 1.64652, 0.0235338, -0.887018, 2.72063]

func.func private @through_lse(%q: tensor<1x1x3x2xf64>) -> tensor<f64> {
  %o, %lse = kiln.attention %q, %q, %q : tensor<1x1x3x2xf64>, tensor<1x1x3x2xf64>, tensor<1x1x3x2xf64> -> tensor<1x1x3x2xf64>, tensor<1x1x3xf64>
  %l = kiln.sum %lse {axes = array<i64: 0, 1, 2>} : tensor<1x1x3xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @main() -> tensor<1x1x3x2xf64> {
  %q = kiln.constant dense<[[[[0.5, -1.0], [1.5, 0.25], [-0.75, 2.0]]]]> : tensor<1x1x3x2xf64>
  %l, %dq = kiln.value_and_grad @through_lse(%q) {wrt = array<i64: 0>}
      : (tensor<1x1x3x2xf64>) -> (tensor<f64>, tensor<1x1x3x2xf64>)
  return %dq : tensor<1x1x3x2xf64>
}
