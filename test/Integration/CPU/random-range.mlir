// kiln-run --random-range I:LO:HI draws argument I uniformly from [LO, HI):
// integers for integer arguments (token ids, labels), reals for floats; the
// other arguments keep the default --random-inputs values.
//
// RUN: kiln-run %s --entry ids --random-inputs --random-range 0:0:5 --random-range 2:-3:-1 --print-limit 64 > %t.txt
// RUN: %python %S/Inputs/check_range.py %t.txt 0 0 5 --all
// RUN: %python %S/Inputs/check_range.py %t.txt 2 -3 -1 --all
// RUN: %python %S/Inputs/check_range.py %t.txt 1 -1 1
// RUN: kiln-run %s --entry ids --random-inputs --random-range 1:10:12 --print-limit 64 > %t.f.txt
// RUN: %python %S/Inputs/check_range.py %t.f.txt 1 10 12
//
// RUN: not kiln-run %s --entry ids --random-range 0:0:5 2>&1 | FileCheck %s --check-prefix=NEEDS
// NEEDS: error: --random-range needs --random-inputs
// RUN: not kiln-run %s --entry ids --random-inputs --random-range 0:5:5 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: error: --random-range '0:5:5' is not I:LO:HI with integers LO < HI
// RUN: not kiln-run %s --entry ids --random-inputs --random-range 0:x:5 2>&1 | FileCheck %s --check-prefix=SYNTAX
// SYNTAX: error: --random-range '0:x:5' is not I:LO:HI with integers LO < HI
// RUN: not kiln-run %s --entry ids --random-inputs --random-range 3:0:5 2>&1 | FileCheck %s --check-prefix=INDEX
// INDEX: error: --random-range names argument #3, but @ids takes 3
// Found while extending test/robustness/campaign.py: a second range for
// an argument silently replaced the first, and a range an integer dtype cannot hold was
// clamped (not uniform); both are errors now.
// RUN: not kiln-run %s --entry ids --random-inputs --random-range 0:0:5 --random-range 0:1:2 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: error: --random-range '0:1:2' names argument #0 again
// RUN: not kiln-run %s --entry ids --random-inputs --random-range 2:0:2147483649 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: error: --random-range 2:0:2147483649: argument #2 of @ids is i32, which holds -2147483648 to 2147483647
// The widest range an i32 holds is fine.
// RUN: kiln-run %s --entry ids --random-inputs --random-range 2:-2147483648:2147483648 > /dev/null

// Each argument is returned as it is (plus zero), so the printed results are
// the drawn inputs.
func.func @ids(%a: tensor<64xi64>, %f: tensor<64xf32>, %b: tensor<4x8xi32>)
    -> (tensor<64xi64>, tensor<64xf32>, tensor<4x8xi32>) {
  %z64 = kiln.constant dense<0> : tensor<i64>
  %zf = kiln.constant dense<0.0> : tensor<f32>
  %z32 = kiln.constant dense<0> : tensor<i32>
  %0 = kiln.add %a, %z64 : (tensor<64xi64>, tensor<i64>) -> tensor<64xi64>
  %1 = kiln.add %f, %zf : (tensor<64xf32>, tensor<f32>) -> tensor<64xf32>
  %2 = kiln.add %b, %z32 : (tensor<4x8xi32>, tensor<i32>) -> tensor<4x8xi32>
  return %0, %1, %2 : tensor<64xi64>, tensor<64xf32>, tensor<4x8xi32>
}
