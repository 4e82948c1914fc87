//===- ErrorSlot.h - The per-thread error slot of Kiln's GPU runtimes -----===//
//
// Kiln's CUDA runtime and its GPU emulator report errors the same way: the
// first error of a thread is kept, formatted, until it is cleared, and
// kilnCudaGetLastError / kilnCudaClearLastError / kilnCudaReportError expose
// it (docs/GPURuntime.md). Each runtime includes this header in its one
// translation unit, so each library has its own slot.
//
// Only C library facilities: the runtimes are linked into libraries that
// need no libstdc++.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_RUNTIME_ERRORSLOT_H
#define KILN_LIB_RUNTIME_ERRORSLOT_H

#include <stdarg.h>
#include <stdio.h>

namespace {

/// This thread's first error since the last clear. Trivially constructible
/// and destructible, so thread-local storage needs no C++ runtime support.
thread_local char errorMessage[2048];
thread_local bool hasError = false;

/// Records a formatted message unless an error is already recorded.
__attribute__((format(printf, 1, 2))) void reportError(const char *format,
                                                       ...) {
  if (hasError)
    return;
  va_list args;
  va_start(args, format);
  vsnprintf(errorMessage, sizeof(errorMessage), format, args);
  va_end(args);
  hasError = true;
}

/// The recorded message, or null when there is none.
const char *getLastError() { return hasError ? errorMessage : nullptr; }

/// Forgets the recorded error.
void clearLastError() {
  hasError = false;
  errorMessage[0] = '\0';
}

} // namespace

#endif // KILN_LIB_RUNTIME_ERRORSLOT_H
