// kiln-matmul-kernels on transposed operands, against the same contraction
// written as a linalg.generic (which convert-linalg-to-loops lowers to plain
// scalar loops). The inputs are integers in [-8, 8) converted to floats, so
// every product and partial sum is exact in f32 and f64 and both paths must
// agree bit for bit: each result is sum(|kernel - loops|), exactly 0.
// Sizes cross every boundary of the kernels: M = 19 (two full 8-row tiles
// and a remainder), N = 37 (one full 32-column f32 tile, two full 16-column
// f64 tiles, and remainders), K = 300 (a 256-deep block and a remainder).
//
// RUN: kiln-run %s --entry check --random-inputs --random-range 0:-8:8 --random-range 1:-8:8 --random-range 2:-8:8 --random-range 3:-8:8 | FileCheck %s
// CHECK: result0: tensor<f32>
// CHECK-NEXT: [0]
// CHECK: result1: tensor<f32>
// CHECK-NEXT: [0]
// CHECK: result2: tensor<f32>
// CHECK-NEXT: [0]
// CHECK: result3: tensor<f64>
// CHECK-NEXT: [0]
// CHECK: result4: tensor<f32>
// CHECK-NEXT: [0]
// Operands narrower than C (f16/bf16 into f32, f32 into f64), which the
// kernels extend as they load A and pack B (integers in [-8, 8) are exact
// in f16 and bf16 too):
// RUN: kiln-run %s --entry check_mixed --random-inputs --random-range 0:-8:8 --random-range 1:-8:8 --random-range 2:-8:8 --random-range 3:-8:8 | FileCheck %s --check-prefix=MIXED
// MIXED: result0: tensor<f32>
// MIXED-NEXT: [0]
// MIXED: result1: tensor<f32>
// MIXED-NEXT: [0]
// MIXED: result2: tensor<f32>
// MIXED-NEXT: [0]
// MIXED: result3: tensor<f64>
// MIXED-NEXT: [0]
// MIXED: result4: tensor<f32>
// MIXED-NEXT: [0]
// The kernels really ran (and the reference did not become one):
// RUN: kiln-opt %s --kiln-lower-to-cpu=outline-kernels=false | FileCheck %s --check-prefix=IR
// IR: llvm.intr.fmuladd({{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// IR: llvm.intr.fmuladd({{.*}}) : (vector<8xf64>, vector<8xf64>, vector<8xf64>) -> vector<8xf64>
// IR-LABEL: llvm.func internal @__kiln_func_check_mixed
// IR: llvm.intr.fmuladd({{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// IR: llvm.fpext {{.*}} : vector<16xf16> to vector<16xf32>

#mk = affine_map<(m, n, k) -> (m, k)>
#km = affine_map<(m, n, k) -> (k, m)>
#kn = affine_map<(m, n, k) -> (k, n)>
#nk = affine_map<(m, n, k) -> (n, k)>
#mn = affine_map<(m, n, k) -> (m, n)>
#bmk = affine_map<(b, m, n, k) -> (b, m, k)>
#bnk = affine_map<(b, m, n, k) -> (b, n, k)>
#bmn = affine_map<(b, m, n, k) -> (b, m, n)>

// sum(|x - y|)
func.func @distance(%x: tensor<19x37xf32>, %y: tensor<19x37xf32>) -> tensor<f32> {
  %d = kiln.sub %x, %y : (tensor<19x37xf32>, tensor<19x37xf32>) -> tensor<19x37xf32>
  %a = kiln.abs %d : tensor<19x37xf32>
  %s = kiln.sum %a {axes = array<i64: 0, 1>} : tensor<19x37xf32> -> tensor<f32>
  return %s : tensor<f32>
}

