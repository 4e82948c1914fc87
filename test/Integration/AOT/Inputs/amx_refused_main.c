/* Calls the kiln-compile'd library of ../amx-refused.mlir in a process that
 * may not use AMX: each call returns 4 with the message and writes nothing
 * (the output keeps its sentinel), twice in a row, and so does the entry
 * point that has no matmul: the library was built for a CPU with AMX. */
#include "refused.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  uint16_t a[32 * 32], b[32 * 32], c[32 * 32];
  for (int i = 0; i < 32 * 32; ++i)
    a[i] = b[i] = 0x3f80; /* bf16 1.0 */
  memset(c, 0, sizeof(c));
  const void *inputs[] = {a, b};
  void *outputs[] = {c};
  for (int i = 0; i < 2; ++i) {
    int code = kiln_mm(inputs, outputs);
    printf("mm: %d \"%s\" %d\n", code, kiln_last_error(), c[0]);
  }
  float x = 3.0f, y = 0.0f;
  const void *scaleInputs[] = {&x};
  void *scaleOutputs[] = {&y};
  int code = kiln_scale(scaleInputs, scaleOutputs);
  printf("scale: %d \"%s\" %g\n", code, kiln_last_error(), y);
  return 0;
}
