//===- FixtureTest.cpp - Forward numerics against PyTorch fixtures --------===//
//
// Runs every case of every test/fixtures/*.json through the CPU pipeline and
// the JIT, and compares the results with the references PyTorch computed in
// float64 (scripts/fixtures/gen_*.py wrote them; the suite needs no torch).
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/HostTensor.h"
#include "kiln/Runtime/JitSession.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::kiln;
using json = nlohmann::json;

namespace {

struct TensorData {
  DType dtype = DType::F64;
  SmallVector<int64_t> shape;
  std::vector<double> values;
};

struct FixtureCase {
  std::string file;
  std::string name;
  std::string source;
  std::string entry;
  std::vector<TensorData> inputs;
  std::vector<TensorData> outputs;
  double rtol = 0;
  double atol = 0;
  /// Set when the case could not be read; the test then fails with it.
  std::string error;
};

/// Names a case in gtest's messages instead of dumping its bytes.
[[maybe_unused]] static void PrintTo(const FixtureCase &c, std::ostream *os) {
  *os << c.file << "/" << c.name;
}

/// Decodes one fixture value: a number, or "nan" / "inf" / "-inf".
static bool decodeValue(const json &value, double &out) {
  if (value.is_number()) {
    out = value.get<double>();
    return true;
  }
  if (!value.is_string())
    return false;
  const std::string &text = value.get_ref<const std::string &>();
  if (text == "nan")
    out = std::numeric_limits<double>::quiet_NaN();
  else if (text == "inf")
    out = std::numeric_limits<double>::infinity();
  else if (text == "-inf")
    out = -std::numeric_limits<double>::infinity();
  else
    return false;
  return true;
}

static bool decodeTensor(const json &value, TensorData &out,
                         std::string &error) {
  if (!value.is_object() || !value.contains("dtype") ||
      !value.contains("shape") || !value.contains("data") ||
      !value["dtype"].is_string() || !value["shape"].is_array() ||
      !value["data"].is_array()) {
    error = "a tensor needs 'dtype', 'shape' and 'data'";
    return false;
  }
  std::optional<DType> dtype =
      parseDType(value["dtype"].get_ref<const std::string &>());
  if (!dtype) {
    error = "unknown dtype " + value["dtype"].dump();
    return false;
  }
  out.dtype = *dtype;
  int64_t count = 1;
  for (const json &dim : value["shape"]) {
    if (!dim.is_number_integer() || dim.get<int64_t>() < 0) {
      error = "bad shape " + value["shape"].dump();
      return false;
    }
    out.shape.push_back(dim.get<int64_t>());
    count *= out.shape.back();
  }
  for (const json &element : value["data"]) {
    double v;
    if (!decodeValue(element, v)) {
      error = "bad value " + element.dump();
      return false;
    }
    out.values.push_back(v);
  }
  if (static_cast<int64_t>(out.values.size()) != count) {
    error = "data has " + std::to_string(out.values.size()) +
            " values for shape " + value["shape"].dump();
    return false;
  }
  return true;
}

static void decodeCase(const json &value, FixtureCase &out) {
  auto str = [&](const char *key) -> std::string {
    if (!value.contains(key) || !value[key].is_string())
      return {};
    return value[key].get<std::string>();
  };
  out.name = str("name");
  out.source = str("source");
  out.entry = str("entry");
  if (out.name.empty() || out.source.empty() || out.entry.empty()) {
    out.error = "a case needs 'name', 'source' and 'entry'";
    return;
  }
  if (!value.contains("rtol") || !value["rtol"].is_number() ||
      !value.contains("atol") || !value["atol"].is_number()) {
    out.error = "a case needs numeric 'rtol' and 'atol'";
    return;
  }
  out.rtol = value["rtol"].get<double>();
  out.atol = value["atol"].get<double>();
  for (const char *key : {"inputs", "outputs"}) {
    if (!value.contains(key) || !value[key].is_array()) {
      out.error = std::string("a case needs '") + key + "'";
      return;
    }
    auto &list = std::string(key) == "inputs" ? out.inputs : out.outputs;
    for (const json &tensor : value[key]) {
      list.emplace_back();
      if (!decodeTensor(tensor, list.back(), out.error))
        return;
    }
  }
}

/// Every case of every fixture file, sorted by file then in file order.
static std::vector<FixtureCase> loadCases() {
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(KILN_FIXTURES_DIR, ec), end;
       it != end && !ec; it.increment(ec))
    if (llvm::sys::path::extension(it->path()) == ".json")
      files.push_back(it->path());
  std::sort(files.begin(), files.end());

  std::vector<FixtureCase> cases;
  for (const std::string &file : files) {
    std::string stem = llvm::sys::path::stem(file).str();
    auto buffer = llvm::MemoryBuffer::getFile(file, /*IsText=*/true);
    json root;
    if (buffer)
      root = json::parse((*buffer)->getBuffer().begin(),
                         (*buffer)->getBuffer().end(), nullptr, false);
    if (!buffer || root.is_discarded() || !root.is_object() ||
        !root.contains("cases") || !root["cases"].is_array()) {
      FixtureCase broken;
      broken.file = stem;
      broken.name = "unreadable";
      broken.error = file + " is not a fixture file";
      cases.push_back(std::move(broken));
      continue;
    }
    for (const json &value : root["cases"]) {
      FixtureCase c;
      c.file = stem;
      decodeCase(value, c);
      if (c.name.empty())
        c.name = "unnamed";
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

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
  std::string name = info.param.file + "_" + info.param.name;
  for (char &ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)))
      ch = '_';
  return name + "_" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixtureTest,
                         ::testing::ValuesIn(loadCases()), caseName);

} // namespace
