//===- NN.cpp - Lower kiln training helpers -------------------------------===//
//
// cross_entropy, layer_norm and rms_norm become a few `linalg.generic` ops:
// row reductions (with reduction iterators, into `linalg.fill`ed inits) and
// parallel generics that read the per-row statistics through projected maps.
// Like the reductions (Reduction.cpp), everything accumulates and computes in
// the element type of the input (f32 stays f32), except f16 and bf16, which
// compute in f32 and round the result once, as PyTorch does. Dropout is lowered elsewhere (Attention.cpp
// owns the Philox RNG).
//
// - cross_entropy: the numerically stable log-softmax of each row (row max,
//   then log of the sum of exp(x - max)); the label's logit is read with a
//   tensor.extract. A label outside [0, C) that is not ignore_index gives a
//   NaN loss for its sample (the index is clamped so no memory outside the
//   logits is read): kiln calls this a run-time error of the values, and NaN
//   is how it shows. `mean` divides by the number of non-ignored samples
//   (counted in i64), so it is NaN when every sample is ignored or N = 0.
// - layer_norm: mean and biased variance over the normalized dims, then
//   (x - mean) * rsqrt(var + eps) [* weight] [+ bias], with rsqrt computed
//   once per row as 1 / sqrt(var + eps).
// - rms_norm: x * (1 / sqrt(mean(x^2) + eps)) [* weight].
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "PopulatePatterns.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>

using namespace mlir;
using namespace mlir::kiln;

//===----------------------------------------------------------------------===//
// Helpers (the same building blocks as in Reduction.cpp, kept private to
// each family file)
//===----------------------------------------------------------------------===//

/// The map from the loops over a rank-`rank` shape to its first `kept` dims.
static AffineMap leadingDimsMap(int64_t rank, int64_t kept,
                                MLIRContext *context) {
  SmallVector<AffineExpr> exprs;
  for (int64_t dim = 0; dim < kept; ++dim)
    exprs.push_back(getAffineDimExpr(dim, context));
  return AffineMap::get(rank, 0, exprs, context);
}

/// The map from the loops over a rank-`rank` shape to its last `trailing`
/// dims.
static AffineMap trailingDimsMap(int64_t rank, int64_t trailing,
                                 MLIRContext *context) {
  SmallVector<AffineExpr> exprs;
  for (int64_t dim = rank - trailing; dim < rank; ++dim)
    exprs.push_back(getAffineDimExpr(dim, context));
  return AffineMap::get(rank, 0, exprs, context);
}

/// Builds the new accumulators from the old ones (`accs`) and the scalar
/// inputs (`args`).
using CombineFn = function_ref<SmallVector<Value>(
    OpBuilder &, Location, ValueRange accs, ValueRange args)>;

/// Reduces `inputs` (read through `inputMaps` in a loop nest over
/// `loopShape`) over its trailing `reducedRank` dims into one accumulator per
/// value of `inits`. Each result has the leading dims of `loopShape`.
static SmallVector<Value>
buildTrailingReduction(OpBuilder &b, Location loc, ValueRange inputs,
                       ArrayRef<AffineMap> inputMaps,
                       ArrayRef<int64_t> loopShape, int64_t reducedRank,
                       ValueRange inits, CombineFn combine) {
  MLIRContext *context = b.getContext();
  int64_t rank = loopShape.size();
  ArrayRef<int64_t> resultShape = loopShape.drop_back(reducedRank);
  SmallVector<Value> filled;
  SmallVector<Type> types;
  SmallVector<AffineMap> maps(inputMaps);
  for (Value init : inits) {
    filled.push_back(buildFilled(b, loc, resultShape, init));
    types.push_back(filled.back().getType());
    maps.push_back(leadingDimsMap(rank, rank - reducedRank, context));
  }
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  for (int64_t dim = rank - reducedRank; dim < rank; ++dim)
    iterators[dim] = utils::IteratorType::reduction;
  size_t numInputs = inputs.size();
  auto generic = linalg::GenericOp::create(
      b, loc, types, inputs, filled, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        SmallVector<Value> results = combine(nb, nloc, args.drop_front(numInputs),
                                             args.take_front(numInputs));
        linalg::YieldOp::create(nb, nloc, results);
      });
  return SmallVector<Value>(generic.getResults());
}

