//===- HostTensor.cpp - Dense tensors in host memory ----------------------===//

#include "kiln/Support/HostTensor.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>
#include <random>
#include <system_error>
#include <utility>

using namespace mlir;
using namespace mlir::kiln;

size_t mlir::kiln::getDTypeSize(DType dtype) {
  switch (dtype) {
  case DType::I1:
  case DType::I8:
    return 1;
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F64:
  case DType::I64:
    return 8;
  }
  llvm_unreachable("unknown dtype");
}

StringRef mlir::kiln::stringifyDType(DType dtype) {
  switch (dtype) {
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::F32:
    return "f32";
  case DType::F64:
    return "f64";
  case DType::I1:
    return "i1";
  case DType::I8:
    return "i8";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  }
  llvm_unreachable("unknown dtype");
}

std::optional<DType> mlir::kiln::parseDType(StringRef name) {
  for (DType dtype : {DType::F16, DType::BF16, DType::F32, DType::F64,
                      DType::I1, DType::I8, DType::I32, DType::I64})
    if (stringifyDType(dtype) == name)
      return dtype;
  return std::nullopt;
}

std::optional<DType> mlir::kiln::getDTypeFor(Type type) {
  if (type.isF16())
    return DType::F16;
  if (type.isBF16())
    return DType::BF16;
  if (type.isF32())
    return DType::F32;
  if (type.isF64())
    return DType::F64;
  if (type.isSignlessInteger(1))
    return DType::I1;
  if (type.isSignlessInteger(8))
    return DType::I8;
  if (type.isSignlessInteger(32))
    return DType::I32;
  if (type.isSignlessInteger(64))
    return DType::I64;
  return std::nullopt;
}

Type mlir::kiln::getMLIRType(DType dtype, MLIRContext *context) {
  switch (dtype) {
  case DType::F16:
    return Float16Type::get(context);
  case DType::BF16:
    return BFloat16Type::get(context);
  case DType::F32:
    return Float32Type::get(context);
  case DType::F64:
    return Float64Type::get(context);
  case DType::I1:
    return IntegerType::get(context, 1);
  case DType::I8:
  case DType::I32:
  case DType::I64:
    return IntegerType::get(context, 8 * getDTypeSize(dtype));
  }
  llvm_unreachable("unknown dtype");
}

bool mlir::kiln::isFloatDType(DType dtype) {
  return dtype == DType::F16 || dtype == DType::BF16 || dtype == DType::F32 ||
         dtype == DType::F64;
}

std::string mlir::kiln::formatTensorType(DType dtype, ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "tensor<";
  for (int64_t dim : shape)
    os << dim << "x";
  os << stringifyDType(dtype) << ">";
  return text;
}

llvm::Expected<int64_t>
mlir::kiln::checkedNumElements(DType dtype, ArrayRef<int64_t> shape) {
  int64_t elements = 1;
  for (int64_t dim : shape) {
    if (dim < 0)
      return llvm::createStringError("dimension " + std::to_string(dim) +
                                     " of " + formatTensorType(dtype, {}) +
                                     " shape is negative");
    if (llvm::MulOverflow(elements, dim, elements))
      return llvm::createStringError("the element count of " +
                                     formatTensorType(dtype, shape) +
                                     " overflows");
  }
  int64_t bytes;
  if (llvm::MulOverflow(elements, int64_t(getDTypeSize(dtype)), bytes) ||
      bytes > HostTensor::kMaxBytes)
    return llvm::createStringError(
        formatTensorType(dtype, shape) +
        " is too large for the runtime (more than 64 GiB)");
  return elements;
}

llvm::Expected<HostTensor> HostTensor::create(DType dtype,
                                              ArrayRef<int64_t> shape,
                                              bool zeroed) {
  llvm::Expected<int64_t> elements = checkedNumElements(dtype, shape);
  if (!elements)
    return elements.takeError();
  HostTensor tensor;
  tensor.dtype = dtype;
  tensor.shape.assign(shape.begin(), shape.end());
  tensor.numElements = *elements;
  tensor.numBytes = size_t(*elements) * getDTypeSize(dtype);
  if (tensor.numBytes == 0)
    return tensor;
  // Not operator new: under LLVM's out-of-memory handler (installed by
  // InitLLVM) its failure aborts the tool, and a tensor too large for this
  // machine's memory, below kMaxBytes, is an input error like any other.
  void *memory = zeroed ? std::calloc(tensor.numBytes, 1)
                        : std::malloc(tensor.numBytes);
  if (!memory)
    return llvm::createStringError(
        std::make_error_code(std::errc::not_enough_memory),
        "out of memory: " + formatTensorType(dtype, shape) + " needs " +
            std::to_string(tensor.numBytes) + " bytes");
  tensor.storage.reset(static_cast<char *>(memory));
  return tensor;
}

