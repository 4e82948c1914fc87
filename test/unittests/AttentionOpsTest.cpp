//===- AttentionOpsTest.cpp - C++ API of the Attention kiln ops -----------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Utils/AttentionUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"

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
      /*alibi_slopes=*/nullptr, /*sinks=*/nullptr,
      /*cu_seqlens_q=*/nullptr, /*cu_seqlens_k=*/nullptr,
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
      /*seed=*/nullptr, /*alibi_slopes=*/nullptr, /*sinks=*/nullptr,
      /*cu_seqlens_q=*/nullptr, /*cu_seqlens_k=*/nullptr,
      /*scale=*/nullptr,
      /*causal=*/nullptr, /*window_left=*/nullptr,
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
                          nullptr, nullptr, nullptr, nullptr, nullptr,
                          builder.getF64FloatAttr(0.25));
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

//===----------------------------------------------------------------------===//
// Attention's one definition (AttentionOpInterface, AttentionUtils.h)
//===----------------------------------------------------------------------===//

/// The band of docs/Attention.md, written out here independently:
/// p(i) = i + (Sk - Sq) for bottom_right, i for top_left, and key j visible
/// iff p(i) - L <= j <= p(i) + R for each edge that is given.
static bool contractBand(int64_t numQueries, int64_t numKeys,
                         AttentionAlignment alignment,
                         std::optional<int64_t> left,
                         std::optional<int64_t> right, int64_t i, int64_t j) {
  int64_t p = alignment == AttentionAlignment::bottom_right
                  ? i + numKeys - numQueries
                  : i;
  return (!left || j >= p - *left) && (!right || j <= p + *right);
}

TEST(AttentionBandTest, MatchesTheContractOnEveryEntry) {
  struct Case {
    int64_t numQueries, numKeys;
    std::optional<int64_t> left, right;
  };
  const Case cases[] = {
      {5, 9, std::nullopt, 0},  {9, 5, std::nullopt, 0}, {7, 7, 2, 0},
      {3, 11, 4, 1},            {11, 3, 0, 0},           {6, 6, 0, std::nullopt},
      {4, 6, 9, 9},             {4, 6, 10, 10},          {1, 1, 0, 0},
      {8, 5, std::nullopt, std::nullopt},
  };
  for (const Case &c : cases) {
    for (AttentionAlignment alignment :
         {AttentionAlignment::bottom_right, AttentionAlignment::top_left}) {
      AttentionBand band = AttentionBand::get(c.numQueries, c.numKeys,
                                              alignment, c.left, c.right);
      for (int64_t i = 0; i < c.numQueries; ++i)
        for (int64_t j = 0; j < c.numKeys; ++j)
          EXPECT_EQ(band.contains(i, j),
                    contractBand(c.numQueries, c.numKeys, alignment, c.left,
                                 c.right, i, j))
              << "Sq=" << c.numQueries << " Sk=" << c.numKeys << " i=" << i
              << " j=" << j;
    }
  }
}

TEST(AttentionBandTest, EdgesThatBoundNothingAreLeftUnset) {
  // p(i) lies in [min(0, Sk - Sq), max(Sq, Sk) - 1]: an edge of Sq + Sk or
  // more excludes no key, one below it may.
  AttentionBand wide = AttentionBand::get(4, 6, AttentionAlignment::bottom_right,
                                          10, INT64_MAX);
  EXPECT_FALSE(wide.minDistance);
  EXPECT_FALSE(wide.maxDistance);
  EXPECT_FALSE(wide.isBounded());
  AttentionBand edge = AttentionBand::get(4, 6, AttentionAlignment::bottom_right,
                                          9, 9);
  EXPECT_EQ(edge.minDistance, std::optional<int64_t>(2 - 9));
  EXPECT_EQ(edge.maxDistance, std::optional<int64_t>(2 + 9));
  AttentionBand causal = AttentionBand::get(3, 8, AttentionAlignment::top_left,
                                            std::nullopt, 0);
  EXPECT_FALSE(causal.minDistance);
  EXPECT_EQ(causal.maxDistance, std::optional<int64_t>(0));
}

