//===- AttentionOpsTest.cpp - C++ API of the Attention kiln ops -----------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// Builds attention ops over block arguments of the given types and collects
/// the diagnostics they emit.
class AttentionOpTest : public ::testing::Test {
protected:
  AttentionOpTest() {
    context.loadDialect<KilnDialect>();
    builder.setInsertionPointToEnd(&block);
  }

  /// Returns a new block argument of type tensor<shape x elementType>.
  Value arg(ArrayRef<int64_t> shape, Type elementType) {
    return block.addArgument(RankedTensorType::get(shape, elementType), loc);
  }

  /// Verifies `op`, recording the first diagnostic in `lastError`.
  bool verifies(Operation *op) {
    lastError.clear();
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      if (lastError.empty())
        lastError = diag.str();
      return success();
    });
    return succeeded(verify(op));
  }

  MLIRContext context;
  OpBuilder builder{&context};
  Location loc = builder.getUnknownLoc();
  Block block;
  std::string lastError;
};

TEST_F(AttentionOpTest, LseResultByCloneOnly) {
  // Inference builds the one-result form; cloneWithLse adds the lse
  // ([B, Hq, Sq], f32 for a half query) and takes it off again.
  Type f16 = builder.getF16Type();
  Value q = arg({2, 4, 3, 8}, f16);
  Value k = arg({2, 2, 5, 8}, f16);
  Value v = arg({2, 2, 5, 16}, f16);
  auto op = AttentionOp::create(builder, loc, q, k, v);
  EXPECT_EQ(op->getNumResults(), 1u);
  EXPECT_FALSE(op.getLse());
  AttentionOp withLse = op.cloneWithLse(builder, /*withLse=*/true);
  ASSERT_TRUE(withLse.getLse());
  EXPECT_EQ(withLse.getLse().getType(),
            RankedTensorType::get({2, 4, 3}, builder.getF32Type()));
  EXPECT_EQ(withLse.getResult().getType(), op.getResult().getType());
  EXPECT_TRUE(verifies(withLse)) << lastError;
  AttentionOp without = withLse.cloneWithLse(builder, /*withLse=*/false);
  EXPECT_EQ(without->getNumResults(), 1u);
  EXPECT_TRUE(verifies(without)) << lastError;
  EXPECT_EQ(AttentionOp::getLseType(cast<RankedTensorType>(
                arg({1, 2, 3, 4}, builder.getF64Type()).getType())),
            RankedTensorType::get({1, 2, 3}, builder.getF64Type()));
}

TEST_F(AttentionOpTest, PlainInfersTypeAndDefaults) {
  Type f32 = builder.getF32Type();
  Value q = arg({2, 4, 3, 8}, f32);
  Value k = arg({2, 2, 5, 8}, f32);
  Value v = arg({2, 2, 5, 16}, f32);
  auto op = AttentionOp::create(builder, loc, q, k, v);
  EXPECT_EQ(op.getResult().getType(),
            RankedTensorType::get({2, 4, 3, 16}, f32));
  EXPECT_TRUE(verifies(op)) << lastError;

  EXPECT_EQ(op.getNumQueryHeads(), 4);
  EXPECT_EQ(op.getNumKVHeads(), 2);
  EXPECT_EQ(op.getGroupSize(), 2);
  EXPECT_DOUBLE_EQ(op.getEffectiveScale(), 1.0 / std::sqrt(8.0));
  EXPECT_EQ(op.getEffectiveWindowRight(), std::nullopt);
  EXPECT_FALSE(op.getCausal());
  EXPECT_EQ(op.getAlignment(), AttentionAlignment::bottom_right);
  EXPECT_EQ(op.getDropoutPAttr().getValueAsDouble(), 0.0);
  EXPECT_FALSE(op.getMask());
  EXPECT_FALSE(op.hasBooleanMask());
  EXPECT_FALSE(op.hasAdditiveMask());
  EXPECT_FALSE(op.getSeed());
}

