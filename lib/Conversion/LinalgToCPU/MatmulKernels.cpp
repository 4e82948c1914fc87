//===- MatmulKernels.cpp - Register-tiled matmul kernels -----------------===//
//
// kiln-matmul-kernels: the CPU pipeline's f32/f64 matmuls on buffers (their
// operands possibly narrower floats) become register-tiled vector.fma
// kernels (see the pass description in include/kiln/Conversion/Passes.td
// and docs/CPUBackend.md).
//
//===----------------------------------------------------------------------===//

#include "MatmulKernels.h"

#include "kiln/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNMATMULKERNELSPASS
#include "kiln/Conversion/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using mlir::kiln::MatmulLayout;

namespace {

/// Rows of C per register tile.
constexpr int64_t kTileRows = 8;
/// Vectors of C per row of a register tile.
constexpr int64_t kTileVectors = 2;
/// Depth (in K) of the blocks of B that stay in L1.
constexpr int64_t kDepth = 256;
/// Bits of one vector register (AVX-512; narrower targets split each vector
/// in the LLVM backend, which stays correct).
constexpr int64_t kVectorBits = 512;
/// Alignment (bytes) of the buffers of packed blocks of B.
constexpr int64_t kPackedAlignment = 64;

/// Emits the kernels of one `linalg.matmul` or `linalg.batch_matmul` on
/// buffers with an f32 or f64 C, C += A * B:
///
///   for each batch b:
///     for j0 in 0..N step NR:        (NR = kTileVectors vectors)
///       for k0 in 0..K step KD:      (KD = kDepth)
///        for i0 in 0..M step MR:     (MR = kTileRows)
///         acc[MR][NR] = C[b, i0:, j0:]                  (vector registers)
///         for k in k0..k0+KD:
///           bv = B[b, k, j0:j0+NR]                      (kTileVectors loads)
///           for r: acc[r] += broadcast(A[b, i0+r, k]) * bv    (vector.fma)
///         C[b, i0:, j0:] = acc
///
/// The block of B (KD x NR) stays in L1 while every row block of A passes.
/// The last row block has M % MR rows, the last column tile N % NR columns
/// with masked loads and stores. A transposed A is read at [b, k, i0+r] (the
/// rows of a tile are then neighbours); a transposed B is always packed, by
/// a transposing copy, so the tiles read it as they read any packed B.
///
/// A and B may have a narrower float type than C (f16 or bf16 operands of an
/// f32 accumulator, as the attention lowerings build them): the named ops
/// extend each operand to C's type before multiplying, and so do the
/// kernels: each element or vector as it is loaded, so packed blocks of B
/// hold C's type.
class MatmulKernelEmitter {
public:
  MatmulKernelEmitter(OpBuilder &b, Location loc, Value a, Value bMat, Value c,
                      bool batched, MatmulLayout layout)
      : builder(b), loc(loc), a(a), bMat(bMat), c(c), batched(batched),
        layout(layout) {
    auto aType = cast<MemRefType>(a.getType());
    auto bType = cast<MemRefType>(bMat.getType());
    int64_t rank = aType.getRank();
    batch = batched ? aType.getDimSize(0) : 1;
    m = aType.getDimSize(layout.transposeA ? rank - 1 : rank - 2);
    k = aType.getDimSize(layout.transposeA ? rank - 2 : rank - 1);
    n = bType.getDimSize(layout.transposeB ? rank - 2 : rank - 1);
    elementType = cast<MemRefType>(c.getType()).getElementType();
    lanes = kVectorBits / elementType.getIntOrFloatBitWidth();
    vectorType = VectorType::get({lanes}, elementType);
  }

  /// The type of the buffer that holds one packed block of B.
  MemRefType getPackedType() const {
    return MemRefType::get({kDepth, lanes * kTileVectors}, elementType);
  }

  /// Whether blocks of B are packed: worth it when more than one row block
  /// of A reads each of them, and needed when B is transposed.
  bool usesPacking() const { return m > kTileRows || layout.transposeB; }

