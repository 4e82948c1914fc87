//===- Reduction.cpp - Lower kiln reductions and scans ---------------------===//
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
//
// kiln.matmul, a contraction, is Contraction.cpp's; it accumulates as the
// reductions do.
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

} // namespace

void mlir::kiln::populateReductionPatterns(RewritePatternSet &patterns,
                                           bool scanThreadPerColumn) {
  patterns.add<SumOpLowering, MeanOpLowering, MaxOpLowering, MinOpLowering,
               VarianceOpLowering, ArgmaxOpLowering, SoftmaxOpLowering,
               LogSoftmaxOpLowering>(patterns.getContext());
  patterns.add<CumsumOpLowering>(patterns.getContext(), scanThreadPerColumn);
}
