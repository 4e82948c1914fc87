// RUN: kiln-opt %s --kiln-matmul-kernels --split-input-file | FileCheck %s
// RUN: kiln-opt %s --kiln-matmul-kernels --canonicalize --split-input-file | FileCheck %s --check-prefix=TILES

// The kiln-lower-to-cpu pipeline's matmul kernels (kiln-matmul-kernels): f32
// matmuls on buffers become tiles of 8 rows x 2 vector<16xf32> accumulators
// loaded from C, updated by one vector.fma per row and vector for each k
// (a broadcast element of A times a row of B), and stored back. With more
// than one row block, each block of B (up to 256 x 32) is first packed into
// a contiguous stack buffer that the tiles read.
// CHECK-LABEL: func.func @matmul_f32
// CHECK-SAME: (%[[A:.*]]: memref<9x20xf32>, %[[B:.*]]: memref<20x35xf32>, %[[C:.*]]: memref<9x35xf32>)
// CHECK: %[[P:.*]] = memref.alloca() {alignment = 64 : i64} : memref<256x32xf32>
// CHECK-NOT: linalg.matmul
// CHECK: scf.for %[[J:.*]] =
// CHECK: scf.for %[[KP:.*]] = %[[K0:.*]] to
// CHECK: %[[ROW:.*]] = arith.subi %[[KP]], %[[K0]]
// CHECK: %[[V:.*]] = vector.load %[[B]][%[[KP]], %{{.*}}] : memref<20x35xf32>, vector<16xf32>
// CHECK: vector.store %[[V]], %[[P]][%[[ROW]], %{{.*}}] : memref<256x32xf32>, vector<16xf32>
// CHECK: scf.for %[[I:.*]] =
// CHECK: %[[C0:.*]] = vector.load %[[C]][%{{.*}}, %{{.*}}] : memref<9x35xf32>, vector<16xf32>
// CHECK: %[[ACC:.*]]:16 = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC0:.*]] = %[[C0]],
// CHECK: %[[R:.*]] = arith.subi %[[K]],
// CHECK: %[[B0:.*]] = vector.load %[[P]][%[[R]], %{{.*}}] : memref<256x32xf32>, vector<16xf32>
// CHECK: %[[B1:.*]] = vector.load %[[P]][%[[R]], %{{.*}}] : memref<256x32xf32>, vector<16xf32>
// CHECK: %[[X:.*]] = memref.load %[[A]][%{{.*}}, %[[K]]] : memref<9x20xf32>
// CHECK: %[[S:.*]] = vector.broadcast %[[X]] : f32 to vector<16xf32>
// CHECK: vector.fma %[[S]], %[[B0]], %[[ACC0]] : vector<16xf32>
// CHECK: vector.fma %[[S]], %[[B1]], %{{.*}} : vector<16xf32>
// CHECK-COUNT-16: vector.store %[[ACC]]#
// The column remainder (35 = 32 + 3) uses masked loads and stores.
// CHECK: %[[MASK:.*]] = vector.constant_mask [3] : vector<16xi1>
// CHECK: vector.maskedload %[[B]][%{{.*}}, %{{.*}}], %[[MASK]]
// CHECK: %[[MASK2:.*]] = vector.constant_mask [3] : vector<16xi1>
// CHECK: vector.maskedload %[[C]][%{{.*}}, %{{.*}}], %[[MASK2]]
// CHECK: vector.maskedstore %[[C]][%{{.*}}, %{{.*}}], %[[MASK2]]
// TILES-LABEL: func.func @matmul_f32
// A full tile (8 x 32), the row remainder (1 x 32), then the same two
// shapes for the column remainder (8 x 3, 1 x 3).
// TILES: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// TILES: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>) {
// TILES: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// TILES: scf.for {{.*}} -> (vector<16xf32>) {
func.func @matmul_f32(%a: memref<9x20xf32>, %b: memref<20x35xf32>, %c: memref<9x35xf32>) {
  linalg.matmul ins(%a, %b : memref<9x20xf32>, memref<20x35xf32>) outs(%c : memref<9x35xf32>)
  return
}

// -----

