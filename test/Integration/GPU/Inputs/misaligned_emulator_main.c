// Calls misaligned-emulator.mlir's @copy (32 threads, each a 16-byte vector
// load from in + offset + 4 t floats) with offsets 0 and 1 and prints what
// the emulator's error slot says.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct Memref1D {
  float *allocated, *aligned;
  int64_t offset, size, stride;
};

void _mlir_ciface_copy(struct Memref1D *in, int64_t offset,
                       struct Memref1D *out);
const char *kilnCudaGetLastError(void);
void kilnCudaClearLastError(void);

int main(void) {
  float *in = aligned_alloc(256, 256 * sizeof(float));
  float *out = aligned_alloc(256, 128 * sizeof(float));
  for (int i = 0; i < 256; ++i)
    in[i] = (float)i;
  for (int64_t offset = 0; offset < 2; ++offset) {
    memset(out, 0, 128 * sizeof(float));
    struct Memref1D inRef = {in, in, 0, 256, 1};
    struct Memref1D outRef = {out, out, 0, 128, 1};
    _mlir_ciface_copy(&inRef, offset, &outRef);
    const char *error = kilnCudaGetLastError();
    int copied = 0;
    for (int i = 0; i < 128; ++i)
      copied += out[i] == (float)(i + offset);
    printf("offset %ld: %d of 128 copied: %s\n", (long)offset, copied,
           error ? error : "no error");
    kilnCudaClearLastError();
  }
  free(in);
  free(out);
  return 0;
}
