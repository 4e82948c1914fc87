//===- emulator_check.cu - the GPU emulator against the real hardware -----===//
//
// Runs the same warp collectives on the GPU (inline PTX) and through Kiln's
// GPU emulator (libKilnGPUEmulator.a, on the host), and compares:
//   - shfl.sync, every mode, every source lane/offset 0..31 and a sweep of
//     `c` operands (segment masks and clamps), full warps: values and
//     predicates must be bit-identical;
//   - mma.sync.m16n8k16 f32 += f16/bf16: small-integer operands (every sum is
//     exact in any order) must be bit-identical, which pins the fragment
//     layout; random operands must agree within twice the bound of 16 f32
//     additions of exact products (17 * 2^-24 * sum |terms| each side of the
//     double reference); inf/NaN operands must give the same non-finite
//     results;
//   - ldmatrix.sync.aligned.m8n8.x1/x2/x4[.trans].shared.b16 from a padded
//     tile with random rows and 16-byte aligned columns per lane: every
//     register bit-identical (the fragment layout).
// Prints `PASS|FAIL name err tol [note]` lines (bench/gpu/kiln_gpu.py's
// format) and exits 1 on a failure. Built by prepare_emulator.sh with nvcc
// (cudart linked statically: the GPU machine needs only the driver), run by
// check_emulator.py.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/CudaRuntime.h"
#include "kiln/Runtime/GPUEmulator.h"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace {

int numCases = 0, numFailures = 0;
/// --emulator-only: no GPU; the emulator's results stand in for the GPU's
/// (a dry run of the harness where there is no device).
bool emulatorOnly = false;

void report(const char *name, double err, double tol, bool ok,
            const char *note = "") {
  ++numCases;
  if (!ok)
    ++numFailures;
  printf("%s %s %.3e %.3e%s%s\n", ok ? "PASS" : "FAIL", name, err, tol,
         note[0] ? " " : "", note);
  fflush(stdout);
}