llvm::Expected<HostTensor> HostTensor::allocate(DType dtype,
                                                ArrayRef<int64_t> shape) {
  return create(dtype, shape, /*zeroed=*/true);
}

llvm::Expected<HostTensor> HostTensor::fromBytes(DType dtype,
                                                 ArrayRef<int64_t> shape,
                                                 ArrayRef<char> bytes) {
  llvm::Expected<int64_t> elements = checkedNumElements(dtype, shape);
  if (!elements)
    return elements.takeError();
  size_t expected = size_t(*elements) * getDTypeSize(dtype);
  if (bytes.size() != expected)
    return llvm::createStringError(formatTensorType(dtype, shape) + " needs " +
                                   std::to_string(expected) + " bytes, got " +
                                   std::to_string(bytes.size()));
  llvm::Expected<HostTensor> tensor = create(dtype, shape, /*zeroed=*/false);
  if (tensor && expected)
    std::memcpy(tensor->getData(), bytes.data(), expected);
  return tensor;
}

HostTensor::HostTensor(HostTensor &&other) noexcept
    : dtype(other.dtype), shape(std::move(other.shape)),
      numElements(std::exchange(other.numElements, 0)),
      numBytes(std::exchange(other.numBytes, 0)),
      storage(std::move(other.storage)) {
  other.shape.clear();
}

HostTensor &HostTensor::operator=(HostTensor &&other) noexcept {
  if (this == &other)
    return *this;
  dtype = other.dtype;
  shape = std::move(other.shape);
  other.shape.clear();
  numElements = std::exchange(other.numElements, 0);
  numBytes = std::exchange(other.numBytes, 0);
  storage = std::move(other.storage);
  return *this;
}

HostTensor::HostTensor(const HostTensor &other)
    : dtype(other.dtype), shape(other.shape), numElements(other.numElements),
      numBytes(other.numBytes) {
  if (!numBytes)
    return;
  storage.reset(static_cast<char *>(std::malloc(numBytes)));
  if (!storage)
    llvm::report_bad_alloc_error("out of memory copying a HostTensor");
  std::memcpy(storage.get(), other.storage.get(), numBytes);
}

HostTensor &HostTensor::operator=(const HostTensor &other) {
  if (this != &other)
    *this = HostTensor(other);
  return *this;
}

llvm::Expected<HostTensor> HostTensor::fromDoubles(DType dtype,
                                                   ArrayRef<int64_t> shape,
                                                   ArrayRef<double> values) {
  llvm::Expected<HostTensor> tensor = allocate(dtype, shape);
  if (!tensor)
    return tensor.takeError();
  if (values.size() != size_t(tensor->numElements))
    return llvm::createStringError(formatTensorType(dtype, shape) + " has " +
                                   std::to_string(tensor->numElements) +
                                   " elements, got " +
                                   std::to_string(values.size()) + " values");
  for (auto [i, value] : llvm::enumerate(values))
    tensor->setElementFromDouble(i, value);
  return tensor;
}

llvm::Expected<HostTensor>
HostTensor::random(DType dtype, ArrayRef<int64_t> shape, uint64_t seed) {
  llvm::Expected<HostTensor> tensor = allocate(dtype, shape);
  if (!tensor)
    return tensor.takeError();
  // mt19937_64 is specified bit for bit, so every platform draws the same
  // values; the conversions below avoid the unspecified std distributions.
  std::mt19937_64 engine(seed);
  for (int64_t i = 0; i < tensor->numElements; ++i) {
    uint64_t bits = engine();
    double value;
    if (isFloatDType(dtype))
      value = double(bits >> 11) * 0x1.0p-53 * 2.0 - 1.0;
    else if (dtype == DType::I1)
      value = double(bits >> 63);
    else
      value = double(int64_t(bits >> 60) - 8);
    tensor->setElementFromDouble(i, value);
  }
  return tensor;
}

