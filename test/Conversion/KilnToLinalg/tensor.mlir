// RUN: kiln-opt %s --convert-kiln-to-linalg --split-input-file | FileCheck %s

// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @iota_i64
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<2x3xi64>
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [#[[$ID2]]]
// CHECK-SAME: outs(%[[INIT]] : tensor<2x3xi64>)
// CHECK: %[[I:.*]] = linalg.index 1 : index
// CHECK: %[[C:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK: linalg.yield %[[C]] : i64
// CHECK-NOT: kiln.
func.func @iota_i64() -> tensor<2x3xi64> {
  %0 = kiln.iota {axis = 1} : tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

// -----

// Floats convert the index through i64; booleans are `index != 0`.
// CHECK-LABEL: func.func @iota_f32_i1
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[W:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK: arith.sitofp %[[W]] : i64 to f32
// CHECK: %[[J:.*]] = linalg.index 0 : index
// CHECK: %[[Z:.*]] = arith.constant 0 : index
// CHECK: arith.cmpi ne, %[[J]], %[[Z]] : index
func.func @iota_f32_i1() -> (tensor<4xf32>, tensor<3xi1>) {
  %0 = kiln.iota {axis = 0} : tensor<4xf32>
  %1 = kiln.iota {axis = 0} : tensor<3xi1>
  return %0, %1 : tensor<4xf32>, tensor<3xi1>
}

// -----

// CHECK-DAG: #[[$BCAST:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-DAG: #[[$ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @broadcast_to
// CHECK-SAME: (%[[X:.*]]: tensor<4x1xi32>)
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [#[[$BCAST]], #[[$ID3]]]
// CHECK-SAME: ins(%[[X]] : tensor<4x1xi32>)
// CHECK: ^bb0(%[[IN:.*]]: i32, %{{.*}}: i32):
// CHECK: linalg.yield %[[IN]] : i32
// CHECK: return %[[R]]
func.func @broadcast_to(%x: tensor<4x1xi32>) -> tensor<2x4x3xi32> {
  %0 = kiln.broadcast_to %x : tensor<4x1xi32> -> tensor<2x4x3xi32>
  return %0 : tensor<2x4x3xi32>
}

// -----

// CHECK-LABEL: func.func @transpose_permute
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf64>)
// CHECK: %[[I0:.*]] = tensor.empty() : tensor<4x3x2xf64>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[X]] : tensor<2x3x4xf64>) outs(%[[I0]] : tensor<4x3x2xf64>) permutation = [2, 1, 0]
// CHECK: %[[I1:.*]] = tensor.empty() : tensor<4x2x3xf64>
// CHECK: %[[P:.*]] = linalg.transpose ins(%[[X]] : tensor<2x3x4xf64>) outs(%[[I1]] : tensor<4x2x3xf64>) permutation = [2, 0, 1]
// CHECK: return %[[T]], %[[P]], %[[X]]
func.func @transpose_permute(%x: tensor<2x3x4xf64>) -> (tensor<4x3x2xf64>, tensor<4x2x3xf64>, tensor<2x3x4xf64>) {
  %0 = kiln.transpose %x {dim0 = 0, dim1 = 2} : tensor<2x3x4xf64> -> tensor<4x3x2xf64>
  %1 = kiln.permute %x {permutation = array<i64: 2, 0, 1>} : tensor<2x3x4xf64> -> tensor<4x2x3xf64>
  %2 = kiln.transpose %x {dim0 = 1, dim1 = 1} : tensor<2x3x4xf64> -> tensor<2x3x4xf64>
  return %0, %1, %2 : tensor<4x3x2xf64>, tensor<4x2x3xf64>, tensor<2x3x4xf64>
}

// -----

// A reshape that merges or splits neighbouring dims is one collapse or
// expand; any other goes through the flat 1-D tensor.
// CHECK-LABEL: func.func @reshape
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>, %[[S:.*]]: tensor<f32>)
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: %[[E:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1], [2, 3]] output_shape [2, 3, 2, 2] : tensor<2x3x4xf32> into tensor<2x3x2x2xf32>
// CHECK: %[[F:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK: %[[G:.*]] = tensor.expand_shape %[[F]] {{\[}}[0, 1]] output_shape [3, 8] : tensor<24xf32> into tensor<3x8xf32>
// CHECK: %[[U:.*]] = tensor.expand_shape %[[S]] [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
// CHECK: return %[[C]], %[[E]], %[[G]], %[[U]]
func.func @reshape(%x: tensor<2x3x4xf32>, %s: tensor<f32>) -> (tensor<6x4xf32>, tensor<2x3x2x2xf32>, tensor<3x8xf32>, tensor<1x1xf32>) {
  %0 = kiln.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %1 = kiln.reshape %x : tensor<2x3x4xf32> -> tensor<2x3x2x2xf32>
  %2 = kiln.reshape %x : tensor<2x3x4xf32> -> tensor<3x8xf32>
  %3 = kiln.reshape %s : tensor<f32> -> tensor<1x1xf32>
  return %0, %1, %2, %3 : tensor<6x4xf32>, tensor<2x3x2x2xf32>, tensor<3x8xf32>, tensor<1x1xf32>
}

// -----

// CHECK-LABEL: func.func @flatten_squeeze_unsqueeze
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf64>, %[[Y:.*]]: tensor<1x3x1xi8>, %[[Z:.*]]: tensor<1x1xi1>)
// CHECK: %[[F:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0], [1, 2]] : tensor<2x3x4xf64> into tensor<2x12xf64>
// CHECK: %[[S:.*]] = tensor.collapse_shape %[[Y]] {{\[}}[0, 1, 2]] : tensor<1x3x1xi8> into tensor<3xi8>
// CHECK: %[[S0:.*]] = tensor.collapse_shape %[[Z]] [] : tensor<1x1xi1> into tensor<i1>
// CHECK: %[[U:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1], [2, 3]] output_shape [2, 3, 4, 1] : tensor<2x3x4xf64> into tensor<2x3x4x1xf64>
// CHECK: %[[U0:.*]] = tensor.expand_shape %[[X]] {{\[}}[0, 1], [2], [3]] output_shape [1, 2, 3, 4] : tensor<2x3x4xf64> into tensor<1x2x3x4xf64>
// CHECK: return %[[F]], %[[S]], %[[S0]], %[[U]], %[[U0]]
func.func @flatten_squeeze_unsqueeze(%x: tensor<2x3x4xf64>, %y: tensor<1x3x1xi8>, %z: tensor<1x1xi1>) -> (tensor<2x12xf64>, tensor<3xi8>, tensor<i1>, tensor<2x3x4x1xf64>, tensor<1x2x3x4xf64>) {
  %0 = kiln.flatten %x {start_dim = 1, end_dim = 2} : tensor<2x3x4xf64> -> tensor<2x12xf64>
  %1 = kiln.squeeze %y {dims = array<i64: 0, 2>} : tensor<1x3x1xi8> -> tensor<3xi8>
  %2 = kiln.squeeze %z {dims = array<i64: 1, 0>} : tensor<1x1xi1> -> tensor<i1>
  %3 = kiln.unsqueeze %x {dim = 3} : tensor<2x3x4xf64> -> tensor<2x3x4x1xf64>
  %4 = kiln.unsqueeze %x {dim = 0} : tensor<2x3x4xf64> -> tensor<1x2x3x4xf64>
  return %0, %1, %2, %3, %4 : tensor<2x12xf64>, tensor<3xi8>, tensor<i1>, tensor<2x3x4x1xf64>, tensor<1x2x3x4xf64>
}

// -----

// Inputs without elements are dropped from a concat.
// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x0xf32>, %[[C:.*]]: tensor<2x1xf32>)
// CHECK: %[[R:.*]] = tensor.concat dim(1) %[[A]], %[[C]] : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x0xf32>
// CHECK: return %[[R]], %[[E]]
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x0xf32>, %c: tensor<2x1xf32>) -> (tensor<2x4xf32>, tensor<2x0xf32>) {
  %0 = kiln.concat %a, %b, %c {axis = 1} : (tensor<2x3xf32>, tensor<2x0xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %1 = kiln.concat %b, %b {axis = 1} : (tensor<2x0xf32>, tensor<2x0xf32>) -> tensor<2x0xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<2x0xf32>
}

// -----

// CHECK-LABEL: func.func @split
// CHECK-SAME: (%[[X:.*]]: tensor<5x3xi64>)
// CHECK: %[[P0:.*]] = tensor.extract_slice %[[X]][0, 0] [1, 3] [1, 1] : tensor<5x3xi64> to tensor<1x3xi64>
// CHECK: %[[P1:.*]] = tensor.extract_slice %[[X]][1, 0] [4, 3] [1, 1] : tensor<5x3xi64> to tensor<4x3xi64>
// CHECK: %[[P2:.*]] = tensor.empty() : tensor<0x3xi64>
// CHECK: return %[[P0]], %[[P1]], %[[P2]]
func.func @split(%x: tensor<5x3xi64>) -> (tensor<1x3xi64>, tensor<4x3xi64>, tensor<0x3xi64>) {
  %0:3 = kiln.split %x {axis = 0, split_sizes = array<i64: 1, 4, 0>} : tensor<5x3xi64> -> tensor<1x3xi64>, tensor<4x3xi64>, tensor<0x3xi64>
  return %0#0, %0#1, %0#2 : tensor<1x3xi64>, tensor<4x3xi64>, tensor<0x3xi64>
}

// -----

// CHECK-LABEL: func.func @slice
// CHECK-SAME: (%[[X:.*]]: tensor<2x5xf32>)
// CHECK: %[[S:.*]] = tensor.extract_slice %[[X]][0, 1] [2, 2] [1, 2] : tensor<2x5xf32> to tensor<2x2xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<0x5xf32>
// CHECK: return %[[S]], %[[E]]
func.func @slice(%x: tensor<2x5xf32>) -> (tensor<2x2xf32>, tensor<0x5xf32>) {
  %0 = kiln.slice %x {starts = array<i64: 0, 1>, stops = array<i64: 2, 5>, strides = array<i64: 1, 2>} : tensor<2x5xf32> -> tensor<2x2xf32>
  %1 = kiln.slice %x {starts = array<i64: 2, 0>, stops = array<i64: 2, 5>, strides = array<i64: 1, 1>} : tensor<2x5xf32> -> tensor<0x5xf32>
  return %0, %1 : tensor<2x2xf32>, tensor<0x5xf32>
}

// -----

// The padding value is converted to the element type; an input without
// elements is all padding.
// CHECK-LABEL: func.func @pad
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<2xi8>, %[[Z:.*]]: tensor<0x2xf64>)
// CHECK: %[[V:.*]] = arith.constant 1.000000e-01 : f32
// CHECK: %[[P:.*]] = tensor.pad %[[X]] low[0, 1] high[2, 1]
// CHECK: tensor.yield %[[V]] : f32
// CHECK: } : tensor<2x3xf32> to tensor<4x5xf32>
// CHECK: %[[W:.*]] = arith.constant -128 : i8
// CHECK: tensor.pad %[[Y]] low[1] high[0]
// CHECK: tensor.yield %[[W]] : i8
// CHECK: %[[U:.*]] = arith.constant -1.500000e+00 : f64
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x3xf64>
// CHECK: %[[F:.*]] = linalg.fill ins(%[[U]] : f64) outs(%[[E]] : tensor<2x3xf64>)
// CHECK: return %[[P]], %{{.*}}, %[[F]]
func.func @pad(%x: tensor<2x3xf32>, %y: tensor<2xi8>, %z: tensor<0x2xf64>) -> (tensor<4x5xf32>, tensor<3xi8>, tensor<2x3xf64>) {
  %0 = kiln.pad %x {low = array<i64: 0, 1>, high = array<i64: 2, 1>, value = 0.1 : f64} : tensor<2x3xf32> -> tensor<4x5xf32>
  %1 = kiln.pad %y {low = array<i64: 1>, high = array<i64: 0>, value = -128.0 : f64} : tensor<2xi8> -> tensor<3xi8>
  %2 = kiln.pad %z {low = array<i64: 2, 0>, high = array<i64: 0, 1>, value = -1.5 : f64} : tensor<0x2xf64> -> tensor<2x3xf64>
  return %0, %1, %2 : tensor<4x5xf32>, tensor<3xi8>, tensor<2x3xf64>
}

