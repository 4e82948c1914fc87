// kiln-opt reads back what each Kiln pipeline writes: every dialect in the
// output is registered, and printing the re-read module gives the same text.
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-opt %s --kiln-lower-to-cpu -o %t/cpu.mlir
// RUN: kiln-opt %t/cpu.mlir -o %t/cpu2.mlir
// RUN: diff %t/cpu.mlir %t/cpu2.mlir
// RUN: kiln-opt %s --kiln-lower-to-cpu=enable-openmp -o %t/omp.mlir
// RUN: kiln-opt %t/omp.mlir -o %t/omp2.mlir
// RUN: diff %t/omp.mlir %t/omp2.mlir
// RUN: kiln-opt %s --kiln-lower-to-nvvm=format=isa -o %t/nvvm.mlir
// RUN: kiln-opt %t/nvvm.mlir -o %t/nvvm2.mlir
// RUN: diff %t/nvvm.mlir %t/nvvm2.mlir
// RUN: kiln-opt %s --kiln-lower-to-nvvm=emulate -o %t/emu.mlir
// RUN: kiln-opt %t/emu.mlir -o %t/emu2.mlir
// RUN: diff %t/emu.mlir %t/emu2.mlir
// RUN: FileCheck %s --check-prefix=OMP < %t/omp2.mlir
// RUN: FileCheck %s --check-prefix=NVVM < %t/nvvm2.mlir

// OMP: omp.parallel
// NVVM: gpu.binary @

func.func @softmax_matmul(%a: tensor<5x40xf32>, %b: tensor<40x7xf32>) -> tensor<5x7xf32> {
  %0 = kiln.softmax %a {axis = 1 : i64} : tensor<5x40xf32>
  %1 = kiln.matmul %0, %b : (tensor<5x40xf32>, tensor<40x7xf32>) -> tensor<5x7xf32>
  return %1 : tensor<5x7xf32>
}
