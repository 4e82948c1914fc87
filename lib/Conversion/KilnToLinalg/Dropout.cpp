//===- Dropout.cpp - Lower kiln.dropout -----------------------------------===//
//
// kiln.dropout becomes one parallel linalg.generic whose payload draws the
// keep bit of each element from its row-major flat index with the shared
// Philox generator (kiln/Dialect/Kiln/Utils/Philox.h), exactly as the op's
// description defines it; kiln.attention's dropout draws through the same
// generator.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "PopulatePatterns.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Utils/Philox.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// kiln.dropout -> linalg.generic { keep(seed, n) ? x * 1/(1-p) : 0 }, with
/// `n` the flat index built from linalg.index. The product is taken in the
/// compute type (f32 for f16/bf16) and rounded once: an f16 scale
/// 1 / (1 - p) would be +inf for 1 - p < 1.53e-5 and every kept element
/// inf. `p = 0` is the identity (as the op's folder says) and lowers to the
/// input itself.
struct DropoutOpLowering : OpConversionPattern<DropoutOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DropoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    if (!resultType || !resultType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "expected a static tensor");
    auto elementType = dyn_cast<FloatType>(resultType.getElementType());
    if (!elementType)
      return rewriter.notifyMatchFailure(op, "expected a float element type");
    double p = op.getPAttr().getValueAsDouble();
    if (!(p >= 0.0 && p < 1.0))
      return rewriter.notifyMatchFailure(op, "p outside [0, 1)");
    if (p == 0.0) {
      rewriter.replaceOp(op, adaptor.getInput());
      return success();
    }

    ArrayRef<int64_t> shape = resultType.getShape();
    int64_t rank = resultType.getRank();
    Value seed =
        tensor::ExtractOp::create(rewriter, loc, adaptor.getSeed(), ValueRange{});
    Value init = tensor::EmptyOp::create(rewriter, loc, shape, elementType);
    SmallVector<AffineMap> maps(2, rewriter.getMultiDimIdentityMap(rank));
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Type computeType = getComputeType(elementType);
    FloatAttr scaleAttr = rewriter.getFloatAttr(computeType, 1.0 / (1.0 - p));
    FloatAttr zeroAttr = rewriter.getFloatAttr(elementType, 0.0);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType}, ValueRange{adaptor.getInput()},
        ValueRange{init}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          // n = ((i0 * d1 + i1) * d2 + i2) ...
          Value flat = arith::ConstantIndexOp::create(b, l, 0);
          for (int64_t dim = 0; dim < rank; ++dim) {
            flat = arith::MulIOp::create(
                b, l, flat, arith::ConstantIndexOp::create(b, l, shape[dim]));
            flat = arith::AddIOp::create(b, l, flat,
                                         linalg::IndexOp::create(b, l, dim));
          }
          flat = arith::IndexCastOp::create(b, l, b.getI64Type(), flat);
          Value keep = buildDropoutKeep(b, l, seed, flat, p);
          Value scaled = arith::MulFOp::create(
              b, l, convertFloat(b, l, args[0], computeType),
              arith::ConstantOp::create(b, l, scaleAttr));
          scaled = convertFloat(b, l, scaled, elementType);
          Value result = arith::SelectOp::create(
              b, l, keep, scaled, arith::ConstantOp::create(b, l, zeroAttr));
          linalg::YieldOp::create(b, l, result);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void mlir::kiln::populateDropoutPatterns(RewritePatternSet &patterns) {
  patterns.add<DropoutOpLowering>(patterns.getContext());
}
