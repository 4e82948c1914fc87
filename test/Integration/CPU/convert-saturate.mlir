// kiln.convert from float to integer saturates where LLVM's fptosi would be
// poison: NaN gives 0, values beyond the range (infinities included) the
// type's bound; values in range truncate toward zero. The largest and
// smallest floats that fit convert exactly.
// RUN: kiln-run %s --entry main | FileCheck %s

// f32 -> i32: 2147483520 is the largest f32 below 2^31.
// CHECK: result0: tensor<10xi32>
// CHECK-NEXT: [0, 2147483647, -2147483648, 2147483647, -2147483648, 2, -2, 2147483520, -2147483648, 0]
// f64 -> i8, at and around the bounds.
// CHECK: result1: tensor<8xi8>
// CHECK-NEXT: [127, 127, -128, -128, -128, 127, 0, -1]
// f16 -> i64 (widened to f32 first): 65504 is f16's largest finite value.
// CHECK: result2: tensor<5xi64>
// CHECK-NEXT: [65504, -65504, 9223372036854775807, -9223372036854775808, 0]
// f64 -> i64: 2^63 is out of range, the next double below it is not.
// CHECK: result3: tensor<4xi64>
// CHECK-NEXT: [9223372036854775807, 9223372036854774784, -9223372036854775808, 0]

func.func @main() -> (tensor<10xi32>, tensor<8xi8>, tensor<5xi64>, tensor<4xi64>) {
  %a = kiln.constant dense<[0x7FC00000, 0x7F800000, 0xFF800000, 3.0e9, -3.0e9, 2.7, -2.7, 2147483520.0, -2147483648.0, -0.9]> : tensor<10xf32>
  %b = kiln.constant dense<[127.0, 127.99, -128.0, -128.99, -129.0, 1.0e300, 0x7FF8000000000000, -1.5]> : tensor<8xf64>
  %c = kiln.constant dense<[65504.0, -65504.0, 0x7C00, 0xFC00, 0x7E00]> : tensor<5xf16>
  %d = kiln.constant dense<[9223372036854775808.0, 9223372036854774784.0, -9223372036854775808.0, 0x7FF8000000000000]> : tensor<4xf64>
  %ai = kiln.convert %a : tensor<10xf32> to tensor<10xi32>
  %bi = kiln.convert %b : tensor<8xf64> to tensor<8xi8>
  %ci = kiln.convert %c : tensor<5xf16> to tensor<5xi64>
  %di = kiln.convert %d : tensor<4xf64> to tensor<4xi64>
  return %ai, %bi, %ci, %di : tensor<10xi32>, tensor<8xi8>, tensor<5xi64>, tensor<4xi64>
}
