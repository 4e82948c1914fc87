//===- AttentionForward.cpp - kiln.attention as a GPU flash kernel --------===//
//
// kiln.attention on tensors becomes a gpu.launch between
// bufferization.to_buffer of its operands and bufferization.to_tensor of a
// fresh result buffer. The kernel is FlashAttention's forward: one block per
// (batch, kv head, tile of query rows), where a tile holds the rows of every
// query head of the group (grouped-query heads packed, so each K/V tile is
// staged in workgroup memory once for the whole group); each query row keeps a
// running max m, a running sum l and its output accumulator, rescaled whenever
// m grows, and writes O = acc / l once (0 for an empty row). No [Sq, Sk] buffer
// exists. Attention sinks are folded into m and l once, after the key loop
// (AttentionSinkFold): O = acc * rescale / l', LSE = m' + log(l').
//
// The sizes, the visibility predicate, the logits and the dropout draw are
// those of kiln/Dialect/Kiln/Utils/AttentionUtils.h, called on memrefs, so
// the CPU and the GPU share one definition of every mask form.
//
// This file holds the pattern, the checks and the choice of kernel, and the
// key range both kernels share (AttentionForward.h); the kernels are in
// AttentionForwardSimt.cpp (SIMT, every dtype and mask form) and
// AttentionForwardMma.cpp (tensor cores, f16/bf16). See docs/GPUAttention.md.
//
//===----------------------------------------------------------------------===//

#include "AttentionForward.h"
#include "AttentionKernels.h"
#include "PopulatePatterns.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

#include "llvm/Support/Debug.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

#define DEBUG_TYPE "kiln-attention-to-gpu"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::attention_forward;

/// The largest head dim the kernels keep in registers / workgroup memory.
constexpr int64_t kMaxHeadDim = 256;

std::pair<Value, Value> attention_forward::buildKeyRange(KernelBuilder &kb,
                                                         const ForwardConfig &c,
                                                         const RowTile &tile) {
  const AttentionVisibility &vis = c.logits.visibility;
  Value batchIndex = tile.batch;
  Value rowBegin = tile.position(kb, c, tile.begin);
  Value rowEnd = tile.position(kb, c, tile.last);
  Value lo = kb.index(0);
  Value hi = kb.index(c.numKeys);
  if (Value firstKey = vis.band.buildFirstKey(kb.b, kb.loc, rowBegin))
    lo = kb.max(lo, firstKey);
  if (Value endKey = vis.band.buildEndKey(kb.b, kb.loc, rowEnd))
    hi = kb.min(hi, endKey);
  if (vis.keyLengths)
    hi = kb.min(hi, buildClampedLength(kb.b, kb.loc, vis.keyLengths,
                                       batchIndex, c.numKeys));
  if (vis.sequences) {
    // The keys of the block's rows' packed sequences (every thread reads
    // the block's rows of the tables: at most 64 rows).
    auto [first, end] = buildAttentionSequenceKeyRange(
        kb.b, kb.loc, vis, rowBegin, kb.add(rowEnd, kb.index(1)));
    lo = kb.max(lo, first);
    hi = kb.min(hi, end);
  }
  return {lo, hi};
}

//===----------------------------------------------------------------------===//
// The pattern
//===----------------------------------------------------------------------===//

namespace {

/// kiln.attention on tensors -> to_buffer, gpu.launch, to_tensor.
struct AttentionForwardToGPU : OpRewritePattern<AttentionOp> {
  AttentionForwardToGPU(MLIRContext *context,
                        const AttentionGPUOptions &options)
      : OpRewritePattern(context), options(options) {}

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    std::string reason;
    if (failed(canBuildAttentionForward(op, reason))) {
      LLVM_DEBUG(llvm::dbgs() << "kiln.attention left to the generic path: "
                              << reason << "\n");
      return rewriter.notifyMatchFailure(op, reason);
    }
    Location loc = op.getLoc();
    SmallVector<Value> memrefs;
    for (Value operand : op->getOperands()) {
      auto type = cast<RankedTensorType>(operand.getType());
      memrefs.push_back(bufferization::ToBufferOp::create(
          rewriter, loc, MemRefType::get(type.getShape(), type.getElementType()),
          operand, /*read_only=*/true));
    }
    auto resultType = cast<RankedTensorType>(op.getResult().getType());
    auto outType =
        MemRefType::get(resultType.getShape(), resultType.getElementType());
    Value out = memref::AllocOp::create(rewriter, loc, outType);
    // The optional lse result: both kernels store it when given a buffer.
    RankedTensorType lseType;
    Value lse;
    if (op.getLse()) {
      lseType = cast<RankedTensorType>(op.getLse().getType());
      lse = memref::AllocOp::create(
          rewriter, loc,
          MemRefType::get(lseType.getShape(), lseType.getElementType()));
    }
    AttentionSequenceTables sequences =
        buildSequenceTableBuffers(rewriter, loc, op);
    if (failed(buildAttentionForwardLaunch(rewriter, loc, op, memrefs, out, lse,
                                           options, sequences)))
      return failure();
    SmallVector<Value> results = {bufferization::ToTensorOp::create(
        rewriter, loc, resultType, out, /*restrict=*/true, /*writable=*/true)};
    if (lse)
      results.push_back(bufferization::ToTensorOp::create(
          rewriter, loc, lseType, lse, /*restrict=*/true, /*writable=*/true));
    rewriter.replaceOp(op, results);
    return success();
  }

