//===- Fixtures.cpp - The PyTorch fixtures of test/fixtures ---------------===//

#include "TestSupport/Fixtures.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <limits>
#include <ostream>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::test;
using json = nlohmann::json;

void test::PrintTo(const FixtureCase &c, std::ostream *os) {
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

std::vector<FixtureCase> test::loadFixtureFile(StringRef path) {
  std::string stem = llvm::sys::path::stem(path).str();
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  json root;
  if (buffer)
    root = json::parse((*buffer)->getBuffer().begin(),
                       (*buffer)->getBuffer().end(), nullptr, false);
  if (!buffer || root.is_discarded() || !root.is_object() ||
      !root.contains("cases") || !root["cases"].is_array()) {
    FixtureCase broken;
    broken.file = stem;
    broken.name = "unreadable";
    broken.error = path.str() + " is not a fixture file";
    return {broken};
  }
  std::vector<FixtureCase> cases;
  for (const json &value : root["cases"]) {
    FixtureCase c;
    c.file = stem;
    decodeCase(value, c);
    if (c.name.empty())
      c.name = "unnamed";
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<FixtureCase> test::loadFixtureDirectory(StringRef directory) {
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(directory, ec), end;
       it != end && !ec; it.increment(ec))
    if (llvm::sys::path::extension(it->path()) == ".json")
      files.push_back(it->path());
  std::sort(files.begin(), files.end());

  std::vector<FixtureCase> cases;
  for (const std::string &file : files)
    for (FixtureCase &c : loadFixtureFile(file))
      cases.push_back(std::move(c));
  return cases;
}

std::string test::getFixtureTestName(const FixtureCase &c) {
  std::string name = c.file + "_" + c.name;
  for (char &ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)))
      ch = '_';
  return name;
}
