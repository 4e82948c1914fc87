// The larger parallel regions of the OpenMP stage give the same bits on any
// number of threads, and the same as without OpenMP: attention's forall over
// its query blocks (forward) and its (b, g) pairs (adjoint: d_mask partials
// per b or per kv head, d_sinks partials per b, summed in order after the
// loop), and the matmul kernels' parallel column tiles. Causal GQA (Hq = 4
// over Hkv = 2) with Sq = 130 (two full query blocks and a remainder) and
// Sk = 150 (two full key tiles and a remainder), additive masks, dropout and
// sinks.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-run %s --entry cases --random-inputs --seed 1 --output-dir %t/seq
// RUN: env %no_leak_check OMP_NUM_THREADS=1 kiln-run %s --entry cases --openmp --random-inputs --seed 1 --output-dir %t/omp1
// RUN: env %no_leak_check OMP_NUM_THREADS=2 kiln-run %s --entry cases --openmp --random-inputs --seed 1 --output-dir %t/omp2
// RUN: env %no_leak_check OMP_NUM_THREADS=3 kiln-run %s --entry cases --openmp --random-inputs --seed 1 --output-dir %t/omp3
// RUN: ls %t/omp2 | FileCheck %s
// RUN: diff -r %t/seq %t/omp1
// RUN: diff -r %t/omp1 %t/omp2
// RUN: diff -r %t/omp1 %t/omp3
// CHECK-COUNT-19: result{{[0-9]+}}.npy
// CHECK-NOT: result

// Every case in one entry point (one compilation per run); the arguments
// are those of the cases in order.
func.func @cases(%q: tensor<2x4x130x16xf32>, %k: tensor<2x2x150x16xf32>,
                 %v: tensor<2x2x150x16xf32>, %do: tensor<2x4x130x16xf32>,
                 %m1: tensor<2x1x130x150xf32>, %m2: tensor<2x1x1x150xf32>,
                 %m3: tensor<1x4x130x150xf32>, %sinks: tensor<4xf32>, %s: tensor<i64>,
                 %a: tensor<130x300xf32>, %b: tensor<300x100xf32>,
                 %ba: tensor<3x40x64xf32>, %bb: tensor<3x64x50xf32>,
                 %da: tensor<70x90xf64>, %db: tensor<90x33xf64>)
    -> (tensor<2x4x130x16xf32>, tensor<2x4x130xf32>,
        tensor<2x4x130x16xf32>, tensor<2x2x150x16xf32>, tensor<2x2x150x16xf32>,
        tensor<2x1x1x150xf32>, tensor<4xf32>,
        tensor<2x4x130x16xf32>, tensor<2x2x150x16xf32>, tensor<2x2x150x16xf32>,
        tensor<1x4x130x150xf32>,
        tensor<2x4x130x16xf32>, tensor<2x4x130x16xf32>, tensor<2x2x150x16xf32>,
        tensor<2x2x150x16xf32>,
        tensor<130x100xf32>, tensor<3x40x50xf32>, tensor<70x33xf64>, tensor<2x4x130x16xf32>) {
  %o, %lse = func.call @forward(%q, %k, %v, %m1, %s)
      : (tensor<2x4x130x16xf32>, tensor<2x2x150x16xf32>, tensor<2x2x150x16xf32>,
         tensor<2x1x130x150xf32>, tensor<i64>) -> (tensor<2x4x130x16xf32>, tensor<2x4x130xf32>)
  %h:5 = func.call @backward_mask_per_head(%q, %k, %v, %do, %m2, %sinks, %s)
      : (tensor<2x4x130x16xf32>, tensor<2x2x150x16xf32>, tensor<2x2x150x16xf32>,
         tensor<2x4x130x16xf32>, tensor<2x1x1x150xf32>, tensor<4xf32>, tensor<i64>)
      -> (tensor<2x4x130x16xf32>, tensor<2x2x150x16xf32>, tensor<2x2x150x16xf32>,
          tensor<2x1x1x150xf32>, tensor<4xf32>)
  %p:4 = func.call @backward_mask_per_batch(%q, %k, %v, %do, %m3, %s)
      : (tensor<2x4x130x16xf32>, tensor<2x2x150x16xf32>, tensor<2x2x150x16xf32>,
         tensor<2x4x130x16xf32>, tensor<1x4x130x150xf32>, tensor<i64>)
      -> (tensor<2x4x130x16xf32>, tensor<2x2x150x16xf32>, tensor<2x2x150x16xf32>,
          tensor<1x4x130x150xf32>)
  %t:4 = func.call @training_step(%q, %k, %v, %do, %s)
      : (tensor<2x4x130x16xf32>, tensor<2x2x150x16xf32>, tensor<2x2x150x16xf32>,
         tensor<2x4x130x16xf32>, tensor<i64>)
      -> (tensor<2x4x130x16xf32>, tensor<2x4x130x16xf32>, tensor<2x2x150x16xf32>,
          tensor<2x2x150x16xf32>)
  %mm:3 = func.call @matmuls(%a, %b, %ba, %bb, %da, %db)
      : (tensor<130x300xf32>, tensor<300x100xf32>, tensor<3x40x64xf32>, tensor<3x64x50xf32>,
         tensor<70x90xf64>, tensor<90x33xf64>)
      -> (tensor<130x100xf32>, tensor<3x40x50xf32>, tensor<70x33xf64>)
  // A whole-tensor elementwise op and a row sum after the forall results.
  %sum = kiln.add %o, %t#1 : (tensor<2x4x130x16xf32>, tensor<2x4x130x16xf32>) -> tensor<2x4x130x16xf32>
  return %o, %lse, %h#0, %h#1, %h#2, %h#3, %h#4, %p#0, %p#1, %p#2, %p#3,
         %t#0, %t#1, %t#2, %t#3, %mm#0, %mm#1, %mm#2, %sum
      : tensor<2x4x130x16xf32>, tensor<2x4x130xf32>,
        tensor<2x4x130x16xf32>, tensor<2x2x150x16xf32>, tensor<2x2x150x16xf32>,
        tensor<2x1x1x150xf32>, tensor<4xf32>,
        tensor<2x4x130x16xf32>, tensor<2x2x150x16xf32>, tensor<2x2x150x16xf32>,
        tensor<1x4x130x150xf32>,
        tensor<2x4x130x16xf32>, tensor<2x4x130x16xf32>, tensor<2x2x150x16xf32>,
        tensor<2x2x150x16xf32>,
        tensor<130x100xf32>, tensor<3x40x50xf32>, tensor<70x33xf64>, tensor<2x4x130x16xf32>
}

