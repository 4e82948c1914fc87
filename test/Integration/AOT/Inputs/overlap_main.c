/* Calls the functions of ../overlap.mlir with overlapping buffers and
 * prints what each call returned and kiln_last_error(). */
#include "ov.h"

#include <stdio.h>
#include <string.h>

int main(void) {
  float a[3][3] = {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}, kept[3][3];
  float buffer[18];
  int rc, i;
  memcpy(kept, a, sizeof(a));
  {
    const void *inputs[] = {a};
    void *outputs[] = {a};
    rc = kiln_t(inputs, outputs);
    printf("in place: %d \"%s\", input %s\n", rc, kiln_last_error(),
           memcmp(a, kept, sizeof(a)) ? "changed" : "kept");
  }
  /* The last element of the input is the first of the output. */
  memcpy(buffer, a, sizeof(a));
  {
    const void *inputs[] = {buffer};
    void *outputs[] = {buffer + 8};
    rc = kiln_t(inputs, outputs);
    printf("one element in: %d \"%s\"\n", rc, kiln_last_error());
  }
  {
    const void *inputs[] = {buffer};
    void *outputs[] = {buffer + 9};
    rc = kiln_t(inputs, outputs);
    printf("adjacent: %d \"%s\", %s\n", rc, kiln_last_error(),
           buffer[9 + 1] == 4 && buffer[9 + 3] == 2 ? "transposed" : "wrong");
  }
  {
    float x[4] = {1, 2, 3, 4}, y[4];
    const void *inputs[] = {x};
    void *outputs[] = {y, y};
    rc = kiln_two(inputs, outputs);
    printf("outputs: %d \"%s\"\n", rc, kiln_last_error());
  }
  {
    float x[4] = {1, 2, 3, 4}, y[4];
    const void *inputs[] = {x, x};
    void *outputs[] = {y};
    rc = kiln_add(inputs, outputs);
    printf("same inputs: %d \"%s\" [", rc, kiln_last_error());
    for (i = 0; i < 4; ++i)
      printf("%s%g", i ? ", " : "", y[i]);
    printf("]\n");
  }
  {
    void *outputs[] = {a};
    rc = kiln_t(NULL, outputs);
    printf("null: %d \"%s\"\n", rc, kiln_last_error());
  }
  {
    float a2[2] = {1, 2}, b3[3] = {3, 4, 5}, d4[4] = {6, 7, 8, 9};
    float o2[2], o3[3], o4[4], big[8], shared[8] = {3, 4, 5};
    const void *inputs[] = {a2, shared, NULL, d4};
    const void *nullInput[] = {a2, b3, NULL, NULL};
    void *outputs[] = {o2, o3, shared + 2, NULL};
    /* inputs[1] is shared[0..2], outputs[2] shared[2..5]. */
    rc = kiln_many(inputs, outputs);
    printf("many: %d \"%s\"\n", rc, kiln_last_error());
    inputs[1] = b3;
    outputs[1] = big;
    outputs[2] = big + 2;
    rc = kiln_many(inputs, outputs);
    printf("many: %d \"%s\"\n", rc, kiln_last_error());
    rc = kiln_many(nullInput, outputs);
    printf("many: %d \"%s\"\n", rc, kiln_last_error());
    outputs[1] = NULL;
    rc = kiln_many(inputs, outputs);
    printf("many: %d \"%s\"\n", rc, kiln_last_error());
    outputs[1] = o3;
    outputs[2] = o4;
    outputs[3] = a2;
    rc = kiln_many(inputs, outputs);
    printf("many: %d \"%s\" [%g, %g] [%g, %g, %g]\n", rc, kiln_last_error(),
           o2[0], o2[1], o3[0], o3[1], o3[2]);
  }
  return 0;
}
