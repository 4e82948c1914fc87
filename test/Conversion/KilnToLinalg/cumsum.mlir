// RUN: kiln-opt %s --convert-kiln-to-linalg=index-add-thread-per-column --split-input-file | FileCheck %s --check-prefixes=CHECK,COLUMNS
// RUN: kiln-opt %s --convert-kiln-to-linalg --split-input-file | FileCheck %s --check-prefixes=CHECK,ROWS
// RUN: kiln-opt %s --split-input-file --kiln-lower-to-cpu=outline-kernels=false --mlir-print-ir-before=kiln-matmul-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUF

// The column form (index-add-thread-per-column, the GPU's): one thread per
// position of the non-axis dims; it carries the running sum from 0, adds
// x[a, k, b] in axis order and writes each sum into its column.
// COLUMNS-LABEL: func.func @middle_axis
// COLUMNS-SAME: (%[[X:.*]]: tensor<2x5x3xf32>)
// COLUMNS: %[[EMPTY:.*]] = tensor.empty() : tensor<2x5x3xf32>
// COLUMNS: %[[R:.*]] = scf.forall (%[[A:.*]], %[[B:.*]]) in (2, 3) shared_outs(%[[OUT:.*]] = %[[EMPTY]]) -> (tensor<2x5x3xf32>) {
// COLUMNS: %[[COL:.*]] = tensor.extract_slice %[[OUT]][%[[A]], 0, %[[B]]] [1, 5, 1] [1, 1, 1] : tensor<2x5x3xf32> to tensor<5xf32>
// COLUMNS-DAG: %[[C0:.*]] = arith.constant 0 : index
// COLUMNS-DAG: %[[C5:.*]] = arith.constant 5 : index
// COLUMNS-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// COLUMNS: %[[SCAN:.*]]:2 = scf.for %[[K:.*]] = %[[C0]] to %[[C5]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[COL]], %[[RSUM:.*]] = %[[ZERO]]) -> (tensor<5xf32>, f32) {
// COLUMNS: %[[V:.*]] = tensor.extract %[[X]][%[[A]], %[[K]], %[[B]]] : tensor<2x5x3xf32>
// COLUMNS: %[[SUM:.*]] = arith.addf %[[RSUM]], %[[V]] : f32
// COLUMNS: %[[INS:.*]] = tensor.insert %[[SUM]] into %[[ACC]][%[[K]]] : tensor<5xf32>
// COLUMNS: scf.yield %[[INS]], %[[SUM]] : tensor<5xf32>, f32
// COLUMNS: scf.forall.in_parallel {
// COLUMNS: tensor.parallel_insert_slice %[[SCAN]]#0 into %[[OUT]][%[[A]], 0, %[[B]]] [1, 5, 1] [1, 1, 1] : tensor<5xf32> into tensor<2x5x3xf32>
// COLUMNS: return %[[R]]

// The row-chunk form (the default, the CPU's): one thread per position of
// the dims before the axis and chunk of the positions after it (here one
// chunk of 3). The first row is 0 + x, every later row the previous row
// plus x, element by element along the chunk.
// ROWS-LABEL: func.func @middle_axis
// ROWS-SAME: (%[[X:.*]]: tensor<2x5x3xf32>)
// ROWS: %[[EMPTY:.*]] = tensor.empty() : tensor<2x5x3xf32>
// ROWS: %[[R:.*]] = scf.forall (%[[A:.*]], %{{.*}}) in (2, 1) shared_outs(%[[OUT:.*]] = %[[EMPTY]]) -> (tensor<2x5x3xf32>) {
// ROWS-DAG: %[[C0:.*]] = arith.constant 0 : index
// ROWS-DAG: %[[C1:.*]] = arith.constant 1 : index
// ROWS-DAG: %[[C3:.*]] = arith.constant 3 : index
// ROWS: %[[PART:.*]] = tensor.extract_slice %[[OUT]][%[[A]], 0, 0] [1, 5, 3] [1, 1, 1] : tensor<2x5x3xf32> to tensor<5x3xf32>
// ROWS-DAG: %[[C5:.*]] = arith.constant 5 : index
// ROWS: %[[FIRST:.*]] = scf.for %[[J:.*]] = %[[C0]] to %[[C3]] step %[[C1]] iter_args(%[[P:.*]] = %[[PART]]) -> (tensor<5x3xf32>) {
// ROWS: %[[V:.*]] = tensor.extract %[[X]][%[[A]], %[[C0]], %[[J]]] : tensor<2x5x3xf32>
// ROWS: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// ROWS: %[[S:.*]] = arith.addf %[[ZERO]], %[[V]] : f32
// ROWS: tensor.insert %[[S]] into %[[P]][%[[C0]], %[[J]]] : tensor<5x3xf32>
// ROWS: %[[SCAN:.*]] = scf.for %[[K:.*]] = %[[C1]] to %[[C5]] step %[[C1]] iter_args(%[[Q:.*]] = %[[FIRST]]) -> (tensor<5x3xf32>) {
// ROWS: %[[PREV:.*]] = arith.subi %[[K]], %[[C1]] : index
// ROWS: %[[ROW:.*]] = scf.for %[[J2:.*]] = %[[C0]] to %[[C3]] step %[[C1]] iter_args(%[[Q2:.*]] = %[[Q]]) -> (tensor<5x3xf32>) {
// ROWS: %[[V2:.*]] = tensor.extract %[[X]][%[[A]], %[[K]], %[[J2]]] : tensor<2x5x3xf32>
// ROWS: %[[OLD:.*]] = tensor.extract %[[Q2]][%[[PREV]], %[[J2]]] : tensor<5x3xf32>
// ROWS: %[[S2:.*]] = arith.addf %[[OLD]], %[[V2]] : f32
// ROWS: %[[INS:.*]] = tensor.insert %[[S2]] into %[[Q2]][%[[K]], %[[J2]]] : tensor<5x3xf32>
// ROWS: scf.yield %[[INS]]
// ROWS: scf.yield %[[ROW]]
// ROWS: scf.forall.in_parallel {
// ROWS: tensor.parallel_insert_slice %[[SCAN]] into %[[OUT]][%[[A]], 0, 0] [1, 5, 3] [1, 1, 1] : tensor<5x3xf32> into tensor<2x5x3xf32>
// ROWS: return %[[R]]

