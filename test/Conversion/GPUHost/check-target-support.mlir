// RUN: kiln-opt %s --split-input-file --kiln-gpu-check-target-support -verify-diagnostics | FileCheck %s
//
// ldmatrix forms that verify but that NVPTX cannot select for the target
// are errors at the op: gpu-module-to-binary aborted on them ("LLVM ERROR:
// Cannot select: intrinsic %llvm.nvvm.ldmatrix.sync.aligned.m8n16...").
// Through the whole pipeline, with the op's location, for sm_90 and sm_80:
// RUN: not kiln-opt %s --split-input-file --kiln-lower-to-nvvm="format=isa" 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: not kiln-opt %s --split-input-file --kiln-lower-to-nvvm="format=isa chip=sm_80" 2>&1 | FileCheck %s --check-prefix=SM80
// SM90: check-target-support.mlir:[[# @LINE + 9]]:12: error: 'nvvm.ldmatrix' op m8n16 b8x16.b6x16_p32 needs an arch- or family-specific chip of sm_100 or newer (sm_100a, sm_100f, ...) and +ptx86; the NVPTX backend cannot compile it for sm_90 +ptx80
// SM80: check-target-support.mlir:[[# @LINE + 8]]:12: error: 'nvvm.ldmatrix' op m8n16 b8x16.b6x16_p32 needs an arch- or family-specific chip of sm_100 or newer (sm_100a, sm_100f, ...) and +ptx86; the NVPTX backend cannot compile it for sm_80 +ptx80
// SM90-NOT: LLVM ERROR
// SM80-NOT: LLVM ERROR

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    llvm.func @k(%p: !llvm.ptr<3>, %out: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
      // expected-error @below {{'nvvm.ldmatrix' op m8n16 b8x16.b6x16_p32 needs an arch- or family-specific chip of sm_100 or newer (sm_100a, sm_100f, ...) and +ptx86; the NVPTX backend cannot compile it for sm_90 +ptx80}}
      %r = nvvm.ldmatrix %p {num = 1 : i32, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 16>, eltType = #nvvm.ld_st_matrix_elt_type<b8x16.b6x16_p32>} : (!llvm.ptr<3>) -> i32
      llvm.store %r, %out : i32, !llvm.ptr<1>
      llvm.return
    }
  }
}

// -----

// m16n16 on a plain sm_100: the forms need the arch- or family-specific
// chip; each target of the module is checked.
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_100a", features = "+ptx86">, #nvvm.target<chip = "sm_100", features = "+ptx86">] {
    llvm.func @k(%p: !llvm.ptr<3>, %out: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
      // expected-error @below {{'nvvm.ldmatrix' op m16n16 b8 needs an arch- or family-specific chip of sm_100 or newer (sm_100a, sm_100f, ...) and +ptx86; the NVPTX backend cannot compile it for sm_100 +ptx86}}
      %r = nvvm.ldmatrix %p {num = 1 : i32, layout = #nvvm.mma_layout<col>, shape = #nvvm.ld_st_matrix_shape<m = 16, n = 16>, eltType = #nvvm.ld_st_matrix_elt_type<b8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
      llvm.store %r, %out : !llvm.struct<(i32, i32)>, !llvm.ptr<1>
      llvm.return
    }
  }
}

// -----

// m8n8 b16 needs sm_75 and PTX 6.5; sm_75's oldest PTX, 6.3, is taken
// without a +ptxXY feature.
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_70", features = "+ptx80">, #nvvm.target<chip = "sm_75", features = "">] {
    llvm.func @k(%p: !llvm.ptr<3>, %out: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
      // expected-error @below {{'nvvm.ldmatrix' op m8n8 b16 needs sm_75 or newer and +ptx65; the NVPTX backend cannot compile it for sm_70 +ptx80}}
      // expected-error @below {{'nvvm.ldmatrix' op m8n8 b16 needs sm_75 or newer and +ptx65; the NVPTX backend cannot compile it for sm_75 +ptx63}}
      %r = nvvm.ldmatrix %p {num = 4 : i32, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>, eltType = #nvvm.ld_st_matrix_elt_type<b16>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
      llvm.store %r, %out : !llvm.struct<(i32, i32, i32, i32)>, !llvm.ptr<1>
      llvm.return
    }
  }
}

// -----

// What the targets have passes unchanged: m8n8 b16 from sm_75 with +ptx65,
// m8n16 and m16n16 on sm_100a, sm_100f and sm_120a; modules without
// targets are not checked.
// CHECK-LABEL: gpu.module @supported
// CHECK-COUNT-3: nvvm.ldmatrix
// CHECK-LABEL: gpu.module @no_targets
// CHECK: nvvm.ldmatrix
module attributes {gpu.container_module} {
  gpu.module @supported [#nvvm.target<chip = "sm_75", features = "+ptx65">, #nvvm.target<chip = "sm_90", features = "+ptx80">] {
    llvm.func @k(%p: !llvm.ptr<3>, %out: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
      %r = nvvm.ldmatrix %p {num = 4 : i32, layout = #nvvm.mma_layout<col>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>, eltType = #nvvm.ld_st_matrix_elt_type<b16>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
      llvm.store %r, %out : !llvm.struct<(i32, i32, i32, i32)>, !llvm.ptr<1>
      llvm.return
    }
  }
  gpu.module @blackwell [#nvvm.target<chip = "sm_100a", features = "+ptx86">, #nvvm.target<chip = "sm_100f", features = "+ptx88">, #nvvm.target<chip = "sm_120a", features = "+ptx87">] {
    llvm.func @k(%p: !llvm.ptr<3>, %out: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
      %r = nvvm.ldmatrix %p {num = 2 : i32, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 16>, eltType = #nvvm.ld_st_matrix_elt_type<b8x16.b4x16_p64>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
      %s = nvvm.ldmatrix %p {num = 2 : i32, layout = #nvvm.mma_layout<col>, shape = #nvvm.ld_st_matrix_shape<m = 16, n = 16>, eltType = #nvvm.ld_st_matrix_elt_type<b8x16.b6x16_p32>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
      llvm.store %r, %out : !llvm.struct<(i32, i32)>, !llvm.ptr<1>
      llvm.store %s, %out : !llvm.struct<(i32, i32, i32, i32)>, !llvm.ptr<1>
      llvm.return
    }
  }
  gpu.module @no_targets {
    llvm.func @k(%p: !llvm.ptr<3>, %out: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
      %r = nvvm.ldmatrix %p {num = 1 : i32, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 16>, eltType = #nvvm.ld_st_matrix_elt_type<b8x16.b6x16_p32>} : (!llvm.ptr<3>) -> i32
      llvm.store %r, %out : i32, !llvm.ptr<1>
      llvm.return
    }
  }
}