#define CUDA_CHECK(call)                                                       \
  do {                                                                         \
    cudaError_t error = (call);                                                \
    if (error != cudaSuccess) {                                                \
      printf("FAIL emulator.cuda nan nan %s: %s\n", #call,                     \
             cudaGetErrorString(error));                                       \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

//===----------------------------------------------------------------------===//
// shfl.sync
//===----------------------------------------------------------------------===//

/// One shuffle case: mode (0 idx, 1 up, 2 down, 3 bfly), b, c.
struct ShflCase {
  int32_t mode, b, c;
};

__device__ int32_t deviceShfl(int32_t mode, int32_t value, int32_t b, int32_t c,
                              int32_t *pred) {
  int32_t d, p;
#define KILN_SHFL(MODE)                                                        \
  asm volatile("{\n .reg .pred q;\n shfl.sync." MODE                           \
               ".b32 %0|q, %2, %3, %4, 0xffffffff;\n selp.s32 %1, 1, 0, q;\n}" \
               : "=r"(d), "=r"(p)                                              \
               : "r"(value), "r"(b), "r"(c))
  switch (mode) {
  case 0:
    KILN_SHFL("idx");
    break;
  case 1:
    KILN_SHFL("up");
    break;
  case 2:
    KILN_SHFL("down");
    break;
  default:
    KILN_SHFL("bfly");
    break;
  }
#undef KILN_SHFL
  *pred = p;
  return d;
}

/// Block i runs case i with one warp.
__global__ void shflDeviceKernel(const ShflCase *cases, int32_t *out,
                                 int32_t *pred) {
  const ShflCase &sc = cases[blockIdx.x];
  int32_t lane = threadIdx.x, index = blockIdx.x * 32 + lane;
  out[index] = deviceShfl(sc.mode, 1000 * lane + 7, sc.b, sc.c, &pred[index]);
}

void shflEmulatedKernel(void **params) {
  auto *cases = static_cast<const ShflCase *>(params[0]);
  auto *out = static_cast<int32_t *>(params[1]);
  auto *pred = static_cast<int32_t *>(params[2]);
  int32_t block = __kiln_emu_sreg(6), lane = __kiln_emu_sreg(0);
  const ShflCase &sc = cases[block];
  int8_t valid;
  int32_t index = block * 32 + lane;
  out[index] =
      __kiln_emu_shfl_sync(sc.mode, -1, 1000 * lane + 7, sc.b, sc.c, &valid);
  pred[index] = valid;
}

/// Runs the cases on the GPU.
void runShflOnDevice(const std::vector<ShflCase> &cases,
                     std::vector<int32_t> &out, std::vector<int32_t> &pred) {
  size_t n = cases.size(), lanes = 32 * n;
  ShflCase *deviceCases;
  int32_t *deviceOut, *devicePred;
  CUDA_CHECK(cudaMalloc(&deviceCases, n * sizeof(ShflCase)));
  CUDA_CHECK(cudaMalloc(&deviceOut, lanes * 4));
  CUDA_CHECK(cudaMalloc(&devicePred, lanes * 4));
  CUDA_CHECK(cudaMemcpy(deviceCases, cases.data(), n * sizeof(ShflCase),
                        cudaMemcpyHostToDevice));
  shflDeviceKernel<<<unsigned(n), 32>>>(deviceCases, deviceOut, devicePred);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(
      cudaMemcpy(out.data(), deviceOut, lanes * 4, cudaMemcpyDeviceToHost));
  CUDA_CHECK(
      cudaMemcpy(pred.data(), devicePred, lanes * 4, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(deviceCases));
  CUDA_CHECK(cudaFree(deviceOut));
  CUDA_CHECK(cudaFree(devicePred));
}

void checkShfl() {
  std::vector<ShflCase> cases;
  for (int32_t mode = 0; mode < 4; ++mode)
    for (int32_t b = 0; b < 32; ++b)
      for (int32_t segmask : {0, 0x10, 0x18, 0x1c, 0x1e, 0x1f})
        for (int32_t clamp : {0, 1, 3, 7, 15, 24, 31})
          cases.push_back({mode, b, segmask << 8 | clamp});
  size_t n = cases.size(), lanes = 32 * n;
  std::vector<int32_t> gpuOut(lanes), gpuPred(lanes), emuOut(lanes),
      emuPred(lanes);
  void *params[] = {cases.data(), emuOut.data(), emuPred.data()};
  __kiln_emu_launch(shflEmulatedKernel, int64_t(n), 1, 1, 32, 1, 1, 0, nullptr,
                    params);
  if (const char *error = kilnCudaGetLastError()) {
    printf("FAIL emulator.shfl nan nan %s\n", error);
    ++numCases;
    ++numFailures;
    return;
  }
  if (emulatorOnly) {
    gpuOut = emuOut;
    gpuPred = emuPred;
  } else {
    runShflOnDevice(cases, gpuOut, gpuPred);
  }
  const char *modes[] = {"idx", "up", "down", "bfly"};
  for (int32_t mode = 0; mode < 4; ++mode) {
    size_t mismatches = 0, total = 0;
    char first[160] = "";
    for (size_t i = 0; i < n; ++i) {
      if (cases[i].mode != mode)
        continue;
      for (size_t l = 0; l < 32; ++l, ++total) {
        size_t k = 32 * i + l;
        if (gpuOut[k] == emuOut[k] && gpuPred[k] == emuPred[k])
          continue;
        if (!mismatches++)
          snprintf(first, sizeof(first),
                   "first mismatch: b=%d c=0x%x lane %zu: gpu %d|%d, "
                   "emulator %d|%d",
                   int(cases[i].b), unsigned(cases[i].c), l, int(gpuOut[k]),
                   int(gpuPred[k]), int(emuOut[k]), int(emuPred[k]));
      }
    }
    char name[64], note[256];
    snprintf(name, sizeof(name), "emulator.shfl_%s", modes[mode]);
    snprintf(note, sizeof(note), "(%zu lanes bit-exact with predicates)%s%s",
             total, first[0] ? "; " : "", first);
    report(name, double(mismatches), 0.0, mismatches == 0, note);
  }
}

//===----------------------------------------------------------------------===//
// mma.sync.m16n8k16
//===----------------------------------------------------------------------===//

/// One warp's operands as 16-bit patterns and its results.
struct MmaCase {
  uint16_t a[16][16];
  uint16_t b[16][8];
  float c[16][8];
  float d[16][8];
};

/// The lane's fragments, per the PTX ISA's "Matrix Fragments for
/// mma.m16n8k16 with floating point type".
__host__ __device__ void packFragments(const MmaCase &mc, int lane,
                                       uint32_t a[4], uint32_t b[2],
                                       float c[4]) {
  int groupID = lane >> 2, tig = lane % 4;
  for (int r = 0; r < 4; ++r) {
    uint32_t halves[2];
    for (int h = 0; h < 2; ++h) {
      int i = 2 * r + h;
      int row = (i == 0 || i == 1 || i == 4 || i == 5) ? groupID : groupID + 8;
      int col = i < 4 ? tig * 2 + (i & 1) : tig * 2 + (i & 1) + 8;
      halves[h] = mc.a[row][col];
    }
    a[r] = halves[0] | halves[1] << 16;
  }
  for (int r = 0; r < 2; ++r) {
    uint32_t halves[2];
    for (int h = 0; h < 2; ++h) {
      int i = 2 * r + h;
      int k = i < 2 ? tig * 2 + (i & 1) : tig * 2 + (i & 1) + 8;
      halves[h] = mc.b[k][groupID];
    }
    b[r] = halves[0] | halves[1] << 16;
  }
  for (int i = 0; i < 4; ++i)
    c[i] = mc.c[i < 2 ? groupID : groupID + 8][tig * 2 + (i & 1)];
}

__host__ __device__ void storeD(MmaCase &mc, int lane, const float d[4]) {
  int groupID = lane >> 2, tig = lane % 4;
  for (int i = 0; i < 4; ++i)
    mc.d[i < 2 ? groupID : groupID + 8][tig * 2 + (i & 1)] = d[i];
}

/// Block i (one warp) computes case i.
__global__ void mmaDeviceKernel(MmaCase *cases, int kind) {
  MmaCase &mc = cases[blockIdx.x];
  int lane = threadIdx.x;
  uint32_t a[4], b[2];
  float c[4], d[4];
  packFragments(mc, lane, a, b, c);
  if (kind == 0)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]),
                   "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
  else
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]),
                   "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
  storeD(mc, lane, d);
}

