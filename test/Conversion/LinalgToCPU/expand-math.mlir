// RUN: kiln-opt %s --kiln-expand-math --split-input-file | FileCheck %s

// A scalar f32 exp becomes arithmetic: the clamp to [-104, 89], k by the
// 1.5 * 2^23 rounding trick, r = x - k ln2 in two FMAs (Cody-Waite), the
// degree-7 Taylor polynomial in Horner form (seven FMAs from 1/5040), and
// 2^k as two powers of two built in the exponent field; a NaN x is passed
// through by the final select.
// CHECK-LABEL: func.func @scalar
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[C2:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG: %[[C3:.*]] = arith.constant 0.166666672 : f32
// CHECK-DAG: %[[C4:.*]] = arith.constant 0.0416666679 : f32
// CHECK-DAG: %[[C5:.*]] = arith.constant 0.00833333377 : f32
// CHECK-DAG: %[[C6:.*]] = arith.constant 0.00138888892 : f32
// CHECK-DAG: %[[C7:.*]] = arith.constant 1.98412701E-4 : f32
// CHECK-DAG: %[[LN2LO:.*]] = arith.constant -1.42860677E-6 : f32
// CHECK-DAG: %[[LN2HI:.*]] = arith.constant -0.693145751 : f32
// CHECK-DAG: %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK-DAG: %[[SHIFT:.*]] = arith.constant 0x4B400000 : f32
// CHECK-DAG: %[[HIGH:.*]] = arith.constant 8.900000e+01 : f32
// CHECK-DAG: %[[LOW:.*]] = arith.constant -1.040000e+02 : f32
// CHECK-DAG: %[[BIAS:.*]] = arith.constant 127 : i32
// CHECK-DAG: %[[MINE:.*]] = arith.constant -126 : i32
// CHECK-DAG: %[[MANT:.*]] = arith.constant 23 : i32
// CHECK-NOT: math.exp
// CHECK: %[[LO:.*]] = arith.maxnumf %[[X]], %[[LOW]] : f32
// CHECK: %[[C:.*]] = arith.minnumf %[[LO]], %[[HIGH]] : f32
// CHECK: %[[XL:.*]] = arith.mulf %[[C]], %[[LOG2E]] : f32
// CHECK: %[[SH:.*]] = arith.addf %[[XL]], %[[SHIFT]] : f32
// CHECK: %[[K:.*]] = arith.subf %[[SH]], %[[SHIFT]] : f32
// CHECK: %[[R1:.*]] = math.fma %[[K]], %[[LN2HI]], %[[C]] : f32
// CHECK: %[[R:.*]] = math.fma %[[K]], %[[LN2LO]], %[[R1]] : f32
// CHECK: %[[P7:.*]] = math.fma %[[C7]], %[[R]], %[[C6]] : f32
// CHECK: %[[P6:.*]] = math.fma %[[P7]], %[[R]], %[[C5]] : f32
// CHECK: %[[P5:.*]] = math.fma %[[P6]], %[[R]], %[[C4]] : f32
// CHECK: %[[P4:.*]] = math.fma %[[P5]], %[[R]], %[[C3]] : f32
// CHECK: %[[P3:.*]] = math.fma %[[P4]], %[[R]], %[[C2]] : f32
// CHECK: %[[P2:.*]] = math.fma %[[P3]], %[[R]], %[[ONE]] : f32
// CHECK: %[[P:.*]] = math.fma %[[P2]], %[[R]], %[[ONE]] : f32
// CHECK: %[[KI:.*]] = arith.fptosi %[[K]] : f32 to i32
// CHECK: %[[K1LO:.*]] = arith.maxsi %[[KI]], %[[MINE]] : i32
// CHECK: %[[K1:.*]] = arith.minsi %[[K1LO]], %[[BIAS]] : i32
// CHECK: %[[K2:.*]] = arith.subi %[[KI]], %[[K1]] : i32
// CHECK: %[[E1:.*]] = arith.addi %[[K1]], %[[BIAS]] : i32
// CHECK: %[[S1:.*]] = arith.shli %[[E1]], %[[MANT]] : i32
// CHECK: %[[POW1:.*]] = arith.bitcast %[[S1]] : i32 to f32
// CHECK: %[[E2:.*]] = arith.addi %[[K2]], %[[BIAS]] : i32
// CHECK: %[[S2:.*]] = arith.shli %[[E2]], %[[MANT]] : i32
// CHECK: %[[POW2:.*]] = arith.bitcast %[[S2]] : i32 to f32
// CHECK: %[[EXACT:.*]] = arith.mulf %[[P]], %[[POW2]] : f32
// CHECK: %[[Y:.*]] = arith.mulf %[[EXACT]], %[[POW1]] : f32
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK: %[[RES:.*]] = arith.select %[[NAN]], %[[X]], %[[Y]] : f32
// CHECK: return %[[RES]]
func.func @scalar(%x: f32) -> f32 {
  %0 = math.exp %x : f32
  return %0 : f32
}

// -----

// A vector exp: the same arithmetic lane by lane, on vector constants.
// CHECK-LABEL: func.func @vector
// CHECK-NOT: math.exp
// CHECK: arith.constant dense<1.98412701E-4> : vector<16xf32>
// CHECK: arith.fptosi %{{.*}} : vector<16xf32> to vector<16xi32>
// CHECK: arith.bitcast %{{.*}} : vector<16xi32> to vector<16xf32>
// CHECK: arith.select %{{.*}} : vector<16xi1>, vector<16xf32>
func.func @vector(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.exp %x : vector<16xf32>
  return %0 : vector<16xf32>
}

// -----

// f64 (and f16/bf16, which the lowering computes in f32 before this pass)
// stay math.exp, for convert-math-to-libm.
// CHECK-LABEL: func.func @f64
// CHECK: math.exp %{{.*}} : f64
func.func @f64(%x: f64) -> f64 {
  %0 = math.exp %x : f64
  return %0 : f64
}

// -----

// pow by a constant 2 or 3 (scalar or splat): products. Any other exponent,
// or one not known, stays math.powf.
// CHECK-LABEL: func.func @powers
// CHECK-SAME: (%[[X:.*]]: f32, %[[V:.*]]: vector<4xf32>, %[[E:.*]]: f32)
// CHECK: %[[SQ:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK: %[[VSQ:.*]] = arith.mulf %[[V]], %[[V]] : vector<4xf32>
// CHECK: %[[CUBE:.*]] = arith.mulf %[[VSQ]], %[[V]] : vector<4xf32>
// CHECK: %[[HALF:.*]] = math.powf %[[X]], %{{.*}} : f32
// CHECK: %[[ANY:.*]] = math.powf %[[X]], %[[E]] : f32
// CHECK: return %[[SQ]], %[[CUBE]], %[[HALF]], %[[ANY]]
func.func @powers(%x: f32, %v: vector<4xf32>, %e: f32) -> (f32, vector<4xf32>, f32, f32) {
  %two = arith.constant 2.0 : f32
  %three = arith.constant dense<3.0> : vector<4xf32>
  %half = arith.constant 0.5 : f32
  %0 = math.powf %x, %two : f32
  %1 = math.powf %v, %three : vector<4xf32>
  %2 = math.powf %x, %half : f32
  %3 = math.powf %x, %e : f32
  return %0, %1, %2, %3 : f32, vector<4xf32>, f32, f32
}

// -----

// tanh: upstream's rational approximation, no math.tanh left (f32 only).
// CHECK-LABEL: func.func @tanh
// CHECK-NOT: math.tanh %{{.*}} : f32
// CHECK: arith.divf
// CHECK: math.tanh %{{.*}} : f64
func.func @tanh(%x: f32, %y: f64) -> (f32, f64) {
  %0 = math.tanh %x : f32
  %1 = math.tanh %y : f64
  return %0, %1 : f32, f64
}