/// The sum over the trailing `reducedRank` dims of `f(x, shift)` for each
/// element `x` of `input` and its row's `shift` (optional, null when
/// absent), both converted to the compute type the sum accumulates in.
static Value
buildRowSum(OpBuilder &b, Location loc, Value input, int64_t reducedRank,
            Value shift,
            function_ref<Value(OpBuilder &, Location, Value x, Value shift)> f) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  Type computeType = getComputeType(type.getElementType());
  SmallVector<Value> inputs = {input};
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank)};
  if (shift) {
    inputs.push_back(shift);
    maps.push_back(leadingDimsMap(rank, rank - reducedRank, b.getContext()));
  }
  return buildTrailingReduction(
      b, loc, inputs, maps, type.getShape(), reducedRank,
      floatConstant(b, loc, computeType, 0.0),
      [&](OpBuilder &nb, Location nloc, ValueRange accs,
          ValueRange args) -> SmallVector<Value> {
        Value x = convertFloat(nb, nloc, args[0], computeType);
        Value s = shift ? convertFloat(nb, nloc, args[1], computeType) : Value();
        Value term = f(nb, nloc, x, s);
        return {arith::AddFOp::create(nb, nloc, accs[0], term)};
      })[0];
}

/// Per-row `g(s)` of a per-row tensor `rows`.
static Value
buildRowMap(OpBuilder &b, Location loc, Value rows,
            function_ref<Value(OpBuilder &, Location, Value)> g) {
  auto type = cast<RankedTensorType>(rows.getType());
  return buildMap(b, loc, type, rows, b.getMultiDimIdentityMap(type.getRank()),
                  [&](OpBuilder &nb, Location nloc, ValueRange args) {
                    return g(nb, nloc, args[0]);
                  });
}

/// Per row 1 / sqrt(s / count + epsilon) of the row sums `sums` (of the
/// compute type): the reciprocal standard deviation from the sums of squared
/// deviations (layer_norm), or the reciprocal root mean square from the sums
/// of squares (rms_norm).
static Value buildReciprocalRoot(OpBuilder &b, Location loc, Value sums,
                                 double count, double epsilon) {
  Type computeType = cast<RankedTensorType>(sums.getType()).getElementType();
  return buildRowMap(
      b, loc, sums, [&](OpBuilder &nb, Location nloc, Value s) -> Value {
        Value mean = arith::DivFOp::create(
            nb, nloc, s, floatConstant(nb, nloc, computeType, count));
        Value shifted = arith::AddFOp::create(
            nb, nloc, mean, floatConstant(nb, nloc, computeType, epsilon));
        return arith::DivFOp::create(nb, nloc,
                                     floatConstant(nb, nloc, computeType, 1.0),
                                     math::SqrtOp::create(nb, nloc, shifted));
      });
}

/// The number of elements in the trailing `reducedRank` dims of `type`.
static int64_t trailingCount(RankedTensorType type, int64_t reducedRank) {
  int64_t count = 1;
  for (int64_t size : type.getShape().take_back(reducedRank))
    count *= size;
  return count;
}

