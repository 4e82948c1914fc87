// Result conventions kiln-run and the runtime handle: results that are
// arguments, repeated results, constants only, zero-size tensors.
//
// RUN: kiln-run %s --entry identity --random-inputs --seed 1 | FileCheck %s --check-prefix=IDENTITY
// IDENTITY: result0: tensor<2x3xf32>
// IDENTITY-NEXT: [[VALUES:\[.*\]]]
// IDENTITY-NEXT: result1: tensor<2x3xf32>
// IDENTITY-NEXT: [[VALUES]]
//
// RUN: kiln-run %s --entry repeated --random-inputs --seed 1 | FileCheck %s --check-prefix=REPEATED
// REPEATED: result0: tensor<2xi64>
// REPEATED-NEXT: [[SUM:\[.*\]]]
// REPEATED-NEXT: result1: tensor<2xi64>
// REPEATED-NEXT: [[SUM]]
// REPEATED-NEXT: result2: tensor<2xi64>
// REPEATED-NEXT: [[SUM]]
//
// RUN: kiln-run %s --entry no_args | FileCheck %s --check-prefix=NO-ARGS
// NO-ARGS: result0: tensor<2xi32>
// NO-ARGS-NEXT: [4, 5]
//
// RUN: kiln-run %s --entry empty --random-inputs | FileCheck %s --check-prefix=EMPTY
// EMPTY: result0: tensor<0x3xf32>
// EMPTY-NEXT: []
//
// RUN: not kiln-run %s --entry huge --random-inputs 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: kiln-run: error: argument #0: tensor<100000x100000x100000xf32> is too large for the runtime (more than 64 GiB)

func.func @identity(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  return %x, %x : tensor<2x3xf32>, tensor<2x3xf32>
}

func.func @repeated(%x: tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) {
  %0 = kiln.add %x, %x : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %0, %0, %0 : tensor<2xi64>, tensor<2xi64>, tensor<2xi64>
}

func.func @no_args() -> tensor<2xi32> {
  %c = kiln.constant dense<[4, 5]> : tensor<2xi32>
  return %c : tensor<2xi32>
}

func.func @empty(%x: tensor<0x3xf32>, %y: tensor<3xf32>) -> tensor<0x3xf32> {
  %0 = kiln.add %x, %y : (tensor<0x3xf32>, tensor<3xf32>) -> tensor<0x3xf32>
  return %0 : tensor<0x3xf32>
}

func.func @huge(%x: tensor<100000x100000x100000xf32>) -> tensor<100000x100000x100000xf32> {
  return %x : tensor<100000x100000x100000xf32>
}