void mmaEmulatedKernel(void **params) {
  auto *cases = static_cast<MmaCase *>(params[0]);
  int32_t kind = *static_cast<int32_t *>(params[1]);
  MmaCase &mc = cases[__kiln_emu_sreg(6)];
  int lane = __kiln_emu_sreg(12);
  uint32_t a[4], b[2];
  float c[4], d[4];
  packFragments(mc, lane, a, b, c);
  __kiln_emu_mma_m16n8k16_f32(kind, int32_t(a[0]), int32_t(a[1]), int32_t(a[2]),
                              int32_t(a[3]), int32_t(b[0]), int32_t(b[1]), c[0],
                              c[1], c[2], c[3], d);
  storeD(mc, lane, d);
}

/// The value of an f16 / bf16 pattern, by arithmetic.
double decode(uint16_t bits, bool isBF16) {
  int sign = bits >> 15;
  int exponent = isBF16 ? (bits >> 7) & 255 : (bits >> 10) & 31;
  int mantissa = isBF16 ? bits & 127 : bits & 1023;
  int maxExponent = isBF16 ? 255 : 31, mantissaBits = isBF16 ? 7 : 10;
  int bias = isBF16 ? 127 : 15;
  double magnitude;
  if (exponent == maxExponent)
    magnitude = mantissa ? NAN : INFINITY;
  else if (exponent == 0)
    magnitude = std::ldexp(double(mantissa), 1 - bias - mantissaBits);
  else
    magnitude = std::ldexp(double((1 << mantissaBits) + mantissa),
                           exponent - bias - mantissaBits);
  return sign ? -magnitude : magnitude;
}

