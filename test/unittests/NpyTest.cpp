//===- NpyTest.cpp - HostTensor and the .npy reader and writer ------------===//

#include "kiln/Support/Npy.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "kiln/Support/HostTensor.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <cstring>

#ifdef __linux__
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#endif

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// Builds the bytes of a .npy file by hand, independently of serializeNpy.
std::string makeNpy(StringRef dict, StringRef data, unsigned major = 1) {
  std::string header = dict.str();
  size_t prefix = 6 + 2 + (major == 1 ? 2 : 4);
  while ((prefix + header.size() + 1) % 64)
    header.push_back(' ');
  header.push_back('\n');
  std::string bytes("\x93NUMPY", 6);
  bytes.push_back(char(major));
  bytes.push_back(0);
  for (unsigned i = 0; i < (major == 1 ? 2u : 4u); ++i)
    bytes.push_back(char((header.size() >> (8 * i)) & 0xff));
  return bytes + header + data.str();
}

/// Returns the message of a failed Expected, or "" when it succeeded.
template <typename T> std::string errorOf(llvm::Expected<T> value) {
  if (value)
    return "";
  return llvm::toString(value.takeError());
}

std::string floatBytes(ArrayRef<float> values) {
  return std::string(reinterpret_cast<const char *>(values.data()),
                     values.size() * sizeof(float));
}

TEST(HostTensorTest, DTypeNamesAndSizes) {
  struct Case {
    DType dtype;
    const char *name;
    size_t size;
  } cases[] = {{DType::F16, "f16", 2}, {DType::BF16, "bf16", 2},
               {DType::F32, "f32", 4}, {DType::F64, "f64", 8},
               {DType::I1, "i1", 1},   {DType::I8, "i8", 1},
               {DType::I32, "i32", 4}, {DType::I64, "i64", 8}};
  for (const Case &c : cases) {
    EXPECT_EQ(stringifyDType(c.dtype), c.name);
    EXPECT_EQ(getDTypeSize(c.dtype), c.size);
    EXPECT_EQ(parseDType(c.name), c.dtype);
  }
  EXPECT_FALSE(parseDType("u8").has_value());
}

TEST(HostTensorTest, MLIRTypes) {
  MLIRContext context;
  for (DType dtype : {DType::F16, DType::BF16, DType::F32, DType::F64,
                      DType::I1, DType::I8, DType::I32, DType::I64}) {
    Type type = getMLIRType(dtype, &context);
    std::string printed;
    llvm::raw_string_ostream(printed) << type;
    EXPECT_EQ(printed, stringifyDType(dtype));
    EXPECT_EQ(getDTypeFor(type), dtype);
  }
  EXPECT_FALSE(getDTypeFor(IndexType::get(&context)).has_value());
  EXPECT_FALSE(getDTypeFor(IntegerType::get(&context, 16)).has_value());
}

TEST(HostTensorTest, AllocateChecksShapes) {
  llvm::Expected<HostTensor> ok = HostTensor::allocate(DType::F32, {2, 0, 3});
  ASSERT_TRUE(bool(ok));
  EXPECT_EQ(ok->getNumElements(), 0);
  EXPECT_EQ(ok->getTypeString(), "tensor<2x0x3xf32>");
  EXPECT_NE(errorOf(HostTensor::allocate(DType::F32, {2, -1})), "");
  EXPECT_NE(errorOf(HostTensor::allocate(DType::F32, {1LL << 40, 1LL << 40})),
            "");
  EXPECT_NE(errorOf(HostTensor::allocate(DType::F64, {1LL << 34})), "");
}

