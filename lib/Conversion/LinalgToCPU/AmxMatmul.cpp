//===- AmxMatmul.cpp - bf16 matmuls on Intel AMX tiles ---------------------===//
//
// kiln-matmul-kernels{amx}: a bf16 x bf16 -> f32 matmul on buffers becomes a
// kernel of AMX tile ops (MLIR's `amx` dialect): `tdpbf16ps` multiplies a
// 16 x 32 tile of A by a 32 x 16 block of B (16 x 32 bf16 in the VNNI
// layout, pairs of rows interleaved) into a 16 x 16 f32 tile of C. See the
// pass description in include/kiln/Conversion/Passes.td and
// docs/CPUBackend.md, "bf16 matmuls on AMX".
//
//===----------------------------------------------------------------------===//

#include "MatmulKernels.h"

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// Rows of every tile, and f32 columns of a tile of C.
constexpr int64_t kTileRows = 16;
/// bf16 elements of one row of a tile of A: the K of one tdpbf16ps.
constexpr int64_t kTileDepth = 32;
/// Rows and columns of the block of C that one step computes in four tiles
/// (2 x 2), with two tiles of A and two of B: the eight tile registers.
constexpr int64_t kBlock = 2 * kTileRows;
/// Columns of C whose packed B (K x 256 bf16: 1 MiB at K = 2048) stays in
/// L2 while every row block of A passes.
constexpr int64_t kColumnBlock = 256;
/// bf16 elements of B that one vector of the packing loop reads from a row.
constexpr int64_t kPackLanes = 16;
constexpr int64_t kAlignment = 64;

int64_t roundUp(int64_t value, int64_t multiple) {
  return llvm::divideCeil(value, multiple) * multiple;
}

bool hasContiguousRows(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  return strides.empty() || strides.back() == 1;
}

/// Emits C += A * B for bf16 A and B and an f32 C (static shapes):
///
///   A', B', C' = A, B, C, or zero-padded copies of them where M, N, K are
///                not multiples of 32 (K of 32), A or B are transposed, or
///                rows are not contiguous
///   for each batch b, column block j1 of 256 columns:   (scf.parallel)
///     Bv = B'[b, :, j1:j1+256] in the VNNI layout       (Bv[p, 2j + q] =
///                                                        B'[2p + q, j])
///     for i0 in 0..M' step 32:
///       for j0 in j1..j1+256 step 32:
///         c[r][s] = tile C'[b, i0+16r, j0+16s]          (4 f32 tiles)
///         for k0 in 0..K' step 32:
///           a[r] = tile A'[b, i0+16r, k0:k0+32]
///           v[s] = tile Bv[k0/2, 2(j0-j1)+32s]
///           c[r][s] = tdpbf16ps(a[r], v[s], c[r][s])
///         C'[b, i0+16r, j0+16s] = c[r][s]
///   C = C'[:, :M, :N] if C' is a copy
///
/// Every element of C is the same chain of tdpbf16ps steps over K in order,
/// whatever the split over threads.
class AmxMatmulEmitter {
public:
  AmxMatmulEmitter(OpBuilder &builder, Location loc, Value a, Value bMat,
                   Value c, bool batched, MatmulLayout layout)
      : builder(builder), loc(loc), a(a), bMat(bMat), c(c), batched(batched),
        layout(layout) {
    auto aType = cast<MemRefType>(a.getType());
    auto bType = cast<MemRefType>(bMat.getType());
    int64_t rank = aType.getRank();
    batch = batched ? aType.getDimSize(0) : 1;
    m = aType.getDimSize(layout.transposeA ? rank - 1 : rank - 2);
    k = aType.getDimSize(layout.transposeA ? rank - 2 : rank - 1);
    n = bType.getDimSize(layout.transposeB ? rank - 2 : rank - 1);
    paddedM = roundUp(m, kBlock);
    paddedN = roundUp(n, kBlock);
    paddedK = roundUp(k, kTileDepth);
    bf16 = builder.getBF16Type();
    f32 = builder.getF32Type();
  }

