/* Calls the kiln-compile'd library of ../out-of-memory.mlir, whose compiled
 * code needs a temporary that no machine has: the call returns 3 with the
 * message, twice in a row (the first failure leaves the library usable),
 * and a function that allocates nothing that large still works after it. */
#include "oom.h"

#include <stdio.h>

int main(void) {
  float x = 1.0f, y = 0.0f, v[4] = {1, 2, 3, 4}, sums[4] = {0};
  const void *inputs[] = {&x};
  void *outputs[] = {&y};
  for (int i = 0; i < 2; ++i) {
    int code = kiln_temporary(inputs, outputs);
    printf("temporary: %d \"%s\"\n", code, kiln_last_error());
  }
  const void *scanInputs[] = {v};
  void *scanOutputs[] = {sums};
  int code = kiln_small(scanInputs, scanOutputs);
  printf("small: %d \"%s\" [%g, %g, %g, %g]\n", code, kiln_last_error(),
         sums[0], sums[1], sums[2], sums[3]);
  return 0;
}
