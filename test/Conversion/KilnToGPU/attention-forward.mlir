// RUN: kiln-opt %s --convert-kiln-attention-to-gpu --split-input-file | FileCheck %s
// RUN: kiln-opt %s --convert-kiln-attention-to-gpu="tensor-cores=false" --split-input-file | FileCheck %s --check-prefix=SIMT
// RUN: kiln-opt %s --convert-kiln-attention-to-gpu="software-pipeline=true" --split-input-file | FileCheck %s --check-prefix=PIPE

// f32 takes the SIMT kernel: blocks (ceil(R * Sq / 64), Hkv, B) of 64
// threads, K and V tiles of 32 keys (64 x 2 x 128 x 4 bytes would exceed
// 32 KiB) in dynamic shared memory, the q row, the accumulator and the tile's
// scores in private memory. The R = 2 query heads of a kv head are packed
// into the block's rows, position-major: packed row p = 64 x + t is position
// p / 2 of query head 2 g + p % 2, so each K/V tile is staged once for the
// group. One loop over key tiles, each staged between two barriers; the
// causal band ends the loop at the block's last visible key.
// CHECK-LABEL: func.func @simt_f32
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x100x128xf32>, %[[K:.*]]: tensor<2x2x90x128xf32>, %[[V:.*]]: tensor<2x2x90x128xf32>)
// CHECK-DAG: %[[QB:.*]] = bufferization.to_buffer %[[Q]] read_only : tensor<2x4x100x128xf32> to memref<2x4x100x128xf32>
// CHECK-DAG: %[[KB:.*]] = bufferization.to_buffer %[[K]] read_only
// CHECK-DAG: %[[VB:.*]] = bufferization.to_buffer %[[V]] read_only
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<2x4x100x128xf32>
// CHECK: gpu.launch blocks(%[[X:[^,]*]], %[[G:[^,]*]], %[[B:[^)]*]]) in (%{{[^ ]*}} = %c4, %{{[^ ]*}} = %c2, %{{[^ ]*}} = %c2) threads(%[[T:[^,]*]], {{[^)]*}}) in (%{{[^ ]*}} = %c64, %{{[^ ]*}} = %c1, %{{[^ ]*}} = %c1)
// CHECK-SAME: dynamic_shared_memory_size %c32768_i32
// CHECK-SAME: private(%{{[^ ]*}} : memref<128xf32, #gpu.address_space<private>>, %{{[^ ]*}} : memref<128xf32, #gpu.address_space<private>>, %{{[^ ]*}} : memref<32xf32, #gpu.address_space<private>>)
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: %[[KT:.*]] = memref.view %[[SMEM]][%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x128xf32, #gpu.address_space<workgroup>>
// CHECK: %[[VT:.*]] = memref.view %[[SMEM]][%c16384][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x128xf32, #gpu.address_space<workgroup>>
// CHECK: %[[BEGIN:.*]] = arith.muli %[[X]], %c64 : index
// CHECK: %[[P:.*]] = arith.addi %[[BEGIN]], %[[T]] : index
// CHECK: arith.cmpi slt, %[[P]], %c200 : index
// CHECK: %[[I:.*]] = arith.divui %[[P]], %c2 : index
// CHECK: %[[M:.*]] = arith.remui %[[P]], %c2 : index
// CHECK: %[[G2:.*]] = arith.muli %[[G]], %c2 : index
// CHECK: %[[H:.*]] = arith.addi %[[G2]], %[[M]] : index
// CHECK: memref.load %[[QB]][%[[B]], %[[H]], %[[I]], %{{.*}}] : memref<2x4x100x128xf32>
// CHECK: %{{.*}}:2 = scf.for %[[KT0:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, f32)
// CHECK: gpu.barrier
// CHECK: memref.load %[[KB]][%[[B]], %[[G]], %{{.*}}, %{{.*}}] : memref<2x2x90x128xf32>
// CHECK: memref.store %{{.*}}, %[[KT]]
// CHECK: memref.load %[[VB]][%[[B]], %[[G]], %{{.*}}, %{{.*}}] : memref<2x2x90x128xf32>
// CHECK: memref.store %{{.*}}, %[[VT]]
// CHECK: gpu.barrier
// CHECK: math.exp
// CHECK: gpu.terminator
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<2x4x100x128xf32> to tensor<2x4x100x128xf32>
// CHECK: return %[[R]]
// CHECK-NOT: nvvm.mma.sync
func.func @simt_f32(%q: tensor<2x4x100x128xf32>, %k: tensor<2x2x90x128xf32>, %v: tensor<2x2x90x128xf32>) -> tensor<2x4x100x128xf32> {
  %o = kiln.attention %q, %k, %v {causal} : tensor<2x4x100x128xf32>, tensor<2x2x90x128xf32>, tensor<2x2x90x128xf32> -> tensor<2x4x100x128xf32>
  return %o : tensor<2x4x100x128xf32>
}

// -----

// f16 with head dims multiples of 16 takes the tensor-core kernel: 4 warps
// (128 threads) of 16 query rows each, K and V tiles of 64 keys as they lie
// in memory with rows padded by 8 halves, S = Q Kᵀ as 8 n-tiles x Dk/16 = 4
// m16n8k16 mmas (their B fragments by 8 ldmatrix.x4, two k-steps each) and
// P V as 4 key steps x Dv/8 = 2 n-tiles (one ldmatrix.x4.trans per key
// step), so 40 nvvm.mma.sync per key tile; then the quad reductions. No
// private memory. K and V are staged 8 halves per vector.load and
// vector.store when both are 16-byte aligned (unrolled: each thread's 4 K
// chunks and 1 V chunk are all loaded before the first store), element by
// element in a loop otherwise.
// CHECK-LABEL: func.func @mma_f16
// CHECK: %[[K:.*]] = arith.constant 0.180336{{[0-9]*}} : f32
// CHECK: gpu.launch blocks({{[^)]*}}) in ({{[^)]*}}) threads({{[^)]*}}) in (%{{[^ ]*}} = %c128, {{[^)]*}})
// CHECK-SAME: dynamic_shared_memory_size %c12288_i32 {
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: %[[KT:.*]] = memref.view %[[SMEM]][%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x72xf16, #gpu.address_space<workgroup>>
// CHECK: %[[VT:.*]] = memref.view %[[SMEM]][%c9216][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x24xf16, #gpu.address_space<workgroup>>
// CHECK: %[[KP:.*]] = memref.extract_aligned_pointer_as_index %{{.*}} : memref<1x2x80x64xf16> -> index
// CHECK: arith.remui %[[KP]], %c16 : index
// CHECK: %[[VP:.*]] = memref.extract_aligned_pointer_as_index %{{.*}} : memref<1x2x80x16xf16> -> index
// CHECK: arith.remui %[[VP]], %c16 : index
// CHECK: %[[WIDE:.*]] = arith.andi
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK: scf.if %[[WIDE]] {
// CHECK-NOT: scf.for
// CHECK-NOT: vector.store
// CHECK-COUNT-4: vector.load %{{.*}} {alignment = 16 : i64} : memref<1x2x80x64xf16>, vector<8xf16>
// CHECK-NOT: vector.store
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<1x2x80x16xf16>, vector<8xf16>
// CHECK-NOT: vector.load
// CHECK-COUNT-4: vector.store %{{.*}}, %[[KT]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<64x72xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK-NEXT: vector.store %{{.*}}, %[[VT]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<64x24xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.for
// CHECK-NOT: vector.load
// CHECK: memref.load %{{.*}} : memref<1x2x80x64xf16>
// CHECK: }
// CHECK: gpu.barrier
// CHECK: nvgpu.ldmatrix %[[KT]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = false}
// CHECK-COUNT-32: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// P = 2^(s k - pivot k) from the raw scores s (no softcap or additive
// mask: k = scale log2 e = 0.125 x 1.4427), pivot = 0 for a row that is
// still empty (one test per row, none per element).
// CHECK-COUNT-2: arith.cmpf oeq, %{{.*}}, %cst{{.*}} : f32
// CHECK-NOT: arith.cmpf
// CHECK: math.fma %{{.*}}, %[[K]], %{{.*}} : f32
// CHECK-NEXT: math.exp2
// CHECK: nvgpu.ldmatrix %[[VT]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = true}
// CHECK-COUNT-8: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NOT: nvvm.mma.sync
// CHECK: scf.yield
// CHECK: gpu.shuffle  xor %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: gpu.terminator
// With software-pipeline, this thread's 5 chunks of the first K/V tile are
// loaded before the loop (16 bytes each if aligned, element by element
// otherwise) and carried by it; each iteration stores the carried chunks,
// then loads those of the next tile (if any) before computing this one.
// PIPE-LABEL: func.func @mma_f16
// PIPE: %[[FIRST:.*]]:5 = scf.if %{{.*}} -> (vector<8xf16>, vector<8xf16>, vector<8xf16>, vector<8xf16>, vector<8xf16>) {
// PIPE-COUNT-4: vector.load %{{.*}} {alignment = 16 : i64} : memref<1x2x80x64xf16>, vector<8xf16>
// PIPE: vector.load %{{.*}} {alignment = 16 : i64} : memref<1x2x80x16xf16>, vector<8xf16>
// PIPE: } else {
// PIPE: memref.load
// PIPE: scf.for %[[KT:.*]] = %c0 to %c80 step %c64 iter_args({{.*}}, %[[C0:[^ ]*]] = %[[FIRST]]#0, %[[C1:[^ ]*]] = %[[FIRST]]#1, %[[C2:[^ ]*]] = %[[FIRST]]#2, %[[C3:[^ ]*]] = %[[FIRST]]#3, %[[C4:[^ ]*]] = %[[FIRST]]#4) -> ({{(f32, )+}}vector<8xf16>, vector<8xf16>, vector<8xf16>, vector<8xf16>, vector<8xf16>) {
// PIPE-NEXT: gpu.barrier
// PIPE-NEXT: vector.store %[[C0]], %{{.*}} : memref<64x72xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// PIPE-NEXT: vector.store %[[C1]]
// PIPE-NEXT: vector.store %[[C2]]
// PIPE-NEXT: vector.store %[[C3]]
// PIPE-NEXT: vector.store %[[C4]], %{{.*}} : memref<64x24xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// PIPE-NEXT: gpu.barrier
// PIPE-NEXT: %[[NEXT:.*]] = arith.addi %[[KT]], %c64 : index
// PIPE-NEXT: %[[MORE:.*]] = arith.cmpi slt, %[[NEXT]], %c80 : index
// PIPE-NEXT: %[[LOADED:.*]]:5 = scf.if %[[MORE]]
// PIPE: vector.load
// PIPE: scf.yield %[[C0]], %[[C1]], %[[C2]], %[[C3]], %[[C4]]
// PIPE: nvvm.mma.sync
// PIPE: scf.yield {{.*}}, %[[LOADED]]#0, %[[LOADED]]#1, %[[LOADED]]#2, %[[LOADED]]#3, %[[LOADED]]#4 : {{(f32, )+}}vector<8xf16>, vector<8xf16>, vector<8xf16>, vector<8xf16>, vector<8xf16>
// PIPE: gpu.terminator
// SIMT-LABEL: func.func @mma_f16
// SIMT-NOT: nvvm.mma.sync
// SIMT: private(
// SIMT-NOT: nvvm.mma.sync
func.func @mma_f16(%q: tensor<1x2x70x64xf16>, %k: tensor<1x2x80x64xf16>, %v: tensor<1x2x80x16xf16>) -> tensor<1x2x70x16xf16> {
  %o = kiln.attention %q, %k, %v : tensor<1x2x70x64xf16>, tensor<1x2x80x64xf16>, tensor<1x2x80x16xf16> -> tensor<1x2x70x16xf16>
  return %o : tensor<1x2x70x16xf16>
}

// -----

// The tensor-core kernel packs grouped heads the same way: 8 query heads over
// 2 kv heads (R = 4) and Sq = 30 are 120 packed rows per kv head, 2 blocks of
// 64. A thread's rows g and g + 8 are unpacked into (head, position) for the
// Q fragments, and the causal key range ends after the block's last
// position, (last packed row) / 4, not its last packed row.
// CHECK-LABEL: func.func @mma_gqa
// CHECK: gpu.launch blocks(%[[X:[^,]*]], %[[G:[^,]*]], %[[B:[^)]*]]) in (%{{[^ ]*}} = %c2, %{{[^ ]*}} = %c2, %{{[^ ]*}} = %c1) threads({{[^)]*}}) in (%{{[^ ]*}} = %c128, {{[^)]*}})
// CHECK: %[[BEGIN:.*]] = arith.muli %[[X]], %c64 : index
// CHECK: %[[END:.*]] = arith.addi %[[BEGIN]], %c63 : index
// CHECK: %[[LAST:.*]] = arith.minsi %[[END]], %c119 : index
// CHECK: %[[ROW:.*]] = arith.minsi %{{.*}}, %c119 : index
// CHECK: %[[I:.*]] = arith.divui %[[ROW]], %c4 : index
// CHECK: %[[M:.*]] = arith.remui %[[ROW]], %c4 : index
// CHECK: %[[G4:.*]] = arith.muli %[[G]], %c4 : index
// CHECK: %[[H:.*]] = arith.addi %[[G4]], %[[M]] : index
// CHECK: memref.load %{{.*}}[%[[B]], %[[H]], %[[I]], %{{.*}}] : memref<1x8x30x16xf16>
// CHECK: %[[LASTPOS:.*]] = arith.divui %[[LAST]], %c4 : index
// CHECK: %[[HI:.*]] = arith.addi %[[LASTPOS]], %c11 : index
// CHECK: %[[KEND:.*]] = arith.minsi %c40, %[[HI]] : index
// CHECK: scf.for %{{.*}} = %c0 to %[[KEND]] step %c64
// A key tile that every row of the block sees whole (below the first row's
// diagonal) takes the scores without the predicate; the others, with it.
// CHECK: %[[WHOLE:.*]] = arith.andi
// CHECK: scf.if %[[WHOLE]] -> (f32{{(, f32)+}}) {
// CHECK-NOT: arith.cmpi
// CHECK: } else {
// CHECK: arith.cmpi
func.func @mma_gqa(%q: tensor<1x8x30x16xf16>, %k: tensor<1x2x40x16xf16>, %v: tensor<1x2x40x16xf16>) -> tensor<1x8x30x16xf16> {
  %o = kiln.attention %q, %k, %v {causal} : tensor<1x8x30x16xf16>, tensor<1x2x40x16xf16>, tensor<1x2x40x16xf16> -> tensor<1x8x30x16xf16>
  return %o : tensor<1x8x30x16xf16>
}

// -----

// bf16 operands travel as i32 pairs.
// CHECK-LABEL: func.func @mma_bf16
// CHECK: vector.bitcast %{{.*}} : vector<2xbf16> to vector<1xi32>
// CHECK: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>{{.*}} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
func.func @mma_bf16(%q: tensor<1x2x70x16xbf16>, %k: tensor<1x2x80x16xbf16>, %v: tensor<1x2x80x16xbf16>) -> tensor<1x2x70x16xbf16> {
  %o = kiln.attention %q, %k, %v : tensor<1x2x70x16xbf16>, tensor<1x2x80x16xbf16>, tensor<1x2x80x16xbf16> -> tensor<1x2x70x16xbf16>
  return %o : tensor<1x2x70x16xbf16>
}

// -----

// A head dim that is not a multiple of 16 falls back to the SIMT kernel,
// which loads halves and computes in f32.
// CHECK-LABEL: func.func @simt_f16_odd_dim
// CHECK: private(%{{.*}} : memref<40xf32, #gpu.address_space<private>>
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK-NOT: nvvm.mma.sync
func.func @simt_f16_odd_dim(%q: tensor<1x2x7x40xf16>, %k: tensor<1x2x8x40xf16>, %v: tensor<1x2x8x24xf16>) -> tensor<1x2x7x24xf16> {
  %o = kiln.attention %q, %k, %v : tensor<1x2x7x40xf16>, tensor<1x2x8x40xf16>, tensor<1x2x8x24xf16> -> tensor<1x2x7x24xf16>
  return %o : tensor<1x2x7x24xf16>
}

// -----

// Every mask form reads its operand inside the kernel: the boolean mask
// broadcast ([Sq, Sk] at [i, j]), the clamped key lengths, and the dropout
// seed (Philox's multiplications on i64).
// CHECK-LABEL: func.func @masks
// CHECK-DAG: %[[MB:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<7x8xi1> to memref<7x8xi1>
// CHECK-DAG: %[[LB:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<1xi32> to memref<1xi32>
// CHECK-DAG: %[[SB:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<i64> to memref<i64>
// CHECK: gpu.launch
// CHECK: memref.load %[[SB]][] : memref<i64>
// CHECK: memref.load %[[LB]][%{{.*}}] : memref<1xi32>
// CHECK: memref.load %[[MB]][%{{.*}}, %{{.*}}] : memref<7x8xi1>
// CHECK: arith.muli %{{.*}}, %{{.*}} : i64
func.func @masks(%q: tensor<1x2x7x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %m: tensor<7x8xi1>, %kl: tensor<1xi32>, %seed: tensor<i64>) -> tensor<1x2x7x16xf32> {
  %o = kiln.attention %q, %k, %v mask(%m : tensor<7x8xi1>) key_lengths(%kl : tensor<1xi32>) seed(%seed : tensor<i64>) {dropout_p = 0.25 : f64} : tensor<1x2x7x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x7x16xf32>
  return %o : tensor<1x2x7x16xf32>
}

// -----

// Head dims above 256 and empty results are left to the generic path.
// CHECK-LABEL: func.func @left_alone
// CHECK: kiln.attention
// CHECK: kiln.attention
// CHECK-NOT: gpu.launch
func.func @left_alone(%q: tensor<1x1x4x512xf32>, %k: tensor<1x1x4x512xf32>, %v: tensor<1x1x4x512xf32>, %e: tensor<1x1x0x8xf32>, %ek: tensor<1x1x4x8xf32>) -> (tensor<1x1x4x512xf32>, tensor<1x1x0x8xf32>) {
  %o = kiln.attention %q, %k, %v : tensor<1x1x4x512xf32>, tensor<1x1x4x512xf32>, tensor<1x1x4x512xf32> -> tensor<1x1x4x512xf32>
  %z = kiln.attention %e, %ek, %ek : tensor<1x1x0x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32> -> tensor<1x1x0x8xf32>
  return %o, %z : tensor<1x1x4x512xf32>, tensor<1x1x0x8xf32>
}
