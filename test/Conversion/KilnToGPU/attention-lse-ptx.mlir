// REQUIRES: ptxas
// The forward kernels writing lse (tensor-core f16, SIMT f32) and the
// backward with the forward's O and LSE (its D-only preprocess) through
// kiln-lower-to-nvvm (the tensor-core forward's ldmatrix needs the aligned
// workgroup tiles that only Kiln's pipeline gives), as cubins from ptxas
// for sm_90 and sm_80 (the serializer runs the toolkit's ptxas and fails if
// it rejects).
// RUN: kiln-opt %s --kiln-lower-to-nvvm | FileCheck %s
// RUN: kiln-opt %s --kiln-lower-to-nvvm="chip=sm_80 features=+ptx80" | FileCheck %s
// Two forward kernels, then zero, preprocess, main and cast.
// CHECK-COUNT-6: gpu.binary @{{.*}}kernel{{.*}} [#gpu.object<#nvvm.target<{{.*}}chip = "sm_{{[89]}}0"{{.*}}bin = "
// CHECK-NOT: gpu.binary
func.func @forward_mma(%q: tensor<1x2x70x64xf16>, %k: tensor<1x2x80x64xf16>, %v: tensor<1x2x80x16xf16>) -> (tensor<1x2x70x16xf16>, tensor<1x2x70xf32>) {
  %o, %l = kiln.attention %q, %k, %v {causal} : tensor<1x2x70x64xf16>, tensor<1x2x80x64xf16>, tensor<1x2x80x16xf16> -> tensor<1x2x70x16xf16>, tensor<1x2x70xf32>
  return %o, %l : tensor<1x2x70x16xf16>, tensor<1x2x70xf32>
}

func.func @forward_simt(%q: tensor<1x2x30x8xf32>, %k: tensor<1x1x40x8xf32>, %v: tensor<1x1x40x8xf32>) -> (tensor<1x2x30x8xf32>, tensor<1x2x30xf32>) {
  %o, %l = kiln.attention %q, %k, %v {causal} : tensor<1x2x30x8xf32>, tensor<1x1x40x8xf32>, tensor<1x1x40x8xf32> -> tensor<1x2x30x8xf32>, tensor<1x2x30xf32>
  return %o, %l : tensor<1x2x30x8xf32>, tensor<1x2x30xf32>
}

func.func @backward_saved(%q: tensor<2x4x48x8xbf16>, %k: tensor<2x2x80x8xbf16>, %v: tensor<2x2x80x16xbf16>, %do: tensor<2x4x48x16xbf16>,
                          %o: tensor<2x4x48x16xbf16>, %lse: tensor<2x4x48xf32>)
    -> (tensor<2x4x48x8xbf16>, tensor<2x2x80x8xbf16>, tensor<2x2x80x16xbf16>) {
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do out(%o : tensor<2x4x48x16xbf16>) lse(%lse : tensor<2x4x48xf32>) {causal}
      : tensor<2x4x48x8xbf16>, tensor<2x2x80x8xbf16>, tensor<2x2x80x16xbf16>, tensor<2x4x48x16xbf16>
      -> tensor<2x4x48x8xbf16>, tensor<2x2x80x8xbf16>, tensor<2x2x80x16xbf16>
  return %dq, %dk, %dv : tensor<2x4x48x8xbf16>, tensor<2x2x80x8xbf16>, tensor<2x2x80x16xbf16>
}