// The forward with a [B, 1, Sq, Sk] additive mask and dropout: O and the
// LSE.
func.func private @forward(%q: tensor<2x4x130x16xf32>, %k: tensor<2x2x150x16xf32>,
                   %v: tensor<2x2x150x16xf32>, %m: tensor<2x1x130x150xf32>,
                   %s: tensor<i64>) -> (tensor<2x4x130x16xf32>, tensor<2x4x130xf32>) {
  %o, %lse = kiln.attention %q, %k, %v mask(%m : tensor<2x1x130x150xf32>) seed(%s : tensor<i64>)
      {causal, dropout_p = 0.125 : f64}
      : tensor<2x4x130x16xf32>, tensor<2x2x150x16xf32>, tensor<2x2x150x16xf32>
      -> tensor<2x4x130x16xf32>, tensor<2x4x130xf32>
  return %o, %lse : tensor<2x4x130x16xf32>, tensor<2x4x130xf32>
}

// A [B, 1, 1, Sk] mask, shared by the heads of both kv heads (a d_mask
// partial per kv head), and sinks, shared by the batch (a d_sinks partial
// per b).
func.func private @backward_mask_per_head(%q: tensor<2x4x130x16xf32>, %k: tensor<2x2x150x16xf32>,
                                  %v: tensor<2x2x150x16xf32>, %do: tensor<2x4x130x16xf32>,
                                  %m: tensor<2x1x1x150xf32>, %sinks: tensor<4xf32>,
                                  %s: tensor<i64>)
    -> (tensor<2x4x130x16xf32>, tensor<2x2x150x16xf32>, tensor<2x2x150x16xf32>,
        tensor<2x1x1x150xf32>, tensor<4xf32>) {
  %dq, %dk, %dv, %dm, %ds = kiln.attention_grad %q, %k, %v, %do mask(%m : tensor<2x1x1x150xf32>)
      seed(%s : tensor<i64>) sinks(%sinks : tensor<4xf32>) {causal, dropout_p = 0.125 : f64}
      : tensor<2x4x130x16xf32>, tensor<2x2x150x16xf32>, tensor<2x2x150x16xf32>, tensor<2x4x130x16xf32>
      -> tensor<2x4x130x16xf32>, tensor<2x2x150x16xf32>, tensor<2x2x150x16xf32>,
         tensor<2x1x1x150xf32>, tensor<4xf32>
  return %dq, %dk, %dv, %dm, %ds : tensor<2x4x130x16xf32>, tensor<2x2x150x16xf32>,
      tensor<2x2x150x16xf32>, tensor<2x1x1x150xf32>, tensor<4xf32>
}

