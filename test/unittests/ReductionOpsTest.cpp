//===- ReductionOpsTest.cpp - C++ API of the reduction kiln ops -----------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include "TestSupport/OpBuilderTest.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// Builds kiln ops into a module that must verify at the end.
class ReductionOpsTest : public test::OpBuilderTest {};

TEST_F(ReductionOpsTest, SumDropsReducedDims) {
  Value x = constant({2, 3, 4}, f32);
  auto sum = SumOp::create(builder, loc, x, ArrayRef<int64_t>{0, 2},
                           /*keep_dims=*/false);
  EXPECT_EQ(sum.getType(), tensor({3}, f32));
}

TEST_F(ReductionOpsTest, SumKeepsReducedDims) {
  Value x = constant({2, 3, 4}, f32);
  auto sum = SumOp::create(builder, loc, x, ArrayRef<int64_t>{0, 2},
                           /*keep_dims=*/true);
  EXPECT_EQ(sum.getType(), tensor({1, 3, 1}, f32));
}

TEST_F(ReductionOpsTest, SumOfEveryAxisIsRankZero) {
  Value x = constant({2, 3}, builder.getI32Type());
  auto sum = SumOp::create(builder, loc, x, ArrayRef<int64_t>{1, 0},
                           /*keep_dims=*/false);
  EXPECT_EQ(sum.getType(), tensor({}, builder.getI32Type()));
}

TEST_F(ReductionOpsTest, OtherReductionsInferTheSameShape) {
  Value x = constant({2, 3}, f32);
  SmallVector<int64_t> axes = {1};
  EXPECT_EQ(MeanOp::create(builder, loc, x, axes, false).getType(),
            tensor({2}, f32));
  EXPECT_EQ(MaxOp::create(builder, loc, x, axes, true).getType(),
            tensor({2, 1}, f32));
  EXPECT_EQ(MinOp::create(builder, loc, x, axes, false).getType(),
            tensor({2}, f32));
  auto variance = VarianceOp::create(builder, loc, x, axes, false,
                                     /*correction=*/0);
  EXPECT_EQ(variance.getType(), tensor({2}, f32));
  EXPECT_EQ(variance.getCorrectionAttr().getInt(), 0);
}

TEST_F(ReductionOpsTest, ArgmaxIsI64) {
  Value x = constant({2, 3}, f32);
  auto i64 = builder.getI64Type();
  EXPECT_EQ(ArgmaxOp::create(builder, loc, x, /*axis=*/1, false).getType(),
            tensor({2}, i64));
  EXPECT_EQ(ArgmaxOp::create(builder, loc, x, /*axis=*/0, true).getType(),
            tensor({1, 3}, i64));
}

TEST_F(ReductionOpsTest, SoftmaxKeepsType) {
  Value x = constant({2, 3}, builder.getBF16Type());
  EXPECT_EQ(SoftmaxOp::create(builder, loc, x, /*axis=*/1).getType(),
            x.getType());
  EXPECT_EQ(LogSoftmaxOp::create(builder, loc, x, /*axis=*/0).getType(),
            x.getType());
}

TEST_F(ReductionOpsTest, CumsumKeepsType) {
  Value x = constant({2, 3}, builder.getI64Type());
  auto forward = CumsumOp::create(builder, loc, x, /*axis=*/1);
  EXPECT_EQ(forward.getType(), x.getType());
  EXPECT_FALSE(forward.getReverse());
  auto backward = CumsumOp::create(builder, loc, x, /*axis=*/0,
                                   /*reverse=*/true);
  EXPECT_EQ(backward.getType(), x.getType());
  EXPECT_TRUE(backward.getReverse());
}

TEST_F(ReductionOpsTest, MatmulVectorVector) {
  Value a = constant({3}, f32);
  Value b = constant({3}, f32);
  EXPECT_EQ(MatmulOp::create(builder, loc, a, b).getType(), tensor({}, f32));
}

TEST_F(ReductionOpsTest, MatmulVectorMatrix) {
  // [K] x [K, N] -> [N]; the prepended 1 is removed.
  Value a = constant({3}, f32);
  Value b = constant({3, 5}, f32);
  EXPECT_EQ(MatmulOp::create(builder, loc, a, b).getType(), tensor({5}, f32));
}

TEST_F(ReductionOpsTest, MatmulMatrixVector) {
  // [M, K] x [K] -> [M]; the appended 1 is removed.
  Value a = constant({2, 3}, f32);
  Value b = constant({3}, f32);
  EXPECT_EQ(MatmulOp::create(builder, loc, a, b).getType(), tensor({2}, f32));
}

TEST_F(ReductionOpsTest, MatmulMatrixMatrix) {
  Value a = constant({2, 3}, f32);
  Value b = constant({3, 5}, f32);
  EXPECT_EQ(MatmulOp::create(builder, loc, a, b).getType(),
            tensor({2, 5}, f32));
}

