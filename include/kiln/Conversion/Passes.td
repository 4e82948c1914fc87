//===- Passes.td - Kiln conversion passes ---------------------------------===//
//
// Passes that lower the kiln dialect towards executable code.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CONVERSION_PASSES_TD
#define KILN_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertKilnToLinalgPass : Pass<"convert-kiln-to-linalg", "ModuleOp"> {
  let summary = "Lower kiln ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Rewrites every kiln op into upstream ops with value semantics: mostly
    `linalg.generic` and named linalg ops on tensors, `tensor` ops for shape
    manipulation, and `arith`/`math` ops in the payloads. The result is ready
    for one-shot bufferization.

    Each op family contributes its patterns from its own file (see
    `lib/Conversion/KilnToLinalg/PopulatePatterns.h`). The kiln dialect is
    illegal after this pass: a kiln op without a pattern is an error
    ("'kiln.x' has no CPU lowering yet").

    ```mlir
    %0 = kiln.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
    becomes a `linalg.generic` whose indexing map for `%b` is
    `(d0, d1) -> (d1)`, with an `arith.addf` payload.
  }];
  let options = [
    Option<"indexAddThreadPerColumn", "index-add-thread-per-column", "bool",
           /*default=*/"false",
           "Lower kiln.index_add to one thread per column (coalesced on a "
           "GPU) instead of one thread per chunk of contiguous row elements "
           "(vectorizable on a CPU)">,
    Option<"sequentialAttention", "sequential-attention", "bool",
           /*default=*/"false",
           "Lower kiln.attention and kiln.attention_grad to scf.for loops "
           "over their query blocks and (batch, kv head) pairs instead of "
           "scf.forall ops whose iterations own disjoint blocks of the "
           "results (the CPU's threads)">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def KilnPrepareEntryPointsPass
    : Pass<"kiln-prepare-entry-points", "ModuleOp"> {
  let summary = "Mark public functions as CPU runtime entry points";
  let description = [{
    For every public `func.func` with a body:
    - adds the `llvm.emit_c_interface` unit attribute, so that
      `convert-func-to-llvm` emits a `_mlir_ciface_<name>` wrapper taking one
      pointer per memref descriptor: the entry point the JIT runtime calls;
    - marks each tensor argument `bufferization.writable = false`: the
      runtime's inputs are read-only, so one-shot bufferization must never
      write into an argument buffer in place.

    In every function with a body (private ones too), a tensor returned more
    than once is returned as a `bufferization.alloc_tensor` copy from its
    second occurrence on, so that each result owns its buffer: upstream
    `buffer-results-to-out-params{hoist-static-allocs}` crashes on one
    allocation returned twice; and the `kiln.*` argument and result
    attributes (split mode's `kiln.residual`, `kiln.cotangent`, ...) are
    dropped: they mean nothing to the lowering, and the LLVM IR translation
    would warn about each.

    Every function with a body is renamed to the reserved `__kiln_func_<name>`
    (with a `_<n>` suffix if that is taken), so that no lowered function body
    can take the name of a symbol that the lowering or the runtime needs: a
    body named `@exp` or `@erff` would otherwise be what LLVM's libm calls,
    `convert-math-to-libm` or the linker bind to. A public function keeps its
    name in `kiln.entry_point`, and `kiln-finalize-entry-points` gives its C
    interface that name back (`_mlir_ciface_<name>`).

    Runs before bufferization (the attributes survive it).

    ```mlir
    func.func @f(%a: tensor<2xf32>) -> tensor<2xf32>
    // becomes
    func.func @__kiln_func_f(%a: tensor<2xf32> {bufferization.writable = false})
        -> tensor<2xf32> attributes {kiln.entry_point = "f", llvm.emit_c_interface}
    ```
  }];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::LLVM::LLVMDialect",
  ];
}

def KilnFinalizeEntryPointsPass
    : Pass<"kiln-finalize-entry-points", "ModuleOp"> {
  let summary = "Give the C interfaces of entry points their public names";
  let description = [{
    Runs after `convert-func-to-llvm`. For each `llvm.func` body that
    `kiln-prepare-entry-points` renamed (`kiln.entry_point = "name"`), renames
    its C interface wrapper `_mlir_ciface_<body>` to `_mlir_ciface_<name>`,
    the symbol the JIT and the AOT wrappers call, and drops the attribute.
    A module that already has a symbol of that name is an error.

    A body whose only caller is its C interface becomes internal and
    `always_inline`: the body takes every memref expanded into the words of
    its descriptor (thousands of arguments for a deep model's training
    step), and the one call passing them all made instruction selection
    superlinear; inlined, the entry point is the wrapper, which takes one
    pointer per descriptor.

    ```mlir
    llvm.func @__kiln_func_f(...) attributes {kiln.entry_point = "f", ...}
    llvm.func @_mlir_ciface___kiln_func_f(...) attributes {kiln.entry_point = "f", ...}
    // becomes
    llvm.func internal @__kiln_func_f(...) attributes {always_inline, ...}
    llvm.func @_mlir_ciface_f(...) attributes {...}
    ```
  }];
}

def ConvertKilnAttentionToGPUPass
    : Pass<"convert-kiln-attention-to-gpu", "ModuleOp"> {
  let summary = "Lower kiln.attention and kiln.attention_grad to GPU kernels";
  let description = [{
    Replaces each `kiln.attention` and `kiln.attention_grad` on tensors with a
    hand-scheduled `gpu.launch`: tiles of Q against tiles of K/V staged in
    workgroup (shared) memory, online softmax with a running max and sum,
    tensor-core `nvvm.mma.sync` for f16/bf16 with f32 accumulation, their
    B (and the backward's A) fragments loaded by `nvgpu.ldmatrix`. The
    forward saves the row log-sum-exp; the backward recomputes P from it.
    Operands enter through `bufferization.to_buffer` and results leave
    through `bufferization.to_tensor`, so one-shot bufferization sees an
    ordinary tensor program around the launches.

    The tiles are views of the launch's dynamic shared memory
    (`gpu.dynamic_shared_memory`, each at a 16-byte aligned offset), whose
    global `convert-gpu-to-nvvm` aligns to 16 bytes, as `ldmatrix` and the
    16-byte shared stores need: upstream's NVVM pipelines give correct
    kernels (a `gpu.launch` workgroup attribution could not ask for the
    alignment).

    The forward lives in `lib/Conversion/KilnToGPU/AttentionForward*.cpp`, the
    backward in `AttentionBackward*.cpp`; see docs/GPUBackend.md.
  }];
  let options = [
    Option<"tensorCores", "tensor-cores", "bool", /*default=*/"true",
           "Use tensor-core mma instructions for f16/bf16 attention "
           "(false: the same kernels with scalar f32 FMAs)">,
    Option<"backwardTensorCores", "backward-tensor-cores", "bool",
           /*default=*/"true",
           "With tensor-cores, also use the tensor-core main kernel of the "
           "attention backward (false: its SIMT main kernel)">,
    Option<"softwarePipeline", "software-pipeline",
           "::mlir::kiln::AttentionSoftwarePipeline",
           /*default=*/"::mlir::kiln::AttentionSoftwarePipeline::Auto",
           "In the forward's tensor-core kernel, load the next K/V tile "
           "into registers while the current one is computed (more "
           "registers): auto (where bench/gpu measured that it pays: head "
           "dims in (64, 128]), on (true) or off (false)",
           [{::mlir::kiln::attentionSoftwarePipelineValues()}]>,
    Option<"forwardMinBlocksPerSM", "forward-min-blocks-per-sm", "unsigned",
           /*default=*/"0",
           "Ask for at least this many blocks per multiprocessor of the "
           "forward's tensor-core kernel (nvvm.minctasm, through "
           "kiln-gpu-kernel-outlining: ptxas fits its registers to it); "
           "0: no hint">,
    Option<"backwardMinBlocksPerSM", "backward-min-blocks-per-sm",
           "unsigned", /*default=*/"0",
           "The same for the backward's tensor-core main kernel">,
    Option<"deterministic", "deterministic", "bool", /*default=*/"false",
           "A bitwise reproducible attention backward: no float atomics "
           "(dQ by a kernel of its own, one thread per query row; an op "
           "with an additive mask, whose d_mask takes atomics, goes the "
           "generic way)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def KilnMatmulKernelsPass
    : Pass<"kiln-matmul-kernels", "::mlir::func::FuncOp"> {
  let summary = "Lower f32/f64 matmuls on buffers to register-tiled vector "
                "kernels";
  let description = [{
    Replaces each `linalg.matmul` and `linalg.batch_matmul` on buffers with
    an f32 or f64 C and float operands no wider than C (static shapes,
    contiguous rows of C and of an untransposed B; the default indexing
    maps, or those of A and/or B transposed) by a register-tiled kernel,
    C += A * B:

    ```
    for each batch b:
      for j0 in 0..N step NR:        (NR = 2 vector registers)
        for k0 in 0..K step 256:
          pack B[b, k0:k0+256, j0:j0+NR] into a stack buffer (if M > 8)
          for i0 in 0..M step 8:
            acc[8][NR] = C[b, i0:, j0:]                  (vector registers)
            for k in k0..k0+256:
              bv = packed B row k                        (2 vector loads)
              for r: acc[r] += broadcast(A[b, i0+r, k]) * bv   (vector.fma)
            C[b, i0:, j0:] = acc
    ```

    The block of B stays in L1 while every row block of A passes; the last
    row block and column tile are partial, with masked loads and stores. A
    transposed A (`[K, M]`) is read at `[k, i0 + r]`; a transposed B
    (`[N, K]`, as in attention's Q Kᵀ) is always packed, by a transposing
    copy. f16 and bf16 operands of an f32 C (the half-type matmuls and
    attention contractions, which accumulate in f32) are extended as they
    are loaded, as the named ops' bodies extend them; f32 operands of an
    f64 C likewise.
    Vectors are 512 bits (AVX-512); narrower targets split them in the LLVM
    backend. Other matmuls are left for `convert-linalg-to-loops`. Part of
    `kiln-lower-to-cpu` (docs/CPUBackend.md).

    The packed blocks of B go to one 32 KiB stack buffer per function,
    shared by its matmuls; inside an `omp.parallel`, to one per thread (in
    its region); inside an `scf.parallel` or `scf.forall`, to an allocation
    in the body, per iteration (its body becomes an OpenMP loop body, where
    a stack buffer would need a scope of its own).

    With `parallel` (the `enable-openmp` stage of `kiln-lower-to-cpu`, before
    `convert-scf-to-openmp`), a matmul that no such op encloses becomes an
    `scf.parallel` over its batches and column tiles of NR columns, each
    iteration packing into a buffer of its own and computing its columns of C
    as the sequential kernel does: the same bits for any split. Matmuls
    inside a parallel op (attention's, in the forall of its query blocks)
    stay sequential in their thread.

    With `amx` (set by the JIT and kiln-compile when the target CPU has
    AMX-BF16), a bf16 x bf16 -> f32 matmul (static shapes, any strides and
    transposes) becomes a kernel of `amx` tile ops instead
    (`lib/Conversion/LinalgToCPU/AmxMatmul.cpp`): A packed as contiguous
    16 x 32 tiles, B's row pairs interleaved into tiles of 16 pairs x 16
    columns per column block of 256, each 32 x 32 block of C four f32 tiles
    carried through the K loop, four `amx.tile_mulf` (`tdpbf16ps`) per 32 of
    K; zero-padded copies where M, N (32) or K (32) do not divide, an
    operand is transposed or its rows are not contiguous. With `parallel`,
    the column blocks are the iterations of an `scf.parallel`. Every element
    of C is the same chain of tile products whatever the split. Its tiles
    need `convert-to-llvm{filter-dialects=amx,cf}` (kiln-lower-to-cpu{amx}).
  }];
  let options = [
    Option<"parallel", "parallel", "bool", /*default=*/"false",
           "Run the column tiles of each matmul that no parallel op "
           "encloses as the iterations of an scf.parallel">,
    Option<"amx", "amx", "bool", /*default=*/"false",
           "Run bf16 x bf16 -> f32 matmuls on AMX tiles (amx.tile_mulf, "
           "tdpbf16ps); only for CPUs with AMX-BF16">,
  ];
  let dependentDialects = [
    "::mlir::amx::AMXDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def KilnLinalgToParallelLoopsPass
    : Pass<"kiln-linalg-to-parallel-loops", "::mlir::func::FuncOp"> {
  let summary = "Lower linalg ops on buffers, but matmuls, to scf.parallel";
  let description = [{
    Upstream `convert-linalg-to-parallel-loops`, except that
    `linalg.matmul` and `linalg.batch_matmul` stay for
    `kiln-matmul-kernels`: every other linalg op on buffers becomes an
    `scf.parallel` over its parallel dims, with its reduction dims as
    sequential `scf.for` loops inside. The `enable-openmp` stage of
    `kiln-lower-to-cpu` runs it before `convert-scf-to-openmp`, so each
    output element is computed by one thread and each reduction keeps its
    order (docs/AOT.md).

    A linalg op inside an `scf.parallel`, `scf.forall` or `omp.parallel`
    (attention's block ops, in the forall of its query blocks) already runs
    in one thread of the enclosing loop: it stays for
    `convert-linalg-to-loops`, so that no thread forks again for a small op
    (a nested parallel region, which libomp runs on the forking thread
    alone, after a fork and a join).
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def KilnExpandMathPass : Pass<"kiln-expand-math"> {
  let summary = "Expand f32 exp, tanh and small integer powers into "
                "arithmetic that vectorizes";
  let description = [{
    As math ops, these become calls to the C library (`expf`, `tanhf`,
    `powf`), which LLVM's loop vectorizer cannot widen: attention's softmax,
    SiLU, GELU and cross-entropy ran one scalar call per element. On `f32`
    (a scalar or a fixed-size vector) this pass rewrites

    - `math.exp`: `x = k ln2 + r` with `k` the integer nearest `x / ln2`
      and `r` reduced in two FMAs (ln2 split into an exact high part and
      the rest), `exp(r)` by its Taylor polynomial of degree 7 (truncation
      error below 5.3e-9 relative), and `2^k` applied in two
      exact-then-rounding products so that subnormal results round once
      and large ones overflow to `+inf`. `x` is clamped to [-104, 89]:
      `exp(-inf) = 0`, `exp(+inf) = +inf`, `exp(NaN) = NaN`;
    - `math.tanh`: upstream's rational approximation
      (`populatePolynomialApproximateTanhPattern`);
    - `math.powf` by a constant exponent 2 or 3: `x * x`, `(x * x) * x`.

    test/unittests/ExpandMathTest.cpp measures each against double
    precision over the whole range (exp within 1 ulp). Each expansion is
    the same arithmetic for a scalar and for each lane of a vector, so the
    vector and remainder iterations of a loop (and any split of a loop
    between threads) give the same bits. Part of `kiln-lower-to-cpu`,
    before the math ops are lowered to LLVM; f64 keeps libm.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
  ];
}

def KilnFuseElementwisePass : Pass<"kiln-fuse-elementwise"> {
  let summary = "Fuse elementwise linalg ops on tensors, without folding "
                "reshapes into them by expansion";
  let description = [{
    Upstream's `linalg-fuse-elementwise-ops` (elementwise fusion of a
    producer with one use, constant folding, and the canonicalizations that
    go with them) without its folding of `tensor.expand_shape` /
    `collapse_shape` into generic ops by expanding their iteration spaces.
    That folding made the graphs of Hugging Face models run 3.5 times
    slower: a 24-layer Qwen3 training step took 12.3 ms with it and 3.6 ms
    without (`kiln-run`, best of 5, 2026-12-02), and a 2-layer model's loss
    alone 1.09 ms against 0.08 ms, slower than its whole value_and_grad,
    whose forward values have more than one use and so were not fused.
    Part of `kiln-lower-to-cpu` (option `fuse-elementwise`).
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def KilnSplitDeallocsPass
    : Pass<"kiln-split-deallocs", "::mlir::func::FuncOp"> {
  let summary = "Split a bufferization.dealloc of distinct allocations into "
                "one per allocation";
  let description = [{
    Ownership-based deallocation frees the buffers of a block in one
    `bufferization.dealloc` at its end; in a graph's flat entry function
    that is one op with every temporary of the step (2,600 memrefs in a
    24-layer Qwen3 training step). `buffer-deallocation-simplification`
    then relates its memrefs pairwise to prove they do not alias, quadratic
    in their number: 1.4 s of that step's compile. When the op retains
    nothing and each of its memrefs is the result of a distinct
    `memref.alloc` (buffers that cannot alias one another), freeing them
    together is freeing each on its own: the op becomes one dealloc per
    memref, with its condition, which the simplification and
    `lower-deallocations` turn into plain `memref.dealloc`s in linear time.
    Any other dealloc (retained values, views, arguments, a memref listed
    twice) is left as it is.

    Part of `kiln-lower-to-cpu`, between `ownership-based-buffer-deallocation`
    and `buffer-deallocation-simplification` (docs/CPUBackend.md).

    ```mlir
    bufferization.dealloc (%a, %b : memref<4xf32>, memref<8xf32>) if (%true, %c)
    // becomes
    bufferization.dealloc (%a : memref<4xf32>) if (%true)
    bufferization.dealloc (%b : memref<8xf32>) if (%c)
    ```
  }];
}

def KilnOutlineKernelsPass
    : Pass<"kiln-outline-kernels", "::mlir::ModuleOp"> {
  let summary = "Outline each loop nest on buffers into a shared, noinline "
                "kernel function";
  let description = [{
    Moves every linalg op on buffers and every op with regions (`scf.for`,
    `scf.parallel`, `scf.forall`, ...) found directly in a function body
    into a private function of its own, `__kiln_kernel_<n>`, called in
    its place: the op's distinct operands and the non-constant values its
    regions use from above become the kernel's arguments (in order of
    first use), constants are cloned into it, and its results are the
    kernel's results. Structurally identical kernels (the same op, types,
    attributes and payload, so the same shapes) are one function, called
    by every layer that needs it. Kernels are `noinline` and have internal
    linkage.

    Why: the CPU pipeline lowers a whole graph into one LLVM function per
    entry point, and LLVM's function passes (IndVarSimplify, the loop
    vectorizer and unroller, instruction selection, loop strength
    reduction) grew worse than linearly with its size; a training step of
    a model L layers deep compiled in time quadratic in L. With kernels,
    LLVM compiles each distinct loop nest once, and the entry points are
    straight-line code of calls and allocations. Part of
    `kiln-lower-to-cpu` (option `outline-kernels`, docs/CPUBackend.md).
  }];
  let dependentDialects = [
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
  ];
}

#endif // KILN_CONVERSION_PASSES_TD