#ifdef __linux__
/// A tensor below kMaxBytes that the process cannot allocate is an error
/// naming the type and the bytes, from every constructor: the storage came
/// from operator new, whose failure LLVM's out-of-memory handler (installed
/// by the tools' InitLLVM) turns into an abort. Run in a child whose address
/// space is limited to 1 GiB above what it maps now, so that 8 GiB fails at
/// once on any machine.
TEST(HostTensorTest, AllocationFailureIsAnError) {
  auto child = [] {
    size_t pages = 0;
    std::ifstream("/proc/self/statm") >> pages;
    rlimit limit;
    limit.rlim_cur = limit.rlim_max =
        rlim_t(pages) * sysconf(_SC_PAGESIZE) + (rlim_t(1) << 30);
    if (pages == 0 || setrlimit(RLIMIT_AS, &limit) != 0)
      std::exit(2);
    const int64_t elements = int64_t(1) << 31;
    const std::string expected =
        "out of memory: tensor<2147483648xf32> needs 8589934592 bytes";
    bool ok = errorOf(HostTensor::allocate(DType::F32, {elements})) ==
                  expected &&
              errorOf(HostTensor::random(DType::F32, {elements}, 1)) ==
                  expected &&
              errorOf(HostTensor::fromDoubles(DType::F32, {elements}, {})) ==
                  expected;
    // fromBytes checks the size and fails to allocate before it reads.
    static char byte;
    ok = ok && errorOf(HostTensor::fromBytes(
                   DType::F32, {elements},
                   ArrayRef<char>(&byte, size_t(elements) * 4))) == expected;
    // What fits is still allocated, zero-filled.
    llvm::Expected<HostTensor> small = HostTensor::allocate(DType::F64, {4});
    ok = ok && small && small->getNumBytes() == 32 &&
         small->getValues<double>()[3] == 0.0;
    std::exit(ok ? 0 : 1);
  };
  EXPECT_EXIT(child(), ::testing::ExitedWithCode(0), "");
}
#endif

TEST(HostTensorTest, CopiesAndMoves) {
  llvm::Expected<HostTensor> a =
      HostTensor::fromDoubles(DType::F32, {2, 2}, {1.0, 2.0, 3.0, 4.0});
  ASSERT_TRUE(bool(a));
  HostTensor copy = *a;
  EXPECT_NE(copy.getData(), a->getData());
  EXPECT_EQ(copy.getBytes(), a->getBytes());
  EXPECT_EQ(copy.getTypeString(), "tensor<2x2xf32>");
  HostTensor moved = std::move(copy);
  EXPECT_EQ(moved.getElementAsDouble(3), 4.0);
  EXPECT_EQ(copy.getNumBytes(), 0u);
  EXPECT_EQ(copy.getNumElements(), 0);
  copy = moved;
  EXPECT_EQ(copy.getBytes(), a->getBytes());
  llvm::Expected<HostTensor> empty = HostTensor::allocate(DType::F32, {0, 3});
  ASSERT_TRUE(bool(empty));
  HostTensor emptyCopy = *empty;
  EXPECT_EQ(emptyCopy.getNumBytes(), 0u);
  EXPECT_TRUE(emptyCopy.getBytes().empty());
}

TEST(HostTensorTest, DoubleConversions) {
  llvm::Expected<HostTensor> half =
      HostTensor::fromDoubles(DType::F16, {3}, {1.5, -2.0, 65504.0});
  ASSERT_TRUE(bool(half));
  EXPECT_EQ(half->getValues<uint16_t>()[0], 0x3e00);
  EXPECT_EQ(half->getElementAsDouble(2), 65504.0);
  llvm::Expected<HostTensor> bf16 =
      HostTensor::fromDoubles(DType::BF16, {2}, {1.0, -3.0});
  ASSERT_TRUE(bool(bf16));
  EXPECT_EQ(bf16->getValues<uint16_t>()[0], 0x3f80);
  EXPECT_EQ(bf16->getElementAsDouble(1), -3.0);
  llvm::Expected<HostTensor> bools =
      HostTensor::fromDoubles(DType::I1, {3}, {0.0, 2.0, -1.0});
  ASSERT_TRUE(bool(bools));
  EXPECT_EQ(bools->getValues<uint8_t>()[1], 1);
  // Out-of-range integers saturate instead of invoking undefined behavior.
  llvm::Expected<HostTensor> bytes =
      HostTensor::fromDoubles(DType::I8, {2}, {1000.0, -1e300});
  ASSERT_TRUE(bool(bytes));
  EXPECT_EQ(bytes->getValues<int8_t>()[0], 127);
  EXPECT_EQ(bytes->getValues<int8_t>()[1], -128);
  EXPECT_NE(errorOf(HostTensor::fromDoubles(DType::F32, {2}, {1.0})), "");
}

