// Before sm_80 there is no mma.sync.m16n8k16 (the NVPTX backend aborted with
// "Cannot select: intrinsic %llvm.nvvm.mma.m16n8k16"): f16 attention takes the
// SIMT kernels there, even with tensor-cores (the default).
// RUN: kiln-opt %s --kiln-lower-to-nvvm="format=isa chip=sm_75 features=+ptx63" | FileCheck %s --check-prefix=SM75
// RUN: kiln-opt %s --kiln-lower-to-nvvm="format=isa chip=sm_70 software-pipeline=true" | FileCheck %s --check-prefix=SM70
// RUN: kiln-opt %s --kiln-lower-to-nvvm="format=isa chip=sm_80 features=+ptx70" | FileCheck %s --check-prefix=SM80

// SM75: .target sm_75
// SM75-NOT: mma.sync
// SM70: .target sm_70
// SM70-NOT: mma.sync
// SM80: .target sm_80
// SM80: mma.sync.aligned.m16n8k16

func.func @attention(%q: tensor<1x2x16x64xf16>, %k: tensor<1x2x16x64xf16>,
                     %v: tensor<1x2x16x64xf16>) -> tensor<1x2x16x64xf16> {
  %0 = kiln.attention %q, %k, %v
      : tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16>
      -> tensor<1x2x16x64xf16>
  return %0 : tensor<1x2x16x64xf16>
}
