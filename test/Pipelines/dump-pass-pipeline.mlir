// The pipeline that --dump-pass-pipeline prints for each Kiln pipeline parses
// back in kiln-opt (every upstream pass in it is registered) and gives the
// same output as the named pipeline.
// RUN: %python %S/Inputs/run-dumped-pipeline.py kiln-opt %s --kiln-lower-to-cpu | FileCheck %s --check-prefix=CPU
// RUN: %python %S/Inputs/run-dumped-pipeline.py kiln-opt %s --kiln-lower-to-cpu=enable-openmp | FileCheck %s --check-prefix=OMP
// RUN: %python %S/Inputs/run-dumped-pipeline.py kiln-opt %s --kiln-lower-to-nvvm=format=isa | FileCheck %s --check-prefix=NVVM
// RUN: %python %S/Inputs/run-dumped-pipeline.py kiln-opt %s --kiln-lower-to-nvvm=emulate | FileCheck %s --check-prefix=EMU

// CPU: --kiln-lower-to-cpu: same output
// OMP: --kiln-lower-to-cpu=enable-openmp: same output
// NVVM: --kiln-lower-to-nvvm=format=isa: same output
// EMU: --kiln-lower-to-nvvm=emulate: same output

func.func @softmax_matmul(%a: tensor<5x40xf32>, %b: tensor<40x7xf32>) -> tensor<5x7xf32> {
  %0 = kiln.softmax %a {axis = 1 : i64} : tensor<5x40xf32>
  %1 = kiln.matmul %0, %b : (tensor<5x40xf32>, tensor<40x7xf32>) -> tensor<5x7xf32>
  return %1 : tensor<5x7xf32>
}