// batch_matmul loops over the batch and indexes with it; a single row block
// reads B directly (no packing); f64 vectors have 8 lanes; K = 300 runs in blocks of 256 and a remainder of 44 (after
// canonicalization, the single-trip loops over tiles are gone).
// CHECK-LABEL: func.func @batch_matmul_f64
// CHECK-SAME: (%[[A:.*]]: memref<3x8x300xf64>, %[[B:.*]]: memref<3x300x16xf64>, %[[C:.*]]: memref<3x8x16xf64>)
// CHECK-NOT: memref.alloca
// CHECK: scf.for %[[N:[^ ]+]] =
// CHECK: vector.load %[[C]][%[[N]], %{{.*}}, %{{.*}}] : memref<3x8x16xf64>, vector<8xf64>
// CHECK: vector.load %[[B]][%[[N]], %{{.*}}, %{{.*}}] : memref<3x300x16xf64>, vector<8xf64>
// CHECK: memref.load %[[A]][%[[N]], %{{.*}}, %{{.*}}] : memref<3x8x300xf64>
// CHECK: vector.fma %{{.*}} : vector<8xf64>
// TILES-LABEL: func.func @batch_matmul_f64
// TILES-DAG: %[[C256:.*]] = arith.constant 256 : index
// TILES-DAG: %[[C300:.*]] = arith.constant 300 : index
// TILES: scf.for %{{.*}} = %{{.*}} to %[[C256]] step %{{.*}} iter_args
// TILES: scf.for %{{.*}} = %[[C256]] to %[[C300]] step %{{.*}} iter_args
func.func @batch_matmul_f64(%a: memref<3x8x300xf64>, %b: memref<3x300x16xf64>, %c: memref<3x8x16xf64>) {
  linalg.batch_matmul ins(%a, %b : memref<3x8x300xf64>, memref<3x300x16xf64>) outs(%c : memref<3x8x16xf64>)
  return
}

// -----

// Integer matmuls, matmuls on tensors, a transposed C, a broadcast
// operand, an operand wider than C (which the named op truncates) and a C
// of a half type stay for the generic lowering.
// CHECK-LABEL: func.func @untouched
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x4xi32>, memref<4x4xi32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x4xf32>, tensor<4x4xf32>)
// CHECK: linalg.matmul indexing_maps
// CHECK: linalg.batch_matmul indexing_maps
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x4xf64>, memref<4x4xf32>) outs(%{{.*}} : memref<4x4xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x4xf16>, memref<4x4xf16>) outs(%{{.*}} : memref<4x4xf16>)
func.func @untouched(%a: memref<4x4xi32>, %c: memref<4x4xi32>, %t: tensor<4x4xf32>, %f: memref<4x4xf32>, %g: memref<4x4xf32>, %ba: memref<2x4x4xf32>, %bc: memref<2x4x4xf32>, %w: memref<4x4xf64>, %h: memref<4x4xf16>, %hc: memref<4x4xf16>) -> tensor<4x4xf32> {
  linalg.matmul ins(%a, %a : memref<4x4xi32>, memref<4x4xi32>) outs(%c : memref<4x4xi32>)
  %0 = linalg.matmul ins(%t, %t : tensor<4x4xf32>, tensor<4x4xf32>) outs(%t : tensor<4x4xf32>) -> tensor<4x4xf32>
  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d1, d0)>]
    ins(%f, %f : memref<4x4xf32>, memref<4x4xf32>) outs(%g : memref<4x4xf32>)
  linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]
    ins(%ba, %f : memref<2x4x4xf32>, memref<4x4xf32>) outs(%bc : memref<2x4x4xf32>)
  linalg.matmul ins(%w, %f : memref<4x4xf64>, memref<4x4xf32>) outs(%g : memref<4x4xf32>)
  linalg.matmul ins(%h, %h : memref<4x4xf16>, memref<4x4xf16>) outs(%hc : memref<4x4xf16>)
  return %0 : tensor<4x4xf32>
}

// -----

// A transposed B ([N, K], as in Q K^T) is always packed, by a transposing
// copy: element B[j0 + c, k] to row k - k0, column c of the packed block,
// zeros in the columns past N (3 of 16 here: 13 = 8 + 5 columns, f64). The
// tiles then read the packed block as for any B.
// CHECK-LABEL: func.func @matmul_transpose_b
// CHECK-SAME: (%[[A:.*]]: memref<3x5xf64>, %[[B:.*]]: memref<13x5xf64>, %[[C:.*]]: memref<3x13xf64>)
// CHECK: %[[P:.*]] = memref.alloca() {alignment = 64 : i64} : memref<256x16xf64>
// CHECK-NOT: linalg.matmul
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK: scf.for %[[K:[^ ]+]] = %[[K0:[^ ]+]] to
// CHECK: %[[ROW:.*]] = arith.subi %[[K]], %[[K0]]
// CHECK: %[[X:.*]] = memref.load %[[B]][%{{.*}}, %[[K]]] : memref<13x5xf64>
// CHECK: memref.store %[[X]], %[[P]][%[[ROW]], %{{.*}}] : memref<256x16xf64>
// CHECK-COUNT-12: memref.load %[[B]]
// CHECK-COUNT-3: memref.store %[[ZERO]], %[[P]]
// CHECK: vector.load %[[P]]
// CHECK: memref.load %[[A]][%{{.*}}, %{{.*}}] : memref<3x5xf64>
// CHECK: vector.fma
func.func @matmul_transpose_b(%a: memref<3x5xf64>, %b: memref<13x5xf64>, %c: memref<3x13xf64>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : memref<3x5xf64>, memref<13x5xf64>) outs(%c : memref<3x13xf64>)
  return
}

