//===- DropoutTest.cpp - Philox, kiln.dropout and attention's dropout -----===//
//
// The generator against Random123's known answers, and the properties of
// the dropout lowerings that fixed-value fixtures cannot show: the keep rate
// over a large tensor, determinism in the seed, p = 0 as the identity, and
// kiln.attention drawing exactly kiln.dropout's mask on [B, Hq, Sq, Sk].
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Utils/Philox.h"

#include "kiln/Execution/JitSession.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include "TestSupport/JitHarness.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::kiln;

namespace {

using test::makeRandomTensor;
using test::makeTensor;

HostTensor filled(DType dtype, ArrayRef<int64_t> shape, double value) {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return makeTensor(dtype, shape, std::vector<double>(count, value));
}

HostTensor seedTensor(int64_t seed) {
  llvm::Expected<HostTensor> tensor = HostTensor::allocate(DType::I64, {});
  EXPECT_TRUE(bool(tensor));
  tensor->getValues<int64_t>()[0] = seed;
  return std::move(*tensor);
}

bool sameBytes(const HostTensor &a, const HostTensor &b) {
  return a.getNumBytes() == b.getNumBytes() &&
         std::memcmp(a.getData(), b.getData(), a.getNumBytes()) == 0;
}

//===----------------------------------------------------------------------===//
// Philox 4x32-10
//===----------------------------------------------------------------------===//

/// Builds `@philox(counter: tensor<4xi32>, key: tensor<2xi32>) ->
/// tensor<4xi32>` with buildPhilox4x32 and JIT-compiles it.
std::unique_ptr<JitModule> compilePhilox(JitSession &session) {
  MLIRContext &context = session.getContext();
  context.loadDialect<arith::ArithDialect, func::FuncDialect,
                      tensor::TensorDialect>();
  OpBuilder builder(&context);
  Location loc = builder.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());
  Type i32 = builder.getI32Type();
  auto counterType = RankedTensorType::get({4}, i32);
  auto keyType = RankedTensorType::get({2}, i32);
  auto func = func::FuncOp::create(
      builder, loc, "philox",
      builder.getFunctionType({counterType, keyType}, {counterType}));
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToStart(body);
  auto element = [&](Value tensor, int64_t index) -> Value {
    Value position = arith::ConstantIndexOp::create(builder, loc, index);
    return tensor::ExtractOp::create(builder, loc, tensor, position);
  };
  Value counter = body->getArgument(0), key = body->getArgument(1);
  std::array<Value, 4> words = buildPhilox4x32(
      builder, loc,
      {element(counter, 0), element(counter, 1), element(counter, 2),
       element(counter, 3)},
      {element(key, 0), element(key, 1)});
  Value result = tensor::FromElementsOp::create(builder, loc, counterType,
                                                ValueRange(words));
  func::ReturnOp::create(builder, loc, result);

  FailureOr<std::unique_ptr<JitModule>> compiled = session.compile(*module);
  if (failed(compiled))
    return nullptr;
  return std::move(*compiled);
}

HostTensor words(ArrayRef<uint32_t> values) {
  llvm::Expected<HostTensor> tensor = HostTensor::allocate(
      DType::I32, {static_cast<int64_t>(values.size())});
  EXPECT_TRUE(bool(tensor));
  for (auto [i, value] : llvm::enumerate(values))
    tensor->getValues<int32_t>()[i] = static_cast<int32_t>(value);
  return std::move(*tensor);
}

