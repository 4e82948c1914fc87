//===- Reduction.cpp - Lower kiln reductions and contractions -------------===//
//
// Reductions become `linalg.generic` ops with reduction iterators over the
// reduced dims, accumulating into a `linalg.fill`ed init tensor:
//
// - sum, max, min: one reduction. `keep_dims` reinserts the reduced dims
//   with a `tensor.expand_shape`.
// - mean: the sum, then a division by the number of reduced elements.
// - variance: two passes (the mean, then the sum of squared deviations),
//   divided by `max(0, N - correction)` as `torch.var` does.
// - argmax: one generic with two outputs, the running maximum and its index.
// - softmax, log_softmax: the row maximum, the sum of `exp(x - max)`, then an
//   elementwise generic.
// - cumsum: an `scf.forall` whose threads own disjoint parts of the result
//   and scan them in order along the axis with an `scf.for` (O(n) work).
// - matmul: `linalg.matmul` / `linalg.batch_matmul` (a generic contraction
//   for i1) with `tensor.collapse_shape` / `expand_shape` around it.
//
// Reductions accumulate in the element type of their input: f32 stays f32
// (no f64 accumulator), f64 stays f64, integers wrap around. The exception
// is f16 and bf16, which sum, mean, variance, softmax and matmul accumulate
// and compute in f32, rounding the result once, as PyTorch does and as the
// elementwise lowering computes half-precision math (max, min and argmax
// are exact and compare in the input type). On i1, sum and max are a logical or and min a
// logical and (as kiln.add on i1 is an or); max and min compare signed
// integers (i8 is PyTorch's int8). Floating-point max and min propagate NaN
// (arith.maximumf / minimumf), as torch.amax does.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "PopulatePatterns.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/Sequence.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::kiln;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Infinity of the float type `type`, negative when `negative`.
static Value infinity(OpBuilder &b, Location loc, Type type, bool negative) {
  auto floatType = cast<FloatType>(type);
  return arith::ConstantOp::create(
      b, loc,
      FloatAttr::get(type,
                     APFloat::getInf(floatType.getFloatSemantics(), negative)));
}

/// An integer constant of `type` with value `value`.
static Value intConstant(OpBuilder &b, Location loc, Type type,
                         const APInt &value) {
  return arith::ConstantOp::create(b, loc, IntegerAttr::get(type, value));
}

/// The mask of the reduced dims of a rank-`rank` tensor.
static SmallVector<bool> reducedMask(int64_t rank, ArrayRef<int64_t> axes) {
  SmallVector<bool> reduced(rank, false);
  for (int64_t axis : axes)
    reduced[axis] = true;
  return reduced;
}

/// `shape` with the dims in `reduced` dropped.
static SmallVector<int64_t> dropReduced(ArrayRef<int64_t> shape,
                                        ArrayRef<bool> reduced) {
  SmallVector<int64_t> result;
  for (auto [size, isReduced] : llvm::zip_equal(shape, reduced))
    if (!isReduced)
      result.push_back(size);
  return result;
}

/// The number of elements each reduced slice holds.
static int64_t reducedCount(ArrayRef<int64_t> shape, ArrayRef<bool> reduced) {
  int64_t count = 1;
  for (auto [size, isReduced] : llvm::zip_equal(shape, reduced))
    if (isReduced)
      count *= size;
  return count;
}

/// The map from the loops over the full shape to the kept dims.
static AffineMap keptDimsMap(ArrayRef<bool> reduced, MLIRContext *context) {
  SmallVector<AffineExpr> exprs;
  for (auto [dim, isReduced] : llvm::enumerate(reduced))
    if (!isReduced)
      exprs.push_back(getAffineDimExpr(dim, context));
  return AffineMap::get(reduced.size(), 0, exprs, context);
}

/// Combines the accumulator `acc` with the scalar inputs `args`.
using CombineFn =
    function_ref<Value(OpBuilder &, Location, Value acc, ValueRange args)>;

