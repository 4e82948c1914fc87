// kiln-run --random-range keeps float values in [LO, HI) after rounding to
// the element type: a real drawn from [0, 1) rounds up to 1 in f16 with
// probability 2^-12 and in bf16 with 2^-9, so 16384 elements of each drew
// 1.0 (8 and 34 of them with these seeds) before such values were clamped to
// the greatest value below HI. The results are the drawn inputs.
//
// RUN: kiln-run %s --entry halves --random-inputs --random-range 0:0:1 --random-range 1:0:1 --output-dir %t
// RUN: %python %S/Inputs/check_npy_range.py %t/result0.npy 0 1 | FileCheck %s --check-prefix=F16
// RUN: %python %S/Inputs/check_npy_range.py %t/result1.npy 0 1 | FileCheck %s --check-prefix=BF16
// F16: 16384 values in [0.0, 1.0), from {{.*}} to 0.99951171875{{$}}
// BF16: 16384 values in [0.0, 1.0), from {{.*}} to 0.99609375{{$}}
// Ranges around zero and with a negative end keep to them as well.
// RUN: kiln-run %s --entry halves --random-inputs --seed 3 --random-range 0:-1:0 --random-range 1:-2:1 --output-dir %t/neg
// RUN: %python %S/Inputs/check_npy_range.py %t/neg/result0.npy -1 0
// RUN: %python %S/Inputs/check_npy_range.py %t/neg/result1.npy -2 1
//
// A range that holds no value of the dtype is an error naming the argument.
// RUN: not kiln-run %s --entry halves --random-inputs --random-range 0:4097:4098 2>&1 | FileCheck %s --check-prefix=F16-NONE
// F16-NONE: error: --random-range 0:4097:4098: argument #0 of @halves is f16, which holds no value in that range
// RUN: not kiln-run %s --entry halves --random-inputs --random-range 1:257:258 2>&1 | FileCheck %s --check-prefix=BF16-NONE
// BF16-NONE: error: --random-range 1:257:258: argument #1 of @halves is bf16, which holds no value in that range
// One value is enough: f16 holds 4096 in [4095, 4097) and none other.
// RUN: kiln-run %s --entry halves --random-inputs --random-range 0:4095:4097 --output-dir %t/one
// RUN: %python %S/Inputs/check_npy_range.py %t/one/result0.npy 4095 4097 | FileCheck %s --check-prefix=ONE
// ONE: 16384 values in [4095.0, 4097.0), from 4096.0 to 4096.0

func.func @halves(%a: tensor<16384xf16>, %b: tensor<16384xbf16>)
    -> (tensor<16384xf16>, tensor<16384xbf16>) {
  %zh = kiln.constant dense<0.0> : tensor<f16>
  %zb = kiln.constant dense<0.0> : tensor<bf16>
  %0 = kiln.add %a, %zh : (tensor<16384xf16>, tensor<f16>) -> tensor<16384xf16>
  %1 = kiln.add %b, %zb : (tensor<16384xbf16>, tensor<bf16>) -> tensor<16384xbf16>
  return %0, %1 : tensor<16384xf16>, tensor<16384xbf16>
}
