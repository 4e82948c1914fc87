// kiln-run --weights-dir: the lifted parameters of a graph imported with
// --lift-parameters (arguments with a kiln.parameter attribute) are read
// from the .npy files the graph JSON export writes
// (--graph-json-export-weights-dir), found by the same file names; the
// other arguments come from --input, in order, or from --random-inputs.
//
// RUN: rm -rf %t && mkdir -p %t/w
// RUN: %python %S/Inputs/make_npy.py %t/x.npy '<f4' 2,3 1,2,3,4,5,6
// RUN: %python %S/Inputs/make_npy.py %t/y.npy '<f4' 2 10,20
// RUN: kiln-translate --import-graph-json %S/Inputs/lifted_graph.json -o %t/const.mlir
// RUN: kiln-translate --import-graph-json --lift-parameters %S/Inputs/lifted_graph.json -o %t/lifted.mlir
//
// The export writes the parameters "blk.0/w" and "blk.0 w": one safe name,
// made unique in parameter order.
// RUN: kiln-translate --export-graph-json %t/const.mlir --graph-json-export-weights-dir %t/w -o %t/w/graph.json
// RUN: ls -A %t/w | env LC_ALL=C sort | tr '\n' ' ' | FileCheck %s --check-prefix=FILES
// FILES: {{^}}blk.0_w.npy blk.0_w_1.npy graph.json {{$}}
//
// RUN: kiln-run %t/lifted.mlir --entry g --weights-dir %t/w --input %t/x.npy --input %t/y.npy | FileCheck %s --check-prefix=WEIGHTS
// WEIGHTS:      result0: tensor<2x2xf32> (logits/out)
// WEIGHTS-NEXT: [22.5, 27, 49.5, 63]
// WEIGHTS-NEXT: result1: tensor<2x2xf32> (logits out)
// WEIGHTS-NEXT: [22, 28, 49, 64]
// WEIGHTS-NEXT: result2: tensor<2xf32> (score)
// WEIGHTS-NEXT: [34.75, 76.25]
//
// The same results as the graph with its parameters as constants, and as
// the lifted graph with every argument an --input.
// RUN: kiln-run %t/const.mlir --entry g --input %t/x.npy --input %t/y.npy > %t/const.txt
// RUN: kiln-run %t/lifted.mlir --entry g --weights-dir %t/w --input %t/x.npy --input %t/y.npy | diff - %t/const.txt
// RUN: kiln-run %t/lifted.mlir --entry g --input %t/w/blk.0_w.npy --input %t/w/blk.0_w_1.npy --input %t/x.npy --input %t/y.npy | diff - %t/const.txt
//
// With --random-inputs, the parameters come from the directory and argument
// #i from seed + i, as without --weights-dir: x and y, arguments #2 and #3
// of the lifted @g, draw what arguments #0 and #1 of the constant @g draw
// with a seed 2 higher.
// RUN: kiln-run %t/lifted.mlir --entry g --weights-dir %t/w --random-inputs --seed 5 > %t/lifted-random.txt
// RUN: kiln-run %t/const.mlir --entry g --random-inputs --seed 7 | diff - %t/lifted-random.txt
// RUN: kiln-run %t/lifted.mlir --entry g --weights-dir %t/w --random-inputs --random-range 3:0:1 | FileCheck %s --check-prefix=RANDOM
// RANDOM: result2: tensor<2xf32> (score)
//
// Errors, each naming the parameter and its file.
// RUN: mkdir -p %t/partial && cp %t/w/blk.0_w.npy %t/partial/
// RUN: not kiln-run %t/lifted.mlir --entry g --weights-dir %t/partial --input %t/x.npy --input %t/y.npy 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: kiln-run: error: --weights-dir: parameter 'blk.0 w' (argument #1 of @g): cannot read '{{.*}}partial{{/|\\}}blk.0_w_1.npy':
//
// RUN: mkdir -p %t/swapped && cp %t/w/blk.0_w.npy %t/swapped/blk.0_w_1.npy && cp %t/w/blk.0_w_1.npy %t/swapped/blk.0_w.npy
// RUN: not kiln-run %t/lifted.mlir --entry g --weights-dir %t/swapped --input %t/x.npy --input %t/y.npy 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: kiln-run: error: --weights-dir: parameter 'blk.0/w' (argument #0 of @g): '{{.*}}swapped{{/|\\}}blk.0_w.npy' holds tensor<2xf32>, expected tensor<3x2xf32>
//
// RUN: mkdir -p %t/f64 && cp %t/w/blk.0_w_1.npy %t/f64/
// RUN: %python %S/Inputs/make_npy.py %t/f64/blk.0_w.npy '<f8' 3,2 1,2,3,4,5,6
// RUN: not kiln-run %t/lifted.mlir --entry g --weights-dir %t/f64 --random-inputs 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: kiln-run: error: --weights-dir: parameter 'blk.0/w' (argument #0 of @g): '{{.*}}f64{{/|\\}}blk.0_w.npy' holds tensor<3x2xf64>, expected tensor<3x2xf32>
//
// RUN: mkdir -p %t/short && cp %t/w/blk.0_w.npy %t/short/
// RUN: %python %S/Inputs/make_npy.py %t/short/blk.0_w_1.npy '<f4' 2 1,2 --truncate 3
// RUN: not kiln-run %t/lifted.mlir --entry g --weights-dir %t/short --input %t/x.npy --input %t/y.npy 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// TRUNCATED: kiln-run: error: --weights-dir: parameter 'blk.0 w' (argument #1 of @g): '{{.*}}short{{/|\\}}blk.0_w_1.npy': truncated .npy file: tensor<2xf32> needs 8 data bytes, 5 present
//
// RUN: not kiln-run %t/const.mlir --entry g --weights-dir %t/w --input %t/x.npy --input %t/y.npy 2>&1 | FileCheck %s --check-prefix=NO-PARAMS
// NO-PARAMS: kiln-run: error: --weights-dir: no argument of @g is a lifted parameter (an argument with a kiln.parameter attribute, as kiln-translate --import-graph-json --lift-parameters makes them)
//
// RUN: not kiln-run %t/lifted.mlir --entry g --weights-dir %t/w --input %t/x.npy 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: kiln-run: error: @g takes 2 arguments besides its 2 parameters from --weights-dir (x, y), got 1 --input
// RUN: not kiln-run %t/lifted.mlir --entry g --weights-dir %t/w 2>&1 | FileCheck %s --check-prefix=COUNT0
// COUNT0: kiln-run: error: @g takes 2 arguments besides its 2 parameters from --weights-dir (x, y), got 0 --input
// RUN: not kiln-run %t/lifted.mlir --entry g --weights-dir %t/w --input %t/w/blk.0_w.npy --input %t/w/blk.0_w_1.npy --input %t/x.npy --input %t/y.npy 2>&1 | FileCheck %s --check-prefix=COUNT4
// COUNT4: kiln-run: error: @g takes 2 arguments besides its 2 parameters from --weights-dir (x, y), got 4 --input
//
// RUN: not kiln-run %t/lifted.mlir --entry g --weights-dir %t/w --random-inputs --random-range 0:0:1 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: kiln-run: error: --random-range 0:0:1: argument #0 of @g is parameter 'blk.0/w', read from --weights-dir
//
// RUN: not kiln-run %t/lifted.mlir --entry g --weights-dir %t/x.npy --random-inputs 2>&1 | FileCheck %s --check-prefix=NOT-DIR
// NOT-DIR: kiln-run: error: --weights-dir: '{{.*}}x.npy' is not a directory
// RUN: not kiln-run %t/lifted.mlir --entry g --weights-dir= --random-inputs 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: kiln-run: error: --weights-dir needs a directory name
//
// Arguments whose kiln.parameter names the export cannot use take its
// fallback names (param<k>) here too: @odd's second "w" is param1.npy.
// RUN: kiln-translate --export-graph-json %s | FileCheck %s --check-prefix=ODD-JSON
// ODD-JSON: "name":"w",{{.*}}"file":"w.npy"
// ODD-JSON: "name":"param1",{{.*}}"file":"param1.npy"
// RUN: mkdir -p %t/odd && %python %S/Inputs/make_npy.py %t/odd/w.npy '<f4' 2 1,2
// RUN: %python %S/Inputs/make_npy.py %t/odd/param1.npy '<f4' 2 30,40
// RUN: kiln-run %s --entry odd --weights-dir %t/odd | FileCheck %s --check-prefix=ODD
// ODD: result0: tensor<2xf32>
// ODD-NEXT: [31, 42]

func.func @odd(%a: tensor<2xf32> {kiln.parameter = "w"}, %b: tensor<2xf32> {kiln.parameter = "w"}) -> tensor<2xf32> {
  %0 = kiln.add %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
