// RUN: kiln-opt %s --kiln-lower-to-cpu=amx | FileCheck %s
// RUN: kiln-opt %s --kiln-lower-to-cpu | FileCheck %s --check-prefix=OFF
// RUN: kiln-opt %s --kiln-lower-to-cpu="amx enable-openmp" | FileCheck %s --check-prefix=OMP

// kiln-lower-to-cpu{amx}: a bf16 matmul's kernel is AMX tile intrinsics in
// the LLVM dialect, its tiles carried through the K loop's branches as
// !llvm.x86_amx block arguments (convert-to-llvm{filter-dialects=amx,cf}).
// The code needs no AMX here: only running it does.
// CHECK: llvm.call_intrinsic "llvm.x86.tileloadd64.internal"
// CHECK: llvm.br ^{{.*}}({{.*}} : {{.*}}!llvm.x86_amx, !llvm.x86_amx, !llvm.x86_amx, !llvm.x86_amx)
// CHECK-COUNT-4: llvm.call_intrinsic "llvm.x86.tdpbf16ps.internal"
// CHECK: llvm.call_intrinsic "llvm.x86.tilestored64.internal"
// CHECK-NOT: amx.
// CHECK-NOT: builtin.unrealized_conversion_cast
// OFF-NOT: x86_amx
// OFF-NOT: llvm.x86.t
// OFF: llvm.intr.fmuladd
// OMP: omp.parallel
// OMP: llvm.call_intrinsic "llvm.x86.tdpbf16ps.internal"
func.func @mm(%a: tensor<64x96xbf16>, %b: tensor<96x300xbf16>) -> tensor<64x300xbf16> {
  %0 = kiln.matmul %a, %b : (tensor<64x96xbf16>, tensor<96x300xbf16>) -> tensor<64x300xbf16>
  return %0 : tensor<64x300xbf16>
}
