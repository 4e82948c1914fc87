// RUN: kiln-opt %s --canonicalize --split-input-file | FileCheck %s

// x + (-0.0) is x for every float x, -0.0 and NaN included.
// CHECK-LABEL: func.func @add_negative_zero
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: kiln.add
// CHECK: return %[[X]]
func.func @add_negative_zero(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %zero = kiln.constant dense<-0.0> : tensor<2x3xf32>
  %0 = kiln.add %zero, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @add_integer_zero
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xi32>)
// CHECK-NOT: kiln.add
// CHECK: return %[[X]]
func.func @add_integer_zero(%x: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %zero = kiln.constant dense<0> : tensor<2x3xi32>
  %0 = kiln.add %x, %zero : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// x + (+0.0) is +0.0, not x, for x = -0.0: no fold.
// CHECK-LABEL: func.func @negative_add_positive_zero
// CHECK: kiln.add
func.func @negative_add_positive_zero(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %zero = kiln.constant dense<0.0> : tensor<2x3xf32>
  %0 = kiln.add %x, %zero : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A zero that broadcasts x to a larger shape is not a no-op.
// CHECK-LABEL: func.func @negative_add_zero_broadcast
// CHECK: kiln.add
func.func @negative_add_zero_broadcast(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  %zero = kiln.constant dense<-0.0> : tensor<2x3xf32>
  %0 = kiln.add %x, %zero : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @add_splats
// CHECK: %[[C:.*]] = kiln.constant dense<3.500000e+00> : tensor<2x3xf32>
// CHECK-NOT: kiln.add
// CHECK: return %[[C]]
func.func @add_splats() -> tensor<2x3xf32> {
  %a = kiln.constant dense<1.5> : tensor<3xf32>
  %b = kiln.constant dense<2.0> : tensor<2x3xf32>
  %0 = kiln.add %a, %b : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Only float splats fold.
// CHECK-LABEL: func.func @negative_add_int_splats
// CHECK: kiln.add
func.func @negative_add_int_splats() -> tensor<3xi32> {
  %a = kiln.constant dense<1> : tensor<3xi32>
  %b = kiln.constant dense<2> : tensor<3xi32>
  %0 = kiln.add %a, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// CHECK-LABEL: func.func @negative_add_non_splat
// CHECK: kiln.add
func.func @negative_add_non_splat() -> tensor<2xf32> {
  %a = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = kiln.constant dense<2.0> : tensor<2xf32>
  %0 = kiln.add %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @sub_zero
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xi64>)
// CHECK-NOT: kiln.sub
// CHECK: return %[[X]]
func.func @sub_zero(%x: tensor<2x3xi64>) -> tensor<2x3xi64> {
  %zero = kiln.constant dense<0> : tensor<3xi64>
  %0 = kiln.sub %x, %zero : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

// -----

// x - (-0.0) is not x when x is -0.0.
// CHECK-LABEL: func.func @negative_sub_negative_zero
// CHECK: kiln.sub
func.func @negative_sub_negative_zero(%x: tensor<3xf32>) -> tensor<3xf32> {
  %zero = kiln.constant dense<-0.0> : tensor<3xf32>
  %0 = kiln.sub %x, %zero : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @negative_zero_sub
// CHECK: kiln.sub
func.func @negative_zero_sub(%x: tensor<3xf32>) -> tensor<3xf32> {
  %zero = kiln.constant dense<0.0> : tensor<3xf32>
  %0 = kiln.sub %zero, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @negative_sub_zero_broadcast
// CHECK: kiln.sub
func.func @negative_sub_zero_broadcast(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  %zero = kiln.constant dense<0.0> : tensor<2x3xf32>
  %0 = kiln.sub %x, %zero : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @sub_splats
// CHECK: %[[C:.*]] = kiln.constant dense<-5.000000e-01> : tensor<4xf16>
// CHECK-NOT: kiln.sub
// CHECK: return %[[C]]
func.func @sub_splats() -> tensor<4xf16> {
  %a = kiln.constant dense<1.5> : tensor<4xf16>
  %b = kiln.constant dense<2.0> : tensor<f16>
  %0 = kiln.sub %a, %b : (tensor<4xf16>, tensor<f16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// CHECK-LABEL: func.func @mul_one
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<2x3xf32>)
// CHECK-NOT: kiln.mul
// CHECK: return %[[X]], %[[Y]]
func.func @mul_one(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %one = kiln.constant dense<1.0> : tensor<2x3xf32>
  %0 = kiln.mul %x, %one : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = kiln.mul %one, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// On i1, mul is a logical and: x * true is x.
// CHECK-LABEL: func.func @mul_true
// CHECK-SAME: (%[[X:.*]]: tensor<4xi1>)
// CHECK-NOT: kiln.mul
// CHECK: return %[[X]]
func.func @mul_true(%x: tensor<4xi1>) -> tensor<4xi1> {
  %true = kiln.constant dense<true> : tensor<4xi1>
  %0 = kiln.mul %x, %true : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @negative_mul_one_broadcast
// CHECK: kiln.mul
func.func @negative_mul_one_broadcast(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  %one = kiln.constant dense<1.0> : tensor<2x3xf32>
  %0 = kiln.mul %x, %one : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @negative_mul_two
// CHECK: kiln.mul
func.func @negative_mul_two(%x: tensor<3xi32>) -> tensor<3xi32> {
  %two = kiln.constant dense<2> : tensor<3xi32>
  %0 = kiln.mul %x, %two : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// CHECK-LABEL: func.func @mul_splats
// CHECK: %[[C:.*]] = kiln.constant dense<3.000000e+00> : tensor<2x2xbf16>
// CHECK-NOT: kiln.mul
// CHECK: return %[[C]]
func.func @mul_splats() -> tensor<2x2xbf16> {
  %a = kiln.constant dense<1.5> : tensor<2x1xbf16>
  %b = kiln.constant dense<2.0> : tensor<1x2xbf16>
  %0 = kiln.mul %a, %b : (tensor<2x1xbf16>, tensor<1x2xbf16>) -> tensor<2x2xbf16>
  return %0 : tensor<2x2xbf16>
}

// -----

// CHECK-LABEL: func.func @div_one
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xi32>)
// CHECK-NOT: kiln.div
// CHECK: return %[[X]]
func.func @div_one(%x: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %one = kiln.constant dense<1> : tensor<i32>
  %0 = kiln.div %x, %one : (tensor<2x3xi32>, tensor<i32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// CHECK-LABEL: func.func @negative_one_div
// CHECK: kiln.div
func.func @negative_one_div(%x: tensor<3xf32>) -> tensor<3xf32> {
  %one = kiln.constant dense<1.0> : tensor<3xf32>
  %0 = kiln.div %one, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @negative_div_one_broadcast
// CHECK: kiln.div
func.func @negative_div_one_broadcast(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  %one = kiln.constant dense<1.0> : tensor<2x3xf32>
  %0 = kiln.div %x, %one : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A float division by zero folds to an infinity, as IEEE division.
// CHECK-LABEL: func.func @div_splats
// CHECK-DAG: %[[Q:.*]] = kiln.constant dense<2.500000e-01> : tensor<3xf32>
// CHECK-DAG: %[[INF:.*]] = kiln.constant dense<0x7F800000> : tensor<3xf32>
// CHECK-NOT: kiln.div
// CHECK: return %[[Q]], %[[INF]]
func.func @div_splats() -> (tensor<3xf32>, tensor<3xf32>) {
  %a = kiln.constant dense<1.0> : tensor<3xf32>
  %b = kiln.constant dense<4.0> : tensor<3xf32>
  %zero = kiln.constant dense<0.0> : tensor<3xf32>
  %0 = kiln.div %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = kiln.div %a, %zero : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @negative_div_int_splats
// CHECK: kiln.div
func.func @negative_div_int_splats() -> tensor<3xi32> {
  %a = kiln.constant dense<1> : tensor<3xi32>
  %zero = kiln.constant dense<0> : tensor<3xi32>
  %0 = kiln.div %a, %zero : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// maximum propagates NaN; minimum orders -0.0 below +0.0.
// CHECK-LABEL: func.func @maximum_minimum_splats
// CHECK-DAG: %[[NAN:.*]] = kiln.constant dense<0x7FC00000> : tensor<3xf32>
// CHECK-DAG: %[[NEGZ:.*]] = kiln.constant dense<-0.000000e+00> : tensor<3xf32>
// CHECK-DAG: %[[TWO:.*]] = kiln.constant dense<2.000000e+00> : tensor<3xf32>
// CHECK-NOT: kiln.maximum
// CHECK-NOT: kiln.minimum
// CHECK: return %[[NAN]], %[[NEGZ]], %[[TWO]]
func.func @maximum_minimum_splats() -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %nan = kiln.constant dense<0x7FC00000> : tensor<3xf32>
  %one = kiln.constant dense<1.0> : tensor<3xf32>
  %two = kiln.constant dense<2.0> : tensor<3xf32>
  %posz = kiln.constant dense<0.0> : tensor<3xf32>
  %negz = kiln.constant dense<-0.0> : tensor<3xf32>
  %0 = kiln.maximum %one, %nan : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = kiln.minimum %posz, %negz : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %2 = kiln.maximum %one, %two : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %1, %2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @maximum_minimum_same
// CHECK-SAME: (%[[X:.*]]: tensor<3xi8>)
// CHECK-NOT: kiln.maximum
// CHECK-NOT: kiln.minimum
// CHECK: return %[[X]], %[[X]]
func.func @maximum_minimum_same(%x: tensor<3xi8>) -> (tensor<3xi8>, tensor<3xi8>) {
  %0 = kiln.maximum %x, %x : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
  %1 = kiln.minimum %x, %x : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
  return %0, %1 : tensor<3xi8>, tensor<3xi8>
}

// -----

// CHECK-LABEL: func.func @negative_maximum_different
// CHECK: kiln.maximum
func.func @negative_maximum_different(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %0 = kiln.maximum %x, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @select_same
// CHECK-SAME: (%[[C:.*]]: tensor<2x3xi1>, %[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: kiln.select
// CHECK: return %[[X]]
func.func @select_same(%c: tensor<2x3xi1>, %x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.select %c, %x, %x : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @negative_select_same_broadcast
// CHECK: kiln.select
func.func @negative_select_same_broadcast(%c: tensor<2x3xi1>, %x: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.select %c, %x, %x : (tensor<2x3xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @select_splat_cond
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<3xf32>)
// CHECK-NOT: kiln.select
// CHECK: return %[[X]], %[[X]]
func.func @select_splat_cond(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %true = kiln.constant dense<true> : tensor<3xi1>
  %false = kiln.constant dense<false> : tensor<2x3xi1>
  %0 = kiln.select %true, %x, %y : (tensor<3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = kiln.select %false, %y, %x : (tensor<2x3xi1>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// The chosen operand would need a broadcast to the result shape.
// CHECK-LABEL: func.func @negative_select_splat_cond_broadcast
// CHECK: kiln.select
func.func @negative_select_splat_cond_broadcast(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<2x3xf32> {
  %true = kiln.constant dense<true> : tensor<2x3xi1>
  %0 = kiln.select %true, %y, %x : (tensor<2x3xi1>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @negative_select_non_splat_cond
// CHECK: kiln.select
func.func @negative_select_non_splat_cond(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
  %c = kiln.constant dense<[true, false]> : tensor<2xi1>
  %0 = kiln.select %c, %x, %y : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @neg_neg
// CHECK-SAME: (%[[X:.*]]: tensor<3xi32>)
// CHECK-NOT: kiln.neg
// CHECK: return %[[X]]
func.func @neg_neg(%x: tensor<3xi32>) -> tensor<3xi32> {
  %0 = kiln.neg %x : tensor<3xi32>
  %1 = kiln.neg %0 : tensor<3xi32>
  return %1 : tensor<3xi32>
}

// -----

// CHECK-LABEL: func.func @negative_neg_abs
// CHECK: kiln.abs
// CHECK: kiln.neg
func.func @negative_neg_abs(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = kiln.abs %x : tensor<3xf32>
  %1 = kiln.neg %0 : tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @relu_relu
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>)
// CHECK: %[[R:.*]] = kiln.relu %[[X]] : tensor<3xf32>
// CHECK-NOT: kiln.relu
// CHECK: return %[[R]]
func.func @relu_relu(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = kiln.relu %x : tensor<3xf32>
  %1 = kiln.relu %0 : tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @negative_relu_neg
// CHECK: kiln.neg
// CHECK: kiln.relu
func.func @negative_relu_neg(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = kiln.neg %x : tensor<3xf32>
  %1 = kiln.relu %0 : tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @abs_abs
// CHECK-SAME: (%[[X:.*]]: tensor<3xi8>)
// CHECK: %[[A:.*]] = kiln.abs %[[X]] : tensor<3xi8>
// CHECK-NOT: kiln.abs
// CHECK: return %[[A]]
func.func @abs_abs(%x: tensor<3xi8>) -> tensor<3xi8> {
  %0 = kiln.abs %x : tensor<3xi8>
  %1 = kiln.abs %0 : tensor<3xi8>
  return %1 : tensor<3xi8>
}

// -----

// CHECK-LABEL: func.func @negative_abs_neg
// CHECK: kiln.neg
// CHECK: kiln.abs
func.func @negative_abs_neg(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = kiln.neg %x : tensor<3xf32>
  %1 = kiln.abs %0 : tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @convert_same
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: kiln.convert
// CHECK: return %[[X]]
func.func @convert_same(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.convert %x : tensor<2x3xf32> to tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @negative_convert
// CHECK: kiln.convert
func.func @negative_convert(%x: tensor<2x3xf32>) -> tensor<2x3xbf16> {
  %0 = kiln.convert %x : tensor<2x3xf32> to tensor<2x3xbf16>
  return %0 : tensor<2x3xbf16>
}
