//===- Passes.td - Kiln passes that move host code to the GPU -------------===//
//
// The stages of kiln-lower-to-nvvm between bufferization and kernel
// outlining: buffers move to the device, linalg loops map to blocks and
// threads, and whatever host code still reads or writes a buffer becomes a
// one-thread kernel. See docs/GPUBackend.md.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CONVERSION_GPUHOST_PASSES_TD
#define KILN_CONVERSION_GPUHOST_PASSES_TD

include "mlir/Pass/PassBase.td"

def KilnGPUHostToDevicePass : Pass<"kiln-gpu-host-to-device", "ModuleOp"> {
  let summary = "Allocate the host's buffers on the device";
  let description = [{
    On bufferized host code (outside `gpu.launch` and `gpu.module`):
    - `memref.alloc` becomes `gpu.alloc`, `memref.dealloc` becomes
      `gpu.dealloc` (run the buffer deallocation pipeline first: its
      deallocations are the ones kept);
    - `memref.get_global` of a constant becomes a `gpu.alloc` filled by a
      `gpu.memcpy` from the host global, freed by a `gpu.dealloc` at the end
      of its block;
    - `memref.copy` becomes `linalg.copy`, which the loop mapping then runs
      as a kernel (it may copy between strided views, which `gpu.memcpy`
      cannot).

    Function arguments are device buffers already (the runtime ABI), so
    after this pass every buffer the host code holds lives on the device.

    ```mlir
    %0 = memref.alloc() : memref<4xf32>
    // becomes
    %0 = gpu.alloc () : memref<4xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::linalg::LinalgDialect",
  ];
}

def KilnGPUMapParallelLoopsPass
    : Pass<"kiln-gpu-map-parallel-loops", "func::FuncOp"> {
  let summary = "Map host scf.parallel loops to GPU blocks and threads";
  let description = [{
    Prepares every outermost `scf.parallel` of host code for
    `convert-parallel-loops-to-gpu`: its dimensions are collapsed into one
    (the innermost, contiguous dimension varies fastest, so consecutive
    threads touch consecutive elements), the collapsed loop is tiled by
    `block-size`, and the tile loop is mapped to `block_x`, the point loop
    to `thread_x`. Parallel loops nested deeper run sequentially in their
    thread. A loop whose trip count is statically zero is erased: it has no
    work, and a launch of zero blocks is a CUDA error.

    One flat grid avoids the limits of the y and z grid dimensions (65535)
    and the sequential loops that a rank > 3 loop would keep when mapped
    dimension by dimension.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block, 1 to 1024 (CUDA's limit)">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def KilnGPUHostCodeToKernelsPass
    : Pass<"kiln-gpu-host-code-to-kernels", "func::FuncOp"> {
  let summary = "Run host code that dereferences buffers as one-thread "
                "kernels";
  let description = [{
    After `convert-parallel-loops-to-gpu`, host code may still read or
    write buffers: a linalg op without parallel dimensions became a plain
    `scf.for` nest, and `tensor.extract` became a `memref.load`. Each such
    host op (or region op whose regions hold no `gpu.launch`) is moved into
    its own `gpu.launch` of one block of one thread.

    A scalar result of a moved op (the value of a `memref.load`) is stored
    into a fresh zero-dimensional device buffer by the kernel, and reloaded
    from it at the start of each `gpu.launch` that uses it, so no value is
    read from device memory on the host. A use that is not inside a
    `gpu.launch` is an error.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def KilnGPUCheckHostCodePass : Pass<"kiln-gpu-check-host-code", "ModuleOp"> {
  let summary = "Check that host code never dereferences a buffer";
  let description = [{
    Fails with a diagnostic at each op outside `gpu.launch` and `gpu.module`
    that reads, writes or allocates a memref on the host: after the GPU
    pipeline's mapping every buffer lives on the device, so such an op would
    dereference a device pointer on the CPU. `gpu` dialect ops (which call
    the runtime) and reads of constant globals (the sources of
    `gpu.memcpy`) are allowed. The IR is not changed.
  }];
}

def KilnGPUDeallocateTemporariesPass
    : Pass<"kiln-gpu-deallocate-temporaries", "::mlir::func::FuncOp"> {
  let summary = "Free each host-allocated temporary at the end of its block";
  let description = [{
    The GPU pipeline's replacement for upstream's ownership-based buffer
    deallocation, which rejects the hand-written attention kernels
    (`gpu.launch` bodies hold ops such as `gpu.barrier` that declare no
    memory effects). After one-shot bufferization and
    buffer-results-to-out-params, host code of a kiln graph is straight-line
    per block: a `memref.alloc` that does not escape its block (through a
    terminator, directly or through a view of it) is dead once the block's
    ops have run, so the pass inserts its `memref.dealloc` just before the
    block's terminator. `kiln-gpu-host-to-device` then turns both into
    `gpu.alloc`/`gpu.dealloc`, which `gpu-async-region` orders on the
    function's stream after the last launch that reads the buffer. An
    allocation that escapes its block is left alone (none does in the graphs
    the kiln lowerings produce).

    ```mlir
    %a = memref.alloc() : memref<4xf32>
    ... uses of %a ...
    memref.dealloc %a : memref<4xf32>   // inserted
    return
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def KilnGPUKernelOutliningPass
    : Pass<"kiln-gpu-kernel-outlining", "ModuleOp"> {
  let summary = "gpu-kernel-outlining that keeps the kernels' function "
                "attributes";
  let description = [{
    Runs upstream's `gpu-kernel-outlining`, then gives each outlined
    `gpu.func` the entries of the `kiln.kernel_attributes` dictionary of the
    `gpu.launch` it came from (outlining drops a launch's discardable
    attributes). Kiln's attention kernels put their occupancy hints there:
    `nvvm.minctasm`, which `convert-gpu-to-nvvm` keeps on the `llvm.func`
    and NVPTX emits as `.minnctapersm`, so that ptxas limits the kernel's
    registers to fit that many blocks on a multiprocessor
    (docs/GPUAttention.md). Launches without the dictionary are outlined
    exactly as upstream does.

    ```mlir
    gpu.launch blocks(...) threads(...) { ... } {kiln.kernel_attributes = {nvvm.minctasm = 3 : i32}}
    // becomes
    gpu.launch_func @f_kernel::@f_kernel blocks in (...) threads in (...) args(...)
    gpu.module @f_kernel {
      gpu.func @f_kernel(...) kernel attributes {known_block_size = ..., nvvm.minctasm = 3 : i32} { ... }
    }
    ```
  }];
}

def KilnGPUExternDynamicSharedMemoryPass
    : Pass<"kiln-gpu-extern-dynamic-shared-memory", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Declare the dynamic shared memory of NVVM kernels external";
  let description = [{
    Makes each zero-sized shared-memory global of the module (what
    `convert-gpu-to-nvvm` lowers `gpu.dynamic_shared_memory` to) an external
    declaration, keeping its alignment. NVPTX then emits CUDA's dynamic shared
    memory, `.extern .shared .align 16 .b8 __dynamic_shmem__0[];`, whose size
    is the launch's; upstream's internal global becomes a one-byte static
    variable (`.shared .align 16 .b8 __dynamic_shmem__0;`) that the kernel
    reads past, which works only because the dynamic memory happens to follow
    the static one.

    Runs after `convert-gpu-to-nvvm`. Kiln's attention kernels keep their
    tiles in dynamic shared memory (docs/GPUBackend.md).

    ```mlir
    llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    // becomes
    llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def KilnGPUCheckTargetSupportPass
    : Pass<"kiln-gpu-check-target-support", "ModuleOp"> {
  let summary = "Reject kernel ops that the NVPTX backend cannot compile for "
                "the gpu.module's targets";
  let description = [{
    For each `#nvvm.target` of each `gpu.module`, checks the module's NVVM
    ops against what LLVM's NVPTX backend selects for the target's chip and
    PTX ISA version (its `+ptxXY` feature, else the chip's oldest), and
    reports each op it cannot select with an error at the op. The NVVM
    verifier accepts every form PTX defines, but instruction selection in
    `gpu-module-to-binary` aborts the process ("LLVM ERROR: Cannot select")
    on a form the chip lacks, after `kiln-lower-to-nvvm` has stripped the
    kernels' locations.

    Checked: `nvvm.ldmatrix`. m8n8 b16 needs sm_75 and +ptx65; the m8n16
    and m16n16 shapes (`b8`, `b8x16.b6x16_p32`, `b8x16.b4x16_p64`) an arch-
    or family-specific chip of sm_100 or newer (`sm_100a`, `sm_100f`,
    `sm_120a`, ...) and +ptx86. Kiln's own kernels use only m8n8 b16, from
    sm_80; the others come with the input.

    `kiln-lower-to-nvvm` runs it right after `nvvm-attach-target`.
  }];
}

def KilnGPUModuleToBinaryPass
    : Pass<"kiln-gpu-module-to-binary", "ModuleOp"> {
  let summary = "gpu-module-to-binary, with an abort of LLVM's NVPTX backend "
                "reported as an error";
  let description = [{
    Runs upstream's `gpu-module-to-binary` (with this pass's `format` and
    `toolkit` as its `format` and `toolkit`) under crash recovery
    (`kiln/Support/BackendCrashRecovery.h`). Instruction selection in the
    NVPTX backend aborts the process on IR that verifies but that the
    target chip cannot run, e.g. an intrinsic of sm_90 called in a module
    for sm_80 ("LLVM ERROR: Cannot select: intrinsic ..."). Here that
    message stays on stderr and the pass fails with an error at the module
    naming its `gpu.module`s and their chips, so Kiln's tools exit with an
    error instead of a signal. `kiln-gpu-check-target-support` rejects the
    forms Kiln knows of earlier, at the op; this catches the rest.

    `kiln-lower-to-nvvm` runs it where it ran `gpu-module-to-binary`.
  }];
  let options = [
    Option<"format", "format", "std::string", /*default=*/"\"fatbin\"",
           "gpu-module-to-binary's format: offloading, assembly, isa, bin "
           "or fatbin">,
    Option<"toolkit", "toolkit", "std::string", /*default=*/"\"\"",
           "gpu-module-to-binary's toolkit: the CUDA toolkit's path">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def KilnGPUEmulateKernelsPass
    : Pass<"kiln-gpu-emulate-kernels", "::mlir::ModuleOp"> {
  let summary = "Compile NVVM kernels for the host CPU and launch them on "
                "Kiln's GPU emulator";
  let description = [{
    Runs where `kiln-lower-to-nvvm` would run `gpu-module-to-binary` (after
    `convert-gpu-to-nvvm` on the `gpu.module`s and `gpu-to-llvm` on the
    host), and turns the module into plain host LLVM dialect whose kernels
    run on the GPU emulator's runtime (docs/GPUEmulator.md):

    - every `llvm.func` and `llvm.mlir.global` of a `gpu.module @m` moves
      into the host module as `@__kiln_emu.m.<symbol>` (internal linkage);
      external declarations (libdevice's `__nv_*`, which the emulator
      defines) keep their names and are declared once;
    - address spaces are dropped (`!llvm.ptr<N>` becomes `!llvm.ptr`,
      `llvm.addrspacecast` its operand, shared-memory globals plain
      globals: blocks run one at a time), and so are the `nvvm.*` and
      `gpu.*` function and argument attributes;
    - NVVM ops become calls of the emulator ABI: the special registers
      `tid`, `ntid`, `ctaid`, `nctaid`, `laneid` and `warpsize` call
      `__kiln_emu_sreg`, `nvvm.barrier0` (and `nvvm.barrier` without
      operands) `__kiln_emu_barrier`, `nvvm.shfl.sync`
      `__kiln_emu_shfl_sync` (32-bit values as i32), `nvvm.mma.sync`
      m16n8k16 with f16/bf16 multiplicands and f32 accumulators
      `__kiln_emu_mma_m16n8k16_f32`, `nvvm.ldmatrix` m8n8 b16 (x1, x2, x4,
      `.trans` as the `col` layout) `__kiln_emu_ldmatrix_m8n8_b16`, and the
      address of the dynamic shared
      memory (a zero-sized `addr_space = 3` global) `__kiln_emu_dynamic_shared`;
    - every load, store and atomic of the kernels that needs more than
      byte alignment is preceded by an inline test of its address against
      the alignment NVPTX requires (the op's `alignment`, else the ABI
      alignment, for atomics the store size, in the gpu.module's data
      layout, which MLIR's translation uses); a misaligned address, a CUDA
      error on the GPU, branches to a call of `__kiln_emu_misaligned`, which
      reports it and stops the launch;
    - for the emulator's opt-in race check (`KILN_EMU_RACECHECK=1`), each
      kernel function with workgroup (address space 3) loads or stores asks
      `__kiln_emu_racecheck_enabled()` once, and each such access calls
      `__kiln_emu_shared_access(address, bytes, isWrite)` when it is on;
      each gpu.module with workgroup globals gets a constant table of them
      (address, bytes, name), which its launches pass to
      `__kiln_emu_workgroup_buffers` first;
    - each kernel (`gpu.kernel`) gets `@__kiln_emu.m.<kernel>.entry(ptr
      params)`, which loads argument i from `params[i]` and calls it;
    - each `gpu.launch_func` becomes a call of `__kiln_emu_launch` with the
      entry's address, the grid and block sizes, the dynamic shared memory
      size, the stream and an array of pointers to the arguments;
    - the `gpu.module`s and `gpu.binary`s are erased.

    Any other NVVM op, an `llvm.inline_asm`, an NVVM intrinsic call and a
    cluster launch is an error naming the op and the kernel: the emulator
    never runs a kernel it cannot run exactly.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // KILN_CONVERSION_GPUHOST_PASSES_TD
