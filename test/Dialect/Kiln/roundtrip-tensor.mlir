// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --emit-bytecode | kiln-opt | FileCheck %s

// CHECK-LABEL: func.func @constant
// CHECK: kiln.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
func.func @constant() -> tensor<2xf32> {
  %0 = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// CHECK-LABEL: func.func @iota
// CHECK: %[[R:.*]] = kiln.iota {axis = 1 : i64} : tensor<2x3xi64>
// CHECK: return %[[R]]
func.func @iota() -> tensor<2x3xi64> {
  %0 = kiln.iota {axis = 1} : tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

// CHECK-LABEL: func.func @iota_float
// CHECK: %[[R:.*]] = kiln.iota {axis = 0 : i64} : tensor<4xf32>
// CHECK: return %[[R]]
func.func @iota_float() -> tensor<4xf32> {
  %0 = kiln.iota {axis = 0} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @broadcast_to
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>)
// CHECK: %[[R:.*]] = kiln.broadcast_to %[[X]] : tensor<3xf32> -> tensor<2x3xf32>
// CHECK: return %[[R]]
func.func @broadcast_to(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.broadcast_to %x : tensor<3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @reshape
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[R:.*]] = kiln.reshape %[[X]] : tensor<2x3xf32> -> tensor<6xf32>
// CHECK: return %[[R]]
func.func @reshape(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %0 = kiln.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[R:.*]] = kiln.transpose %[[X]] {dim0 = 0 : i64, dim1 = 1 : i64} : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK: return %[[R]]
func.func @transpose(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = kiln.transpose %x {dim0 = 0, dim1 = 1} : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// CHECK-LABEL: func.func @permute
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[R:.*]] = kiln.permute %[[X]] {permutation = array<i64: 0, 2, 1>} : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
// CHECK: return %[[R]]
func.func @permute(%x: tensor<2x3x4xf32>) -> tensor<2x4x3xf32> {
  %0 = kiln.permute %x {permutation = array<i64: 0, 2, 1>} : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

// CHECK-LABEL: func.func @flatten
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[R:.*]] = kiln.flatten %[[X]] {end_dim = 2 : i64, start_dim = 1 : i64} : tensor<2x3x4xf32> -> tensor<2x12xf32>
// CHECK: return %[[R]]
func.func @flatten(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  %0 = kiln.flatten %x {start_dim = 1, end_dim = 2} : tensor<2x3x4xf32> -> tensor<2x12xf32>
  return %0 : tensor<2x12xf32>
}

// CHECK-LABEL: func.func @squeeze
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x1xf32>)
// CHECK: %[[R:.*]] = kiln.squeeze %[[X]] {dims = array<i64: 0, 2>} : tensor<1x3x1xf32> -> tensor<3xf32>
// CHECK: return %[[R]]
func.func @squeeze(%x: tensor<1x3x1xf32>) -> tensor<3xf32> {
  %0 = kiln.squeeze %x {dims = array<i64: 0, 2>} : tensor<1x3x1xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// CHECK-LABEL: func.func @unsqueeze
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[R:.*]] = kiln.unsqueeze %[[X]] {dim = 1 : i64} : tensor<2x3xf32> -> tensor<2x1x3xf32>
// CHECK: return %[[R]]
func.func @unsqueeze(%x: tensor<2x3xf32>) -> tensor<2x1x3xf32> {
  %0 = kiln.unsqueeze %x {dim = 1} : tensor<2x3xf32> -> tensor<2x1x3xf32>
  return %0 : tensor<2x1x3xf32>
}

// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<4x3xf32>)
// CHECK: %[[R:.*]] = kiln.concat %[[A]], %[[B]] {axis = 0 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
// CHECK: return %[[R]]
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) -> tensor<6x3xf32> {
  %0 = kiln.concat %a, %b {axis = 0} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
  return %0 : tensor<6x3xf32>
}

