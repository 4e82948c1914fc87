//===- TileCopy.h - staging attention tiles in shared memory ----*- C++ -*-===//
//
// Private to the KilnToGPU library: how the tensor-core attention kernels
// (forward and backward) copy f16/bf16 tiles from global into workgroup
// memory. Global memory is read 16 bytes (a chunk of 8 elements) per load
// when the buffers are 16-byte aligned, element by element otherwise; each
// chunk is one 16-byte shared store. See docs/GPUAttention.md ("The
// tensor-core kernel").
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CONVERSION_KILNTOGPU_TILECOPY_H
#define KILN_LIB_CONVERSION_KILNTOGPU_TILECOPY_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::kiln {

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

/// One tile copy: rows first .. first + rows - 1 of
/// `source`[prefix..., row, 0 .. dim - 1] into rows 0 .. rows - 1 of the
/// workgroup `tile` (row-major; its row stride and `dim` multiples of
/// kStagingChunk). Rows at or past `end` are zeros, read at row `last`
/// (clamped, never out of bounds).
///
/// All `threads` threads of the block copy a tile together, in chunks of
/// kStagingChunk elements: chunk e is row e / (dim / 8), columns
/// 8 (e % (dim / 8)) onwards, so consecutive threads read consecutive 16
/// bytes of a row.
struct TileCopy {
  Value source;
  SmallVector<Value, 2> prefix;
  Value first;
  int64_t rows, dim;
  Value end, last, tile;
};

namespace detail {
inline Value index(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// Chunk (r, d) of `copy`, zeros for a row at or past its end.
inline Value loadTileChunk(OpBuilder &b, Location loc, const TileCopy &copy,
                           Value r, Value d, bool wide) {
  Value row = arith::AddIOp::create(b, loc, copy.first, r);
  SmallVector<Value> at(copy.prefix.begin(), copy.prefix.end());
  at.push_back(arith::MinSIOp::create(b, loc, row, copy.last));
  at.push_back(d);
  Value x = buildChunkLoad(b, loc, copy.source, at, wide);
  auto chunkType = cast<VectorType>(x.getType());
  Value zero = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(chunkType,
                             b.getFloatAttr(chunkType.getElementType(), 0.0)));
  Value valid =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, row, copy.end);
  return arith::SelectOp::create(b, loc, valid, x, zero);
}

} // namespace detail

/// Whether every one of `threads` threads copies the same number of chunks
/// of every copy, at fixed columns (dim / 8 divides `threads`, which
/// divides the chunk count), so that the copy can be unrolled
/// (buildTileLoads, buildTileStores).
inline bool canUnrollTileCopies(ArrayRef<TileCopy> copies, int64_t threads) {
  return llvm::all_of(copies, [&](const TileCopy &copy) {
    int64_t perRow = copy.dim / kStagingChunk;
    return threads % perRow == 0 && (copy.rows * perRow) % threads == 0;
  });
}

/// Where one chunk of an unrolled copy goes: rows and columns of
/// copies[copy]'s tile (and of its source, from its first row).
struct TileChunk {
  unsigned copy;
  Value row, column;
};

/// The chunks that thread `tid` copies in an unrolled copy
/// (canUnrollTileCopies), in a fixed order: thread t copies chunks t,
/// t + threads, ... of each copy, which with dim / 8 dividing `threads` are
/// always columns 8 (t % (dim / 8)) onwards, of rows t / (dim / 8) +
/// k threads / (dim / 8). They depend on the copies' shapes only, so one
/// list serves every tile of a loop.
inline SmallVector<TileChunk> getTileChunks(OpBuilder &b, Location loc,
                                            ArrayRef<TileCopy> copies,
                                            Value tid, int64_t threads) {
  assert(canUnrollTileCopies(copies, threads) && "not an unrolled copy");
  SmallVector<TileChunk> chunks;
  for (auto [n, copy] : llvm::enumerate(copies)) {
    int64_t perRow = copy.dim / kStagingChunk;
    Value firstRow =
        arith::DivUIOp::create(b, loc, tid, detail::index(b, loc, perRow));
    Value column = arith::MulIOp::create(
        b, loc,
        arith::RemUIOp::create(b, loc, tid, detail::index(b, loc, perRow)),
        detail::index(b, loc, kStagingChunk));
    for (int64_t k = 0, e = copy.rows * perRow / threads; k < e; ++k) {
      Value row = k == 0 ? firstRow
                         : arith::AddIOp::create(
                               b, loc, firstRow,
                               detail::index(b, loc, k * (threads / perRow)))
                               .getResult();
      chunks.push_back({static_cast<unsigned>(n), row, column});
    }
  }
  return chunks;
}

