/*===- GPUEmulatorCLink.c - the emulator in a C program -------------------===*
 *
 * Links KilnGPUEmulator into a C program with the C linker (no libstdc++),
 * as kiln-compile links it into ahead-of-time libraries, and runs a kernel
 * with a barrier and a shuffle. Exits 0 on success.
 *
 *===----------------------------------------------------------------------===*/

#include "kiln/Runtime/CudaRuntime.h"
#include "kiln/Runtime/GPUEmulator.h"

#include <stdio.h>

static int32_t shared[64];

static void kernel(void **params) {
  int32_t *out = (int32_t *)params[0];
  int32_t t = __kiln_emu_sreg(0);
  shared[t] = t;
  __kiln_emu_barrier();
  out[t] = __kiln_emu_shfl_sync(3, -1, shared[63 - t], 1, 31, 0);
}

int main(void) {
  int32_t out[64];
  void *params[] = {out};
  int t;
  __kiln_emu_launch(kernel, 1, 1, 1, 64, 1, 1, 0, 0, params);
  if (kilnCudaGetLastError()) {
    fprintf(stderr, "%s\n", kilnCudaGetLastError());
    return 1;
  }
  for (t = 0; t < 64; ++t)
    if (out[t] != 63 - (t ^ 1)) {
      fprintf(stderr, "out[%d] = %d\n", t, (int)out[t]);
      return 1;
    }
  return 0;
}