  /// Sets the buffer for packed blocks of B (of getPackedType()).
  void setPackedBuffer(Value buffer) { packed = buffer; }

  void emit() {
    if (!batched) {
      emitMatrix(builder, Value());
      return;
    }
    forLoop(builder, 0, batch, 1,
            [&](OpBuilder &b, Value index) { emitMatrix(b, index); });
  }

  /// The number of column tiles (of NR columns) of C, the last one partial.
  int64_t getNumColumnTiles() const {
    return llvm::divideCeil(n, lanes * kTileVectors);
  }
  int64_t getBatch() const { return batch; }

  /// emit() with the column tiles of C (of every batch) as the iterations
  /// of one scf.parallel: each computes its columns of C exactly as emit()
  /// does, packing its blocks of B into a buffer of its own (allocated in
  /// its body), so C does not depend on how the iterations are split.
  void emitParallel() {
    int64_t tileColumns = lanes * kTileVectors;
    int64_t mainTiles = n / tileColumns;
    SmallVector<Value> lbs, ubs, steps;
    if (batched) {
      lbs.push_back(index(builder, 0));
      ubs.push_back(index(builder, batch));
      steps.push_back(index(builder, 1));
    }
    lbs.push_back(index(builder, 0));
    ubs.push_back(index(builder, getNumColumnTiles()));
    steps.push_back(index(builder, 1));
    scf::ParallelOp::create(
        builder, loc, lbs, ubs, steps,
        [&](OpBuilder &b, Location, ValueRange ivs) {
          Value batchIndex = batched ? ivs.front() : Value();
          Value tile = ivs.back();
          Value j0 =
              arith::MulIOp::create(b, loc, tile, index(b, tileColumns));
          if (usesPacking())
            packed = memref::AllocOp::create(
                b, loc, getPackedType(),
                IntegerAttr::get(b.getI64Type(), kPackedAlignment));
          int64_t lastWidth = n % tileColumns;
          if (lastWidth == 0 || mainTiles == 0) {
            emitColumnBlock(b, batchIndex, j0,
                            mainTiles == 0 ? lastWidth : tileColumns);
          } else {
            Value full = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                               tile, index(b, mainTiles));
            scf::IfOp::create(
                b, loc, full,
                [&](OpBuilder &tb, Location) {
                  emitColumnBlock(tb, batchIndex, j0, tileColumns);
                  scf::YieldOp::create(tb, loc);
                },
                [&](OpBuilder &eb, Location) {
                  emitColumnBlock(eb, batchIndex, j0, lastWidth);
                  scf::YieldOp::create(eb, loc);
                });
          }
          if (packed)
            memref::DeallocOp::create(b, loc, packed);
        });
  }

private:
  /// Extends `value` (a scalar or vector of a narrower float type) to C's
  /// element type, as the named ops' bodies do; returns it as is otherwise.
  Value extend(OpBuilder &b, Value value) {
    Type type = elementType;
    if (auto vector = dyn_cast<VectorType>(value.getType()))
      type = VectorType::get(vector.getShape(), elementType);
    if (value.getType() == type)
      return value;
    return arith::ExtFOp::create(b, loc, type, value);
  }

  Value index(OpBuilder &b, int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }

