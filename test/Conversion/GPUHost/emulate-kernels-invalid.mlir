// RUN: kiln-opt %s --kiln-gpu-emulate-kernels --split-input-file -verify-diagnostics

// Every NVVM op the emulator does not implement is an error naming the op
// and the kernel, never a crash or a silent miscompile.

module attributes {gpu.container_module} {
  gpu.module @m {
    llvm.func @kern() attributes {gpu.kernel, nvvm.kernel} {
      // expected-error @below {{cannot emulate 'nvvm.read.ptx.sreg.smid' in kernel @m::@kern: the emulator does not implement it}}
      %0 = nvvm.read.ptx.sreg.smid : i32
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    llvm.func @kern(%p: i1) attributes {gpu.kernel, nvvm.kernel} {
      %mask = llvm.mlir.constant(-1 : i32) : i32
      // expected-error @below {{cannot emulate 'nvvm.vote.sync' in kernel @m::@kern: the emulator does not implement it}}
      %0 = nvvm.vote.sync any %mask, %p -> i1
      llvm.return
    }
  }
}

// -----

// In a device function that is not a kernel.
module attributes {gpu.container_module} {
  gpu.module @m {
    llvm.func @helper() {
      // expected-error @below {{cannot emulate 'llvm.inline_asm' in function @m::@helper: inline assembly cannot run on the host}}
      llvm.inline_asm has_side_effects "membar.gl;", "" : () -> ()
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    llvm.func @kern() attributes {gpu.kernel} {
      %c = llvm.mlir.constant(1 : i32) : i32
      // expected-error @below {{cannot emulate 'nvvm.barrier' in kernel @m::@kern: only a barrier of the whole block without a reduction is emulated}}
      nvvm.barrier id = %c
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    llvm.func @kern(%a: vector<2xf16>, %c: f32) attributes {gpu.kernel} {
      // expected-error @below {{cannot emulate 'nvvm.mma.sync' in kernel @m::@kern: only the m16n8k16 shape is emulated}}
      %0 = nvvm.mma.sync A[%a, %a] B[%a] C[%c, %c, %c, %c] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 8>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
      llvm.return
    }
  }
}

// -----

// f16 accumulators.
module attributes {gpu.container_module} {
  gpu.module @m {
    llvm.func @kern(%a: vector<2xf16>) attributes {gpu.kernel} {
      // expected-error @below {{cannot emulate 'nvvm.mma.sync' in kernel @m::@kern: only 4 A and 2 B registers of packed pairs with 4 f32 accumulators are emulated}}
      %0 = nvvm.mma.sync A[%a, %a, %a, %a] B[%a, %a] C[%a, %a] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, vector<2xf16>) -> !llvm.struct<(vector<2xf16>, vector<2xf16>)>
      llvm.return
    }
  }
}

// -----

// tf32 multiplicands.
module attributes {gpu.container_module} {
  gpu.module @m {
    llvm.func @kern(%a: i32, %c: f32) attributes {gpu.kernel} {
      // expected-error @below {{cannot emulate 'nvvm.mma.sync' in kernel @m::@kern: only f16 and bf16 multiplicands are emulated}}
      %0 = nvvm.mma.sync A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    llvm.func @kern() attributes {gpu.kernel} {
      // expected-error @below {{cannot emulate 'llvm.call_intrinsic' in kernel @m::@kern: NVVM intrinsic 'llvm.nvvm.membar.gl' has no emulation}}
      llvm.call_intrinsic "llvm.nvvm.membar.gl"() : () -> ()
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    llvm.func @kern() attributes {gpu.kernel} {
      llvm.return
    }
  }
  llvm.func @host() {
    %c1 = llvm.mlir.constant(1 : i64) : i64
    // expected-error @below {{cannot emulate the launch of @m::@kern: cluster launches are not emulated}}
    gpu.launch_func @m::@kern clusters in (%c1, %c1, %c1) blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) : i64
    llvm.return
  }
}

// -----

// A launch of a kernel that is already a binary.
module attributes {gpu.container_module} {
  gpu.binary @m [#gpu.object<#nvvm.target, "">]
  llvm.func @host() {
    %c1 = llvm.mlir.constant(1 : i64) : i64
    // expected-error @below {{cannot emulate the launch of @m::@kern: no gpu.module defines that kernel}}
    gpu.launch_func @m::@kern blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) : i64
    llvm.return
  }
}

// -----

// Launch operands that are not the kernel's LLVM parameters (gpu-to-llvm
// has not run).
module attributes {gpu.container_module} {
  gpu.module @m {
    llvm.func @kern(%a: !llvm.ptr, %b: !llvm.ptr, %c: i64, %d: i64, %e: i64) attributes {gpu.kernel} {
      llvm.return
    }
  }
  func.func @host(%m: memref<4xf32>) {
    %c1 = llvm.mlir.constant(1 : i64) : i64
    // expected-error @below {{cannot emulate the launch of @m::@kern: its operands do not match the kernel's LLVM parameters (run gpu-to-llvm first)}}
    gpu.launch_func @m::@kern blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) : i64 args(%m : memref<4xf32>)
    func.return
  }
}

// -----

// A gpu.module op that convert-gpu-to-nvvm should have lowered.
module attributes {gpu.container_module} {
  gpu.module @m {
    llvm.func @kern() attributes {gpu.kernel} {
      // expected-error @below {{cannot emulate 'gpu.barrier' in kernel @m::@kern: only LLVM and NVVM dialect ops are expected after convert-gpu-to-nvvm}}
      gpu.barrier
      llvm.return
    }
  }
}

// -----

// A declaration that clashes with a host symbol of another type.
module attributes {gpu.container_module} {
  llvm.func @__nv_expf(f64) -> f64
  gpu.module @m {
    // expected-error @below {{cannot emulate the declaration of @__nv_expf in gpu.module @m: the host module has another @__nv_expf}}
    llvm.func @__nv_expf(f32) -> f32
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    llvm.func @kern(%p: !llvm.ptr<3>) attributes {gpu.kernel, nvvm.kernel} {
      // expected-error @below {{cannot emulate 'nvvm.ldmatrix' in kernel @m::@kern: only m8n8 b16 matrices, x1, x2 or x4, are emulated}}
      %0 = nvvm.ldmatrix %p {num = 1 : i32, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 16>, eltType = #nvvm.ld_st_matrix_elt_type<b8x16.b6x16_p32>} : (!llvm.ptr<3>) -> i32
      llvm.return
    }
  }
}
