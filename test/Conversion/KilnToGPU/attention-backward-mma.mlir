// RUN: kiln-opt %s --convert-kiln-attention-to-gpu --split-input-file | FileCheck %s
// RUN: kiln-opt %s --convert-kiln-attention-to-gpu="backward-tensor-cores=false" --split-input-file | FileCheck %s --check-prefix=SIMT
// RUN: kiln-opt %s --convert-kiln-attention-to-gpu="tensor-cores=false" --split-input-file | FileCheck %s --check-prefix=SIMT

// The tensor-core main kernel of the backward (tensor-cores and
// backward-tensor-cores, both on by default). GQA (4 query heads over 2 kv
// heads), causal, f16, Dk = 16 != Dv = 32, Sq = 48 and Sk = 80 not multiples
// of the tiles. The zero, preprocess and cast kernels are the SIMT ones;
// nothing of Sq x Sk = 48 x 80 exists.
// CHECK-LABEL: func.func @gqa_causal_f16
// CHECK-NOT: 48x80
// CHECK-DAG: %[[LSE:.*]] = memref.alloc() : memref<384xf32>
// CHECK-DAG: %[[CORR:.*]] = memref.alloc() : memref<384xf32>
// CHECK-DAG: %[[DELTA:.*]] = memref.alloc() : memref<384xf32>
// CHECK-DAG: %[[DQACC:.*]] = memref.alloc() : memref<6144xf32>
// CHECK-DAG: %[[DK:.*]] = memref.alloc() : memref<2x2x80x16xf16>
// CHECK-DAG: %[[DV:.*]] = memref.alloc() : memref<2x2x80x32xf16>
// CHECK: gpu.launch
// CHECK: gpu.launch
// CHECK-NOT: nvvm.mma.sync
// Main: grid (ceil(Sk / 64), Hkv, B) x 4 warps; f16 tiles of K (64 keys),
// Q, dO and dS (Br = 64 query rows) with rows padded by 8; LSE, D and the
// correction c of LSE.
// CHECK: gpu.launch {{.*}} in ({{.*}} = %c2, {{.*}} = %c2, {{.*}} = %c2) threads({{.*}}) in ({{.*}} = %c128, {{.*}}) dynamic_shared_memory_size %c21248_i32 {
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: %[[KT:.*]] = memref.view %[[SMEM]][%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x24xf16, #gpu.address_space<workgroup>>
// CHECK: %[[QT:.*]] = memref.view %[[SMEM]][%c3072][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x24xf16, #gpu.address_space<workgroup>>
// CHECK: %[[DOT:.*]] = memref.view %[[SMEM]][%c6144][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x40xf16, #gpu.address_space<workgroup>>
// CHECK: %[[DST:.*]] = memref.view %[[SMEM]][%c11264][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x72xf16, #gpu.address_space<workgroup>>
// CHECK: %[[LT:.*]] = memref.view %[[SMEM]][%c20480][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
// CHECK: %[[DT:.*]] = memref.view %[[SMEM]][%c20736][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
// CHECK: %[[CT:.*]] = memref.view %[[SMEM]][%c20992][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
// The K tile is staged once per block and V's A fragments are read once
// from global memory; then the R = 2 query heads and the query tiles from the
// first one that sees key j0 (causal: row j0 - 32) carry the 4 + 8 f32 C
// fragments of dK and dV. Tiles are staged 16 bytes per vector.load and
// vector.store when K, Q and dO all start 16-byte aligned (unrolled, every
// load before the first store), element by element in a loop otherwise.
// CHECK: %[[KP:.*]] = memref.extract_aligned_pointer_as_index %{{.*}} : memref<2x2x80x16xf16> -> index
// CHECK: %[[QP:.*]] = memref.extract_aligned_pointer_as_index %{{.*}} : memref<2x4x48x16xf16> -> index
// CHECK: %[[OP:.*]] = memref.extract_aligned_pointer_as_index %{{.*}} : memref<2x4x48x32xf16> -> index
// CHECK: %[[WIDE:.*]] = arith.andi
// CHECK: scf.if %[[WIDE]] {
// CHECK-NOT: scf.for
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<2x2x80x16xf16>, vector<8xf16>
// CHECK: vector.store %{{.*}}, %[[KT]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<64x24xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.for
// CHECK-NOT: vector.load
// CHECK: vector.store %{{.*}}, %[[KT]]
// CHECK: memref.load %{{.*}} : memref<2x2x80x32xf16>
// CHECK: gpu.barrier
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %c-32 : index
// CHECK: %[[ROW0:.*]] = arith.maxsi %c0, %[[ROW]] : index
// CHECK: %[[FIRST:.*]] = arith.divui %[[ROW0]], %c64 : index
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1 iter_args({{.*}}) -> ({{(f32, ){23}f32}}) {
// CHECK: scf.for %{{.*}} = %[[FIRST]] to %c1 step %c1 iter_args({{.*}}) -> ({{(f32, ){23}f32}}) {
// CHECK-NOT: gpu.barrier
// CHECK: scf.if %[[WIDE]] {
// CHECK-NOT: vector.store
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<2x4x48x16xf16>, vector<8xf16>
// CHECK-COUNT-2: vector.load %{{.*}} {alignment = 16 : i64} : memref<2x4x48x32xf16>, vector<8xf16>
// CHECK-NEXT: arith.cmpi
// CHECK-NEXT: arith.select
// CHECK-NEXT: vector.store %{{.*}}, %[[QT]]
// CHECK-COUNT-2: vector.store %{{.*}}, %[[DOT]]
// CHECK-NEXT: } else {
// CHECK: vector.store %{{.*}}, %[[QT]]
// CHECK: vector.store %{{.*}}, %[[DOT]]
// CHECK: memref.store %{{.*}}, %[[LT]]
// CHECK: memref.store %{{.*}}, %[[DT]]
// CHECK: gpu.barrier
// K's A fragments from the K tile: one ldmatrix.x4 (Dk = 16).
// CHECK: nvgpu.ldmatrix %[[KT]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<64x24xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK-NOT: nvgpu.ldmatrix
// Steps of 16 query rows: S^T = K Q^T (B: pairs of a Q row; one k-step:
// an x2), dP^T = V dO^T (two k-steps: an x4). No 16-bit tile loads.
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c16 iter_args({{.*}}) -> ({{(f32, ){23}f32}}) {
// CHECK-NOT: memref.load %{{.*}} : memref<{{.*}}xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.ldmatrix %[[QT]][%{{.*}}, %{{.*}}] {numTiles = 2 : i32, transpose = false} : memref<64x24xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: nvgpu.ldmatrix %[[DOT]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<64x40xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: nvvm.mma.sync
// CHECK: nvvm.mma.sync
// P = exp(t - LSE - c) and dS from D at each accumulator's (key, query); dS
// (rounded to f16) into the dS tile.
// CHECK: %[[L:.*]] = memref.load %[[LT]]
// CHECK: %[[C:.*]] = memref.load %[[CT]]
// CHECK: %[[TL:.*]] = arith.subf %{{.*}}, %[[L]] : f32
// CHECK: %[[TLC:.*]] = arith.subf %[[TL]], %[[C]] : f32
// CHECK: arith.mulf %[[TLC]]
// CHECK: math.exp
// CHECK: memref.load %[[DT]]
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: memref.store %{{.*}}, %[[DST]]
// dK += dS^T Q and dV += P'^T dO: A from the C fragments, B from columns of
// the Q and dO tiles (ldmatrix.x4.trans: two n-tiles each).
// CHECK-NOT: memref.load %{{.*}} : memref<{{.*}}xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.ldmatrix %[[QT]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = true}
// CHECK: nvvm.mma.sync
// CHECK: nvvm.mma.sync
// CHECK: nvgpu.ldmatrix %[[DOT]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = true}
// CHECK: nvvm.mma.sync
// CHECK: nvgpu.ldmatrix %[[DOT]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = true}
// CHECK: nvvm.mma.sync
// CHECK: scf.yield
// dQ += dS K after a barrier: A from the dS tile (ldmatrix.x4), B from the
// K tile (ldmatrix.x4.trans: two k-steps each); one atomic add per element
// into the f32 accumulator.
// CHECK: gpu.barrier
// CHECK-COUNT-4: nvgpu.ldmatrix %[[DST]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = false}
// CHECK: nvgpu.ldmatrix %[[KT]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = true}
// CHECK: nvvm.mma.sync
// CHECK: nvvm.mma.sync
// CHECK: nvgpu.ldmatrix %[[KT]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = true}
// CHECK: nvvm.mma.sync
// CHECK: memref.atomic_rmw addf %{{.*}}, %[[DQACC]][%{{.*}}] : (f32, memref<6144xf32>) -> f32
// dK and dV: written once, rounded to f16, no atomics.
// CHECK: scf.yield
// CHECK: scf.yield
// CHECK-NOT: atomic_rmw
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: memref.store %{{.*}}, %[[DK]]
// CHECK: memref.store %{{.*}}, %[[DV]]
// CHECK: gpu.terminator
// With backward-tensor-cores=false or tensor-cores=false, the SIMT main
// kernel (64 threads, f32 tiles).
// SIMT-LABEL: func.func @gqa_causal_f16
// SIMT-NOT: nvvm.mma.sync
// SIMT: threads({{.*}}) in ({{.*}} = %c64, {{.*}}) dynamic_shared_memory_size
// SIMT: memref.view %{{.*}}[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x16xf32, #gpu.address_space<workgroup>>
// SIMT-NOT: nvvm.mma.sync
// SIMT: return
func.func @gqa_causal_f16(%q: tensor<2x4x48x16xf16>, %k: tensor<2x2x80x16xf16>, %v: tensor<2x2x80x32xf16>, %do: tensor<2x4x48x32xf16>)
    -> (tensor<2x4x48x16xf16>, tensor<2x2x80x16xf16>, tensor<2x2x80x32xf16>) {
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do {causal}
      : tensor<2x4x48x16xf16>, tensor<2x2x80x16xf16>, tensor<2x2x80x32xf16>, tensor<2x4x48x32xf16>
      -> tensor<2x4x48x16xf16>, tensor<2x2x80x16xf16>, tensor<2x2x80x32xf16>
  return %dq, %dk, %dv : tensor<2x4x48x16xf16>, tensor<2x2x80x16xf16>, tensor<2x2x80x32xf16>
}

// -----

// bf16 (the mma's registers are the pairs bitcast to i32) with a broadcast
// additive [Sq, Sk] mask, softcap, key lengths and dropout: the predicate,
// the mask read and the Philox draw are the shared builders, and d_mask
// accumulates atomically at the broadcast index i * 40 + j. Sq = 20 needs
// only Br = 32 rows.
// CHECK-LABEL: func.func @masked_bf16
// CHECK-DAG: %[[MASK:.*]] = bufferization.to_buffer %arg4 read_only : tensor<20x40xbf16> to memref<20x40xbf16>
// CHECK-DAG: %[[KL:.*]] = bufferization.to_buffer %arg5 read_only : tensor<2xi32> to memref<2xi32>
// CHECK-DAG: %[[DMACC:.*]] = memref.alloc() : memref<800xf32>
// CHECK: gpu.launch
// CHECK: gpu.launch
// CHECK: gpu.launch
// CHECK: gpu.launch {{.*}} in ({{.*}} = %c1, {{.*}} = %c2, {{.*}} = %c2) threads({{.*}}) in ({{.*}} = %c128, {{.*}}) dynamic_shared_memory_size %c15232_i32 {
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK-NEXT: memref.view %[[SMEM]][%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x40xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: memref.view %[[SMEM]][%c5120][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x40xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: memref.view %[[SMEM]][%c7680][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x40xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: memref.view %[[SMEM]][%c10240][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x72xbf16, #gpu.address_space<workgroup>>
// CHECK: vector.bitcast %{{.*}} : vector<2xbf16> to vector<1xi32>
// CHECK: nvvm.mma.sync {{.*}} {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: math.tanh
// CHECK: memref.load %[[MASK]]
// CHECK: memref.load %[[KL]]
// CHECK: arith.muli %{{.*}}, %c3528531795_i64 : i64
// CHECK: %[[ROW:.*]] = arith.muli %{{.*}}, %c40 : index
// CHECK: %[[FLAT:.*]] = arith.addi %[[ROW]], %{{.*}} : index
// CHECK: scf.if
// CHECK: memref.atomic_rmw addf %{{.*}}, %[[DMACC]][%[[FLAT]]] : (f32, memref<800xf32>) -> f32
// CHECK: gpu.terminator
func.func @masked_bf16(%q: tensor<2x2x20x32xbf16>, %k: tensor<2x2x40x32xbf16>, %v: tensor<2x2x40x32xbf16>, %do: tensor<2x2x20x32xbf16>, %m: tensor<20x40xbf16>, %kl: tensor<2xi32>, %s: tensor<i64>)
    -> (tensor<2x2x20x32xbf16>, tensor<2x2x40x32xbf16>, tensor<2x2x40x32xbf16>, tensor<20x40xbf16>) {
  %dq, %dk, %dv, %dm = kiln.attention_grad %q, %k, %v, %do mask(%m : tensor<20x40xbf16>) key_lengths(%kl : tensor<2xi32>) seed(%s : tensor<i64>) {softcap = 3.0 : f64, dropout_p = 0.1 : f64}
      : tensor<2x2x20x32xbf16>, tensor<2x2x40x32xbf16>, tensor<2x2x40x32xbf16>, tensor<2x2x20x32xbf16>
      -> tensor<2x2x20x32xbf16>, tensor<2x2x40x32xbf16>, tensor<2x2x40x32xbf16>, tensor<20x40xbf16>
  return %dq, %dk, %dv, %dm : tensor<2x2x20x32xbf16>, tensor<2x2x40x32xbf16>, tensor<2x2x40x32xbf16>, tensor<20x40xbf16>
}

// -----

// D = 128: Br = 32 query rows keeps the tiles within 40 KiB (K 64 x 136,
// Q and dO 32 x 136, dS 32 x 72 halves: 39808 bytes with LSE, D and c). The dQ
// step has 2 m-tiles of 16 rows for 4 warps: each warp takes every other of
// the 16 n-tiles of Dk.
// CHECK-LABEL: func.func @d128_f16
// CHECK: dynamic_shared_memory_size %c39808_i32
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK-NEXT: memref.view %[[SMEM]][%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x136xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: memref.view %[[SMEM]][%c17408][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x136xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: memref.view %[[SMEM]][%c26112][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x136xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: memref.view %[[SMEM]][%c34816][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x72xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: memref.view %[[SMEM]][%c39424][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: memref.view %[[SMEM]][%c39552][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: memref.view %[[SMEM]][%c39680][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32xf32, #gpu.address_space<workgroup>>
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c16 iter_args({{.*}}) -> ({{(f32, ){127}f32}}) {
// CHECK: nvvm.mma.sync
func.func @d128_f16(%q: tensor<1x2x64x128xf16>, %k: tensor<1x2x64x128xf16>, %v: tensor<1x2x64x128xf16>, %do: tensor<1x2x64x128xf16>)
    -> (tensor<1x2x64x128xf16>, tensor<1x2x64x128xf16>, tensor<1x2x64x128xf16>) {
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do
      : tensor<1x2x64x128xf16>, tensor<1x2x64x128xf16>, tensor<1x2x64x128xf16>, tensor<1x2x64x128xf16>
      -> tensor<1x2x64x128xf16>, tensor<1x2x64x128xf16>, tensor<1x2x64x128xf16>
  return %dq, %dk, %dv : tensor<1x2x64x128xf16>, tensor<1x2x64x128xf16>, tensor<1x2x64x128xf16>
}

// -----

// What the tensor-core kernel does not take keeps the SIMT main kernel: f32,
// a head dim not a multiple of 16, a head dim above 128.
// CHECK-LABEL: func.func @negative_f32
// CHECK-NOT: nvvm.mma.sync
// CHECK: threads({{.*}}) in ({{.*}} = %c64, {{.*}}) dynamic_shared_memory_size
// CHECK: memref.view %{{.*}}[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x16xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: nvvm.mma.sync
// CHECK: return
func.func @negative_f32(%q: tensor<1x2x64x16xf32>, %k: tensor<1x2x64x16xf32>, %v: tensor<1x2x64x16xf32>, %do: tensor<1x2x64x16xf32>)
    -> (tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>) {
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do
      : tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>
      -> tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>
  return %dq, %dk, %dv : tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>
}

// -----

// CHECK-LABEL: func.func @negative_dim24
// CHECK-NOT: nvvm.mma.sync
// CHECK: threads({{.*}}) in ({{.*}} = %c64, {{.*}}) dynamic_shared_memory_size
// CHECK: memref.view %{{.*}}[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x24xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: nvvm.mma.sync
// CHECK: return
func.func @negative_dim24(%q: tensor<1x2x64x24xf16>, %k: tensor<1x2x64x24xf16>, %v: tensor<1x2x64x16xf16>, %do: tensor<1x2x64x16xf16>)
    -> (tensor<1x2x64x24xf16>, tensor<1x2x64x24xf16>, tensor<1x2x64x16xf16>) {
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do
      : tensor<1x2x64x24xf16>, tensor<1x2x64x24xf16>, tensor<1x2x64x16xf16>, tensor<1x2x64x16xf16>
      -> tensor<1x2x64x24xf16>, tensor<1x2x64x24xf16>, tensor<1x2x64x16xf16>
  return %dq, %dk, %dv : tensor<1x2x64x24xf16>, tensor<1x2x64x24xf16>, tensor<1x2x64x16xf16>
}

// -----

// CHECK-LABEL: func.func @negative_dim144
// CHECK-NOT: nvvm.mma.sync
// CHECK: threads({{.*}}) in ({{.*}} = %c64, {{.*}}) dynamic_shared_memory_size
// CHECK-NOT: nvvm.mma.sync
// CHECK: return
func.func @negative_dim144(%q: tensor<1x1x16x144xbf16>, %k: tensor<1x1x16x144xbf16>, %v: tensor<1x1x16x16xbf16>, %do: tensor<1x1x16x16xbf16>)
    -> (tensor<1x1x16x144xbf16>, tensor<1x1x16x144xbf16>, tensor<1x1x16x16xbf16>) {
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do
      : tensor<1x1x16x144xbf16>, tensor<1x1x16x144xbf16>, tensor<1x1x16x16xbf16>, tensor<1x1x16x16xbf16>
      -> tensor<1x1x16x144xbf16>, tensor<1x1x16x144xbf16>, tensor<1x1x16x16xbf16>
  return %dq, %dk, %dv : tensor<1x1x16x144xbf16>, tensor<1x1x16x144xbf16>, tensor<1x1x16x16xbf16>
}