  void emit(bool parallel) {
    auto aType = cast<MemRefType>(a.getType());
    auto bType = cast<MemRefType>(bMat.getType());
    auto cType = cast<MemRefType>(c.getType());
    bool aligned = m % kBlock == 0 && k % kTileDepth == 0;
    SmallVector<Value> copies;
    aSource = a;
    if (layout.transposeA || !aligned || !hasContiguousRows(aType))
      copies.push_back(aSource = paddedCopy(a, paddedM, paddedK, bf16,
                                            layout.transposeA));
    copies.push_back(aSource = packTilesOfA(aSource));
    bSource = bMat;
    if (layout.transposeB || k % kTileDepth || n % kBlock ||
        !hasContiguousRows(bType))
      copies.push_back(bSource = paddedCopy(bMat, paddedK, paddedN, bf16,
                                            layout.transposeB));
    cSource = c;
    bool copyC = m % kBlock || n % kBlock || !hasContiguousRows(cType);
    if (copyC)
      copies.push_back(cSource =
                           paddedCopy(c, paddedM, paddedN, f32, false));

    int64_t blocks = llvm::divideCeil(paddedN, kColumnBlock);
    if (parallel && batch * blocks > 1) {
      SmallVector<Value> lbs, ubs, steps;
      if (batched) {
        lbs.push_back(index(builder, 0));
        ubs.push_back(index(builder, batch));
        steps.push_back(index(builder, 1));
      }
      lbs.push_back(index(builder, 0));
      ubs.push_back(index(builder, blocks));
      steps.push_back(index(builder, 1));
      scf::ParallelOp::create(builder, loc, lbs, ubs, steps,
                              [&](OpBuilder &b, Location, ValueRange ivs) {
                                emitColumnBlock(b, batched ? ivs.front()
                                                           : Value(),
                                                ivs.back());
                              });
    } else {
      forLoop(builder, index(builder, 0), index(builder, batch), 1,
              [&](OpBuilder &bb, Value batchIndex) {
                forLoop(bb, index(bb, 0), index(bb, blocks), 1,
                        [&](OpBuilder &cb, Value block) {
                          emitColumnBlock(cb, batched ? batchIndex : Value(),
                                          block);
                        });
              });
    }

    if (copyC)
      linalg::CopyOp::create(builder, loc, view(builder, cSource, m, n), c);
    for (Value copy : copies)
      memref::DeallocOp::create(builder, loc, copy);
  }

private:
  Value index(OpBuilder &b, int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }

  void forLoop(OpBuilder &b, Value lb, Value ub, int64_t step,
               function_ref<void(OpBuilder &, Value)> body) {
    scf::ForOp::create(b, loc, lb, ub, index(b, step), ValueRange{},
                       [&](OpBuilder &nb, Location, Value iv, ValueRange) {
                         body(nb, iv);
                         scf::YieldOp::create(nb, loc);
                       });
  }

  SmallVector<Value> indices(Value batchIndex, Value row, Value column) {
    SmallVector<Value> result;
    if (batchIndex)
      result.push_back(batchIndex);
    result.push_back(row);
    result.push_back(column);
    return result;
  }

  /// The [rows, columns] corner of `buffer` (every batch).
  Value view(OpBuilder &b, Value buffer, int64_t rows, int64_t columns) {
    auto type = cast<MemRefType>(buffer.getType());
    int64_t rank = type.getRank();
    SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes, strides(rank, b.getIndexAttr(1));
    if (batched)
      sizes.push_back(b.getIndexAttr(batch));
    sizes.push_back(b.getIndexAttr(rows));
    sizes.push_back(b.getIndexAttr(columns));
    return memref::SubViewOp::create(b, loc, buffer, offsets, sizes, strides);
  }

  /// A zero-filled [batch,] rows x columns buffer of `element` whose corner
  /// holds `source` (transposed with `transpose`).
  Value paddedCopy(Value source, int64_t rows, int64_t columns, Type element,
                   bool transpose) {
    SmallVector<int64_t> shape;
    if (batched)
      shape.push_back(batch);
    shape.push_back(rows);
    shape.push_back(columns);
    Value buffer = memref::AllocOp::create(
        builder, loc, MemRefType::get(shape, element),
        builder.getI64IntegerAttr(kAlignment));
    Value zero =
        arith::ConstantOp::create(builder, loc, builder.getZeroAttr(element));
    linalg::FillOp::create(builder, loc, zero, buffer);
    auto sourceType = cast<MemRefType>(source.getType());
    int64_t rank = sourceType.getRank();
    int64_t sourceRows = sourceType.getDimSize(rank - (transpose ? 1 : 2));
    int64_t sourceColumns = sourceType.getDimSize(rank - (transpose ? 2 : 1));
    Value corner = view(builder, buffer, sourceRows, sourceColumns);
    if (transpose) {
      SmallVector<int64_t> permutation;
      if (batched)
        permutation.push_back(0);
      permutation.push_back(rank - 1);
      permutation.push_back(rank - 2);
      linalg::TransposeOp::create(builder, loc, source, corner, permutation);
    } else {
      linalg::CopyOp::create(builder, loc, source, corner);
    }
    return buffer;
  }

