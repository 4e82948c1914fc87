// kiln-compile --gpu-software-pipeline reaches convert-kiln-attention-to-gpu:
// with it (alone or =on), the forward tensor-core kernel loads the next K/V
// tile after staging the current one (16-byte global loads between the
// second barrier and the mma); with =off, and by default (auto) at this
// head dim of 64, where it was measured not to pay, no load sits there.
// --gpu-format=isa keeps the PTX text in the library.
//
// REQUIRES: kiln-cuda-runtime
// RUN: kiln-compile --target=cuda --gpu-format=isa --gpu-software-pipeline %s -o %t.pipelined.so
// RUN: kiln-compile --target=cuda --gpu-format=isa --gpu-software-pipeline=on %s -o %t.on.so
// RUN: kiln-compile --target=cuda --gpu-format=isa %s -o %t.default.so
// RUN: kiln-compile --target=cuda --gpu-format=isa --gpu-software-pipeline=off %s -o %t.off.so
// RUN: strings %t.pipelined.so | FileCheck %s
// RUN: strings %t.on.so | FileCheck %s
// RUN: strings %t.default.so | not FileCheck %s
// RUN: strings %t.off.so | not FileCheck %s
// CHECK: ld.global.v4.b32
// CHECK: bar.sync
// CHECK: st.shared.v4.b32
// CHECK: bar.sync
// CHECK: ld.global.v4.b32
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
//
// A value that is none of auto, on, off, true, false.
// RUN: not kiln-compile --target=cuda --gpu-software-pipeline=sometimes %s -o %t.bad.so 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: Cannot find option named 'sometimes'!
//
// --gpu-tensor-cores=false: the SIMT kernel, no mma at all.
// RUN: kiln-compile --target=cuda --gpu-format=isa --gpu-tensor-cores=false %s -o %t.simt.so
// RUN: strings %t.simt.so | FileCheck %s --check-prefix=SIMT
// SIMT-NOT: mma.sync
// SIMT: .entry
// SIMT-NOT: mma.sync

func.func @attn(%q: tensor<1x2x200x64xbf16>, %k: tensor<1x2x200x64xbf16>, %v: tensor<1x2x200x64xbf16>) -> tensor<1x2x200x64xbf16> {
  %o = kiln.attention %q, %k, %v : tensor<1x2x200x64xbf16>, tensor<1x2x200x64xbf16>, tensor<1x2x200x64xbf16> -> tensor<1x2x200x64xbf16>
  return %o : tensor<1x2x200x64xbf16>
}
