// RUN: kiln-opt %s --convert-kiln-attention-to-gpu --split-input-file | FileCheck %s
// RUN: kiln-opt %s --convert-kiln-attention-to-gpu="tensor-cores=false" --split-input-file | FileCheck %s --check-prefix=SIMT

// The forward with its lse result: an f32 [B, Hq, Sq] buffer that the kernel
// (tensor-core for f16 by default, SIMT with tensor-cores=false) writes with
// m + log l after its last key tile, returned as the op's second result.
// CHECK-LABEL: func.func @forward_lse
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<1x2x70x16xf16>
// CHECK: %[[LSE:.*]] = memref.alloc() : memref<1x2x70xf32>
// CHECK: gpu.launch
// CHECK: nvvm.mma.sync
// CHECK: math.log
// CHECK: memref.store %{{.*}}, %[[LSE]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<1x2x70xf32>
// CHECK: gpu.terminator
// CHECK: %[[O:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<1x2x70x16xf16> to tensor<1x2x70x16xf16>
// CHECK: %[[L:.*]] = bufferization.to_tensor %[[LSE]] restrict writable : memref<1x2x70xf32> to tensor<1x2x70xf32>
// CHECK: return %[[O]], %[[L]]
// SIMT-LABEL: func.func @forward_lse
// SIMT: %[[LSE:.*]] = memref.alloc() : memref<1x2x70xf32>
// SIMT: gpu.launch {{.*}} private(
// SIMT-NOT: nvvm.mma.sync
// SIMT: math.log
// SIMT: memref.store %{{.*}}, %[[LSE]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<1x2x70xf32>
// SIMT: gpu.terminator
// SIMT: %[[L:.*]] = bufferization.to_tensor %[[LSE]]
// SIMT: return %{{.*}}, %[[L]]
func.func @forward_lse(%q: tensor<1x2x70x64xf16>, %k: tensor<1x2x80x64xf16>, %v: tensor<1x2x80x16xf16>) -> (tensor<1x2x70x16xf16>, tensor<1x2x70xf32>) {
  %o, %l = kiln.attention %q, %k, %v : tensor<1x2x70x64xf16>, tensor<1x2x80x64xf16>, tensor<1x2x80x16xf16> -> tensor<1x2x70x16xf16>, tensor<1x2x70xf32>
  return %o, %l : tensor<1x2x70x16xf16>, tensor<1x2x70xf32>
}

// -----

// Without the lse result nothing is written besides O.
// CHECK-LABEL: func.func @forward_no_lse
// CHECK-NOT: memref<1x2x70xf32>
// CHECK: return
func.func @forward_no_lse(%q: tensor<1x2x70x64xf16>, %k: tensor<1x2x80x64xf16>, %v: tensor<1x2x80x16xf16>) -> tensor<1x2x70x16xf16> {
  %o = kiln.attention %q, %k, %v : tensor<1x2x70x64xf16>, tensor<1x2x80x64xf16>, tensor<1x2x80x16xf16> -> tensor<1x2x70x16xf16>
  return %o : tensor<1x2x70x16xf16>
}

// -----