TEST(HostTensorTest, RandomIsDeterministic) {
  llvm::Expected<HostTensor> a = HostTensor::random(DType::F32, {64}, 3);
  llvm::Expected<HostTensor> b = HostTensor::random(DType::F32, {64}, 3);
  llvm::Expected<HostTensor> c = HostTensor::random(DType::F32, {64}, 4);
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(a->getBytes(), b->getBytes());
  EXPECT_NE(a->getBytes(), c->getBytes());
  for (float value : a->getValues<float>()) {
    EXPECT_GE(value, -1.0f);
    EXPECT_LT(value, 1.0f);
  }
}

/// Every dtype, and ranks 0 to 3 (one with a zero-size dim), survive a
/// serialize/parse round trip bit for bit.
TEST(NpyTest, RoundTripEachDType) {
  SmallVector<SmallVector<int64_t>> shapes = {{}, {5}, {2, 3}, {2, 0, 4}};
  for (DType dtype : {DType::F16, DType::BF16, DType::F32, DType::F64,
                      DType::I1, DType::I8, DType::I32, DType::I64}) {
    for (ArrayRef<int64_t> shape : shapes) {
      SCOPED_TRACE(formatTensorType(dtype, shape));
      llvm::Expected<HostTensor> tensor = HostTensor::random(dtype, shape, 1);
      ASSERT_TRUE(bool(tensor));
      std::string bytes = serializeNpy(*tensor);
      // The data starts at a multiple of 64 bytes.
      EXPECT_EQ((bytes.size() - tensor->getNumBytes()) % 64, 0u);
      llvm::Expected<HostTensor> parsed = parseNpy(bytes);
      ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
      EXPECT_EQ(parsed->getDType(), dtype);
      EXPECT_EQ(parsed->getShape(), shape);
      EXPECT_EQ(parsed->getBytes(), tensor->getBytes());
    }
  }
}

TEST(NpyTest, WritesNumPyHeaders) {
  llvm::Expected<HostTensor> tensor =
      HostTensor::fromDoubles(DType::I32, {3}, {1, 2, 3});
  ASSERT_TRUE(bool(tensor));
  std::string bytes = serializeNpy(*tensor);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_NE(bytes.find("{'descr': '<i4', 'fortran_order': False, "
                       "'shape': (3,), }"),
            std::string::npos);
  llvm::Expected<HostTensor> matrix = HostTensor::allocate(DType::I1, {2, 3});
  ASSERT_TRUE(bool(matrix));
  EXPECT_NE(serializeNpy(*matrix).find("'descr': '|b1'"), std::string::npos);
  EXPECT_NE(serializeNpy(*matrix).find("'shape': (2, 3), }"),
            std::string::npos);
}

TEST(NpyTest, FileRoundTrip) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("kiln-npy", "npy", path));
  llvm::FileRemover remover(path);
  llvm::Expected<HostTensor> tensor =
      HostTensor::fromDoubles(DType::F64, {2, 2}, {1.5, -2.5, 3.0, 4.0});
  ASSERT_TRUE(bool(tensor));
  ASSERT_FALSE(bool(writeNpy(*tensor, path)));
  llvm::Expected<HostTensor> read = readNpy(path);
  ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
  EXPECT_EQ(read->getBytes(), tensor->getBytes());
}

TEST(NpyTest, ReadsVersion2AndPythonVariants) {
  std::string data = floatBytes({1, 2, 3, 4, 5, 6});
  llvm::Expected<HostTensor> v2 = parseNpy(makeNpy(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", data, 2));
  ASSERT_TRUE(bool(v2)) << llvm::toString(v2.takeError());
  EXPECT_EQ(v2->getShape(), ArrayRef<int64_t>({2, 3}));
  EXPECT_EQ(v2->getValues<float>()[5], 6.0f);
  // Key order is free, a trailing comma optional, 1-D fortran order is C.
  llvm::Expected<HostTensor> reordered = parseNpy(
      makeNpy("{'shape': (6,), 'fortran_order': True, 'descr': '<f4'}", data));
  ASSERT_TRUE(bool(reordered)) << llvm::toString(reordered.takeError());
  EXPECT_EQ(reordered->getShape(), ArrayRef<int64_t>({6}));
  llvm::Expected<HostTensor> scalar = parseNpy(
      makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (), }",
              floatBytes({7})));
  ASSERT_TRUE(bool(scalar)) << llvm::toString(scalar.takeError());
  EXPECT_EQ(scalar->getRank(), 0);
}

