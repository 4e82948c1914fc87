// RUN: kiln-opt %s --split-input-file --verify-diagnostics

func.func @iota_axis() {
  // expected-error @+1 {{'kiln.iota' op axis 2 is out of range [0, 2)}}
  %0 = kiln.iota {axis = 2} : tensor<2x3xi64>
  return
}

// -----

func.func @iota_negative_axis() {
  // expected-error @+1 {{'kiln.iota' op axis -1 is out of range [0, 2)}}
  %0 = kiln.iota {axis = -1} : tensor<2x3xi64>
  return
}

// -----

func.func @broadcast_to_element_type(%x: tensor<3xf32>) {
  // expected-error @+1 {{'kiln.broadcast_to' op element type 'f16' of the result differs from element type 'f32' of the input}}
  %0 = kiln.broadcast_to %x : tensor<3xf32> -> tensor<2x3xf16>
  return
}

// -----

func.func @broadcast_to_shape(%x: tensor<3xf32>) {
  // expected-error @+1 {{'kiln.broadcast_to' op input shape [3] does not broadcast to result shape [3, 2]}}
  %0 = kiln.broadcast_to %x : tensor<3xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @broadcast_to_rank(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'kiln.broadcast_to' op input shape [2, 3] does not broadcast to result shape [3]}}
  %0 = kiln.broadcast_to %x : tensor<2x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @broadcast_to_dynamic(%x: tensor<?xf32>) {
  // expected-error @+1 {{'kiln.broadcast_to' op operand #0 must be statically shaped tensor}}
  %0 = kiln.broadcast_to %x : tensor<?xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @reshape_element_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'kiln.reshape' op element type 'i32' of the result differs from element type 'f32' of the input}}
  %0 = kiln.reshape %x : tensor<2x3xf32> -> tensor<6xi32>
  return
}

// -----

func.func @reshape_count(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'kiln.reshape' op input shape [2, 3] has 6 elements but result shape [5] has 5}}
  %0 = kiln.reshape %x : tensor<2x3xf32> -> tensor<5xf32>
  return
}

// -----