// -----

// CHECK-DAG: #[[$ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @tril_triu
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x4xf64>, %[[B:.*]]: tensor<3x3xi1>)
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [#[[$ID3]], #[[$ID3]]]
// CHECK-SAME: ins(%[[X]] : tensor<2x4x4xf64>)
// CHECK: ^bb0(%[[IN:.*]]: f64, %{{.*}}: f64):
// CHECK: %[[I:.*]] = linalg.index 1 : index
// CHECK: %[[J:.*]] = linalg.index 2 : index
// CHECK: %[[D:.*]] = arith.subi %[[J]], %[[I]] : index
// CHECK: %[[K:.*]] = arith.constant -1 : index
// CHECK: %[[KEEP:.*]] = arith.cmpi sle, %[[D]], %[[K]] : index
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f64
// CHECK: %[[S:.*]] = arith.select %[[KEEP]], %[[IN]], %[[Z]] : f64
// CHECK: linalg.yield %[[S]] : f64
// CHECK: ins(%[[B]] : tensor<3x3xi1>)
// CHECK: %[[D2:.*]] = arith.subi
// CHECK: %[[K2:.*]] = arith.constant 1 : index
// CHECK: arith.cmpi sge, %[[D2]], %[[K2]] : index
// CHECK: arith.constant false
func.func @tril_triu(%x: tensor<2x4x4xf64>, %b: tensor<3x3xi1>) -> (tensor<2x4x4xf64>, tensor<3x3xi1>) {
  %0 = kiln.tril %x {diagonal = -1} : tensor<2x4x4xf64>
  %1 = kiln.triu %b {diagonal = 1} : tensor<3x3xi1>
  return %0, %1 : tensor<2x4x4xf64>, tensor<3x3xi1>
}

// -----

// Window w, offset k of dim 1 read element w * step + k.
// CHECK-DAG: #[[$WIN:.*]] = affine_map<(d0, d1, d2) -> (d0, d1 * 2 + d2)>
// CHECK-DAG: #[[$ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @unfold
// CHECK-SAME: (%[[X:.*]]: tensor<4x7xi32>)
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [#[[$WIN]], #[[$ID3]]]
// CHECK-SAME: ins(%[[X]] : tensor<4x7xi32>)
// CHECK-SAME: outs(%{{.*}} : tensor<4x3x3xi32>)
func.func @unfold(%x: tensor<4x7xi32>) -> tensor<4x3x3xi32> {
  %0 = kiln.unfold %x {dim = 1, size = 3, step = 2} : tensor<4x7xi32> -> tensor<4x3x3xi32>
  return %0 : tensor<4x3x3xi32>
}

// -----

// An embedding lookup: the ids are read through the indexing map, clamped
// to [0, 9] and the row element extracted.
// CHECK-DAG: #[[$IDS:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @gather_embedding
// CHECK-SAME: (%[[W:.*]]: tensor<10x4xf32>, %[[IDS:.*]]: tensor<2x5xi64>)
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [#[[$IDS]], #[[$ID3]]]
// CHECK-SAME: ins(%[[IDS]] : tensor<2x5xi64>)
// CHECK: ^bb0(%[[ID:.*]]: i64, %{{.*}}: f32):
// CHECK: %[[I:.*]] = arith.index_cast %[[ID]] : i64 to index
// CHECK: %[[LO:.*]] = arith.constant 0 : index
// CHECK: %[[HI:.*]] = arith.constant 9 : index
// CHECK: %[[A:.*]] = arith.maxsi %[[I]], %[[LO]] : index
// CHECK: %[[B:.*]] = arith.minsi %[[A]], %[[HI]] : index
// CHECK: %[[D:.*]] = linalg.index 2 : index
// CHECK: %[[E:.*]] = tensor.extract %[[W]][%[[B]], %[[D]]] : tensor<10x4xf32>
// CHECK: linalg.yield %[[E]] : f32
func.func @gather_embedding(%w: tensor<10x4xf32>, %ids: tensor<2x5xi64>) -> tensor<2x5x4xf32> {
  %0 = kiln.gather %w, %ids {axis = 0} : (tensor<10x4xf32>, tensor<2x5xi64>) -> tensor<2x5x4xf32>
  return %0 : tensor<2x5x4xf32>
}

// -----

// Data dims before the axis keep their loops, those after it follow the
// index dims.
// CHECK-DAG: #[[$IDX:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @index_select
// CHECK-SAME: (%[[X:.*]]: tensor<2x5x3xi8>, %[[I:.*]]: tensor<4xi32>)
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [#[[$IDX]], #{{.*}}]
// CHECK: %[[C:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK: %[[HI:.*]] = arith.constant 4 : index
// CHECK: %[[A:.*]] = arith.maxsi %[[C]], %{{.*}} : index
// CHECK: %[[B:.*]] = arith.minsi %[[A]], %[[HI]] : index
// CHECK: %[[D0:.*]] = linalg.index 0 : index
// CHECK: %[[D2:.*]] = linalg.index 2 : index
// CHECK: tensor.extract %[[X]][%[[D0]], %[[B]], %[[D2]]] : tensor<2x5x3xi8>
func.func @index_select(%x: tensor<2x5x3xi8>, %i: tensor<4xi32>) -> tensor<2x4x3xi8> {
  %0 = kiln.index_select %x, %i {axis = 1} : (tensor<2x5x3xi8>, tensor<4xi32>) -> tensor<2x4x3xi8>
  return %0 : tensor<2x4x3xi8>
}

// -----

// gather_pages: one generic over [B, H, M * T, D] reading
// pages[clamp(table[b, j / T], 0, P - 1), h, j % T, d].
// CHECK-LABEL: func.func @gather_pages
// CHECK-SAME: (%[[P:.*]]: tensor<5x2x3x4xf32>, %[[T:.*]]: tensor<2x3xi32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%{{.*}} : tensor<2x2x9x4xf32>)
// CHECK: %[[B:.*]] = linalg.index 0 : index
// CHECK: %[[H:.*]] = linalg.index 1 : index
// CHECK: %[[J:.*]] = linalg.index 2 : index
// CHECK: %[[D:.*]] = linalg.index 3 : index
// CHECK: %[[PS:.*]] = arith.constant 3 : index
// CHECK: %[[M:.*]] = arith.divui %[[J]], %[[PS]] : index
// CHECK: %[[O:.*]] = arith.remui %[[J]], %[[PS]] : index
// CHECK: %[[LAST:.*]] = arith.constant 4 : index
// CHECK: %[[E:.*]] = tensor.extract %[[T]][%[[B]], %[[M]]] : tensor<2x3xi32>
// CHECK: %[[W:.*]] = arith.index_cast %[[E]] : i32 to index
// CHECK: %[[LO:.*]] = arith.maxsi %[[W]], %{{.*}} : index
// CHECK: %[[PAGE:.*]] = arith.minsi %[[LO]], %[[LAST]] : index
// CHECK: %[[V:.*]] = tensor.extract %[[P]][%[[PAGE]], %[[H]], %[[O]], %[[D]]] : tensor<5x2x3x4xf32>
// CHECK: linalg.yield %[[V]] : f32
func.func @gather_pages(%p: tensor<5x2x3x4xf32>, %t: tensor<2x3xi32>) -> tensor<2x2x9x4xf32> {
  %0 = kiln.gather_pages %p, %t : (tensor<5x2x3x4xf32>, tensor<2x3xi32>) -> tensor<2x2x9x4xf32>
  return %0 : tensor<2x2x9x4xf32>
}
