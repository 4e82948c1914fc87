// The gradient of an embedding lookup (8192 x 256 table, 1024 token ids) as
// kiln-autodiff builds it now: one kiln.index_add into zeros.
//   kiln-run index_add.mlir --entry=grad --random-inputs --random-range=1:0:8192 --seed=3 --time --repeat=3
func.func @grad(%g: tensor<1024x256xf32>, %ids: tensor<1024xi64>) -> tensor<8192x256xf32> {
  %z = kiln.constant dense<0.0> : tensor<8192x256xf32>
  %d = kiln.index_add %z, %ids, %g {axis = 0 : i64} : (tensor<8192x256xf32>, tensor<1024xi64>, tensor<1024x256xf32>) -> tensor<8192x256xf32>
  return %d : tensor<8192x256xf32>
}