// The backward with the forward's O and LSE (as kiln-autodiff pairs them):
// the LSE buffer is the main kernel's [B * Hq * Sq] as it is (a
// collapse_shape, no copy, no allocation of it), and the preprocess walks no
// key on its common path: no private rows, one loop over Dv per row
// computing D = dO . O, no max, exp or log, no read of K or V. Only a row
// whose |LSE| is finite and above 256 walks the keys of its band, for its
// correction c = log(sum_j exp(t - LSE)) (docs/Attention.md, "Adjoint").
// CHECK-LABEL: func.func @backward_saved
// CHECK-SAME: %[[DOARG:[^:]*]]: tensor<2x4x48x16xf16>, %[[OARG:[^:]*]]: tensor<2x4x48x16xf16>, %[[LARG:[^:]*]]: tensor<2x4x48xf32>
// CHECK-DAG: %[[K:.*]] = bufferization.to_buffer %arg1 read_only
// CHECK-DAG: %[[V:.*]] = bufferization.to_buffer %arg2 read_only
// CHECK-DAG: %[[DO:.*]] = bufferization.to_buffer %[[DOARG]] read_only
// CHECK-DAG: %[[LB:.*]] = bufferization.to_buffer %[[LARG]] read_only : tensor<2x4x48xf32> to memref<2x4x48xf32>
// CHECK-DAG: %[[BOUND:.*]] = arith.constant 2.560000e+02 : f32
// CHECK-DAG: %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK: %[[LSE:.*]] = memref.collapse_shape %[[LB]] {{\[\[}}0, 1, 2]] : memref<2x4x48xf32> into memref<384xf32>
// CHECK: %[[CORR:.*]] = memref.alloc() : memref<384xf32>
// CHECK: %[[DELTA:.*]] = memref.alloc() : memref<384xf32>
// CHECK-NOT: memref.alloc() : memref<384xf32>
// CHECK: gpu.terminator
// CHECK: %[[O:.*]] = bufferization.to_buffer %[[OARG]] read_only
// Preprocess: grid (1, Hq, B) x 128, D only, one thread per row; 16 bytes
// of dO and O per load when both are 16-byte aligned (element by element
// otherwise), the products added in order of d either way.
// CHECK: gpu.launch {{.*}} in ({{.*}} = %c1, {{.*}} = %c4, {{.*}} = %c2) threads({{.*}}) in ({{.*}} = %c128, {{.*}}) {
// CHECK-NOT: private
// CHECK: %[[ALIGNED:.*]] = arith.andi
// CHECK: scf.if %[[ALIGNED]] -> (f32) {
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c8 iter_args(%{{.*}} = %{{.*}}) -> (f32) {
// CHECK-NOT: memref.load %[[K]][
// CHECK-NOT: memref.load %[[V]][
// CHECK-NOT: arith.maximumf
// CHECK-NOT: math.exp
// CHECK: %[[DOV:.*]] = vector.load %[[DO]][{{.*}}] {alignment = 16 : i64} : memref<2x4x48x16xf16>, vector<8xf16>
// CHECK: %[[OV:.*]] = vector.load %[[O]][{{.*}}] {alignment = 16 : i64} : memref<2x4x48x16xf16>, vector<8xf16>
// CHECK: vector.extract %[[DOV]][0]
// CHECK: vector.extract %[[OV]][0]
// CHECK: vector.extract %[[DOV]][7]
// CHECK: vector.extract %[[OV]][7]
// CHECK: } else {
// CHECK: memref.load %[[DO]]
// CHECK: memref.load %[[O]]
// CHECK-NOT: arith.maximumf
// CHECK-NOT: math.exp
// CHECK-NOT: math.log
// CHECK: memref.store %{{.*}}, %[[DELTA]][%{{.*}}] : memref<384xf32>
// CHECK-NEXT: %[[ROWLSE:.*]] = memref.load %[[LSE]][%{{.*}}] : memref<384xf32>
// CHECK-NEXT: memref.store %{{.*}}, %[[CORR]]
// CHECK-NEXT: %[[ABS:.*]] = math.absf %[[ROWLSE]] : f32
// CHECK-NEXT: %[[BIG:.*]] = arith.cmpf ogt, %[[ABS]], %[[BOUND]] : f32
// CHECK-NEXT: %[[FINITE:.*]] = arith.cmpf olt, %[[ABS]], %[[INF]] : f32
// CHECK-NEXT: %[[RENORM:.*]] = arith.andi %[[BIG]], %[[FINITE]] : i1
// CHECK-NEXT: scf.if %[[RENORM]] {
// CHECK: scf.for
// CHECK: memref.load %[[K]][
// CHECK: %[[SHIFTED:.*]] = arith.subf %{{.*}}, %[[ROWLSE]] : f32
// CHECK-NEXT: math.exp %[[SHIFTED]]
// CHECK: math.log
// CHECK-NEXT: memref.store %{{.*}}, %[[CORR]]
// CHECK: gpu.terminator
// Main: reads the given LSE and the correction.
// CHECK: gpu.launch {{.*}} in ({{.*}} = %c2, {{.*}} = %c2, {{.*}} = %c2) threads({{.*}}) in ({{.*}} = %c64,
// CHECK: memref.load %[[LSE]][%{{.*}}] : memref<384xf32>
// CHECK: memref.load %[[DELTA]][%{{.*}}] : memref<384xf32>
// CHECK: memref.load %[[CORR]][%{{.*}}] : memref<384xf32>
// CHECK: math.exp
// CHECK: gpu.terminator
func.func @backward_saved(%q: tensor<2x4x48x8xf16>, %k: tensor<2x2x80x8xf16>, %v: tensor<2x2x80x16xf16>, %do: tensor<2x4x48x16xf16>,
                          %o: tensor<2x4x48x16xf16>, %lse: tensor<2x4x48xf32>)
    -> (tensor<2x4x48x8xf16>, tensor<2x2x80x8xf16>, tensor<2x2x80x16xf16>) {
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do out(%o : tensor<2x4x48x16xf16>) lse(%lse : tensor<2x4x48xf32>) {causal}
      : tensor<2x4x48x8xf16>, tensor<2x2x80x8xf16>, tensor<2x2x80x16xf16>, tensor<2x4x48x16xf16>
      -> tensor<2x4x48x8xf16>, tensor<2x2x80x8xf16>, tensor<2x2x80x16xf16>
  return %dq, %dk, %dv : tensor<2x4x48x8xf16>, tensor<2x2x80x8xf16>, tensor<2x2x80x16xf16>
}
