//===- AotCSource.h - The C entry points of an AOT library ------*- C++ -*-===//
//
// Private to KilnExecution: the generated C source that
// compileToSharedLibrary links into each library.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_EXECUTION_AOTCSOURCE_H
#define KILN_LIB_EXECUTION_AOTCSOURCE_H

#include "kiln/Execution/AotCompiler.h"

#include <string>

namespace mlir::kiln {

/// The C source of the exported functions of a library: lib/Runtime/AotEntryPoints.c
/// and, per function, a wrapper that checks the pointers, builds the memref
/// descriptors of the runtime ABI (docs/CPUBackend.md) and calls
/// _mlir_ciface_<name>. `needsMemrefCopy`: the code calls memrefCopy, which
/// the source then defines. `needsHostAllocator`: the code calls
/// _mlir_memref_to_llvm_alloc and friends, which the source then defines
/// (Kiln's host allocator, with hidden visibility). `cudaErrors`: the error
/// slot is the CUDA runtime's (or the GPU emulator's).
/// `usesAMX`: the compiled code runs AMX tiles, which each entry point asks
/// the OS for first (returning 4 where it may not use them).
std::string generateAotWrappers(ArrayRef<AotEntryPoint> functions,
                                bool needsMemrefCopy, bool needsHostAllocator,
                                bool cudaErrors, bool usesAMX);

} // namespace mlir::kiln

#endif // KILN_LIB_EXECUTION_AOTCSOURCE_H
