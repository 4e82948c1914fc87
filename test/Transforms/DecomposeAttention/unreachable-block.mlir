// RUN: kiln-opt %s --kiln-decompose-attention | FileCheck %s

// Attention in an unreachable block is expanded too: the pass walks every
// op, so no kiln.attention survives it.
// CHECK-LABEL: func.func @unreachable
// CHECK-NOT: kiln.attention
// CHECK: ^bb1:
// CHECK: kiln.softmax
// CHECK-NOT: kiln.attention
func.func @unreachable(%q: tensor<1x2x3x2xf32>, %k: tensor<1x2x4x2xf32>, %v: tensor<1x2x4x2xf32>) -> tensor<1x2x3x2xf32> {
  cf.br ^bb2(%q : tensor<1x2x3x2xf32>)
^bb1:
  %o = kiln.attention %q, %k, %v : tensor<1x2x3x2xf32>, tensor<1x2x4x2xf32>, tensor<1x2x4x2xf32> -> tensor<1x2x3x2xf32>
  cf.br ^bb2(%o : tensor<1x2x3x2xf32>)
^bb2(%r: tensor<1x2x3x2xf32>):
  return %r : tensor<1x2x3x2xf32>
}
