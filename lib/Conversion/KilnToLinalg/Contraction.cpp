//===- Contraction.cpp - Lower kiln.matmul ---------------------------------===//
//
// kiln.matmul becomes `linalg.matmul` / `linalg.batch_matmul` (a generic
// contraction for i1) with `tensor.collapse_shape` / `expand_shape` around
// it. It accumulates as the reductions (Reduction.cpp) do: in the element
// type of its operands, except f16 and bf16, which accumulate in f32 and
// round the result once, as PyTorch does.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "PopulatePatterns.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::kiln;

namespace {

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

/// Reshapes `value` to `shape` by collapsing (or, when `expand`, expanding)
/// along `reassociation`.
static Value reshape(OpBuilder &b, Location loc, Value value,
                     ArrayRef<int64_t> shape,
                     ArrayRef<ReassociationIndices> reassociation,
                     bool expand) {
  auto type = RankedTensorType::get(
      shape, cast<RankedTensorType>(value.getType()).getElementType());
  if (expand)
    return tensor::ExpandShapeOp::create(b, loc, type, value, reassociation);
  return tensor::CollapseShapeOp::create(b, loc, type, value, reassociation);
}

/// Reassociation that groups dims [0, leading] into one and keeps the rest:
/// collapses `leading + 1` leading dims of a rank-`rank` tensor.
static SmallVector<ReassociationIndices>
collapseLeading(int64_t leading, int64_t rank) {
  SmallVector<ReassociationIndices> reassociation;
  ReassociationIndices first;
  for (int64_t i = 0; i <= leading; ++i)
    first.push_back(i);
  reassociation.push_back(first);
  for (int64_t i = leading + 1; i < rank; ++i)
    reassociation.push_back({i});
  return reassociation;
}

/// Materializes `value` broadcast to `shape` (NumPy rules) with a generic
/// copy; returns `value` when it already has that shape.
static Value broadcastTo(OpBuilder &b, Location loc, Value value,
                         ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  return buildMap(
      b, loc, resultType, value,
      getBroadcastIndexingMap(type.getShape(), shape, b.getContext()),
      [](OpBuilder &, Location, ValueRange args) { return args[0]; });
}

/// The product of `lhs` ([B, M, K] or [M, K]) and `rhs` ([B, K, N] or
/// [K, N]), both of the same rank: linalg.batch_matmul / linalg.matmul, or
/// for i1 a generic or-of-ands contraction.
static Value buildContraction(OpBuilder &b, Location loc, Value lhs,
                              Value rhs) {
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  Type elementType = lhsType.getElementType();
  bool batched = lhsType.getRank() == 3;
  SmallVector<int64_t> shape(lhsType.getShape().drop_back());
  shape.push_back(rhsType.getShape().back());
  if (isa<FloatType>(elementType) &&
      getComputeType(elementType) != elementType) {
    // f16/bf16: the named op extends the operands and accumulates into an
    // f32 init; the product rounds once.
    Type computeType = getComputeType(elementType);
    Value init = buildFilled(b, loc, shape,
                             floatConstant(b, loc, computeType, 0.0));
    Value product =
        batched ? linalg::BatchMatmulOp::create(b, loc, TypeRange{init.getType()},
                                                ValueRange{lhs, rhs},
                                                ValueRange{init})
                      .getResult(0)
                : linalg::MatmulOp::create(b, loc, TypeRange{init.getType()},
                                           ValueRange{lhs, rhs},
                                           ValueRange{init})
                      .getResult(0);
    return convertElements(b, loc, product, elementType);
  }
  Value zero = isa<FloatType>(elementType)
                   ? floatConstant(b, loc, elementType, 0.0)
                   : intConstant(b, loc, elementType,
                                 APInt::getZero(elementType.getIntOrFloatBitWidth()));
  Value init = buildFilled(b, loc, shape, zero);
  auto resultType = cast<RankedTensorType>(init.getType());
  if (!elementType.isInteger(1)) {
    if (batched)
      return linalg::BatchMatmulOp::create(b, loc, TypeRange{resultType},
                                           ValueRange{lhs, rhs},
                                           ValueRange{init})
          .getResult(0);
    return linalg::MatmulOp::create(b, loc, TypeRange{resultType},
                                    ValueRange{lhs, rhs}, ValueRange{init})
        .getResult(0);
  }
  // Booleans: result[m, n] = or_k (lhs[m, k] and rhs[k, n]).
  MLIRContext *context = b.getContext();
  unsigned loops = batched ? 4 : 3;
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  unsigned first = batched ? 1 : 0; // m, n, k are dims first..first+2.
  SmallVector<AffineExpr> batch;
  if (batched)
    batch.push_back(d(0));
  auto map = [&](AffineExpr x, AffineExpr y) {
    SmallVector<AffineExpr> exprs(batch);
    exprs.push_back(x);
    exprs.push_back(y);
    return AffineMap::get(loops, 0, exprs, context);
  };
  AffineExpr m = d(first), n = d(first + 1), k = d(first + 2);
  SmallVector<AffineMap> maps = {map(m, k), map(k, n), map(m, n)};
  SmallVector<utils::IteratorType> iterators(loops,
                                             utils::IteratorType::parallel);
  iterators.back() = utils::IteratorType::reduction;
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, ValueRange{lhs, rhs}, ValueRange{init},
      maps, iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value both = arith::AndIOp::create(nb, nloc, args[0], args[1]);
        linalg::YieldOp::create(nb, nloc,
                                Value(arith::OrIOp::create(nb, nloc, args[2], both)));
      });
  return generic.getResult(0);
}