/// Reduces `inputs`, read through `inputMaps` inside a loop nest over
/// `loopShape`, over the dims in `reduced`, starting from `init`. The result
/// has `loopShape` with the reduced dims dropped.
static Value buildReduction(OpBuilder &b, Location loc, ValueRange inputs,
                            ArrayRef<AffineMap> inputMaps,
                            ArrayRef<int64_t> loopShape,
                            ArrayRef<bool> reduced, Value init,
                            CombineFn combine) {
  MLIRContext *context = b.getContext();
  SmallVector<int64_t> resultShape = dropReduced(loopShape, reduced);
  Value filled = buildFilled(b, loc, resultShape, init);
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(keptDimsMap(reduced, context));
  SmallVector<utils::IteratorType> iterators;
  for (bool isReduced : reduced)
    iterators.push_back(isReduced ? utils::IteratorType::reduction
                                  : utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{filled.getType()}, inputs, ValueRange{filled}, maps,
      iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value result = combine(nb, nloc, args.back(), args.drop_back());
        linalg::YieldOp::create(nb, nloc, result);
      });
  return generic.getResult(0);
}

/// `tensor` with its float elements converted to `elementType`.
static Value convertElements(OpBuilder &b, Location loc, Value tensor,
                             Type elementType) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (type.getElementType() == elementType)
    return tensor;
  return buildMap(b, loc, type.clone(elementType), tensor,
                  b.getMultiDimIdentityMap(type.getRank()),
                  [&](OpBuilder &nb, Location nloc, ValueRange args) {
                    return convertFloat(nb, nloc, args[0], elementType);
                  });
}

/// Reinserts the reduced dims of `value` (the reduced shape with the reduced
/// dims dropped) as size-1 dims when `resultType` keeps them.
static Value restoreKeptDims(OpBuilder &b, Location loc, Value value,
                             RankedTensorType resultType,
                             ArrayRef<bool> reduced) {
  if (cast<RankedTensorType>(value.getType()).getRank() ==
      resultType.getRank())
    return value;
  // Each kept dim groups with the reduced dims before it; trailing reduced
  // dims join the last group. Without kept dims the reassociation is empty.
  SmallVector<ReassociationIndices> reassociation;
  ReassociationIndices pending;
  for (auto [dim, isReduced] : llvm::enumerate(reduced)) {
    pending.push_back(dim);
    if (!isReduced) {
      reassociation.push_back(pending);
      pending.clear();
    }
  }
  if (!reassociation.empty())
    reassociation.back().append(pending.begin(), pending.end());
  return tensor::ExpandShapeOp::create(b, loc, resultType, value,
                                       reassociation);
}