/// The pattern of a small integer (|v| <= 8) in f16 or bf16.
uint16_t encodeSmallInteger(int v, bool isBF16) {
  if (v == 0)
    return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  int m = v < 0 ? -v : v, e = 0;
  while ((1 << (e + 1)) <= m)
    ++e;
  int mantissaBits = isBF16 ? 7 : 10, bias = isBF16 ? 127 : 15;
  int mantissa = (m - (1 << e)) << (mantissaBits - e);
  return uint16_t(sign | (e + bias) << mantissaBits | mantissa);
}

/// Runs `cases` on both sides; returns the GPU's copy (the emulator's is
/// written to `cases`).
std::vector<MmaCase> runMma(std::vector<MmaCase> &cases, int32_t kind) {
  size_t n = cases.size();
  if (emulatorOnly) {
    void *params[] = {cases.data(), &kind};
    __kiln_emu_launch(mmaEmulatedKernel, int64_t(n), 1, 1, 32, 1, 1, 0, nullptr,
                      params);
    return cases;
  }
  MmaCase *deviceCases;
  CUDA_CHECK(cudaMalloc(&deviceCases, n * sizeof(MmaCase)));
  CUDA_CHECK(cudaMemcpy(deviceCases, cases.data(), n * sizeof(MmaCase),
                        cudaMemcpyHostToDevice));
  mmaDeviceKernel<<<unsigned(n), 32>>>(deviceCases, kind);
  CUDA_CHECK(cudaGetLastError());
  std::vector<MmaCase> gpu(n);
  CUDA_CHECK(cudaMemcpy(gpu.data(), deviceCases, n * sizeof(MmaCase),
                        cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(deviceCases));
  void *params[] = {cases.data(), &kind};
  __kiln_emu_launch(mmaEmulatedKernel, int64_t(n), 1, 1, 32, 1, 1, 0, nullptr,
                    params);
  return gpu;
}

/// Compares the GPU's and the emulator's D: bit-exact when `exact`, else
/// within twice the f32 accumulation bound around the double reference;
/// non-finite references must give the same non-finite values on both sides.
void compareMma(const char *name, const std::vector<MmaCase> &emu,
                const std::vector<MmaCase> &gpu, int32_t kind, bool exact) {
  if (const char *error = kilnCudaGetLastError()) {
    printf("FAIL %s nan nan %s\n", name, error);
    ++numCases;
    ++numFailures;
    kilnCudaClearLastError();
    return;
  }
  bool isBF16 = kind == 1;
  double worstRatio = 0, worstDiff = 0;
  size_t identical = 0, total = 0, bad = 0;
  char first[200] = "";
  for (size_t w = 0; w < emu.size(); ++w)
    for (int m = 0; m < 16; ++m)
      for (int n = 0; n < 8; ++n, ++total) {
        double ref = emu[w].c[m][n], magnitude = std::fabs(ref);
        for (int k = 0; k < 16; ++k) {
          double p =
              decode(emu[w].a[m][k], isBF16) * decode(emu[w].b[k][n], isBF16);
          ref += p;
          magnitude += std::fabs(p);
        }
        float e = emu[w].d[m][n], g = gpu[w].d[m][n];
        uint32_t eb, gb;
        memcpy(&eb, &e, 4);
        memcpy(&gb, &g, 4);
        identical += eb == gb || (std::isnan(e) && std::isnan(g));
        bool ok;
        if (!std::isfinite(ref)) {
          ok = std::isnan(ref) ? std::isnan(e) && std::isnan(g)
                               : double(e) == ref && double(g) == ref;
        } else if (exact) {
          ok = eb == gb;
        } else {
          double bound = 17.0 * std::ldexp(1.0, -24) * magnitude;
          double diff = std::fabs(double(e) - double(g));
          worstDiff = diff > worstDiff ? diff : worstDiff;
          double ratio = bound > 0 ? diff / (2 * bound) : (diff > 0 ? 1e9 : 0);
          worstRatio = ratio > worstRatio ? ratio : worstRatio;
          ok = std::isfinite(e) && std::isfinite(g) && ratio <= 1.0;
        }
        if (!ok && !bad++)
          snprintf(first, sizeof(first),
                   "first mismatch: warp %zu D[%d][%d]: gpu %.9g, emulator "
                   "%.9g, reference %.17g",
                   w, m, n, double(g), double(e), ref);
      }
  char note[400];
  snprintf(note, sizeof(note),
           "(%zu of %zu elements bit-identical; worst |emu-gpu| %.3e)%s%s",
           identical, total, worstDiff, first[0] ? "; " : "", first);
  report(name, exact ? double(bad) : worstRatio, exact ? 0.0 : 1.0, bad == 0,
         note);
}

void checkMma() {
  for (int32_t kind : {0, 1}) {
    bool isBF16 = kind == 1;
    const char *type = isBF16 ? "bf16" : "f16";
    std::mt19937 rng(42 + kind);
    // Small integers: every partial sum is an exact integer, so any
    // summation order gives the same bits: a layout check.
    std::vector<MmaCase> exact(64);
    for (MmaCase &mc : exact) {
      for (auto &row : mc.a)
        for (auto &x : row)
          x = encodeSmallInteger(int(rng() % 17) - 8, isBF16);
      for (auto &row : mc.b)
        for (auto &x : row)
          x = encodeSmallInteger(int(rng() % 17) - 8, isBF16);
      for (auto &row : mc.c)
        for (auto &x : row)
          x = float(int(rng() % 201) - 100);
    }
    std::vector<MmaCase> gpu = runMma(exact, kind);
    char name[64];
    snprintf(name, sizeof(name), "emulator.mma_%s_integers", type);
    compareMma(name, exact, gpu, kind, /*exact=*/true);

    // Random magnitudes in [2^-4, 2^5), random C.
    std::vector<MmaCase> random(256);
    std::uniform_real_distribution<float> uniform(-4.0f, 4.0f);
    for (MmaCase &mc : random) {
      auto pattern = [&]() {
        uint32_t sign = rng() & 1;
        if (isBF16)
          return uint16_t(sign << 15 | (123 + rng() % 9) << 7 | (rng() & 127));
        return uint16_t(sign << 15 | (11 + rng() % 9) << 10 | (rng() & 1023));
      };
      for (auto &row : mc.a)
        for (auto &x : row)
          x = pattern();
      for (auto &row : mc.b)
        for (auto &x : row)
          x = pattern();
      for (auto &row : mc.c)
        for (auto &x : row)
          x = uniform(rng);
    }
    std::vector<MmaCase> special(random.begin(), random.begin() + 4);
    gpu = runMma(random, kind);
    snprintf(name, sizeof(name), "emulator.mma_%s_random", type);
    compareMma(name, random, gpu, kind, /*exact=*/false);

    // inf and NaN operands, and f16 subnormals.
    uint16_t inf = isBF16 ? 0x7f80 : 0x7c00, nan = isBF16 ? 0x7fc1 : 0x7e01;
    special[0].a[1][3] = inf;
    special[0].a[4][0] = nan;
    special[1].a[6][2] = uint16_t(inf | 0x8000);
    special[1].a[6][9] = inf;
    special[2].b[9][1] = uint16_t(inf | 0x8000);
    special[3].c[9][2] = -INFINITY;
    if (!isBF16)
      for (int n = 0; n < 8; ++n)
        special[3].b[5][n] = uint16_t(0x0001 + 37 * n);
    gpu = runMma(special, kind);
    snprintf(name, sizeof(name), "emulator.mma_%s_special", type);
    compareMma(name, special, gpu, kind, /*exact=*/false);
  }
}

//===----------------------------------------------------------------------===//
// ldmatrix.m8n8.b16
//===----------------------------------------------------------------------===//

constexpr int kLdRows = 40, kLdStride = 72;

/// One ldmatrix case: x1/x2/x4, .trans or not, the tile row and column
/// (a multiple of 8) each lane addresses; the tile is shared by the cases.
struct LdMatrixCase {
  int32_t numMatrices, transpose;
  int32_t row[32], column[32];
};

template <int N, bool Trans>
__device__ void deviceLdMatrix(uint32_t address, uint32_t *r) {
  if (N == 1 && !Trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];"
                 : "=r"(r[0]) : "r"(address));
  if (N == 1 && Trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];"
                 : "=r"(r[0]) : "r"(address));
  if (N == 2 && !Trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
                 : "=r"(r[0]), "=r"(r[1]) : "r"(address));
  if (N == 2 && Trans)
    asm volatile(
        "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
        : "=r"(r[0]), "=r"(r[1]) : "r"(address));
  if (N == 4 && !Trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, "
                 "[%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
  if (N == 4 && Trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, "
                 "%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
}

/// Block i runs case i with one warp; out has 4 registers per lane (those
/// past numMatrices stay 0).
__global__ void ldMatrixDeviceKernel(const LdMatrixCase *cases,
                                     const uint16_t *tile, uint32_t *out) {
  __shared__ __align__(16) uint16_t shared[kLdRows * kLdStride];
  for (int i = threadIdx.x; i < kLdRows * kLdStride; i += 32)
    shared[i] = tile[i];
  __syncwarp();
  const LdMatrixCase &c = cases[blockIdx.x];
  int lane = threadIdx.x;
  int l = lane < 8 * c.numMatrices ? lane : 0;
  auto address = static_cast<uint32_t>(__cvta_generic_to_shared(
      &shared[c.row[l] * kLdStride + c.column[l]]));
  uint32_t r[4] = {0, 0, 0, 0};
  switch (c.numMatrices * 2 + c.transpose) {
  case 2:
    deviceLdMatrix<1, false>(address, r);
    break;
  case 3:
    deviceLdMatrix<1, true>(address, r);
    break;
  case 4:
    deviceLdMatrix<2, false>(address, r);
    break;
  case 5:
    deviceLdMatrix<2, true>(address, r);
    break;
  case 8:
    deviceLdMatrix<4, false>(address, r);
    break;
  case 9:
    deviceLdMatrix<4, true>(address, r);
    break;
  }
  for (int i = 0; i < 4; ++i)
    out[(blockIdx.x * 32 + lane) * 4 + i] = r[i];
}

void ldMatrixEmulatedKernel(void **params) {
  auto *cases = static_cast<const LdMatrixCase *>(params[0]);
  auto *tile = static_cast<const uint16_t *>(params[1]);
  auto *out = static_cast<uint32_t *>(params[2]);
  int32_t block = __kiln_emu_sreg(6), lane = __kiln_emu_sreg(0);
  const LdMatrixCase &c = cases[block];
  int l = lane < 8 * c.numMatrices ? lane : 0;
  int32_t r[4] = {0, 0, 0, 0};
  __kiln_emu_ldmatrix_m8n8_b16(c.numMatrices, c.transpose,
                               &tile[c.row[l] * kLdStride + c.column[l]], r);
  for (int i = 0; i < 4; ++i)
    out[(block * 32 + lane) * 4 + i] = uint32_t(r[i]);
}

void checkLdMatrix() {
  std::mt19937 rng(5);
  alignas(16) static uint16_t tile[kLdRows * kLdStride];
  for (uint16_t &h : tile)
    h = uint16_t(rng());
  std::vector<LdMatrixCase> cases;
  for (int32_t numMatrices : {1, 2, 4})
    for (int32_t transpose : {0, 1})
      for (int trial = 0; trial < 8; ++trial) {
        LdMatrixCase c;
        c.numMatrices = numMatrices;
        c.transpose = transpose;
        for (int l = 0; l < 32; ++l) {
          c.row[l] = int32_t(rng() % kLdRows);
          c.column[l] = 8 * int32_t(rng() % (kLdStride / 8));
        }
        cases.push_back(c);
      }
  size_t n = cases.size(), words = 32 * 4 * n;
  std::vector<uint32_t> gpuOut(words), emuOut(words);
  void *params[] = {cases.data(), tile, emuOut.data()};
  __kiln_emu_launch(ldMatrixEmulatedKernel, int64_t(n), 1, 1, 32, 1, 1, 0,
                    nullptr, params);
  if (const char *error = kilnCudaGetLastError()) {
    printf("FAIL emulator.ldmatrix nan nan %s\n", error);
    ++numCases;
    ++numFailures;
    return;
  }
  if (emulatorOnly) {
    gpuOut = emuOut;
  } else {
    LdMatrixCase *deviceCases;
    uint16_t *deviceTile;
    uint32_t *deviceOut;
    CUDA_CHECK(cudaMalloc(&deviceCases, n * sizeof(LdMatrixCase)));
    CUDA_CHECK(cudaMalloc(&deviceTile, sizeof(tile)));
    CUDA_CHECK(cudaMalloc(&deviceOut, words * 4));
    CUDA_CHECK(cudaMemcpy(deviceCases, cases.data(), n * sizeof(LdMatrixCase),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(
        cudaMemcpy(deviceTile, tile, sizeof(tile), cudaMemcpyHostToDevice));
    ldMatrixDeviceKernel<<<unsigned(n), 32>>>(deviceCases, deviceTile,
                                              deviceOut);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(gpuOut.data(), deviceOut, words * 4,
                          cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(deviceCases));
    CUDA_CHECK(cudaFree(deviceTile));
    CUDA_CHECK(cudaFree(deviceOut));
  }
  for (int32_t transpose : {0, 1}) {
    size_t mismatches = 0, total = 0;
    char first[160] = "";
    for (size_t i = 0; i < n; ++i) {
      if (cases[i].transpose != transpose)
        continue;
      for (size_t k = 32 * 4 * i; k < 32 * 4 * (i + 1); ++k, ++total) {
        if (gpuOut[k] == emuOut[k])
          continue;
        if (!mismatches++)
          snprintf(first, sizeof(first),
                   "first mismatch: x%d lane %zu register %zu: gpu 0x%08x, "
                   "emulator 0x%08x",
                   int(cases[i].numMatrices), (k / 4) % 32, k % 4,
                   unsigned(gpuOut[k]), unsigned(emuOut[k]));
      }
    }
    char note[256];
    snprintf(note, sizeof(note), "(%zu registers of x1/x2/x4 bit-exact)%s%s",
             total, first[0] ? "; " : "", first);
    report(transpose ? "emulator.ldmatrix_trans" : "emulator.ldmatrix",
           double(mismatches), 0.0, mismatches == 0, note);
  }
}

} // namespace

int main(int argc, char **argv) {
  emulatorOnly = argc > 1 && strcmp(argv[1], "--emulator-only") == 0;
  int devices = 0;
  if (!emulatorOnly &&
      (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0)) {
    printf("FAIL emulator.device nan nan no CUDA device\n");
    return 1;
  }
  checkShfl();
  checkMma();
  checkLdMatrix();
  printf("emulator_check: %d cases, %d failed\n", numCases, numFailures);
  return numFailures ? 1 : 0;
}
