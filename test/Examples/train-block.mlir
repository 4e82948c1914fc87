// examples/train_block.mlir compiles as written (kiln-lower-to-cpu runs
// kiln-autodiff first). Its @loss is the block's unchanged: on the same seeded
// inputs, @loss_and_grads and the Adam @train_step return the loss of
// examples/transformer_block.mlir's @loss (the [[LOSS]] captured from the
// latter); @train_step also returns the 12 updated parameters, their 12 m and
// 12 v, and step + 1 (step drawn in [3, 4)).
// RUN: kiln-run %kiln_src_root/examples/transformer_block.mlir --entry loss --random-inputs --random-range 0:0:32 --random-range 1:0:5 --print-limit 2 > %t.loss
// RUN: kiln-run %kiln_src_root/examples/train_block.mlir --entry loss_and_grads --random-inputs --random-range 0:0:32 --random-range 1:0:5 --print-limit 2 > %t.grads
// RUN: kiln-run %kiln_src_root/examples/train_block.mlir --entry train_step --random-inputs --random-range 0:0:32 --random-range 1:0:5 --random-range 38:3:4 --print-limit 2 > %t.step
// RUN: cat %t.loss %t.grads %t.step | FileCheck %s

// CHECK: result0: tensor<f32>
// CHECK-NEXT: [[LOSS:\[.*\]]]
// CHECK: result0: tensor<f32>
// CHECK-NEXT: [[LOSS]]
// CHECK-NEXT: result1: tensor<32x16xf32>
// CHECK: result12: tensor<16x5xf32>
// CHECK-NOT: result13
// CHECK: result0: tensor<f32>
// CHECK-NEXT: [[LOSS]]
// CHECK-NEXT: result1: tensor<32x16xf32>
// CHECK: result13: tensor<32x16xf32>
// CHECK: result25: tensor<32x16xf32>
// CHECK: result36: tensor<16x5xf32>
// CHECK: result37: tensor<f32>
// CHECK-NEXT: [4.{{[0-9]+}}]
// CHECK-NOT: result38
