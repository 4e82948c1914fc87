// RUN: kiln-opt %s --convert-kiln-to-linalg=index-add-thread-per-column --split-input-file | FileCheck %s --check-prefixes=CHECK,COLUMNS
// RUN: kiln-opt %s --convert-kiln-to-linalg --split-input-file | FileCheck %s --check-prefixes=CHECK,ROWS
// RUN: kiln-opt %s --split-input-file --kiln-lower-to-cpu=outline-kernels=false --mlir-print-ir-before=kiln-matmul-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUF

// The column form (index-add-thread-per-column, the GPU's): one thread per
// position of the non-axis dims; it extracts its column of the shared
// output, adds source[a, i, b] at the clamped indices[i] in index order, and
// writes the column back.
// COLUMNS-LABEL: func.func @middle_axis
// COLUMNS-SAME: (%[[X:.*]]: tensor<2x5x3xf32>, %[[I:.*]]: tensor<4xi32>, %[[S:.*]]: tensor<2x4x3xf32>)
// COLUMNS: %[[R:.*]] = scf.forall (%[[A:.*]], %[[B:.*]]) in (2, 3) shared_outs(%[[OUT:.*]] = %[[X]]) -> (tensor<2x5x3xf32>) {
// COLUMNS: %[[COL:.*]] = tensor.extract_slice %[[OUT]][%[[A]], 0, %[[B]]] [1, 5, 1] [1, 1, 1] : tensor<2x5x3xf32> to tensor<5xf32>
// COLUMNS-DAG: %[[C0:.*]] = arith.constant 0 : index
// COLUMNS-DAG: %[[LAST:.*]] = arith.constant 4 : index
// COLUMNS: %[[SUM:.*]] = scf.for %[[K:.*]] = %[[C0]] to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[COL]]) -> (tensor<5xf32>) {
// COLUMNS: %[[RAW:.*]] = tensor.extract %[[I]][%[[K]]] : tensor<4xi32>
// COLUMNS: %[[IDX0:.*]] = arith.index_cast %[[RAW]] : i32 to index
// COLUMNS: %[[IDX1:.*]] = arith.maxsi %[[IDX0]], %[[C0]] : index
// COLUMNS: %[[IDX:.*]] = arith.minsi %[[IDX1]], %[[LAST]] : index
// COLUMNS: %[[U:.*]] = tensor.extract %[[S]][%[[A]], %[[K]], %[[B]]] : tensor<2x4x3xf32>
// COLUMNS: %[[OLD:.*]] = tensor.extract %[[ACC]][%[[IDX]]] : tensor<5xf32>
// COLUMNS: %[[NEW:.*]] = arith.addf %[[OLD]], %[[U]] : f32
// COLUMNS: %[[INS:.*]] = tensor.insert %[[NEW]] into %[[ACC]][%[[IDX]]] : tensor<5xf32>
// COLUMNS: scf.yield %[[INS]] : tensor<5xf32>
// COLUMNS: scf.forall.in_parallel {
// COLUMNS: tensor.parallel_insert_slice %[[SUM]] into %[[OUT]][%[[A]], 0, %[[B]]] [1, 5, 1] [1, 1, 1] : tensor<5xf32> into tensor<2x5x3xf32>
// COLUMNS: return %[[R]]

