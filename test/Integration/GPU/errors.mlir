// kiln-compile --target=cuda rejects options that do not apply to it.
//
// REQUIRES: kiln-cuda-runtime
// RUN: not kiln-compile --target=cuda --openmp %s -o %t.so 2>&1 | FileCheck %s --check-prefix=OPENMP
// OPENMP: error: --openmp is for --target=cpu only
// RUN: not kiln-compile --target=cuda --gpu-format=elf %s -o %t.so 2>&1 | FileCheck %s --check-prefix=FORMAT
// FORMAT: error: --gpu-format must be 'bin', 'fatbin' or 'isa', not 'elf'
// RUN: not kiln-compile --target=tpu %s -o %t.so 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: Cannot find option named 'tpu'!

func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}

// RUN: not kiln-compile --target=cuda %S/Inputs/last-error.mlir -o %t.so 2>&1 | FileCheck %s --check-prefix=NAME
// NAME: last-error.mlir:3:1: error: @last_error would define kiln_last_error, which every kiln-compile library defines itself (rename @last_error or make it private)