// CHECK-LABEL: func.func @slice
// CHECK-SAME: (%[[X:.*]]: tensor<2x5xf32>)
// CHECK: %[[R:.*]] = kiln.slice %[[X]] {starts = array<i64: 0, 1>, stops = array<i64: 2, 5>, strides = array<i64: 1, 2>} : tensor<2x5xf32> -> tensor<2x2xf32>
// CHECK: return %[[R]]
func.func @slice(%x: tensor<2x5xf32>) -> tensor<2x2xf32> {
  %0 = kiln.slice %x {starts = array<i64: 0, 1>, stops = array<i64: 2, 5>, strides = array<i64: 1, 2>} : tensor<2x5xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// CHECK-LABEL: func.func @pad
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[R:.*]] = kiln.pad %[[X]] {high = array<i64: 2, 1>, low = array<i64: 0, 1>, value = 1.000000e+00 : f64} : tensor<2x3xf32> -> tensor<4x5xf32>
// CHECK: return %[[R]]
func.func @pad(%x: tensor<2x3xf32>) -> tensor<4x5xf32> {
  %0 = kiln.pad %x {low = array<i64: 0, 1>, high = array<i64: 2, 1>, value = 1.0} : tensor<2x3xf32> -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// CHECK-LABEL: func.func @pad_default_value
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xi32>)
// CHECK: %[[R:.*]] = kiln.pad %[[X]] {high = array<i64: 0, 1>, low = array<i64: 0, 0>} : tensor<2x3xi32> -> tensor<2x4xi32>
// CHECK: return %[[R]]
func.func @pad_default_value(%x: tensor<2x3xi32>) -> tensor<2x4xi32> {
  %0 = kiln.pad %x {low = array<i64: 0, 0>, high = array<i64: 0, 1>} : tensor<2x3xi32> -> tensor<2x4xi32>
  return %0 : tensor<2x4xi32>
}

// CHECK-LABEL: func.func @tril
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x4xf32>)
// CHECK: %[[R:.*]] = kiln.tril %[[X]] : tensor<2x4x4xf32>
// CHECK: return %[[R]]
func.func @tril(%x: tensor<2x4x4xf32>) -> tensor<2x4x4xf32> {
  %0 = kiln.tril %x {diagonal = 0} : tensor<2x4x4xf32>
  return %0 : tensor<2x4x4xf32>
}

