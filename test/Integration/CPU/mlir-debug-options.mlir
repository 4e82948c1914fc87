// kiln-run takes MLIR's debugging options and applies them to the JIT's pass
// pipeline (kiln-opt has them through MlirOptMain).
// RUN: kiln-run %s --entry double --random-inputs --mlir-print-ir-after-all 2>&1 | FileCheck %s
// RUN: kiln-run %s --entry double --random-inputs --mlir-timing 2>&1 | FileCheck %s --check-prefix=TIMING
// RUN: kiln-run %s --entry double --random-inputs --mlir-print-ir-after=convert-kiln-to-linalg 2>&1 | FileCheck %s --check-prefix=AFTER

// CHECK: IR Dump After KilnAutodiffPass (kiln-autodiff)
// CHECK: IR Dump After ReconcileUnrealizedCastsPass (reconcile-unrealized-casts)
// CHECK-NEXT: module
// CHECK: result0: tensor<2xf32>

// AFTER: IR Dump After ConvertKilnToLinalgPass (convert-kiln-to-linalg)
// AFTER-NOT: IR Dump After

// TIMING: Execution time report
// TIMING: ConvertKilnToLinalgPass

func.func @double(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = kiln.add %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