// -----

// A transposed A ([K, M], as in P^T dO) is read at [k, i0 + r]; B as usual
// (one row block here: not packed).
// CHECK-LABEL: func.func @batch_matmul_transpose_a
// CHECK-SAME: (%[[A:.*]]: memref<2x7x4xf32>, %[[B:.*]]: memref<2x7x16xf32>, %[[C:.*]]: memref<2x4x16xf32>)
// CHECK-NOT: memref.alloca
// CHECK: scf.for %[[N:[^ ]+]] =
// CHECK: scf.for %[[K:[^ ]+]] =
// CHECK: vector.load %[[B]][%[[N]], %[[K]], %{{.*}}] : memref<2x7x16xf32>, vector<16xf32>
// CHECK: memref.load %[[A]][%[[N]], %[[K]], %{{.*}}] : memref<2x7x4xf32>
// CHECK: vector.fma
func.func @batch_matmul_transpose_a(%a: memref<2x7x4xf32>, %b: memref<2x7x16xf32>, %c: memref<2x4x16xf32>) {
  linalg.batch_matmul indexing_maps = [affine_map<(n, m, j, k) -> (n, k, m)>, affine_map<(n, m, j, k) -> (n, k, j)>, affine_map<(n, m, j, k) -> (n, m, j)>]
    ins(%a, %b : memref<2x7x4xf32>, memref<2x7x16xf32>) outs(%c : memref<2x4x16xf32>)
  return
}

// -----

// The matmuls of a function share one packing buffer per element type.
// CHECK-LABEL: func.func @shared_buffer
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<256x32xf32>
// CHECK-NOT: memref.alloca
// CHECK: return
func.func @shared_buffer(%a: memref<16x16xf32>, %c: memref<16x16xf32>, %d: memref<16x16xf32>) {
  linalg.matmul ins(%a, %a : memref<16x16xf32>, memref<16x16xf32>) outs(%c : memref<16x16xf32>)
  linalg.matmul ins(%c, %a : memref<16x16xf32>, memref<16x16xf32>) outs(%d : memref<16x16xf32>)
  return
}

// -----

// Operands narrower than C (f16 and bf16 into f32, as attention's half-type
// lowerings build them) are extended as they are loaded: A element by
// element, B as it is packed (a transposed bf16 B here) or, with one row
// block and an untransposed B, vector by vector in the tile. The tiles
// compute in C's type.
// CHECK-LABEL: func.func @matmul_mixed
// CHECK-SAME: (%[[A:.*]]: memref<9x20xf16>, %[[B:.*]]: memref<35x20xbf16>, %[[C:.*]]: memref<9x35xf32>, %[[A2:.*]]: memref<4x20xf32>, %[[B2:.*]]: memref<20x16xf16>, %[[C2:.*]]: memref<4x16xf32>)
// CHECK: %[[P:.*]] = memref.alloca() {alignment = 64 : i64} : memref<256x32xf32>
// CHECK-NOT: linalg.matmul
// CHECK: %[[X:.*]] = memref.load %[[B]][%{{.*}}, %{{.*}}] : memref<35x20xbf16>
// CHECK: %[[XE:.*]] = arith.extf %[[X]] : bf16 to f32
// CHECK: memref.store %[[XE]], %[[P]]
// CHECK: vector.load %[[P]]{{.*}} : memref<256x32xf32>, vector<16xf32>
// CHECK: %[[Y:.*]] = memref.load %[[A]][%{{.*}}, %{{.*}}] : memref<9x20xf16>
// CHECK: %[[YE:.*]] = arith.extf %[[Y]] : f16 to f32
// CHECK: vector.broadcast %[[YE]] : f32 to vector<16xf32>
// CHECK: vector.fma {{.*}} : vector<16xf32>
// CHECK: %[[V:.*]] = vector.load %[[B2]][%{{.*}}, %{{.*}}] : memref<20x16xf16>, vector<16xf16>
// CHECK: arith.extf %[[V]] : vector<16xf16> to vector<16xf32>
// CHECK: memref.load %[[A2]]{{.*}} : memref<4x20xf32>
// CHECK-NOT: arith.extf
// CHECK: vector.fma {{.*}} : vector<16xf32>
func.func @matmul_mixed(%a: memref<9x20xf16>, %b: memref<35x20xbf16>, %c: memref<9x35xf32>, %a2: memref<4x20xf32>, %b2: memref<20x16xf16>, %c2: memref<4x16xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : memref<9x20xf16>, memref<35x20xbf16>) outs(%c : memref<9x35xf32>)
  linalg.matmul ins(%a2, %b2 : memref<4x20xf32>, memref<20x16xf16>) outs(%c2 : memref<4x16xf32>)
  return
}
