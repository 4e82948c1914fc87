// f64 kiln.attention_grad with dropout runs on the generic GPU path (the
// attention kernels take f16/bf16/f32). With unit sizes its parallel loops
// fold away, leaving the seed's Philox code as plain host code between
// allocations: it must still run in kernels (kiln-gpu-host-code-to-kernels),
// and give the CPU's results (the same printed digits: every sum here has at
// most two terms). Both failed to lower before ("uses a value that only a
// kernel can compute", "failed to legalize 'gpu.alloc'").
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-opt %s --kiln-lower-to-nvvm="format=isa" -o /dev/null
// RUN: kiln-run %s --entry one --random-inputs --seed 3 --print-limit 1000 > %t/cpu1.txt
// RUN: env CUDA_ROOT=%t/none CUDA_HOME=%t/none CUDA_PATH=%t/none kiln-run %s --target=gpu-emulator --entry one --random-inputs --seed 3 --print-limit 1000 > %t/emu1.txt
// RUN: diff %t/cpu1.txt %t/emu1.txt
// RUN: kiln-run %s --entry grouped --random-inputs --seed 3 --print-limit 1000 > %t/cpu2.txt
// RUN: env CUDA_ROOT=%t/none CUDA_HOME=%t/none CUDA_PATH=%t/none kiln-run %s --target=gpu-emulator --entry grouped --random-inputs --seed 3 --print-limit 1000 > %t/emu2.txt
// RUN: diff %t/cpu2.txt %t/emu2.txt
// RUN: FileCheck %s < %t/emu2.txt
// CHECK: result0: tensor<2x4x1x1xf64>
// CHECK: result2: tensor<2x2x1x1xf64>
// CHECK-NEXT: [{{.*[1-9].*}}]

func.func @one(%q: tensor<1x1x1x1xf64>, %k: tensor<1x1x1x1xf64>, %v: tensor<1x1x1x1xf64>, %do: tensor<1x1x1x1xf64>, %s: tensor<i64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) {
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do seed(%s : tensor<i64>) {dropout_p = 0.25 : f64} : tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64> -> tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>
  return %dq, %dk, %dv : tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>
}

func.func @grouped(%q: tensor<2x4x1x1xf64>, %k: tensor<2x2x1x1xf64>, %v: tensor<2x2x1x1xf64>, %do: tensor<2x4x1x1xf64>, %s: tensor<i64>) -> (tensor<2x4x1x1xf64>, tensor<2x2x1x1xf64>, tensor<2x2x1x1xf64>) {
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do seed(%s : tensor<i64>) {dropout_p = 0.25 : f64} : tensor<2x4x1x1xf64>, tensor<2x2x1x1xf64>, tensor<2x2x1x1xf64>, tensor<2x4x1x1xf64> -> tensor<2x4x1x1xf64>, tensor<2x2x1x1xf64>, tensor<2x2x1x1xf64>
  return %dq, %dk, %dv : tensor<2x4x1x1xf64>, tensor<2x2x1x1xf64>, tensor<2x2x1x1xf64>
}