// The row-chunk form (the default, the CPU's): one thread per position of
// the dims before the axis and chunk of the positions after it (here one
// chunk of 3), which adds the chunk of each source row in index order;
// fewer elements than a vector go one at a time.
// ROWS-LABEL: func.func @middle_axis
// ROWS-SAME: (%[[X:.*]]: tensor<2x5x3xf32>, %[[I:.*]]: tensor<4xi32>, %[[S:.*]]: tensor<2x4x3xf32>)
// ROWS: %[[R:.*]] = scf.forall (%[[A:.*]], %{{.*}}) in (2, 1) shared_outs(%[[OUT:.*]] = %[[X]]) -> (tensor<2x5x3xf32>) {
// ROWS: %[[PART:.*]] = tensor.extract_slice %[[OUT]][%[[A]], 0, 0] [1, 5, 3] [1, 1, 1] : tensor<2x5x3xf32> to tensor<5x3xf32>
// ROWS: %[[SUM:.*]] = scf.for %[[K:.*]] = %{{.*}} iter_args(%[[ACC:.*]] = %[[PART]]) -> (tensor<5x3xf32>) {
// ROWS: tensor.extract %[[I]][%[[K]]] : tensor<4xi32>
// ROWS: %[[IDX:.*]] = arith.minsi
// ROWS: %[[ROW:.*]] = scf.for %[[J:.*]] = %{{.*}} iter_args(%[[RACC:.*]] = %[[ACC]]) -> (tensor<5x3xf32>) {
// ROWS: %[[U:.*]] = tensor.extract %[[S]][%[[A]], %[[K]], %{{.*}}] : tensor<2x4x3xf32>
// ROWS: %[[OLD:.*]] = tensor.extract %[[RACC]][%[[IDX]], %[[J]]] : tensor<5x3xf32>
// ROWS: %[[NEW:.*]] = arith.addf %[[OLD]], %[[U]] : f32
// ROWS: tensor.insert %[[NEW]] into %[[RACC]][%[[IDX]], %[[J]]] : tensor<5x3xf32>
// ROWS: scf.yield %[[ROW]] : tensor<5x3xf32>
// ROWS: tensor.parallel_insert_slice %[[SUM]] into %[[OUT]][%[[A]], 0, 0] [1, 5, 3] [1, 1, 1] : tensor<5x3xf32> into tensor<2x5x3xf32>
// ROWS: return %[[R]]

// After bufferization: an scf.parallel whose threads update their part of
// the result in place; no allocation or copy per index or per thread.
// BUF-LABEL: func.func @__kiln_func_middle_axis
// BUF: memref.copy %arg0, %[[RES:.*]] : memref<2x5x3xf32> to memref<2x5x3xf32>
// BUF-NEXT: scf.parallel
// BUF-NEXT: %[[PART:.*]] = memref.subview %[[RES]]
// BUF-NEXT: scf.for
// BUF-NOT: memref.alloc
// BUF-NOT: memref.copy
// BUF: memref.store %{{.*}}, %[[PART]][%{{.*}}]
// BUF-NOT: memref.alloc
// BUF-NOT: memref.copy
// BUF: return
func.func @middle_axis(%x: tensor<2x5x3xf32>, %i: tensor<4xi32>, %s: tensor<2x4x3xf32>) -> tensor<2x5x3xf32> {
  %0 = kiln.index_add %x, %i, %s {axis = 1 : i64} : (tensor<2x5x3xf32>, tensor<4xi32>, tensor<2x4x3xf32>) -> tensor<2x5x3xf32>
  return %0 : tensor<2x5x3xf32>
}

// -----

