//===- Tensor.cpp - Lower creation, layout and shape kiln ops -------------===//

#include "PopulatePatterns.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// kiln.constant -> arith.constant with the same elements attribute.
struct ConstantOpLowering : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<TypedAttr>(op.getValue());
    if (!value)
      return rewriter.notifyMatchFailure(op, "value is not a typed attribute");
    rewriter.replaceOp(op, arith::ConstantOp::create(rewriter, op.getLoc(),
                                                     op.getType(), value));
    return success();
  }
};

} // namespace

void mlir::kiln::populateTensorPatterns(RewritePatternSet &patterns) {
  patterns.add<ConstantOpLowering>(patterns.getContext());
}
