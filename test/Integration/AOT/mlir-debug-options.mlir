// kiln-compile takes MLIR's debugging options for its pass pipeline.
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-compile %s -o %t/libdouble.so --mlir-timing 2>&1 | FileCheck %s
// RUN: kiln-compile %s -o %t/libdouble.so --mlir-print-ir-after=kiln-finalize-entry-points 2>&1 | FileCheck %s --check-prefix=PRINT

// CHECK: Execution time report
// CHECK: ConvertKilnToLinalgPass

// PRINT: IR Dump After KilnFinalizeEntryPointsPass (kiln-finalize-entry-points)
// PRINT-NOT: IR Dump After

func.func @double(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = kiln.add %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