// Whole vectors of 512 bits: two chunks of 128 elements (8 vectors of 16
// f32), each added per index with transfer_read/transfer_write at the
// clamped index, nothing element by element.
// ROWS-LABEL: func.func @rows
// ROWS-SAME: (%[[X:.*]]: tensor<10x256xf32>, %[[I:.*]]: tensor<6xi64>, %[[S:.*]]: tensor<6x256xf32>)
// ROWS: %[[R:.*]] = scf.forall (%[[C:.*]]) in (2) shared_outs(%[[OUT:.*]] = %[[X]]) -> (tensor<10x256xf32>) {
// ROWS: %[[C128:.*]] = arith.constant 128 : index
// ROWS: %[[START:.*]] = arith.muli %[[C]], %[[C128]] : index
// ROWS: %[[PART:.*]] = tensor.extract_slice %[[OUT]][0, %[[START]]] [10, 128] [1, 1] : tensor<10x256xf32> to tensor<10x128xf32>
// ROWS: %[[SUM:.*]] = scf.for %[[K:.*]] = %{{.*}} iter_args(%[[ACC:.*]] = %[[PART]]) -> (tensor<10x128xf32>) {
// ROWS: tensor.extract %[[I]][%[[K]]] : tensor<6xi64>
// ROWS: %[[IDX:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// ROWS: %[[C16:.*]] = arith.constant 16 : index
// ROWS: %[[ROW:.*]] = scf.for %[[J:.*]] = %{{.*}} to %[[C128]] step %[[C16]] iter_args(%[[RACC:.*]] = %[[ACC]]) -> (tensor<10x128xf32>) {
// ROWS: %[[COL:.*]] = arith.addi %[[START]], %[[J]] : index
// ROWS: %[[U:.*]] = vector.transfer_read %[[S]][%[[K]], %[[COL]]], %{{.*}} {in_bounds = [true]} : tensor<6x256xf32>, vector<16xf32>
// ROWS: %[[OLD:.*]] = vector.transfer_read %[[RACC]][%[[IDX]], %[[J]]], %{{.*}} {in_bounds = [true]} : tensor<10x128xf32>, vector<16xf32>
// ROWS: %[[NEW:.*]] = arith.addf %[[OLD]], %[[U]] : vector<16xf32>
// ROWS: %[[W:.*]] = vector.transfer_write %[[NEW]], %[[RACC]][%[[IDX]], %[[J]]] {in_bounds = [true]} : vector<16xf32>, tensor<10x128xf32>
// ROWS: scf.yield %[[W]]
// ROWS-NOT: tensor.insert
// ROWS: scf.yield %[[ROW]]
// ROWS: tensor.parallel_insert_slice %[[SUM]] into %[[OUT]][0, %[[START]]] [10, 128] [1, 1]
// ROWS: return %[[R]]

// COLUMNS-LABEL: func.func @rows
// COLUMNS: scf.forall (%{{.*}}) in (256)
// COLUMNS-NOT: vector.transfer_read

// In place after bufferization, the vectors on the thread's part.
// BUF-LABEL: func.func @__kiln_func_rows
// BUF: memref.copy %arg0, %[[RES:.*]] : memref<10x256xf32> to memref<10x256xf32>
// BUF-NEXT: scf.parallel
// BUF: %[[PART:.*]] = memref.subview %[[RES]]
// BUF-NEXT: scf.for
// BUF-NOT: memref.alloc
// BUF-NOT: memref.copy
// BUF: vector.transfer_write %{{.*}}, %[[PART]]
// BUF-NOT: memref.alloc
// BUF-NOT: memref.copy
// BUF: return
func.func @rows(%x: tensor<10x256xf32>, %i: tensor<6xi64>, %s: tensor<6x256xf32>) -> tensor<10x256xf32> {
  %0 = kiln.index_add %x, %i, %s {axis = 0 : i64} : (tensor<10x256xf32>, tensor<6xi64>, tensor<6x256xf32>) -> tensor<10x256xf32>
  return %0 : tensor<10x256xf32>
}

// -----