// Bufferized, the thread's part is a subview of the result: no copy per
// step, no triangular matrix, no matmul.
// BUF-LABEL: func.func @__kiln_func_middle_axis
// BUF-NOT: linalg.matmul
// BUF: scf.parallel
// BUF: memref.subview
// BUF: scf.for
// BUF: scf.for
// BUF-NOT: memref.copy
// BUF: return
func.func @middle_axis(%x: tensor<2x5x3xf32>) -> tensor<2x5x3xf32> {
  %0 = kiln.cumsum %x {axis = 1 : i64} : tensor<2x5x3xf32>
  return %0 : tensor<2x5x3xf32>
}

// -----

// reverse: step k is at position n - 1 - k, and the previous row is the
// next one. bf16 sums in f32: the column form rounds each sum as it writes
// it; the row form scans an f32 copy (it reads its previous outputs back)
// and rounds it afterwards. Several dims after the axis collapse into one
// (2 x 150 = 300 = chunks of 128, 128 and 44: the width is dynamic).
// CHECK-LABEL: func.func @reverse_bf16
// CHECK-SAME: (%[[X:.*]]: tensor<4x2x150xbf16>)
// COLUMNS: %[[EMPTY:.*]] = tensor.empty() : tensor<4x2x150xbf16>
// COLUMNS: scf.forall (%{{.*}}, %{{.*}}) in (2, 150) shared_outs(%{{.*}} = %[[EMPTY]]) -> (tensor<4x2x150xbf16>) {
// COLUMNS-DAG: %[[C3:.*]] = arith.constant 3 : index
// COLUMNS-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// COLUMNS: scf.for %[[K:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[RSUM:.*]] = %[[ZERO]]) -> (tensor<4xbf16>, f32) {
// COLUMNS: %[[I:.*]] = arith.subi %[[C3]], %[[K]] : index
// COLUMNS: %[[V:.*]] = tensor.extract %[[X]][%[[I]], %{{.*}}, %{{.*}}] : tensor<4x2x150xbf16>
// COLUMNS: %[[W:.*]] = arith.extf %[[V]] : bf16 to f32
// COLUMNS: %[[SUM:.*]] = arith.addf %[[RSUM]], %[[W]] : f32
// COLUMNS: %[[OUT:.*]] = arith.truncf %[[SUM]] : f32 to bf16
// COLUMNS: tensor.insert %[[OUT]] into %[[ACC]][%[[I]]] : tensor<4xbf16>
// COLUMNS: scf.yield %{{.*}}, %[[SUM]] : tensor<4xbf16>, f32
// COLUMNS-NOT: linalg.generic
// ROWS: %[[XC:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0], [1, 2]] : tensor<4x2x150xbf16> into tensor<4x300xbf16>
// ROWS: %[[EMPTY:.*]] = tensor.empty() : tensor<4x300xf32>
// ROWS: %[[R:.*]] = scf.forall (%[[T:.*]]) in (3) shared_outs(%[[SH:.*]] = %[[EMPTY]]) -> (tensor<4x300xf32>) {
// ROWS-DAG: %[[C128:.*]] = arith.constant 128 : index
// ROWS: %[[START:.*]] = arith.muli %[[T]], %[[C128]] : index
// ROWS: %[[REST:.*]] = arith.subi %{{.*}}, %[[START]] : index
// ROWS: %[[WIDTH:.*]] = arith.minsi %[[REST]], %[[C128]] : index
// ROWS: tensor.extract_slice %[[SH]][0, %[[START]]] [4, %[[WIDTH]]] [1, 1] : tensor<4x300xf32> to tensor<4x?xf32>
// ROWS-DAG: %[[C4:.*]] = arith.constant 4 : index
// ROWS-DAG: %[[C3:.*]] = arith.constant 3 : index
// ROWS: scf.for %[[J:.*]] = %{{.*}} to %[[WIDTH]]
// ROWS: %[[POS:.*]] = arith.addi %[[START]], %[[J]] : index
// ROWS: tensor.extract %[[XC]][%[[C3]], %[[POS]]] : tensor<4x300xbf16>
// ROWS: arith.extf
// ROWS: tensor.insert %{{.*}} into %{{.*}}[%[[C3]], %[[J]]] : tensor<4x?xf32>
// ROWS: scf.for %[[K:.*]] = %{{.*}} to %[[C4]]
// ROWS: %[[I:.*]] = arith.subi %[[C3]], %[[K]] : index
// ROWS: %[[NEXT:.*]] = arith.addi %[[I]], %{{.*}} : index
// ROWS: scf.for %[[J2:.*]] = %{{.*}} to %[[WIDTH]]
// ROWS: tensor.extract %[[XC]][%[[I]], %{{.*}}] : tensor<4x300xbf16>
// ROWS: tensor.extract %{{.*}}[%[[NEXT]], %[[J2]]] : tensor<4x?xf32>
// ROWS: tensor.insert %{{.*}} into %{{.*}}[%[[I]], %[[J2]]] : tensor<4x?xf32>
// ROWS: tensor.parallel_insert_slice %{{.*}} into %[[SH]][0, %[[START]]] [4, %[[WIDTH]]] [1, 1] : tensor<4x?xf32> into tensor<4x300xf32>
// ROWS: %[[E:.*]] = tensor.expand_shape %[[R]] {{\[}}[0], [1, 2]] output_shape [4, 2, 150] : tensor<4x300xf32> into tensor<4x2x150xf32>
// ROWS: linalg.generic
// ROWS-SAME: ins(%[[E]] : tensor<4x2x150xf32>)
// ROWS: arith.truncf %{{.*}} : f32 to bf16
func.func @reverse_bf16(%x: tensor<4x2x150xbf16>) -> tensor<4x2x150xbf16> {
  %0 = kiln.cumsum %x {axis = 0 : i64, reverse = true} : tensor<4x2x150xbf16>
  return %0 : tensor<4x2x150xbf16>
}

