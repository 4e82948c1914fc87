//===- TensorOpsTest.cpp - C++ API of the Tensor kiln ops ---------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// Builds kiln ops into a module and checks it verifies at the end.
class TensorOpsTest : public ::testing::Test {
protected:
  TensorOpsTest() : builder(&context), loc(builder.getUnknownLoc()) {
    context.loadDialect<KilnDialect>();
    module = ModuleOp::create(loc);
    builder.setInsertionPointToEnd(module->getBody());
  }

  /// Returns a splat constant of the given shape (f32 unless `elementType`).
  Value input(ArrayRef<int64_t> shape, Type elementType = {}) {
    if (!elementType)
      elementType = builder.getF32Type();
    auto type = RankedTensorType::get(shape, elementType);
    return ConstantOp::create(
        builder, loc,
        DenseElementsAttr::get(type, builder.getZeroAttr(elementType)));
  }

  RankedTensorType f32(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, builder.getF32Type());
  }

  MLIRContext context;
  OpBuilder builder;
  Location loc;
  OwningOpRef<ModuleOp> module;
};

TEST_F(TensorOpsTest, CreationAndReshapeKeepGivenTypes) {
  auto iota = IotaOp::create(builder, loc,
                             RankedTensorType::get({2, 3}, builder.getI64Type()),
                             /*axis=*/1);
  EXPECT_EQ(iota.getAxis(), 1u);
  Value x = input({3});
  auto broadcast = BroadcastToOp::create(builder, loc, f32({2, 3}), x);
  auto reshape = ReshapeOp::create(builder, loc, f32({6}), broadcast);
  EXPECT_EQ(reshape.getType(), f32({6}));
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(TensorOpsTest, LayoutOpsInferTypes) {
  Value x = input({2, 3, 4});
  EXPECT_EQ(TransposeOp::create(builder, loc, x, 0, 2).getType(),
            f32({4, 3, 2}));
  EXPECT_EQ(PermuteOp::create(builder, loc, x, ArrayRef<int64_t>{1, 2, 0})
                .getType(),
            f32({3, 4, 2}));
  EXPECT_EQ(FlattenOp::create(builder, loc, x, 0, 1).getType(),
            f32({6, 4}));
  EXPECT_EQ(UnsqueezeOp::create(builder, loc, x, 3).getType(),
            f32({2, 3, 4, 1}));
  Value ones = input({1, 3, 1});
  EXPECT_EQ(SqueezeOp::create(builder, loc, ones, ArrayRef<int64_t>{0, 2})
                .getType(),
            f32({3}));
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(TensorOpsTest, ConcatAndSplitInferTypes) {
  Value a = input({2, 3});
  Value b = input({2, 5});
  auto concat = ConcatOp::create(builder, loc, ValueRange{a, b}, 1);
  EXPECT_EQ(concat.getType(), f32({2, 8}));
  auto split =
      SplitOp::create(builder, loc, concat, 1, ArrayRef<int64_t>{0, 3, 5});
  ASSERT_EQ(split.getNumResults(), 3u);
  EXPECT_EQ(split.getResult(0).getType(), f32({2, 0}));
  EXPECT_EQ(split.getResult(1).getType(), f32({2, 3}));
  EXPECT_EQ(split.getResult(2).getType(), f32({2, 5}));
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(TensorOpsTest, SliceRoundsUpAndPadAddsBothSides) {
  Value x = input({4, 7});
  // Dim 1 takes 1, 4 of [1, 5): ceil(4 / 3) = 2 elements.
  auto slice = SliceOp::create(builder, loc, x, ArrayRef<int64_t>{0, 1},
                               ArrayRef<int64_t>{4, 5},
                               ArrayRef<int64_t>{2, 3});
  EXPECT_EQ(slice.getType(), f32({2, 2}));
  auto pad = PadOp::create(builder, loc, x, ArrayRef<int64_t>{1, 0},
                           ArrayRef<int64_t>{2, 3}, APFloat(0.0));
  EXPECT_EQ(pad.getType(), f32({7, 10}));
  EXPECT_EQ(TrilOp::create(builder, loc, x).getType(), f32({4, 7}));
  EXPECT_EQ(TriuOp::create(builder, loc, x, /*diagonal=*/-1).getDiagonal(),
            static_cast<uint64_t>(-1));
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(TensorOpsTest, UnfoldCountsWindows) {
  Value x = input({2, 10, 3});
  // Windows of 4 every 3 along 10 elements start at 0, 3, 6: 3 windows.
  auto unfold = UnfoldOp::create(builder, loc, x, /*dim=*/1, /*size=*/4,
                                 /*step=*/3);
  EXPECT_EQ(unfold.getType(), f32({2, 3, 3, 4}));
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(TensorOpsTest, GatherIsAnEmbeddingLookup) {
  Value weight = input({100, 16});
  Value ids = input({4, 9}, builder.getI64Type());
  auto gather = GatherOp::create(builder, loc, weight, ids, /*axis=*/0);
  EXPECT_EQ(gather.getType(), f32({4, 9, 16}));
  Value data = input({2, 5, 6});
  Value idx = input({3}, builder.getI32Type());
  EXPECT_EQ(GatherOp::create(builder, loc, data, idx, 1).getType(),
            f32({2, 3, 6}));
  EXPECT_EQ(IndexSelectOp::create(builder, loc, data, idx, 2).getType(),
            f32({2, 5, 3}));
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(TensorOpsTest, InferenceRejectsDynamicShapes) {
  // Custom builders may hand inference a dynamically shaped value before the
  // operand constraints are verified.
  Block block;
  Value dynamic =
      block.addArgument(RankedTensorType::get({ShapedType::kDynamic, 3},
                                              builder.getF32Type()),
                        loc);
  TransposeOp::Properties properties;
  properties.dim0 = builder.getI64IntegerAttr(0);
  properties.dim1 = builder.getI64IntegerAttr(1);
  SmallVector<Value> operands = {dynamic};
  TransposeOp::Adaptor adaptor(operands, /*attrs=*/nullptr, properties);

  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    message = diagnostic.str();
    return success();
  });
  SmallVector<Type> types;
  EXPECT_TRUE(
      failed(TransposeOp::inferReturnTypes(&context, loc, adaptor, types)));
  EXPECT_EQ(message,
            "'input' must be a statically shaped tensor, got 'tensor<?x3xf32>'");

  // Without a location, inference fails silently.
  message.clear();
  EXPECT_TRUE(failed(
      TransposeOp::inferReturnTypes(&context, std::nullopt, adaptor, types)));
  EXPECT_TRUE(message.empty());
  EXPECT_TRUE(types.empty());
}

/// Builds `func.func @f(%x: inputType)` into a new module, with `body`
/// building its ops from %x and returning the value to return.
static OwningOpRef<ModuleOp>
buildFunction(MLIRContext &context, RankedTensorType inputType,
              function_ref<Value(OpBuilder &, Location, Value)> body) {
  OpBuilder builder(&context);
  Location loc = builder.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(builder, loc, "f",
                                   builder.getFunctionType(inputType, {}));
  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToEnd(entry);
  Value result = body(builder, loc, entry->getArgument(0));
  func::ReturnOp::create(builder, loc, result);
  func.setType(builder.getFunctionType(inputType, result.getType()));
  return module;
}

/// Applies the canonicalization patterns of the kiln shape ops and their
/// folders greedily to `module`.
static LogicalResult canonicalize(ModuleOp module) {
  MLIRContext *context = module.getContext();
  RewritePatternSet patterns(context);
  ReshapeOp::getCanonicalizationPatterns(patterns, context);
  PermuteOp::getCanonicalizationPatterns(patterns, context);
  BroadcastToOp::getCanonicalizationPatterns(patterns, context);
  return applyPatternsGreedily(module.getOperation(), std::move(patterns));
}

/// A context with the kiln and func dialects loaded.
class TensorOpsCanonicalizeTest : public ::testing::Test {
protected:
  TensorOpsCanonicalizeTest() {
    context.loadDialect<KilnDialect, func::FuncDialect>();
  }
  RankedTensorType f32(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, Float32Type::get(&context));
  }
  MLIRContext context;
};

TEST_F(TensorOpsCanonicalizeTest, ReshapeOfReshapeIsOneReshape) {
  OwningOpRef<ModuleOp> module = buildFunction(
      context, f32({2, 3}), [&](OpBuilder &builder, Location loc, Value x) {
        auto flat = ReshapeOp::create(builder, loc, f32({6}), x);
        return ReshapeOp::create(builder, loc, f32({3, 2}), flat).getResult();
      });
  ASSERT_TRUE(succeeded(verify(*module)));
  ASSERT_TRUE(succeeded(canonicalize(*module)));
  SmallVector<ReshapeOp> reshapes;
  module->walk([&](ReshapeOp op) { reshapes.push_back(op); });
  ASSERT_EQ(reshapes.size(), 1u);
  EXPECT_TRUE(isa<BlockArgument>(reshapes.front().getInput()));
  EXPECT_EQ(reshapes.front().getType(), f32({3, 2}));
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(TensorOpsCanonicalizeTest, PermuteOfPermuteComposes) {
  OwningOpRef<ModuleOp> module = buildFunction(
      context, f32({2, 3, 4}), [&](OpBuilder &builder, Location loc, Value x) {
        auto inner =
            PermuteOp::create(builder, loc, x, ArrayRef<int64_t>{1, 0, 2});
        return PermuteOp::create(builder, loc, inner,
                                 ArrayRef<int64_t>{2, 1, 0})
            .getResult();
      });
  ASSERT_TRUE(succeeded(verify(*module)));
  ASSERT_TRUE(succeeded(canonicalize(*module)));
  SmallVector<PermuteOp> permutes;
  module->walk([&](PermuteOp op) { permutes.push_back(op); });
  ASSERT_EQ(permutes.size(), 1u);
  EXPECT_TRUE(isa<BlockArgument>(permutes.front().getInput()));
  // Dim i of the result is dim inner[outer[i]] of x.
  EXPECT_EQ(permutes.front().getPermutation(), ArrayRef<int64_t>({2, 0, 1}));
  EXPECT_EQ(permutes.front().getType(), f32({4, 2, 3}));
  EXPECT_TRUE(succeeded(verify(*module)));
}

} // namespace
