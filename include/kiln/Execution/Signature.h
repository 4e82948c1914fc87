//===- Signature.h - The tensor signature of a compiled function -*- C++ -*-===//
//
// What the JIT and the ahead-of-time compiler pass across their ABI: each
// argument and result of a public function is a statically shaped tensor of
// one of the kiln element types (DType), in a dense row-major buffer.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_EXECUTION_SIGNATURE_H
#define KILN_EXECUTION_SIGNATURE_H

#include "kiln/Support/HostTensor.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mlir::kiln {

/// The shape and dtype of one function argument or result.
struct TensorSpec {
  DType dtype;
  SmallVector<int64_t> shape;

  std::string getTypeString() const { return formatTensorType(dtype, shape); }
  int64_t getNumElements() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
  int64_t getNumBytes() const {
    return getNumElements() * int64_t(getDTypeSize(dtype));
  }
};

/// The tensor signature of a public function.
struct FunctionSignature {
  SmallVector<TensorSpec> inputs;
  SmallVector<TensorSpec> results;
};

/// The spec of `type`, or nothing when it is not a statically shaped ranked
/// tensor of a kiln element type (which the ABI cannot pass).
std::optional<TensorSpec> getTensorSpec(Type type);

/// The tensor signature of a function `name` of type `type`, or nothing when
/// the ABI cannot pass one of its types; `unsupported` then says which, as
/// "argument #0 of @f has type 'index'" (the callers say what cannot pass
/// it).
std::optional<FunctionSignature>
getFunctionSignature(FunctionType type, StringRef name,
                     std::string &unsupported);

/// The element types the ABI passes, for diagnostics.
inline constexpr llvm::StringLiteral kAbiElementTypes =
    "f16, bf16, f32, f64, i1, i8, i32 or i64";

} // namespace mlir::kiln

#endif // KILN_EXECUTION_SIGNATURE_H