namespace {

enum class SimpleKind { Sum, Max, Min };

/// The identity of the reduction `kind` on `type`.
static Value buildReductionInit(OpBuilder &b, Location loc, SimpleKind kind,
                                Type type) {
  if (isa<FloatType>(type)) {
    if (kind == SimpleKind::Sum)
      return floatConstant(b, loc, type, 0.0);
    return infinity(b, loc, type, /*negative=*/kind == SimpleKind::Max);
  }
  unsigned width = type.getIntOrFloatBitWidth();
  if (kind == SimpleKind::Sum)
    return intConstant(b, loc, type, APInt::getZero(width));
  if (width == 1) // or starts at false, and at true.
    return intConstant(b, loc, type, APInt(1, kind == SimpleKind::Min));
  return intConstant(b, loc, type,
                     kind == SimpleKind::Max ? APInt::getSignedMinValue(width)
                                             : APInt::getSignedMaxValue(width));
}

/// One step of the reduction `kind` on scalars of `type`.
static Value buildReductionStep(OpBuilder &b, Location loc, SimpleKind kind,
                                Value acc, Value x) {
  Type type = x.getType();
  if (isa<FloatType>(type)) {
    switch (kind) {
    case SimpleKind::Sum:
      return arith::AddFOp::create(b, loc, acc, x);
    case SimpleKind::Max:
      return arith::MaximumFOp::create(b, loc, acc, x);
    case SimpleKind::Min:
      return arith::MinimumFOp::create(b, loc, acc, x);
    }
  }
  if (type.isInteger(1)) {
    if (kind == SimpleKind::Min)
      return arith::AndIOp::create(b, loc, acc, x);
    return arith::OrIOp::create(b, loc, acc, x);
  }
  switch (kind) {
  case SimpleKind::Sum:
    return arith::AddIOp::create(b, loc, acc, x);
  case SimpleKind::Max:
    return arith::MaxSIOp::create(b, loc, acc, x);
  case SimpleKind::Min:
    return arith::MinSIOp::create(b, loc, acc, x);
  }
  llvm_unreachable("unknown reduction kind");
}

/// Reduces `input` over the dims in `reduced` with `kind`; the result drops
/// the reduced dims. Sums accumulate in the compute type (f32 for f16 and
/// bf16); max and min are exact in any type and keep the input's.
static Value buildSimpleReduction(OpBuilder &b, Location loc, Value input,
                                  ArrayRef<bool> reduced, SimpleKind kind) {
  auto type = cast<RankedTensorType>(input.getType());
  Type accType = kind == SimpleKind::Sum
                     ? getComputeType(type.getElementType())
                     : type.getElementType();
  Value init = buildReductionInit(b, loc, kind, accType);
  return buildReduction(
      b, loc, input, b.getMultiDimIdentityMap(type.getRank()), type.getShape(),
      reduced, init, [&](OpBuilder &nb, Location nloc, Value acc,
                         ValueRange args) {
        Value x = isa<FloatType>(accType)
                      ? convertFloat(nb, nloc, args[0], accType)
                      : args[0];
        return buildReductionStep(nb, nloc, kind, acc, x);
      });
}

/// The mean of `input` over `reduced` (dims dropped), in the compute type:
/// NaN for empty slices.
static Value buildMean(OpBuilder &b, Location loc, Value input,
                       ArrayRef<bool> reduced) {
  auto type = cast<RankedTensorType>(input.getType());
  Type elementType = getComputeType(type.getElementType());
  Value sum = buildSimpleReduction(b, loc, input, reduced, SimpleKind::Sum);
  double count = static_cast<double>(reducedCount(type.getShape(), reduced));
  auto sumType = cast<RankedTensorType>(sum.getType());
  return buildMap(b, loc, sumType, sum,
                  b.getMultiDimIdentityMap(sumType.getRank()),
                  [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
                    Value n = floatConstant(nb, nloc, elementType, count);
                    return arith::DivFOp::create(nb, nloc, args[0], n);
                  });
}

template <typename OpTy, SimpleKind Kind>
struct SimpleReductionLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    // kiln.sum, kiln.max and kiln.min all take a Kiln_Tensor input.
    assert((isa<FloatType, IntegerType>(inputType.getElementType())) &&
           "the verifier guarantees a Kiln_Tensor input (float or integer)");
    SmallVector<bool> reduced = reducedMask(inputType.getRank(), op.getAxes());
    Value result = buildSimpleReduction(rewriter, op.getLoc(),
                                        adaptor.getInput(), reduced, Kind);
    result = convertElements(rewriter, op.getLoc(), result,
                             inputType.getElementType());
    rewriter.replaceOp(op, restoreKeptDims(rewriter, op.getLoc(), result,
                                           op.getType(), reduced));
    return success();
  }
};

using SumOpLowering = SimpleReductionLowering<SumOp, SimpleKind::Sum>;
using MaxOpLowering = SimpleReductionLowering<MaxOp, SimpleKind::Max>;
using MinOpLowering = SimpleReductionLowering<MinOp, SimpleKind::Min>;