/// kiln.attention and its adjoint mean the same through the interface.
TEST(AttentionOpInterfaceTest, ForwardAndAdjointShareOneDescription) {
  MLIRContext context;
  context.loadDialect<KilnDialect, func::FuncDialect>();
  const char *source = R"mlir(
    func.func @f(%q: tensor<2x4x3x8xbf16>, %k: tensor<2x2x5x8xbf16>,
                 %v: tensor<2x2x5x6xbf16>, %do: tensor<2x4x3x6xbf16>,
                 %m: tensor<3x5xbf16>, %kl: tensor<2xi32>, %s: tensor<i64>) {
      %o = kiln.attention %q, %k, %v mask(%m : tensor<3x5xbf16>)
             key_lengths(%kl : tensor<2xi32>) seed(%s : tensor<i64>)
             {causal, window_left = 2 : i64, softcap = 30.0 : f64,
              dropout_p = 0.25 : f64, alignment = #kiln.alignment<top_left>}
             : tensor<2x4x3x8xbf16>, tensor<2x2x5x8xbf16>, tensor<2x2x5x6xbf16>
             -> tensor<2x4x3x6xbf16>
      %dq, %dk, %dv, %dm = kiln.attention_grad %q, %k, %v, %do
             mask(%m : tensor<3x5xbf16>) key_lengths(%kl : tensor<2xi32>)
             seed(%s : tensor<i64>)
             {causal, window_left = 2 : i64, softcap = 30.0 : f64,
              dropout_p = 0.25 : f64, alignment = #kiln.alignment<top_left>}
             : tensor<2x4x3x8xbf16>, tensor<2x2x5x8xbf16>, tensor<2x2x5x6xbf16>,
               tensor<2x4x3x6xbf16>
             -> tensor<2x4x3x8xbf16>, tensor<2x2x5x8xbf16>,
                tensor<2x2x5x6xbf16>, tensor<3x5xbf16>
      return
    }
  )mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  ASSERT_TRUE(module);
  SmallVector<AttentionOpInterface> ops;
  module->walk([&](AttentionOpInterface op) { ops.push_back(op); });
  ASSERT_EQ(ops.size(), 2u);
  for (AttentionOpInterface op : ops) {
    SCOPED_TRACE(op->getName().getStringRef().str());
    AttentionSizes sizes = AttentionSizes::get(op);
    EXPECT_EQ(sizes.batch, 2);
    EXPECT_EQ(sizes.numHeads, 4);
    EXPECT_EQ(sizes.numQueries, 3);
    EXPECT_EQ(sizes.keyDim, 8);
    EXPECT_EQ(sizes.numKVHeads, 2);
    EXPECT_EQ(sizes.numKeys, 5);
    EXPECT_EQ(sizes.valueDim, 6);
    EXPECT_EQ(sizes.groupSize, 2);
    EXPECT_DOUBLE_EQ(sizes.dropout, 0.25);
    EXPECT_TRUE(sizes.elementType.isBF16());
    EXPECT_TRUE(sizes.computeType.isF32());
    EXPECT_EQ(sizes.getScoresShape(), (SmallVector<int64_t, 4>{2, 4, 3, 5}));

    // top_left, causal, L = 2: 0 - 2 <= j - i <= 0.
    AttentionBand band = AttentionBand::get(op);
    EXPECT_EQ(band.minDistance, std::optional<int64_t>(-2));
    EXPECT_EQ(band.maxDistance, std::optional<int64_t>(0));

    AttentionLogits logits = AttentionLogits::get(
        op, op.getMask(), op.getKeyLengths(), op.getQueryLengths(),
        op.getAlibiSlopes());
    EXPECT_DOUBLE_EQ(logits.scale, 1.0 / std::sqrt(8.0));
    EXPECT_EQ(logits.softcap, std::optional<double>(30.0));
    EXPECT_EQ(logits.additiveMask, op.getMask());
    EXPECT_FALSE(logits.visibility.booleanMask);
    EXPECT_EQ(logits.visibility.keyLengths, op.getKeyLengths());
    EXPECT_FALSE(logits.visibility.queryLengths);
    EXPECT_TRUE(op.hasAdditiveMask());
    EXPECT_FALSE(op.hasBooleanMask());
  }
}

} // namespace
