// Malformed text is a parse error with a non-zero exit, never a crash: `not`
// fails on a crash, so each RUN line also proves the tool exits cleanly.
// RUN: split-file %s %t
// RUN: not kiln-opt %t/unknown-op.mlir 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not kiln-opt %t/truncated.mlir 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// RUN: not kiln-opt %t/bad-attr.mlir 2>&1 | FileCheck %s --check-prefix=BADATTR
// RUN: not kiln-opt %t/bad-type.mlir 2>&1 | FileCheck %s --check-prefix=BADTYPE

//--- unknown-op.mlir
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  // UNKNOWN: error: custom op 'kiln.frobnicate' is unknown
  %0 = kiln.frobnicate %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}

//--- truncated.mlir
func.func @f(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  // TRUNCATED: error: expected ':'
  %0 = kiln.add %a, %b

//--- bad-attr.mlir
func.func @f() -> tensor<2xf32> {
  // BADATTR: error: expected element literal of primitive type
  %0 = kiln.constant dense<[1.0, > : tensor<2xf32>
  return %0 : tensor<2xf32>
}

//--- bad-type.mlir
func.func @f(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  // BADTYPE: error: expected non-function type
  %0 = kiln.add %a, %b : (tensor<2xf32>, tensor<2x) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
