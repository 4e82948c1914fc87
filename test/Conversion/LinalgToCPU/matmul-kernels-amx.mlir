// RUN: kiln-opt %s --kiln-matmul-kernels=amx --canonicalize --split-input-file | FileCheck %s
// RUN: kiln-opt %s --kiln-matmul-kernels="amx parallel" --canonicalize --split-input-file | FileCheck %s --check-prefix=PAR
// RUN: kiln-opt %s --kiln-matmul-kernels --canonicalize --split-input-file | FileCheck %s --check-prefix=OFF

// kiln-matmul-kernels{amx}: a bf16 x bf16 -> f32 matmul becomes AMX tile
// ops. A is packed as contiguous 16 x 32 tiles ([M/16, K/32, 16, 32]), B's
// row pairs interleaved into tiles of 16 pairs x 16 columns ([K/32, 256/16
// or N/16, 16, 32]); each 32 x 32 block of C is four f32 tiles carried
// through the K loop, four tile_mulf per step. Aligned shapes read and
// write C in place.
// CHECK-LABEL: func.func @aligned
// CHECK-SAME: (%[[A:.*]]: memref<64x64xbf16>, %[[B:.*]]: memref<64x64xbf16>, %[[C:.*]]: memref<64x64xf32>)
// CHECK: %[[AT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x2x16x32xbf16>
// CHECK: vector.load %[[A]][%{{.*}}, %{{.*}}] : memref<64x64xbf16>, vector<32xbf16>
// CHECK: vector.store %{{.*}}, %[[AT]]
// CHECK: %[[BT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x4x16x32xbf16>
// CHECK: %[[EVEN:.*]] = vector.load %[[B]]{{.*}} vector<16xbf16>
// CHECK: %[[ODD:.*]] = vector.load %[[B]]{{.*}} vector<16xbf16>
// CHECK: %[[PAIRS:.*]] = vector.interleave %[[EVEN]], %[[ODD]] : vector<16xbf16> -> vector<32xbf16>
// CHECK: vector.store %[[PAIRS]], %[[BT]]
// CHECK-COUNT-4: amx.tile_load %[[C]]{{.*}} into !amx.tile<16x16xf32>
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (!amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>)
// CHECK-COUNT-2: amx.tile_load %[[AT]]{{.*}} into !amx.tile<16x32xbf16>
// CHECK-COUNT-2: amx.tile_load %[[BT]]{{.*}} into !amx.tile<16x32xbf16>
// CHECK-COUNT-4: amx.tile_mulf
// CHECK: scf.yield
// CHECK-COUNT-4: amx.tile_store %[[C]]
// CHECK-NOT: linalg.
// OFF-LABEL: func.func @aligned
// OFF-NOT: amx.
// OFF: vector.fma
func.func @aligned(%a: memref<64x64xbf16>, %b: memref<64x64xbf16>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x64xbf16>, memref<64x64xbf16>) outs(%c : memref<64x64xf32>)
  return
}

// -----

// M, N and K that are not multiples of the tiles: A, B and C go through
// zero-filled copies (32 x 32, 32 x 64, 32 x 64), and C's corner is copied
// back at the end.
// CHECK-LABEL: func.func @padded
// CHECK-SAME: (%[[A:.*]]: memref<17x7xbf16>, %[[B:.*]]: memref<7x33xbf16>, %[[C:.*]]: memref<17x33xf32>)
// CHECK: %[[AP:.*]] = memref.alloc() {alignment = 64 : i64} : memref<32x32xbf16>
// CHECK: linalg.fill ins(%{{.*}} : bf16) outs(%[[AP]]
// CHECK: linalg.copy ins(%[[A]]
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<2x1x16x32xbf16>
// CHECK: %[[BP:.*]] = memref.alloc() {alignment = 64 : i64} : memref<32x64xbf16>
// CHECK: linalg.copy ins(%[[B]]
// CHECK: %[[CP:.*]] = memref.alloc() {alignment = 64 : i64} : memref<32x64xf32>
// CHECK: linalg.copy ins(%[[C]]
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<1x4x16x32xbf16>
// CHECK: amx.tile_load %[[CP]]
// CHECK: amx.tile_mulf
// CHECK: amx.tile_store %[[CP]]
// CHECK: %[[CORNER:.*]] = memref.subview %[[CP]][0, 0] [17, 33] [1, 1]
// CHECK: linalg.copy ins(%[[CORNER]] : memref<17x33xf32, strided<[64, 1]>>) outs(%[[C]] : memref<17x33xf32>)
func.func @padded(%a: memref<17x7xbf16>, %b: memref<7x33xbf16>, %c: memref<17x33xf32>) {
  linalg.matmul ins(%a, %b : memref<17x7xbf16>, memref<7x33xbf16>) outs(%c : memref<17x33xf32>)
  return
}

// -----

// A transposed B ([N, K], attention's Q Kᵀ) is transposed into the padded
// copy first.
// CHECK-LABEL: func.func @transposed_b
// CHECK: linalg.transpose ins(%{{.*}} : memref<96x32xbf16>) outs(%{{.*}} : memref<32x96xbf16{{.*}}>) permutation = [1, 0]
// CHECK: amx.tile_mulf
func.func @transposed_b(%a: memref<64x32xbf16>, %b: memref<96x32xbf16>, %c: memref<64x96xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : memref<64x32xbf16>, memref<96x32xbf16>) outs(%c : memref<64x96xf32>)
  return
}

// -----

// f16 operands (tdpfp16ps is AMX-FP16, not AMX-BF16) and f32 ones stay on
// the vector kernels.
// CHECK-LABEL: func.func @others
// CHECK-NOT: amx.
// CHECK: vector.fma
func.func @others(%a: memref<32x32xf16>, %b: memref<32x32xf16>, %c: memref<32x32xf32>, %d: memref<32x32xf32>, %e: memref<32x32xf32>) {
  linalg.matmul ins(%a, %b : memref<32x32xf16>, memref<32x32xf16>) outs(%c : memref<32x32xf32>)
  linalg.matmul ins(%d, %e : memref<32x32xf32>, memref<32x32xf32>) outs(%c : memref<32x32xf32>)
  return
}

// -----

// With `parallel`: A is packed once, then the column blocks of 256 (two
// here) are the iterations of an scf.parallel, each packing its block of B
// into a buffer of its own.
// PAR-LABEL: func.func @wide
// PAR: memref.alloc() {alignment = 64 : i64} : memref<2x1x16x32xbf16>
// PAR: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// PAR: %[[BT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x16x16x32xbf16>
// PAR: vector.interleave
// PAR: amx.tile_mulf
// PAR: memref.dealloc %[[BT]]
// PAR-NEXT: scf.reduce
// CHECK-LABEL: func.func @wide
// CHECK-NOT: scf.parallel
// CHECK: amx.tile_mulf
func.func @wide(%a: memref<32x32xbf16>, %b: memref<32x512xbf16>, %c: memref<32x512xf32>) {
  linalg.matmul ins(%a, %b : memref<32x32xbf16>, memref<32x512xbf16>) outs(%c : memref<32x512xf32>)
  return
}