// Several dims after the axis collapse into one (3 x 100 = 300: chunks of
// 128, 128 and 44); a chunk's width is then computed, and what is left after
// its whole vectors is added element by element.
// ROWS-LABEL: func.func @uneven_chunks
// ROWS-SAME: (%[[X:.*]]: tensor<2x4x3x100xf32>, %[[I:.*]]: tensor<5xi32>, %[[S:.*]]: tensor<2x5x3x100xf32>)
// ROWS: %[[XC:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0], [1], [2, 3]] : tensor<2x4x3x100xf32> into tensor<2x4x300xf32>
// ROWS: %[[SC:.*]] = tensor.collapse_shape %[[S]] {{\[}}[0], [1], [2, 3]] : tensor<2x5x3x100xf32> into tensor<2x5x300xf32>
// ROWS: %[[R:.*]] = scf.forall (%[[A:.*]], %[[C:.*]]) in (2, 3) shared_outs(%[[OUT:.*]] = %[[XC]])
// ROWS: %[[START:.*]] = arith.muli %[[C]], %[[C128:.*]] : index
// ROWS: %[[REST:.*]] = arith.subi %{{.*}}, %[[START]] : index
// ROWS: %[[W:.*]] = arith.minsi %[[REST]], %[[C128]] : index
// ROWS: %[[PART:.*]] = tensor.extract_slice %[[OUT]][%[[A]], 0, %[[START]]] [1, 4, %[[W]]] [1, 1, 1] : tensor<2x4x300xf32> to tensor<4x?xf32>
// ROWS: %[[TAIL:.*]] = arith.remui %[[W]], %{{.*}} : index
// ROWS: %[[VEND:.*]] = arith.subi %[[W]], %[[TAIL]] : index
// ROWS: scf.for
// ROWS: %[[VROW:.*]] = scf.for %{{.*}} = %{{.*}} to %[[VEND]] step
// ROWS: vector.transfer_read %[[SC]]
// ROWS: scf.for %[[J:.*]] = %[[VEND]] to %[[W]] step %{{.*}} iter_args(%{{.*}} = %[[VROW]])
// ROWS: tensor.extract %[[SC]]
// ROWS: tensor.insert
// ROWS: tensor.parallel_insert_slice %{{.*}} into %[[OUT]][%[[A]], 0, %[[START]]] [1, 4, %[[W]]] [1, 1, 1]
// ROWS: %[[E:.*]] = tensor.expand_shape %[[R]] {{\[}}[0], [1], [2, 3]] output_shape [2, 4, 3, 100]
// ROWS: return %[[E]]

// COLUMNS-LABEL: func.func @uneven_chunks
// COLUMNS: scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) in (2, 3, 100)
func.func @uneven_chunks(%x: tensor<2x4x3x100xf32>, %i: tensor<5xi32>, %s: tensor<2x5x3x100xf32>) -> tensor<2x4x3x100xf32> {
  %0 = kiln.index_add %x, %i, %s {axis = 1 : i64} : (tensor<2x4x3x100xf32>, tensor<5xi32>, tensor<2x5x3x100xf32>) -> tensor<2x4x3x100xf32>
  return %0 : tensor<2x4x3x100xf32>
}

// -----

// The last axis: a column is contiguous, and both forms are the column form.
// CHECK-LABEL: func.func @last_axis
// CHECK: scf.forall (%[[A:.*]]) in (3) shared_outs
// CHECK: tensor.extract_slice %{{.*}}[%[[A]], 0] [1, 7] [1, 1] : tensor<3x7xf32> to tensor<7xf32>
// CHECK-NOT: vector.transfer_read
// CHECK: tensor.insert
// CHECK-NOT: vector.transfer_read
// CHECK: return
func.func @last_axis(%x: tensor<3x7xf32>, %i: tensor<9xi64>, %s: tensor<3x9xf32>) -> tensor<3x7xf32> {
  %0 = kiln.index_add %x, %i, %s {axis = 1 : i64} : (tensor<3x7xf32>, tensor<9xi64>, tensor<3x9xf32>) -> tensor<3x7xf32>
  return %0 : tensor<3x7xf32>
}

// -----

// A splat dest (an adjoint's zeros) is filled, not copied from a constant.
// CHECK-LABEL: func.func @zeros_dest
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<10x4xf32>
// CHECK: %[[FILL:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<10x4xf32>) -> tensor<10x4xf32>
// COLUMNS: scf.forall (%{{.*}}) in (4) shared_outs(%{{.*}} = %[[FILL]])
// ROWS: scf.forall (%{{.*}}) in (1) shared_outs(%{{.*}} = %[[FILL]])

