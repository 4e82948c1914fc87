//===- HostFunctions.cpp - The GPU emulator's host functions --------------===//
//
// Kiln's error slot (kilnCuda*, include/kiln/Runtime/CudaRuntime.h) and the
// mgpu* host functions that MLIR's gpu-to-llvm emits calls to, over host
// memory, so that a program lowered for CUDA runs unchanged on the emulator.
//
// The one file of the emulator that includes lib/Runtime/ErrorSlot.h, so the
// library has one error slot: the other files record errors through
// kiln::emu::reportError, defined here.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"
#include "kiln/Runtime/CudaRuntime.h"

#include "../ErrorSlot.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kiln::emu::reportError(const char *format, ...) {
  if (hasError)
    return;
  char message[sizeof(errorMessage)];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  ::reportError("%s", message);
}

bool kiln::emu::hasRecordedError() { return hasError; }

//===----------------------------------------------------------------------===//
// Kiln's error slot
//===----------------------------------------------------------------------===//

extern "C" const char *kilnCudaGetLastError(void) { return getLastError(); }

extern "C" void kilnCudaClearLastError(void) { clearLastError(); }

extern "C" void kilnCudaReportError(const char *message) {
  reportError("%s", message);
}

/// Launches run to completion before __kiln_emu_launch returns: nothing to
/// wait for.
extern "C" void kilnCudaSynchronize(void) {}

//===----------------------------------------------------------------------===//
// The mgpu* host functions over host memory
//===----------------------------------------------------------------------===//

namespace {
/// What stream and event handles point at: valid, distinct, never freed.
char dummyStream, dummyEvent;
/// Device allocations are 256-byte aligned, like cuMemAlloc's.
constexpr size_t kAllocationAlignment = 256;
} // namespace

extern "C" void *mgpuModuleLoad(void *, size_t) {
  reportError("GPU emulator: mgpuModuleLoad cannot load a GPU binary: "
              "compile the kernels for the emulator "
              "(kiln-gpu-emulate-kernels) instead of gpu-module-to-binary");
  return nullptr;
}

extern "C" void *mgpuModuleLoadJIT(void *, int) {
  reportError("GPU emulator: mgpuModuleLoadJIT cannot load PTX: compile the "
              "kernels for the emulator (kiln-gpu-emulate-kernels) instead "
              "of gpu-module-to-binary");
  return nullptr;
}

extern "C" void mgpuModuleUnload(void *) {}

extern "C" void *mgpuModuleGetFunction(void *, const char *name) {
  reportError("GPU emulator: mgpuModuleGetFunction(\"%s\"): there are no GPU "
              "modules in the emulator",
              name ? name : "");
  return nullptr;
}

extern "C" void mgpuLaunchKernel(void *, intptr_t, intptr_t, intptr_t, intptr_t,
                                 intptr_t, intptr_t, int32_t, void *, void **,
                                 void **, size_t) {
  reportError("GPU emulator: mgpuLaunchKernel cannot launch a GPU kernel: "
              "emulated kernels are launched with __kiln_emu_launch");
}

extern "C" void mgpuLaunchClusterKernel(void *, intptr_t, intptr_t, intptr_t,
                                        intptr_t, intptr_t, intptr_t, intptr_t,
                                        intptr_t, intptr_t, int32_t, void *,
                                        void **, void **) {
  reportError("GPU emulator: mgpuLaunchClusterKernel cannot launch a GPU "
              "kernel: emulated kernels are launched with __kiln_emu_launch");
}

extern "C" void *mgpuStreamCreate(void) { return &dummyStream; }
extern "C" void mgpuStreamDestroy(void *) {}
extern "C" void mgpuStreamSynchronize(void *) {}
extern "C" void mgpuStreamWaitEvent(void *, void *) {}
extern "C" void *mgpuEventCreate(void) { return &dummyEvent; }
extern "C" void mgpuEventDestroy(void *) {}
extern "C" void mgpuEventSynchronize(void *) {}
extern "C" void mgpuEventRecord(void *, void *) {}

extern "C" void *mgpuMemAlloc(uint64_t sizeBytes, void *, bool) {
  // Zero-size buffers (empty tensors) are never dereferenced.
  if (hasError || sizeBytes == 0)
    return nullptr;
  void *pointer = nullptr;
  if (posix_memalign(&pointer, kAllocationAlignment, size_t(sizeBytes)) != 0) {
    reportError("GPU emulator: mgpuMemAlloc(%llu bytes): out of host memory",
                static_cast<unsigned long long>(sizeBytes));
    return nullptr;
  }
  // Device memory starts undefined: all-ones bytes (NaN in every float
  // format) make a kernel that reads what nobody wrote visible.
  memset(pointer, 0xff, size_t(sizeBytes));
  return pointer;
}

extern "C" void mgpuMemFree(void *ptr, void *) { free(ptr); }

extern "C" void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *) {
  if (hasError || sizeBytes == 0)
    return;
  memmove(dst, src, sizeBytes);
}

extern "C" void mgpuMemset16(void *dst, unsigned short value, size_t count,
                             void *) {
  if (hasError)
    return;
  auto *out = static_cast<uint16_t *>(dst);
  for (size_t i = 0; i < count; ++i)
    out[i] = value;
}

extern "C" void mgpuMemset32(void *dst, unsigned int value, size_t count,
                             void *) {
  if (hasError)
    return;
  auto *out = static_cast<uint32_t *>(dst);
  for (size_t i = 0; i < count; ++i)
    out[i] = value;
}

extern "C" void mgpuMemHostRegister(void *, uint64_t) {}
extern "C" void mgpuMemHostRegisterMemRef(int64_t, void *, int64_t) {}
extern "C" void mgpuMemHostUnregister(void *) {}
extern "C" void mgpuMemHostUnregisterMemRef(int64_t, void *, int64_t) {}
extern "C" void mgpuSetDefaultDevice(int32_t) {}