// CHECK-LABEL: func.func @triu
// CHECK-SAME: (%[[X:.*]]: tensor<4x4xf32>)
// CHECK: %[[R:.*]] = kiln.triu %[[X]] {diagonal = 1 : i64} : tensor<4x4xf32>
// CHECK: return %[[R]]
func.func @triu(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = kiln.triu %x {diagonal = 1} : tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// CHECK-LABEL: func.func @unfold
// CHECK-SAME: (%[[X:.*]]: tensor<2x5xf32>)
// CHECK: %[[R:.*]] = kiln.unfold %[[X]] {dim = 1 : i64, size = 3 : i64, step = 1 : i64} : tensor<2x5xf32> -> tensor<2x3x3xf32>
// CHECK: return %[[R]]
func.func @unfold(%x: tensor<2x5xf32>) -> tensor<2x3x3xf32> {
  %0 = kiln.unfold %x {dim = 1, size = 3, step = 1} : tensor<2x5xf32> -> tensor<2x3x3xf32>
  return %0 : tensor<2x3x3xf32>
}

// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[W:.*]]: tensor<10x4xf32>, %[[IDS:.*]]: tensor<2x5xi64>)
// CHECK: %[[R:.*]] = kiln.gather %[[W]], %[[IDS]] {axis = 0 : i64} : (tensor<10x4xf32>, tensor<2x5xi64>) -> tensor<2x5x4xf32>
// CHECK: return %[[R]]
func.func @gather(%w: tensor<10x4xf32>, %ids: tensor<2x5xi64>) -> tensor<2x5x4xf32> {
  %0 = kiln.gather %w, %ids {axis = 0} : (tensor<10x4xf32>, tensor<2x5xi64>) -> tensor<2x5x4xf32>
  return %0 : tensor<2x5x4xf32>
}

// CHECK-LABEL: func.func @index_select
// CHECK-SAME: (%[[X:.*]]: tensor<2x5xf32>, %[[IDX:.*]]: tensor<3xi32>)
// CHECK: %[[R:.*]] = kiln.index_select %[[X]], %[[IDX]] {axis = 1 : i64} : (tensor<2x5xf32>, tensor<3xi32>) -> tensor<2x3xf32>
// CHECK: return %[[R]]
func.func @index_select(%x: tensor<2x5xf32>, %idx: tensor<3xi32>) -> tensor<2x3xf32> {
  %0 = kiln.index_select %x, %idx {axis = 1} : (tensor<2x5xf32>, tensor<3xi32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @index_add
// CHECK-SAME: (%[[X:.*]]: tensor<5x4xf32>, %[[IDX:.*]]: tensor<3xi64>, %[[S:.*]]: tensor<3x4xf32>)
// CHECK: %[[R:.*]] = kiln.index_add %[[X]], %[[IDX]], %[[S]] {axis = 0 : i64} : (tensor<5x4xf32>, tensor<3xi64>, tensor<3x4xf32>) -> tensor<5x4xf32>
// CHECK: return %[[R]]
func.func @index_add(%x: tensor<5x4xf32>, %idx: tensor<3xi64>, %s: tensor<3x4xf32>) -> tensor<5x4xf32> {
  %0 = kiln.index_add %x, %idx, %s {axis = 0} : (tensor<5x4xf32>, tensor<3xi64>, tensor<3x4xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// CHECK-LABEL: func.func @gather_pages
// CHECK-SAME: (%[[P:.*]]: tensor<10x2x16x8xf16>, %[[T:.*]]: tensor<4x3xi32>)
// CHECK: kiln.gather_pages %[[P]], %[[T]] : (tensor<10x2x16x8xf16>, tensor<4x3xi32>) -> tensor<4x2x48x8xf16>
func.func @gather_pages(%p: tensor<10x2x16x8xf16>, %t: tensor<4x3xi32>) -> tensor<4x2x48x8xf16> {
  %0 = kiln.gather_pages %p, %t : (tensor<10x2x16x8xf16>, tensor<4x3xi32>) -> tensor<4x2x48x8xf16>
  return %0 : tensor<4x2x48x8xf16>
}

// CHECK-LABEL: func.func @index_add_middle_axis_bf16
// CHECK: kiln.index_add %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x5x3xbf16>, tensor<4xi32>, tensor<2x4x3xbf16>) -> tensor<2x5x3xbf16>
func.func @index_add_middle_axis_bf16(%x: tensor<2x5x3xbf16>, %idx: tensor<4xi32>, %s: tensor<2x4x3xbf16>) -> tensor<2x5x3xbf16> {
  %0 = kiln.index_add %x, %idx, %s {axis = 1} : (tensor<2x5x3xbf16>, tensor<4xi32>, tensor<2x4x3xbf16>) -> tensor<2x5x3xbf16>
  return %0 : tensor<2x5x3xbf16>
}

// CHECK-LABEL: func.func @index_add_i1
// CHECK: kiln.index_add %{{.*}}, %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<4xi1>, tensor<2xi64>, tensor<2xi1>) -> tensor<4xi1>
func.func @index_add_i1(%x: tensor<4xi1>, %idx: tensor<2xi64>, %s: tensor<2xi1>) -> tensor<4xi1> {
  %0 = kiln.index_add %x, %idx, %s {axis = 0} : (tensor<4xi1>, tensor<2xi64>, tensor<2xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// CHECK-LABEL: func.func @split
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf32>)
// CHECK: %[[R:.*]]:2 = kiln.split %[[X]] {axis = 0 : i64, split_sizes = array<i64: 1, 3>} : tensor<4x3xf32> -> tensor<1x3xf32>, tensor<3x3xf32>
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @split(%x: tensor<4x3xf32>) -> (tensor<1x3xf32>, tensor<3x3xf32>) {
  %0:2 = kiln.split %x {axis = 0, split_sizes = array<i64: 1, 3>} : tensor<4x3xf32> -> tensor<1x3xf32>, tensor<3x3xf32>
  return %0#0, %0#1 : tensor<1x3xf32>, tensor<3x3xf32>
}