// Filled in the caller's result buffer, then updated in place by the one
// thread, whose forall the canonicalizer inlined.
// BUF-LABEL: func.func @__kiln_func_zeros_dest
// BUF-SAME: %[[RES:[^:]*]]: memref<10x4xf32>)
// BUF-NOT: memref.get_global
// BUF: linalg.fill ins(%{{.*}} : f32) outs(%[[RES]] : memref<10x4xf32>)
// BUF-NEXT: scf.for
// BUF-NOT: memref.copy
// BUF: memref.store %{{.*}}, %[[RES]]
// BUF-NOT: memref.copy
// BUF: return
func.func @zeros_dest(%g: tensor<6x4xf32>, %ids: tensor<6xi64>) -> tensor<10x4xf32> {
  %z = kiln.constant dense<0.0> : tensor<10x4xf32>
  %0 = kiln.index_add %z, %ids, %g {axis = 0 : i64} : (tensor<10x4xf32>, tensor<6xi64>, tensor<6x4xf32>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}

// -----

// A one-iteration forall (a rank-1 dest, whose one column is one thread; a
// row of one chunk) is inlined by the canonicalizer, which leaves the
// result a loop-carried tensor; bufferized, the loop carries the result
// buffer unchanged, and the canonicalizer that runs before
// buffer-results-to-out-params folds it away, so the result is computed in
// the caller's buffer: dest is copied in once and never copied out.
// BUF-LABEL: func.func @__kiln_func_rank1
// BUF-SAME: (%[[X:[^:]*]]: memref<30xf32>, %{{[^:]*}}: memref<100xi64>, %{{[^:]*}}: memref<100xf32>, %[[RES:[^:]*]]: memref<30xf32>)
// BUF-NOT: memref.alloc
// BUF: memref.copy %[[X]], %[[RES]]
// BUF-NEXT: scf.for
// BUF-NOT: memref.alloc
// BUF-NOT: memref.copy
// BUF: memref.store %{{.*}}, %[[RES]]
// BUF-NOT: memref.copy
// BUF: return
// BUF-LABEL: func.func @__kiln_func_one_chunk
// BUF-SAME: (%[[X:[^:]*]]: memref<5x100xf32>, %{{[^:]*}}: memref<7xi64>, %{{[^:]*}}: memref<7x100xf32>, %[[RES:[^:]*]]: memref<5x100xf32>)
// BUF-NOT: memref.alloc
// BUF: memref.copy %[[X]], %[[RES]]
// BUF-NEXT: scf.for
// BUF-NOT: memref.alloc
// BUF-NOT: memref.copy
// BUF: vector.transfer_write %{{.*}}, %[[RES]]
// BUF-NOT: memref.copy
// BUF: memref.store %{{.*}}, %[[RES]]
// BUF-NOT: memref.copy
// BUF: return
func.func @rank1(%x: tensor<30xf32>, %i: tensor<100xi64>, %s: tensor<100xf32>) -> tensor<30xf32> {
  %0 = kiln.index_add %x, %i, %s {axis = 0 : i64} : (tensor<30xf32>, tensor<100xi64>, tensor<100xf32>) -> tensor<30xf32>
  return %0 : tensor<30xf32>
}
func.func @one_chunk(%x: tensor<5x100xf32>, %i: tensor<7xi64>, %s: tensor<7x100xf32>) -> tensor<5x100xf32> {
  %0 = kiln.index_add %x, %i, %s {axis = 0 : i64} : (tensor<5x100xf32>, tensor<7xi64>, tensor<7x100xf32>) -> tensor<5x100xf32>
  return %0 : tensor<5x100xf32>
}

// -----

// bf16 rows: bf16 vectors widened to f32 vectors.
// ROWS-LABEL: func.func @bf16_rows
// ROWS: %[[U:.*]] = vector.transfer_read %{{.*}} : tensor<4x32xbf16>, vector<16xbf16>
// ROWS: %[[OLD:.*]] = vector.transfer_read %{{.*}} : tensor<3x32xf32>, vector<16xf32>
// ROWS: %[[UW:.*]] = arith.extf %[[U]] : vector<16xbf16> to vector<16xf32>
// ROWS: arith.addf %[[OLD]], %[[UW]] : vector<16xf32>
// COLUMNS-LABEL: func.func @bf16_rows
// COLUMNS: arith.extf %{{.*}} : bf16 to f32
func.func @bf16_rows(%x: tensor<3x32xbf16>, %i: tensor<4xi64>, %s: tensor<4x32xbf16>) -> tensor<3x32xbf16> {
  %0 = kiln.index_add %x, %i, %s {axis = 0 : i64} : (tensor<3x32xbf16>, tensor<4xi64>, tensor<4x32xbf16>) -> tensor<3x32xbf16>
  return %0 : tensor<3x32xbf16>
}

// -----

// bf16 accumulates in f32: dest widened once, updates widened, one rounding.
// CHECK-LABEL: func.func @bf16
// CHECK: %[[WIDE:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<5xbf16>) outs(%{{.*}} : tensor<5xf32>)
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: %[[R:.*]] = scf.forall {{.*}} shared_outs(%{{.*}} = %[[WIDE]]) -> (tensor<5xf32>)
// CHECK: %[[U:.*]] = tensor.extract %{{.*}} : tensor<4xbf16>
// CHECK: %[[UW:.*]] = arith.extf %[[U]] : bf16 to f32
// CHECK: arith.addf %{{.*}}, %[[UW]] : f32
// CHECK: linalg.generic {{.*}} ins(%[[R]] : tensor<5xf32>) outs(%{{.*}} : tensor<5xbf16>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @bf16(%x: tensor<5xbf16>, %i: tensor<4xi64>, %s: tensor<4xbf16>) -> tensor<5xbf16> {
  %0 = kiln.index_add %x, %i, %s {axis = 0 : i64} : (tensor<5xbf16>, tensor<4xi64>, tensor<4xbf16>) -> tensor<5xbf16>
  return %0 : tensor<5xbf16>
}

