//===- MmaFragments.h - m16n8k16 fragments, shared by attention -*- C++ -*-===//
//
// Private to the KilnToGPU library: the register-level builders that the
// tensor-core attention kernels (forward and backward) share. The fragment
// layouts are those of the PTX ISA, "Matrix Fragments for mma.m16n8k16 with
// floating point type". With g = lane / 4 and t = lane % 4:
//
//   A (16x16, row): a{0,1} (g, 2t+{0,1}), a{2,3} (g+8, 2t+{0,1}),
//                   a{4,5} (g, 2t+8+{0,1}), a{6,7} (g+8, 2t+8+{0,1});
//   B (16x8, col):  b{0,1} (k = 2t+{0,1}, n = g), b{2,3} (k = 2t+8+{0,1});
//   C (16x8, f32):  c{0,1} (g, 2t+{0,1}), c{2,3} (g+8, 2t+{0,1}).
//
// Each pair of halves travels in one 32-bit register, the first in the low
// half. The C fragments of two adjacent n-tiles, packed pairwise, are exactly
// an A fragment (FlashAttention-2's register reuse): n-tile 2k gives a{0..3},
// n-tile 2k+1 gives a{4..7}.
//
// See docs/GPUAttention.md ("The tensor-core kernel").
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CONVERSION_KILNTOGPU_MMAFRAGMENTS_H
#define KILN_LIB_CONVERSION_KILNTOGPU_MMAFRAGMENTS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

#include <array>

namespace mlir::kiln {

/// Builds the registers and the mma.sync.m16n8k16 of one element type (f16
/// or bf16, f32 accumulators) at the insertion point of `b`.
///
/// The mma is nvvm.mma.sync rather than nvgpu.mma.sync: MLIR 22's NVGPU to
/// NVVM lowering cannot deduce the PTX types of a bf16 nvgpu.mma.sync, and
/// one op for both types keeps one code path. Its operands are
/// vector<2xf16> (f16) or the same pair bitcast to i32 (bf16).
struct MmaBuilder {
  OpBuilder &b;
  Location loc;
  /// f16 or bf16.
  FloatType elementType;

  /// Packs two floats (of any width; rounded or extended to the element
  /// type) into one register, `lo` in the low half.
  Value pack(Value lo, Value hi) {
    auto pairType = VectorType::get({2}, elementType);
    Value pair = vector::FromElementsOp::create(
        b, loc, pairType, ValueRange{convert(lo), convert(hi)});
    return fromPair(pair);
  }

  /// ldmatrix.m8n8.x`count` of the 16-bit workgroup `tile` (2-D, 16-byte
  /// aligned, rows a multiple of 16 bytes): lane l < 8 count gives the
  /// address of `tile[row, column]`, the start of row l % 8 of matrix l / 8;
  /// every lane gets one register per matrix, (g, 2t) and (g, 2t + 1) of it,
  /// or with `transpose` (2t, g) and (2t + 1, g), i.e. two adjacent rows of
  /// a column (the B pairs of a row-major [k, n] tile). nvgpu.ldmatrix
  /// takes the memref and indices; convert-nvgpu-to-nvvm (in Kiln's and
  /// upstream's GPU pipelines) computes the shared address.
  SmallVector<Value> loadMatrices(Value tile, Value row, Value column,
                                  int64_t count, bool transpose) {
    auto type = VectorType::get({count, 2}, elementType);
    Value loaded =
        nvgpu::LdMatrixOp::create(b, loc, type, tile, ValueRange{row, column},
                                  transpose, uint32_t(count));
    SmallVector<Value> registers;
    for (int64_t i = 0; i < count; ++i)
      registers.push_back(fromPair(
          vector::ExtractOp::create(b, loc, loaded, ArrayRef<int64_t>{i})));
    return registers;
  }

  /// The A fragment of C fragments `lo` (n-tile 2k) and `hi` (n-tile
  /// 2k + 1): the 16x16 A operand of columns 16k..16k+15.
  std::array<Value, 4> aFromAccumulators(ArrayRef<Value> lo,
                                         ArrayRef<Value> hi) {
    return {pack(lo[0], lo[1]), pack(lo[2], lo[3]), pack(hi[0], hi[1]),
            pack(hi[2], hi[3])};
  }