TEST(PhiloxTest, RandomKnownAnswers) {
  JitSession session;
  std::unique_ptr<JitModule> jit = compilePhilox(session);
  ASSERT_TRUE(jit);
  struct Vector {
    uint32_t counter[4], key[2], want[4];
  };
  // Random123's kat_vectors, philox4x32_10.
  const Vector vectors[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
       {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const Vector &vector : vectors) {
    FailureOr<SmallVector<HostTensor>> out =
        jit->invoke("philox", {words(vector.counter), words(vector.key)});
    ASSERT_TRUE(succeeded(out));
    ArrayRef<int32_t> got = (*out)[0].getValues<int32_t>();
    for (int w = 0; w < 4; ++w)
      EXPECT_EQ(static_cast<uint32_t>(got[w]), vector.want[w])
          << llvm::formatv("word {0} of counter {1:x}", w, vector.counter[0]).str();
  }
}

TEST(PhiloxTest, KeepThresholdIsExact) {
  // Keep when word * 2^-32 >= p, i.e. word >= ceil(p * 2^32).
  EXPECT_EQ(getDropoutKeepThreshold(0.0), 0);
  EXPECT_EQ(getDropoutKeepThreshold(0.5), int64_t(1) << 31);
  EXPECT_EQ(getDropoutKeepThreshold(std::ldexp(1.0, -32)), 1);
  EXPECT_EQ(getDropoutKeepThreshold(std::ldexp(1.0, -33)), 1);
  EXPECT_EQ(getDropoutKeepThreshold(std::ldexp(3.0, -33)), 2);
  EXPECT_EQ(getDropoutKeepThreshold(std::ldexp(1.0, -40)), 1);
  // Just below 1: no 32-bit word reaches it, nothing is kept.
  EXPECT_EQ(getDropoutKeepThreshold(std::nextafter(1.0, 0.0)), int64_t(1) << 32);
  EXPECT_EQ(getDropoutKeepThreshold(1.0 - std::ldexp(1.0, -32)),
            (int64_t(1) << 32) - 1);
}

//===----------------------------------------------------------------------===//
// kiln.dropout and attention's dropout through the JIT
//===----------------------------------------------------------------------===//

constexpr int64_t kRows = 256, kCols = 256; // 65536 draws

constexpr const char *kDropoutModule = R"mlir(
func.func @p01(%x: tensor<256x256xf32>, %s: tensor<i64>) -> tensor<256x256xf32> {
  %0 = kiln.dropout %x, %s {p = 0.1 : f64} : tensor<256x256xf32>, tensor<i64>
  return %0 : tensor<256x256xf32>
}
func.func @p03(%x: tensor<256x256xf32>, %s: tensor<i64>) -> tensor<256x256xf32> {
  %0 = kiln.dropout %x, %s {p = 0.3 : f64} : tensor<256x256xf32>, tensor<i64>
  return %0 : tensor<256x256xf32>
}
func.func @p09(%x: tensor<256x256xf32>, %s: tensor<i64>) -> tensor<256x256xf32> {
  %0 = kiln.dropout %x, %s {p = 0.9 : f64} : tensor<256x256xf32>, tensor<i64>
  return %0 : tensor<256x256xf32>
}
func.func @p0(%x: tensor<256x256xf32>, %s: tensor<i64>) -> tensor<256x256xf32> {
  %0 = kiln.dropout %x, %s {p = 0.0 : f64} : tensor<256x256xf32>, tensor<i64>
  return %0 : tensor<256x256xf32>
}
func.func @p05_f64(%x: tensor<7x9xf64>, %s: tensor<i64>) -> tensor<7x9xf64> {
  %0 = kiln.dropout %x, %s {p = 0.5 : f64} : tensor<7x9xf64>, tensor<i64>
  return %0 : tensor<7x9xf64>
}
)mlir";

class DropoutTest : public ::testing::Test {
protected:
  void SetUp() override {
    FailureOr<std::unique_ptr<JitModule>> compiled =
        session.compileSource(kDropoutModule, "dropout.mlir");
    ASSERT_TRUE(succeeded(compiled));
    jit = std::move(*compiled);
  }

  HostTensor run(StringRef name, const HostTensor &x, int64_t seed) {
    FailureOr<SmallVector<HostTensor>> out =
        jit->invoke(name, {x, seedTensor(seed)});
    EXPECT_TRUE(succeeded(out));
    return std::move((*out)[0]);
  }

  JitSession session;
  std::unique_ptr<JitModule> jit;
};