  /// A' as its tiles, each 16 x 32 contiguous ([batch,] M'/16, K'/32, 16,
  /// 32): a tile's rows 64 bytes apart, where A's own rows (often a power
  /// of two bytes apart) would all map to one set of the L1 cache.
  Value packTilesOfA(Value source) {
    SmallVector<int64_t> shape;
    if (batched)
      shape.push_back(batch);
    shape.append({paddedM / kTileRows, paddedK / kTileDepth, kTileRows,
                  kTileDepth});
    Value tiles = memref::AllocOp::create(
        builder, loc, MemRefType::get(shape, bf16),
        builder.getI64IntegerAttr(kAlignment));
    auto rowType = VectorType::get({kTileDepth}, bf16);
    forLoop(builder, index(builder, 0), index(builder, batch), 1,
            [&](OpBuilder &bb, Value batchIndex) {
              Value at = batched ? batchIndex : Value();
              forLoop(bb, index(bb, 0), index(bb, paddedM), 1,
                      [&](OpBuilder &ib, Value i) {
                        Value tileRow = arith::DivUIOp::create(
                            ib, loc, i, index(ib, kTileRows));
                        Value row = arith::RemUIOp::create(
                            ib, loc, i, index(ib, kTileRows));
                        forLoop(ib, index(ib, 0),
                                index(ib, paddedK / kTileDepth), 1,
                                [&](OpBuilder &kb, Value tileColumn) {
                                  Value k0 = arith::MulIOp::create(
                                      kb, loc, tileColumn,
                                      index(kb, kTileDepth));
                                  Value vector = vector::LoadOp::create(
                                      kb, loc, rowType, source,
                                      indices(at, i, k0));
                                  SmallVector<Value> to;
                                  if (at)
                                    to.push_back(at);
                                  to.append({tileRow, tileColumn, row,
                                             index(kb, 0)});
                                  vector::StoreOp::create(kb, loc, vector,
                                                          tiles, to);
                                });
                      });
            });
    return tiles;
  }

  /// Columns [j1, j1 + 256) of C (fewer in the last block) of one batch.
  void emitColumnBlock(OpBuilder &b, Value batchIndex, Value block) {
    int64_t blockColumns = std::min(kColumnBlock, paddedN);
    Value j1 = arith::MulIOp::create(b, loc, block, index(b, kColumnBlock));
    Value width = arith::MinSIOp::create(
        b, loc, index(b, kColumnBlock),
        arith::SubIOp::create(b, loc, index(b, paddedN), j1));
    // B' rows 2p and 2p + 1, interleaved (the bf16 pairs tdpbf16ps
    // reads), as tiles of 16 pairs x 16 columns, each contiguous:
    // [K'/32, 256/16, 16, 32].
    Value packed = memref::AllocOp::create(
        b, loc,
        MemRefType::get({paddedK / kTileDepth, blockColumns / kTileRows,
                         kTileRows, 2 * kTileRows},
                        bf16),
        b.getI64IntegerAttr(kAlignment));
    auto rowType = VectorType::get({kTileRows}, bf16);
    forLoop(b, index(b, 0), index(b, paddedK / 2), 1,
            [&](OpBuilder &pb, Value pair) {
              Value even = arith::MulIOp::create(pb, loc, pair, index(pb, 2));
              Value odd = arith::AddIOp::create(pb, loc, even, index(pb, 1));
              Value tileRow =
                  arith::DivUIOp::create(pb, loc, pair, index(pb, kTileRows));
              Value row =
                  arith::RemUIOp::create(pb, loc, pair, index(pb, kTileRows));
              forLoop(pb, index(pb, 0), width, kTileRows,
                      [&](OpBuilder &jb, Value jj) {
                        Value column = arith::AddIOp::create(jb, loc, j1, jj);
                        Value first = vector::LoadOp::create(
                            jb, loc, rowType, bSource,
                            indices(batchIndex, even, column));
                        Value second = vector::LoadOp::create(
                            jb, loc, rowType, bSource,
                            indices(batchIndex, odd, column));
                        Value pairs =
                            vector::InterleaveOp::create(jb, loc, first, second);
                        Value tileColumn = arith::DivUIOp::create(
                            jb, loc, jj, index(jb, kTileRows));
                        vector::StoreOp::create(
                            jb, loc, pairs, packed,
                            ValueRange{tileRow, tileColumn, row, index(jb, 0)});
                      });
            });

    forLoop(b, index(b, 0), index(b, paddedM), kBlock,
            [&](OpBuilder &ib, Value i0) {
              forLoop(ib, index(ib, 0), width, kBlock,
                      [&](OpBuilder &jb, Value jj) {
                        emitBlock(jb, batchIndex, packed, i0, j1, jj);
                      });
            });
    memref::DeallocOp::create(b, loc, packed);
  }