TEST_F(ReductionOpsTest, MatmulBatchedBroadcast) {
  // Batch dims [7, 1] and [6] broadcast to [7, 6].
  Value a = constant({7, 1, 2, 3}, f32);
  Value b = constant({6, 3, 5}, f32);
  EXPECT_EQ(MatmulOp::create(builder, loc, a, b).getType(),
            tensor({7, 6, 2, 5}, f32));
}

TEST_F(ReductionOpsTest, MatmulBatchedVector) {
  // A rank-1 operand against a batched one: [K] x [B, K, N] -> [B, N].
  Value a = constant({3}, f32);
  Value b = constant({4, 3, 5}, f32);
  EXPECT_EQ(MatmulOp::create(builder, loc, a, b).getType(),
            tensor({4, 5}, f32));
  Value c = constant({4, 2, 3}, f32);
  EXPECT_EQ(MatmulOp::create(builder, loc, c, a).getType(),
            tensor({4, 2}, f32));
}

/// Type inference on states that the parser and the verifier never produce
/// (they reject them first) still fails cleanly with a diagnostic.
class ReductionInferenceFailureTest : public ReductionOpsTest {
protected:
  ReductionInferenceFailureTest()
      : handler(&context, [this](Diagnostic &diag) {
          messages.push_back(diag.str());
          return success();
        }) {
    block.addArgument(f32, loc);
  }

  /// A value that is not a tensor.
  Value scalar() { return block.getArgument(0); }

  Block block;
  std::vector<std::string> messages;
  ScopedDiagnosticHandler handler;
};

TEST_F(ReductionInferenceFailureTest, ReductionOfScalar) {
  SumOp::Properties properties;
  properties.axes = builder.getDenseI64ArrayAttr({0});
  SmallVector<Type> types;
  EXPECT_TRUE(failed(SumOp::inferReturnTypes(
      &context, loc, SumOp::Adaptor(ValueRange{scalar()}, nullptr, properties),
      types)));
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0], "input must be a ranked tensor, got 'f32'");
}

TEST_F(ReductionInferenceFailureTest, ReductionWithoutAxes) {
  Value x = constant({2, 3}, f32);
  SmallVector<Type> types;
  // No location: fails without a diagnostic.
  EXPECT_TRUE(failed(MeanOp::inferReturnTypes(
      &context, std::nullopt, MeanOp::Adaptor(ValueRange{x}), types)));
  EXPECT_TRUE(messages.empty());
  EXPECT_TRUE(failed(MeanOp::inferReturnTypes(
      &context, loc, MeanOp::Adaptor(ValueRange{x}), types)));
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0], "requires an 'axes' attribute");
}

TEST_F(ReductionInferenceFailureTest, ReductionAxisOutOfRange) {
  Value x = constant({2, 3}, f32);
  MaxOp::Properties properties;
  properties.axes = builder.getDenseI64ArrayAttr({2});
  SmallVector<Type> types;
  EXPECT_TRUE(failed(MaxOp::inferReturnTypes(
      &context, loc, MaxOp::Adaptor(ValueRange{x}, nullptr, properties),
      types)));
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0], "axis 2 is out of range [0, 2)");
}

TEST_F(ReductionInferenceFailureTest, ReductionWithoutKeepDimsMeansFalse) {
  Value x = constant({2, 3}, f32);
  SumOp::Properties properties;
  properties.axes = builder.getDenseI64ArrayAttr({1});
  SmallVector<Type> types;
  ASSERT_TRUE(succeeded(SumOp::inferReturnTypes(
      &context, loc, SumOp::Adaptor(ValueRange{x}, nullptr, properties),
      types)));
  EXPECT_EQ(types, SmallVector<Type>{tensor({2}, f32)});
}

TEST_F(ReductionInferenceFailureTest, Argmax) {
  Value x = constant({2, 3}, f32);
  SmallVector<Type> types;
  EXPECT_TRUE(failed(ArgmaxOp::inferReturnTypes(
      &context, loc, ArgmaxOp::Adaptor(ValueRange{x}), types)));
  ArgmaxOp::Properties properties;
  properties.axis = builder.getI64IntegerAttr(-1);
  EXPECT_TRUE(failed(ArgmaxOp::inferReturnTypes(
      &context, loc, ArgmaxOp::Adaptor(ValueRange{x}, nullptr, properties),
      types)));
  EXPECT_TRUE(failed(ArgmaxOp::inferReturnTypes(
      &context, loc,
      ArgmaxOp::Adaptor(ValueRange{scalar()}, nullptr, properties), types)));
  EXPECT_EQ(messages, (std::vector<std::string>{
                          "requires an 'axis' attribute",
                          "axis -1 is out of range [0, 2)",
                          "input must be a ranked tensor, got 'f32'"}));
}

TEST_F(ReductionInferenceFailureTest, MatmulOfScalar) {
  Value x = constant({2, 3}, f32);
  SmallVector<Type> types;
  EXPECT_TRUE(failed(MatmulOp::inferReturnTypes(
      &context, loc, MatmulOp::Adaptor(ValueRange{x, scalar()}), types)));
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0], "operands must be ranked tensors");
}

} // namespace