/// Checks that `out` keeps each element of an all-ones input as exactly
/// fl32(1 / (1 - p)) or drops it to 0, and that the keep rate is within 3
/// standard deviations of 1 - p.
void expectKeepRate(const HostTensor &out, double p, float keptValue) {
  int64_t n = out.getNumElements(), kept = 0;
  for (float value : out.getValues<float>()) {
    if (value == 0.0f)
      continue;
    ++kept;
    ASSERT_EQ(value, keptValue);
  }
  double sigma = std::sqrt(n * p * (1.0 - p));
  EXPECT_NEAR(double(kept), n * (1.0 - p), 3.0 * sigma)
      << "p = " << p << ", kept " << kept << " of " << n;
}

TEST_F(DropoutTest, KeepRateWithinThreeSigma) {
  HostTensor ones = filled(DType::F32, {kRows, kCols}, 1.0);
  struct {
    const char *name;
    double p;
  } cases[] = {{"p01", 0.1}, {"p03", 0.3}, {"p09", 0.9}};
  for (auto [name, p] : cases)
    for (int64_t seed : {int64_t(0), int64_t(42), int64_t(-7),
                         int64_t(0x123456789abcdefLL)}) {
      SCOPED_TRACE(llvm::formatv("{0} seed {1}", name, seed).str());
      expectKeepRate(run(name, ones, seed), p, float(1.0 / (1.0 - p)));
    }
}

TEST_F(DropoutTest, SameSeedSameOutput) {
  HostTensor x = makeRandomTensor(DType::F32, {kRows, kCols}, 3);
  HostTensor first = run("p03", x, 1234);
  HostTensor second = run("p03", x, 1234);
  EXPECT_TRUE(sameBytes(first, second));
  // A second compilation draws the same mask too: nothing is stateful.
  JitSession other;
  FailureOr<std::unique_ptr<JitModule>> recompiled =
      other.compileSource(kDropoutModule, "dropout.mlir");
  ASSERT_TRUE(succeeded(recompiled));
  FailureOr<SmallVector<HostTensor>> third =
      (*recompiled)->invoke("p03", {x, seedTensor(1234)});
  ASSERT_TRUE(succeeded(third));
  EXPECT_TRUE(sameBytes(first, (*third)[0]));
  // Another seed (including one differing only in its high word) draws
  // another mask.
  EXPECT_FALSE(sameBytes(first, run("p03", x, 1235)));
  EXPECT_FALSE(sameBytes(first, run("p03", x, 1234 + (int64_t(1) << 32))));
}

TEST_F(DropoutTest, PZeroIsTheIdentity) {
  HostTensor x = makeRandomTensor(DType::F32, {kRows, kCols}, 4);
  EXPECT_TRUE(sameBytes(run("p0", x, 99), x));
}

TEST_F(DropoutTest, KeptElementsAreScaled) {
  HostTensor x = makeRandomTensor(DType::F64, {7, 9}, 5);
  HostTensor out = run("p05_f64", x, 11);
  int64_t kept = 0;
  for (int64_t i = 0; i < x.getNumElements(); ++i) {
    double in = x.getValues<double>()[i], got = out.getValues<double>()[i];
    if (got == 0.0 && in != 0.0)
      continue;
    ++kept;
    EXPECT_EQ(got, in * 2.0);
  }
  EXPECT_GT(kept, 0);
  EXPECT_LT(kept, x.getNumElements());
}

