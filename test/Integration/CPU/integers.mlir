// kiln-run prints and draws integers exactly, and reads a bool .npy as
// NumPy does.
//
// RUN: rm -rf %t && mkdir -p %t
// i64 values a double cannot hold printed as 9007199254740992,
// -9223372036854775808, -9223372036854775808 (the .npy written was right).
// RUN: %python %S/Inputs/make_npy.py %t/big.npy '<i8' 4 9007199254740993,-9223372036854775807,9223372036854775807,123
// RUN: kiln-run %s --entry i64 --input %t/big.npy | FileCheck %s --check-prefix=BIG
// BIG: [9007199254740993, -9223372036854775807, 9223372036854775807, 123]
//
// An integer range is drawn in integer arithmetic: this one gave
// 9007199254740992, outside [LO, HI).
// RUN: kiln-run %s --entry i64 --random-inputs --random-range 0:9007199254740993:9007199254740994 | FileCheck %s --check-prefix=RANGE
// RANGE: [9007199254740993, 9007199254740993, 9007199254740993, 9007199254740993]
//
// A float range beyond f16's largest finite value gave infinities.
// RUN: not kiln-run %s --entry f16 --random-inputs --random-range 0:60000:1000000 2>&1 | FileCheck %s --check-prefix=F16
// F16: kiln-run: error: --random-range 0:60000:1000000: argument #0 of @f16 is f16, whose finite values lie in [-65504, 65504]
// RUN: not kiln-run %s --entry f16 --random-inputs --random-range 0:-65505:0 2>&1 | FileCheck %s --check-prefix=F16-LOW
// F16-LOW: error: --random-range 0:-65505:0: argument #0 of @f16 is f16
// RUN: kiln-run %s --entry f16 --random-inputs --random-range 0:-65504:65504 | FileCheck %s --check-prefix=F16-OK --implicit-check-not=inf
// F16-OK: result0: tensor<4xf16>
//
// The bytes 0, 1, 2, 255, 0, 1 of a |b1 array are False, True, True, True,
// False, True to NumPy; they reached the compiled code as they were, so
// converting them to i8 gave 2 and -1.
// RUN: %python %S/Inputs/make_npy.py %t/b1.npy '|i1' 6 0,1,2,-1,0,1 --header-descr '|b1'
// RUN: kiln-run %s --entry bools --input %t/b1.npy | FileCheck %s --check-prefix=B1
// B1: result0: tensor<6xi8>
// B1-NEXT: [0, 1, 1, 1, 0, 1]
// B1-NEXT: result1: tensor<6xi1>
// B1-NEXT: [false, true, true, true, false, true]

func.func @i64(%a: tensor<4xi64>) -> tensor<4xi64> {
  return %a : tensor<4xi64>
}

func.func @f16(%a: tensor<4xf16>) -> tensor<4xf16> {
  return %a : tensor<4xf16>
}

func.func @bools(%a: tensor<6xi1>) -> (tensor<6xi8>, tensor<6xi1>) {
  %0 = kiln.convert %a : tensor<6xi1> to tensor<6xi8>
  return %0, %a : tensor<6xi8>, tensor<6xi1>
}
