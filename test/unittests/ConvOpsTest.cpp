//===- ConvOpsTest.cpp - C++ API of the Conv kiln ops ---------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// Builds ops into a detached block whose arguments serve as operands.
class ConvOpsTest : public ::testing::Test {
protected:
  ConvOpsTest() : builder(&context), loc(builder.getUnknownLoc()) {
    context.loadDialect<KilnDialect>();
    builder.setInsertionPointToEnd(&block);
  }

  /// Returns `tensor<shape x elementType>` (f32 by default).
  RankedTensorType tensor(ArrayRef<int64_t> shape, Type elementType = {}) {
    return RankedTensorType::get(shape, elementType ? elementType
                                                    : builder.getF32Type());
  }

  /// Returns a new block argument of type `tensor(shape, elementType)`.
  Value arg(ArrayRef<int64_t> shape, Type elementType = {}) {
    return block.addArgument(tensor(shape, elementType), loc);
  }

  DenseI64ArrayAttr array(ArrayRef<int64_t> values) {
    return builder.getDenseI64ArrayAttr(values);
  }

  MLIRContext context;
  OpBuilder builder;
  Location loc;
  Block block;
};

TEST_F(ConvOpsTest, Conv1dWithBiasStrideAndPadding) {
  auto conv = Conv1dOp::create(builder, loc, arg({1, 4, 16}), arg({8, 4, 3}),
                               arg({8}), /*stride=*/{2}, /*padding=*/{1});
  // floor((16 + 2 - 2 - 1) / 2) + 1 = 8
  EXPECT_EQ(conv.getType(), tensor({1, 8, 8}));
  EXPECT_TRUE(succeeded(verify(conv)));
}

TEST_F(ConvOpsTest, Conv2dGroupsAndDilationWithoutBias) {
  auto conv = Conv2dOp::create(builder, loc, arg({2, 4, 10, 9}),
                               arg({6, 2, 3, 3}), /*bias=*/Value(),
                               /*stride=*/{1, 2}, /*padding=*/{0, 1},
                               /*dilation=*/{2, 1}, /*groups=*/2);
  // H: 10 - 2 * 2 - 1 + 1 = 6; W: floor((9 + 2 - 2 - 1) / 2) + 1 = 5.
  EXPECT_EQ(conv.getType(), tensor({2, 6, 6, 5}));
  EXPECT_FALSE(conv.getBias());
  EXPECT_TRUE(succeeded(verify(conv)));
}

TEST_F(ConvOpsTest, Conv2dDefaults) {
  auto conv = Conv2dOp::create(builder, loc, arg({1, 3, 5, 5}),
                               arg({4, 3, 5, 5}), /*bias=*/Value());
  EXPECT_EQ(conv.getType(), tensor({1, 4, 1, 1}));
  EXPECT_EQ(conv.getStride(), ArrayRef<int64_t>({1, 1}));
  EXPECT_EQ(conv.getPadding(), ArrayRef<int64_t>({0, 0}));
  EXPECT_EQ(conv.getDilation(), ArrayRef<int64_t>({1, 1}));
  EXPECT_EQ(conv.getGroups(), 1u);
  EXPECT_TRUE(succeeded(verify(conv)));
}

TEST_F(ConvOpsTest, Conv3dKeepsElementType) {
  Type f16 = builder.getF16Type();
  auto conv = Conv3dOp::create(builder, loc, arg({1, 2, 4, 9, 9}, f16),
                               arg({4, 2, 1, 3, 3}, f16), arg({4}, f16),
                               /*stride=*/{1, 2, 2}, /*padding=*/{0, 1, 1},
                               /*dilation=*/{1, 2, 2});
  // H, W: floor((9 + 2 - 4 - 1) / 2) + 1 = 4
  EXPECT_EQ(conv.getType(), tensor({1, 4, 4, 4, 4}, f16));
  EXPECT_TRUE(succeeded(verify(conv)));
}

TEST_F(ConvOpsTest, ConvTranspose1dGroupsDilationOutputPadding) {
  auto conv = ConvTranspose1dOp::create(
      builder, loc, arg({2, 4, 5}), arg({4, 3, 2}), arg({6}), /*stride=*/{3},
      /*padding=*/{1}, /*output_padding=*/{2}, /*dilation=*/{2},
      /*groups=*/2);
  // Cout = 2 * 3; (5 - 1) * 3 - 2 + 2 * 1 + 2 + 1 = 15
  EXPECT_EQ(conv.getType(), tensor({2, 6, 15}));
  EXPECT_TRUE(succeeded(verify(conv)));
}