  /// C + A B with four A registers, two B registers and four f32
  /// accumulators; returns the four results.
  SmallVector<Value> mma(ArrayRef<Value> a, ArrayRef<Value> bRegs,
                         ArrayRef<Value> c) {
    Type f32 = b.getF32Type();
    auto resultType =
        LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
    NVVM::MMATypes ptxType =
        elementType.isF16() ? NVVM::MMATypes::f16 : NVVM::MMATypes::bf16;
    auto op = NVVM::MmaOp::create(
        b, loc, resultType, a, bRegs, c, ArrayRef<int64_t>{16, 8, 16},
        /*b1Op=*/std::nullopt, /*intOverflow=*/std::nullopt,
        std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    SmallVector<Value> d;
    for (int64_t e = 0; e < 4; ++e)
      d.push_back(LLVM::ExtractValueOp::create(b, loc, op.getRes(), e));
    return d;
  }

  /// Reduces the f32 `x` over the four lanes of a quad (the lanes that hold
  /// one row of a C fragment) with `combine`.
  Value quadReduce(Value x, function_ref<Value(Value, Value)> combine) {
    for (int32_t offset : {1, 2}) {
      auto shuffle = gpu::ShuffleOp::create(b, loc, x, offset, /*width=*/32,
                                            gpu::ShuffleMode::XOR);
      x = combine(x, shuffle.getShuffleResult());
    }
    return x;
  }

private:
  /// The register of a vector<2 x element type>.
  Value fromPair(Value pair) {
    if (elementType.isF16())
      return pair;
    Value word = vector::BitCastOp::create(
        b, loc, VectorType::get({1}, b.getI32Type()), pair);
    return vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0});
  }

  Value convert(Value x) {
    auto type = cast<FloatType>(x.getType());
    if (type == elementType)
      return x;
    if (type.getWidth() < elementType.getWidth())
      return arith::ExtFOp::create(b, loc, elementType, x);
    return arith::TruncFOp::create(b, loc, elementType, x);
  }
};

//===----------------------------------------------------------------------===//
// Staging f16/bf16 tiles 16 bytes at a time
//===----------------------------------------------------------------------===//
//
// Global memory is read 16 bytes (a chunk of 8 elements) per load when the
// buffers are 16-byte aligned, element by element otherwise. See
// docs/GPUAttention.md ("The tensor-core kernel").

/// Elements per staging load: 16 bytes of f16/bf16.
constexpr int64_t kStagingChunk = 8;

/// Returns an i1 that holds when every buffer of `memrefs` (identity
/// layout, static offset 0) starts at a multiple of `bytes`.
inline Value buildAllAligned(OpBuilder &b, Location loc, ValueRange memrefs,
                             int64_t bytes) {
  Value alignment = arith::ConstantIndexOp::create(b, loc, bytes);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value all;
  for (Value memref : memrefs) {
    Value address =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
    Value aligned = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq,
        arith::RemUIOp::create(b, loc, address, alignment), zero);
    all = all ? arith::AndIOp::create(b, loc, all, aligned).getResult()
              : aligned;
  }
  return all;
}

/// Loads the kStagingChunk elements `source[indices]` onwards along the
/// last (contiguous) dimension as a vector: one 16-byte vector.load if
/// `wide` (the caller has checked the alignment), else element by element.
inline Value buildChunkLoad(OpBuilder &b, Location loc, Value source,
                            ArrayRef<Value> indices, bool wide) {
  Type element = cast<MemRefType>(source.getType()).getElementType();
  auto chunkType = VectorType::get({kStagingChunk}, element);
  if (wide)
    return vector::LoadOp::create(b, loc, chunkType, source, indices,
                                  /*nontemporal=*/false, llvm::Align(16));
  SmallVector<Value> at(indices);
  Value column = at.back();
  SmallVector<Value> elements;
  for (int64_t e = 0; e < kStagingChunk; ++e) {
    at.back() = arith::AddIOp::create(
        b, loc, column, arith::ConstantIndexOp::create(b, loc, e));
    elements.push_back(memref::LoadOp::create(b, loc, source, at));
  }
  return vector::FromElementsOp::create(b, loc, chunkType, elements);
}

/// One copy of buildTileCopies: rows first .. first + rows - 1 of
/// `source`[prefix..., row, 0 .. dim - 1] into rows 0 .. rows - 1 of the
/// workgroup `tile` (row-major; its row stride and `dim` multiples of
/// kStagingChunk). Rows at or past `end` are zeros, read at row `last`
/// (clamped, never out of bounds).
struct TileCopy {
  Value source;
  SmallVector<Value, 2> prefix;
  Value first;
  int64_t rows, dim;
  Value end, last, tile;
};

