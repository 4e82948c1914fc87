/* Links liba (@fa) and libb (@fb) of ../two-libraries.mlir, makes calls
 * fail, and prints what each library's kiln_<name>_last_error() and the
 * shared kiln_last_error() (liba's, linked first) return. */
#include "a.h"
#include "b.h"

#include <stdio.h>

int main(void) {
  float x[2] = {1, 2}, y[2] = {0, 0};
  const void *inputs[] = {x};
  void *noOutput[] = {NULL};
  void *outputs[] = {y};
  int rc = kiln_fb(inputs, noOutput);
  printf("fb: %d, fb's \"%s\", fa's \"%s\", shared \"%s\"\n", rc,
         kiln_fb_last_error(), kiln_fa_last_error(), kiln_last_error());
  rc = kiln_fa(NULL, outputs);
  printf("fa: %d, fa's \"%s\", fb's \"%s\"\n", rc, kiln_fa_last_error(),
         kiln_fb_last_error());
  rc = kiln_fa(inputs, outputs);
  printf("fa: %d, fa's \"%s\", fb's \"%s\", [%g, %g]\n", rc,
         kiln_fa_last_error(), kiln_fb_last_error(), y[0], y[1]);
  return 0;
}