  AttentionGPUOptions options;
};

} // namespace

LogicalResult mlir::kiln::canBuildAttentionForward(AttentionOp op,
                                                   std::string &reason) {
  for (Value value : op->getOperands())
    if (auto type = dyn_cast<RankedTensorType>(value.getType());
        !type || !type.hasStaticShape()) {
      reason = "expected statically shaped tensor operands";
      return failure();
    }
  auto resultType = dyn_cast<RankedTensorType>(op.getResult().getType());
  if (!resultType || !resultType.hasStaticShape() ||
      resultType.getRank() != 4) {
    reason = "expected a statically shaped rank-4 result";
    return failure();
  }
  if (resultType.getNumElements() == 0) {
    reason = "empty result: nothing to launch";
    return failure();
  }
  Type element = resultType.getElementType();
  if (!element.isF16() && !element.isBF16() && !element.isF32() &&
      !element.isF64()) {
    reason = "element type other than f16, bf16, f32, f64";
    return failure();
  }
  auto keyType = cast<RankedTensorType>(op.getKey().getType());
  int64_t keyDim = keyType.getDimSize(3);
  int64_t valueDim = resultType.getDimSize(3);
  if (keyDim < 1 || keyDim > kMaxHeadDim || valueDim > kMaxHeadDim) {
    reason = "head dim outside [1, 256]";
    return failure();
  }
  // The grid of RowTile: (ceil(R * Sq / rows), Hkv, B).
  int64_t numKvHeads = keyType.getDimSize(1);
  int64_t packedRows = resultType.getDimSize(1) /
                       std::max<int64_t>(1, numKvHeads) *
                       resultType.getDimSize(2);
  int64_t grid = llvm::divideCeil(packedRows, kSimtRows);
  if (grid > std::numeric_limits<int32_t>::max() || numKvHeads > 65535 ||
      resultType.getDimSize(0) > 65535) {
    reason = "grid too large";
    return failure();
  }
  return success();
}

AttentionSequenceTables
mlir::kiln::buildSequenceTableBuffers(OpBuilder &b, Location loc,
                                      AttentionOpInterface op) {
  if (!op.hasPackedSequences())
    return {};
  AttentionSequenceTables tables = buildAttentionRowSequenceTables(
      b, loc, op, op.getCuSeqlensQ(), op.getCuSeqlensK());
  auto toBuffer = [&](Value tensor) -> Value {
    auto type = cast<RankedTensorType>(tensor.getType());
    return bufferization::ToBufferOp::create(
        b, loc, MemRefType::get(type.getShape(), type.getElementType()),
        tensor, /*read_only=*/true);
  };
  return {toBuffer(tables.keyBegin), toBuffer(tables.keyEnd),
          toBuffer(tables.position)};
}

LogicalResult mlir::kiln::buildAttentionForwardLaunch(
    OpBuilder &b, Location loc, AttentionOp op, ValueRange operandMemrefs,
    Value outMemref, Value lseMemref, const AttentionGPUOptions &options,
    AttentionSequenceTables sequenceTables) {
  std::string reason;
  if (failed(canBuildAttentionForward(op, reason)) ||
      operandMemrefs.size() != op->getNumOperands())
    return failure();
  ForwardConfig c;
  static_cast<AttentionSizes &>(c) = AttentionSizes::get(op);
  // Operands are matched by position, not by value: the same tensor may be
  // passed as two operands (q = k).
  auto operandBuffer = [&](unsigned odsIndex) -> Value {
    auto [start, length] = op.getODSOperandIndexAndLength(odsIndex);
    return length ? operandMemrefs[start] : Value();
  };
  c.query = operandBuffer(0);
  c.key = operandBuffer(1);
  c.value = operandBuffer(2);
  c.logits =
      AttentionLogits::get(op, operandBuffer(3), operandBuffer(4),
                           operandBuffer(5), operandBuffer(7), sequenceTables);
  c.seed = operandBuffer(6);
  c.out = outMemref;
  c.lse = lseMemref;
  c.sinks = operandBuffer(8);
  if (useMmaKernel(c, options))
    buildMmaKernel(b, loc, c, options);
  else
    buildSimtKernel(b, loc, c);
  return success();
}

void mlir::kiln::populateAttentionForwardToGPUPatterns(
    RewritePatternSet &patterns, const AttentionGPUOptions &options) {
  patterns.add<AttentionForwardToGPU>(patterns.getContext(), options);
}
