/* Calls the kiln-compile'd library of ../add.mlir through its generated
 * header and checks every result against plain C loops. Prints one line per
 * function; exits non-zero on the first mismatch. */
#include "kadd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      printf("MISMATCH: " __VA_ARGS__);                                        \
      printf("\n");                                                            \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

static void test_add_bias(void) {
  enum { R = KILN_ADD_BIAS_INPUT0_DIM0, C = KILN_ADD_BIAS_INPUT0_DIM1 };
  float x[R][C], b[C], out[R][C];
  int i, j;
  /* The header's constants describe the signature. */
  CHECK(KILN_ADD_BIAS_NUM_INPUTS == 2 && KILN_ADD_BIAS_NUM_OUTPUTS == 1,
        "add_bias arity");
  CHECK(KILN_ADD_BIAS_INPUT0_DTYPE == KILN_DTYPE_F32 &&
            KILN_ADD_BIAS_INPUT1_RANK == 1 && KILN_ADD_BIAS_INPUT1_DIM0 == C &&
            KILN_ADD_BIAS_OUTPUT0_NUM_BYTES == sizeof(out),
        "add_bias header constants");
  for (i = 0; i < R; ++i)
    for (j = 0; j < C; ++j)
      x[i][j] = (float)(i * C + j) - 0.25f * (float)i;
  for (j = 0; j < C; ++j)
    b[j] = 100.0f * (float)(j % 2 ? -1 : 1) + (float)j;
  {
    const void *inputs[] = {x, b};
    void *outputs[] = {out};
    CHECK(kiln_add_bias(inputs, outputs) == 0, "add_bias returned non-zero");
  }
  for (i = 0; i < R; ++i)
    for (j = 0; j < C; ++j) {
      float want = (x[i][j] + b[j]) + 0.5f;
      CHECK(out[i][j] == want, "add_bias[%d][%d] = %g, want %g", i, j,
            out[i][j], want);
    }
  printf("add_bias: %s\n", kiln_add_bias_signature());
  printf("add_bias ok: %d values, [0] = %g, [%d] = %g\n",
         KILN_ADD_BIAS_OUTPUT0_NUM_ELEMENTS, out[0][0], R * C - 1,
         out[R - 1][C - 1]);
}

static void test_outer_sum(void) {
  int64_t col[3][1] = {{1}, {2}, {3}}, row[1][4] = {{10, 20, 30, 40}};
  int64_t out[3][4];
  const void *inputs[] = {col, row};
  void *outputs[] = {out};
  int i, j;
  CHECK(KILN_OUTER_SUM_OUTPUT0_DTYPE == KILN_DTYPE_I64, "outer_sum dtype");
  CHECK(kiln_outer_sum(inputs, outputs) == 0, "outer_sum returned non-zero");
  printf("outer_sum ok: [");
  for (i = 0; i < 3; ++i)
    for (j = 0; j < 4; ++j) {
      CHECK(out[i][j] == col[i][0] + row[0][j], "outer_sum[%d][%d]", i, j);
      printf("%s%lld", i || j ? ", " : "", (long long)out[i][j]);
    }
  printf("]\n");
}

static void test_flags(void) {
  uint8_t p[4] = {0, 1, 0, 1}, q[4] = {0, 0, 1, 1}, r0[4], r1[4];
  double s = 1.5, r2 = 0;
  const void *inputs[] = {p, q, &s};
  void *outputs[] = {r0, r1, &r2};
  int i;
  CHECK(KILN_FLAGS_INPUT2_RANK == 0 && KILN_FLAGS_INPUT2_NUM_ELEMENTS == 1,
        "flags rank-0 constants");
  CHECK(kiln_flags(inputs, outputs) == 0, "flags returned non-zero");
  for (i = 0; i < 4; ++i) {
    CHECK(r0[i] == (p[i] || q[i]), "flags r0[%d] = %d", i, r0[i]);
    CHECK(r1[i] == r0[i], "flags r1[%d] = %d", i, r1[i]);
  }
  CHECK(r2 == s + 1.0, "flags r2 = %g", r2);
  printf("flags ok: [%d, %d, %d, %d] [%d, %d, %d, %d] %g\n", r0[0], r0[1],
         r0[2], r0[3], r1[0], r1[1], r1[2], r1[3], r2);
}

static void test_empty(void) {
  float y[3] = {1, 2, 3}, s = 0.375f, r1 = 0;
  /* Zero-size tensors may be NULL. */
  const void *inputs[] = {NULL, y, &s};
  void *outputs[] = {NULL, &r1};
  CHECK(KILN_EMPTY_OUTPUT0_NUM_ELEMENTS == 0, "empty size");
  CHECK(kiln_empty(inputs, outputs) == 0, "empty returned non-zero");
  CHECK(r1 == 0.75f, "empty r1 = %g", r1);
  printf("empty ok: %g\n", r1);
}

