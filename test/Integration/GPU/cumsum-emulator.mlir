// kiln.cumsum through the GPU pipeline (its column form: one thread per
// position of the other dims) on Kiln's GPU emulator: values worked out by
// hand, and the CPU's results on random inputs (the two add the same terms
// in the same order, so they agree to the printed digits). No CUDA toolkit
// is needed.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: env CUDA_ROOT=%t/none CUDA_HOME=%t/none CUDA_PATH=%t/none kiln-run %s --target=gpu-emulator --entry small | FileCheck %s
// RUN: kiln-run %s --entry scans --random-inputs --seed 3 --print-limit 100000 > %t/cpu.txt
// RUN: env CUDA_ROOT=%t/none CUDA_HOME=%t/none CUDA_PATH=%t/none kiln-run %s --target=gpu-emulator --entry scans --random-inputs --seed 3 --print-limit 100000 > %t/emu.txt
// RUN: %python %S/Inputs/compare_printed.py %t/cpu.txt %t/emu.txt 0 | FileCheck %s --check-prefix=CMP
//
// CHECK: result0: tensor<2x4xi32>
// CHECK-NEXT: [1, 3, 6, 10, 10, 30, 60, 100]
// CHECK-NEXT: result1: tensor<2x4xi32>
// CHECK-NEXT: [11, 22, 33, 44, 10, 20, 30, 40]
// CHECK-NEXT: result2: tensor<4xf32>
// CHECK-NEXT: [1.75, 1.25, 2.25, 0.25]
// CHECK-NEXT: result3: tensor<5xi1>
// CHECK-NEXT: [false, true, true, true, true]
//
// CMP: result0 tensor<3x40x5xf32>: 600 values, PASS
// CMP: result1 tensor<6x200xf32>: 1200 values, PASS
// CMP: result2 tensor<2x9x3xf64>: 54 values, PASS

func.func @small() -> (tensor<2x4xi32>, tensor<2x4xi32>, tensor<4xf32>, tensor<5xi1>) {
  %c = kiln.constant dense<[[1, 2, 3, 4], [10, 20, 30, 40]]> : tensor<2x4xi32>
  %0 = kiln.cumsum %c {axis = 1 : i64} : tensor<2x4xi32>
  %1 = kiln.cumsum %c {axis = 0 : i64, reverse = true} : tensor<2x4xi32>
  %f = kiln.constant dense<[0.5, -1.0, 2.0, 0.25]> : tensor<4xf32>
  %2 = kiln.cumsum %f {axis = 0 : i64, reverse = true} : tensor<4xf32>
  %b = kiln.constant dense<[false, true, false, false, true]> : tensor<5xi1>
  %3 = kiln.cumsum %b {axis = 0 : i64} : tensor<5xi1>
  return %0, %1, %2, %3 : tensor<2x4xi32>, tensor<2x4xi32>, tensor<4xf32>, tensor<5xi1>
}

func.func @scans(%x: tensor<3x40x5xf32>, %y: tensor<6x200xf32>, %z: tensor<2x9x3xf64>)
    -> (tensor<3x40x5xf32>, tensor<6x200xf32>, tensor<2x9x3xf64>) {
  %0 = kiln.cumsum %x {axis = 1 : i64} : tensor<3x40x5xf32>
  %1 = kiln.cumsum %y {axis = 0 : i64, reverse = true} : tensor<6x200xf32>
  %2 = kiln.cumsum %z {axis = 2 : i64, reverse = true} : tensor<2x9x3xf64>
  return %0, %1, %2 : tensor<3x40x5xf32>, tensor<6x200xf32>, tensor<2x9x3xf64>
}