TEST_F(ConvOpsTest, MaxPool2dDefaultStrideIsKernelSize) {
  auto pool = MaxPool2dOp::create(builder, loc, arg({1, 3, 7, 8}),
                                  /*kernel_size=*/{2, 3}, /*stride=*/nullptr);
  EXPECT_EQ(pool.getType(), tensor({1, 3, 3, 2}));
  EXPECT_FALSE(pool.getStride().has_value());
  EXPECT_TRUE(succeeded(verify(pool)));
}

TEST_F(ConvOpsTest, MaxPool2dCeilModeDropsWindowInRightPadding) {
  Value input = arg({1, 3, 4, 5});
  // H: ceil((4 + 2 - 2 - 1) / 3) + 1 = 3, but the third window would start
  // at 6 >= 4 + 1, inside the right padding only: 2. W likewise: 2.
  auto ceil = MaxPool2dOp::create(builder, loc, input, /*kernel_size=*/{2, 1},
                                  array({3, 3}), /*padding=*/{1, 0},
                                  /*dilation=*/{1, 1}, /*ceil_mode=*/true);
  EXPECT_EQ(ceil.getType(), tensor({1, 3, 2, 2}));
  EXPECT_TRUE(succeeded(verify(ceil)));

  // floor((8 + 2 - 3) / 2) + 1 = 4; ceil: 5 (last window at 8 < 8 + 1).
  Value square = arg({1, 3, 8, 8});
  auto floorPool = MaxPool2dOp::create(builder, loc, square, {3, 3},
                                       array({2, 2}), {1, 1}, {1, 1}, false);
  auto ceilPool = MaxPool2dOp::create(builder, loc, square, {3, 3},
                                      array({2, 2}), {1, 1}, {1, 1}, true);
  EXPECT_EQ(floorPool.getType(), tensor({1, 3, 4, 4}));
  EXPECT_EQ(ceilPool.getType(), tensor({1, 3, 5, 5}));
}

TEST_F(ConvOpsTest, MaxPool2dDilation) {
  auto pool = MaxPool2dOp::create(builder, loc, arg({1, 1, 9, 9}), {3, 3},
                                  array({1, 1}), {1, 0}, /*dilation=*/{2, 3});
  // H: 9 + 2 - 4 - 1 + 1 = 7; W: 9 - 6 - 1 + 1 = 3.
  EXPECT_EQ(pool.getType(), tensor({1, 1, 7, 3}));
  EXPECT_TRUE(succeeded(verify(pool)));
}

TEST_F(ConvOpsTest, AvgPool2dCeilModeAndCountIncludePad) {
  auto pool = AvgPool2dOp::create(builder, loc, arg({2, 3, 7, 7}), {2, 2},
                                  /*stride=*/nullptr, /*padding=*/{1, 0},
                                  /*count_include_pad=*/false,
                                  /*ceil_mode=*/true);
  // H: ceil((7 + 2 - 2) / 2) + 1 = 5, last window at 8 >= 7 + 1: 4.
  // W: ceil((7 - 2) / 2) + 1 = 4, last window at 6 < 7.
  EXPECT_EQ(pool.getType(), tensor({2, 3, 4, 4}));
  EXPECT_FALSE(pool.getCountIncludePad());
  EXPECT_TRUE(succeeded(verify(pool)));
}

TEST_F(ConvOpsTest, Upsample2dModes) {
  Value input = arg({2, 3, 4, 6}, builder.getBF16Type());
  auto nearest = Upsample2dOp::create(builder, loc, input, {8, 3});
  EXPECT_EQ(nearest.getType(), tensor({2, 3, 8, 3}, builder.getBF16Type()));
  EXPECT_EQ(nearest.getMode(), UpsampleMode::nearest);
  EXPECT_TRUE(succeeded(verify(nearest)));

  auto bilinear =
      Upsample2dOp::create(builder, loc, input, {5, 7}, UpsampleMode::bilinear,
                           /*align_corners=*/true);
  EXPECT_EQ(bilinear.getType(), tensor({2, 3, 5, 7}, builder.getBF16Type()));
  EXPECT_TRUE(succeeded(verify(bilinear)));
}