  /// An scf.for from `lb` to `ub` (static) with no iter_args.
  void forLoop(OpBuilder &b, int64_t lb, int64_t ub, int64_t step,
               function_ref<void(OpBuilder &, Value)> body) {
    if (lb >= ub)
      return;
    scf::ForOp::create(b, loc, index(b, lb), index(b, ub), index(b, step),
                       ValueRange{},
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

  void emitMatrix(OpBuilder &b, Value batchIndex) {
    int64_t tileColumns = lanes * kTileVectors;
    int64_t mainColumns = n - n % tileColumns;
    forLoop(b, 0, mainColumns, tileColumns, [&](OpBuilder &cb, Value j0) {
      emitColumnBlock(cb, batchIndex, j0, tileColumns);
    });
    if (n % tileColumns)
      emitColumnBlock(b, batchIndex, index(b, mainColumns), n % tileColumns);
  }

  /// Columns [j0, j0 + width) of C, over every block of K.
  void emitColumnBlock(OpBuilder &b, Value batchIndex, Value j0,
                       int64_t width) {
    int64_t mainDepth = k - k % kDepth;
    forLoop(b, 0, mainDepth, kDepth, [&](OpBuilder &kb, Value k0) {
      Value k1 = arith::AddIOp::create(kb, loc, k0, index(kb, kDepth));
      emitDepthBlock(kb, batchIndex, j0, width, k0, k1);
    });
    // The last, partial block of K; also the only one when K = 0, where
    // the tiles still run to leave C (zeros) as it is.
    if (k % kDepth || k == 0)
      emitDepthBlock(b, batchIndex, j0, width, index(b, mainDepth),
                     index(b, k));
  }

  /// All row blocks for one block of K: the K x NR strip of B is revisited
  /// by every row block, so it is cut into kDepth-deep pieces that stay in
  /// L1 (and touch few pages when rows of B are far apart).
  void emitDepthBlock(OpBuilder &b, Value batchIndex, Value j0, int64_t width,
                      Value kLo, Value kHi) {
    int64_t mainRows = m - m % kTileRows;
    if (packed)
      emitPack(b, batchIndex, j0, width, kLo, kHi);
    forLoop(b, 0, mainRows, kTileRows, [&](OpBuilder &rb, Value i0) {
      emitTile(rb, batchIndex, i0, j0, kTileRows, width, kLo, kHi);
    });
    if (m % kTileRows)
      emitTile(b, batchIndex, index(b, mainRows), j0, m % kTileRows, width,
               kLo, kHi);
  }

  /// The masks of the vectors of a row of `width` columns (null: all
  /// lanes).
  SmallVector<Value> getMasks(OpBuilder &b, int64_t width) {
    SmallVector<Value> masks;
    auto maskType = VectorType::get({lanes}, b.getI1Type());
    for (int64_t v = 0; v * lanes < width; ++v) {
      int64_t active = std::min(lanes, width - v * lanes);
      masks.push_back(active == lanes
                          ? Value()
                          : Value(vector::ConstantMaskOp::create(
                                b, loc, maskType, ArrayRef<int64_t>{active})));
    }
    return masks;
  }

  /// Loads a vector of `lanes` elements of `memref` at `at`, masked (with
  /// zeros in the masked-off lanes) when `mask` is set, and extends it to
  /// C's element type.
  Value load(OpBuilder &b, Value memref, ValueRange at, Value mask) {
    Type memrefElement = cast<MemRefType>(memref.getType()).getElementType();
    auto type = VectorType::get({lanes}, memrefElement);
    if (!mask)
      return extend(b, vector::LoadOp::create(b, loc, type, memref, at));
    Value zero = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(type, b.getZeroAttr(memrefElement)));
    return extend(
        b, vector::MaskedLoadOp::create(b, loc, type, memref, at, mask, zero));
  }

  /// Copies B[k, j0 : j0 + width] for k in [kLo, kHi) to rows 0.. of the
  /// packed buffer: contiguous rows that map to distinct cache sets however
  /// far apart (a power of two, often) the rows of B are.
  void emitPack(OpBuilder &b, Value batchIndex, Value j0, int64_t width,
                Value kLo, Value kHi) {
    if (layout.transposeB)
      return emitTransposingPack(b, batchIndex, j0, width, kLo, kHi);
    SmallVector<Value> masks = getMasks(b, width);
    scf::ForOp::create(
        b, loc, kLo, kHi, index(b, 1), ValueRange{},
        [&](OpBuilder &lb, Location, Value kk, ValueRange) {
          Value row = arith::SubIOp::create(lb, loc, kk, kLo);
          for (auto [v, mask] : llvm::enumerate(masks)) {
            Value column =
                arith::AddIOp::create(lb, loc, j0, index(lb, v * lanes));
            Value vector =
                load(lb, bMat, indices(batchIndex, kk, column), mask);
            vector::StoreOp::create(lb, loc, vector, packed,
                                    ValueRange{row, index(lb, v * lanes)});
          }
          scf::YieldOp::create(lb, loc);
        });
  }

  /// emitPack for a transposed B ([N, K]): element by element, B[j0 + c, k]
  /// to row k - kLo, column c of the packed buffer, and zeros in the columns
  /// from `width` to the tile's width, which the tiles read (into lanes they
  /// do not store).
  void emitTransposingPack(OpBuilder &b, Value batchIndex, Value j0,
                           int64_t width, Value kLo, Value kHi) {
    int64_t tileColumns = lanes * kTileVectors;
    SmallVector<Value> columns;
    for (int64_t col = 0; col < width; ++col)
      columns.push_back(arith::AddIOp::create(b, loc, j0, index(b, col)));
    Value zero = width < tileColumns ? Value(arith::ConstantOp::create(
                                           b, loc, b.getZeroAttr(elementType)))
                                     : Value();
    scf::ForOp::create(
        b, loc, kLo, kHi, index(b, 1), ValueRange{},
        [&](OpBuilder &lb, Location, Value kk, ValueRange) {
          Value row = arith::SubIOp::create(lb, loc, kk, kLo);
          for (int64_t col = 0; col < tileColumns; ++col) {
            Value element =
                col < width ? extend(lb, memref::LoadOp::create(
                                             lb, loc, bMat,
                                             indices(batchIndex,
                                                     columns[col], kk)))
                            : zero;
            memref::StoreOp::create(lb, loc, element, packed,
                                    ValueRange{row, index(lb, col)});
          }
          scf::YieldOp::create(lb, loc);
        });
  }

  /// One register tile of `rows` x `width` elements of C at (i0, j0).
  /// Accumulates over k in [kLo, kHi), reading B from the packed block when
  /// there is one.
  void emitTile(OpBuilder &b, Value batchIndex, Value i0, Value j0,
                int64_t rows, int64_t width, Value kLo, Value kHi) {
    SmallVector<Value> masks = getMasks(b, width);
    int64_t vectors = masks.size();
    SmallVector<Value> columns, rowIndices;
    for (int64_t v = 0; v < vectors; ++v)
      columns.push_back(arith::AddIOp::create(b, loc, j0, index(b, v * lanes)));
    for (int64_t r = 0; r < rows; ++r)
      rowIndices.push_back(arith::AddIOp::create(b, loc, i0, index(b, r)));

    SmallVector<Value> accs;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t v = 0; v < vectors; ++v)
        accs.push_back(load(
            b, c, indices(batchIndex, rowIndices[r], columns[v]), masks[v]));

    auto loop = scf::ForOp::create(
        b, loc, kLo, kHi, index(b, 1), accs,
        [&](OpBuilder &lb, Location, Value kk, ValueRange iterArgs) {
          SmallVector<Value> bVectors;
          Value packedRow =
              packed ? Value(arith::SubIOp::create(lb, loc, kk, kLo)) : Value();
          for (int64_t v = 0; v < vectors; ++v)
            bVectors.push_back(
                packed ? Value(vector::LoadOp::create(
                             lb, loc, vectorType, packed,
                             ValueRange{packedRow, index(lb, v * lanes)}))
                       : load(lb, bMat, indices(batchIndex, kk, columns[v]),
                              masks[v]));
          SmallVector<Value> next;
          for (int64_t r = 0; r < rows; ++r) {
            Value scalar = extend(
                lb, memref::LoadOp::create(
                        lb, loc, a,
                        layout.transposeA
                            ? indices(batchIndex, kk, rowIndices[r])
                            : indices(batchIndex, rowIndices[r], kk)));
            Value splat =
                vector::BroadcastOp::create(lb, loc, vectorType, scalar);
            for (int64_t v = 0; v < vectors; ++v)
              next.push_back(vector::FMAOp::create(lb, loc, splat, bVectors[v],
                                                   iterArgs[r * vectors + v]));
          }
          scf::YieldOp::create(lb, loc, next);
        });

    for (int64_t r = 0; r < rows; ++r)
      for (int64_t v = 0; v < vectors; ++v) {
        Value acc = loop.getResult(r * vectors + v);
        SmallVector<Value> at = indices(batchIndex, rowIndices[r], columns[v]);
        if (masks[v])
          vector::MaskedStoreOp::create(b, loc, c, at, masks[v], acc);
        else
          vector::StoreOp::create(b, loc, acc, c, at);
      }
  }

