// convert-kiln-attention-to-gpu's software-pipeline: with it, the forward
// tensor-core kernel's key loop carries this thread's 16-byte chunks of the
// next K/V tile (vector<8xbf16> results); without it, only the f32 state.
// The default, auto, pipelines head dims in (64, 128] (D = 128 here) and not
// D = 64; on and off (and their old spellings true and false) force it.
//
// RUN: kiln-opt %s --convert-kiln-attention-to-gpu --split-input-file | FileCheck %s --check-prefixes=CHECK,AUTO
// RUN: kiln-opt %s --convert-kiln-attention-to-gpu="software-pipeline=auto" --split-input-file | FileCheck %s --check-prefixes=CHECK,AUTO
// RUN: kiln-opt %s --convert-kiln-attention-to-gpu="software-pipeline=on" --split-input-file | FileCheck %s --check-prefixes=CHECK,ON
// RUN: kiln-opt %s --convert-kiln-attention-to-gpu="software-pipeline=true" --split-input-file | FileCheck %s --check-prefixes=CHECK,ON
// RUN: kiln-opt %s --convert-kiln-attention-to-gpu="software-pipeline=off" --split-input-file | FileCheck %s --check-prefixes=CHECK,OFF
// RUN: kiln-opt %s --convert-kiln-attention-to-gpu="software-pipeline=false" --split-input-file | FileCheck %s --check-prefixes=CHECK,OFF
// The pipeline option reaches the pass and prints its first spelling.
// RUN: kiln-opt %s --kiln-lower-to-nvvm="software-pipeline=false" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=DUMP
// RUN: not kiln-opt %s --convert-kiln-attention-to-gpu="software-pipeline=sometimes" 2>&1 | FileCheck %s --check-prefix=BAD
// DUMP: convert-kiln-attention-to-gpu{{.*}}software-pipeline=off
// BAD: for the --software-pipeline option: Cannot find option named 'sometimes'!

// CHECK-LABEL: func.func @d128
// AUTO: scf.for {{.*}} -> ({{(f32, )+}}vector<8xbf16>
// ON: scf.for {{.*}} -> ({{(f32, )+}}vector<8xbf16>
// OFF: scf.for {{.*}} step %c64 iter_args
// OFF-NOT: vector<8xbf16>) {
// CHECK: gpu.terminator
func.func @d128(%q: tensor<1x2x70x128xbf16>, %k: tensor<1x2x80x128xbf16>, %v: tensor<1x2x80x128xbf16>) -> tensor<1x2x70x128xbf16> {
  %o = kiln.attention %q, %k, %v : tensor<1x2x70x128xbf16>, tensor<1x2x80x128xbf16>, tensor<1x2x80x128xbf16> -> tensor<1x2x70x128xbf16>
  return %o : tensor<1x2x70x128xbf16>
}

// -----

// CHECK-LABEL: func.func @d64
// ON: scf.for {{.*}} -> ({{(f32, )+}}vector<8xbf16>
// AUTO: scf.for {{.*}} step %c64 iter_args
// AUTO-NOT: vector<8xbf16>) {
// OFF: scf.for {{.*}} step %c64 iter_args
// OFF-NOT: vector<8xbf16>) {
// CHECK: gpu.terminator
func.func @d64(%q: tensor<1x2x70x64xbf16>, %k: tensor<1x2x80x64xbf16>, %v: tensor<1x2x80x64xbf16>) -> tensor<1x2x70x64xbf16> {
  %o = kiln.attention %q, %k, %v : tensor<1x2x70x64xbf16>, tensor<1x2x80x64xbf16>, tensor<1x2x80x64xbf16> -> tensor<1x2x70x64xbf16>
  return %o : tensor<1x2x70x64xbf16>
}
