// RUN: kiln-opt %s --kiln-lower-to-cpu="enable-openmp outline-kernels=false" | FileCheck %s
// RUN: kiln-opt %s --kiln-lower-to-cpu="enable-openmp outline-kernels=false" | FileCheck %s --check-prefix=CLEAN
// RUN: kiln-opt %s --kiln-lower-to-cpu=outline-kernels=false | FileCheck %s --check-prefix=SEQ

// With enable-openmp the parallel dims of a linalg op become one work-shared
// loop nest in an omp.parallel region (collapsed), whose body is already in
// the llvm dialect; everything else ends in the llvm dialect as without it.
// A reduction dim stays a sequential loop inside the work-shared nest.

// CLEAN-NOT: kiln.
// CLEAN-NOT: func.func
// CLEAN-NOT: memref.
// CLEAN-NOT: linalg.
// CLEAN-NOT: scf.
// CLEAN-NOT: unrealized_conversion_cast

// CHECK-LABEL: llvm.func internal @__kiln_func_add_bias(
// CHECK: omp.parallel {
// CHECK-NEXT: omp.wsloop {
// CHECK-NEXT: omp.loop_nest (%{{.*}}, %{{.*}}) : i64 = {{.*}} collapse(2) {
// CHECK: llvm.fadd
// CHECK: omp.yield
// CHECK: omp.terminator
// CHECK-LABEL: llvm.func @_mlir_ciface_add_bias(

// SEQ-NOT: omp.
func.func @add_bias(%x: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %0 = kiln.add %x, %b : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// One work-shared loop over the rows; the sum over a row is a plain loop
// (a back edge to a block) inside it, not an OpenMP reduction.
// CHECK-LABEL: llvm.func internal @__kiln_func_row_sums(
// CHECK: omp.parallel {
// CHECK-NEXT: omp.wsloop {
// CHECK-NEXT: omp.loop_nest (%{{.*}}) : i64 =
// CHECK-NOT: reduction
// CHECK: llvm.cond_br
// CHECK: llvm.fadd
// CHECK: llvm.br ^
// CHECK: omp.yield
func.func @row_sums(%x: tensor<4x9xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x9xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %sum : tensor<4xf32>
}

// Matmuls are left to the matmul lowering (register-tiled vector kernels for
// f32/f64), on one thread: only the zero fill of the result is an omp
// region, the kernel's fused multiply-adds come after it.
// CHECK-LABEL: llvm.func internal @__kiln_func_matmul(
// CHECK: omp.parallel {
// CHECK: omp.terminator
// CHECK-NOT: omp.parallel
// CHECK: llvm.intr.fmuladd
// CHECK-NOT: omp.parallel
// CHECK: llvm.return
func.func @matmul(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %0 = kiln.matmul %a, %b : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}
