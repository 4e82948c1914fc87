// A few ops of each kind for check_block.py's GPU smoke test against torch:
// elementwise with broadcasting, transcendental, reductions, softmax and
// matmuls (2-D, and batched with a broadcast right operand).

func.func @add_bcast(%x: tensor<64x128xf32>, %b: tensor<128xf32>) -> tensor<64x128xf32> {
  %0 = kiln.add %x, %b : (tensor<64x128xf32>, tensor<128xf32>) -> tensor<64x128xf32>
  return %0 : tensor<64x128xf32>
}

func.func @exp_mul(%x: tensor<4096xf32>) -> tensor<4096xf32> {
  %0 = kiln.exp %x : tensor<4096xf32>
  %1 = kiln.mul %0, %x : (tensor<4096xf32>, tensor<4096xf32>) -> tensor<4096xf32>
  return %1 : tensor<4096xf32>
}

func.func @row_sum(%x: tensor<64x300xf32>) -> tensor<64xf32> {
  %0 = kiln.sum %x {axes = array<i64: 1>} : tensor<64x300xf32> -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

func.func @col_max(%x: tensor<300x64xf32>) -> tensor<64xf32> {
  %0 = kiln.max %x {axes = array<i64: 0>} : tensor<300x64xf32> -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

func.func @softmax(%x: tensor<32x200xf32>) -> tensor<32x200xf32> {
  %0 = kiln.softmax %x {axis = 1 : i64} : tensor<32x200xf32>
  return %0 : tensor<32x200xf32>
}

func.func @matmul(%a: tensor<96x80xf32>, %b: tensor<80x112xf32>) -> tensor<96x112xf32> {
  %0 = kiln.matmul %a, %b : (tensor<96x80xf32>, tensor<80x112xf32>) -> tensor<96x112xf32>
  return %0 : tensor<96x112xf32>
}

func.func @batched_matmul(%a: tensor<4x32x48xf32>, %b: tensor<48x16xf32>) -> tensor<4x32x16xf32> {
  %0 = kiln.matmul %a, %b : (tensor<4x32x48xf32>, tensor<48x16xf32>) -> tensor<4x32x16xf32>
  return %0 : tensor<4x32x16xf32>
}