namespace detail {
/// The unrolled loads of `chunks`, 16 bytes each if `wide`, else element by
/// element.
inline SmallVector<Value> buildTileLoads(OpBuilder &b, Location loc,
                                         ArrayRef<TileCopy> copies,
                                         ArrayRef<TileChunk> chunks,
                                         bool wide) {
  SmallVector<Value> values;
  for (const TileChunk &chunk : chunks)
    values.push_back(loadTileChunk(b, loc, copies[chunk.copy], chunk.row,
                                   chunk.column, wide));
  return values;
}

/// The copy with 16-byte loads if `wide`, else element by element: when
/// `wide` and canUnrollTileCopies, unrolled (all of a thread's loads before
/// its first store); otherwise one loop per copy.
inline void buildTileCopies(OpBuilder &b, Location loc,
                            ArrayRef<TileCopy> copies, Value tid,
                            int64_t threads, bool wide);

/// Builds `body(wide)` in both branches of a uniform scf.if on `aligned`
/// (true: wide) with results of `types`, and returns its results.
inline SmallVector<Value>
buildAlignmentBranch(OpBuilder &b, Location loc, Value aligned, TypeRange types,
                     function_ref<SmallVector<Value>(bool wide)> body) {
  auto ifAligned =
      scf::IfOp::create(b, loc, types, aligned, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  for (bool wide : {true, false}) {
    Block *block = wide ? ifAligned.thenBlock() : ifAligned.elseBlock();
    // Without results the builder gave each block its scf.yield already.
    if (types.empty()) {
      b.setInsertionPoint(block->getTerminator());
      body(wide);
      continue;
    }
    b.setInsertionPointToEnd(block);
    scf::YieldOp::create(b, loc, body(wide));
  }
  return SmallVector<Value>(ifAligned.getResults());
}
} // namespace detail

/// The first half of an unrolled copy: loads `chunks` (getTileChunks of
/// copies of the same shapes) and returns them in order, each a vector of
/// kStagingChunk elements: 16 bytes per load if `aligned` (an i1, uniform
/// over the block: buildAllAligned of the sources) holds, element by
/// element otherwise, in the two branches of an scf.if. Every load is
/// issued before any of them is used, so their latencies overlap.
inline SmallVector<Value> buildTileLoads(OpBuilder &b, Location loc,
                                         ArrayRef<TileCopy> copies,
                                         ArrayRef<TileChunk> chunks,
                                         Value aligned) {
  SmallVector<Type> types;
  for (const TileChunk &chunk : chunks)
    types.push_back(VectorType::get(
        {kStagingChunk},
        cast<MemRefType>(copies[chunk.copy].source.getType())
            .getElementType()));
  return detail::buildAlignmentBranch(b, loc, aligned, types, [&](bool wide) {
    return detail::buildTileLoads(b, loc, copies, chunks, wide);
  });
}

/// The second half: stores `values` (buildTileLoads of the same chunks)
/// into the copies' tiles, one 16-byte shared store each.
inline void buildTileStores(OpBuilder &b, Location loc,
                            ArrayRef<TileCopy> copies,
                            ArrayRef<TileChunk> chunks, ValueRange values) {
  assert(chunks.size() == values.size() && "one value per chunk");
  for (auto [chunk, value] : llvm::zip_equal(chunks, values))
    vector::StoreOp::create(b, loc, value, copies[chunk.copy].tile,
                            ValueRange{chunk.row, chunk.column},
                            /*nontemporal=*/false, llvm::Align(16));
}

/// Copies every tile of `copies` with all `threads` threads of the block
/// (this one is `tid`), in a uniform scf.if on `aligned` (an i1:
/// buildAllAligned of the sources). Aligned, 16-byte loads, unrolled when
/// canUnrollTileCopies: all of a thread's loads, of every copy, before its
/// first store, so that their latencies overlap instead of adding up (a
/// loop stores each chunk before it loads the next). Otherwise element by
/// element, one loop per copy (the fallback for misaligned buffers stays
/// small).
inline void buildTileCopies(OpBuilder &b, Location loc,
                            ArrayRef<TileCopy> copies, Value tid,
                            int64_t threads, Value aligned) {
  detail::buildAlignmentBranch(b, loc, aligned, TypeRange(), [&](bool wide) {
    detail::buildTileCopies(b, loc, copies, tid, threads, wide);
    return SmallVector<Value>();
  });
}

inline void detail::buildTileCopies(OpBuilder &b, Location loc,
                                    ArrayRef<TileCopy> copies, Value tid,
                                    int64_t threads, bool wide) {
  if (wide && canUnrollTileCopies(copies, threads)) {
    SmallVector<TileChunk> chunks = getTileChunks(b, loc, copies, tid, threads);
    buildTileStores(b, loc, copies, chunks,
                    buildTileLoads(b, loc, copies, chunks, wide));
    return;
  }
  for (const TileCopy &copy : copies) {
    Value perRow = index(b, loc, copy.dim / kStagingChunk);
    scf::ForOp::create(
        b, loc, tid, index(b, loc, copy.rows * (copy.dim / kStagingChunk)),
        index(b, loc, threads), ValueRange{},
        [&](OpBuilder &nested, Location, Value e, ValueRange) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nested.getInsertionBlock(),
                              nested.getInsertionPoint());
          Value r = arith::DivUIOp::create(b, loc, e, perRow);
          Value d = arith::MulIOp::create(
              b, loc, arith::RemUIOp::create(b, loc, e, perRow),
              index(b, loc, kStagingChunk));
          vector::StoreOp::create(b, loc,
                                  loadTileChunk(b, loc, copy, r, d, wide),
                                  copy.tile, ValueRange{r, d},
                                  /*nontemporal=*/false, llvm::Align(16));
          scf::YieldOp::create(b, loc);
        });
  }
}

} // namespace mlir::kiln

#endif // KILN_LIB_CONVERSION_KILNTOGPU_TILECOPY_H
