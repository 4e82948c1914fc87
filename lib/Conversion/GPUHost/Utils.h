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

/// Where ops go at the end of `block`: before its terminator, or after its
/// last op in a block without one (a graph region), where
/// Block::getTerminator() would name the last op, terminator or not.
inline Block::iterator getEndOfBody(Block *block) {
  if (!block->empty() && block->mightHaveTerminator())
    return Block::iterator(block->getTerminator());
  return block->end();
}

} // namespace mlir::kiln

#endif // KILN_LIB_CONVERSION_GPUHOST_UTILS_H