// A [1, Hq, Sq, Sk] mask, shared by the batch (a d_mask partial per b).
func.func private @backward_mask_per_batch(%q: tensor<2x4x130x16xf32>, %k: tensor<2x2x150x16xf32>,
                                   %v: tensor<2x2x150x16xf32>, %do: tensor<2x4x130x16xf32>,
                                   %m: tensor<1x4x130x150xf32>, %s: tensor<i64>)
    -> (tensor<2x4x130x16xf32>, tensor<2x2x150x16xf32>, tensor<2x2x150x16xf32>,
        tensor<1x4x130x150xf32>) {
  %dq, %dk, %dv, %dm = kiln.attention_grad %q, %k, %v, %do mask(%m : tensor<1x4x130x150xf32>)
      seed(%s : tensor<i64>) {causal, dropout_p = 0.125 : f64}
      : tensor<2x4x130x16xf32>, tensor<2x2x150x16xf32>, tensor<2x2x150x16xf32>, tensor<2x4x130x16xf32>
      -> tensor<2x4x130x16xf32>, tensor<2x2x150x16xf32>, tensor<2x2x150x16xf32>,
         tensor<1x4x130x150xf32>
  return %dq, %dk, %dv, %dm : tensor<2x4x130x16xf32>, tensor<2x2x150x16xf32>,
      tensor<2x2x150x16xf32>, tensor<1x4x130x150xf32>
}

// The training step's pair: the forward's O and LSE go to the adjoint.
func.func private @training_step(%q: tensor<2x4x130x16xf32>, %k: tensor<2x2x150x16xf32>,
                         %v: tensor<2x2x150x16xf32>, %do: tensor<2x4x130x16xf32>,
                         %s: tensor<i64>)
    -> (tensor<2x4x130x16xf32>, tensor<2x4x130x16xf32>, tensor<2x2x150x16xf32>,
        tensor<2x2x150x16xf32>) {
  %o, %lse = kiln.attention %q, %k, %v seed(%s : tensor<i64>) {causal, dropout_p = 0.125 : f64}
      : tensor<2x4x130x16xf32>, tensor<2x2x150x16xf32>, tensor<2x2x150x16xf32>
      -> tensor<2x4x130x16xf32>, tensor<2x4x130xf32>
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do seed(%s : tensor<i64>)
      out(%o : tensor<2x4x130x16xf32>) lse(%lse : tensor<2x4x130xf32>) {causal, dropout_p = 0.125 : f64}
      : tensor<2x4x130x16xf32>, tensor<2x2x150x16xf32>, tensor<2x2x150x16xf32>, tensor<2x4x130x16xf32>
      -> tensor<2x4x130x16xf32>, tensor<2x2x150x16xf32>, tensor<2x2x150x16xf32>
  return %o, %dq, %dk, %dv : tensor<2x4x130x16xf32>, tensor<2x4x130x16xf32>,
      tensor<2x2x150x16xf32>, tensor<2x2x150x16xf32>
}

// Matmuls whose column tiles run on threads: N = 100 (three tiles of 32 f32
// columns and a partial one), M = 130 (not a multiple of the 8 rows of a
// register tile), K = 300 (a full block of 256 and a partial one); a batch
// of three; f64.
func.func private @matmuls(%a: tensor<130x300xf32>, %b: tensor<300x100xf32>,
                   %ba: tensor<3x40x64xf32>, %bb: tensor<3x64x50xf32>,
                   %da: tensor<70x90xf64>, %db: tensor<90x33xf64>)
    -> (tensor<130x100xf32>, tensor<3x40x50xf32>, tensor<70x33xf64>) {
  %0 = kiln.matmul %a, %b : (tensor<130x300xf32>, tensor<300x100xf32>) -> tensor<130x100xf32>
  %1 = kiln.matmul %ba, %bb : (tensor<3x40x64xf32>, tensor<3x64x50xf32>) -> tensor<3x40x50xf32>
  %2 = kiln.matmul %da, %db : (tensor<70x90xf64>, tensor<90x33xf64>) -> tensor<70x33xf64>
  return %0, %1, %2 : tensor<130x100xf32>, tensor<3x40x50xf32>, tensor<70x33xf64>
}
