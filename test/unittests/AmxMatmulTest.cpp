//===- AmxMatmulTest.cpp - bf16 matmuls on AMX tiles vs float64 -----------===//
//
// kiln-matmul-kernels{amx} (JitOptions::amx, on by default where the host
// has AMX-BF16) runs bf16 x bf16 -> f32 matmuls as tdpbf16ps steps over
// tiles of A and B it packs, with zero-padded copies where M, N or K are not
// multiples of the tiles or an operand is transposed. These tests run
// linalg.matmul / batch_matmul with an f32 C that is accumulated into
// through the JIT, with and without AMX, against a float64 reference
// computed here from the same bf16 values:
//   - exactly, on quarter-integer inputs, whose every partial sum is exact
//     in f32 whatever the order (so any packing, padding or layout error
//     shows as a wrong value);
//   - within the f32 summation bound on normal random inputs.
// Skipped where the host cannot run AMX (hostCanUseAMX).
//
//===----------------------------------------------------------------------===//

#include "kiln/Execution/JitSession.h"
#include "kiln/Support/HostTensor.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::kiln;

namespace {

uint16_t toBF16(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof(bits));
  // Round to nearest even (the test's values are finite).
  bits += 0x7fff + ((bits >> 16) & 1);
  return uint16_t(bits >> 16);
}

float fromBF16(uint16_t x) {
  uint32_t bits = uint32_t(x) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

/// One matmul case: C[b] += op(A[b]) * op(B[b]).
struct Case {
  int64_t batch, m, n, k;
  bool transposeA = false, transposeB = false;
};

std::string shape(const Case &c, int64_t rows, int64_t columns,
                  const char *element) {
  std::string s = "tensor<";
  if (c.batch)
    s += std::to_string(c.batch) + "x";
  return s + std::to_string(rows) + "x" + std::to_string(columns) + "x" +
         element + ">";
}

/// The function: linalg.matmul (batch_matmul with a batch) of %a and %b
/// accumulated into %c.
std::string source(const Case &c) {
  std::string a = c.transposeA ? shape(c, c.k, c.m, "bf16")
                               : shape(c, c.m, c.k, "bf16");
  std::string b = c.transposeB ? shape(c, c.n, c.k, "bf16")
                               : shape(c, c.k, c.n, "bf16");
  std::string out = shape(c, c.m, c.n, "f32");
  std::string dims = c.batch ? "(d, m, n, k)" : "(m, n, k)";
  std::string lead = c.batch ? "d, " : "";
  std::string maps = "indexing_maps = [affine_map<" + dims + " -> (" + lead +
                     (c.transposeA ? "k, m" : "m, k") + ")>, affine_map<" +
                     dims + " -> (" + lead + (c.transposeB ? "n, k" : "k, n") +
                     ")>, affine_map<" + dims + " -> (" + lead + "m, n)>] ";
  std::string op = c.batch ? "linalg.batch_matmul " : "linalg.matmul ";
  return "func.func @mm(%a: " + a + ", %b: " + b + ", %c: " + out + ") -> " +
         out + " {\n  %r = " + op + maps + "ins(%a, %b : " + a + ", " + b +
         ") outs(%c : " + out + ") -> " + out + "\n  return %r : " + out +
         "\n}\n";
}

class AmxMatmulTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!hostCanUseAMX())
      GTEST_SKIP() << "this host cannot run AMX-BF16 tiles";
  }

  /// Fills A, B (bf16) and C (f32) with `draw()`, runs the case with and
  /// without AMX and checks both against the float64 reference; `exact`:
  /// bit for bit, else within the f32 summation bound.
  void check(const Case &c, bool exact, std::function<float()> draw) {
    SCOPED_TRACE(source(c));
    int64_t batch = c.batch ? c.batch : 1;
    std::vector<int64_t> aShape, bShape, cShape;
    if (c.batch) {
      aShape.push_back(c.batch);
      bShape.push_back(c.batch);
      cShape.push_back(c.batch);
    }
    aShape.insert(aShape.end(), {c.transposeA ? c.k : c.m,
                                 c.transposeA ? c.m : c.k});
    bShape.insert(bShape.end(), {c.transposeB ? c.n : c.k,
                                 c.transposeB ? c.k : c.n});
    cShape.insert(cShape.end(), {c.m, c.n});
    auto a = HostTensor::allocate(DType::BF16, aShape);
    auto b = HostTensor::allocate(DType::BF16, bShape);
    auto init = HostTensor::allocate(DType::F32, cShape);
    ASSERT_TRUE(a && b && init);
    auto *aData = reinterpret_cast<uint16_t *>(a->getData());
    auto *bData = reinterpret_cast<uint16_t *>(b->getData());
    auto *cData = reinterpret_cast<float *>(init->getData());
    int64_t aSize = batch * c.m * c.k, bSize = batch * c.k * c.n,
            cSize = batch * c.m * c.n;
    for (int64_t i = 0; i < aSize; ++i)
      aData[i] = toBF16(draw());
    for (int64_t i = 0; i < bSize; ++i)
      bData[i] = toBF16(draw());
    for (int64_t i = 0; i < cSize; ++i)
      cData[i] = fromBF16(toBF16(draw()));

    // The reference, and the bound: each of the K + 1 roundings of a
    // sequential sum is within half an ulp of its partial sum, so
    // |C - ref| <= (K + 1) 2^-24 (|C0| + sum |a||b|) (products of bf16 are
    // exact in f32).
    std::vector<double> reference(cSize), magnitude(cSize);
    for (int64_t d = 0; d < batch; ++d)
      for (int64_t i = 0; i < c.m; ++i)
        for (int64_t j = 0; j < c.n; ++j) {
          int64_t at = (d * c.m + i) * c.n + j;
          double sum = cData[at], total = std::fabs(cData[at]);
          for (int64_t kk = 0; kk < c.k; ++kk) {
            int64_t ai = c.transposeA ? (d * c.k + kk) * c.m + i
                                      : (d * c.m + i) * c.k + kk;
            int64_t bi = c.transposeB ? (d * c.n + j) * c.k + kk
                                      : (d * c.k + kk) * c.n + j;
            double product = double(fromBF16(aData[ai])) * fromBF16(bData[bi]);
            sum += product;
            total += std::fabs(product);
          }
          reference[at] = sum;
          magnitude[at] = total;
        }

    for (bool amx : {true, false}) {
      SCOPED_TRACE(amx ? "amx" : "vector kernels");
      JitOptions options;
      options.amx = amx;
      auto module = session.compileSource(source(c), "mm.mlir", options);
      ASSERT_TRUE(succeeded(module));
      auto results = (*module)->invoke("mm", {*a, *b, *init});
      ASSERT_TRUE(succeeded(results));
      ArrayRef<float> out = (*results)[0].getValues<float>();
      ASSERT_EQ(int64_t(out.size()), cSize);
      int64_t wrong = 0;
      for (int64_t i = 0; i < cSize; ++i) {
        double bound =
            exact ? 0 : double(c.k + 1) * std::ldexp(1.0, -24) * magnitude[i];
        if (!(std::fabs(out[i] - reference[i]) <= bound) && wrong++ < 5)
          ADD_FAILURE() << "element " << i << ": " << out[i] << " vs "
                        << reference[i] << " (bound " << bound << ")";
      }
      EXPECT_EQ(wrong, 0);
    }
  }

  JitSession session;
};