/// kiln.matmul with NumPy rules. Rank-1 operands are reshaped to matrices
/// ([K] -> [1, K] on the left, [K, 1] on the right). When `rhs` has no batch
/// (or only size-1 batch dims), the batch dims of `lhs` fold into M: one
/// linalg.matmul on [B*M, K] x [K, N]. Otherwise both operands are broadcast
/// to the common batch shape (materialized only when they differ), the batch
/// dims collapse into one, and linalg.batch_matmul computes [B, M, N]. The
/// result is reshaped back, dropping the dims added for rank-1 operands.
struct MatmulOpLowering : OpConversionPattern<MatmulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    auto lhsType = cast<RankedTensorType>(lhs.getType());
    auto rhsType = cast<RankedTensorType>(rhs.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    assert((isa<FloatType, IntegerType>(lhsType.getElementType())) &&
           "the verifier guarantees Kiln_Tensor operands (float or integer)");

    // Promote rank-1 operands to matrices.
    SmallVector<int64_t> lhsShape(lhsType.getShape());
    SmallVector<int64_t> rhsShape(rhsType.getShape());
    if (lhsShape.size() == 1) {
      lhsShape.insert(lhsShape.begin(), 1);
      lhs = reshape(rewriter, loc, lhs, lhsShape, {{0, 1}}, /*expand=*/true);
    }
    if (rhsShape.size() == 1) {
      rhsShape.push_back(1);
      rhs = reshape(rewriter, loc, rhs, rhsShape, {{0, 1}}, /*expand=*/true);
    }
    int64_t m = lhsShape[lhsShape.size() - 2];
    int64_t k = lhsShape.back();
    int64_t n = rhsShape.back();
    ArrayRef<int64_t> lhsBatch = ArrayRef(lhsShape).drop_back(2);
    ArrayRef<int64_t> rhsBatch = ArrayRef(rhsShape).drop_back(2);
    std::optional<SmallVector<int64_t>> batch =
        broadcastShapes(lhsBatch, rhsBatch);
    if (!batch)
      return rewriter.notifyMatchFailure(op, "batch dims do not broadcast");
    int64_t batchSize = 1;
    for (int64_t size : *batch)
      batchSize *= size;

    // The product as [batch..., M, N].
    SmallVector<int64_t> productShape(*batch);
    productShape.push_back(m);
    productShape.push_back(n);
    Value product;
    bool rhsIsMatrix = llvm::all_of(rhsBatch, [](int64_t s) { return s == 1; });
    if (rhsIsMatrix) {
      // [Bl..., M, K] x [K, N]: fold the batch of lhs into the rows.
      if (!rhsBatch.empty())
        rhs = reshape(rewriter, loc, rhs, {k, n},
                      collapseLeading(rhsBatch.size(), rhsShape.size()),
                      /*expand=*/false);
      if (!lhsBatch.empty())
        lhs = reshape(rewriter, loc, lhs, {batchSize * m, k},
                      collapseLeading(lhsBatch.size(), lhsShape.size()),
                      /*expand=*/false);
      product = buildContraction(rewriter, loc, lhs, rhs);
      // [B*M, N] -> [batch..., M, N]; the batch may have gained unit dims
      // from rhs.
      if (!batch->empty())
        product = reshape(rewriter, loc, product, productShape,
                          collapseLeading(batch->size(), productShape.size()),
                          /*expand=*/true);
    } else {
      SmallVector<int64_t> lhsFull(*batch), rhsFull(*batch);
      lhsFull.append({m, k});
      rhsFull.append({k, n});
      lhs = broadcastTo(rewriter, loc, lhs, lhsFull);
      rhs = broadcastTo(rewriter, loc, rhs, rhsFull);
      int64_t batchRank = batch->size();
      SmallVector<ReassociationIndices> collapse =
          collapseLeading(batchRank - 1, batchRank + 2);
      if (batchRank != 1) {
        lhs = reshape(rewriter, loc, lhs, {batchSize, m, k}, collapse, false);
        rhs = reshape(rewriter, loc, rhs, {batchSize, k, n}, collapse, false);
      }
      product = buildContraction(rewriter, loc, lhs, rhs);
      if (batchRank != 1)
        product = reshape(rewriter, loc, product, productShape, collapse,
                          /*expand=*/true);
    }

    // Drop the unit dim added for a rank-1 operand: [..., 1, N] -> [..., N]
    // or [..., M, 1] -> [..., M]; two rank-1 operands give rank 0.
    if (resultType.getShape() != ArrayRef(productShape)) {
      int64_t rank = productShape.size();
      SmallVector<ReassociationIndices> reassociation;
      if (resultType.getRank() > 0) {
        for (int64_t i = 0; i < rank - 2; ++i)
          reassociation.push_back({i});
        reassociation.push_back({rank - 2, rank - 1});
      }
      product = reshape(rewriter, loc, product, resultType.getShape(),
                        reassociation, /*expand=*/false);
    }
    rewriter.replaceOp(op, product);
    return success();
  }
};

} // namespace

void mlir::kiln::populateContractionPatterns(RewritePatternSet &patterns) {
  patterns.add<MatmulOpLowering>(patterns.getContext());
}
