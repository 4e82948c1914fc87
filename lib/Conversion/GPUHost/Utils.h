//===- Utils.h - Helpers shared by the GPUHost passes -----------*- C++ -*-===//
//
// Private to the KilnGPUHost library.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CONVERSION_GPUHOST_UTILS_H
#define KILN_LIB_CONVERSION_GPUHOST_UTILS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::kiln {

/// Whether `op` is host code: neither inside a `gpu.launch` body nor inside
/// a `gpu.module`.
inline bool isHostCode(Operation *op) {
  return !op->getParentOfType<gpu::LaunchOp>() &&
         !op->getParentOfType<gpu::GPUModuleOp>();
}

} // namespace mlir::kiln

#endif // KILN_LIB_CONVERSION_GPUHOST_UTILS_H
