// RUN: kiln-opt %s --convert-kiln-to-linalg --split-input-file | FileCheck %s

// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$TRAIL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @add_broadcast_missing_dim
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [#[[$ID2]], #[[$TRAIL]], #[[$ID2]]]
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<2x3xf32>, tensor<3xf32>)
// CHECK-SAME: outs(%[[INIT]] : tensor<2x3xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK: linalg.yield %[[S]] : f32
// CHECK: return %[[R]]
// CHECK-NOT: kiln.
func.func @add_broadcast_missing_dim(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A size-1 dim is read at index 0, on either side.
// CHECK-DAG: #[[$COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @add_broadcast_size_one
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [#[[$COL]], #[[$ROW]], #[[$ID2]]]
// CHECK-SAME: outs(%{{.*}} : tensor<4x3xf32>)
func.func @add_broadcast_size_one(%a: tensor<4x1xf32>, %b: tensor<1x3xf32>) -> tensor<4x3xf32> {
  %0 = kiln.add %a, %b : (tensor<4x1xf32>, tensor<1x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// A rank-0 operand has an indexing map with no results.
// CHECK-DAG: #[[$SCALAR:.*]] = affine_map<(d0) -> ()>
// CHECK-DAG: #[[$ID1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @add_scalar_f64
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [#[[$SCALAR]], #[[$ID1]], #[[$ID1]]]
// CHECK: arith.addf %{{.*}}, %{{.*}} : f64
func.func @add_scalar_f64(%a: tensor<f64>, %b: tensor<5xf64>) -> tensor<5xf64> {
  %0 = kiln.add %a, %b : (tensor<f64>, tensor<5xf64>) -> tensor<5xf64>
  return %0 : tensor<5xf64>
}

// -----

// Rank-0 results make a generic without loops. bf16 (and f16) compute in
// f32 and round once.
// CHECK-LABEL: func.func @add_rank0
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = []
// CHECK: ^bb0(%[[X:.*]]: bf16, %[[Y:.*]]: bf16, %{{.*}}: bf16):
// CHECK-DAG: %[[XW:.*]] = arith.extf %[[X]] : bf16 to f32
// CHECK-DAG: %[[YW:.*]] = arith.extf %[[Y]] : bf16 to f32
// CHECK: %[[S:.*]] = arith.addf %[[XW]], %[[YW]] : f32
// CHECK: %[[R:.*]] = arith.truncf %[[S]] : f32 to bf16
// CHECK: linalg.yield %[[R]] : bf16
func.func @add_rank0(%a: tensor<bf16>, %b: tensor<bf16>) -> tensor<bf16> {
  %0 = kiln.add %a, %b : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
  return %0 : tensor<bf16>
}

// -----

// CHECK-LABEL: func.func @add_integers
// CHECK: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK: arith.addi %{{.*}}, %{{.*}} : i8
func.func @add_integers(%a: tensor<2xi32>, %b: tensor<2xi8>) -> (tensor<2xi32>, tensor<2xi8>) {
  %0 = kiln.add %a, %a : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %1 = kiln.add %b, %b : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi8>
  return %0, %1 : tensor<2xi32>, tensor<2xi8>
}

// -----

// Booleans add like PyTorch's bool + bool: a logical or.
// CHECK-LABEL: func.func @add_bool
// CHECK: arith.ori %{{.*}}, %{{.*}} : i1
// CHECK-NOT: arith.addi
func.func @add_bool(%a: tensor<2xi1>, %b: tensor<2xi1>) -> tensor<2xi1> {
  %0 = kiln.add %a, %b : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

// CHECK-LABEL: func.func @constant
// CHECK: %[[C:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: return %[[C]] : tensor<2xf32>
func.func @constant() -> tensor<2xf32> {
  %0 = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @constant_splat_i64
// CHECK: arith.constant dense<7> : tensor<2x2xi64>
func.func @constant_splat_i64() -> tensor<2x2xi64> {
  %0 = kiln.constant dense<7> : tensor<2x2xi64>
  return %0 : tensor<2x2xi64>
}

// -----

// CHECK-LABEL: func.func @arith_floats
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[R:.*]] = arith.subf %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[R]]
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: math.powf %{{.*}}, %{{.*}} : f32
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK: arith.minimumf %{{.*}}, %{{.*}} : f32
// CHECK-NOT: kiln.
func.func @arith_floats(%a: tensor<2x3xf32>, %b: tensor<3xf32>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = kiln.sub %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = kiln.mul %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %2 = kiln.div %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %3 = kiln.pow %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %4 = kiln.maximum %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %5 = kiln.minimum %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Integers wrap and compare signed; i1 multiplies as a logical and and
// orders false < true.
// CHECK-LABEL: func.func @arith_integers
// CHECK: arith.subi %{{.*}}, %{{.*}} : i8
// CHECK: arith.muli %{{.*}}, %{{.*}} : i64
// CHECK: arith.maxsi %{{.*}}, %{{.*}} : i32
// CHECK: arith.minsi %{{.*}}, %{{.*}} : i32
// CHECK: arith.andi %{{.*}}, %{{.*}} : i1
// CHECK: arith.maxui %{{.*}}, %{{.*}} : i1
// CHECK: arith.minui %{{.*}}, %{{.*}} : i1
func.func @arith_integers(%a: tensor<4xi8>, %b: tensor<4xi64>, %c: tensor<4xi32>, %d: tensor<4xi32>, %p: tensor<4xi1>, %q: tensor<4xi1>)
    -> (tensor<4xi8>, tensor<4xi64>, tensor<4xi32>, tensor<4xi32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = kiln.sub %a, %a : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  %1 = kiln.mul %b, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %2 = kiln.maximum %c, %d : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %3 = kiln.minimum %c, %d : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %4 = kiln.mul %p, %q : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %5 = kiln.maximum %p, %q : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %6 = kiln.minimum %p, %q : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xi8>, tensor<4xi64>, tensor<4xi32>, tensor<4xi32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// Integer division truncates (divsi) and never traps: x / 0 and
// INT_MIN / -1 divide by 1 instead.
// CHECK-LABEL: func.func @div_integers
// CHECK: ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32):
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[MONE:.*]] = arith.constant -1 : i32
// CHECK-DAG: %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK-DAG: %[[YM1:.*]] = arith.cmpi eq, %[[Y]], %[[MONE]] : i32
// CHECK-DAG: %[[XMIN:.*]] = arith.cmpi eq, %[[X]], %[[MIN]] : i32
// CHECK-DAG: %[[OVF:.*]] = arith.andi %[[XMIN]], %[[YM1]] : i1
// CHECK-DAG: %[[Y0:.*]] = arith.cmpi eq, %[[Y]], %[[ZERO]] : i32
// CHECK: %[[BAD:.*]] = arith.ori %[[Y0]], %[[OVF]] : i1
// CHECK: %[[D:.*]] = arith.select %[[BAD]], %[[ONE]], %[[Y]] : i32
// CHECK: %[[Q:.*]] = arith.divsi %[[X]], %[[D]] : i32
// CHECK: linalg.yield %[[Q]] : i32
// CHECK: arith.constant -128 : i8
// CHECK: arith.divsi %{{.*}}, %{{.*}} : i8
func.func @div_integers(%a: tensor<2x3xi32>, %b: tensor<3xi32>, %c: tensor<i8>) -> (tensor<2x3xi32>, tensor<i8>) {
  %0 = kiln.div %a, %b : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %1 = kiln.div %c, %c : (tensor<i8>, tensor<i8>) -> tensor<i8>
  return %0, %1 : tensor<2x3xi32>, tensor<i8>
}

// -----

// Half types divide (and pow) in f32.
// CHECK-LABEL: func.func @div_f16
// CHECK: ^bb0(%[[X:.*]]: f16, %[[Y:.*]]: f16, %{{.*}}: f16):
// CHECK-DAG: %[[XW:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-DAG: %[[YW:.*]] = arith.extf %[[Y]] : f16 to f32
// CHECK: %[[Q:.*]] = arith.divf %[[XW]], %[[YW]] : f32
// CHECK: %[[R:.*]] = arith.truncf %[[Q]] : f32 to f16
// CHECK: linalg.yield %[[R]] : f16
// CHECK: math.powf %{{.*}}, %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @div_f16(%a: tensor<3xf16>, %b: tensor<bf16>) -> (tensor<3xf16>, tensor<bf16>) {
  %0 = kiln.div %a, %a : (tensor<3xf16>, tensor<3xf16>) -> tensor<3xf16>
  %1 = kiln.pow %b, %b : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
  return %0, %1 : tensor<3xf16>, tensor<bf16>
}

// -----

// Float comparisons are ordered except ne; the result is i1 of the
// broadcast shape.
// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$TRAIL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @compare_floats
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<2x3xi1>
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [#[[$ID2]], #[[$TRAIL]], #[[$ID2]]]
// CHECK-SAME: outs(%[[INIT]] : tensor<2x3xi1>)
// CHECK: ^bb0(%[[X:.*]]: f64, %[[Y:.*]]: f64, %{{.*}}: i1):
// CHECK-NEXT: %[[C:.*]] = arith.cmpf olt, %[[X]], %[[Y]] : f64
// CHECK-NEXT: linalg.yield %[[C]] : i1
// CHECK: arith.cmpf ole
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oge
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpf une
func.func @compare_floats(%a: tensor<2x3xf64>, %b: tensor<3xf64>)
    -> (tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>) {
  %0 = kiln.lt %a, %b : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xi1>
  %1 = kiln.le %a, %b : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xi1>
  %2 = kiln.gt %a, %b : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xi1>
  %3 = kiln.ge %a, %b : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xi1>
  %4 = kiln.eq %a, %b : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xi1>
  %5 = kiln.ne %a, %b : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>
}

// -----

// Integers compare signed, i1 unsigned (false < true).
// CHECK-LABEL: func.func @compare_integers
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : i8
// CHECK: arith.cmpi sle, %{{.*}}, %{{.*}} : i32
// CHECK: arith.cmpi sgt, %{{.*}}, %{{.*}} : i64
// CHECK: arith.cmpi sge, %{{.*}}, %{{.*}} : i64
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : i1
// CHECK: arith.cmpi uge, %{{.*}}, %{{.*}} : i1
// CHECK: arith.cmpi eq, %{{.*}}, %{{.*}} : i1
// CHECK: arith.cmpi ne, %{{.*}}, %{{.*}} : i32
func.func @compare_integers(%a: tensor<2xi8>, %b: tensor<2xi32>, %c: tensor<2xi64>, %p: tensor<2xi1>)
    -> (tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>) {
  %0 = kiln.lt %a, %a : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi1>
  %1 = kiln.le %b, %b : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
  %2 = kiln.gt %c, %c : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi1>
  %3 = kiln.ge %c, %c : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi1>
  %4 = kiln.lt %p, %p : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  %5 = kiln.ge %p, %p : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  %6 = kiln.eq %p, %p : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  %7 = kiln.ne %b, %b : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>
}

// -----

// The three operands of select broadcast together.
// CHECK-DAG: #[[$COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[$TRAIL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @select_broadcast
// CHECK-SAME: (%[[C:.*]]: tensor<2x1xi1>, %[[T:.*]]: tensor<3xf32>, %[[F:.*]]: tensor<f32>)
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [#[[$COL]], #[[$TRAIL]], #[[$SCALAR]], #[[$ID2]]]
// CHECK-SAME: ins(%[[C]], %[[T]], %[[F]] : tensor<2x1xi1>, tensor<3xf32>, tensor<f32>)
// CHECK: ^bb0(%[[CS:.*]]: i1, %[[TS:.*]]: f32, %[[FS:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[R:.*]] = arith.select %[[CS]], %[[TS]], %[[FS]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
func.func @select_broadcast(%c: tensor<2x1xi1>, %a: tensor<3xf32>, %b: tensor<f32>) -> tensor<2x3xf32> {
  %0 = kiln.select %c, %a, %b : (tensor<2x1xi1>, tensor<3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @select_bf16
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : bf16
// CHECK-NOT: arith.extf
func.func @select_bf16(%c: tensor<2xi1>, %a: tensor<2xbf16>, %b: tensor<2xbf16>) -> tensor<2xbf16> {
  %0 = kiln.select %c, %a, %b : (tensor<2xi1>, tensor<2xbf16>, tensor<2xbf16>) -> tensor<2xbf16>
  return %0 : tensor<2xbf16>
}

// -----

// Unary ops keep the shape: an identity map in and out.
// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @neg_abs_sign_floats
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [#[[$ID2]], #[[$ID2]]]
// CHECK-SAME: ins(%[[A]] : tensor<2x3xf32>) outs(%[[INIT]] : tensor<2x3xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[N:.*]] = arith.negf %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[N]]
// CHECK: math.absf %{{.*}} : f32
// Sign: NaN and zeros fail both ordered tests and give 0.
// CHECK: ^bb0(%[[S:.*]]: f32, %{{.*}}: f32):
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[MONE:.*]] = arith.constant -1.000000e+00 : f32
// CHECK-DAG: %[[POS:.*]] = arith.cmpf ogt, %[[S]], %[[ZERO]] : f32
// CHECK-DAG: %[[NEG:.*]] = arith.cmpf olt, %[[S]], %[[ZERO]] : f32
// CHECK: %[[R0:.*]] = arith.select %[[NEG]], %[[MONE]], %[[ZERO]] : f32
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[R1:.*]] = arith.select %[[POS]], %[[ONE]], %[[R0]] : f32
// CHECK: linalg.yield %[[R1]] : f32
func.func @neg_abs_sign_floats(%a: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = kiln.neg %a : tensor<2x3xf32>
  %1 = kiln.abs %a : tensor<2x3xf32>
  %2 = kiln.sign %a : tensor<2x3xf32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @neg_abs_sign_integers
// CHECK: ^bb0(%[[X:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[N:.*]] = arith.subi %[[ZERO]], %[[X]] : i32
// CHECK: math.absi %{{.*}} : i8
// CHECK: arith.cmpi sgt, %{{.*}}, %{{.*}} : i64
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : i64
func.func @neg_abs_sign_integers(%a: tensor<2xi32>, %b: tensor<2xi8>, %c: tensor<i64>) -> (tensor<2xi32>, tensor<2xi8>, tensor<i64>) {
  %0 = kiln.neg %a : tensor<2xi32>
  %1 = kiln.abs %b : tensor<2xi8>
  %2 = kiln.sign %c : tensor<i64>
  return %0, %1, %2 : tensor<2xi32>, tensor<2xi8>, tensor<i64>
}

// -----

// CHECK-LABEL: func.func @math
// CHECK: math.exp %{{.*}} : f64
// CHECK: math.log %{{.*}} : f64
// CHECK: math.log2 %{{.*}} : f64
// CHECK: math.log10 %{{.*}} : f64
// CHECK: math.sqrt %{{.*}} : f64
// CHECK: math.rsqrt %{{.*}} : f64
// CHECK: math.sin %{{.*}} : f64
// CHECK: math.cos %{{.*}} : f64
// CHECK: math.tanh %{{.*}} : f64
// CHECK: math.erf %{{.*}} : f64
func.func @math(%a: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>,
                                       tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) {
  %0 = kiln.exp %a : tensor<4xf64>
  %1 = kiln.log %a : tensor<4xf64>
  %2 = kiln.log2 %a : tensor<4xf64>
  %3 = kiln.log10 %a : tensor<4xf64>
  %4 = kiln.sqrt %a : tensor<4xf64>
  %5 = kiln.rsqrt %a : tensor<4xf64>
  %6 = kiln.sin %a : tensor<4xf64>
  %7 = kiln.cos %a : tensor<4xf64>
  %8 = kiln.tanh %a : tensor<4xf64>
  %9 = kiln.erf %a : tensor<4xf64>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>,
                                                  tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>
}

// -----

// expm1 and log1p do not use math.expm1 / math.log1p, which lower to
// exp(x) - 1 and log(1 + x); Kahan's and Goldberg's forms keep the digits.
// CHECK-LABEL: func.func @expm1
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[U:.*]] = math.exp %[[X]] : f32
// CHECK: %[[UM1:.*]] = arith.subf %[[U]], %[[ONE]] : f32
// CHECK: %[[LOGU:.*]] = math.log %[[U]] : f32
// CHECK: %[[RATIO:.*]] = arith.divf %[[X]], %[[LOGU]] : f32
// CHECK: %[[R:.*]] = arith.mulf %[[UM1]], %[[RATIO]] : f32
// CHECK: %[[ISONE:.*]] = arith.cmpf oeq, %[[U]], %[[ONE]] : f32
// CHECK: %[[OUT:.*]] = arith.select %[[ISONE]], %[[X]], %{{.*}} : f32
// CHECK: linalg.yield %[[OUT]] : f32
// CHECK-NOT: math.expm1
func.func @expm1(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.expm1 %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @log1p
// CHECK: ^bb0(%[[X:.*]]: f64, %{{.*}}: f64):
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK: %[[U:.*]] = arith.addf %[[ONE]], %[[X]] : f64
// CHECK: %[[UM1:.*]] = arith.subf %[[U]], %[[ONE]] : f64
// CHECK: %[[RATIO:.*]] = arith.divf %[[X]], %[[UM1]] : f64
// CHECK: %[[LOGU:.*]] = math.log %[[U]] : f64
// CHECK: %[[R:.*]] = arith.mulf %[[LOGU]], %[[RATIO]] : f64
// CHECK: %[[ISONE:.*]] = arith.cmpf oeq, %[[U]], %[[ONE]] : f64
// CHECK: %[[OUT:.*]] = arith.select %[[ISONE]], %[[X]], %{{.*}} : f64
// CHECK: linalg.yield %[[OUT]] : f64
// CHECK-NOT: math.log1p
func.func @log1p(%a: tensor<4xf64>) -> tensor<4xf64> {
  %0 = kiln.log1p %a : tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

// Transcendental f16/bf16 math runs in f32.
// CHECK-LABEL: func.func @math_half
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: math.exp %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: math.tanh %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @math_half(%a: tensor<2xf16>, %b: tensor<2xbf16>) -> (tensor<2xf16>, tensor<2xbf16>) {
  %0 = kiln.exp %a : tensor<2xf16>
  %1 = kiln.tanh %b : tensor<2xbf16>
  return %0, %1 : tensor<2xf16>, tensor<2xbf16>
}

// -----

// CHECK-LABEL: func.func @sigmoid_silu
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[NX:.*]] = arith.negf %[[X]] : f32
// CHECK: %[[E:.*]] = math.exp %[[NX]] : f32
// CHECK: %[[D:.*]] = arith.addf %[[ONE]], %[[E]] : f32
// CHECK: %[[S:.*]] = arith.divf %[[ONE]], %[[D]] : f32
// CHECK: linalg.yield %[[S]] : f32
// CHECK: ^bb0(%[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[ONE2:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[NY:.*]] = arith.negf %[[Y]] : f32
// CHECK: %[[E2:.*]] = math.exp %[[NY]] : f32
// CHECK: %[[D2:.*]] = arith.addf %[[ONE2]], %[[E2]] : f32
// CHECK: %[[SILU:.*]] = arith.divf %[[Y]], %[[D2]] : f32
// CHECK: linalg.yield %[[SILU]] : f32
func.func @sigmoid_silu(%a: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = kiln.sigmoid %a : tensor<2x3xf32>
  %1 = kiln.silu %a : tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// relu propagates NaN (maximumf); leaky_relu keeps x >= 0; elu keeps x > 0.
// CHECK-LABEL: func.func @relus
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[R:.*]] = arith.maximumf %[[X]], %[[ZERO]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
// CHECK: ^bb0(%[[L:.*]]: f32, %{{.*}}: f32):
// CHECK-DAG: %[[ALPHA:.*]] = arith.constant 2.000000e-01 : f32
// CHECK-DAG: %[[SCALED:.*]] = arith.mulf %[[ALPHA]], %[[L]] : f32
// CHECK-DAG: %[[KEEP:.*]] = arith.cmpf oge, %[[L]], %{{.*}} : f32
// CHECK: %[[LR:.*]] = arith.select %[[KEEP]], %[[L]], %[[SCALED]] : f32
// CHECK: linalg.yield %[[LR]] : f32
// The default alpha is 0.01.
// CHECK: arith.constant 0.00999999977 : f32
// CHECK: ^bb0(%[[E:.*]]: f32, %{{.*}}: f32):
// CHECK-DAG: arith.constant 5.000000e-01 : f32
// CHECK-DAG: math.exp %[[E]] : f32
// CHECK: %[[EKEEP:.*]] = arith.cmpf ogt, %[[E]], %{{.*}} : f32
// CHECK: %[[ER:.*]] = arith.select %[[EKEEP]], %[[E]], %{{.*}} : f32
// CHECK: linalg.yield %[[ER]] : f32
func.func @relus(%a: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = kiln.relu %a : tensor<2x3xf32>
  %1 = kiln.leaky_relu %a {alpha = 2.000000e-01 : f64} : tensor<2x3xf32>
  %2 = kiln.leaky_relu %a : tensor<2x3xf32>
  %3 = kiln.elu %a {alpha = 5.000000e-01 : f64} : tensor<2x3xf32>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// gelu: x * 0.5 * (1 + erf(x / sqrt(2))), or PyTorch's tanh approximation.
// CHECK-LABEL: func.func @gelu
// CHECK: ^bb0(%[[X:.*]]: f64, %{{.*}}: f64):
// CHECK-DAG: %[[HALF:.*]] = arith.constant 5.000000e-01 : f64
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK-DAG: %[[RSQRT2:.*]] = arith.constant 0.70710678118654757 : f64
// CHECK: %[[S:.*]] = arith.mulf %[[X]], %[[RSQRT2]] : f64
// CHECK: %[[ERF:.*]] = math.erf %[[S]] : f64
// CHECK: %[[P:.*]] = arith.addf %[[ONE]], %[[ERF]] : f64
// CHECK: %[[XH:.*]] = arith.mulf %[[X]], %[[HALF]] : f64
// CHECK: %[[R:.*]] = arith.mulf %[[XH]], %[[P]] : f64
// CHECK: linalg.yield %[[R]] : f64
// CHECK: ^bb0(%[[Y:.*]]: f64, %{{.*}}: f64):
// CHECK: arith.constant 4.471500e-02 : f64
// CHECK: arith.constant 0.79788456080286541 : f64
// CHECK: math.tanh
// CHECK-NOT: math.erf
func.func @gelu(%a: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>) {
  %0 = kiln.gelu %a : tensor<2x3xf64>
  %1 = kiln.gelu %a {approximate = #kiln.approximation<tanh>} : tensor<2x3xf64>
  return %0, %1 : tensor<2x3xf64>, tensor<2x3xf64>
}

// -----

// clamp: NaN-propagating max then min; an absent bound is skipped.
// CHECK-LABEL: func.func @clamp
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[LO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[M:.*]] = arith.maximumf %[[X]], %[[LO]] : f32
// CHECK: %[[HI:.*]] = arith.constant 6.000000e+00 : f32
// CHECK: %[[R:.*]] = arith.minimumf %[[M]], %[[HI]] : f32
// CHECK: linalg.yield %[[R]] : f32
// CHECK: ^bb0(%[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[HI2:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[R2:.*]] = arith.minimumf %[[Y]], %[[HI2]] : f32
// CHECK-NEXT: linalg.yield %[[R2]] : f32
func.func @clamp(%a: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = kiln.clamp %a {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<2x3xf32>
  %1 = kiln.clamp %a {max = 1.000000e+00 : f64} : tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// The bounds round to the element type (0.1 -> 0.0999755859375 in f16),
// then widen to the f32 payload.
// CHECK-LABEL: func.func @clamp_f16
// CHECK: %[[LO:.*]] = arith.constant 9.997550e-02 : f16
// CHECK: %[[LOW:.*]] = arith.extf %[[LO]] : f16 to f32
// CHECK: arith.maximumf %{{.*}}, %[[LOW]] : f32
func.func @clamp_f16(%a: tensor<2xf16>) -> tensor<2xf16> {
  %0 = kiln.clamp %a {min = 1.000000e-01 : f64} : tensor<2xf16>
  return %0 : tensor<2xf16>
}

// -----

// CHECK-LABEL: func.func @convert_floats
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.truncf %{{.*}} : f32 to f16
// f16 <-> bf16 and f64 -> bf16 go through f32.
// CHECK: ^bb0(%[[H:.*]]: f16, %{{.*}}: bf16):
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[H]] : f16 to f32
// CHECK-NEXT: %[[B:.*]] = arith.truncf %[[W]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[B]] : bf16
// CHECK: ^bb0(%[[D:.*]]: f64, %{{.*}}: bf16):
// CHECK-NEXT: %[[F:.*]] = arith.truncf %[[D]] : f64 to f32
// CHECK-NEXT: %[[B2:.*]] = arith.truncf %[[F]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[B2]] : bf16
func.func @convert_floats(%a: tensor<3xf64>, %b: tensor<3xf32>, %h: tensor<3xf16>)
    -> (tensor<3xf32>, tensor<3xf64>, tensor<3xf16>, tensor<3xbf16>, tensor<3xbf16>) {
  %0 = kiln.convert %a : tensor<3xf64> to tensor<3xf32>
  %1 = kiln.convert %b : tensor<3xf32> to tensor<3xf64>
  %2 = kiln.convert %b : tensor<3xf32> to tensor<3xf16>
  %3 = kiln.convert %h : tensor<3xf16> to tensor<3xbf16>
  %4 = kiln.convert %a : tensor<3xf64> to tensor<3xbf16>
  return %0, %1, %2, %3, %4 : tensor<3xf32>, tensor<3xf64>, tensor<3xf16>, tensor<3xbf16>, tensor<3xbf16>
}

// -----

// Float -> int truncates, saturating (NaN gives 0): fptosi only sees values
// in [-2^(w-1), 2^(w-1)), elsewhere it would be poison. Int -> float is
// signed except i1; anything -> i1 is x != 0 (unordered, so NaN gives true).
// CHECK-LABEL: func.func @convert_mixed
// CHECK: arith.fptosi %{{.*}} : f32 to i32
// CHECK: arith.sitofp %{{.*}} : i64 to f64
// CHECK: arith.uitofp %{{.*}} : i1 to f32
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: i1):
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[NZ:.*]] = arith.cmpf une, %[[X]], %[[ZERO]] : f32
// CHECK-NEXT: linalg.yield %[[NZ]] : i1
// CHECK: arith.cmpi ne, %{{.*}}, %{{.*}} : i64
// CHECK: %[[W:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK-DAG: %[[UP:.*]] = arith.constant 1.280000e+02 : f32
// CHECK-DAG: %[[LO:.*]] = arith.constant -1.280000e+02 : f32
// CHECK-DAG: %[[MAX:.*]] = arith.constant 127 : i8
// CHECK-DAG: %[[MIN:.*]] = arith.constant -128 : i8
// CHECK-DAG: %[[LT:.*]] = arith.cmpf olt, %[[W]], %[[UP]] : f32
// CHECK-DAG: %[[GE:.*]] = arith.cmpf oge, %[[W]], %[[LO]] : f32
// CHECK: %[[IN:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK: %[[SAFE:.*]] = arith.select %[[IN]], %[[W]], %{{.*}} : f32
// CHECK: %[[T:.*]] = arith.fptosi %[[SAFE]] : f32 to i8
// CHECK: %[[BELOW:.*]] = arith.cmpf olt, %[[W]], %[[LO]] : f32
// CHECK: %[[S0:.*]] = arith.select %[[BELOW]], %[[MIN]], %{{.*}} : i8
// CHECK: %[[ABOVE:.*]] = arith.cmpf oge, %[[W]], %[[UP]] : f32
// CHECK: %[[S1:.*]] = arith.select %[[ABOVE]], %[[MAX]], %[[S0]] : i8
// CHECK: arith.select %[[IN]], %[[T]], %[[S1]] : i8
// CHECK: arith.sitofp %{{.*}} : i8 to f32
// CHECK-NEXT: arith.truncf %{{.*}} : f32 to f16
func.func @convert_mixed(%f: tensor<2xf32>, %i: tensor<2xi64>, %p: tensor<2xi1>, %b: tensor<2xbf16>, %c: tensor<2xi8>)
    -> (tensor<2xi32>, tensor<2xf64>, tensor<2xf32>, tensor<2xi1>, tensor<2xi1>, tensor<2xi8>, tensor<2xf16>) {
  %0 = kiln.convert %f : tensor<2xf32> to tensor<2xi32>
  %1 = kiln.convert %i : tensor<2xi64> to tensor<2xf64>
  %2 = kiln.convert %p : tensor<2xi1> to tensor<2xf32>
  %3 = kiln.convert %f : tensor<2xf32> to tensor<2xi1>
  %4 = kiln.convert %i : tensor<2xi64> to tensor<2xi1>
  %5 = kiln.convert %b : tensor<2xbf16> to tensor<2xi8>
  %6 = kiln.convert %c : tensor<2xi8> to tensor<2xf16>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<2xi32>, tensor<2xf64>, tensor<2xf32>, tensor<2xi1>, tensor<2xi1>, tensor<2xi8>, tensor<2xf16>
}

// -----

// Integer -> integer: i1 zero-extends, others sign-extend or wrap.
// CHECK-LABEL: func.func @convert_integers
// CHECK: arith.extui %{{.*}} : i1 to i32
// CHECK: arith.extsi %{{.*}} : i8 to i64
// CHECK: arith.trunci %{{.*}} : i32 to i8
func.func @convert_integers(%p: tensor<2xi1>, %a: tensor<2xi8>, %b: tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi64>, tensor<2xi8>) {
  %0 = kiln.convert %p : tensor<2xi1> to tensor<2xi32>
  %1 = kiln.convert %a : tensor<2xi8> to tensor<2xi64>
  %2 = kiln.convert %b : tensor<2xi32> to tensor<2xi8>
  return %0, %1, %2 : tensor<2xi32>, tensor<2xi64>, tensor<2xi8>
}

// -----

// A conversion to the same type is the operand itself.
// CHECK-LABEL: func.func @convert_same
// CHECK-SAME: (%[[A:.*]]: tensor<2xf32>)
// CHECK-NOT: linalg.generic
// CHECK: return %[[A]]
func.func @convert_same(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = kiln.convert %a : tensor<2xf32> to tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Zero-size and rank-0 tensors lower like any other.
// CHECK-LABEL: func.func @empty_and_rank0
// CHECK: tensor.empty() : tensor<0x3xf32>
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<0x3xf32>)
// CHECK: math.sqrt
// CHECK: tensor.empty() : tensor<i1>
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = []
// CHECK: arith.cmpi slt
func.func @empty_and_rank0(%a: tensor<0x3xf32>, %b: tensor<i32>) -> (tensor<0x3xf32>, tensor<i1>) {
  %0 = kiln.sqrt %a : tensor<0x3xf32>
  %1 = kiln.lt %b, %b : (tensor<i32>, tensor<i32>) -> tensor<i1>
  return %0, %1 : tensor<0x3xf32>, tensor<i1>
}
