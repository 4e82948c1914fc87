// RUN: kiln-opt %s --kiln-outline-kernels | FileCheck %s

// kiln-outline-kernels: each linalg op on buffers (and each op with regions)
// in a function body becomes a call of a private noinline kernel; the two
// identical fills share one kernel, the constant is cloned into it. Calls
// whose buffers are distinct allocations or arguments ask for noalias
// arguments; two views of one buffer do not.

// CHECK-LABEL: func.func @f(
// CHECK: call @[[FILL:__kiln_kernel_[0-9]+]](%[[A:.*]]) : (memref<4x8xf32>) -> ()
// CHECK: call @[[FILL]](%[[B:.*]]) : (memref<4x8xf32>) -> ()
// CHECK: call @[[ADD:__kiln_kernel_[0-9]+]](%[[A]], %[[B]], %arg0)
// CHECK: call @[[VIEWS:__kiln_kernel_[0-9]+]](%{{.*}}, %{{.*}}) : (memref<2x8xf32, strided<[8, 1]>>, memref<2x8xf32, strided<[8, 1], offset: 16>>) -> ()
// CHECK: call @[[LOOP:__kiln_kernel_[0-9]+]](%arg0, %[[A]]) : (memref<4x8xf32>, memref<4x8xf32>) -> ()
// CHECK-NOT: linalg.
// CHECK: return

// CHECK: func.func private @[[FILL]](%[[O:.*]]: memref<4x8xf32>) attributes {llvm.linkage = #llvm.linkage<internal>, passthrough = ["noinline", ["kiln-noalias-arguments", "true"]]}
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.0
// CHECK-NEXT: linalg.fill ins(%[[ZERO]] : f32) outs(%[[O]] : memref<4x8xf32>)
// CHECK-NEXT: return
// CHECK: func.func private @[[ADD]]({{.*}}) attributes {{{.*}}passthrough = ["noinline", ["kiln-noalias-arguments", "true"]]}
// CHECK: linalg.add
// CHECK: func.func private @[[VIEWS]]({{.*}}) attributes {llvm.linkage = #llvm.linkage<internal>, passthrough = ["noinline"]}
// CHECK: linalg.copy
// CHECK: func.func private @[[LOOP]]({{.*}}) attributes
// CHECK: scf.for
// CHECK-NOT: func.func private @__kiln_kernel
func.func @f(%x: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<4x8xf32>
  %b = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<4x8xf32>)
  linalg.fill ins(%zero : f32) outs(%b : memref<4x8xf32>)
  linalg.add ins(%a, %b : memref<4x8xf32>, memref<4x8xf32>) outs(%x : memref<4x8xf32>)
  %top = memref.subview %a[0, 0] [2, 8] [1, 1] : memref<4x8xf32> to memref<2x8xf32, strided<[8, 1]>>
  %bottom = memref.subview %a[2, 0] [2, 8] [1, 1] : memref<4x8xf32> to memref<2x8xf32, strided<[8, 1], offset: 16>>
  linalg.copy ins(%top : memref<2x8xf32, strided<[8, 1]>>) outs(%bottom : memref<2x8xf32, strided<[8, 1], offset: 16>>)
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i, %c0] : memref<4x8xf32>
    memref.store %v, %a[%i, %c0] : memref<4x8xf32>
  }
  memref.dealloc %a : memref<4x8xf32>
  memref.dealloc %b : memref<4x8xf32>
  return
}
