// examples/train_block.mlir compiles as written (kiln-lower-to-cpu runs
// kiln-autodiff first) and its @train_step returns the loss and the 12
// updated parameters. Its @loss is the block's unchanged: on the same seeded
// inputs it gives the loss of examples/transformer_block.mlir's @loss (the
// [[LOSS]] captured from the latter).
// RUN: kiln-run %kiln_src_root/examples/transformer_block.mlir --entry loss --random-inputs --random-range 0:0:32 --random-range 1:0:5 --print-limit 2 > %t.loss
// RUN: kiln-run %kiln_src_root/examples/train_block.mlir --entry train_step --random-inputs --random-range 0:0:32 --random-range 1:0:5 --print-limit 2 > %t.step
// RUN: cat %t.loss %t.step | FileCheck %s

// CHECK: result0: tensor<f32>
// CHECK-NEXT: [[LOSS:\[.*\]]]
// CHECK: result0: tensor<f32>
// CHECK-NEXT: [[LOSS]]
// CHECK-NEXT: result1: tensor<32x16xf32>
// CHECK: result2: tensor<16xf32>
// CHECK: result12: tensor<16x5xf32>
// CHECK-NOT: result13
