// RUN: kiln-opt %s --kiln-split-deallocs --split-input-file | FileCheck %s

// Distinct allocations, nothing retained: one dealloc each, in order, with
// its condition.
// CHECK-LABEL: func.func @distinct
// CHECK-SAME: (%[[C:.*]]: i1)
// CHECK-DAG: %[[TRUE:.*]] = arith.constant true
// CHECK-DAG: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK-DAG: %[[B:.*]] = memref.alloc() : memref<8xf32>
// CHECK-DAG: %[[D:.*]] = memref.alloc() : memref<2x2xf64>
// CHECK: bufferization.dealloc (%[[A]] : memref<4xf32>) if (%[[TRUE]])
// CHECK-NEXT: bufferization.dealloc (%[[B]] : memref<8xf32>) if (%[[C]])
// CHECK-NEXT: bufferization.dealloc (%[[D]] : memref<2x2xf64>) if (%[[TRUE]])
// CHECK-NEXT: return
func.func @distinct(%c: i1) {
  %true = arith.constant true
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<8xf32>
  %d = memref.alloc() : memref<2x2xf64>
  bufferization.dealloc (%a, %b, %d : memref<4xf32>, memref<8xf32>, memref<2x2xf64>) if (%true, %c, %true)
  return
}

// -----

// Retained values: the op reports ownership, left as it is.
// CHECK-LABEL: func.func @retained
// CHECK: bufferization.dealloc ({{.*}}, {{.*}} : memref<4xf32>, memref<8xf32>) if ({{.*}}) retain ({{.*}} : memref<4xf32>)
// CHECK-NOT: bufferization.dealloc
func.func @retained(%c: i1, %r: memref<4xf32>) -> i1 {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<8xf32>
  %o = bufferization.dealloc (%a, %b : memref<4xf32>, memref<8xf32>) if (%c, %c) retain (%r : memref<4xf32>)
  return %o : i1
}

// -----

// An argument may alias anything: left as it is.
// CHECK-LABEL: func.func @argument
// CHECK: bufferization.dealloc ({{.*}}, {{.*}} : memref<4xf32>, memref<4xf32>)
// CHECK-NOT: bufferization.dealloc
func.func @argument(%c: i1, %x: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  bufferization.dealloc (%a, %x : memref<4xf32>, memref<4xf32>) if (%c, %c)
  return
}

// -----

// A memref listed twice is freed once by the op: left as it is.
// CHECK-LABEL: func.func @twice
// CHECK: bufferization.dealloc ({{.*}}, {{.*}} : memref<4xf32>, memref<4xf32>)
// CHECK-NOT: bufferization.dealloc
func.func @twice(%c: i1, %d: i1) {
  %a = memref.alloc() : memref<4xf32>
  bufferization.dealloc (%a, %a : memref<4xf32>, memref<4xf32>) if (%c, %d)
  return
}

// -----

// The base buffer of a view is its allocation's buffer, not a result of a
// memref.alloc: left as it is.
// CHECK-LABEL: func.func @view
// CHECK: bufferization.dealloc ({{.*}}, {{.*}} : memref<8xf32>, memref<f32>)
// CHECK-NOT: bufferization.dealloc
func.func @view(%c: i1) {
  %a = memref.alloc() : memref<8xf32>
  %v = memref.subview %a[2] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 2>>
  %base, %offset, %size, %stride = memref.extract_strided_metadata %v : memref<4xf32, strided<[1], offset: 2>> -> memref<f32>, index, index, index
  bufferization.dealloc (%a, %base : memref<8xf32>, memref<f32>) if (%c, %c)
  return
}
