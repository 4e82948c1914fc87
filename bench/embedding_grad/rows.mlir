// index_add against the gather it is the adjoint of, at the same size: a
// 1000 x 1024 f32 table, 4096 row indices (axis 0; many repeats, some out of
// range and clamped). index_add adds 4096 rows of source into dest; the
// index_select reads 4096 rows of data.
//   kiln-run rows.mlir --entry=index_add --random-inputs --random-range=1:-8:1008 --seed=3 --time --repeat=5
//   kiln-run rows.mlir --entry=index_select --random-inputs --random-range=1:-8:1008 --seed=3 --time --repeat=5
func.func @index_add(%x: tensor<1000x1024xf32>, %ids: tensor<4096xi64>, %s: tensor<4096x1024xf32>) -> tensor<1000x1024xf32> {
  %0 = kiln.index_add %x, %ids, %s {axis = 0 : i64} : (tensor<1000x1024xf32>, tensor<4096xi64>, tensor<4096x1024xf32>) -> tensor<1000x1024xf32>
  return %0 : tensor<1000x1024xf32>
}

func.func @index_select(%x: tensor<1000x1024xf32>, %ids: tensor<4096xi64>) -> tensor<4096x1024xf32> {
  %0 = kiln.index_select %x, %ids {axis = 0 : i64} : (tensor<1000x1024xf32>, tensor<4096xi64>) -> tensor<4096x1024xf32>
  return %0 : tensor<4096x1024xf32>
}
