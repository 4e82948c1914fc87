// Calls racecheck-emulator.mlir's @rotate_racy and @rotate (out[t] =
// in[(t + 1) % 64] through workgroup memory) and prints how many elements
// are right and what the emulator's error slot says.
#include <stdint.h>
#include <stdio.h>

struct Memref1D {
  float *allocated, *aligned;
  int64_t offset, size, stride;
};

void _mlir_ciface_rotate_racy(struct Memref1D *in, struct Memref1D *out);
void _mlir_ciface_rotate(struct Memref1D *in, struct Memref1D *out);
const char *kilnCudaGetLastError(void);
void kilnCudaClearLastError(void);

static void run(const char *name,
                void (*function)(struct Memref1D *, struct Memref1D *)) {
  float in[64], out[64];
  for (int i = 0; i < 64; ++i) {
    in[i] = (float)i;
    out[i] = -1;
  }
  struct Memref1D inRef = {in, in, 0, 64, 1};
  struct Memref1D outRef = {out, out, 0, 64, 1};
  function(&inRef, &outRef);
  const char *error = kilnCudaGetLastError();
  int right = 0;
  for (int i = 0; i < 64; ++i)
    right += out[i] == (float)((i + 1) % 64);
  printf("%s: %d of 64 right: %s\n", name, right, error ? error : "no error");
  kilnCudaClearLastError();
}

int main(void) {
  run("rotate_racy", _mlir_ciface_rotate_racy);
  run("rotate", _mlir_ciface_rotate);
  return 0;
}
