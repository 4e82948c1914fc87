//===- Npy.h - Reading and writing NumPy .npy files -------------*- C++ -*-===//
//
// The NumPy `.npy` format, versions 1.0, 2.0 and 3.0: a magic string, a
// version, a little-endian header length, a Python dict literal header
// (`descr`, `fortran_order`, `shape`) and the raw data. Kiln reads and
// writes little-endian, C-order arrays of its element types only:
//
//   descr      dtype     descr      dtype
//   '<f2'      f16       '|b1'      i1
//   '<V2'      bf16      '|i1'      i8
//   '<f4'      f32       '<i4'      i32
//   '<f8'      f64       '<i8'      i64
//
// NumPy has no bfloat16; bf16 tensors are written as two-byte void records
// (`'<V2'`, what NumPy saves for ml_dtypes.bfloat16) and read back as bf16.
// Every malformed input is an llvm::Error with a message, never a crash.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_NPY_H
#define KILN_SUPPORT_NPY_H

#include "kiln/Support/HostTensor.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::kiln {

/// Parses the bytes of a `.npy` file.
llvm::Expected<HostTensor> parseNpy(StringRef bytes);

/// Reads a `.npy` file; errors name the file. A file that is not regular (a
/// pipe, a device) is read only up to the end of the data its header
/// declares, so that an endless one such as /dev/zero is an error, not a
/// hang.
llvm::Expected<HostTensor> readNpy(StringRef path);

/// Returns the `.npy` encoding of `tensor` (version 1.0 when the header fits
/// in 65535 bytes, else 2.0).
std::string serializeNpy(const HostTensor &tensor);

/// Writes `tensor` to the `.npy` file `path`.
llvm::Error writeNpy(const HostTensor &tensor, StringRef path);

} // namespace mlir::kiln

#endif // KILN_SUPPORT_NPY_H