// Attention with Q = 0 (all scores equal) over Sk keys and V = the identity
// [Sk, Sk]: O[b, h, i, j] = P'[i, j] = Z[b, h, i, j] / (Sk * (1 - p)). So O
// shows the attention's dropout mask, which must be kiln.dropout's mask on
// [B, Hq, Sq, Sk].
constexpr const char *kAttentionModule = R"mlir(
func.func @attn(%q: tensor<4x8x32x1xf32>, %k: tensor<4x4x64x1xf32>, %v: tensor<4x4x64x64xf32>,
                %s: tensor<i64>) -> tensor<4x8x32x64xf32> {
  %0 = kiln.attention %q, %k, %v seed(%s : tensor<i64>) {dropout_p = 0.25 : f64}
      : tensor<4x8x32x1xf32>, tensor<4x4x64x1xf32>, tensor<4x4x64x64xf32> -> tensor<4x8x32x64xf32>
  return %0 : tensor<4x8x32x64xf32>
}
func.func @drop(%x: tensor<4x8x32x64xf32>, %s: tensor<i64>) -> tensor<4x8x32x64xf32> {
  %0 = kiln.dropout %x, %s {p = 0.25 : f64} : tensor<4x8x32x64xf32>, tensor<i64>
  return %0 : tensor<4x8x32x64xf32>
}
func.func @attn_empty_rows(%q: tensor<2x2x5x3xf32>, %k: tensor<2x1x3x3xf32>, %v: tensor<2x1x3x4xf32>,
                           %kl: tensor<2xi32>, %s: tensor<i64>) -> tensor<2x2x5x4xf32> {
  %0 = kiln.attention %q, %k, %v key_lengths(%kl : tensor<2xi32>) seed(%s : tensor<i64>)
      {causal, dropout_p = 0.5 : f64}
      : tensor<2x2x5x3xf32>, tensor<2x1x3x3xf32>, tensor<2x1x3x4xf32> -> tensor<2x2x5x4xf32>
  return %0 : tensor<2x2x5x4xf32>
}
func.func @attn_p0(%q: tensor<2x4x3x5xf32>, %k: tensor<2x2x6x5xf32>, %v: tensor<2x2x6x3xf32>,
                   %s: tensor<i64>) -> tensor<2x4x3x3xf32> {
  %0 = kiln.attention %q, %k, %v seed(%s : tensor<i64>) {causal, dropout_p = 0.0 : f64}
      : tensor<2x4x3x5xf32>, tensor<2x2x6x5xf32>, tensor<2x2x6x3xf32> -> tensor<2x4x3x3xf32>
  return %0 : tensor<2x4x3x3xf32>
}
func.func @attn_plain(%q: tensor<2x4x3x5xf32>, %k: tensor<2x2x6x5xf32>, %v: tensor<2x2x6x3xf32>)
    -> tensor<2x4x3x3xf32> {
  %0 = kiln.attention %q, %k, %v {causal}
      : tensor<2x4x3x5xf32>, tensor<2x2x6x5xf32>, tensor<2x2x6x3xf32> -> tensor<2x4x3x3xf32>
  return %0 : tensor<2x4x3x3xf32>
}
func.func @attn_drop(%q: tensor<2x4x3x5xf32>, %k: tensor<2x2x6x5xf32>, %v: tensor<2x2x6x3xf32>,
                     %s: tensor<i64>) -> tensor<2x4x3x3xf32> {
  %0 = kiln.attention %q, %k, %v seed(%s : tensor<i64>) {causal, dropout_p = 0.5 : f64}
      : tensor<2x4x3x5xf32>, tensor<2x2x6x5xf32>, tensor<2x2x6x3xf32> -> tensor<2x4x3x3xf32>
  return %0 : tensor<2x4x3x3xf32>
}
)mlir";

class AttentionDropoutTest : public ::testing::Test {
protected:
  void SetUp() override {
    FailureOr<std::unique_ptr<JitModule>> compiled =
        session.compileSource(kAttentionModule, "attention.mlir");
    ASSERT_TRUE(succeeded(compiled));
    jit = std::move(*compiled);
  }

  HostTensor invoke(StringRef name, SmallVector<HostTensor> inputs) {
    FailureOr<SmallVector<HostTensor>> out = jit->invoke(name, inputs);
    EXPECT_TRUE(succeeded(out));
    return std::move((*out)[0]);
  }

  /// The inputs of @attn: Q = 0, K anything, V[b, g] = the identity.
  SmallVector<HostTensor> identityInputs(int64_t seed) {
    HostTensor value = filled(DType::F32, {4, 4, 64, 64}, 0.0);
    MutableArrayRef<float> v = value.getValues<float>();
    for (int64_t bg = 0; bg < 16; ++bg)
      for (int64_t j = 0; j < 64; ++j)
        v[(bg * 64 + j) * 64 + j] = 1.0f;
    return {filled(DType::F32, {4, 8, 32, 1}, 0.0),
            makeRandomTensor(DType::F32, {4, 4, 64, 1}, 8), std::move(value),
            seedTensor(seed)};
  }