TEST(NpyTest, Errors) {
  std::string data = floatBytes({1, 2, 3, 4, 5, 6});
  auto header = [](StringRef descr, StringRef order, StringRef shape) {
    return ("{'descr': '" + descr + "', 'fortran_order': " + order +
            ", 'shape': " + shape + ", }")
        .str();
  };
  std::string good = makeNpy(header("<f4", "False", "(2, 3)"), data);
  ASSERT_EQ(errorOf(parseNpy(good)), "");

  struct Case {
    std::string bytes;
    const char *message;
  } cases[] = {
      {"", "not a .npy file (bad magic string)"},
      {"PK\x03\x04 a zip file", "not a .npy file (bad magic string)"},
      {std::string("\x93NUMPY", 6), "truncated .npy file: no version"},
      {std::string("\x93NUMPY\x01\x00\x10", 9),
       "truncated .npy file: no header length"},
      {std::string("\x93NUMPY\x04\x00\x10\x00", 10),
       "unsupported .npy format version 4.0"},
      {good.substr(0, 40), "truncated .npy file: header of 118 bytes, 30 left"},
      {good.substr(0, good.size() - 1),
       "truncated .npy file: tensor<2x3xf32> needs 24 data bytes, 23 present"},
      {good + "xx", ".npy file has 2 bytes after the data of tensor<2x3xf32>"},
      {makeNpy(header("<f4", "True", "(2, 3)"), data),
       "fortran_order arrays are not supported; save a C-order array "
       "(numpy.ascontiguousarray)"},
      {makeNpy(header("<u4", "False", "(2, 3)"), data),
       "unsupported dtype '<u4' (kiln reads f2, f4, f8, b1, i1, i4, i8 and "
       "V2 as bf16)"},
      {makeNpy(header(">f4", "False", "(2, 3)"), data),
       "dtype '>f4' is big-endian; only little-endian data is supported"},
      {makeNpy(header("?", "False", "(2, 3)"), data), "unknown dtype '?'"},
      {makeNpy(header("<f4", "Maybe", "(2, 3)"), data),
       "header 'fortran_order' is not True or False"},
      {makeNpy(header("<f4", "False", "[2, 3]"), data),
       "header 'shape' is not a tuple"},
      {makeNpy(header("<f4", "False", "(2, -3)"), data),
       "header 'shape' holds a non-integer dimension"},
      {makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3}",
               data),
       "header 'shape' tuple is not terminated"},
      {makeNpy(header("<f4", "False", "(99999999999999999999,)"), data),
       "header 'shape' holds a dimension out of range"},
      {makeNpy(header("<f4", "False", "(4294967296, 4294967296)"), data),
       "the element count of tensor<4294967296x4294967296xf32> overflows"},
      {makeNpy("{'descr': '<f4', 'shape': (6,)}", data),
       "header lacks one of 'descr', 'fortran_order', 'shape'"},
      {makeNpy("{'descr': [('a', '<f4')], 'fortran_order': False, "
               "'shape': (6,)}",
               data),
       "header 'descr' is not a string (structured dtypes are not "
       "supported)"},
      {makeNpy("{'descr': '<f4', 'colour': 1}", data),
       "header has an unknown key 'colour'"},
      {makeNpy("('descr', '<f4')", data), "header is not a dict literal"},
      {makeNpy("{'descr' '<f4'}", data), "header has no ':' after key 'descr'"},
      {makeNpy("{'descr': '<f4' 'shape': (6,)}", data),
       "header dict is not terminated"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.message);
    EXPECT_EQ(errorOf(parseNpy(c.bytes)), c.message);
  }

  // Every truncation of a valid file is an error, never a crash.
  for (size_t length = 0; length < good.size(); ++length)
    EXPECT_NE(errorOf(parseNpy(StringRef(good).take_front(length))), "");

  EXPECT_NE(errorOf(readNpy("/nonexistent/kiln/file.npy"))
                .find("cannot read '/nonexistent/kiln/file.npy'"),
            std::string::npos);
}

} // namespace
