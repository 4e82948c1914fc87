// RUN: kiln-opt %s --convert-kiln-attention-to-gpu="deterministic" --split-input-file \
// RUN:   | FileCheck %s --check-prefixes=CHECK,MMA --implicit-check-not=atomic --implicit-check-not=all_reduce
// RUN: kiln-opt %s --convert-kiln-attention-to-gpu="deterministic tensor-cores=false" --split-input-file \
// RUN:   | FileCheck %s --check-prefixes=CHECK,SIMT --implicit-check-not=atomic --implicit-check-not=all_reduce
// Through the whole GPU pipeline (its kernels compiled for the emulator:
// no CUDA toolkit needed), the ops left to the generic lowering included:
// no atomic read-modify-write anywhere.
// RUN: kiln-opt %s --kiln-lower-to-nvvm="emulate deterministic" --split-input-file \
// RUN:   | FileCheck %s --check-prefix=EMU --implicit-check-not=atomicrmw --implicit-check-not=cmpxchg

// The deterministic backward (docs/GPUAttentionBackward.md, "Deterministic
// backward"): what the option changes, only. No f32 dQ accumulator, so no
// zero or cast kernel for it; the main kernel (tensor cores by default,
// SIMT with tensor-cores=false) adds nothing atomically; a dQ kernel with
// one thread per query row (the preprocess's grid) walks the row's causal
// band of keys, recomputes dS (with the dropout draw) and writes dQ once.
// CHECK-LABEL: func.func @gqa_causal_dropout
// CHECK-NOT: memref.alloc() : memref<6144xf32>
// CHECK-DAG: %[[LSE:.*]] = memref.alloc() : memref<384xf32>
// CHECK-DAG: %[[CORR:.*]] = memref.alloc() : memref<384xf32>
// CHECK-DAG: %[[DELTA:.*]] = memref.alloc() : memref<384xf32>
// CHECK-DAG: %[[DQ:.*]] = memref.alloc() : memref<2x4x48x16xf16>
// CHECK-NOT: memref.alloc() : memref<6144xf32>
// The first launch is the preprocess (no zero kernel).
// CHECK: gpu.launch {{.*}} in ({{.*}} = %c1, {{.*}} = %c4, {{.*}} = %c2) threads({{.*}}) in ({{.*}} = %c128,
// CHECK: memref.store %{{.*}}, %[[DELTA]][
// CHECK: gpu.terminator
// The main kernel: 128 threads with mma, 64 SIMT; it writes dK and dV only.
// MMA: gpu.launch {{.*}} in ({{.*}} = %c2, {{.*}} = %c2, {{.*}} = %c2) threads({{.*}}) in ({{.*}} = %c128,
// MMA: nvvm.mma.sync
// SIMT: gpu.launch {{.*}} in ({{.*}} = %c2, {{.*}} = %c2, {{.*}} = %c2) threads({{.*}}) in ({{.*}} = %c64,
// CHECK-NOT: %[[DQ]][
// CHECK: gpu.terminator
// The dQ kernel: (ceil(Sq / 128), Hq, B) x 128, the row's Q, dO and dQ in
// private memory, keys j < i + 80 - 48 + 1 of the causal band in order.
// CHECK: gpu.launch {{.*}} in ({{.*}} = %c1, {{.*}} = %c4, {{.*}} = %c2) threads({{.*}}) in ({{.*}} = %c128, {{.*}}) private(%{{[a-z0-9]+}} : memref<16xf32, #gpu.address_space<private>>, %{{[a-z0-9]+}} : memref<32xf32, #gpu.address_space<private>>, %[[DQROW:[a-z0-9]+]] : memref<16xf32, #gpu.address_space<private>>)
// CHECK-NOT: gpu.barrier
// CHECK: %[[BANDEND:.*]] = arith.addi %{{.*}}, %c33 : index
// CHECK: %[[END:.*]] = arith.minsi %c80, %[[BANDEND]] : index
// CHECK: scf.for {{.*}} = %c0 to %[[END]] step %c1 {
// CHECK-DAG: memref.load %[[LSE]][
// CHECK-DAG: memref.load %[[CORR]][
// CHECK: math.exp
// Philox's rounds (the dropout keep bit, as the main kernel draws it), then
// D and the sum dQ_i += dS K_j.
// CHECK: arith.muli %{{.*}}, %c3528531795_i64 : i64
// CHECK: memref.load %[[DELTA]][
// CHECK: memref.store %{{.*}}, %[[DQROW]][
// CHECK: }
// CHECK-NOT: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[DQ]][
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: %[[RQ:.*]] = bufferization.to_tensor %[[DQ]] restrict writable
// CHECK: return %[[RQ]]
// EMU-LABEL: llvm.func @_mlir_ciface_gqa_causal_dropout
func.func @gqa_causal_dropout(%q: tensor<2x4x48x16xf16>, %k: tensor<2x2x80x16xf16>, %v: tensor<2x2x80x32xf16>, %do: tensor<2x4x48x32xf16>, %s: tensor<i64>)
    -> (tensor<2x4x48x16xf16>, tensor<2x2x80x16xf16>, tensor<2x2x80x32xf16>) {
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do seed(%s : tensor<i64>) {causal, dropout_p = 0.25 : f64}
      : tensor<2x4x48x16xf16>, tensor<2x2x80x16xf16>, tensor<2x2x80x32xf16>, tensor<2x4x48x32xf16>
      -> tensor<2x4x48x16xf16>, tensor<2x2x80x16xf16>, tensor<2x2x80x32xf16>
  return %dq, %dk, %dv : tensor<2x4x48x16xf16>, tensor<2x2x80x16xf16>, tensor<2x2x80x32xf16>
}

