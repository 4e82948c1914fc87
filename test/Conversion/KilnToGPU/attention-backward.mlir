// RUN: kiln-opt %s --convert-kiln-attention-to-gpu --split-input-file | FileCheck %s

// GQA (4 query heads over 2 kv heads), causal, f16, Dk != Dv. Operands enter
// read-only; LSE, its correction c and D ([B * Hq * Sq]) and the f32 dQ accumulator
// ([B * Hq * Sq * Dk]) are the only workspaces: nothing of Sq x Sk = 48 x 80.
// CHECK-LABEL: func.func @gqa_causal
// CHECK-NOT: 48x80
// CHECK-DAG: %[[Q:.*]] = bufferization.to_buffer %arg0 read_only : tensor<2x4x48x8xf16> to memref<2x4x48x8xf16>
// CHECK-DAG: %[[K:.*]] = bufferization.to_buffer %arg1 read_only : tensor<2x2x80x8xf16> to memref<2x2x80x8xf16>
// CHECK-DAG: %[[LSE:.*]] = memref.alloc() : memref<384xf32>
// CHECK-DAG: %[[CORR:.*]] = memref.alloc() : memref<384xf32>
// CHECK-DAG: %[[DELTA:.*]] = memref.alloc() : memref<384xf32>
// CHECK-DAG: %[[DQACC:.*]] = memref.alloc() : memref<3072xf32>
// CHECK-DAG: %[[DQ:.*]] = memref.alloc() : memref<2x4x48x8xf16>
// CHECK-DAG: %[[DK:.*]] = memref.alloc() : memref<2x2x80x8xf16>
// CHECK-DAG: %[[DV:.*]] = memref.alloc() : memref<2x2x80x16xf16>
// The dQ accumulator is zeroed by 12 blocks of 256 threads.
// CHECK: gpu.launch {{.*}} in ({{.*}} = %c12, {{.*}} = %c1, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c256,
// CHECK: memref.store %{{.*}}, %[[DQACC]]
// CHECK: gpu.terminator
// Preprocess: grid (ceil(Sq / 128), Hq, B), the row's Q and dO in private
// memory, one pass over the keys of the causal band (j < i + 80 - 48 + 1) with
// the running max, sum and D; the max goes to the LSE buffer and log(l) to
// the correction apart, since their sum would round log(l) away when the max
// is huge.
// CHECK: gpu.launch {{.*}} in ({{.*}} = %c1, {{.*}} = %c4, {{.*}} = %c2) threads({{.*}}) in ({{.*}} = %c128, {{.*}}) private(%{{.*}} : memref<8xf32, #gpu.address_space<private>>, %{{.*}} : memref<16xf32, #gpu.address_space<private>>)
// CHECK: %[[BANDEND:.*]] = arith.addi %{{.*}}, %c33 : index
// CHECK: %[[END:.*]] = arith.minsi %c80, %[[BANDEND]] : index
// CHECK: scf.for {{.*}} = %c0 to %[[END]] step %c1 iter_args({{.*}}) -> (f32, f32, f32)
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: math.log
// CHECK: memref.store %{{.*}}, %[[LSE]]
// CHECK: memref.store %{{.*}}, %[[CORR]]
// CHECK: memref.store %{{.*}}, %[[DELTA]]
// CHECK: gpu.terminator
// Main: grid (ceil(Sk / 64), Hkv, B) x 64 threads; Q, dO, dS, P', LSE, D and c
// tiles of 64 rows in shared memory; K_j, V_j, dK_j, dV_j in private memory.
// CHECK: gpu.launch {{.*}} in ({{.*}} = %c2, {{.*}} = %c2, {{.*}} = %c2) threads({{.*}}) in ({{.*}} = %c64, {{.*}}) dynamic_shared_memory_size %c39680_i32 private(%{{[a-z0-9]+}} : memref<8xf32, #gpu.address_space<private>>, %{{[a-z0-9]+}} : memref<16xf32, #gpu.address_space<private>>, %[[DKROW:[a-z0-9]+]] : memref<8xf32, #gpu.address_space<private>>, %[[DVROW:[a-z0-9]+]] : memref<16xf32, #gpu.address_space<private>>)
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: %[[QT:.*]] = memref.view %[[SMEM]][%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x8xf32, #gpu.address_space<workgroup>>
// CHECK: %[[DOT:.*]] = memref.view %[[SMEM]][%c2048][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x16xf32, #gpu.address_space<workgroup>>
// CHECK: %[[DST:.*]] = memref.view %[[SMEM]][%c6144][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf32, #gpu.address_space<workgroup>>
// CHECK: %[[PT:.*]] = memref.view %[[SMEM]][%c22528][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf32, #gpu.address_space<workgroup>>
// CHECK: %[[LT:.*]] = memref.view %[[SMEM]][%c38912][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
// CHECK: %[[DT:.*]] = memref.view %[[SMEM]][%c39168][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
// CHECK: %[[CT:.*]] = memref.view %[[SMEM]][%c39424][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
// K and V are read once per kv head, before the loop over its R = 2 query
// heads and the query tiles from the first one that sees key j0 (causal:
// row j0 - 32).
// CHECK: memref.load %[[K]]
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %c-32 : index
// CHECK: %[[ROW0:.*]] = arith.maxsi %c0, %[[ROW]] : index
// CHECK: %[[FIRST:.*]] = arith.divui %[[ROW0]], %c64 : index
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1 {
// CHECK: scf.for %{{.*}} = %[[FIRST]] to %c1 step %c1 {
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[QT]]
// CHECK: memref.store %{{.*}}, %[[DOT]]
// CHECK: gpu.barrier
// Thread j against each row i of the tile: P = exp(t - LSE - c), then P'
// and dS into its column.
// CHECK: %[[C:.*]] = memref.load %[[CT]]
// CHECK: %[[L:.*]] = memref.load %[[LT]]
// CHECK: %[[TL:.*]] = arith.subf %{{.*}}, %[[L]] : f32
// CHECK: %[[TLC:.*]] = arith.subf %[[TL]], %[[C]] : f32
// CHECK: math.exp %[[TLC]]
// CHECK: memref.store %{{.*}}, %[[PT]][%{{.*}}, %arg7]
// CHECK: memref.store %{{.*}}, %[[DST]][%{{.*}}, %arg7]
// Then dV_j and dK_j, one read and write of the private rows per tile.
// CHECK: memref.load %[[PT]][%{{.*}}, %arg7]
// CHECK: memref.load %[[DOT]]
// CHECK: memref.store %{{.*}}, %[[DVROW]]
// CHECK: memref.load %[[DST]][%{{.*}}, %arg7]
// CHECK: memref.load %[[QT]]
// CHECK: memref.store %{{.*}}, %[[DKROW]]
// CHECK: gpu.barrier
// dQ: the block's sum over its keys, one atomic add per element.
// CHECK: memref.load %[[DST]]
// CHECK: memref.atomic_rmw addf %{{.*}}, %[[DQACC]][%{{.*}}] : (f32, memref<3072xf32>) -> f32
// dK and dV are written once, rounded to f16.
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: memref.store %{{.*}}, %[[DK]]
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: memref.store %{{.*}}, %[[DV]]
// CHECK: gpu.terminator
// Cast: dQ rounded to f16.
// CHECK: gpu.launch {{.*}} in ({{.*}} = %c12,
// CHECK: memref.load %[[DQACC]]
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: memref.store %{{.*}}, %[[DQ]]
// CHECK: gpu.terminator
// CHECK: %[[RQ:.*]] = bufferization.to_tensor %[[DQ]] restrict writable : memref<2x4x48x8xf16> to tensor<2x4x48x8xf16>
// CHECK: %[[RK:.*]] = bufferization.to_tensor %[[DK]] restrict writable
// CHECK: %[[RV:.*]] = bufferization.to_tensor %[[DV]] restrict writable
// CHECK: return %[[RQ]], %[[RK]], %[[RV]]
func.func @gqa_causal(%q: tensor<2x4x48x8xf16>, %k: tensor<2x2x80x8xf16>, %v: tensor<2x2x80x16xf16>, %do: tensor<2x4x48x16xf16>)
    -> (tensor<2x4x48x8xf16>, tensor<2x2x80x8xf16>, tensor<2x2x80x16xf16>) {
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do {causal}
      : tensor<2x4x48x8xf16>, tensor<2x2x80x8xf16>, tensor<2x2x80x16xf16>, tensor<2x4x48x16xf16>
      -> tensor<2x4x48x8xf16>, tensor<2x2x80x8xf16>, tensor<2x2x80x16xf16>
  return %dq, %dk, %dv : tensor<2x4x48x8xf16>, tensor<2x2x80x8xf16>, tensor<2x2x80x16xf16>
}

// -----

// An additive [Sq, Sk] mask: its adjoint accumulates atomically in f32 at
// the broadcast index i * 80 + j (summing over b and h), zeroed first and
// cast last. Softcap multiplies dS by 1 - tanh^2.
// CHECK-LABEL: func.func @additive_mask
// CHECK-DAG: %[[MASK:.*]] = bufferization.to_buffer %arg4 read_only : tensor<48x80xf32> to memref<48x80xf32>
// CHECK-DAG: %[[DMACC:.*]] = memref.alloc() : memref<3840xf32>
// CHECK-DAG: %[[DM:.*]] = memref.alloc() : memref<48x80xf32>
// CHECK: gpu.launch
// CHECK: gpu.launch
// CHECK: memref.store %{{.*}}, %[[DMACC]]
// CHECK: gpu.launch
// CHECK: math.tanh
// CHECK: memref.load %[[MASK]]
// CHECK: gpu.launch
// CHECK: math.tanh
// CHECK: memref.load %[[MASK]]
// CHECK: %[[ROW:.*]] = arith.muli %{{.*}}, %c80 : index
// CHECK: %[[FLAT:.*]] = arith.addi %[[ROW]], %{{.*}} : index
// CHECK: scf.if
// CHECK: memref.atomic_rmw addf %{{.*}}, %[[DMACC]][%[[FLAT]]] : (f32, memref<3840xf32>) -> f32
// CHECK: arith.mulf
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: gpu.launch
// CHECK: gpu.launch
// CHECK: memref.load %[[DMACC]]
// CHECK: memref.store %{{.*}}, %[[DM]]
// CHECK: %[[RM:.*]] = bufferization.to_tensor %[[DM]] restrict writable : memref<48x80xf32> to tensor<48x80xf32>
// CHECK: return %{{.*}}, %{{.*}}, %{{.*}}, %[[RM]]
func.func @additive_mask(%q: tensor<2x4x48x8xf32>, %k: tensor<2x4x80x8xf32>, %v: tensor<2x4x80x8xf32>, %do: tensor<2x4x48x8xf32>, %m: tensor<48x80xf32>)
    -> (tensor<2x4x48x8xf32>, tensor<2x4x80x8xf32>, tensor<2x4x80x8xf32>, tensor<48x80xf32>) {
  %dq, %dk, %dv, %dm = kiln.attention_grad %q, %k, %v, %do mask(%m : tensor<48x80xf32>) {softcap = 2.0 : f64}
      : tensor<2x4x48x8xf32>, tensor<2x4x80x8xf32>, tensor<2x4x80x8xf32>, tensor<2x4x48x8xf32>
      -> tensor<2x4x48x8xf32>, tensor<2x4x80x8xf32>, tensor<2x4x80x8xf32>, tensor<48x80xf32>
  return %dq, %dk, %dv, %dm : tensor<2x4x48x8xf32>, tensor<2x4x80x8xf32>, tensor<2x4x80x8xf32>, tensor<48x80xf32>
}

// -----

// MQA with a per-head boolean mask, both lengths, a window and dropout: the
// predicate reads the mask and the lengths from buffers (the CPU lowering's
// builders), and both kernels redraw dropout's Philox bits from the seed.
// CHECK-LABEL: func.func @masked_dropout
// CHECK-DAG: %[[MASK:.*]] = bufferization.to_buffer %arg4 read_only : tensor<1x4x48x80xi1> to memref<1x4x48x80xi1>
// CHECK-DAG: %[[KL:.*]] = bufferization.to_buffer %arg5 read_only : tensor<2xi32> to memref<2xi32>
// CHECK-DAG: %[[QL:.*]] = bufferization.to_buffer %arg6 read_only : tensor<2xi64> to memref<2xi64>
// CHECK-DAG: %[[SEED:.*]] = bufferization.to_buffer %arg7 read_only : tensor<i64> to memref<i64>
// Preprocess, then main: each loads the seed and the predicate's operands.
// CHECK: gpu.launch
// CHECK: gpu.launch
// CHECK: memref.load %[[SEED]][] : memref<i64>
// The preprocess visits keys max(0, i + 32 - 2) .. min(80, i + 32 + 1 + 1)
// only: the band's first key i + minDistance and end key
// i + maxDistance + 1.
// CHECK: %[[LO:.*]] = arith.addi %{{.*}}, %c30 : index
// CHECK: %[[FIRST:.*]] = arith.maxsi %c0, %[[LO]] : index
// CHECK: %[[HI:.*]] = arith.addi %{{.*}}, %c34 : index
// CHECK: %[[END:.*]] = arith.minsi %c80, %[[HI]] : index
// CHECK: scf.for %{{.*}} = %[[FIRST]] to %[[END]] step %c1
// CHECK: memref.load %[[KL]][%{{.*}}] : memref<2xi32>
// CHECK: arith.muli %{{.*}}, %c3528531795_i64 : i64
// CHECK: gpu.launch
// CHECK: memref.load %[[SEED]][] : memref<i64>
// The query tiles end with the one of row min(j0 + 63, 79) + 2 - 32: the
// band's end row of the block's last key is that + 1, and the tiles
// ceil(max(0, end) / 64), at most 1.
// CHECK: %[[LAST:.*]] = arith.minsi %{{.*}}, %c79 : index
// CHECK: %[[ROWEND:.*]] = arith.addi %[[LAST]], %c-29 : index
// CHECK: %[[POS:.*]] = arith.maxsi %c0, %[[ROWEND]] : index
// CHECK: %[[UP:.*]] = arith.addi %[[POS]], %c63 : index
// CHECK: %[[TILES:.*]] = arith.divui %[[UP]], %c64 : index
// CHECK: %[[TILEEND:.*]] = arith.minsi %c1, %[[TILES]] : index
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 {
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[TILEEND]] step %c1 {
// CHECK: memref.load %[[KL]][%{{.*}}] : memref<2xi32>
// CHECK: memref.load %[[QL]][%{{.*}}] : memref<2xi64>
// CHECK: memref.load %[[MASK]][%c0, %{{.*}}, %{{.*}}, %{{.*}}] : memref<1x4x48x80xi1>
// CHECK: arith.muli %{{.*}}, %c3528531795_i64 : i64
// CHECK-NOT: memref.atomic_rmw addf {{.*}} memref<2x
// CHECK: memref.atomic_rmw addf
// CHECK: gpu.terminator
func.func @masked_dropout(%q: tensor<2x4x48x8xbf16>, %k: tensor<2x1x80x8xbf16>, %v: tensor<2x1x80x8xbf16>, %do: tensor<2x4x48x8xbf16>, %m: tensor<1x4x48x80xi1>, %kl: tensor<2xi32>, %ql: tensor<2xi64>, %s: tensor<i64>)
    -> (tensor<2x4x48x8xbf16>, tensor<2x1x80x8xbf16>, tensor<2x1x80x8xbf16>) {
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do mask(%m : tensor<1x4x48x80xi1>) key_lengths(%kl : tensor<2xi32>) query_lengths(%ql : tensor<2xi64>) seed(%s : tensor<i64>) {window_left = 2 : i64, window_right = 1 : i64, dropout_p = 0.25 : f64}
      : tensor<2x4x48x8xbf16>, tensor<2x1x80x8xbf16>, tensor<2x1x80x8xbf16>, tensor<2x4x48x8xbf16>
      -> tensor<2x4x48x8xbf16>, tensor<2x1x80x8xbf16>, tensor<2x1x80x8xbf16>
  return %dq, %dk, %dv : tensor<2x4x48x8xbf16>, tensor<2x1x80x8xbf16>, tensor<2x1x80x8xbf16>
}

// -----

// The query tile shrinks to fit 40 KiB of shared memory: Dk = Dv = 128 gives
// 16 rows (Q and dO tiles 16 x 128, dS and P' 16 x 64).
// CHECK-LABEL: func.func @head_dim_128
// CHECK: dynamic_shared_memory_size %c24768_i32
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory
// CHECK-NEXT: memref.view %[[SMEM]][%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16x128xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: memref.view %[[SMEM]][%c8192][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16x128xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: memref.view %[[SMEM]][%c16384][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16x64xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: memref.view %[[SMEM]][%c20480][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16x64xf32, #gpu.address_space<workgroup>>
func.func @head_dim_128(%q: tensor<1x2x40x128xf32>, %k: tensor<1x2x40x128xf32>, %v: tensor<1x2x40x128xf32>, %do: tensor<1x2x40x128xf32>)
    -> (tensor<1x2x40x128xf32>, tensor<1x2x40x128xf32>, tensor<1x2x40x128xf32>) {
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do
      : tensor<1x2x40x128xf32>, tensor<1x2x40x128xf32>, tensor<1x2x40x128xf32>, tensor<1x2x40x128xf32>
      -> tensor<1x2x40x128xf32>, tensor<1x2x40x128xf32>, tensor<1x2x40x128xf32>
  return %dq, %dk, %dv : tensor<1x2x40x128xf32>, tensor<1x2x40x128xf32>, tensor<1x2x40x128xf32>
}

// -----

// Left to the generic path: f64, a head dim above 256, dynamic shapes.
// CHECK-LABEL: func.func @not_supported
// CHECK-NOT: gpu.launch
// CHECK: kiln.attention_grad {{.*}} -> tensor<1x1x4x8xf64>
// CHECK: kiln.attention_grad {{.*}} -> tensor<1x1x4x512xf32>
// CHECK-NOT: gpu.launch
func.func @not_supported(%q: tensor<1x1x4x8xf64>, %w: tensor<1x1x4x512xf32>)
    -> (tensor<1x1x4x8xf64>, tensor<1x1x4x512xf32>) {
  %dq, %dk, %dv = kiln.attention_grad %q, %q, %q, %q
      : tensor<1x1x4x8xf64>, tensor<1x1x4x8xf64>, tensor<1x1x4x8xf64>, tensor<1x1x4x8xf64>
      -> tensor<1x1x4x8xf64>, tensor<1x1x4x8xf64>, tensor<1x1x4x8xf64>
  %wq, %wk, %wv = kiln.attention_grad %w, %w, %w, %w
      : tensor<1x1x4x512xf32>, tensor<1x1x4x512xf32>, tensor<1x1x4x512xf32>, tensor<1x1x4x512xf32>
      -> tensor<1x1x4x512xf32>, tensor<1x1x4x512xf32>, tensor<1x1x4x512xf32>
  return %dq, %wq : tensor<1x1x4x8xf64>, tensor<1x1x4x512xf32>
}
