// kiln-run prints each result with its name when the function names it
// (kiln.output_names, as the graph JSON import sets it; split mode's
// kiln.output/kiln.residual/kiln.gradient as output<i>, residual<j>,
// gradient<k>), and --named-outputs writes <name>.npy instead of
// result<i>.npy: the name made a file name and unique as the graph JSON
// export makes parameter files.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/make_npy.py %t/x.npy '<f4' 2 1,2
//
// Names that are not file names, and a repeated one; printed escaped.
// RUN: kiln-run %s --entry named --input %t/x.npy | FileCheck %s --check-prefix=PRINT
// PRINT:      result0: tensor<2xf32> (../x)
// PRINT-NEXT: [2, 4]
// PRINT-NEXT: result1: tensor<2xf32> (a\22b)
// PRINT-NEXT: [1, 2]
// PRINT-NEXT: result2: tensor<2xf32> (a\22b)
// PRINT-NEXT: [2, 4]
// RUN: kiln-run %s --entry named --input %t/x.npy --output-dir %t/named --named-outputs
// RUN: ls -A %t/named | env LC_ALL=C sort | tr '\n' ' ' | FileCheck %s --check-prefix=FILES
// FILES: {{^}}.._x.npy a_b.npy a_b_1.npy {{$}}
// RUN: kiln-run %s --entry named --input %t/x.npy --output-dir %t/plain
// RUN: ls -A %t/plain | env LC_ALL=C sort | tr '\n' ' ' | FileCheck %s --check-prefix=PLAIN
// PLAIN: {{^}}result0.npy result1.npy result2.npy {{$}}
// RUN: cmp %t/named/.._x.npy %t/plain/result0.npy
// RUN: cmp %t/named/a_b.npy %t/plain/result1.npy
// RUN: cmp %t/named/a_b_1.npy %t/plain/result2.npy
//
// An imported graph's outputs.
// RUN: kiln-translate --import-graph-json %S/Inputs/lifted_graph.json -o %t/graph.mlir
// RUN: %python %S/Inputs/make_npy.py %t/x23.npy '<f4' 2,3 1,2,3,4,5,6
// RUN: kiln-run %t/graph.mlir --entry g --input %t/x23.npy --input %t/x.npy --output-dir %t/graph --named-outputs --print | FileCheck %s --check-prefix=GRAPH
// GRAPH: result0: tensor<2x2xf32> (logits/out)
// GRAPH: result1: tensor<2x2xf32> (logits out)
// GRAPH: result2: tensor<2xf32> (score)
// RUN: ls -A %t/graph | env LC_ALL=C sort | tr '\n' ' ' | FileCheck %s --check-prefix=GRAPH-FILES
// GRAPH-FILES: {{^}}logits_out.npy logits_out_1.npy score.npy {{$}}
//
// Split mode's roles.
// RUN: kiln-opt %s --kiln-autodiff="function=f mode=split" -o %t/split.mlir
// RUN: kiln-run %t/split.mlir --entry f_forward --random-inputs --output-dir %t/fwd --named-outputs --print | FileCheck %s --check-prefix=FWD
// FWD:      result0: tensor<f32> (output0)
// FWD:      result1: tensor<2x3xf32> (residual0)
// RUN: ls -A %t/fwd | env LC_ALL=C sort | tr '\n' ' ' | FileCheck %s --check-prefix=FWD-FILES
// FWD-FILES: {{^}}output0.npy residual0.npy residual1.npy residual2.npy {{$}}
// RUN: kiln-run %t/split.mlir --entry f_backward --random-inputs --output-dir %t/bwd --named-outputs
// RUN: ls -A %t/bwd | env LC_ALL=C sort | tr '\n' ' ' | FileCheck %s --check-prefix=BWD-FILES
// BWD-FILES: {{^}}gradient0.npy gradient1.npy {{$}}
//
// A function without names prints and writes as before; kiln.output_names
// without one string per result names nothing.
// RUN: kiln-run %s --entry short_names --input %t/x.npy | FileCheck %s --check-prefix=SHORT
// SHORT: result0: tensor<2xf32>{{$}}
// SHORT: result1: tensor<2xf32>{{$}}
//
// Errors.
// RUN: not kiln-run %s --entry named --input %t/x.npy --named-outputs 2>&1 | FileCheck %s --check-prefix=NO-DIR
// NO-DIR: kiln-run: error: --named-outputs needs --output-dir
// RUN: not kiln-run %s --entry short_names --input %t/x.npy --output-dir %t/short --named-outputs 2>&1 | FileCheck %s --check-prefix=NO-NAMES
// NO-NAMES: kiln-run: error: --named-outputs: @short_names names none of its results (no kiln.output_names with one name per result, no kiln.output, kiln.residual or kiln.gradient result attribute)

func.func @named(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
    attributes {kiln.output_names = ["../x", "a\"b", "a\"b"]} {
  %0 = kiln.add %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0, %x, %0 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

func.func @short_names(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    attributes {kiln.output_names = ["only"]} {
  return %x, %x : tensor<2xf32>, tensor<2xf32>
}

func.func @f(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) -> tensor<f32> {
  %m = kiln.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %t = kiln.tanh %m : tensor<2x4xf32>
  %l = kiln.sum %t {axes = array<i64: 0, 1>} : tensor<2x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
