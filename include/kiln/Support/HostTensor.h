//===- HostTensor.h - Dense tensors in host memory --------------*- C++ -*-===//
//
// The runtime's value type: a dense, contiguous, row-major tensor owned in
// host memory, with one of the kiln element types. Booleans (i1) take one
// byte each (0 or 1), f16 and bf16 their two-byte IEEE/bfloat encodings.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_HOSTTENSOR_H
#define KILN_SUPPORT_HOSTTENSOR_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
class Type;
} // namespace mlir

namespace mlir::kiln {

/// The element types a HostTensor holds, one per kiln element type.
enum class DType : uint8_t { F16, BF16, F32, F64, I1, I8, I32, I64 };

/// Returns the number of bytes one element takes in memory.
size_t getDTypeSize(DType dtype);
/// Returns the MLIR spelling of `dtype`: `f16`, `bf16`, ..., `i64`.
StringRef stringifyDType(DType dtype);
/// Parses the MLIR spelling of a dtype.
std::optional<DType> parseDType(StringRef name);
/// Returns the dtype of an MLIR element type, if it is a kiln element type.
std::optional<DType> getDTypeFor(Type elementType);
/// Returns the MLIR element type of `dtype`.
Type getMLIRType(DType dtype, MLIRContext *context);
/// Returns true for f16, bf16, f32 and f64.
bool isFloatDType(DType dtype);

/// Returns the number of elements of `shape`, or an error when a dim is
/// negative or the byte size of a `dtype` tensor of that shape overflows or
/// exceeds HostTensor::kMaxBytes.
llvm::Expected<int64_t> checkedNumElements(DType dtype,
                                           ArrayRef<int64_t> shape);

/// Formats a tensor type the way MLIR prints it: `tensor<2x3xf32>`.
std::string formatTensorType(DType dtype, ArrayRef<int64_t> shape);

/// A dense row-major tensor in host memory.
class HostTensor {
public:
  /// The largest tensor the runtime allocates (64 GiB).
  static constexpr int64_t kMaxBytes = int64_t(1) << 36;

  /// A zero-filled tensor; fails on a bad or too large shape, and when the
  /// memory cannot be allocated (the error names the type and the bytes).
  /// Every constructor below fails the same way: the storage comes from
  /// calloc/malloc, not operator new, whose failure LLVM's out-of-memory
  /// handler turns into an abort.
  static llvm::Expected<HostTensor> allocate(DType dtype,
                                             ArrayRef<int64_t> shape);

  /// A tensor holding `bytes` (which must have the exact size).
  static llvm::Expected<HostTensor>
  fromBytes(DType dtype, ArrayRef<int64_t> shape, ArrayRef<char> bytes);

  /// A tensor whose elements are `values` converted to `dtype` (floats are
  /// rounded to nearest even, integers truncated, booleans are `value != 0`).
  static llvm::Expected<HostTensor>
  fromDoubles(DType dtype, ArrayRef<int64_t> shape, ArrayRef<double> values);

  /// A tensor of deterministic pseudo-random values from `seed`: floats
  /// uniform in [-1, 1), integers in [-8, 8), booleans 0 or 1.
  static llvm::Expected<HostTensor> random(DType dtype, ArrayRef<int64_t> shape,
                                           uint64_t seed);

  HostTensor() = default;
  HostTensor(HostTensor &&other) noexcept;
  HostTensor &operator=(HostTensor &&other) noexcept;
  /// A copy aborts (llvm::report_bad_alloc_error) when its memory cannot be
  /// allocated, like a std::vector copy; the constructors above report it.
  HostTensor(const HostTensor &other);
  HostTensor &operator=(const HostTensor &other);

  DType getDType() const { return dtype; }
  ArrayRef<int64_t> getShape() const { return shape; }
  int64_t getRank() const { return shape.size(); }
  int64_t getNumElements() const { return numElements; }
  size_t getNumBytes() const { return numBytes; }
  /// `tensor<2x3xf32>`.
  std::string getTypeString() const { return formatTensorType(dtype, shape); }

  /// The raw bytes, row-major.
  char *getData() { return storage.get(); }
  const char *getData() const { return storage.get(); }
  ArrayRef<char> getBytes() const { return {storage.get(), numBytes}; }

  /// The elements as a typed array; T must have the dtype's size.
  template <typename T> MutableArrayRef<T> getValues() {
    assert(sizeof(T) == getDTypeSize(dtype) && "element size mismatch");
    return {reinterpret_cast<T *>(storage.get()), size_t(numElements)};
  }
  template <typename T> ArrayRef<T> getValues() const {
    assert(sizeof(T) == getDTypeSize(dtype) && "element size mismatch");
    return {reinterpret_cast<const T *>(storage.get()), size_t(numElements)};
  }

  /// Element `index` (row-major) converted to double.
  double getElementAsDouble(int64_t index) const;
  /// Sets element `index` (row-major) from a double (see fromDoubles).
  void setElementFromDouble(int64_t index, double value);
  /// Element `index` (row-major) of an integer or i1 tensor, exactly (a
  /// double holds integers only up to 2^53).
  int64_t getElementAsInt64(int64_t index) const;
  /// Sets element `index` (row-major) of an integer or i1 tensor: i1 stores
  /// `value != 0`, the others clamp `value` to their range.
  void setElementFromInt64(int64_t index, int64_t value);

private:
  struct FreeDeleter {
    void operator()(char *pointer) const { std::free(pointer); }
  };

  /// A tensor of `dtype` and `shape` with storage from calloc (`zeroed`) or
  /// malloc, or an error naming the type and the bytes.
  static llvm::Expected<HostTensor> create(DType dtype, ArrayRef<int64_t> shape,
                                           bool zeroed);

  DType dtype = DType::F32;
  SmallVector<int64_t> shape;
  int64_t numElements = 0;
  size_t numBytes = 0;
  std::unique_ptr<char[], FreeDeleter> storage;
};

} // namespace mlir::kiln

#endif // KILN_SUPPORT_HOSTTENSOR_H
