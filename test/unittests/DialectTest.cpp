//===- DialectTest.cpp - C++ API of the kiln dialect ----------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/InitAll.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::kiln;

namespace {

TEST(BroadcastTest, TrailingAligned) {
  auto shape = broadcastShapes({2, 1, 4}, {3, 1});
  ASSERT_TRUE(shape.has_value());
  EXPECT_EQ(*shape, (SmallVector<int64_t>{2, 3, 4}));
}

TEST(BroadcastTest, Incompatible) {
  EXPECT_FALSE(broadcastShapes({2, 3}, {4}).has_value());
  EXPECT_TRUE(isBroadcastableTo({1, 3}, {5, 2, 3}));
  EXPECT_FALSE(isBroadcastableTo({2, 3}, {3}));
  EXPECT_FALSE(isBroadcastableTo({2, 3}, {4, 3}));
}

TEST(BuilderTest, AddInfersBroadcastType) {
  MLIRContext context;
  context.loadDialect<KilnDialect>();
  OpBuilder builder(&context);
  Location loc = builder.getUnknownLoc();
  auto module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module.getBody());
  auto f32 = builder.getF32Type();
  auto a = ConstantOp::create(
      builder, loc,
      DenseElementsAttr::get(RankedTensorType::get({2, 3}, f32), 1.0f));
  auto b = ConstantOp::create(
      builder, loc, DenseElementsAttr::get(RankedTensorType::get({3}, f32), 0.0f));
  auto sum = AddOp::create(builder, loc, a, b);
  EXPECT_EQ(sum.getType(), RankedTensorType::get({2, 3}, f32));
  EXPECT_TRUE(succeeded(verify(module)));
  module->destroy();
}

} // namespace
