//===- FixtureTest.cpp - Forward numerics against PyTorch fixtures --------===//
//
// Runs every case of every test/fixtures/*.json through the CPU pipeline and
// the JIT, and compares the results with the references PyTorch computed in
// float64 (scripts/fixtures/gen_*.py wrote them; the suite needs no torch).
//
//===----------------------------------------------------------------------===//

#include "kiln/Support/HostTensor.h"
#include "kiln/Execution/JitSession.h"

#include "TestSupport/Fixtures.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace mlir;
using namespace mlir::kiln;

namespace {

using test::FixtureCase;
using test::TensorData;

/// Compares one result with its reference, reporting the first mismatches.
static void expectClose(const HostTensor &got, const TensorData &want,
                        double rtol, double atol, size_t index) {
  SCOPED_TRACE("result #" + std::to_string(index));
  ASSERT_EQ(stringifyDType(got.getDType()).str(),
            stringifyDType(want.dtype).str());
  ASSERT_EQ(SmallVector<int64_t>(got.getShape()), want.shape);
  int reported = 0;
  int64_t mismatches = 0;
  for (int64_t i = 0, e = got.getNumElements(); i < e; ++i) {
    double g = got.getElementAsDouble(i);
    double w = want.values[i];
    bool ok;
    if (std::isnan(w))
      ok = std::isnan(g);
    else if (std::isinf(w))
      ok = g == w;
    else
      ok = std::isfinite(g) && std::fabs(g - w) <= atol + rtol * std::fabs(w);
    if (ok)
      continue;
    ++mismatches;
    if (reported++ < 5)
      ADD_FAILURE() << "element " << i << ": got " << g << ", want " << w
                    << " (|diff| " << std::fabs(g - w) << ", allowed "
                    << atol + rtol * std::fabs(w) << ")";
  }
  EXPECT_EQ(mismatches, 0) << "of " << got.getNumElements() << " elements";
}

class FixtureTest : public ::testing::TestWithParam<FixtureCase> {
protected:
  /// One session for the whole suite: one MLIRContext, many modules.
  static JitSession &session() {
    static JitSession instance;
    return instance;
  }
};

TEST_P(FixtureTest, MatchesPyTorch) {
  const FixtureCase &c = GetParam();
  ASSERT_TRUE(c.error.empty()) << c.file << "/" << c.name << ": " << c.error;

  SmallVector<HostTensor> inputs;
  for (const TensorData &data : c.inputs) {
    auto tensor = HostTensor::fromDoubles(data.dtype, data.shape, data.values);
    ASSERT_TRUE(bool(tensor)) << llvm::toString(tensor.takeError());
    inputs.push_back(std::move(*tensor));
  }
  auto module = session().compileSource(c.source, c.file + "/" + c.name);
  ASSERT_TRUE(succeeded(module)) << "compilation failed (see stderr)";
  auto results = (*module)->invoke(c.entry, inputs);
  ASSERT_TRUE(succeeded(results)) << "invocation failed (see stderr)";
  ASSERT_EQ(results->size(), c.outputs.size());
  for (size_t i = 0; i < c.outputs.size(); ++i)
    expectClose((*results)[i], c.outputs[i], c.rtol, c.atol, i);
}

/// gtest names allow only alphanumerics and '_'.
static std::string caseName(const ::testing::TestParamInfo<FixtureCase> &info) {
  return test::getFixtureTestName(info.param) + "_" +
         std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, FixtureTest,
    ::testing::ValuesIn(test::loadFixtureDirectory(KILN_FIXTURES_DIR)),
    caseName);

} // namespace
