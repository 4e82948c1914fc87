//===- ExpandMathTest.cpp - The CPU pipeline's f32 exp, tanh, pow vs libm -===//
//
// kiln-expand-math replaces the C library's expf, tanhf and powf (by 2 and
// 3) with arithmetic the loop vectorizer widens. These tests run kiln.exp,
// kiln.tanh and kiln.pow through the CPU pipeline and the JIT and measure
// them against double precision: exp over a sweep of the whole finite range
// (every 4099th float bit pattern from -104 to 89), the special values, and
// the results' independence of where an element falls in a vectorized loop;
// tanh and the powers over sweeps of their useful ranges.
//
//===----------------------------------------------------------------------===//

#include "kiln/Execution/JitSession.h"
#include "kiln/Support/HostTensor.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::kiln;

namespace {

static uint32_t bitsOf(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof(bits));
  return bits;
}

static float floatOf(uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof(x));
  return x;
}

class ExpandMathTest : public ::testing::Test {
protected:
  /// kiln.exp of `values` through the CPU pipeline; `body` replaces the
  /// kiln.exp (it defines %y from %x, both of type TYPE).
  std::vector<float> run(const std::vector<float> &values,
                         std::string body = "%y = kiln.exp %x : TYPE") {
    std::string n = std::to_string(values.size());
    std::string type = "tensor<" + n + "xf32>";
    for (size_t at; (at = body.find("TYPE")) != std::string::npos;)
      body.replace(at, 4, type);
    std::string source = "func.func @exp(%x: " + type + ") -> " + type +
                         " {\n  " + body + "\n  return %y : " + type +
                         "\n}\n";
    auto module = session.compileSource(source, "exp.mlir");
    EXPECT_TRUE(succeeded(module));
    if (failed(module))
      return {};
    auto input = HostTensor::allocate(DType::F32, {int64_t(values.size())});
    EXPECT_TRUE(bool(input));
    if (!input)
      return {};
    std::memcpy(input->getData(), values.data(), values.size() * sizeof(float));
    auto results = (*module)->invoke("exp", {*input});
    EXPECT_TRUE(succeeded(results));
    if (failed(results))
      return {};
    ArrayRef<float> out = (*results)[0].getValues<float>();
    return std::vector<float>(out.begin(), out.end());
  }

  JitSession session;
};

/// Distance in ulps between two non-negative floats.
static int64_t ulps(float a, float b) {
  return std::llabs(int64_t(bitsOf(a)) - int64_t(bitsOf(b)));
}

TEST_F(ExpandMathTest, WithinOneUlpOverTheFiniteRange) {
  std::vector<float> xs;
  // Negative floats from -0 down to -104 (their bit patterns increase),
  // then positive ones up to 89.
  for (uint32_t bits = 0x80000000u; bits <= bitsOf(-104.0f); bits += 4099)
    xs.push_back(floatOf(bits));
  for (uint32_t bits = 0; bits <= bitsOf(89.0f); bits += 4099)
    xs.push_back(floatOf(bits));
  // Around the ends of the range: the last normal and the subnormal
  // results, and the overflow threshold log(FLT_MAX) = 88.7228391.
  for (float x = -103.99f; x < -85.0f; x += 0.0371f)
    xs.push_back(x);
  for (float x = 88.0f; x < 89.0f; x += 0.00137f)
    xs.push_back(x);
  std::vector<float> got = run(xs);
  ASSERT_EQ(got.size(), xs.size());
  int64_t worst = 0;
  size_t worstIndex = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    float want = float(std::exp(double(xs[i])));
    ASSERT_FALSE(std::isnan(got[i])) << "exp(" << xs[i] << ")";
    int64_t d = ulps(got[i], want);
    if (d > worst) {
      worst = d;
      worstIndex = i;
    }
  }
  EXPECT_LE(worst, 1) << "exp(" << xs[worstIndex] << ") = " << got[worstIndex]
                      << ", want " << float(std::exp(double(xs[worstIndex])));
}

TEST_F(ExpandMathTest, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> xs = {0.0f,   -0.0f,  -inf,    inf,     std::nanf(""),
                           -104.0f, -200.0f, -1e30f, 89.0f,  100.0f,
                           1e30f,  1e-30f, -1e-30f, 1e-45f,  88.72283f,
                           88.72284f};
  std::vector<float> got = run(xs);
  ASSERT_EQ(got.size(), xs.size());
  EXPECT_EQ(got[0], 1.0f);
  EXPECT_EQ(got[1], 1.0f);
  EXPECT_EQ(bitsOf(got[2]), 0u); // +0
  EXPECT_EQ(got[3], inf);
  EXPECT_TRUE(std::isnan(got[4]));
  for (int i : {5, 6, 7})
    EXPECT_EQ(bitsOf(got[i]), 0u) << "exp(" << xs[i] << ")";
  for (int i : {8, 9, 10})
    EXPECT_EQ(got[i], inf) << "exp(" << xs[i] << ")";
  for (int i : {11, 12, 13})
    EXPECT_EQ(got[i], 1.0f) << "exp(" << xs[i] << ")";
  // Just below and just above log(FLT_MAX) = 88.7228391.
  EXPECT_LE(ulps(got[14], float(std::exp(double(xs[14])))), 1);
  EXPECT_LT(got[14], inf);
  EXPECT_EQ(got[15], inf);
}