namespace {

/// kiln.cross_entropy -> row max, row sum of exp(x - max), the per-sample
/// loss, then the reduction.
struct CrossEntropyOpLowering : OpConversionPattern<CrossEntropyOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(CrossEntropyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value logits = adaptor.getLogits(), labels = adaptor.getLabels();
    auto logitsType = cast<RankedTensorType>(logits.getType());
    Type elementType = logitsType.getElementType();
    if (!isa<FloatType>(elementType) || logitsType.getRank() != 2)
      return rewriter.notifyMatchFailure(op, "unsupported logits type");
    // The row max is exact in the logits' type; everything after it runs in
    // the compute type (f32 for f16/bf16) and rounds once at the end.
    Type computeType = getComputeType(elementType);
    int64_t n = logitsType.getDimSize(0), c = logitsType.getDimSize(1);
    Type i64 = rewriter.getI64Type();

    // Row max (NaN-propagating) and log-sum-exp pieces.
    auto floatType = cast<FloatType>(elementType);
    Value negInf = arith::ConstantOp::create(
        rewriter, loc,
        FloatAttr::get(elementType,
                       APFloat::getInf(floatType.getFloatSemantics(), true)));
    Value max = buildTrailingReduction(
        rewriter, loc, logits, rewriter.getMultiDimIdentityMap(2),
        logitsType.getShape(), 1, negInf,
        [](OpBuilder &b, Location nloc, ValueRange accs,
           ValueRange args) -> SmallVector<Value> {
          return {arith::MaximumFOp::create(b, nloc, accs[0], args[0])};
        })[0];
    Value sumExp = buildRowSum(
        rewriter, loc, logits, 1, max,
        [](OpBuilder &b, Location nloc, Value x, Value shift) -> Value {
          return math::ExpOp::create(
              b, nloc, arith::SubFOp::create(b, nloc, x, shift));
        });

    // Per-sample losses.
    int64_t ignoreIndex = op.getIgnoreIndex();
    auto lossType = RankedTensorType::get({n}, computeType);
    AffineMap id1 = rewriter.getMultiDimIdentityMap(1);
    Value losses = buildMap(
        rewriter, loc, lossType, ValueRange{labels, max, sumExp},
        {id1, id1, id1},
        [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
          Value label = args[0];
          if (label.getType() != i64)
            label = arith::ExtSIOp::create(b, nloc, i64, label);
          auto i64Const = [&](int64_t v) -> Value {
            return arith::ConstantOp::create(b, nloc, b.getI64IntegerAttr(v));
          };
          using P = arith::CmpIPredicate;
          Value ignored = arith::CmpIOp::create(b, nloc, P::eq, label,
                                                i64Const(ignoreIndex));
          Value inRange = arith::AndIOp::create(
              b, nloc, arith::CmpIOp::create(b, nloc, P::sge, label, i64Const(0)),
              arith::CmpIOp::create(b, nloc, P::slt, label, i64Const(c)));
          Value safe =
              arith::SelectOp::create(b, nloc, inRange, label, i64Const(0));
          Value row = linalg::IndexOp::create(b, nloc, 0);
          Value column =
              arith::IndexCastOp::create(b, nloc, b.getIndexType(), safe);
          Value x = tensor::ExtractOp::create(b, nloc, logits,
                                              ValueRange{row, column});
          // -log_softmax(x) = log(sum) - (x - max).
          Value shifted = arith::SubFOp::create(
              b, nloc, convertFloat(b, nloc, x, computeType),
              convertFloat(b, nloc, args[1], computeType));
          Value logSum = math::LogOp::create(b, nloc, args[2]);
          Value loss = arith::SubFOp::create(b, nloc, logSum, shifted);
          Value nan = floatConstant(b, nloc, computeType,
                                    std::numeric_limits<double>::quiet_NaN());
          Value zero = floatConstant(b, nloc, computeType, 0.0);
          Value checked = arith::SelectOp::create(b, nloc, inRange, loss, nan);
          return arith::SelectOp::create(b, nloc, ignored, zero, checked);
        });

    Value result;
    switch (op.getReduction()) {
    case LossReduction::none:
      result = losses;
      break;
    case LossReduction::sum:
      result = buildTrailingReduction(
          rewriter, loc, losses, id1, {n}, 1,
          floatConstant(rewriter, loc, computeType, 0.0),
          [](OpBuilder &b, Location nloc, ValueRange accs,
             ValueRange args) -> SmallVector<Value> {
            return {arith::AddFOp::create(b, nloc, accs[0], args[0])};
          })[0];
      break;
    case LossReduction::mean: {
      Value zeroCount =
          arith::ConstantOp::create(rewriter, loc, rewriter.getI64IntegerAttr(0));
      SmallVector<Value> totals = buildTrailingReduction(
          rewriter, loc, ValueRange{losses, labels}, {id1, id1}, {n}, 1,
          ValueRange{floatConstant(rewriter, loc, computeType, 0.0), zeroCount},
          [&](OpBuilder &b, Location nloc, ValueRange accs,
              ValueRange args) -> SmallVector<Value> {
            Value label = args[1];
            if (label.getType() != i64)
              label = arith::ExtSIOp::create(b, nloc, i64, label);
            Value ignored = arith::CmpIOp::create(
                b, nloc, arith::CmpIPredicate::eq, label,
                arith::ConstantOp::create(b, nloc,
                                          b.getI64IntegerAttr(ignoreIndex)));
            Value counted = arith::ExtUIOp::create(
                b, nloc, i64,
                arith::XOrIOp::create(
                    b, nloc, ignored,
                    arith::ConstantOp::create(b, nloc, b.getBoolAttr(true))));
            return {arith::AddFOp::create(b, nloc, accs[0], args[0]),
                    arith::AddIOp::create(b, nloc, accs[1], counted)};
          });
      auto scalarType = RankedTensorType::get({}, computeType);
      AffineMap id0 = rewriter.getMultiDimIdentityMap(0);
      result = buildMap(
          rewriter, loc, scalarType, totals, {id0, id0},
          [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
            Value count = arith::SIToFPOp::create(b, nloc, computeType, args[1]);
            return arith::DivFOp::create(b, nloc, args[0], count);
          });
      break;
    }
    }
    if (computeType != elementType) {
      auto resultType = cast<RankedTensorType>(result.getType());
      result = buildMap(
          rewriter, loc, resultType.clone(elementType), result,
          rewriter.getMultiDimIdentityMap(resultType.getRank()),
          [&](OpBuilder &b, Location nloc, ValueRange args) {
            return convertFloat(b, nloc, args[0], elementType);
          });
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// kiln.layer_norm -> row mean, row 1 / sqrt(biased variance + eps), then
/// (x - mean) * rstd [* weight] [+ bias].
struct LayerNormOpLowering : OpConversionPattern<LayerNormOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(LayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    Type elementType = type.getElementType();
    assert(isa<FloatType>(elementType) &&
           "the verifier guarantees a Kiln_FloatTensor input");
    int64_t rank = type.getRank();
    int64_t normalized = op.getNormalizedRank();
    double count = static_cast<double>(trailingCount(type, normalized));
    double epsilon = op.getEpsilon().convertToDouble();
    // Statistics and the normalized values compute in f32 for f16/bf16.
    Type computeType = getComputeType(elementType);

    Value sum = buildRowSum(rewriter, loc, input, normalized, Value(),
                            [](OpBuilder &, Location, Value x, Value) {
                              return x;
                            });
    Value mean = buildRowMap(
        rewriter, loc, sum, [&](OpBuilder &b, Location nloc, Value s) -> Value {
          return arith::DivFOp::create(
              b, nloc, s, floatConstant(b, nloc, computeType, count));
        });
    Value squares = buildRowSum(
        rewriter, loc, input, normalized, mean,
        [](OpBuilder &b, Location nloc, Value x, Value m) -> Value {
          Value d = arith::SubFOp::create(b, nloc, x, m);
          return arith::MulFOp::create(b, nloc, d, d);
        });
    Value rstd = buildReciprocalRoot(rewriter, loc, squares, count, epsilon);

    MLIRContext *context = rewriter.getContext();
    AffineMap rows = leadingDimsMap(rank, rank - normalized, context);
    AffineMap params = trailingDimsMap(rank, normalized, context);
    SmallVector<Value> inputs = {input, mean, rstd};
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank), rows,
                                   rows};
    Value weight = adaptor.getWeight(), bias = adaptor.getBias();
    if (weight) {
      inputs.push_back(weight);
      maps.push_back(params);
    }
    if (bias) {
      inputs.push_back(bias);
      maps.push_back(params);
    }
    Value result = buildMap(
        rewriter, loc, type, inputs, maps,
        [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
          auto arg = [&](unsigned i) {
            return convertFloat(b, nloc, args[i], computeType);
          };
          Value d = arith::SubFOp::create(b, nloc, arg(0), args[1]);
          Value y = arith::MulFOp::create(b, nloc, d, args[2]);
          unsigned next = 3;
          if (weight)
            y = arith::MulFOp::create(b, nloc, y, arg(next++));
          if (bias)
            y = arith::AddFOp::create(b, nloc, y, arg(next++));
          return convertFloat(b, nloc, y, elementType);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// kiln.rms_norm -> row 1 / sqrt(mean(x^2) + eps), then x * that [* weight].
struct RmsNormOpLowering : OpConversionPattern<RmsNormOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(RmsNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    Type elementType = type.getElementType();
    assert(isa<FloatType>(elementType) &&
           "the verifier guarantees a Kiln_FloatTensor input");
    int64_t rank = type.getRank();
    int64_t normalized = op.getNormalizedRank();
    double count = static_cast<double>(trailingCount(type, normalized));
    double epsilon = op.getEpsilon().convertToDouble();
    Type computeType = getComputeType(elementType);

    Value squares = buildRowSum(
        rewriter, loc, input, normalized, Value(),
        [](OpBuilder &b, Location nloc, Value x, Value) -> Value {
          return arith::MulFOp::create(b, nloc, x, x);
        });
    Value rrms = buildReciprocalRoot(rewriter, loc, squares, count, epsilon);

    MLIRContext *context = rewriter.getContext();
    SmallVector<Value> inputs = {input, rrms};
    SmallVector<AffineMap> maps = {
        rewriter.getMultiDimIdentityMap(rank),
        leadingDimsMap(rank, rank - normalized, context)};
    Value weight = adaptor.getWeight();
    if (weight) {
      inputs.push_back(weight);
      maps.push_back(trailingDimsMap(rank, normalized, context));
    }
    Value result = buildMap(
        rewriter, loc, type, inputs, maps,
        [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
          Value y = arith::MulFOp::create(
              b, nloc, convertFloat(b, nloc, args[0], computeType), args[1]);
          if (weight)
            y = arith::MulFOp::create(
                b, nloc, y, convertFloat(b, nloc, args[2], computeType));
          return convertFloat(b, nloc, y, elementType);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::kiln::populateNNPatterns(RewritePatternSet &patterns) {
  patterns.add<CrossEntropyOpLowering, LayerNormOpLowering, RmsNormOpLowering>(
      patterns.getContext());
}