TEST_F(AttentionOpTest, EveryOptionalOperandAndAttribute) {
  Type bf16 = builder.getBF16Type();
  Value q = arg({2, 4, 3, 8}, bf16);
  Value k = arg({2, 2, 5, 8}, bf16);
  Value v = arg({2, 2, 5, 4}, bf16);
  Value mask = arg({2, 1, 3, 5}, builder.getI1Type());
  Value keyLengths = arg({2}, builder.getI32Type());
  Value queryLengths = arg({2}, builder.getI64Type());
  Value seed = arg({}, builder.getI64Type());
  auto op = AttentionOp::create(
      builder, loc, q, k, v, mask, keyLengths, queryLengths, seed,
      /*scale=*/builder.getF64FloatAttr(0.5),
      /*causal=*/builder.getUnitAttr(),
      /*window_left=*/builder.getI64IntegerAttr(2),
      /*window_right=*/nullptr,
      AttentionAlignmentAttr::get(&context, AttentionAlignment::top_left),
      /*softcap=*/builder.getF64FloatAttr(30.0),
      /*dropout_p=*/builder.getF64FloatAttr(0.1));
  EXPECT_EQ(op.getResult().getType(),
            RankedTensorType::get({2, 4, 3, 4}, bf16));
  EXPECT_TRUE(verifies(op)) << lastError;

  EXPECT_EQ(op.getMask(), mask);
  EXPECT_EQ(op.getKeyLengths(), keyLengths);
  EXPECT_EQ(op.getQueryLengths(), queryLengths);
  EXPECT_EQ(op.getSeed(), seed);
  EXPECT_TRUE(op.hasBooleanMask());
  EXPECT_FALSE(op.hasAdditiveMask());
  EXPECT_DOUBLE_EQ(op.getEffectiveScale(), 0.5);
  // causal means window_right = 0 even with the attribute absent.
  EXPECT_EQ(op.getEffectiveWindowRight(), std::optional<int64_t>(0));
  EXPECT_EQ(op.getAlignment(), AttentionAlignment::top_left);
  EXPECT_EQ(op.getWindowLeftAttr().getInt(), 2);
}

TEST_F(AttentionOpTest, OnlySomeOptionalOperands) {
  Type f64 = builder.getF64Type();
  Value q = arg({1, 8, 1, 16}, f64);
  Value kv = arg({1, 1, 7, 16}, f64);
  Value bias = arg({1, 8, 1, 7}, f64);
  Value keyLengths = arg({1}, builder.getI64Type());
  auto op = AttentionOp::create(
      builder, loc, q, kv, kv, bias, keyLengths, /*query_lengths=*/nullptr,
      /*seed=*/nullptr, /*scale=*/nullptr, /*causal=*/nullptr,
      /*window_left=*/nullptr,
      /*window_right=*/builder.getI64IntegerAttr(1), /*alignment=*/nullptr,
      /*softcap=*/nullptr, /*dropout_p=*/nullptr);
  EXPECT_EQ(op.getResult().getType(),
            RankedTensorType::get({1, 8, 1, 16}, f64));
  EXPECT_TRUE(verifies(op)) << lastError;
  EXPECT_FALSE(op.getQueryLengths());
  EXPECT_FALSE(op.getSeed());
  // Multi-query attention: every query head reads kv head 0.
  EXPECT_EQ(op.getGroupSize(), 8);
  EXPECT_TRUE(op.hasAdditiveMask());
  EXPECT_FALSE(op.hasBooleanMask());
  EXPECT_EQ(op.getEffectiveWindowRight(), std::optional<int64_t>(1));
  EXPECT_EQ(op.getAlignment(), AttentionAlignment::bottom_right);
  EXPECT_DOUBLE_EQ(op.getEffectiveScale(), 0.25);
}