// An element gets the same bits whether it falls in the vectorized body of
// the loop or in its scalar remainder: the arithmetic is the same.
TEST_F(ExpandMathTest, SameBitsAtEveryPosition) {
  std::vector<float> xs;
  for (int i = 0; i < 37; ++i)
    xs.push_back(-20.0f + 0.731f * float(i));
  std::vector<float> base = run(xs);
  ASSERT_EQ(base.size(), xs.size());
  for (int shift : {1, 5, 16}) {
    std::vector<float> rotated(xs.size());
    for (size_t i = 0; i < xs.size(); ++i)
      rotated[(i + shift) % xs.size()] = xs[i];
    std::vector<float> got = run(rotated);
    ASSERT_EQ(got.size(), xs.size());
    for (size_t i = 0; i < xs.size(); ++i)
      EXPECT_EQ(bitsOf(got[(i + shift) % xs.size()]), bitsOf(base[i]))
          << "exp(" << xs[i] << ") moved by " << shift;
  }
}

/// The largest distance in ulps between `got` and f(x) in double, rounded
/// to float, over `xs` (both finite, of one sign or zero).
template <typename F>
static int64_t worstUlps(const std::vector<float> &xs,
                         const std::vector<float> &got, F f, float *at) {
  int64_t worst = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    float want = float(f(double(xs[i])));
    int64_t d = (want < 0) == (got[i] < 0) || want == 0 || got[i] == 0
                    ? ulps(std::fabs(got[i]), std::fabs(want))
                    : INT64_MAX;
    if (d > worst) {
      worst = d;
      *at = xs[i];
    }
  }
  return worst;
}

// Upstream's rational tanh: its error, measured here, is at most 4 ulps
// over [-10, 10] (the worst near |x| = 1e-3, just above the 0.0004 below
// which it returns x; exactly +-1 beyond 7.90531). glibc's tanhf is within
// 1 ulp: this is the price of a tanh that vectorizes.
TEST_F(ExpandMathTest, TanhWithinFourUlps) {
  std::vector<float> xs;
  for (uint32_t bits = 0; bits <= bitsOf(10.0f); bits += 4099) {
    xs.push_back(floatOf(bits));
    xs.push_back(-floatOf(bits));
  }
  std::vector<float> got = run(xs, "%y = kiln.tanh %x : TYPE");
  ASSERT_EQ(got.size(), xs.size());
  float at = 0;
  int64_t worst = worstUlps(xs, got, [](double x) { return std::tanh(x); },
                            &at);
  EXPECT_LE(worst, 4) << "tanh(" << at << "): " << worst << " ulps";
  std::vector<float> special =
      run({0.0f, -0.0f, std::numeric_limits<float>::infinity(),
           -std::numeric_limits<float>::infinity(), std::nanf("")},
          "%y = kiln.tanh %x : TYPE");
  ASSERT_EQ(special.size(), 5u);
  EXPECT_EQ(bitsOf(special[0]), bitsOf(0.0f));
  EXPECT_EQ(special[2], 1.0f);
  EXPECT_EQ(special[3], -1.0f);
  EXPECT_TRUE(std::isnan(special[4]));
}

// pow(x, 2) is x * x, one rounding as powf; pow(x, 3) = (x * x) * x rounds
// twice: within 1 ulp.
TEST_F(ExpandMathTest, SmallIntegerPowers) {
  std::vector<float> xs;
  for (uint32_t bits = 0; bits <= bitsOf(1e12f); bits += 65537) {
    xs.push_back(floatOf(bits));
    xs.push_back(-floatOf(bits));
  }
  std::vector<float> squares = run(
      xs, "%c = kiln.constant dense<2.0> : TYPE\n  %y = kiln.pow %x, %c : "
          "(TYPE, TYPE) -> TYPE");
  ASSERT_EQ(squares.size(), xs.size());
  for (size_t i = 0; i < xs.size(); ++i)
    ASSERT_EQ(bitsOf(squares[i]), bitsOf(xs[i] * xs[i])) << xs[i];
  std::vector<float> small;
  for (float x : xs)
    if (std::fabs(x) < 1e12f && std::fabs(x) > 1e-12f)
      small.push_back(x);
  std::vector<float> cubes = run(
      small, "%c = kiln.constant dense<3.0> : TYPE\n  %y = kiln.pow %x, %c : "
             "(TYPE, TYPE) -> TYPE");
  ASSERT_EQ(cubes.size(), small.size());
  float at = 0;
  int64_t worst = worstUlps(
      small, cubes, [](double x) { return x * x * x; }, &at);
  EXPECT_LE(worst, 1) << "pow(" << at << ", 3)";
}

} // namespace
