/* Calls the kiln-compile'd library of ../libc-names.mlir, whose functions
 * are named after C library symbols, and checks the results against libm.
 * Prints one line per function; exits non-zero on the first mismatch. */
#include "libc.h"

#include <math.h>
#include <stdio.h>

static int failures = 0;

/* Checks `got` against `want` to a relative `tolerance`. */
static void check(const char *name, const double *got, const double *want,
                  int n, double tolerance) {
  int i;
  for (i = 0; i < n; ++i)
    if (!(fabs(got[i] - want[i]) <= tolerance * (1 + fabs(want[i])))) {
      printf("MISMATCH: %s[%d] = %g, expected %g\n", name, i, got[i], want[i]);
      ++failures;
      return;
    }
  printf("%s ok\n", name);
}

/* Runs a float function of four values and checks it against `f`. */
static void unary32(const char *name,
                    int (*function)(const void *const *, void *const *),
                    double (*f)(double)) {
  float x[4] = {0, 1, -1, 2}, y[4];
  double got[4], want[4];
  const void *inputs[] = {x};
  void *outputs[] = {y};
  int i;
  if (function(inputs, outputs) != 0) {
    printf("MISMATCH: %s returned non-zero\n", name);
    ++failures;
    return;
  }
  for (i = 0; i < 4; ++i) {
    got[i] = y[i];
    want[i] = f(x[i]);
  }
  check(name, got, want, 4, 1e-6);
}

static double gelu(double x) { return 0.5 * x * (1 + erf(x / sqrt(2.0))); }

int main(void) {
  {
    double x[4] = {0, 1, -1, 2}, y[4], want[4];
    const void *inputs[] = {x};
    void *outputs[] = {y};
    int i;
    for (i = 0; i < 4; ++i)
      want[i] = exp(x[i]);
    if (kiln_exp(inputs, outputs) == 0)
      check("exp", y, want, 4, 1e-15);
    else
      ++failures;
  }
  unary32("expf", kiln_expf, exp);
  unary32("tanhf", kiln_tanhf, tanh);
  unary32("erff", kiln_erff, gelu);
  {
    float x[2][3] = {{1, 2, 3}, {4, 5, 6}}, y[2][3];
    double got[6], want[6] = {-1, 0, 1, -1, 0, 1};
    const void *inputs[] = {x};
    void *outputs[] = {y};
    int i;
    if (kiln_malloc(inputs, outputs) != 0)
      ++failures;
    for (i = 0; i < 6; ++i)
      got[i] = y[i / 3][i % 3];
    check("malloc", got, want, 6, 0);
  }
  {
    float x[2][3] = {{1, 2, 3}, {4, 5, 6}}, y[2][2];
    double got[4], want[4] = {2, 3, 5, 6};
    const void *inputs[] = {x};
    void *outputs[] = {y};
    int i;
    if (kiln_memcpy(inputs, outputs) != 0)
      ++failures;
    for (i = 0; i < 4; ++i)
      got[i] = y[i / 2][i % 2];
    check("memcpy", got, want, 4, 0);
  }
  return failures != 0;
}
