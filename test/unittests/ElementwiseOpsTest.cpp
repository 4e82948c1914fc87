//===- ElementwiseOpsTest.cpp - C++ API of the Elementwise kiln ops ---------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include "gtest/gtest.h"

#include <string>

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// Builds ops at the end of a module and checks the module verifies.
class ElementwiseOpsTest : public ::testing::Test {
protected:
  ElementwiseOpsTest() : builder(&context) {
    context.loadDialect<KilnDialect>();
    loc = builder.getUnknownLoc();
    module = ModuleOp::create(loc);
    builder.setInsertionPointToEnd(module->getBody());
  }

  /// Returns a zero splat constant of the given shape and element type.
  Value tensor(ArrayRef<int64_t> shape, Type elementType) {
    auto type = RankedTensorType::get(shape, elementType);
    return ConstantOp::create(builder, loc,
                              DenseElementsAttr::get(
                                  type, builder.getZeroAttr(elementType)));
  }

  RankedTensorType tensorType(ArrayRef<int64_t> shape, Type elementType) {
    return RankedTensorType::get(shape, elementType);
  }

  MLIRContext context;
  OpBuilder builder;
  Location loc = UnknownLoc::get(&context);
  OwningOpRef<ModuleOp> module;
};

TEST_F(ElementwiseOpsTest, BinaryOpsInferBroadcastType) {
  Type f32 = builder.getF32Type();
  Value a = tensor({2, 1, 4}, f32);
  Value b = tensor({3, 1}, f32);
  RankedTensorType expected = tensorType({2, 3, 4}, f32);
  EXPECT_EQ(SubOp::create(builder, loc, a, b).getType(), expected);
  EXPECT_EQ(MulOp::create(builder, loc, a, b).getType(), expected);
  EXPECT_EQ(DivOp::create(builder, loc, a, b).getType(), expected);
  EXPECT_EQ(PowOp::create(builder, loc, a, b).getType(), expected);
  EXPECT_EQ(MaximumOp::create(builder, loc, a, b).getType(), expected);
  EXPECT_EQ(MinimumOp::create(builder, loc, b, a).getType(), expected);
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(ElementwiseOpsTest, CompareInfersBoolResult) {
  Type i1 = builder.getI1Type();
  Value a = tensor({2, 3}, builder.getF32Type());
  Value b = tensor({3}, builder.getF32Type());
  EXPECT_EQ(LtOp::create(builder, loc, a, b).getType(), tensorType({2, 3}, i1));
  EXPECT_EQ(GeOp::create(builder, loc, b, a).getType(), tensorType({2, 3}, i1));
  Value c = tensor({4, 1}, builder.getI32Type());
  Value d = tensor({5}, builder.getI32Type());
  EXPECT_EQ(EqOp::create(builder, loc, c, d).getType(), tensorType({4, 5}, i1));
  EXPECT_EQ(NeOp::create(builder, loc, c, d).getType(), tensorType({4, 5}, i1));
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(ElementwiseOpsTest, SelectBroadcastsThreeWays) {
  Type f16 = builder.getF16Type();
  Value cond = tensor({2, 1, 1}, builder.getI1Type());
  Value onTrue = tensor({1, 3, 1}, f16);
  Value onFalse = tensor({4}, f16);
  auto select = SelectOp::create(builder, loc, cond, onTrue, onFalse);
  EXPECT_EQ(select.getType(), tensorType({2, 3, 4}, f16));
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(ElementwiseOpsTest, UnaryOpsKeepOperandType) {
  Type f32 = builder.getF32Type();
  Value x = tensor({2, 3}, f32);
  EXPECT_EQ(ExpOp::create(builder, loc, x).getType(), x.getType());
  EXPECT_EQ(SigmoidOp::create(builder, loc, x).getType(), x.getType());
  Value i = tensor({4}, builder.getI32Type());
  EXPECT_EQ(NegOp::create(builder, loc, i).getType(), i.getType());
  EXPECT_EQ(SignOp::create(builder, loc, i).getType(), i.getType());

  auto leaky = LeakyReluOp::create(builder, loc, x, APFloat(0.2));
  EXPECT_EQ(leaky.getType(), x.getType());
  EXPECT_EQ(leaky.getAlpha().convertToDouble(), 0.2);
  // Unset defaulted attributes read as their defaults.
  auto elu = EluOp::create(builder, loc, ValueRange{x});
  EXPECT_EQ(elu.getAlpha().convertToDouble(), 1.0);
  auto gelu = GeluOp::create(builder, loc, x);
  EXPECT_EQ(gelu.getApproximate(), GeluApproximation::none);
  auto geluTanh = GeluOp::create(builder, loc, x, GeluApproximation::tanh);
  EXPECT_EQ(geluTanh.getApproximate(), GeluApproximation::tanh);

  auto clamp = ClampOp::create(builder, loc, x, builder.getF64FloatAttr(0.0),
                               /*max=*/FloatAttr());
  EXPECT_EQ(clamp.getType(), x.getType());
  EXPECT_TRUE(clamp.getMin().has_value());
  EXPECT_FALSE(clamp.getMax().has_value());
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(ElementwiseOpsTest, ConvertBuildsFromElementType) {
  Value x = tensor({2, 3}, builder.getF32Type());
  auto half = ConvertOp::create(builder, loc, x, builder.getF16Type());
  EXPECT_EQ(half.getType(), tensorType({2, 3}, builder.getF16Type()));
  auto mask = ConvertOp::create(builder, loc, x, builder.getI1Type());
  EXPECT_EQ(mask.getType(), tensorType({2, 3}, builder.getI1Type()));
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(ElementwiseOpsTest, ClampVerifierRejectsEmptyRange) {
  Value x = tensor({3}, builder.getF32Type());
  ClampOp::create(builder, loc, x, builder.getF64FloatAttr(2.0),
                  builder.getF64FloatAttr(1.0));
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  EXPECT_TRUE(failed(verify(*module)));
  EXPECT_EQ(message, "'kiln.clamp' op 'min' 2.000000e+00 must not be greater "
                     "than 'max' 1.000000e+00");
}

/// Runs `infer` with a handler that records the last diagnostic, and returns
/// it ("" when inference succeeded without one).
template <typename Fn>
static std::string inferenceError(MLIRContext &context, Fn infer) {
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  SmallVector<Type> types;
  if (succeeded(infer(types)))
    return "";
  return message;
}

TEST_F(ElementwiseOpsTest, InferenceFailsCleanlyOnBadOperands) {
  Value x = tensor({3}, builder.getF32Type());
  Value h = tensor({3}, builder.getF16Type());
  Value c = tensor({3}, builder.getI1Type());
  auto infer = [&](auto op, ValueRange operands) {
    return inferenceError(context, [&](SmallVectorImpl<Type> &types) {
      return decltype(op)::inferReturnTypes(&context, loc, operands,
                                            DictionaryAttr(), nullptr,
                                            RegionRange(), types);
    });
  };
  EXPECT_EQ(infer(AddOp(), ValueRange{x}), "expected 2 operands, got 1");
  EXPECT_EQ(infer(LtOp(), ValueRange{x, x, x}), "expected 2 operands, got 3");
  EXPECT_EQ(infer(LtOp(), ValueRange{x, h}),
            "operands must have the same element type");
  EXPECT_EQ(infer(SelectOp(), ValueRange{c, x}), "expected 3 operands, got 2");
  EXPECT_EQ(infer(SelectOp(), ValueRange{c, x, h}),
            "'on_true' and 'on_false' must have the same element type, got "
            "'f32' and 'f16'");

  // A scalar where a tensor belongs: a block argument of type f32.
  Block block;
  Value scalar = block.addArgument(builder.getF32Type(), loc);
  EXPECT_EQ(infer(SelectOp(), ValueRange{c, scalar, x}),
            "operand #1 must be a ranked tensor");
  EXPECT_EQ(infer(SelectOp(), ValueRange{scalar, x, x}),
            "operand #0 must be a ranked tensor");
  EXPECT_EQ(infer(MulOp(), ValueRange{x, scalar}),
            "operand #1 must be a ranked tensor");
}

} // namespace
