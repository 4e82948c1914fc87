// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --emit-bytecode | kiln-opt | FileCheck %s

// Without an additive mask: dQ, dK, dV only.
// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x3x8xf32>, %[[K:.*]]: tensor<2x2x5x8xf32>, %[[V:.*]]: tensor<2x2x5x16xf32>, %[[DO:.*]]: tensor<2x4x3x16xf32>)
// CHECK: kiln.attention_grad %[[Q]], %[[K]], %[[V]], %[[DO]] {causal} : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x16xf32>, tensor<2x4x3x16xf32> -> tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x16xf32>
func.func @plain(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x16xf32>, %do: tensor<2x4x3x16xf32>)
    -> (tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x16xf32>) {
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do {causal}
      : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x16xf32>, tensor<2x4x3x16xf32>
      -> tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x16xf32>
  return %dq, %dk, %dv : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x16xf32>
}

// An additive mask gets its adjoint in its own type; every optional operand
// and attribute.
// CHECK-LABEL: func.func @everything
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x3x8xf32>, %[[K:.*]]: tensor<2x2x5x8xf32>, %[[V:.*]]: tensor<2x2x5x8xf32>, %[[DO:.*]]: tensor<2x4x3x8xf32>, %[[M:.*]]: tensor<1x4x1x5xf32>, %[[KL:.*]]: tensor<2xi32>, %[[QL:.*]]: tensor<2xi64>, %[[S:.*]]: tensor<i64>)
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = kiln.attention_grad %[[Q]], %[[K]], %[[V]], %[[DO]] mask(%[[M]] : tensor<1x4x1x5xf32>) key_lengths(%[[KL]] : tensor<2xi32>) query_lengths(%[[QL]] : tensor<2xi64>) seed(%[[S]] : tensor<i64>) {alignment = #kiln.alignment<top_left>, dropout_p = 1.000000e-01 : f64, scale = 5.000000e-01 : f64, softcap = 3.000000e+01 : f64, window_left = 2 : i64, window_right = 1 : i64} : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>, tensor<2x4x3x8xf32> -> tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>, tensor<1x4x1x5xf32>
func.func @everything(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x8xf32>, %do: tensor<2x4x3x8xf32>,
                      %m: tensor<1x4x1x5xf32>, %kl: tensor<2xi32>, %ql: tensor<2xi64>, %s: tensor<i64>) -> tensor<1x4x1x5xf32> {
  %dq, %dk, %dv, %dm = kiln.attention_grad %q, %k, %v, %do mask(%m : tensor<1x4x1x5xf32>)
      key_lengths(%kl : tensor<2xi32>) query_lengths(%ql : tensor<2xi64>) seed(%s : tensor<i64>)
      {alignment = #kiln.alignment<top_left>, dropout_p = 0.1 : f64, scale = 0.5 : f64,
       softcap = 30.0 : f64, window_left = 2 : i64, window_right = 1 : i64}
      : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>, tensor<2x4x3x8xf32>
      -> tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>, tensor<1x4x1x5xf32>
  return %dm : tensor<1x4x1x5xf32>
}

// The forward's O and LSE, after every other optional operand.
// CHECK-LABEL: func.func @saved_forward
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x3x4xbf16>, %[[K:.*]]: tensor<1x1x5x4xbf16>, %[[V:.*]]: tensor<1x1x5x2xbf16>, %[[DO:.*]]: tensor<1x2x3x2xbf16>, %[[KL:.*]]: tensor<1xi32>, %[[O:.*]]: tensor<1x2x3x2xbf16>, %[[L:.*]]: tensor<1x2x3xf32>)
// CHECK: kiln.attention_grad %[[Q]], %[[K]], %[[V]], %[[DO]] key_lengths(%[[KL]] : tensor<1xi32>) out(%[[O]] : tensor<1x2x3x2xbf16>) lse(%[[L]] : tensor<1x2x3xf32>) {causal} : tensor<1x2x3x4xbf16>, tensor<1x1x5x4xbf16>, tensor<1x1x5x2xbf16>, tensor<1x2x3x2xbf16> -> tensor<1x2x3x4xbf16>, tensor<1x1x5x4xbf16>, tensor<1x1x5x2xbf16>
func.func @saved_forward(%q: tensor<1x2x3x4xbf16>, %k: tensor<1x1x5x4xbf16>, %v: tensor<1x1x5x2xbf16>, %do: tensor<1x2x3x2xbf16>,
                         %kl: tensor<1xi32>, %o: tensor<1x2x3x2xbf16>, %lse: tensor<1x2x3xf32>)
    -> (tensor<1x2x3x4xbf16>, tensor<1x1x5x4xbf16>, tensor<1x1x5x2xbf16>) {
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do key_lengths(%kl : tensor<1xi32>)
      out(%o : tensor<1x2x3x2xbf16>) lse(%lse : tensor<1x2x3xf32>) {causal}
      : tensor<1x2x3x4xbf16>, tensor<1x1x5x4xbf16>, tensor<1x1x5x2xbf16>, tensor<1x2x3x2xbf16>
      -> tensor<1x2x3x4xbf16>, tensor<1x1x5x4xbf16>, tensor<1x1x5x2xbf16>
  return %dq, %dk, %dv : tensor<1x2x3x4xbf16>, tensor<1x1x5x4xbf16>, tensor<1x1x5x2xbf16>
}

