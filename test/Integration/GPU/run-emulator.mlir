// kiln-run --target=gpu-emulator: the JIT of the GPU pipeline with its
// kernels on Kiln's GPU emulator, against kiln-run on the CPU (the two fuse
// and sum differently: a few ulps apart; test/unittests/GPUEmulationTest.cpp
// compares every kernel). No CUDA toolkit is needed.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-run %s --entry softmax_matmul --random-inputs --seed 3 --print-limit 1000 > %t/cpu.txt
// RUN: env CUDA_ROOT=%t/none CUDA_HOME=%t/none CUDA_PATH=%t/none kiln-run %s --target=gpu-emulator --entry softmax_matmul --random-inputs --seed 3 --print-limit 1000 > %t/emu.txt
// RUN: %python %S/Inputs/compare_printed.py %t/cpu.txt %t/emu.txt 40 | FileCheck %s
// CHECK: result0 tensor<5x7xf32>: 35 values, PASS
// RUN: not kiln-run %s --target=gpu-emulator --openmp --entry softmax_matmul --random-inputs 2>&1 | FileCheck %s --check-prefix=ERR
// ERR: error: --openmp is for --target=cpu only

func.func @softmax_matmul(%a: tensor<5x40xf32>, %b: tensor<40x7xf32>) -> tensor<5x7xf32> {
  %0 = kiln.softmax %a {axis = 1 : i64} : tensor<5x40xf32>
  %1 = kiln.matmul %0, %b : (tensor<5x40xf32>, tensor<40x7xf32>) -> tensor<5x7xf32>
  return %1 : tensor<5x7xf32>
}