/// kiln.mean -> sum, then a division by the number of reduced elements.
struct MeanOpLowering : OpConversionPattern<MeanOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MeanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    assert(isa<FloatType>(inputType.getElementType()) &&
           "the verifier guarantees a Kiln_FloatTensor input");
    SmallVector<bool> reduced = reducedMask(inputType.getRank(), op.getAxes());
    Value mean = buildMean(rewriter, op.getLoc(), adaptor.getInput(), reduced);
    mean = convertElements(rewriter, op.getLoc(), mean,
                           inputType.getElementType());
    rewriter.replaceOp(op, restoreKeptDims(rewriter, op.getLoc(), mean,
                                           op.getType(), reduced));
    return success();
  }
};

/// kiln.variance -> the mean, the sum of squared deviations from it, then a
/// division by max(0, N - correction) (torch.var clamps the divisor at 0).
struct VarianceOpLowering : OpConversionPattern<VarianceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(VarianceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    Type elementType = inputType.getElementType();
    assert(isa<FloatType>(elementType) &&
           "the verifier guarantees a Kiln_FloatTensor input");
    SmallVector<bool> reduced = reducedMask(inputType.getRank(), op.getAxes());
    Value mean = buildMean(rewriter, loc, input, reduced);
    Type computeType = getComputeType(elementType);
    MLIRContext *context = rewriter.getContext();
    AffineMap identity = rewriter.getMultiDimIdentityMap(inputType.getRank());
    Value squares = buildReduction(
        rewriter, loc, ValueRange{input, mean},
        {identity, keptDimsMap(reduced, context)}, inputType.getShape(),
        reduced, floatConstant(rewriter, loc, computeType, 0.0),
        [&](OpBuilder &b, Location nloc, Value acc, ValueRange args) -> Value {
          Value x = convertFloat(b, nloc, args[0], computeType);
          Value d = arith::SubFOp::create(b, nloc, x, args[1]);
          Value d2 = arith::MulFOp::create(b, nloc, d, d);
          return arith::AddFOp::create(b, nloc, acc, d2);
        });
    int64_t count = reducedCount(inputType.getShape(), reduced);
    double divisor = static_cast<double>(
        std::max<int64_t>(0, count - op.getCorrectionAttr().getInt()));
    auto squaresType = cast<RankedTensorType>(squares.getType());
    Value variance = buildMap(
        rewriter, loc, squaresType.clone(elementType), squares,
        rewriter.getMultiDimIdentityMap(squaresType.getRank()),
        [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
          Value n = floatConstant(b, nloc, computeType, divisor);
          return convertFloat(b, nloc,
                              arith::DivFOp::create(b, nloc, args[0], n),
                              elementType);
        });
    rewriter.replaceOp(
        op, restoreKeptDims(rewriter, loc, variance, op.getType(), reduced));
    return success();
  }
};