/// Converts `bits` encoded with `semantics` to double.
static double halfToDouble(const llvm::fltSemantics &semantics, uint16_t bits) {
  return llvm::APFloat(semantics, llvm::APInt(16, bits)).convertToDouble();
}

/// Rounds `value` to the two-byte encoding of `semantics`.
static uint16_t doubleToHalf(const llvm::fltSemantics &semantics,
                             double value) {
  llvm::APFloat converted(value);
  bool losesInfo;
  converted.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return converted.bitcastToAPInt().getZExtValue();
}

double HostTensor::getElementAsDouble(int64_t index) const {
  assert(index >= 0 && index < numElements && "index out of range");
  const char *at = storage.get() + index * getDTypeSize(dtype);
  auto load = [&](auto zero) {
    decltype(zero) value;
    std::memcpy(&value, at, sizeof(value));
    return value;
  };
  switch (dtype) {
  case DType::F16:
    return halfToDouble(llvm::APFloat::IEEEhalf(), load(uint16_t()));
  case DType::BF16:
    return halfToDouble(llvm::APFloat::BFloat(), load(uint16_t()));
  case DType::F32:
    return load(float());
  case DType::F64:
    return load(double());
  case DType::I1:
  case DType::I8:
  case DType::I32:
  case DType::I64:
    return double(getElementAsInt64(index));
  }
  llvm_unreachable("unknown dtype");
}

void HostTensor::setElementFromDouble(int64_t index, double value) {
  assert(index >= 0 && index < numElements && "index out of range");
  char *at = storage.get() + index * getDTypeSize(dtype);
  auto store = [&](auto typed) { std::memcpy(at, &typed, sizeof(typed)); };
  // Out-of-range or NaN doubles would make the integer casts undefined.
  auto toInt = [&](double min, double max) -> int64_t {
    if (std::isnan(value))
      return 0;
    return int64_t(std::clamp(value, min, max));
  };
  switch (dtype) {
  case DType::F16:
    return store(doubleToHalf(llvm::APFloat::IEEEhalf(), value));
  case DType::BF16:
    return store(doubleToHalf(llvm::APFloat::BFloat(), value));
  case DType::F32:
    return store(float(value));
  case DType::F64:
    return store(value);
  case DType::I1:
    return store(uint8_t(value != 0.0));
  case DType::I8:
    return store(int8_t(toInt(-128.0, 127.0)));
  case DType::I32:
    return store(int32_t(toInt(-2147483648.0, 2147483647.0)));
  case DType::I64:
    return store(int64_t(toInt(-9223372036854775808.0, 9223372036854774784.0)));
  }
  llvm_unreachable("unknown dtype");
}

int64_t HostTensor::getElementAsInt64(int64_t index) const {
  assert(index >= 0 && index < numElements && "index out of range");
  assert(!isFloatDType(dtype) && "not an integer tensor");
  const char *at = storage.get() + index * getDTypeSize(dtype);
  auto load = [&](auto zero) {
    decltype(zero) value;
    std::memcpy(&value, at, sizeof(value));
    return int64_t(value);
  };
  switch (dtype) {
  case DType::I1:
    return load(uint8_t()) != 0;
  case DType::I8:
    return load(int8_t());
  case DType::I32:
    return load(int32_t());
  case DType::I64:
    return load(int64_t());
  default:
    llvm_unreachable("not an integer dtype");
  }
}

void HostTensor::setElementFromInt64(int64_t index, int64_t value) {
  assert(index >= 0 && index < numElements && "index out of range");
  assert(!isFloatDType(dtype) && "not an integer tensor");
  char *at = storage.get() + index * getDTypeSize(dtype);
  auto store = [&](auto typed) { std::memcpy(at, &typed, sizeof(typed)); };
  switch (dtype) {
  case DType::I1:
    return store(uint8_t(value != 0));
  case DType::I8:
    return store(int8_t(std::clamp<int64_t>(value, INT8_MIN, INT8_MAX)));
  case DType::I32:
    return store(int32_t(std::clamp<int64_t>(value, INT32_MIN, INT32_MAX)));
  case DType::I64:
    return store(value);
  default:
    llvm_unreachable("not an integer dtype");
  }
}