// -----

// The last axis: a column is contiguous, so both options give the column
// form. i1 sums with a logical or from false.
// CHECK-LABEL: func.func @last_axis_i1
// CHECK-SAME: (%[[X:.*]]: tensor<3x7xi1>)
// CHECK: scf.forall (%[[A:.*]]) in (3) shared_outs
// CHECK: %[[FALSE:.*]] = arith.constant false
// CHECK: scf.for %[[K:.*]] = {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[RSUM:.*]] = %[[FALSE]]) -> (tensor<7xi1>, i1) {
// CHECK: %[[V:.*]] = tensor.extract %[[X]][%[[A]], %[[K]]] : tensor<3x7xi1>
// CHECK: arith.ori %[[RSUM]], %[[V]] : i1
func.func @last_axis_i1(%x: tensor<3x7xi1>) -> tensor<3x7xi1> {
  %0 = kiln.cumsum %x {axis = 1 : i64} : tensor<3x7xi1>
  return %0 : tensor<3x7xi1>
}

// -----

// Integers add with wrap-around in their type.
// CHECK-LABEL: func.func @first_axis_i8
// COLUMNS: %[[ZERO:.*]] = arith.constant 0 : i8
// COLUMNS: iter_args(%{{.*}} = %{{.*}}, %[[RSUM:.*]] = %[[ZERO]]) -> (tensor<6xi8>, i8)
// COLUMNS: arith.addi %[[RSUM]], %{{.*}} : i8
// ROWS: %[[ZERO:.*]] = arith.constant 0 : i8
// ROWS: arith.addi %[[ZERO]], %{{.*}} : i8
// ROWS: arith.addi %{{.*}}, %{{.*}} : i8
func.func @first_axis_i8(%x: tensor<6x4xi8>) -> tensor<6x4xi8> {
  %0 = kiln.cumsum %x {axis = 0 : i64} : tensor<6x4xi8>
  return %0 : tensor<6x4xi8>
}

// -----

// An empty tensor has nothing to sum: the input is the result.
// CHECK-LABEL: func.func @empty
// CHECK-SAME: (%[[X:.*]]: tensor<2x0xi32>)
// CHECK-NEXT: return %[[X]] : tensor<2x0xi32>
func.func @empty(%x: tensor<2x0xi32>) -> tensor<2x0xi32> {
  %0 = kiln.cumsum %x {axis = 1 : i64} : tensor<2x0xi32>
  return %0 : tensor<2x0xi32>
}
