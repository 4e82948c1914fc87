//===- Fixtures.h - The PyTorch fixtures of test/fixtures -------*- C++ -*-===//
//
// Reads the cases of test/fixtures/*.json (written by
// scripts/fixtures/gen_*.py): a kiln module, its entry, inputs, the outputs
// PyTorch computed in float64, and the tolerance. nlohmann/json stays in the
// .cpp.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TEST_UNITTESTS_TESTSUPPORT_FIXTURES_H
#define KILN_TEST_UNITTESTS_TESTSUPPORT_FIXTURES_H

#include "kiln/Support/HostTensor.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace mlir::kiln::test {

/// A tensor of a fixture: NaN and infinities are stored as "nan", "inf" and
/// "-inf".
struct TensorData {
  DType dtype = DType::F64;
  SmallVector<int64_t> shape;
  std::vector<double> values;
};

/// One case of a fixture file.
struct FixtureCase {
  /// The file's stem, e.g. "attention".
  std::string file;
  std::string name;
  std::string source;
  std::string entry;
  std::vector<TensorData> inputs;
  std::vector<TensorData> outputs;
  double rtol = 0;
  double atol = 0;
  /// Set when the case could not be read; a test of it must fail with it.
  std::string error;
};

/// Names a case in gtest's messages instead of dumping its bytes.
void PrintTo(const FixtureCase &c, std::ostream *os);

/// The cases of the fixture file at `path`, in file order. An unreadable
/// file gives one case named "unreadable" that carries the error.
std::vector<FixtureCase> loadFixtureFile(StringRef path);

/// The cases of every *.json file in `directory`, by file name then in file
/// order.
std::vector<FixtureCase> loadFixtureDirectory(StringRef directory);

/// `<file>_<name>` with every character gtest does not allow in a test name
/// replaced by '_'.
std::string getFixtureTestName(const FixtureCase &c);

} // namespace mlir::kiln::test

#endif // KILN_TEST_UNITTESTS_TESTSUPPORT_FIXTURES_H