  /// The 32 x 32 block of C at (i0, j1 + jj), over all of K.
  void emitBlock(OpBuilder &b, Value batchIndex, Value packed, Value i0,
                 Value j1, Value jj) {
    auto cTile = amx::TileType::get({kTileRows, kTileRows}, f32);
    auto operandTile = amx::TileType::get({kTileRows, kTileDepth}, bf16);
    Value rows[2] = {i0, arith::AddIOp::create(b, loc, i0, index(b, kTileRows))};
    Value j0 = arith::AddIOp::create(b, loc, j1, jj);
    Value columns[2] = {j0,
                        arith::AddIOp::create(b, loc, j0, index(b, kTileRows))};
    Value tileRow = arith::DivUIOp::create(b, loc, i0, index(b, kTileRows));
    Value tileRows[2] = {tileRow,
                         arith::AddIOp::create(b, loc, tileRow, index(b, 1))};
    Value tileColumn = arith::DivUIOp::create(b, loc, jj, index(b, kTileRows));
    Value tileColumns[2] = {
        tileColumn, arith::AddIOp::create(b, loc, tileColumn, index(b, 1))};
    Value zero = index(b, 0);
    SmallVector<Value> accumulators;
    for (int r = 0; r < 2; ++r)
      for (int s = 0; s < 2; ++s)
        accumulators.push_back(amx::TileLoadOp::create(
            b, loc, cTile, cSource, indices(batchIndex, rows[r], columns[s])));
    auto loop = scf::ForOp::create(
        b, loc, index(b, 0), index(b, paddedK), index(b, kTileDepth),
        accumulators,
        [&](OpBuilder &kb, Location, Value k0, ValueRange tiles) {
          Value depthTile =
              arith::DivUIOp::create(kb, loc, k0, index(kb, kTileDepth));
          Value aTiles[2], bTiles[2];
          for (int r = 0; r < 2; ++r) {
            SmallVector<Value> at;
            if (batchIndex)
              at.push_back(batchIndex);
            at.append({tileRows[r], depthTile, zero, zero});
            aTiles[r] =
                amx::TileLoadOp::create(kb, loc, operandTile, aSource, at);
          }
          for (int s = 0; s < 2; ++s)
            bTiles[s] = amx::TileLoadOp::create(
                kb, loc, operandTile, packed,
                ValueRange{depthTile, tileColumns[s], zero, zero});
          SmallVector<Value> next;
          for (int r = 0; r < 2; ++r)
            for (int s = 0; s < 2; ++s)
              next.push_back(amx::TileMulFOp::create(
                  kb, loc, cTile, aTiles[r], bTiles[s], tiles[2 * r + s]));
          scf::YieldOp::create(kb, loc, next);
        });
    for (int r = 0; r < 2; ++r)
      for (int s = 0; s < 2; ++s)
        amx::TileStoreOp::create(b, loc, cSource,
                                 indices(batchIndex, rows[r], columns[s]),
                                 loop.getResult(2 * r + s));
  }

  OpBuilder &builder;
  Location loc;
  Value a, bMat, c;
  bool batched;
  MatmulLayout layout;
  int64_t batch, m, k, n, paddedM, paddedN, paddedK;
  Type bf16, f32;
  /// What the tiles read: the operands, or their zero-padded copies.
  Value aSource, bSource, cSource;
};

} // namespace

bool mlir::kiln::isAmxMatmul(MemRefType a, MemRefType b, MemRefType c) {
  return a.hasStaticShape() && b.hasStaticShape() && c.hasStaticShape() &&
         a.getElementType().isBF16() && b.getElementType().isBF16() &&
         c.getElementType().isF32();
}

void mlir::kiln::emitAmxMatmul(OpBuilder &builder, Location loc, Value a,
                               Value b, Value c, bool batched,
                               MatmulLayout layout, bool parallel) {
  AmxMatmulEmitter(builder, loc, a, b, c, batched, layout).emit(parallel);
}