/// kiln.argmax -> a generic reducing (value, index) pairs. The combiner is
/// order-independent: the larger value wins, NaN above everything, and among
/// equal values (or NaNs) the smaller index. The init pairs the identity
/// value with index INT64_MAX, so that the first element always wins over it.
struct ArgmaxOpLowering : OpConversionPattern<ArgmaxOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ArgmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    Type elementType = inputType.getElementType();
    assert((isa<FloatType, IntegerType>(elementType)) &&
           "the verifier guarantees a Kiln_Tensor input (float or integer)");
    int64_t axis = op.getAxis();
    SmallVector<bool> reduced = reducedMask(inputType.getRank(), {axis});
    SmallVector<int64_t> shape = dropReduced(inputType.getShape(), reduced);
    Type i64 = rewriter.getI64Type();

    Value initValue =
        buildReductionInit(rewriter, loc, SimpleKind::Max, elementType);
    Value initIndex = intConstant(rewriter, loc, i64, APInt::getSignedMaxValue(64));
    Value values = buildFilled(rewriter, loc, shape, initValue);
    Value indices = buildFilled(rewriter, loc, shape, initIndex);

    MLIRContext *context = rewriter.getContext();
    AffineMap kept = keptDimsMap(reduced, context);
    SmallVector<AffineMap> maps = {
        rewriter.getMultiDimIdentityMap(inputType.getRank()), kept, kept};
    SmallVector<utils::IteratorType> iterators;
    for (bool isReduced : reduced)
      iterators.push_back(isReduced ? utils::IteratorType::reduction
                                    : utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{values.getType(), indices.getType()}, input,
        ValueRange{values, indices}, maps, iterators,
        [&](OpBuilder &b, Location nloc, ValueRange args) {
          Value x = args[0], best = args[1], bestIndex = args[2];
          Value index = arith::IndexCastOp::create(
              b, nloc, i64, linalg::IndexOp::create(b, nloc, axis));
          Value earlier = arith::CmpIOp::create(
              b, nloc, arith::CmpIPredicate::slt, index, bestIndex);
          Value take;
          if (isa<FloatType>(elementType)) {
            using P = arith::CmpFPredicate;
            Value greater = arith::CmpFOp::create(b, nloc, P::OGT, x, best);
            Value equal = arith::CmpFOp::create(b, nloc, P::OEQ, x, best);
            Value xNaN = arith::CmpFOp::create(b, nloc, P::UNO, x, x);
            Value bestNaN = arith::CmpFOp::create(b, nloc, P::UNO, best, best);
            // x wins if it is NaN and best is not, or both are numbers and
            // x > best; on a tie (equal numbers, or both NaN) the earlier
            // index wins.
            Value bothNaN = arith::AndIOp::create(b, nloc, xNaN, bestNaN);
            Value tie = arith::OrIOp::create(b, nloc, equal, bothNaN);
            Value tieWin = arith::AndIOp::create(b, nloc, tie, earlier);
            Value bestNotNaN = arith::XOrIOp::create(
                b, nloc, bestNaN,
                arith::ConstantOp::create(b, nloc, b.getBoolAttr(true)));
            Value nanWin = arith::AndIOp::create(b, nloc, xNaN, bestNotNaN);
            take = arith::OrIOp::create(
                b, nloc, arith::OrIOp::create(b, nloc, greater, nanWin),
                tieWin);
          } else {
            auto predicate = elementType.isInteger(1)
                                 ? arith::CmpIPredicate::ugt
                                 : arith::CmpIPredicate::sgt;
            Value greater = arith::CmpIOp::create(b, nloc, predicate, x, best);
            Value equal = arith::CmpIOp::create(
                b, nloc, arith::CmpIPredicate::eq, x, best);
            Value tieWin = arith::AndIOp::create(b, nloc, equal, earlier);
            take = arith::OrIOp::create(b, nloc, greater, tieWin);
          }
          Value newBest = arith::SelectOp::create(b, nloc, take, x, best);
          Value newIndex =
              arith::SelectOp::create(b, nloc, take, index, bestIndex);
          linalg::YieldOp::create(b, nloc, ValueRange{newBest, newIndex});
        });
    rewriter.replaceOp(op, restoreKeptDims(rewriter, loc, generic.getResult(1),
                                           op.getType(), reduced));
    return success();
  }
};