// ALiBi slopes come between the seed and the saved forward.
// CHECK-LABEL: func.func @alibi
// CHECK: kiln.attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} alibi_slopes(%{{.*}} : tensor<2xf32>) out(%{{.*}} : tensor<1x2x3x2xf32>) lse(%{{.*}} : tensor<1x2x3xf32>) :
func.func @alibi(%q: tensor<1x2x3x4xf32>, %k: tensor<1x1x5x4xf32>, %v: tensor<1x1x5x2xf32>, %do: tensor<1x2x3x2xf32>,
                 %s: tensor<2xf32>, %o: tensor<1x2x3x2xf32>, %lse: tensor<1x2x3xf32>)
    -> (tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x2xf32>) {
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do alibi_slopes(%s : tensor<2xf32>)
      out(%o : tensor<1x2x3x2xf32>) lse(%lse : tensor<1x2x3xf32>)
      : tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x2xf32>, tensor<1x2x3x2xf32>
      -> tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x2xf32>
  return %dq, %dk, %dv : tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x2xf32>
}

// The sinks' adjoint follows d_mask, also without one.
// CHECK-LABEL: func.func @sinks
// CHECK: kiln.attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} sinks(%{{.*}} : tensor<2xf32>) out(%{{.*}} : tensor<1x2x3x2xf32>) lse(%{{.*}} : tensor<1x2x3xf32>) : {{.*}} -> tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x2xf32>, tensor<2xf32>
// CHECK: kiln.attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} mask(%{{.*}} : tensor<3x5xf32>) sinks(%{{.*}} : tensor<2xf32>) : {{.*}} -> tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x2xf32>, tensor<3x5xf32>, tensor<2xf32>
// CHECK: kiln.attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} mask(%{{.*}} : tensor<3x5xi1>) sinks(%{{.*}} : tensor<2xf32>) : {{.*}} -> tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x2xf32>, tensor<2xf32>
func.func @sinks(%q: tensor<1x2x3x4xf32>, %k: tensor<1x1x5x4xf32>, %v: tensor<1x1x5x2xf32>, %do: tensor<1x2x3x2xf32>,
                 %s: tensor<2xf32>, %o: tensor<1x2x3x2xf32>, %lse: tensor<1x2x3xf32>,
                 %m: tensor<3x5xf32>, %b: tensor<3x5xi1>)
    -> (tensor<2xf32>, tensor<3x5xf32>, tensor<2xf32>, tensor<2xf32>) {
  %dq, %dk, %dv, %ds = kiln.attention_grad %q, %k, %v, %do sinks(%s : tensor<2xf32>)
      out(%o : tensor<1x2x3x2xf32>) lse(%lse : tensor<1x2x3xf32>)
      : tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x2xf32>, tensor<1x2x3x2xf32>
      -> tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x2xf32>, tensor<2xf32>
  %dq2, %dk2, %dv2, %dm2, %ds2 = kiln.attention_grad %q, %k, %v, %do mask(%m : tensor<3x5xf32>) sinks(%s : tensor<2xf32>)
      : tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x2xf32>, tensor<1x2x3x2xf32>
      -> tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x2xf32>, tensor<3x5xf32>, tensor<2xf32>
  %dq3, %dk3, %dv3, %ds3 = kiln.attention_grad %q, %k, %v, %do mask(%b : tensor<3x5xi1>) sinks(%s : tensor<2xf32>)
      : tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x2xf32>, tensor<1x2x3x2xf32>
      -> tensor<1x2x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x2xf32>, tensor<2xf32>
  return %ds, %dm2, %ds2, %ds3 : tensor<2xf32>, tensor<3x5xf32>, tensor<2xf32>, tensor<2xf32>
}

// Packed sequences, after the sinks and before out/lse.
// CHECK-LABEL: func.func @packed_sequences
// CHECK: kiln.attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} cu_seqlens(%{{.*}}, %{{.*}} : tensor<3xi32>, tensor<3xi32>) out(%{{.*}} : tensor<1x2x6x2xf32>) lse(%{{.*}} : tensor<1x2x6xf32>) {causal} : {{.*}} -> tensor<1x2x6x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x2xf32>
func.func @packed_sequences(%q: tensor<1x2x6x4xf32>, %k: tensor<1x1x5x4xf32>, %v: tensor<1x1x5x2xf32>, %do: tensor<1x2x6x2xf32>,
                            %o: tensor<1x2x6x2xf32>, %lse: tensor<1x2x6xf32>, %cq: tensor<3xi32>, %ck: tensor<3xi32>)
    -> tensor<1x2x6x4xf32> {
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do cu_seqlens(%cq, %ck : tensor<3xi32>, tensor<3xi32>)
      out(%o : tensor<1x2x6x2xf32>) lse(%lse : tensor<1x2x6xf32>) {causal}
      : tensor<1x2x6x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x2xf32>, tensor<1x2x6x2xf32>
      -> tensor<1x2x6x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x2xf32>
  return %dq : tensor<1x2x6x4xf32>
}