  OpBuilder &builder;
  Location loc;
  Value a, bMat, c;
  bool batched;
  MatmulLayout layout;
  int64_t batch, m, k, n, lanes;
  Type elementType;
  VectorType vectorType;
  /// The buffer of a packed block of B, or null.
  Value packed;
};

/// Whether `type` is a statically shaped memref whose innermost dim is
/// contiguous.
static bool hasContiguousRows(MemRefType type) {
  if (!type.hasStaticShape())
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  return strides.empty() || strides.back() == 1;
}

/// The layout of a `linalg.matmul` or `linalg.batch_matmul` whose indexing
/// maps are the default ones, or the default ones with A and/or B
/// transposed; std::nullopt for any other op or maps (broadcasts, a
/// transposed C).
static std::optional<MatmulLayout> getMatmulLayout(linalg::LinalgOp op) {
  if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()))
    return std::nullopt;
  // (m, n, k), after the batch dim of a batch_matmul.
  unsigned numBatchDims = isa<linalg::BatchMatmulOp>(op.getOperation());
  unsigned numDims = numBatchDims + 3;
  MLIRContext *ctx = op.getContext();
  auto map = [&](ArrayRef<unsigned> dims) {
    SmallVector<AffineExpr> exprs;
    for (unsigned d = 0; d < numBatchDims; ++d)
      exprs.push_back(getAffineDimExpr(d, ctx));
    for (unsigned d : dims)
      exprs.push_back(getAffineDimExpr(numBatchDims + d, ctx));
    return AffineMap::get(numDims, 0, exprs, ctx);
  };
  enum { M, N, K };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps.size() != 3 || maps[2] != map({M, N}))
    return std::nullopt;
  MatmulLayout layout;
  if (maps[0] == map({K, M}))
    layout.transposeA = true;
  else if (maps[0] != map({M, K}))
    return std::nullopt;
  if (maps[1] == map({N, K}))
    layout.transposeB = true;
  else if (maps[1] != map({K, N}))
    return std::nullopt;
  return layout;
}

