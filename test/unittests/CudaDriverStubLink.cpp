//===- CudaDriverStubLink.cpp - The driver functions Kiln uses exist ------===//
//
// Linked against the CUDA toolkit's stub libcuda.so with --no-undefined: it
// takes the address of every driver function that Kiln's CUDA runtime
// resolves with dlsym (lib/Runtime/CUDA/DriverFunctions.def, under cuda.h's
// versioned names), so a function missing from the driver's ABI fails the
// link. Run against the stub, it checks that a call goes through.
//
//===----------------------------------------------------------------------===//

#include "cuda.h"

#include <cstdio>

int main() {
  // Stored through a volatile, so the references stay in the object.
  void *volatile address = nullptr;
  int count = 0;
#define KILN_CUDA_REQUIRED(name)                                               \
  address = reinterpret_cast<void *>(&::name);                                 \
  ++count;
#include "../../lib/Runtime/CUDA/DriverFunctions.def"
  // The stub's functions fail with CUDA_ERROR_STUB_LIBRARY.
  CUresult result = cuInit(0);
  std::printf("%d driver functions linked; cuInit returned %d\n", count,
              int(result));
  (void)address;
  return result == CUDA_ERROR_STUB_LIBRARY ? 0 : 1;
}
