// The gradient of an embedding lookup (8192 x 256 table, 1024 token ids) as
// kiln-autodiff's first gather rule built it: a one-hot matrix product.
// Compare with index_add.mlir (the same gradient; bit for bit at seed 3):
//   kiln-run onehot.mlir --entry=grad --random-inputs --random-range=1:0:8192 --seed=3 --time --repeat=3
func.func @grad(%g: tensor<1024x256xf32>, %ids: tensor<1024xi64>) -> tensor<8192x256xf32> {
  %g3 = kiln.reshape %g : tensor<1024x256xf32> -> tensor<1x1024x256xf32>
  %idx = kiln.reshape %ids : tensor<1024xi64> -> tensor<1x1024xi64>
  %zero = kiln.constant dense<0> : tensor<i64>
  %lo = kiln.maximum %idx, %zero : (tensor<1x1024xi64>, tensor<i64>) -> tensor<1x1024xi64>
  %last = kiln.constant dense<8191> : tensor<i64>
  %ic = kiln.minimum %lo, %last : (tensor<1x1024xi64>, tensor<i64>) -> tensor<1x1024xi64>
  %iota = kiln.iota {axis = 0 : i64} : tensor<8192x1024xi64>
  %eq = kiln.eq %iota, %ic : (tensor<8192x1024xi64>, tensor<1x1024xi64>) -> tensor<8192x1024xi1>
  %oh = kiln.convert %eq : tensor<8192x1024xi1> to tensor<8192x1024xf32>
  %mm = kiln.matmul %oh, %g3 : (tensor<8192x1024xf32>, tensor<1x1024x256xf32>) -> tensor<1x8192x256xf32>
  %d = kiln.reshape %mm : tensor<1x8192x256xf32> -> tensor<8192x256xf32>
  return %d : tensor<8192x256xf32>
}
