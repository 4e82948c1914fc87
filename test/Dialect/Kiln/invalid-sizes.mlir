// RUN: kiln-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// Every kiln op rejects a tensor whose byte size a signed 64-bit integer
// cannot hold: the lowerings' index arithmetic and the runtimes' allocations
// compute it in int64, where it would wrap. The element count alone may fit
// (the first case: 2^62 elements of 4 bytes) or not (4294967296 x 4294967296
// booleans, 2^64 bytes). Tensors that fit exactly are accepted (the CHECK
// lines).

func.func @operand(%x: tensor<4611686018427387904x4xf32>) -> tensor<4611686018427387904x4xf32> {
  // expected-error @+1 {{'kiln.exp' op operand #0 ('tensor<4611686018427387904x4xf32>') needs more than 2^63 - 1 bytes}}
  %y = kiln.exp %x : tensor<4611686018427387904x4xf32>
  return %y : tensor<4611686018427387904x4xf32>
}

// -----

func.func @result(%x: tensor<f32>) -> tensor<2305843009213693952xf32> {
  // expected-error @+1 {{'kiln.broadcast_to' op result #0 ('tensor<2305843009213693952xf32>') needs more than 2^63 - 1 bytes}}
  %y = kiln.broadcast_to %x : tensor<f32> -> tensor<2305843009213693952xf32>
  return %y : tensor<2305843009213693952xf32>
}

// -----

func.func @booleans(%x: tensor<4294967296x4294967296xi1>) -> tensor<4294967296x4294967296xi1> {
  // expected-error @+1 {{'kiln.add' op operand #0 ('tensor<4294967296x4294967296xi1>') needs more than 2^63 - 1 bytes}}
  %y = kiln.add %x, %x : (tensor<4294967296x4294967296xi1>, tensor<4294967296x4294967296xi1>) -> tensor<4294967296x4294967296xi1>
  return %y : tensor<4294967296x4294967296xi1>
}

// -----

// Checked before the op's own verifier, which counts elements (2^64 here).
func.func @before_the_verifier(%x: tensor<4611686018427387904x4xi8>) -> tensor<2x9223372036854775807xi8> {
  // expected-error @+1 {{'kiln.reshape' op operand #0 ('tensor<4611686018427387904x4xi8>') needs more than 2^63 - 1 bytes}}
  %y = kiln.reshape %x : tensor<4611686018427387904x4xi8> -> tensor<2x9223372036854775807xi8>
  return %y : tensor<2x9223372036854775807xi8>
}

// -----

// The largest: 2^63 - 4 bytes of f32 and 2^63 - 1 bytes of booleans.
// CHECK-LABEL: func.func @largest
// CHECK: kiln.broadcast_to {{.*}} -> tensor<2305843009213693951xf32>
// CHECK: kiln.add {{.*}} -> tensor<9223372036854775807xi1>
func.func @largest(%x: tensor<f32>, %b: tensor<9223372036854775807xi1>) -> (tensor<2305843009213693951xf32>, tensor<9223372036854775807xi1>) {
  %y = kiln.broadcast_to %x : tensor<f32> -> tensor<2305843009213693951xf32>
  %n = kiln.add %b, %b : (tensor<9223372036854775807xi1>, tensor<9223372036854775807xi1>) -> tensor<9223372036854775807xi1>
  return %y, %n : tensor<2305843009213693951xf32>, tensor<9223372036854775807xi1>
}