/// Copies every tile of `copies` with all `threads` threads of the block
/// (this one is `tid`), in chunks of kStagingChunk elements: chunk e of a
/// copy is row e / (dim / 8), columns 8 (e % (dim / 8)) onwards, so
/// consecutive threads read consecutive 16 bytes of a row; one 16-byte
/// load if `wide` (else element by element) and one 16-byte shared store
/// each.
///
/// When `wide` and every thread copies the same chunks of every copy
/// (dim / 8 divides `threads`, which divides the chunk count), the copy is
/// unrolled and a thread issues all its loads, of every copy, before its
/// first store, so that their latencies overlap instead of adding up (a
/// loop stores each chunk before it loads the next). Otherwise one loop
/// per copy (the element-wise fallback for misaligned buffers stays small).
inline void buildTileCopies(OpBuilder &b, Location loc,
                            ArrayRef<TileCopy> copies, Value tid,
                            int64_t threads, bool wide) {
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  auto loadChunk = [&](const TileCopy &copy, Value r, Value d) -> Value {
    Value row = arith::AddIOp::create(b, loc, copy.first, r);
    SmallVector<Value> at(copy.prefix.begin(), copy.prefix.end());
    at.push_back(arith::MinSIOp::create(b, loc, row, copy.last));
    at.push_back(d);
    Value x = buildChunkLoad(b, loc, copy.source, at, wide);
    auto chunkType = cast<VectorType>(x.getType());
    Value zero = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(
            chunkType, b.getFloatAttr(chunkType.getElementType(), 0.0)));
    Value valid =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, row, copy.end);
    return arith::SelectOp::create(b, loc, valid, x, zero);
  };
  auto storeChunk = [&](const TileCopy &copy, Value x, Value r, Value d) {
    vector::StoreOp::create(b, loc, x, copy.tile, ValueRange{r, d},
                            /*nontemporal=*/false, llvm::Align(16));
  };

  bool unrolled =
      wide && llvm::all_of(copies, [&](const TileCopy &copy) {
        int64_t perRow = copy.dim / kStagingChunk;
        return threads % perRow == 0 && (copy.rows * perRow) % threads == 0;
      });
  if (!unrolled) {
    for (const TileCopy &copy : copies) {
      Value perRow = index(copy.dim / kStagingChunk);
      scf::ForOp::create(
          b, loc, tid, index(copy.rows * (copy.dim / kStagingChunk)),
          index(threads), ValueRange{},
          [&](OpBuilder &nested, Location, Value e, ValueRange) {
            OpBuilder::InsertionGuard guard(b);
            b.setInsertionPoint(nested.getInsertionBlock(),
                                nested.getInsertionPoint());
            Value r = arith::DivUIOp::create(b, loc, e, perRow);
            Value d = arith::MulIOp::create(
                b, loc, arith::RemUIOp::create(b, loc, e, perRow),
                index(kStagingChunk));
            storeChunk(copy, loadChunk(copy, r, d), r, d);
            scf::YieldOp::create(b, loc);
          });
    }
    return;
  }
  // Thread t copies chunks t, t + threads, ...: with dim / 8 dividing
  // `threads`, always columns 8 (t % (dim / 8)) onwards, of rows
  // t / (dim / 8) + k threads / (dim / 8).
  struct Loaded {
    const TileCopy *copy;
    Value row, column, chunk;
  };
  SmallVector<Loaded> loaded;
  for (const TileCopy &copy : copies) {
    int64_t perRow = copy.dim / kStagingChunk;
    Value firstRow = arith::DivUIOp::create(b, loc, tid, index(perRow));
    Value column = arith::MulIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, tid, index(perRow)),
        index(kStagingChunk));
    for (int64_t k = 0, e = copy.rows * perRow / threads; k < e; ++k) {
      Value r = arith::AddIOp::create(b, loc, firstRow,
                                      index(k * (threads / perRow)));
      loaded.push_back({&copy, r, column, loadChunk(copy, r, column)});
    }
  }
  for (const Loaded &chunk : loaded)
    storeChunk(*chunk.copy, chunk.chunk, chunk.row, chunk.column);
}

} // namespace mlir::kiln

#endif // KILN_LIB_CONVERSION_KILNTOGPU_MMAFRAGMENTS_H