  JitSession session;
  std::unique_ptr<JitModule> jit;
};

TEST_F(AttentionDropoutTest, MaskIsDropoutsMaskOnTheProbabilities) {
  for (int64_t seed : {int64_t(5), int64_t(-123456789012345LL)}) {
    SCOPED_TRACE(seed);
    HostTensor attention = invoke("attn", identityInputs(seed));
    HostTensor dropped = invoke(
        "drop", {filled(DType::F32, {4, 8, 32, 64}, 1.0), seedTensor(seed)});
    ArrayRef<float> o = attention.getValues<float>();
    ArrayRef<float> z = dropped.getValues<float>();
    int64_t mismatches = 0;
    for (int64_t n = 0; n < attention.getNumElements(); ++n)
      mismatches += (o[n] != 0.0f) != (z[n] != 0.0f);
    EXPECT_EQ(mismatches, 0);
    // The kept probabilities are 1/64 scaled by 1 / (1 - 0.25); the rate is
    // 0.75 within 3 sigma.
    for (float value : o) {
      if (value != 0.0f) {
        ASSERT_NEAR(value, 1.0 / (64 * 0.75), 1e-7);
      }
    }
    int64_t n = attention.getNumElements();
    int64_t kept = llvm::count_if(o, [](float value) { return value != 0.0f; });
    EXPECT_NEAR(double(kept), n * 0.75, 3.0 * std::sqrt(n * 0.25 * 0.75));
  }
}

TEST_F(AttentionDropoutTest, SameSeedSameOutput) {
  SmallVector<HostTensor> inputs = {
      makeRandomTensor(DType::F32, {2, 4, 3, 5}, 1),
      makeRandomTensor(DType::F32, {2, 2, 6, 5}, 2),
      makeRandomTensor(DType::F32, {2, 2, 6, 3}, 3), seedTensor(77)};
  HostTensor first = invoke("attn_drop", inputs);
  HostTensor second = invoke("attn_drop", inputs);
  EXPECT_TRUE(sameBytes(first, second));
  inputs[3] = seedTensor(78);
  EXPECT_FALSE(sameBytes(first, invoke("attn_drop", inputs)));
}

TEST_F(AttentionDropoutTest, PZeroEqualsNoDropout) {
  SmallVector<HostTensor> inputs = {
      makeRandomTensor(DType::F32, {2, 4, 3, 5}, 4),
      makeRandomTensor(DType::F32, {2, 2, 6, 5}, 5),
      makeRandomTensor(DType::F32, {2, 2, 6, 3}, 6)};
  HostTensor plain = invoke("attn_plain", inputs);
  inputs.push_back(seedTensor(31));
  EXPECT_TRUE(sameBytes(plain, invoke("attn_p0", inputs)));
}

// Rows that see no key are +0.0 exactly (never NaN, never -0.0), with
// dropout too: batch 0 has no keys; in batch 1 the first Sq - Sk = 2 rows
// lie before every key (causal, bottom_right).
TEST_F(AttentionDropoutTest, EmptyRowsAreExactlyZero) {
  HostTensor out = invoke("attn_empty_rows",
                          {makeRandomTensor(DType::F32, {2, 2, 5, 3}, 9),
                           makeRandomTensor(DType::F32, {2, 1, 3, 3}, 10),
                           makeRandomTensor(DType::F32, {2, 1, 3, 4}, 11),
                           makeTensor(DType::I32, {2}, {0, 3}), seedTensor(3)});
  ArrayRef<float> o = out.getValues<float>();
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t i = 0; i < 5; ++i) {
        bool empty = b == 0 || i < 2;
        for (int64_t d = 0; d < 4; ++d) {
          float value = o[((b * 2 + h) * 5 + i) * 4 + d];
          EXPECT_FALSE(std::isnan(value));
          if (empty) {
            EXPECT_EQ(value, 0.0f) << b << " " << h << " " << i;
            EXPECT_FALSE(std::signbit(value)) << b << " " << h << " " << i;
          }
        }
      }
}

} // namespace