/// Whether the kernels take an operand of element type `operand` in a
/// matmul whose C has element type `result`: C is f32 or f64, and the
/// operand is f16, bf16, f32 or f64 and no wider than C (the named ops then
/// extend it to C's type).
static bool extendsTo(Type operand, Type result) {
  if (!(result.isF32() || result.isF64()))
    return false;
  if (!(operand.isF16() || operand.isBF16() || operand.isF32() ||
        operand.isF64()))
    return false;
  return operand.getIntOrFloatBitWidth() <= result.getIntOrFloatBitWidth();
}

/// The nearest op around `op` whose threads or iterations may run at the
/// same time (omp.parallel, scf.parallel, scf.forall); null for none.
static Operation *getEnclosingParallelOp(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    if (isa<omp::ParallelOp, scf::ParallelOp, scf::ForallOp>(parent))
      return parent;
  return nullptr;
}

/// Replaces `linalg.matmul` / `linalg.batch_matmul` ops on buffers with an
/// f32/f64 C and float operands no wider than C (default indexing maps or A
/// and/or B transposed, static shapes, contiguous rows of C and of an
/// untransposed B) with register-tiled vector kernels; other matmuls stay
/// for convert-linalg-to-loops. With `parallel`, the column tiles of a
/// matmul that no parallel op encloses are an scf.parallel.
struct KilnMatmulKernelsPass
    : kiln::impl::KilnMatmulKernelsPassBase<KilnMatmulKernelsPass> {
  using Base::Base;

  /// The buffer of packed blocks of B, of `type`, for the matmuls whose
  /// nearest parallel op is `scope` (null: none), shared by those matmuls,
  /// which run one after the other: a stack buffer (32 KiB) in the entry
  /// block of the function, so that loops around a matmul do not grow the
  /// stack, or of each thread of an omp.parallel (in its region); an
  /// allocation in the body of each iteration of an scf.parallel or
  /// scf.forall (whose body becomes an OpenMP loop body, where a stack
  /// buffer would need a scope of its own, which the bodies' loops break).
  Value getPackedBuffer(Operation *scope, MemRefType type) {
    Value &buffer = packedBuffers[{scope, type}];
    if (buffer)
      return buffer;
    Location loc = getOperation().getLoc();
    auto alignment = IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                      kPackedAlignment);
    if (!scope || isa<omp::ParallelOp>(scope)) {
      Block *entry = scope ? &scope->getRegion(0).front()
                           : &getOperation().front();
      OpBuilder b = OpBuilder::atBlockBegin(entry);
      buffer = memref::AllocaOp::create(b, loc, type, alignment);
      return buffer;
    }
    Block *body = &scope->getRegion(0).front();
    OpBuilder b = OpBuilder::atBlockBegin(body);
    buffer = memref::AllocOp::create(b, loc, type, alignment);
    b.setInsertionPoint(body->getTerminator());
    memref::DeallocOp::create(b, loc, buffer);
    return buffer;
  }

  void runOnOperation() override {
    SmallVector<std::pair<linalg::LinalgOp, MatmulLayout>> matmuls;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (std::optional<MatmulLayout> layout = getMatmulLayout(op))
        matmuls.emplace_back(op, *layout);
    });
    packedBuffers.clear();
    for (auto [op, layout] : matmuls) {
      if (!op.hasPureBufferSemantics())
        continue;
      Value a = op.getDpsInputOperand(0)->get();
      Value b = op.getDpsInputOperand(1)->get();
      Value c = op.getDpsInitOperand(0)->get();
      auto aType = dyn_cast<MemRefType>(a.getType());
      auto bType = dyn_cast<MemRefType>(b.getType());
      auto cType = dyn_cast<MemRefType>(c.getType());
      Operation *scope = getEnclosingParallelOp(op);
      // With `amx`, bf16 x bf16 -> f32 matmuls run on AMX tiles (any
      // strides: the kernel copies what its tiles cannot read in place).
      if (amx && aType && bType && cType &&
          kiln::isAmxMatmul(aType, bType, cType)) {
        OpBuilder builder(op);
        kiln::emitAmxMatmul(builder, op.getLoc(), a, b, c,
                            isa<linalg::BatchMatmulOp>(op.getOperation()),
                            layout, parallel && !scope);
        op->erase();
        continue;
      }
      // A and a transposed B are read element by element (any strides);
      // an untransposed B and C by vectors along their rows.
      if (!aType || !bType || !cType || !aType.hasStaticShape() ||
          !bType.hasStaticShape() || !hasContiguousRows(cType) ||
          (!layout.transposeB && !hasContiguousRows(bType)))
        continue;
      Type elementType = cType.getElementType();
      if (!extendsTo(aType.getElementType(), elementType) ||
          !extendsTo(bType.getElementType(), elementType))
        continue;
      OpBuilder builder(op);
      MatmulKernelEmitter emitter(builder, op.getLoc(), a, b, c,
                                  isa<linalg::BatchMatmulOp>(op.getOperation()),
                                  layout);
      // With `parallel`, a matmul that no parallel op encloses runs its
      // column tiles on threads; one inside such an op (attention's, in
      // the forall of its query blocks) runs in its thread.
      if (parallel && !scope &&
          emitter.getBatch() * emitter.getNumColumnTiles() > 1) {
        emitter.emitParallel();
      } else {
        if (emitter.usesPacking())
          emitter.setPackedBuffer(
              getPackedBuffer(scope, emitter.getPackedType()));
        emitter.emit();
      }
      op->erase();
    }
  }

  DenseMap<std::pair<Operation *, Type>, Value> packedBuffers;
};

} // namespace