/// The shapes: aligned to the 32 x 32 blocks and not, K a multiple of 32,
/// odd and 0, a column block of 256 and a partial one, single rows and
/// columns, batches, and every transpose.
const Case kCases[] = {
    {0, 64, 64, 64},          {0, 32, 256, 96},   {0, 96, 320, 64},
    {0, 1, 1, 1},             {0, 17, 33, 7},     {0, 130, 300, 301},
    {0, 5, 40, 0},            {0, 64, 48, 96},    {3, 40, 50, 64},
    {2, 33, 17, 65},          {0, 70, 90, 45, true, false},
    {0, 64, 96, 128, false, true},                {0, 50, 31, 77, true, true},
    {2, 20, 300, 40, false, true},
};

TEST_F(AmxMatmulTest, QuarterIntegersAreExact) {
  std::mt19937 rng(7);
  // Multiples of 1/4 in [-2, 2]: products are multiples of 1/16 below 4, so
  // every partial sum here (< 2^20 / 16) is exact in f32.
  std::uniform_int_distribution<int> quarter(-8, 8);
  for (const Case &c : kCases)
    check(c, /*exact=*/true, [&] { return quarter(rng) / 4.0f; });
}

TEST_F(AmxMatmulTest, NormalInputsWithinTheSummationBound) {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (const Case &c : kCases)
    check(c, /*exact=*/false, [&] { return normal(rng); });
}

} // namespace
