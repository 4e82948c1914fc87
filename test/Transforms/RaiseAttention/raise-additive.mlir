// RUN: kiln-opt %s --kiln-raise-attention | FileCheck %s --check-prefixes=CHECK,EXACT
// RUN: kiln-opt %s --kiln-raise-attention="empty-rows-as-zero" | FileCheck %s --check-prefixes=CHECK,EMPTY

// Additive masks select(m, 0, C) (torch.where(mask, 0, C)) read as the
// boolean m. With C = -inf that is exact (kiln.attention blocks a key with
// a -inf bias as with false). With C = finfo.min, Hugging Face's choice, it
// differs in rows where m leaves no key: the finite bias gives the mean of
// V there, the boolean mask 0; so only with empty-rows-as-zero.

// -inf, causal from iotas: always a band.
func.func @neg_inf_causal(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %i = kiln.iota {axis = 0 : i64} : tensor<4x1xi64>
  %j = kiln.iota {axis = 1 : i64} : tensor<1x4xi64>
  %b = kiln.le %j, %i : (tensor<1x4xi64>, tensor<4x1xi64>) -> tensor<4x4xi1>
  %zero = kiln.constant dense<0.0> : tensor<f32>
  %ninf = kiln.constant dense<0xFF800000> : tensor<f32>
  %m = kiln.select %b, %zero, %ninf : (tensor<4x4xi1>, tensor<f32>, tensor<f32>) -> tensor<4x4xf32>
  %o = kiln.attention %q, %k, %v mask(%m : tensor<4x4xf32>) : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
  return %o : tensor<1x2x4x8xf32>
}
// CHECK-LABEL: func.func @neg_inf_causal
// CHECK-NOT: kiln.select
// CHECK: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} {alignment = #kiln.alignment<top_left>, causal} :

// -inf, a padding mask [B, 1, 1, Sk]: the boolean at its own shape.
func.func @neg_inf_padding(%q: tensor<2x2x4x8xf16>, %k: tensor<2x2x4x8xf16>, %v: tensor<2x2x4x8xf16>, %am: tensor<2x1x1x4xi1>) -> tensor<2x2x4x8xf16> {
  %zero = kiln.constant dense<0.0> : tensor<f16>
  %ninf = kiln.constant dense<0xFC00> : tensor<f16>
  %m = kiln.select %am, %zero, %ninf : (tensor<2x1x1x4xi1>, tensor<f16>, tensor<f16>) -> tensor<2x1x1x4xf16>
  %o = kiln.attention %q, %k, %v mask(%m : tensor<2x1x1x4xf16>) : tensor<2x2x4x8xf16>, tensor<2x2x4x8xf16>, tensor<2x2x4x8xf16> -> tensor<2x2x4x8xf16>
  return %o : tensor<2x2x4x8xf16>
}
// CHECK-LABEL: func.func @neg_inf_padding
// CHECK-SAME: %[[AM:[^:]*]]: tensor<2x1x1x4xi1>)
// CHECK: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} mask(%[[AM]] : tensor<2x1x1x4xi1>) :

// Hugging Face: where(causal & padding, 0, finfo(f32).min), broadcast to
// [B, 1, Sq, Sk].
func.func @finfo_min(%q: tensor<2x2x4x8xf32>, %k: tensor<2x2x4x8xf32>, %v: tensor<2x2x4x8xf32>, %am: tensor<2x4xi1>) -> tensor<2x2x4x8xf32> {
  %i = kiln.iota {axis = 2 : i64} : tensor<1x1x4x1xi64>
  %j = kiln.iota {axis = 3 : i64} : tensor<1x1x1x4xi64>
  %c = kiln.le %j, %i : (tensor<1x1x1x4xi64>, tensor<1x1x4x1xi64>) -> tensor<1x1x4x4xi1>
  %p = kiln.reshape %am : tensor<2x4xi1> -> tensor<2x1x1x4xi1>
  %b = kiln.mul %c, %p : (tensor<1x1x4x4xi1>, tensor<2x1x1x4xi1>) -> tensor<2x1x4x4xi1>
  %zero = kiln.constant dense<0.0> : tensor<f32>
  %min = kiln.constant dense<-3.40282347E+38> : tensor<f32>
  %m = kiln.select %b, %zero, %min : (tensor<2x1x4x4xi1>, tensor<f32>, tensor<f32>) -> tensor<2x1x4x4xf32>
  %o = kiln.attention %q, %k, %v mask(%m : tensor<2x1x4x4xf32>) : tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32> -> tensor<2x2x4x8xf32>
  return %o : tensor<2x2x4x8xf32>
}
// CHECK-LABEL: func.func @finfo_min
// EXACT: %[[M:.*]] = kiln.select
// EXACT: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} mask(%[[M]] : tensor<2x1x4x4xf32>) :
// EMPTY: %[[P:.*]] = kiln.reshape %{{.*}} : tensor<2x4xi1> -> tensor<2x1x1x4xi1>
// EMPTY-NOT: kiln.select
// EMPTY: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} mask(%[[P]] : tensor<2x1x1x4xi1>) {alignment = #kiln.alignment<top_left>, causal} :