func.func @reshape_input_overflow(%x: tensor<4x4611686018427387904xf32>) {
  // expected-error @+1 {{'kiln.reshape' op operand #0 ('tensor<4x4611686018427387904xf32>') needs more than 2^63 - 1 bytes}}
  %0 = kiln.reshape %x : tensor<4x4611686018427387904xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reshape_result_overflow(%x: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.reshape' op result #0 ('tensor<4x4611686018427387904xf32>') needs more than 2^63 - 1 bytes}}
  %0 = kiln.reshape %x : tensor<4xf32> -> tensor<4x4611686018427387904xf32>
  return
}

// -----

func.func @transpose_dim0(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{dim0 2 is out of range [0, 2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.transpose %x {dim0 = 2, dim1 = 0} : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @transpose_dim1(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{dim1 -1 is out of range [0, 2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.transpose %x {dim0 = 0, dim1 = -1} : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @transpose_wrong_result(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'kiln.transpose' op inferred type(s) 'tensor<3x2xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.transpose %x {dim0 = 0, dim1 = 1} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @permute_size(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'permutation' must have 3 entries, one per dim, got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.permute %x {permutation = array<i64: 1, 0>} : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  return
}

// -----

func.func @permute_range(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{permutation entry 3 is out of range [0, 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.permute %x {permutation = array<i64: 0, 3, 1>} : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
  return
}

// -----

func.func @permute_repeated(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{permutation entry 1 is repeated}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.permute %x {permutation = array<i64: 0, 1, 1>} : tensor<2x3x4xf32> -> tensor<2x3x3xf32>
  return
}

// -----

func.func @flatten_start(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{start_dim -1 is out of range [0, 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.flatten %x {start_dim = -1, end_dim = 2} : tensor<2x3x4xf32> -> tensor<24xf32>
  return
}

// -----

func.func @flatten_end(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{end_dim 3 is out of range [0, 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.flatten %x {start_dim = 0, end_dim = 3} : tensor<2x3x4xf32> -> tensor<24xf32>
  return
}

// -----

func.func @flatten_order(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{start_dim 2 is after end_dim 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.flatten %x {start_dim = 2, end_dim = 1} : tensor<2x3x4xf32> -> tensor<24xf32>
  return
}

// -----

func.func @flatten_overflow(%x: tensor<4x4611686018427387904xf32>) {
  // expected-error @+1 {{'kiln.flatten' op operand #0 ('tensor<4x4611686018427387904xf32>') needs more than 2^63 - 1 bytes}}
  %0 = kiln.flatten %x {start_dim = 0, end_dim = 1} : tensor<4x4611686018427387904xf32> -> tensor<4xf32>
  return
}

// -----

func.func @squeeze_empty(%x: tensor<1x3xf32>) {
  // expected-error @+2 {{'dims' must not be empty}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.squeeze %x {dims = array<i64>} : tensor<1x3xf32> -> tensor<1x3xf32>
  return
}

// -----

func.func @squeeze_range(%x: tensor<1x3xf32>) {
  // expected-error @+2 {{dim 2 is out of range [0, 2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.squeeze %x {dims = array<i64: 2>} : tensor<1x3xf32> -> tensor<1x3xf32>
  return
}

// -----

func.func @squeeze_repeated(%x: tensor<1x3xf32>) {
  // expected-error @+2 {{dim 0 is repeated}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.squeeze %x {dims = array<i64: 0, 0>} : tensor<1x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @squeeze_size(%x: tensor<1x3xf32>) {
  // expected-error @+2 {{dim 1 has size 3, expected 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.squeeze %x {dims = array<i64: 1>} : tensor<1x3xf32> -> tensor<1xf32>
  return
}

// -----

func.func @unsqueeze_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{dim 3 is out of range [0, 2]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.unsqueeze %x {dim = 3} : tensor<2x3xf32> -> tensor<2x3x1xf32>
  return
}

// -----

func.func @unsqueeze_negative(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{dim -1 is out of range [0, 2]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.unsqueeze %x {dim = -1} : tensor<2x3xf32> -> tensor<2x3x1xf32>
  return
}

// -----

func.func @concat_empty() {
  // expected-error @+2 {{expected at least one input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "kiln.concat"() {axis = 0} : () -> tensor<3xf32>
  return
}

// -----

func.func @concat_axis(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) {
  // expected-error @+2 {{axis 2 is out of range [0, 2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.concat %a, %b {axis = 2} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_element_type(%a: tensor<2x3xf32>, %b: tensor<2x3xf16>) {
  // expected-error @+2 {{inputs #1 has element type 'f16', expected 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.concat %a, %b {axis = 0} : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_rank(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{inputs #1 has rank 1, expected 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.concat %a, %b {axis = 0} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
  return
}

// -----

func.func @concat_shape(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %c: tensor<2x4xf32>) {
  // expected-error @+2 {{inputs #2 has shape [2, 4], which differs from [2, 3] in dim 1 other than the axis}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.concat %a, %b, %c {axis = 0} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<6x3xf32>
  return
}

// -----

// Each operand has 2^62 bytes; together 2^63.
func.func @concat_overflow(%a: tensor<4611686018427387904xi8>, %b: tensor<4611686018427387904xi8>) {
  // expected-error @+2 {{size of the concatenated axis overflows int64}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.concat %a, %b {axis = 0} : (tensor<4611686018427387904xi8>, tensor<4611686018427387904xi8>) -> tensor<4xi8>
  return
}

// -----

func.func @split_axis(%x: tensor<4x3xf32>) {
  // expected-error @+2 {{axis 2 is out of range [0, 2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = kiln.split %x {axis = 2, split_sizes = array<i64: 1, 3>} : tensor<4x3xf32> -> tensor<1x3xf32>, tensor<3x3xf32>
  return
}

// -----

func.func @split_empty(%x: tensor<0x3xf32>) {
  // expected-error @+2 {{'split_sizes' must not be empty}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "kiln.split"(%x) {axis = 0, split_sizes = array<i64>} : (tensor<0x3xf32>) -> tensor<0x3xf32>
  return
}

// -----

func.func @split_negative(%x: tensor<4x3xf32>) {
  // expected-error @+2 {{split size -1 is negative}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = kiln.split %x {axis = 0, split_sizes = array<i64: 5, -1>} : tensor<4x3xf32> -> tensor<1x3xf32>, tensor<3x3xf32>
  return
}

// -----

func.func @split_sum(%x: tensor<4x3xf32>) {
  // expected-error @+2 {{split sizes sum to 3, but axis 0 has size 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = kiln.split %x {axis = 0, split_sizes = array<i64: 1, 2>} : tensor<4x3xf32> -> tensor<1x3xf32>, tensor<2x3xf32>
  return
}

// -----

func.func @split_overflow(%x: tensor<4x3xf32>) {
  // expected-error @+2 {{sum of the split sizes overflows int64}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = kiln.split %x {axis = 0, split_sizes = array<i64: 9223372036854775807, 1>} : tensor<4x3xf32> -> tensor<1x3xf32>, tensor<2x3xf32>
  return
}

// -----

func.func @slice_starts(%x: tensor<2x5xf32>) {
  // expected-error @+2 {{'starts' must have 2 entries, one per dim, got 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.slice %x {starts = array<i64: 0>, stops = array<i64: 2, 5>, strides = array<i64: 1, 1>} : tensor<2x5xf32> -> tensor<2x5xf32>
  return
}

// -----

func.func @slice_stops(%x: tensor<2x5xf32>) {
  // expected-error @+2 {{'stops' must have 2 entries, one per dim, got 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.slice %x {starts = array<i64: 0, 0>, stops = array<i64: 2, 5, 1>, strides = array<i64: 1, 1>} : tensor<2x5xf32> -> tensor<2x5xf32>
  return
}

// -----

func.func @slice_strides(%x: tensor<2x5xf32>) {
  // expected-error @+2 {{'strides' must have 2 entries, one per dim, got 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.slice %x {starts = array<i64: 0, 0>, stops = array<i64: 2, 5>, strides = array<i64>} : tensor<2x5xf32> -> tensor<2x5xf32>
  return
}

// -----

func.func @slice_negative_start(%x: tensor<2x5xf32>) {
  // expected-error @+2 {{start -1 of dim 1 is negative}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.slice %x {starts = array<i64: 0, -1>, stops = array<i64: 2, 5>, strides = array<i64: 1, 1>} : tensor<2x5xf32> -> tensor<2x5xf32>
  return
}

// -----

func.func @slice_start_after_stop(%x: tensor<2x5xf32>) {
  // expected-error @+2 {{start 4 of dim 1 is after stop 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.slice %x {starts = array<i64: 0, 4>, stops = array<i64: 2, 3>, strides = array<i64: 1, 1>} : tensor<2x5xf32> -> tensor<2x5xf32>
  return
}

// -----

func.func @slice_stop_past_size(%x: tensor<2x5xf32>) {
  // expected-error @+2 {{stop 3 of dim 0 is past size 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.slice %x {starts = array<i64: 0, 0>, stops = array<i64: 3, 5>, strides = array<i64: 1, 1>} : tensor<2x5xf32> -> tensor<2x5xf32>
  return
}

// -----

func.func @slice_stride(%x: tensor<2x5xf32>) {
  // expected-error @+2 {{stride 0 of dim 1 is not positive}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.slice %x {starts = array<i64: 0, 0>, stops = array<i64: 2, 5>, strides = array<i64: 1, 0>} : tensor<2x5xf32> -> tensor<2x5xf32>
  return
}

// -----

func.func @pad_low_size(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'low' must have 2 entries, one per dim, got 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.pad %x {low = array<i64: 0>, high = array<i64: 0, 0>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @pad_high_size(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'high' must have 2 entries, one per dim, got 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.pad %x {low = array<i64: 0, 0>, high = array<i64: 0, 0, 0>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @pad_negative_low(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{low padding -1 of dim 1 is negative}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.pad %x {low = array<i64: 0, -1>, high = array<i64: 0, 0>} : tensor<2x3xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @pad_negative_high(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{high padding -1 of dim 0 is negative}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.pad %x {low = array<i64: 0, 0>, high = array<i64: -1, 0>} : tensor<2x3xf32> -> tensor<1x3xf32>
  return
}

// -----

func.func @pad_overflow(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{padded size of dim 1 overflows int64}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.pad %x {low = array<i64: 0, 1>, high = array<i64: 0, 9223372036854775807>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @pad_fractional_value(%x: tensor<2x3xi32>) {
  // expected-error @+1 {{'kiln.pad' op padding value 0.5 is not an integer that element type 'i32' holds}}
  %0 = kiln.pad %x {low = array<i64: 0, 0>, high = array<i64: 0, 1>, value = 0.5} : tensor<2x3xi32> -> tensor<2x4xi32>
  return
}

// -----

func.func @pad_value_range(%x: tensor<2x3xi8>) {
  // expected-error @+1 {{'kiln.pad' op padding value 128 is not an integer that element type 'i8' holds}}
  %0 = kiln.pad %x {low = array<i64: 0, 0>, high = array<i64: 0, 1>, value = 128.0} : tensor<2x3xi8> -> tensor<2x4xi8>
  return
}

// -----

func.func @pad_bool_value(%x: tensor<2x3xi1>) {
  // expected-error @+1 {{'kiln.pad' op padding value -1 is not an integer that element type 'i1' holds}}
  %0 = kiln.pad %x {low = array<i64: 0, 0>, high = array<i64: 0, 1>, value = -1.0} : tensor<2x3xi1> -> tensor<2x4xi1>
  return
}

// -----

func.func @tril_rank(%x: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.tril' op operand has rank 1, expected at least 2}}
  %0 = kiln.tril %x : tensor<4xf32>
  return
}

// -----

func.func @triu_rank(%x: tensor<f32>) {
  // expected-error @+1 {{'kiln.triu' op operand has rank 0, expected at least 2}}
  %0 = kiln.triu %x {diagonal = 1} : tensor<f32>
  return
}

// -----

func.func @unfold_dim(%x: tensor<2x5xf32>) {
  // expected-error @+2 {{dim 2 is out of range [0, 2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.unfold %x {dim = 2, size = 3, step = 1} : tensor<2x5xf32> -> tensor<2x3x3xf32>
  return
}

// -----

func.func @unfold_size(%x: tensor<2x5xf32>) {
  // expected-error @+2 {{window size 0 is not positive}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.unfold %x {dim = 1, size = 0, step = 1} : tensor<2x5xf32> -> tensor<2x6x0xf32>
  return
}

// -----

func.func @unfold_size_too_large(%x: tensor<2x5xf32>) {
  // expected-error @+2 {{window size 6 exceeds size 5 of dim 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.unfold %x {dim = 1, size = 6, step = 1} : tensor<2x5xf32> -> tensor<2x0x6xf32>
  return
}

// -----

func.func @unfold_step(%x: tensor<2x5xf32>) {
  // expected-error @+2 {{step 0 is not positive}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.unfold %x {dim = 1, size = 3, step = 0} : tensor<2x5xf32> -> tensor<2x3x3xf32>
  return
}

// -----

func.func @gather_axis(%w: tensor<10x4xf32>, %ids: tensor<2x5xi64>) {
  // expected-error @+2 {{axis 2 is out of range [0, 2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.gather %w, %ids {axis = 2} : (tensor<10x4xf32>, tensor<2x5xi64>) -> tensor<2x5x4xf32>
  return
}

// -----

func.func @gather_index_type(%w: tensor<10x4xf32>, %ids: tensor<2x5xf32>) {
  // expected-error @+1 {{'kiln.gather' op operand #1 must be statically shaped tensor of 32/64-bit signless integer values}}
  %0 = kiln.gather %w, %ids {axis = 0} : (tensor<10x4xf32>, tensor<2x5xf32>) -> tensor<2x5x4xf32>
  return
}

// -----

func.func @index_select_axis(%x: tensor<2x5xf32>, %idx: tensor<3xi32>) {
  // expected-error @+2 {{axis -1 is out of range [0, 2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.index_select %x, %idx {axis = -1} : (tensor<2x5xf32>, tensor<3xi32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @index_select_rank(%x: tensor<2x5xf32>, %idx: tensor<3x1xi32>) {
  // expected-error @+2 {{indices must have rank 1, got rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.index_select %x, %idx {axis = 1} : (tensor<2x5xf32>, tensor<3x1xi32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @gather_empty_axis(%x: tensor<0x4xf64>, %i: tensor<3xi64>) -> tensor<3x4xf64> {
  // expected-error @+2 {{cannot index axis 0 of size 0 with 3 indices}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.gather %x, %i {axis = 0} : (tensor<0x4xf64>, tensor<3xi64>) -> tensor<3x4xf64>
  return %0 : tensor<3x4xf64>
}

// -----

func.func @index_select_empty_axis(%x: tensor<2x0xf32>, %i: tensor<1xi32>) -> tensor<2x1xf32> {
  // expected-error @+2 {{cannot index axis 1 of size 0 with 1 indices}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.index_select %x, %i {axis = 1} : (tensor<2x0xf32>, tensor<1xi32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

func.func @index_add_axis(%x: tensor<5x4xf32>, %i: tensor<3xi64>, %s: tensor<3x4xf32>) {
  // expected-error @+2 {{axis 2 is out of range [0, 2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.index_add %x, %i, %s {axis = 2} : (tensor<5x4xf32>, tensor<3xi64>, tensor<3x4xf32>) -> tensor<5x4xf32>
  return
}

// -----

func.func @index_add_index_type(%x: tensor<5x4xf32>, %i: tensor<3xi8>, %s: tensor<3x4xf32>) {
  // expected-error @+1 {{'kiln.index_add' op operand #1 must be statically shaped tensor of 32/64-bit signless integer values}}
  %0 = kiln.index_add %x, %i, %s {axis = 0} : (tensor<5x4xf32>, tensor<3xi8>, tensor<3x4xf32>) -> tensor<5x4xf32>
  return
}

// -----

func.func @index_add_rank(%x: tensor<5x4xf32>, %i: tensor<3x1xi64>, %s: tensor<3x4xf32>) {
  // expected-error @+2 {{indices must have rank 1, got rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.index_add %x, %i, %s {axis = 0} : (tensor<5x4xf32>, tensor<3x1xi64>, tensor<3x4xf32>) -> tensor<5x4xf32>
  return
}

// -----

func.func @index_add_element_type(%x: tensor<5x4xf32>, %i: tensor<3xi64>, %s: tensor<3x4xf64>) {
  // expected-error @+2 {{source element type 'f64' differs from dest element type 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.index_add %x, %i, %s {axis = 0} : (tensor<5x4xf32>, tensor<3xi64>, tensor<3x4xf64>) -> tensor<5x4xf32>
  return
}

// -----

func.func @index_add_source_axis(%x: tensor<5x4xf32>, %i: tensor<3xi32>, %s: tensor<2x4xf32>) {
  // expected-error @+2 {{source must have type 'tensor<3x4xf32>' (dest's shape with dim 0 replaced by the 3 indices), got 'tensor<2x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.index_add %x, %i, %s {axis = 0} : (tensor<5x4xf32>, tensor<3xi32>, tensor<2x4xf32>) -> tensor<5x4xf32>
  return
}

// -----

func.func @index_add_source_other_dim(%x: tensor<2x5x4xf32>, %i: tensor<3xi64>, %s: tensor<2x3x5xf32>) {
  // expected-error @+2 {{source must have type 'tensor<2x3x4xf32>' (dest's shape with dim 1 replaced by the 3 indices), got 'tensor<2x3x5xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.index_add %x, %i, %s {axis = 1} : (tensor<2x5x4xf32>, tensor<3xi64>, tensor<2x3x5xf32>) -> tensor<2x5x4xf32>
  return
}

// -----

func.func @index_add_empty_axis(%x: tensor<0x4xf32>, %i: tensor<2xi64>, %s: tensor<2x4xf32>) {
  // expected-error @+2 {{cannot index axis 0 of size 0 with 2 indices}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.index_add %x, %i, %s {axis = 0} : (tensor<0x4xf32>, tensor<2xi64>, tensor<2x4xf32>) -> tensor<0x4xf32>
  return
}

// -----

func.func @index_add_result_type(%x: tensor<5x4xf32>, %i: tensor<3xi64>, %s: tensor<3x4xf32>) {
  // expected-error @+2 {{'kiln.index_add' op inferred type(s) 'tensor<5x4xf32>' are incompatible with return type(s) of operation 'tensor<3x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.index_add %x, %i, %s {axis = 0} : (tensor<5x4xf32>, tensor<3xi64>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @gather_pages_rank(%p: tensor<10x2x16xf32>, %t: tensor<4x3xi32>) {
  // expected-error @+2 {{pages must have rank 4 [P, H, T, D], got rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.gather_pages %p, %t : (tensor<10x2x16xf32>, tensor<4x3xi32>) -> tensor<4x2x48xf32>
  return
}

// -----

func.func @gather_pages_table_rank(%p: tensor<10x2x16x8xf32>, %t: tensor<12xi32>) {
  // expected-error @+2 {{block_table must have rank 2 [B, M], got rank 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.gather_pages %p, %t : (tensor<10x2x16x8xf32>, tensor<12xi32>) -> tensor<4x2x48x8xf32>
  return
}

// -----

func.func @gather_pages_no_pages(%p: tensor<0x2x16x8xf32>, %t: tensor<4x3xi64>) {
  // expected-error @+2 {{cannot read pages from an empty pool (P = 0) with 12 table entries}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.gather_pages %p, %t : (tensor<0x2x16x8xf32>, tensor<4x3xi64>) -> tensor<4x2x48x8xf32>
  return
}

// -----

func.func @gather_pages_overflow(%p: tensor<1x1x4611686018427387904x0xi8>, %t: tensor<1x3xi64>) {
  // expected-error @+2 {{M * T = 3 * 4611686018427387904 positions overflow int64}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.gather_pages %p, %t : (tensor<1x1x4611686018427387904x0xi8>, tensor<1x3xi64>) -> tensor<1x1x1x0xi8>
  return
}

// -----

func.func @gather_pages_result(%p: tensor<10x2x16x8xf32>, %t: tensor<4x3xi32>) {
  // expected-error @+2 {{'kiln.gather_pages' op inferred type(s) 'tensor<4x2x48x8xf32>' are incompatible with return type(s) of operation 'tensor<4x2x16x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.gather_pages %p, %t : (tensor<10x2x16x8xf32>, tensor<4x3xi32>) -> tensor<4x2x16x8xf32>
  return
}

// -----

func.func @gather_pages_table_type(%p: tensor<10x2x16x8xf32>, %t: tensor<4x3xf32>) {
  // expected-error @+1 {{'kiln.gather_pages' op operand #1 must be statically shaped tensor of 32/64-bit signless integer values}}
  %0 = kiln.gather_pages %p, %t : (tensor<10x2x16x8xf32>, tensor<4x3xf32>) -> tensor<4x2x48x8xf32>
  return
}
