// kiln-compile's C entry points reject outputs that overlap an input or
// another output (return 1, kiln_last_error() says which): an in-place call
// (outputs[0] == inputs[0]) silently computed garbage. Inputs may overlap.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-compile %s -o %t/libov.so --header %t/ov.h
// RUN: cc %kiln_cflags -std=c99 -Wall -Werror -I%t %S/Inputs/overlap_main.c -L%t -lov -Wl,-rpath,%t -o %t/ov
// RUN: %t/ov | FileCheck %s
// CHECK: in place: 1 "kiln_t: outputs[0] overlaps inputs[0]", input kept
// CHECK-NEXT: one element in: 1 "kiln_t: outputs[0] overlaps inputs[0]"
// CHECK-NEXT: adjacent: 0 "", transposed
// CHECK-NEXT: outputs: 1 "kiln_two: outputs[1] overlaps outputs[0]"
// CHECK-NEXT: same inputs: 0 "" [2, 4, 6, 8]
// CHECK-NEXT: null: 1 "kiln_t: inputs is NULL"
// The checks index one table of byte sizes (inputs, then outputs).
// CHECK-NEXT: many: 1 "kiln_many: outputs[2] overlaps inputs[1]"
// CHECK-NEXT: many: 1 "kiln_many: outputs[2] overlaps outputs[1]"
// CHECK-NEXT: many: 1 "kiln_many: inputs[3] is NULL"
// CHECK-NEXT: many: 1 "kiln_many: outputs[1] is NULL"
// CHECK-NEXT: many: 0 "" [-1, -2] [-3, -4, -5]
// The header says so.
// RUN: FileCheck %s --check-prefix=HEADER < %t/ov.h
// HEADER: Outputs must not overlap inputs or each other
// HEADER: const char *kiln_last_error(void);

func.func @t(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %0 = kiln.transpose %x {dim0 = 0 : i64, dim1 = 1 : i64} : tensor<3x3xf32> -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

func.func @two(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = kiln.neg %x : tensor<4xf32>
  %1 = kiln.exp %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// An empty output may be NULL or anywhere.
func.func @many(%a: tensor<2xf32>, %b: tensor<3xf32>, %c: tensor<0xf32>,
                %d: tensor<4xf32>)
    -> (tensor<2xf32>, tensor<3xf32>, tensor<4xf32>, tensor<0xf32>) {
  %0 = kiln.neg %a : tensor<2xf32>
  %1 = kiln.neg %b : tensor<3xf32>
  %2 = kiln.neg %d : tensor<4xf32>
  return %0, %1, %2, %c : tensor<2xf32>, tensor<3xf32>, tensor<4xf32>, tensor<0xf32>
}

func.func @add(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