// -----

// The forward's O and LSE, with sinks (what kiln-autodiff emits): the dQ
// kernel reads the given LSE (collapsed, as the main kernel does) and the
// saved preprocess's correction and D; d_sinks keeps its kernel (one
// thread per head, rows in order: deterministic already).
// CHECK-LABEL: func.func @saved_forward_sinks
// CHECK: %[[LSE:.*]] = memref.collapse_shape
// CHECK: %[[DQ:.*]] = memref.alloc() : memref<1x2x3x4xf32>
// CHECK: %[[DS:.*]] = memref.alloc() : memref<2xf32>
// CHECK: gpu.launch
// CHECK: gpu.launch
// CHECK: memref.store %{{.*}}, %[[DS]][
// CHECK: gpu.launch
// CHECK: gpu.launch {{.*}} in ({{.*}} = %c1, {{.*}} = %c2, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c128, {{.*}}) private(
// CHECK: scf.for
// CHECK: memref.load %[[LSE]][
// CHECK: memref.store %{{.*}}, %[[DQ]][
// CHECK-NOT: gpu.launch
// CHECK: return
// EMU-LABEL: llvm.func @_mlir_ciface_saved_forward_sinks
func.func @saved_forward_sinks(%q: tensor<1x2x3x4xf32>, %k: tensor<1x1x5x4xf32>, %v: tensor<1x1x5x4xf32>, %do: tensor<1x2x3x4xf32>, %s: tensor<2xf32>, %o: tensor<1x2x3x4xf32>, %lse: tensor<1x2x3xf32>)
    -> (tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x4xf32>, tensor<2xf32>) {
  %dq, %dk, %dv, %ds = kiln.attention_grad %q, %k, %v, %do sinks(%s : tensor<2xf32>) out(%o : tensor<1x2x3x4xf32>) lse(%lse : tensor<1x2x3xf32>) {causal}
      : tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x4xf32>, tensor<1x2x3x4xf32>
      -> tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x4xf32>, tensor<2xf32>
  return %dq, %dk, %dv, %ds : tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x4xf32>, tensor<2xf32>
}

// -----

// An additive mask's gradient d_mask (which broadcasts over b, h, i or j)
// is summed with atomics by the main kernels: in deterministic mode the op
// goes the generic way, as f64 does (f32 and f16, SIMT and tensor cores).
// CHECK-LABEL: func.func @additive_mask
// CHECK-NOT: gpu.launch
// CHECK: kiln.attention_grad {{.*}} mask(%{{.*}} : tensor<48x80xf32>)
// CHECK-NOT: gpu.launch
// CHECK: kiln.attention_grad {{.*}} mask(%{{.*}} : tensor<1x1x48x80xf16>)
// CHECK-NOT: gpu.launch
// CHECK: return
// EMU-LABEL: llvm.func @_mlir_ciface_additive_mask
func.func @additive_mask(%q: tensor<2x4x48x8xf32>, %k: tensor<2x4x80x8xf32>, %v: tensor<2x4x80x8xf32>, %do: tensor<2x4x48x8xf32>, %m: tensor<48x80xf32>,
                         %qh: tensor<1x2x48x16xf16>, %kh: tensor<1x2x80x16xf16>, %mh: tensor<1x1x48x80xf16>)
    -> (tensor<2x4x48x8xf32>, tensor<48x80xf32>, tensor<1x2x48x16xf16>, tensor<1x1x48x80xf16>) {
  %dq, %dk, %dv, %dm = kiln.attention_grad %q, %k, %v, %do mask(%m : tensor<48x80xf32>) {softcap = 2.0 : f64}
      : tensor<2x4x48x8xf32>, tensor<2x4x80x8xf32>, tensor<2x4x80x8xf32>, tensor<2x4x48x8xf32>
      -> tensor<2x4x48x8xf32>, tensor<2x4x80x8xf32>, tensor<2x4x80x8xf32>, tensor<48x80xf32>
  %dqh, %dkh, %dvh, %dmh = kiln.attention_grad %qh, %kh, %kh, %qh mask(%mh : tensor<1x1x48x80xf16>)
      : tensor<1x2x48x16xf16>, tensor<1x2x80x16xf16>, tensor<1x2x80x16xf16>, tensor<1x2x48x16xf16>
      -> tensor<1x2x48x16xf16>, tensor<1x2x80x16xf16>, tensor<1x2x80x16xf16>, tensor<1x1x48x80xf16>
  return %dq, %dm, %dqh, %dmh : tensor<2x4x48x8xf32>, tensor<48x80xf32>, tensor<1x2x48x16xf16>, tensor<1x1x48x80xf16>
}
