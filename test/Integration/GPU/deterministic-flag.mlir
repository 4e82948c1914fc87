// kiln-compile --gpu-deterministic reaches the attention backward: without
// it, dQ is summed across key blocks with float atomics (red/atom in the
// PTX); with it, no atomic is left anywhere in the library's kernels.
// --gpu-format=isa keeps the PTX text in the library.
//
// REQUIRES: kiln-cuda-runtime
// RUN: kiln-compile --target=cuda --gpu-format=isa %s -o %t.default.so
// RUN: kiln-compile --target=cuda --gpu-format=isa --gpu-deterministic %s -o %t.deterministic.so
// RUN: strings %t.default.so | FileCheck %s --check-prefix=ATOMIC
// RUN: strings %t.deterministic.so | FileCheck %s --check-prefix=DET
// ATOMIC: {{(red|atom)}}.global{{.*}}.add.f32
// DET: .entry
// DET-NOT: {{(red|atom)}}.{{.*}}add
//
// The flag is for the GPU targets only.
// RUN: not kiln-compile --gpu-deterministic %s -o %t.cpu.so 2>&1 | FileCheck %s --check-prefix=CPU
// CPU: kiln-compile: error: --gpu-deterministic is for --target=cuda and --target=cuda-emulator only

func.func @attn_grad(%q: tensor<1x4x100x32xbf16>, %k: tensor<1x2x100x32xbf16>, %v: tensor<1x2x100x32xbf16>, %do: tensor<1x4x100x32xbf16>)
    -> (tensor<1x4x100x32xbf16>, tensor<1x2x100x32xbf16>, tensor<1x2x100x32xbf16>) {
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do {causal}
      : tensor<1x4x100x32xbf16>, tensor<1x2x100x32xbf16>, tensor<1x2x100x32xbf16>, tensor<1x4x100x32xbf16>
      -> tensor<1x4x100x32xbf16>, tensor<1x2x100x32xbf16>, tensor<1x2x100x32xbf16>
  return %dq, %dk, %dv : tensor<1x4x100x32xbf16>, tensor<1x2x100x32xbf16>, tensor<1x2x100x32xbf16>
}
