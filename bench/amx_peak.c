/* The AMX-BF16 limit of one core, measured: tdpbf16ps on tiles that stay in
 * the tile registers (four independent 16x16 f32 accumulators, no loads in
 * the loop), 16 x 16 x 32 multiply-adds = 16384 floating-point operations
 * each. Prints GFLOP/s, the best of 5 runs of `iterations` x 4 instructions.
 * bench/matmul.py builds and runs it for its "% of AMX" column.
 *
 *   cc -O2 -mamx-tile -mamx-bf16 amx_peak.c -o amx_peak && ./amx_peak
 */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct config {
  uint8_t palette, start;
  uint8_t reserved[14];
  uint16_t bytesPerRow[16];
  uint8_t rows[16];
};

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(void) {
  /* ARCH_REQ_XCOMP_PERM for XFEATURE_XTILEDATA: Linux hands out the tiles. */
  if (syscall(SYS_arch_prctl, 0x1023, 18) != 0) {
    fprintf(stderr, "amx_peak: the OS refuses the AMX tile state\n");
    return 1;
  }
  struct config cfg;
  memset(&cfg, 0, sizeof(cfg));
  cfg.palette = 1;
  for (int t = 0; t < 8; ++t) {
    cfg.bytesPerRow[t] = 64;
    cfg.rows[t] = 16;
  }
  _tile_loadconfig(&cfg);
  static uint16_t zeros[16 * 32];
  _tile_loadd(4, zeros, 64);
  _tile_loadd(5, zeros, 64);
  _tile_loadd(6, zeros, 64);
  _tile_loadd(7, zeros, 64);
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  const long iterations = 1 << 20;
  double best = 0;
  for (int run = 0; run < 5; ++run) {
    double start = now();
    for (long i = 0; i < iterations; ++i) {
      _tile_dpbf16ps(0, 4, 6);
      _tile_dpbf16ps(1, 4, 7);
      _tile_dpbf16ps(2, 5, 6);
      _tile_dpbf16ps(3, 5, 7);
    }
    double seconds = now() - start;
    double rate = 4.0 * iterations * 16384 / seconds;
    if (rate > best)
      best = rate;
  }
  static float out[16 * 16];
  _tile_stored(0, out, 64);
  _tile_release();
  printf("%.1f\n", out[0] == 0 ? best / 1e9 : 0.0); /* out: zeros */
  return 0;
}
