// RUN: kiln-opt %s --kiln-lower-to-cpu=outline-kernels=false | FileCheck %s
// RUN: kiln-opt %s --kiln-lower-to-cpu=outline-kernels=false | FileCheck %s --check-prefix=CLEAN
// RUN: kiln-opt %s --kiln-lower-to-cpu="fuse-elementwise=false outline-kernels=false" | FileCheck %s
// RUN: kiln-opt %s --kiln-lower-to-cpu="fuse-elementwise=false outline-kernels=false" | FileCheck %s --check-prefix=CLEAN

// Everything ends in the llvm dialect: the result became a caller-allocated
// out-param (a third memref descriptor), and the C interface wrapper takes
// one descriptor pointer per memref. The bodies have reserved names; only
// the C interface keeps the function's (kiln-prepare-entry-points).

// CLEAN-NOT: kiln.
// CLEAN-NOT: func.func
// CLEAN-NOT: memref.
// CLEAN-NOT: linalg.
// CLEAN-NOT: unrealized_conversion_cast
// CHECK-LABEL: llvm.func internal @__kiln_func_add_bias(
// CHECK-SAME: %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64
// CHECK-NOT: -> !llvm.struct
// CHECK-SAME: attributes {always_inline, llvm.emit_c_interface}
// CHECK: llvm.fadd
// CHECK: llvm.return
// CHECK-LABEL: llvm.func @_mlir_ciface_add_bias(
// CHECK-SAME: %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK: llvm.call @__kiln_func_add_bias(
func.func @add_bias(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %one = kiln.constant dense<1.0> : tensor<f32>
  %0 = kiln.add %x, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = kiln.add %0, %one : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// Private helpers keep their signature and get no C interface.
// CHECK-LABEL: llvm.func @__kiln_func_helper(
// CHECK-NOT: llvm.emit_c_interface
// CHECK-SAME: {
func.func private @helper(%x: tensor<4xi64>) -> tensor<4xi64> {
  %0 = kiln.add %x, %x : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}