/// The attribute builders leave absent default-valued attributes unset when
/// they run type inference; it must use the defaults.
TEST_F(ConvOpsTest, AttributeBuildersInferWithAbsentDefaults) {
  auto conv = Conv2dOp::create(builder, loc, arg({1, 3, 8, 8}),
                               arg({4, 3, 3, 3}), /*bias=*/Value(),
                               /*stride=*/array({2, 2}));
  EXPECT_EQ(conv.getType(), tensor({1, 4, 3, 3}));
  EXPECT_EQ(conv.getPadding(), ArrayRef<int64_t>({0, 0}));
  auto transpose = ConvTranspose1dOp::create(builder, loc, arg({1, 4, 8}),
                                             arg({4, 2, 3}), /*bias=*/Value(),
                                             /*stride=*/nullptr);
  EXPECT_EQ(transpose.getType(), tensor({1, 2, 10}));
  auto pool = AvgPool2dOp::create(builder, loc, arg({1, 3, 8, 8}),
                                  array({2, 2}), /*stride=*/nullptr);
  EXPECT_EQ(pool.getType(), tensor({1, 3, 4, 4}));
  auto upsample =
      Upsample2dOp::create(builder, loc, arg({1, 3, 8, 8}), array({4, 4}));
  EXPECT_EQ(upsample.getType(), tensor({1, 3, 4, 4}));
  EXPECT_TRUE(succeeded(verify(conv)) && succeeded(verify(transpose)) &&
              succeeded(verify(pool)) && succeeded(verify(upsample)));
}

TEST_F(ConvOpsTest, VerifierRejectsBadGroups) {
  auto conv =
      Conv2dOp::create(builder, loc, arg({1, 4, 5, 5}), arg({6, 4, 3, 3}),
                       /*bias=*/Value(), {1, 1}, {0, 0}, {1, 1}, /*groups=*/3);
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  EXPECT_TRUE(failed(verify(conv)));
  EXPECT_EQ(message, "'kiln.conv2d' op input channels 4 are not divisible by "
                     "groups 3");
}

/// Type inference runs before verify() (in builders and parsers), so it must
/// fail cleanly on operands and attributes verify() would reject, reporting
/// at the given location or not at all without one.
TEST_F(ConvOpsTest, InferenceFailsCleanlyOnBadInput) {
  std::vector<std::string> messages;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    messages.push_back(diag.str());
    return success();
  });
  SmallVector<Type> types;
  Value input = arg({1, 4, 5, 5});
  Value weight = arg({6, 4, 3, 3});

  Conv2dOp::Properties convProps;
  convProps.stride = array({1, 0});
  EXPECT_TRUE(failed(Conv2dOp::inferReturnTypes(
      &context, loc, ValueRange{input, weight}, nullptr,
      OpaqueProperties(&convProps), {}, types)));
  // Without a location nothing is reported.
  EXPECT_TRUE(failed(Conv2dOp::inferReturnTypes(
      &context, std::nullopt, ValueRange{input, weight}, nullptr,
      OpaqueProperties(&convProps), {}, types)));
  EXPECT_TRUE(failed(
      Conv2dOp::inferReturnTypes(&context, loc, ValueRange{input}, nullptr,
                                 OpaqueProperties(nullptr), {}, types)));
  Value unranked =
      block.addArgument(UnrankedTensorType::get(builder.getF32Type()), loc);
  EXPECT_TRUE(failed(Conv2dOp::inferReturnTypes(
      &context, loc, ValueRange{unranked, weight}, nullptr,
      OpaqueProperties(nullptr), {}, types)));
  EXPECT_TRUE(failed(ConvTranspose1dOp::inferReturnTypes(
      &context, loc, ValueRange{input}, nullptr, OpaqueProperties(nullptr), {},
      types)));
  MaxPool2dOp::Properties poolProps;
  EXPECT_TRUE(failed(
      MaxPool2dOp::inferReturnTypes(&context, loc, ValueRange{input}, nullptr,
                                    OpaqueProperties(&poolProps), {}, types)));
  EXPECT_TRUE(failed(
      AvgPool2dOp::inferReturnTypes(&context, loc, ValueRange{}, nullptr,
                                    OpaqueProperties(nullptr), {}, types)));
  Upsample2dOp::Properties upsampleProps;
  EXPECT_TRUE(failed(Upsample2dOp::inferReturnTypes(
      &context, loc, ValueRange{input}, nullptr,
      OpaqueProperties(&upsampleProps), {}, types)));
  EXPECT_TRUE(failed(Upsample2dOp::inferReturnTypes(
      &context, loc, ValueRange{input, input}, nullptr,
      OpaqueProperties(&upsampleProps), {}, types)));

  EXPECT_TRUE(types.empty());
  EXPECT_EQ(messages, (std::vector<std::string>{
                          "'stride' entries must be positive, got [1, 0]",
                          "expected input and weight operands",
                          "input must be a ranked tensor",
                          "expected input and weight operands",
                          "requires attribute 'kernel_size'",
                          "expected one input operand",
                          "requires attribute 'size'",
                          "expected one input operand",
                      }));
}

} // namespace
