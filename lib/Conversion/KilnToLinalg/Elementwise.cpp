//===- Elementwise.cpp - Lower elementwise kiln ops to linalg -------------===//
//
// Elementwise ops become one `linalg.generic` each, with parallel iterators
// and broadcasting expressed by the operands' indexing maps.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "PopulatePatterns.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// kiln.add -> linalg.generic { arith.addf | arith.addi | arith.ori }.
/// Booleans add like PyTorch's `bool + bool`: a logical or.
struct AddOpLowering : OpConversionPattern<AddOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elementType = resultType.getElementType();
    if (!isa<FloatType, IntegerType>(elementType))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    FailureOr<Value> result = buildBroadcastingElementwise(
        rewriter, op.getLoc(), resultType, adaptor.getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          if (isa<FloatType>(elementType))
            return arith::AddFOp::create(b, loc, args[0], args[1]);
          if (elementType.isInteger(1))
            return arith::OrIOp::create(b, loc, args[0], args[1]);
          return arith::AddIOp::create(b, loc, args[0], args[1]);
        });
    if (failed(result))
      return rewriter.notifyMatchFailure(op, "operands do not broadcast");
    rewriter.replaceOp(op, *result);
    return success();
  }
};

} // namespace

void mlir::kiln::populateElementwisePatterns(RewritePatternSet &patterns) {
  patterns.add<AddOpLowering>(patterns.getContext());
}