// A sum of additive terms: a causal constant of 0 and -inf (torch.full(min)
// .triu(1) with -inf) plus where(padding, 0, -inf).
func.func @sum_of_terms(%q: tensor<2x1x3x4xf32>, %k: tensor<2x1x3x4xf32>, %v: tensor<2x1x3x4xf32>, %am: tensor<2x1x1x3xi1>) -> tensor<2x1x3x4xf32> {
  %c = kiln.constant dense<[[0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0]]> : tensor<3x3xf32>
  %zero = kiln.constant dense<0.0> : tensor<f32>
  %ninf = kiln.constant dense<0xFF800000> : tensor<f32>
  %p = kiln.select %am, %zero, %ninf : (tensor<2x1x1x3xi1>, tensor<f32>, tensor<f32>) -> tensor<2x1x1x3xf32>
  %m = kiln.add %c, %p : (tensor<3x3xf32>, tensor<2x1x1x3xf32>) -> tensor<2x1x3x3xf32>
  %o = kiln.attention %q, %k, %v mask(%m : tensor<2x1x3x3xf32>) : tensor<2x1x3x4xf32>, tensor<2x1x3x4xf32>, tensor<2x1x3x4xf32> -> tensor<2x1x3x4xf32>
  return %o : tensor<2x1x3x4xf32>
}
// CHECK-LABEL: func.func @sum_of_terms
// CHECK-SAME: %[[AM:[^:]*]]: tensor<2x1x1x3xi1>)
// CHECK-NOT: kiln.add
// CHECK: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} mask(%[[AM]] : tensor<2x1x1x3xi1>) {alignment = #kiln.alignment<top_left>, causal} :

// A constant padding row of 0 and finfo(f16).min (-65504), independent of
// the query: a new i1 constant of its own shape, with empty-rows-as-zero.
func.func @constant_padding(%q: tensor<1x1x3x4xf16>, %k: tensor<1x1x3x4xf16>, %v: tensor<1x1x3x4xf16>) -> tensor<1x1x3x4xf16> {
  %m = kiln.constant dense<[0.0, 0.0, -65504.0]> : tensor<3xf16>
  %o = kiln.attention %q, %k, %v mask(%m : tensor<3xf16>) : tensor<1x1x3x4xf16>, tensor<1x1x3x4xf16>, tensor<1x1x3x4xf16> -> tensor<1x1x3x4xf16>
  return %o : tensor<1x1x3x4xf16>
}
// CHECK-LABEL: func.func @constant_padding
// EXACT: %[[M:.*]] = kiln.constant dense<[0.000000e+00, 0.000000e+00, -6.550400e+04]> : tensor<3xf16>
// EXACT: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} mask(%[[M]] : tensor<3xf16>) :
// EMPTY: %[[M:.*]] = kiln.constant dense<[true, true, false]> : tensor<3xi1>
// EMPTY: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} mask(%[[M]] : tensor<3xi1>) :

// Near misses, with or without the option: the additive mask stays.

// -1e4 is an ordinary (large) bias, not a blocked key.
func.func @negative_small_bias(%q: tensor<1x1x4x4xf32>, %k: tensor<1x1x4x4xf32>, %v: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %i = kiln.iota {axis = 0 : i64} : tensor<4x1xi64>
  %j = kiln.iota {axis = 1 : i64} : tensor<1x4xi64>
  %b = kiln.le %j, %i : (tensor<1x4xi64>, tensor<4x1xi64>) -> tensor<4x4xi1>
  %zero = kiln.constant dense<0.0> : tensor<f32>
  %big = kiln.constant dense<-1.0e+04> : tensor<f32>
  %m = kiln.select %b, %zero, %big : (tensor<4x4xi1>, tensor<f32>, tensor<f32>) -> tensor<4x4xf32>
  %o = kiln.attention %q, %k, %v mask(%m : tensor<4x4xf32>) : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32> -> tensor<1x1x4x4xf32>
  return %o : tensor<1x1x4x4xf32>
}
// CHECK-LABEL: func.func @negative_small_bias
// CHECK: %[[M:.*]] = kiln.select
// CHECK: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} mask(%[[M]] : tensor<4x4xf32>) :

// A visible value that is not 0.
func.func @negative_nonzero_visible(%q: tensor<1x1x4x4xf32>, %k: tensor<1x1x4x4xf32>, %v: tensor<1x1x4x4xf32>, %b: tensor<4x4xi1>) -> tensor<1x1x4x4xf32> {
  %one = kiln.constant dense<1.0> : tensor<f32>
  %ninf = kiln.constant dense<0xFF800000> : tensor<f32>
  %m = kiln.select %b, %one, %ninf : (tensor<4x4xi1>, tensor<f32>, tensor<f32>) -> tensor<4x4xf32>
  %o = kiln.attention %q, %k, %v mask(%m : tensor<4x4xf32>) : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32> -> tensor<1x1x4x4xf32>
  return %o : tensor<1x1x4x4xf32>
}
// CHECK-LABEL: func.func @negative_nonzero_visible
// CHECK: %[[M:.*]] = kiln.select
// CHECK: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} mask(%[[M]] : tensor<4x4xf32>) :

// A -inf mask plus a real bias (ALiBi-like argument).
func.func @negative_plus_bias(%q: tensor<1x1x4x4xf32>, %k: tensor<1x1x4x4xf32>, %v: tensor<1x1x4x4xf32>, %b: tensor<1x1x4xi1>, %bias: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %zero = kiln.constant dense<0.0> : tensor<f32>
  %ninf = kiln.constant dense<0xFF800000> : tensor<f32>
  %p = kiln.select %b, %zero, %ninf : (tensor<1x1x4xi1>, tensor<f32>, tensor<f32>) -> tensor<1x1x4xf32>
  %m = kiln.add %p, %bias : (tensor<1x1x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %o = kiln.attention %q, %k, %v mask(%m : tensor<1x1x4x4xf32>) : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32> -> tensor<1x1x4x4xf32>
  return %o : tensor<1x1x4x4xf32>
}
// CHECK-LABEL: func.func @negative_plus_bias
// CHECK: %[[M:.*]] = kiln.add
// CHECK: kiln.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} mask(%[[M]] : tensor<1x1x4x4xf32>) :
