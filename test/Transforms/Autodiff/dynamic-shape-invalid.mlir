// RUN: kiln-opt %s --split-input-file --kiln-autodiff="function=f" --verify-diagnostics
// RUN: kiln-opt %s --split-input-file --kiln-autodiff="function=f wrt=1 mode=split" --verify-diagnostics
// An argument that is not differentiated may have any type:
// RUN: kiln-opt %s --split-input-file --kiln-autodiff="function=f wrt=0" | FileCheck %s
//
// A gradient is built from kiln ops, which are statically shaped: for an
// argument with a dynamic dim the pass emitted the zero gradient of the
// unused argument as `kiln.constant dense<0.0> : tensor<1x1x?xf32>`, which
// kiln.constant's verifier rejects (found by test/robustness/campaign.py).
// It is an error at the argument instead. (kiln.value_and_grad's verifier
// rejects such operands; function= reaches any function.)

// CHECK-LABEL: func.func @f_value_and_grad(
// CHECK-SAME: -> (tensor<f32>, tensor<2xf32>)
func.func @f(%x: tensor<2xf32>,
             // expected-error @below {{cannot differentiate 'f' with respect to argument 1 of dynamically shaped type 'tensor<1x1x?xf32>' (kiln ops are statically shaped)}}
             %y: tensor<1x1x?xf32>) -> tensor<f32> {
  %s = kiln.sum %x {axes = array<i64: 0>} : tensor<2xf32> -> tensor<f32>
  return %s : tensor<f32>
}