static void test_window(void) {
  int32_t x[4][6], out[2][3];
  const void *inputs[] = {x};
  void *outputs[] = {out};
  int i, j;
  for (i = 0; i < 4; ++i)
    for (j = 0; j < 6; ++j)
      x[i][j] = i * 6 + j;
  CHECK(kiln_window(inputs, outputs) == 0, "window returned non-zero");
  printf("window ok: [");
  for (i = 0; i < 2; ++i)
    for (j = 0; j < 3; ++j) {
      CHECK(out[i][j] == x[1 + 2 * i][1 + 2 * j], "window[%d][%d]", i, j);
      printf("%s%d", i || j ? ", " : "", out[i][j]);
    }
  printf("]\n");
}

static float float_from_bits(uint32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

static uint32_t bits_from_float(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  return bits;
}

/* bf16 <-> float, rounding to nearest even (finite values). */
static float bf16_to_float(uint16_t h) { return float_from_bits((uint32_t)h << 16); }
static uint16_t bf16_from_float(float f) {
  uint32_t bits = bits_from_float(f);
  return (uint16_t)((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

/* f16 <-> float for normal values; f16_from_float needs an exact value. */
static float f16_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31, exponent = (h >> 10) & 0x1f,
           mantissa = h & 0x3ff;
  return float_from_bits(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}
static uint16_t f16_from_float(float f) {
  uint32_t bits = bits_from_float(f);
  uint32_t sign = bits >> 31, exponent = (bits >> 23) & 0xff,
           mantissa = bits & 0x7fffff;
  return (uint16_t)((sign << 15) | ((exponent - 127 + 15) << 10) | (mantissa >> 13));
}

static void test_halves(void) {
  /* f16: 1, -3, 5.5 plus 0.5 (exact sums) */
  uint16_t a[3] = {0x3c00, 0xc200, 0x4580}, b[1] = {0x3800}, r0[3];
  /* bf16: 1 + 2^-8 (a tie: rounds to 1), 1 + 3 * 2^-8 (a tie: rounds up
   * to even), 1.5 + 1.5 */
  uint16_t c[3] = {0x3f80, 0x3f80, 0x3fc0}, d[3] = {0x3b80, 0x3c40, 0x3fc0},
           r1[3];
  const void *inputs[] = {a, b, c, d};
  void *outputs[] = {r0, r1};
  int i;
  CHECK(KILN_HALVES_INPUT0_DTYPE == KILN_DTYPE_F16 &&
            KILN_HALVES_INPUT2_DTYPE == KILN_DTYPE_BF16 &&
            KILN_HALVES_OUTPUT1_NUM_BYTES == 6,
        "halves header constants");
  CHECK(kiln_halves(inputs, outputs) == 0, "halves returned non-zero");
  for (i = 0; i < 3; ++i) {
    uint16_t want0 = f16_from_float(f16_to_float(a[i]) + f16_to_float(b[0]));
    uint16_t want1 = bf16_from_float(bf16_to_float(c[i]) + bf16_to_float(d[i]));
    CHECK(r0[i] == want0, "halves r0[%d] = 0x%04x, want 0x%04x", i, r0[i], want0);
    CHECK(r1[i] == want1, "halves r1[%d] = 0x%04x, want 0x%04x", i, r1[i], want1);
  }
  printf("halves ok: f16 [0x%04x, 0x%04x, 0x%04x] bf16 [0x%04x, 0x%04x, 0x%04x]\n",
         r0[0], r0[1], r0[2], r1[0], r1[1], r1[2]);
}

static void test_null(void) {
  float x[20] = {0}, b[5] = {0}, out[20];
  const void *missing[] = {x, NULL};
  const void *inputs[] = {x, b};
  void *outputs[] = {out};
  CHECK(kiln_add_bias(NULL, outputs) == 1, "NULL inputs accepted");
  CHECK(kiln_add_bias(inputs, NULL) == 1, "NULL outputs accepted");
  CHECK(kiln_add_bias(missing, outputs) == 1, "NULL input accepted");
  printf("null pointers rejected\n");
}

int main(void) {
  test_add_bias();
  test_outer_sum();
  test_flags();
  test_empty();
  test_window();
  test_halves();
  test_null();
  if (failures)
    return 1;
  printf("all ok\n");
  return 0;
}
