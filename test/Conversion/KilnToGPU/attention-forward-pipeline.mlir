// REQUIRES: ptxas
// The forward kernels through kiln-lower-to-nvvm, which frees temporaries
// while the attention launches are still inline (kiln-gpu-deallocate-
// temporaries): the shared tiles and the tensor-core mma reach the PTX.
// RUN: kiln-opt %s --kiln-lower-to-nvvm="format=isa" | %python %S/Inputs/extract-ptx.py | FileCheck %s

// CHECK: .shared .align {{[0-9]+}} .b8
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
func.func @bf16(%q: tensor<1x2x70x64xbf16>, %k: tensor<1x1x90x64xbf16>, %v: tensor<1x1x90x64xbf16>, %m: tensor<70x90xi1>) -> tensor<1x2x70x64xbf16> {
  %o = kiln.attention %q, %k, %v mask(%m : tensor<70x90xi1>) {causal} : tensor<1x2x70x64xbf16>, tensor<1x1x90x64xbf16>, tensor<1x1x90x64xbf16> -> tensor<1x2x70x64xbf16>
  return %o : tensor<1x2x70x64xbf16>
}
