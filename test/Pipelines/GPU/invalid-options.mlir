// kiln-lower-to-nvvm rejects the chips, PTX versions and formats that the
// NVPTX backend or the #nvvm.target verifier would meet with a crash or a
// fatal error (found by test/robustness/campaign.py).
// RUN: not kiln-opt %s --kiln-lower-to-nvvm="chip=" 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not kiln-opt %s --kiln-lower-to-nvvm="chip=compute_90" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not kiln-opt %s --kiln-lower-to-nvvm="format=isa features=+ptx60" 2>&1 | FileCheck %s --check-prefix=OLD
// RUN: not kiln-opt %s --kiln-lower-to-nvvm="format=isa chip=sm_100" 2>&1 | FileCheck %s --check-prefix=OLD100
// RUN: not kiln-opt %s --kiln-lower-to-nvvm="features=garbage" 2>&1 | FileCheck %s --check-prefix=FEATURES
// RUN: not kiln-opt %s --kiln-lower-to-nvvm="format=garbage" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not kiln-opt %s --kiln-lower-to-nvvm="opt-level=4" 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not kiln-opt %s --kiln-lower-to-nvvm="format=isa opt-level=-1" 2>&1 | FileCheck %s --check-prefix=OPTNEG
// The oldest PTX version each chip takes is accepted.
// RUN: kiln-opt %s --kiln-lower-to-nvvm="format=isa features=+ptx78" | FileCheck %s --check-prefix=PTX78
// RUN: kiln-opt %s --kiln-lower-to-nvvm="format=isa chip=sm_100 features=+ptx86" -o /dev/null

// EMPTY: error: kiln-lower-to-nvvm: 'chip' must name an NVPTX processor such as sm_90, got ''
// CHIP: error: kiln-lower-to-nvvm: 'chip' must name an NVPTX processor such as sm_90, got 'compute_90'
// OLD: error: kiln-lower-to-nvvm: 'features' +ptx60 is too old for sm_90, which needs +ptx78 or newer
// OLD100: error: kiln-lower-to-nvvm: 'features' +ptx80 is too old for sm_100, which needs +ptx86 or newer
// FEATURES: error: kiln-lower-to-nvvm: 'features' must be a PTX ISA version such as +ptx80, got 'garbage'
// FORMAT: error: kiln-lower-to-nvvm: 'format' must be isa, bin or fatbin, got 'garbage'
// OPT: error: kiln-lower-to-nvvm: 'opt-level' must be 0, 1, 2 or 3, got 4
// OPTNEG: error: kiln-lower-to-nvvm: 'opt-level' must be 0, 1, 2 or 3, got -1
// PTX78: .version 7.8

func.func @attention(%q: tensor<1x2x16x64xf16>, %k: tensor<1x2x16x64xf16>,
                     %v: tensor<1x2x16x64xf16>) -> tensor<1x2x16x64xf16> {
  %0 = kiln.attention %q, %k, %v
      : tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16>
      -> tensor<1x2x16x64xf16>
  return %0 : tensor<1x2x16x64xf16>
}
