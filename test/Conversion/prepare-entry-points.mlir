// RUN: kiln-opt %s --kiln-prepare-entry-points | FileCheck %s

// Bodies get reserved names; a public function keeps its name in
// kiln.entry_point, for the C interface (kiln-finalize-entry-points).
// CHECK-LABEL: func.func @__kiln_func_entry
// CHECK-SAME: (%{{.*}}: tensor<2xf32> {bufferization.writable = false}, %{{.*}}: i64)
// CHECK-SAME: -> tensor<2xf32> attributes {kiln.entry_point = "entry", llvm.emit_c_interface}
func.func @entry(%a: tensor<2xf32>, %n: i64) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}

// CHECK-LABEL: func.func private @__kiln_func_helper
// CHECK-SAME: (%{{.*}}: tensor<2xf32>) -> tensor<2xf32> {
func.func private @helper(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}

// CHECK-LABEL: func.func private @declaration
// CHECK-SAME: (tensor<2xf32>) -> tensor<2xf32>{{$}}
func.func private @declaration(%a: tensor<2xf32>) -> tensor<2xf32>

// A value returned twice is copied from its second occurrence on.
// CHECK-LABEL: func.func @__kiln_func_repeated
// CHECK-SAME: (%[[A:.*]]: tensor<2xf32> {bufferization.writable = false}, %[[B:.*]]: tensor<3xi32> {bufferization.writable = false})
// CHECK: %[[COPY1:.*]] = bufferization.alloc_tensor() copy(%[[A]]) : tensor<2xf32>
// CHECK: %[[COPY2:.*]] = bufferization.alloc_tensor() copy(%[[A]]) : tensor<2xf32>
// CHECK: return %[[A]], %[[B]], %[[COPY1]], %[[COPY2]]
func.func @repeated(%a: tensor<2xf32>, %b: tensor<3xi32>) -> (tensor<2xf32>, tensor<3xi32>, tensor<2xf32>, tensor<2xf32>) {
  return %a, %b, %a, %a : tensor<2xf32>, tensor<3xi32>, tensor<2xf32>, tensor<2xf32>
}

// The kiln.* argument and result attributes of split mode are dropped;
// others stay.
// CHECK-LABEL: func.func @__kiln_func_split_backward
// CHECK-SAME: (%{{.*}}: tensor<2xf32> {bufferization.writable = false, foo.keep = 1 : i64}, %{{.*}}: tensor<2xf32> {bufferization.writable = false})
// CHECK-SAME: -> (tensor<2xf32> {foo.keep = 2 : i64})
// CHECK-NOT: {{kiln\.(residual|cotangent|gradient)}}
func.func @split_backward(%r: tensor<2xf32> {kiln.residual = 0 : i64, foo.keep = 1 : i64}, %c: tensor<2xf32> {kiln.cotangent = 0 : i64}) -> (tensor<2xf32> {kiln.gradient = 0 : i64, foo.keep = 2 : i64}) {
  %0 = kiln.mul %r, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// A body named after a C library function (its libm call, or
// convert-math-to-libm's, would bind to it) is renamed with its calls; a
// reserved name that is taken gets a suffix.
// CHECK-LABEL: func.func @__kiln_func_exp_0
// CHECK-SAME: attributes {kiln.entry_point = "exp", llvm.emit_c_interface}
// CHECK: call @__kiln_func_erff(
// CHECK-LABEL: func.func private @__kiln_func_erff(
// CHECK-LABEL: func.func private @__kiln_func___kiln_func_exp(
// CHECK-SAME: {
func.func @exp(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = call @erff(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func private @erff(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
func.func private @__kiln_func_exp(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