/// kiln.softmax / kiln.log_softmax -> the maximum along the axis, the sum of
/// exp(x - max), then exp(x - max) / sum or x - max - log(sum).
template <typename OpTy, bool IsLog>
struct SoftmaxLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    // kiln.softmax and kiln.log_softmax both take a Kiln_FloatTensor input.
    assert(isa<FloatType>(inputType.getElementType()) &&
           "the verifier guarantees a Kiln_FloatTensor input");
    SmallVector<bool> reduced =
        reducedMask(inputType.getRank(), {op.getAxisAttr().getInt()});
    // The max is exact in the input type; the rest computes in the compute
    // type (f32 for f16/bf16) and rounds once at the end.
    Type elementType = inputType.getElementType();
    Type computeType = getComputeType(elementType);
    Value max =
        buildSimpleReduction(rewriter, loc, input, reduced, SimpleKind::Max);
    AffineMap identity = rewriter.getMultiDimIdentityMap(inputType.getRank());
    AffineMap kept = keptDimsMap(reduced, rewriter.getContext());
    auto shift = [&](OpBuilder &b, Location nloc, Value x, Value m) -> Value {
      return arith::SubFOp::create(b, nloc,
                                   convertFloat(b, nloc, x, computeType),
                                   convertFloat(b, nloc, m, computeType));
    };
    Value sum = buildReduction(
        rewriter, loc, ValueRange{input, max}, {identity, kept},
        inputType.getShape(), reduced,
        floatConstant(rewriter, loc, computeType, 0.0),
        [&](OpBuilder &b, Location nloc, Value acc, ValueRange args) -> Value {
          Value e = math::ExpOp::create(b, nloc, shift(b, nloc, args[0], args[1]));
          return arith::AddFOp::create(b, nloc, acc, e);
        });
    Value result = buildMap(
        rewriter, loc, inputType, ValueRange{input, max, sum},
        {identity, kept, kept},
        [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
          Value shifted = shift(b, nloc, args[0], args[1]);
          Value y;
          if (IsLog)
            y = arith::SubFOp::create(b, nloc, shifted,
                                      math::LogOp::create(b, nloc, args[2]));
          else
            y = arith::DivFOp::create(b, nloc,
                                      math::ExpOp::create(b, nloc, shifted),
                                      args[2]);
          return convertFloat(b, nloc, y, elementType);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

using SoftmaxOpLowering = SoftmaxLowering<SoftmaxOp, /*IsLog=*/false>;
using LogSoftmaxOpLowering = SoftmaxLowering<LogSoftmaxOp, /*IsLog=*/true>;

//===----------------------------------------------------------------------===//
// Cumsum
//===----------------------------------------------------------------------===//

/// The number of contiguous positions after the axis that one thread of
/// kiln.cumsum's row form owns (the last thread of a row may own fewer), as
/// kiln.index_add's row chunks.
static constexpr int64_t kCumsumRowChunk = 128;

/// One step of a cumulative sum: `acc + x` in the accumulator's type (`x`
/// widened to f32 for f16 and bf16); a logical or on i1; integers wrap.
static Value buildScanStep(OpBuilder &b, Location loc, Value acc, Value x) {
  Type accType = acc.getType();
  if (isa<FloatType>(accType))
    return arith::AddFOp::create(b, loc, acc, convertFloat(b, loc, x, accType));
  if (accType.isInteger(1))
    return arith::OrIOp::create(b, loc, acc, x);
  return arith::AddIOp::create(b, loc, acc, x);
}

/// kiln.cumsum -> an `scf.forall` whose threads own disjoint parts of the
/// result and scan them along the axis with an `scf.for`, in axis order (or
/// from the end when `reverse`): every output is the previous output of its
/// position plus the input, the first one `0 + x` (PyTorch's order, also for
/// the sign of a leading -0.0). The work is O(n); after bufferization
/// kiln's pipelines turn the forall into an `scf.parallel` (OpenMP threads on
/// the CPU, GPU threads), and no two threads touch the same element.
///
/// The two forms, chosen as kiln.index_add's (the same pass option):
/// - columns (`threadPerColumn`, for the GPU): one thread per position of
///   the non-axis dims, which carries the running sum as a scalar and
///   writes one element per step (`tensor.extract`/`insert`), rounded to
///   the element type there; consecutive threads touch consecutive
///   elements.
/// - row chunks (for the CPU): with the input seen as [outer, axis, inner],
///   one thread per outer position and chunk of `kCumsumRowChunk` contiguous
///   inner positions, which per step adds the chunk of the input row to the
///   chunk of the previous output row: contiguous reads and writes. With no
///   dims after the axis (inner = 1) a column is contiguous and the column
///   form is used.
/// Both add the same terms in the same order: the same bits.
///
/// f16 and bf16 accumulate in f32 and round each output once (PyTorch's
/// CPU kernel keeps its running sum in f32 too); the row form reads the
/// previous outputs back, so it scans an f32 copy and converts it after.
struct CumsumOpLowering : OpConversionPattern<CumsumOp> {
  CumsumOpLowering(MLIRContext *context, bool threadPerColumn)
      : OpConversionPattern(context), threadPerColumn(threadPerColumn) {}

  LogicalResult
  matchAndRewrite(CumsumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    Type elementType = type.getElementType();
    int64_t axis = op.getAxis();
    if (!isa<FloatType, IntegerType>(elementType) || axis < 0 ||
        axis >= type.getRank())
      return rewriter.notifyMatchFailure(op, "unsupported operand type");
    // Nothing to sum.
    if (type.getNumElements() == 0) {
      rewriter.replaceOp(op, input);
      return success();
    }
    Type accType =
        isa<FloatType>(elementType) ? getComputeType(elementType) : elementType;
    int64_t inner =
        ShapedType::getNumElements(type.getShape().drop_front(axis + 1));
    bool reverse = op.getReverse();
    if (threadPerColumn || inner == 1) {
      rewriter.replaceOp(
          op, buildColumns(rewriter, loc, input, axis, reverse, accType));
      return success();
    }
    Value result = buildRowChunks(rewriter, loc, input, axis, reverse, accType);
    rewriter.replaceOp(op, convertElements(rewriter, loc, result, elementType));
    return success();
  }

private:
  /// The position along the axis of step `k` of `n`: `k`, or `n - 1 - k`
  /// when `reverse`.
  static Value stepPosition(OpBuilder &b, Location loc, Value k, Value last,
                            bool reverse) {
    return reverse ? arith::SubIOp::create(b, loc, last, k).getResult() : k;
  }

  /// The column form: one thread per position of the non-axis dims (one
  /// thread for a rank-1 input, whose only dim is the axis).
  static Value buildColumns(OpBuilder &builder, Location loc, Value input,
                            int64_t axis, bool reverse, Type accType) {
    auto type = cast<RankedTensorType>(input.getType());
    Type elementType = type.getElementType();
    int64_t rank = type.getRank();
    int64_t axisSize = type.getDimSize(axis);
    Value init =
        tensor::EmptyOp::create(builder, loc, type.getShape(), elementType);
    auto scanColumn = [&](OpBuilder &builder, Location loc, ValueRange ivs,
                          Value column) -> Value {
      Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
      Value one = arith::ConstantIndexOp::create(builder, loc, 1);
      Value count = arith::ConstantIndexOp::create(builder, loc, axisSize);
      Value last = arith::ConstantIndexOp::create(builder, loc, axisSize - 1);
      Value start = buildReductionInit(builder, loc, SimpleKind::Sum, accType);
      auto loop = scf::ForOp::create(
          builder, loc, zero, count, one, ValueRange{column, start},
          [&](OpBuilder &b, Location bodyLoc, Value k, ValueRange iterArgs) {
            Value i = stepPosition(b, bodyLoc, k, last, reverse);
            SmallVector<Value> position;
            for (int64_t d = 0, outer = 0; d < rank; ++d)
              position.push_back(d == axis ? i : Value(ivs[outer++]));
            Value x = tensor::ExtractOp::create(b, bodyLoc, input, position);
            Value sum = buildScanStep(b, bodyLoc, iterArgs[1], x);
            Value out = isa<FloatType>(elementType)
                            ? convertFloat(b, bodyLoc, sum, elementType)
                            : sum;
            Value next =
                tensor::InsertOp::create(b, bodyLoc, out, iterArgs[0], i);
            scf::YieldOp::create(b, bodyLoc, ValueRange{next, sum});
          });
      return loop.getResult(0);
    };
    return buildColumnForall(builder, loc, init, axis, scanColumn);
  }

  /// The row-chunk form: one thread per position of the dims before the
  /// axis and chunk of the positions after it, which the input and the
  /// result collapse into one contiguous dim.
  static Value buildRowChunks(OpBuilder &builder, Location loc, Value input,
                              int64_t axis, bool reverse, Type accType) {
    auto type = cast<RankedTensorType>(input.getType());
    ArrayRef<int64_t> shape = type.getShape();
    int64_t rank = type.getRank();
    int64_t axisSize = shape[axis];
    int64_t inner = ShapedType::getNumElements(shape.drop_front(axis + 1));

    // [d0, ..., axis, inner]: a reshape only with several dims after the
    // axis.
    SmallVector<ReassociationIndices> groups =
        getCollapseAfterAxisGroups(rank, axis);
    SmallVector<int64_t> collapsedShape(shape.take_front(axis + 1));
    collapsedShape.push_back(inner);
    bool reshaped = rank != axis + 2;
    Value collapsed = input;
    if (reshaped)
      collapsed = tensor::CollapseShapeOp::create(
          builder, loc, type.clone(collapsedShape), input, groups);
    Value init = tensor::EmptyOp::create(builder, loc, collapsedShape, accType);

    auto scanPart = [&](OpBuilder &builder, Location loc, ValueRange outerIvs,
                        const RowChunk &chunk, Value part) -> Value {
      Value zero = chunk.zero, one = chunk.one;
      // part[i, j] = part[prev, j] + input[..., i, start + j] for j in
      // [0, width); the first row (no `prev`) is 0 + input.
      auto scanRow = [&](OpBuilder &b, Location rowLoc, Value current, Value i,
                         Value prev) -> Value {
        auto rowLoop = scf::ForOp::create(
            b, rowLoc, zero, chunk.width, one, ValueRange{current},
            [&](OpBuilder &rb, Location l, Value j, ValueRange rowArgs) {
              SmallVector<Value> position(outerIvs);
              position.push_back(i);
              if (auto offset = dyn_cast<Value>(chunk.start))
                position.push_back(arith::AddIOp::create(rb, l, offset, j));
              else
                position.push_back(j);
              Value x = tensor::ExtractOp::create(rb, l, collapsed, position);
              Value acc =
                  prev ? tensor::ExtractOp::create(rb, l, rowArgs[0],
                                                   ValueRange{prev, j})
                             .getResult()
                       : buildReductionInit(rb, l, SimpleKind::Sum, accType);
              Value sum = buildScanStep(rb, l, acc, x);
              Value next = tensor::InsertOp::create(rb, l, sum, rowArgs[0],
                                                    ValueRange{i, j});
              scf::YieldOp::create(rb, l, next);
            });
        return rowLoop.getResult(0);
      };
      Value count = arith::ConstantIndexOp::create(builder, loc, axisSize);
      Value last = arith::ConstantIndexOp::create(builder, loc, axisSize - 1);
      part = scanRow(builder, loc, part, reverse ? last : zero, Value());
      auto loop = scf::ForOp::create(
          builder, loc, one, count, one, ValueRange{part},
          [&](OpBuilder &b, Location bodyLoc, Value k, ValueRange iterArgs) {
            Value i = stepPosition(b, bodyLoc, k, last, reverse);
            Value prev =
                reverse
                    ? arith::AddIOp::create(b, bodyLoc, i, one).getResult()
                    : arith::SubIOp::create(b, bodyLoc, i, one).getResult();
            scf::YieldOp::create(b, bodyLoc,
                                 scanRow(b, bodyLoc, iterArgs[0], i, prev));
          });
      return loop.getResult(0);
    };
    Value result =
        buildRowChunkForall(builder, loc, init, kCumsumRowChunk, scanPart);
    if (reshaped)
      result = tensor::ExpandShapeOp::create(builder, loc, type.clone(accType),
                                             result, groups);
    return result;
  }

  bool threadPerColumn;
};

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

void mlir::kiln::populateReductionPatterns(RewritePatternSet &patterns,
                                           bool scanThreadPerColumn) {
  patterns.add<SumOpLowering, MeanOpLowering, MaxOpLowering, MinOpLowering,
               VarianceOpLowering, ArgmaxOpLowering, SoftmaxOpLowering,
               LogSoftmaxOpLowering, MatmulOpLowering>(patterns.getContext());
  patterns.add<CumsumOpLowering>(patterns.getContext(), scanThreadPerColumn);
}