TEST_F(AttentionOpTest, ZeroSizes) {
  Type f16 = builder.getF16Type();
  // B = 0, Sq = 0, Sk = 0 and even Hq = Hkv = 0 and Dk = 0 verify.
  Value q = arg({0, 0, 0, 0}, f16);
  Value k = arg({0, 0, 0, 0}, f16);
  Value v = arg({0, 0, 0, 3}, f16);
  auto op = AttentionOp::create(builder, loc, q, k, v);
  EXPECT_EQ(op.getResult().getType(), RankedTensorType::get({0, 0, 0, 3}, f16));
  EXPECT_TRUE(verifies(op)) << lastError;
  // No division by zero: R is 1 for Hq = Hkv = 0, and the default scale is
  // 1 (not 1/sqrt(0)) for Dk = 0.
  EXPECT_EQ(op.getGroupSize(), 1);
  EXPECT_DOUBLE_EQ(op.getEffectiveScale(), 1.0);
}

TEST_F(AttentionOpTest, VerifierRejectsBuiltOps) {
  Type f32 = builder.getF32Type();
  Value q = arg({2, 4, 3, 8}, f32);
  Value k = arg({2, 0, 5, 8}, f32);
  auto noKVHeads = AttentionOp::create(builder, loc, q, k, k);
  EXPECT_FALSE(verifies(noKVHeads));
  EXPECT_EQ(lastError, "'kiln.attention' op key and value have 0 heads, but "
                       "query has 4; each query head needs a kv head");
  // Group size of an op that does not verify: still no division by zero.
  EXPECT_EQ(noKVHeads.getGroupSize(), 1);

  Value kv = arg({2, 2, 5, 8}, f32);
  auto noSeed =
      AttentionOp::create(builder, loc, q, kv, kv, nullptr, nullptr, nullptr,
                          nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                          nullptr, builder.getF64FloatAttr(0.25));
  EXPECT_FALSE(verifies(noSeed));
  EXPECT_EQ(lastError, "'kiln.attention' op 'dropout_p' = 0.25 needs a seed "
                       "operand");
}

TEST_F(AttentionOpTest, InferReturnTypesFailsWithoutCrashing) {
  Type f32 = builder.getF32Type();
  Value q = arg({2, 4, 3, 8}, f32);
  Value k = arg({2, 4, 5, 8}, f32);
  Value v = arg({2, 4, 5, 8}, f32);
  Value rank3 = arg({4, 3, 8}, f32);
  Value unranked = block.addArgument(UnrankedTensorType::get(f32), loc);

  std::vector<std::string> errors;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    errors.push_back(diag.str());
    return success();
  });
  auto infer = [&](ValueRange operands, std::optional<Location> at) {
    SmallVector<Type> types;
    return AttentionOp::inferReturnTypes(
        &context, at, operands, DictionaryAttr(), OpaqueProperties(nullptr),
        RegionRange(), types);
  };

  SmallVector<Type> types;
  ASSERT_TRUE(succeeded(AttentionOp::inferReturnTypes(
      &context, loc, ValueRange{q, k, v}, DictionaryAttr(),
      OpaqueProperties(nullptr), RegionRange(), types)));
  EXPECT_EQ(types, SmallVector<Type>{RankedTensorType::get({2, 4, 3, 8}, f32)});

  EXPECT_TRUE(failed(infer(ValueRange{q, k}, loc)));
  EXPECT_TRUE(failed(infer(ValueRange{rank3, k, v}, loc)));
  EXPECT_TRUE(failed(infer(ValueRange{q, k, rank3}, loc)));
  EXPECT_TRUE(failed(infer(ValueRange{unranked, k, v}, loc)));
  EXPECT_EQ(errors,
            (std::vector<std::string>{
                "expected query, key and value operands, got 2 operands",
                "query must have rank 4 [B, Hq, Sq, Dk], got rank 3",
                "value must have rank 4 [B, Hkv, Sk, Dv], got rank 3",
                "query must be a ranked tensor [B, Hq, Sq, Dk], got "
                "'tensor<*xf32>'"}));

  // Without a location, inference fails silently.
  errors.clear();
  EXPECT_TRUE(failed(infer(ValueRange{rank3, k, v}, std::nullopt)));
  EXPECT_TRUE(errors.empty());
}

} // namespace
