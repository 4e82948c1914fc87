// Upstream elementwise ops on tensors (arith, math) in a kiln graph lower
// with it: the pipelines turn them into linalg.generic
// (convert-elementwise-to-linalg) before bufferization, on the CPU and the
// GPU (here its emulator). Expected values worked out by hand:
// x * y = [1, -1, 6, 12], x + y = [2.5, 0, 5, 7], max = [2.5, 0, 6, 12],
// sqrt(x * x) = x, then kiln.add.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/make_npy.py %t/x.npy '<f4' 4 2,1,3,4
// RUN: %python %S/Inputs/make_npy.py %t/y.npy '<f4' 4 0.5,-1,2,3
// RUN: kiln-run %s --entry f --input %t/x.npy --input %t/y.npy | FileCheck %s
// RUN: kiln-run %s --target=gpu-emulator --entry f --input %t/x.npy --input %t/y.npy | FileCheck %s
// CHECK: result0: tensor<4xf32>
// CHECK-NEXT: [4.5, 1, 9, 16]

func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %p = arith.mulf %x, %y : tensor<4xf32>
  %s = arith.addf %x, %y : tensor<4xf32>
  %m = arith.maximumf %p, %s : tensor<4xf32>
  %sq = arith.mulf %x, %x : tensor<4xf32>
  %r = math.sqrt %sq : tensor<4xf32>
  %out = kiln.add %m, %r : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %out : tensor<4xf32>
}