func.func @check(%ai: tensor<2x19x300xi32>, %bi: tensor<2x37x300xi32>,
                 %ati: tensor<300x19xi32>, %bti: tensor<300x37xi32>)
    -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f64>, tensor<f32>) {
  %a3 = kiln.convert %ai : tensor<2x19x300xi32> to tensor<2x19x300xf32>
  %b3 = kiln.convert %bi : tensor<2x37x300xi32> to tensor<2x37x300xf32>
  %at = kiln.convert %ati : tensor<300x19xi32> to tensor<300x19xf32>
  %kn = kiln.convert %bti : tensor<300x37xi32> to tensor<300x37xf32>
  %a = kiln.slice %a3 {starts = array<i64: 0, 0, 0>, stops = array<i64: 1, 19, 300>, strides = array<i64: 1, 1, 1>} : tensor<2x19x300xf32> -> tensor<1x19x300xf32>
  %a2 = kiln.reshape %a : tensor<1x19x300xf32> -> tensor<19x300xf32>
  %b = kiln.slice %b3 {starts = array<i64: 0, 0, 0>, stops = array<i64: 1, 37, 300>, strides = array<i64: 1, 1, 1>} : tensor<2x37x300xf32> -> tensor<1x37x300xf32>
  %nk = kiln.reshape %b : tensor<1x37x300xf32> -> tensor<37x300xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<19x37xf32>
  %c0 = linalg.fill ins(%zero : f32) outs(%empty : tensor<19x37xf32>) -> tensor<19x37xf32>

  // C = A B^T (A [M, K], B [N, K]): attention's Q K^T.
  %k0 = linalg.matmul indexing_maps = [#mk, #nk, #mn]
      ins(%a2, %nk : tensor<19x300xf32>, tensor<37x300xf32>) outs(%c0 : tensor<19x37xf32>) -> tensor<19x37xf32>
  %r0 = linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a2, %nk : tensor<19x300xf32>, tensor<37x300xf32>) outs(%c0 : tensor<19x37xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<19x37xf32>
  %d0 = func.call @distance(%k0, %r0) : (tensor<19x37xf32>, tensor<19x37xf32>) -> tensor<f32>

  // C = A^T B (A [K, M], B [K, N]): attention_grad's P^T dO.
  %k1 = linalg.matmul indexing_maps = [#km, #kn, #mn]
      ins(%at, %kn : tensor<300x19xf32>, tensor<300x37xf32>) outs(%c0 : tensor<19x37xf32>) -> tensor<19x37xf32>
  %r1 = linalg.generic {indexing_maps = [#km, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%at, %kn : tensor<300x19xf32>, tensor<300x37xf32>) outs(%c0 : tensor<19x37xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<19x37xf32>
  %d1 = func.call @distance(%k1, %r1) : (tensor<19x37xf32>, tensor<19x37xf32>) -> tensor<f32>

  // C = A^T B^T, accumulated onto a non-zero C (here C = A^T B).
  %k2 = linalg.matmul indexing_maps = [#km, #nk, #mn]
      ins(%at, %nk : tensor<300x19xf32>, tensor<37x300xf32>) outs(%r1 : tensor<19x37xf32>) -> tensor<19x37xf32>
  %r2 = linalg.generic {indexing_maps = [#km, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%at, %nk : tensor<300x19xf32>, tensor<37x300xf32>) outs(%r1 : tensor<19x37xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<19x37xf32>
  %d2 = func.call @distance(%k2, %r2) : (tensor<19x37xf32>, tensor<19x37xf32>) -> tensor<f32>

  // f64: A B^T with 8-lane vectors.
  %a64 = kiln.convert %a2 : tensor<19x300xf32> to tensor<19x300xf64>
  %nk64 = kiln.convert %nk : tensor<37x300xf32> to tensor<37x300xf64>
  %zero64 = arith.constant 0.0 : f64
  %empty64 = tensor.empty() : tensor<19x37xf64>
  %c64 = linalg.fill ins(%zero64 : f64) outs(%empty64 : tensor<19x37xf64>) -> tensor<19x37xf64>
  %k3 = linalg.matmul indexing_maps = [#mk, #nk, #mn]
      ins(%a64, %nk64 : tensor<19x300xf64>, tensor<37x300xf64>) outs(%c64 : tensor<19x37xf64>) -> tensor<19x37xf64>
  %r3 = linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a64, %nk64 : tensor<19x300xf64>, tensor<37x300xf64>) outs(%c64 : tensor<19x37xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<19x37xf64>
  %dd3 = kiln.sub %k3, %r3 : (tensor<19x37xf64>, tensor<19x37xf64>) -> tensor<19x37xf64>
  %ad3 = kiln.abs %dd3 : tensor<19x37xf64>
  %d3 = kiln.sum %ad3 {axes = array<i64: 0, 1>} : tensor<19x37xf64> -> tensor<f64>

  // batch_matmul, B transposed: [2, M, K] x [2, N, K].
  %zb = tensor.empty() : tensor<2x19x37xf32>
  %cb = linalg.fill ins(%zero : f32) outs(%zb : tensor<2x19x37xf32>) -> tensor<2x19x37xf32>
  %k4 = linalg.batch_matmul indexing_maps = [#bmk, #bnk, #bmn]
      ins(%a3, %b3 : tensor<2x19x300xf32>, tensor<2x37x300xf32>) outs(%cb : tensor<2x19x37xf32>) -> tensor<2x19x37xf32>
  %r4 = linalg.generic {indexing_maps = [#bmk, #bnk, #bmn], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a3, %b3 : tensor<2x19x300xf32>, tensor<2x37x300xf32>) outs(%cb : tensor<2x19x37xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x19x37xf32>
  %dd4 = kiln.sub %k4, %r4 : (tensor<2x19x37xf32>, tensor<2x19x37xf32>) -> tensor<2x19x37xf32>
  %ad4 = kiln.abs %dd4 : tensor<2x19x37xf32>
  %d4 = kiln.sum %ad4 {axes = array<i64: 0, 1, 2>} : tensor<2x19x37xf32> -> tensor<f32>
  return %d0, %d1, %d2, %d3, %d4 : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f64>, tensor<f32>
}

// The same forms with operands narrower than C.
func.func @check_mixed(%ai: tensor<2x19x300xi32>, %bi: tensor<2x37x300xi32>,
                       %ati: tensor<300x19xi32>, %bti: tensor<300x37xi32>)
    -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f64>, tensor<f32>) {
  %a3 = kiln.convert %ai : tensor<2x19x300xi32> to tensor<2x19x300xf32>
  %b3 = kiln.convert %bi : tensor<2x37x300xi32> to tensor<2x37x300xf32>
  %a3h = kiln.convert %ai : tensor<2x19x300xi32> to tensor<2x19x300xf16>
  %b3b = kiln.convert %bi : tensor<2x37x300xi32> to tensor<2x37x300xbf16>
  %atb = kiln.convert %ati : tensor<300x19xi32> to tensor<300x19xbf16>
  %knh = kiln.convert %bti : tensor<300x37xi32> to tensor<300x37xf16>
  %knb = kiln.convert %bti : tensor<300x37xi32> to tensor<300x37xbf16>
  %a = kiln.slice %a3 {starts = array<i64: 0, 0, 0>, stops = array<i64: 1, 19, 300>, strides = array<i64: 1, 1, 1>} : tensor<2x19x300xf32> -> tensor<1x19x300xf32>
  %a2 = kiln.reshape %a : tensor<1x19x300xf32> -> tensor<19x300xf32>
  %ah = kiln.slice %a3h {starts = array<i64: 0, 0, 0>, stops = array<i64: 1, 19, 300>, strides = array<i64: 1, 1, 1>} : tensor<2x19x300xf16> -> tensor<1x19x300xf16>
  %a2h = kiln.reshape %ah : tensor<1x19x300xf16> -> tensor<19x300xf16>
  %b = kiln.slice %b3 {starts = array<i64: 0, 0, 0>, stops = array<i64: 1, 37, 300>, strides = array<i64: 1, 1, 1>} : tensor<2x37x300xf32> -> tensor<1x37x300xf32>
  %nk = kiln.reshape %b : tensor<1x37x300xf32> -> tensor<37x300xf32>
  %nkh = kiln.convert %nk : tensor<37x300xf32> to tensor<37x300xf16>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<19x37xf32>
  %c0 = linalg.fill ins(%zero : f32) outs(%empty : tensor<19x37xf32>) -> tensor<19x37xf32>

  // f16 A B^T into f32: attention's Q K^T in half precision.
  %k0 = linalg.matmul indexing_maps = [#mk, #nk, #mn]
      ins(%a2h, %nkh : tensor<19x300xf16>, tensor<37x300xf16>) outs(%c0 : tensor<19x37xf32>) -> tensor<19x37xf32>
  %r0 = linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a2h, %nkh : tensor<19x300xf16>, tensor<37x300xf16>) outs(%c0 : tensor<19x37xf32>) {
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %xe = arith.extf %x : f16 to f32
    %ye = arith.extf %y : f16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<19x37xf32>
  %d0 = func.call @distance(%k0, %r0) : (tensor<19x37xf32>, tensor<19x37xf32>) -> tensor<f32>

  // f32 A times a bf16 B [K, N] into f32: attention's P V (B packed with
  // vector extensions, masked in the column remainder).
  %k1 = linalg.matmul ins(%a2, %knb : tensor<19x300xf32>, tensor<300x37xbf16>) outs(%c0 : tensor<19x37xf32>) -> tensor<19x37xf32>
  %r1 = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a2, %knb : tensor<19x300xf32>, tensor<300x37xbf16>) outs(%c0 : tensor<19x37xf32>) {
  ^bb0(%x: f32, %y: bf16, %acc: f32):
    %ye = arith.extf %y : bf16 to f32
    %p = arith.mulf %x, %ye : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<19x37xf32>
  %d1 = func.call @distance(%k1, %r1) : (tensor<19x37xf32>, tensor<19x37xf32>) -> tensor<f32>

  // A^T B with a bf16 A and an f16 B, accumulated onto a non-zero C.
  %k2 = linalg.matmul indexing_maps = [#km, #kn, #mn]
      ins(%atb, %knh : tensor<300x19xbf16>, tensor<300x37xf16>) outs(%r1 : tensor<19x37xf32>) -> tensor<19x37xf32>
  %r2 = linalg.generic {indexing_maps = [#km, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%atb, %knh : tensor<300x19xbf16>, tensor<300x37xf16>) outs(%r1 : tensor<19x37xf32>) {
  ^bb0(%x: bf16, %y: f16, %acc: f32):
    %xe = arith.extf %x : bf16 to f32
    %ye = arith.extf %y : f16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<19x37xf32>
  %d2 = func.call @distance(%k2, %r2) : (tensor<19x37xf32>, tensor<19x37xf32>) -> tensor<f32>

  // f32 operands into an f64 C.
  %zero64 = arith.constant 0.0 : f64
  %empty64 = tensor.empty() : tensor<19x37xf64>
  %c64 = linalg.fill ins(%zero64 : f64) outs(%empty64 : tensor<19x37xf64>) -> tensor<19x37xf64>
  %k3 = linalg.matmul indexing_maps = [#mk, #nk, #mn]
      ins(%a2, %nk : tensor<19x300xf32>, tensor<37x300xf32>) outs(%c64 : tensor<19x37xf64>) -> tensor<19x37xf64>
  %r3 = linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a2, %nk : tensor<19x300xf32>, tensor<37x300xf32>) outs(%c64 : tensor<19x37xf64>) {
  ^bb0(%x: f32, %y: f32, %acc: f64):
    %xe = arith.extf %x : f32 to f64
    %ye = arith.extf %y : f32 to f64
    %p = arith.mulf %xe, %ye : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<19x37xf64>
  %dd3 = kiln.sub %k3, %r3 : (tensor<19x37xf64>, tensor<19x37xf64>) -> tensor<19x37xf64>
  %ad3 = kiln.abs %dd3 : tensor<19x37xf64>
  %d3 = kiln.sum %ad3 {axes = array<i64: 0, 1>} : tensor<19x37xf64> -> tensor<f64>

  // batch_matmul, f16 A and a transposed bf16 B.
  %zb = tensor.empty() : tensor<2x19x37xf32>
  %cb = linalg.fill ins(%zero : f32) outs(%zb : tensor<2x19x37xf32>) -> tensor<2x19x37xf32>
  %k4 = linalg.batch_matmul indexing_maps = [#bmk, #bnk, #bmn]
      ins(%a3h, %b3b : tensor<2x19x300xf16>, tensor<2x37x300xbf16>) outs(%cb : tensor<2x19x37xf32>) -> tensor<2x19x37xf32>
  %r4 = linalg.generic {indexing_maps = [#bmk, #bnk, #bmn], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a3h, %b3b : tensor<2x19x300xf16>, tensor<2x37x300xbf16>) outs(%cb : tensor<2x19x37xf32>) {
  ^bb0(%x: f16, %y: bf16, %acc: f32):
    %xe = arith.extf %x : f16 to f32
    %ye = arith.extf %y : bf16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x19x37xf32>
  %dd4 = kiln.sub %k4, %r4 : (tensor<2x19x37xf32>, tensor<2x19x37xf32>) -> tensor<2x19x37xf32>
  %ad4 = kiln.abs %dd4 : tensor<2x19x37xf32>
  %d4 = kiln.sum %ad4 {axes = array<i64: 0, 1, 2>} : tensor<2x19x37xf32> -> tensor<f32>
  return %d0, %d1, %d2, %d3, %d4 : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f64>, tensor<f32>
}