// -----

// Integers wrap (addi); i1 adds with a logical or, never in vectors (a
// byte per element in memory, a bit per lane in a vector).
// CHECK-LABEL: func.func @integers
// CHECK: arith.addi %{{.*}}, %{{.*}} : i8
// CHECK: arith.ori %{{.*}}, %{{.*}} : i1
// CHECK-NOT: vector.transfer_read
// CHECK: arith.ori %{{.*}}, %{{.*}} : i1
// CHECK: return
func.func @integers(%x: tensor<3x2xi8>, %i: tensor<2xi32>, %s: tensor<2x2xi8>, %b: tensor<4xi1>, %j: tensor<3xi64>, %t: tensor<3xi1>, %bb: tensor<3x100xi1>, %tt: tensor<4x100xi1>, %jj: tensor<4xi64>) -> (tensor<3x2xi8>, tensor<4xi1>, tensor<3x100xi1>) {
  %0 = kiln.index_add %x, %i, %s {axis = 0 : i64} : (tensor<3x2xi8>, tensor<2xi32>, tensor<2x2xi8>) -> tensor<3x2xi8>
  %1 = kiln.index_add %b, %j, %t {axis = 0 : i64} : (tensor<4xi1>, tensor<3xi64>, tensor<3xi1>) -> tensor<4xi1>
  %2 = kiln.index_add %bb, %jj, %tt {axis = 0 : i64} : (tensor<3x100xi1>, tensor<4xi64>, tensor<4x100xi1>) -> tensor<3x100xi1>
  return %0, %1, %2 : tensor<3x2xi8>, tensor<4xi1>, tensor<3x100xi1>
}

// -----

// No indices: the result is dest.
// CHECK-LABEL: func.func @no_indices
// CHECK-SAME: (%[[X:.*]]: tensor<5x4xf32>,
// CHECK-NOT: scf.forall
// CHECK: return %[[X]]
func.func @no_indices(%x: tensor<5x4xf32>, %i: tensor<0xi64>, %s: tensor<0x4xf32>) -> tensor<5x4xf32> {
  %0 = kiln.index_add %x, %i, %s {axis = 0 : i64} : (tensor<5x4xf32>, tensor<0xi64>, tensor<0x4xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}
