//===- AttentionKernels.h - kiln attention GPU kernel builders --*- C++ -*-===//
//
// Private to the KilnToGPU library: the kernel builders of the forward and
// the backward attention patterns, so that one may launch the other's kernel
// (the backward recomputes the forward's row log-sum-exp when it is not
// given). What the kernels compute (sizes, band, predicate, logits, dropout
// draw) is kiln/Dialect/Kiln/Utils/AttentionUtils.h, as for the CPU
// lowering. See docs/GPUAttention.md.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CONVERSION_KILNTOGPU_ATTENTIONKERNELS_H
#define KILN_LIB_CONVERSION_KILNTOGPU_ATTENTIONKERNELS_H

#include "kiln/Conversion/AttentionSoftwarePipeline.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Utils/AttentionUtils.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

#include <array>
#include <optional>

namespace mlir::kiln {

/// Options of the attention kernels (the pass options of
/// convert-kiln-attention-to-gpu).
struct AttentionGPUOptions {
  /// Use the tensor-core (nvgpu.mma.sync) kernel for f16/bf16 where it
  /// applies; the SIMT kernel otherwise.
  bool tensorCores = true;
  /// Also use the tensor-core main kernel of the backward (with
  /// `tensorCores`).
  bool backwardTensorCores = true;
  /// In the forward's tensor-core kernel, load key tile kt + 64 into
  /// registers while tile kt is computed (software pipelining): always,
  /// never, or where it was measured to pay
  /// (shouldSoftwarePipelineAttention).
  AttentionSoftwarePipeline softwarePipeline = AttentionSoftwarePipeline::Auto;
  /// Occupancy hints of the tensor-core kernels (the forward's, the
  /// backward's main kernel): at least this many blocks per multiprocessor,
  /// so that ptxas limits the registers to fit them (setMinBlocksPerSM);
  /// 0 gives no hint.
  unsigned forwardMinBlocksPerSM = 0;
  unsigned backwardMinBlocksPerSM = 0;
  /// A backward whose results do not depend on the order in which blocks
  /// run: no float atomics. The main kernels leave dQ to a kernel of its
  /// own (one thread per query row, keys in order), and an op with an
  /// additive mask (whose d_mask the main kernels add atomically) goes the
  /// generic way. See docs/GPUAttentionBackward.md, "Deterministic
  /// backward".
  bool deterministic = false;
};

/// Creates a `gpu.launch` of `grid` blocks of `threads` threads with the
/// private attributions `privates`, and returns it with its body holding only
/// the workgroup tiles: one `memref.view` of the launch's dynamic shared
/// memory per type of `tiles` (static shapes, identity layouts, workgroup
/// address space), in order and each at a 16-byte aligned offset, appended to
/// `tileViews`. The caller fills the rest of the body and its terminator.
///
/// Dynamic shared memory rather than workgroup attributions because the
/// tensor-core kernels need 16-byte aligned tiles (ldmatrix, 16-byte shared
/// stores): upstream's convert-gpu-to-nvvm gives the dynamic shared memory
/// global that alignment, while a `gpu.launch` workgroup attribution cannot
/// carry one, so any NVVM pipeline gives correct kernels.
gpu::LaunchOp buildKernelLaunch(OpBuilder &b, Location loc,
                                std::array<int64_t, 3> grid, int64_t threads,
                                ArrayRef<MemRefType> tiles, TypeRange privates,
                                SmallVectorImpl<Value> &tileViews);

/// Asks for at least `blocks` blocks of `launch`'s kernel per multiprocessor
/// (nothing if 0): `nvvm.minctasm` in the launch's `kiln.kernel_attributes`,
/// which kiln-gpu-kernel-outlining moves to the outlined kernel, where it
/// becomes PTX's `.minnctapersm` and ptxas fits the registers to it.
void setMinBlocksPerSM(gpu::LaunchOp launch, unsigned blocks);

/// Returns success if buildAttentionForwardLaunch supports `op` (static
/// shapes, a float element type of at most 64 bits, 1 <= Dk, Dv <= 256, a
/// non-empty result); otherwise failure, with the reason in `reason`.
LogicalResult canBuildAttentionForward(AttentionOp op, std::string &reason);

/// Builds, at the insertion point of `b`, the flash forward kernel of `op`
/// as a `gpu.launch`. `operandMemrefs[n]` is the buffer of `op`'s operand n
/// (the same count and order as `op->getOperands()`), `outMemref` the
/// [B, Hq, Sq, Dv] result buffer of the op's element type. With a non-null
/// `lseMemref` ([B, Hq, Sq], f32 for f16/bf16/f32, f32 or f64 for f64) the
/// kernel also writes the row log-sum-exp, +inf for an empty row. The op
/// itself is only read. `sequenceTables` are the buffers of
/// buildSequenceTableBuffers, present exactly when `op` has packed
/// sequences. Fails (creating nothing) when canBuildAttentionForward does.
LogicalResult buildAttentionForwardLaunch(
    OpBuilder &b, Location loc, AttentionOp op, ValueRange operandMemrefs,
    Value outMemref, Value lseMemref, const AttentionGPUOptions &options,
    AttentionSequenceTables sequenceTables = {});

/// The per-row tables of `op`'s packed sequences
/// (buildAttentionRowSequenceTables, a linalg.generic on tensors that the
/// pipeline runs as a kernel of its own) as read-only buffers for the
/// attention kernels, built at the insertion point of `b`; all null when
/// `op` has no packed sequences.
AttentionSequenceTables buildSequenceTableBuffers(OpBuilder &b, Location loc,
                                                  AttentionOpInterface op);

} // namespace mlir::kiln

#endif // KILN_LIB_CONVERSION_KILNTOGPU_ATTENTIONKERNELS_H
