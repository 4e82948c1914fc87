// RUN: kiln-opt %s --convert-kiln-to-linalg --allow-unregistered-dialect | FileCheck %s

// The conversion is partial: ops of other dialects are left alone, around
// the lowered kiln ops. (A kiln op without a CPU pattern is an error, tested
// in test/unittests/ConversionTest.cpp since every registered kiln op of
// this branch has one.)

// CHECK-LABEL: func.func @other_dialects_untouched
// CHECK: %[[X:.*]] = "other.op"
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[X]] :
// CHECK: "other.consume"(%[[Y]])
func.func @other_dialects_untouched(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "other.op"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = kiln.add %0, %0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %2 = "other.consume"(%1) : (tensor<2xf32>) -> tensor<2xf32>
  return %2 : tensor<2xf32>
}
