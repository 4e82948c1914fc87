//===- GPUEmulatorTest.cpp - Kiln's GPU emulator runtime through its ABI --===//
//
// Drives lib/Runtime/GPUEmulator through its C ABI with small hand-written
// "kernels" (`void kernel(void **params)` reading __kiln_emu_sreg), the way
// code compiled by kiln-gpu-emulate-kernels does: special registers, block
// order, barriers, shfl.sync against the CUDA definition of the shuffles,
// mma.sync against a double-precision matmul and an exhaustive check of the
// f16/bf16 decoding, ldmatrix against the PTX ISA's fragment figures, errors
// (oversized blocks, deadlocks, divergent warp collectives), the mgpu* host
// functions, the libdevice functions, and the shared library's exported ABI.
// Needs no GPU and no CUDA toolkit.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/GPUEmulator.h"
#include "kiln/Runtime/CudaRuntime.h"

#include "gtest/gtest.h"

#include <alloca.h>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <random>
#include <string>
#include <thread>
#include <vector>

extern "C" uint64_t __kiln_emu_switch_count(void);

extern "C" {
float __nv_expf(float);
double __nv_exp(double);
float __nv_logf(float);
double __nv_log(double);
float __nv_tanhf(float);
float __nv_sqrtf(float);
float __nv_powf(float, float);
float __nv_fabsf(float);
float __nv_fmaxf(float, float);
float __nv_fminf(float, float);
float __nv_rsqrtf(float);
float __nv_powif(float, int32_t);
float __nv_fast_expf(float);
float __nv_erff(float);
double __nv_atan2(double, double);
int32_t __nv_isnanf(float);
int32_t __nv_isinfd(double);
int32_t __nv_finitef(float);
int32_t __nv_abs(int32_t);
void __nv_sincosf(float, float *, float *);
}

namespace {

/// The thread's error message, or "" when there is none.
std::string lastError() {
  const char *message = kilnCudaGetLastError();
  return message ? message : "";
}

/// Every test starts and ends with an empty error slot.
class GPUEmulator : public ::testing::Test {
protected:
  void SetUp() override { kilnCudaClearLastError(); }
  void TearDown() override { kilnCudaClearLastError(); }
};

enum SReg {
  kTidX = 0,
  kNtidX = 3,
  kCtaidX = 6,
  kNctaidX = 9,
  kLaneId = 12,
  kWarpSize = 13
};

/// Launches `kernel` with the given grid and block and no dynamic shared
/// memory.
void launch(void (*kernel)(void **), int64_t gx, int64_t gy, int64_t gz,
            int64_t bx, int64_t by, int64_t bz, void **params,
            int32_t dynamicShared = 0) {
  __kiln_emu_launch(kernel, gx, gy, gz, bx, by, bz, dynamicShared, nullptr,
                    params);
}

//===----------------------------------------------------------------------===//
// Special registers and block order
//===----------------------------------------------------------------------===//

/// Writes all 14 special registers of the thread at its global position.
void sregKernel(void **params) {
  auto *out = static_cast<int32_t *>(params[0]);
  auto *order = static_cast<int32_t *>(params[1]);
  auto *counter = static_cast<int32_t *>(params[2]);
  int32_t r[14];
  for (int i = 0; i < 14; ++i)
    r[i] = __kiln_emu_sreg(i);
  int32_t block = r[6] + r[9] * (r[7] + r[10] * r[8]);
  int32_t thread = r[0] + r[3] * (r[1] + r[4] * r[2]);
  int32_t threadsPerBlock = r[3] * r[4] * r[5];
  memcpy(out + 14 * (block * threadsPerBlock + thread), r, sizeof(r));
  if (thread == 0)
    order[block] = (*counter)++;
}

TEST_F(GPUEmulator, SpecialRegisters) {
  const int gx = 2, gy = 3, gz = 2, bx = 8, by = 5, bz = 2;
  const int numBlocks = gx * gy * gz, numThreads = bx * by * bz;
  std::vector<int32_t> out(size_t(14 * numBlocks * numThreads), -1);
  std::vector<int32_t> order(numBlocks, -1);
  int32_t counter = 0;
  void *params[] = {out.data(), order.data(), &counter};
  launch(sregKernel, gx, gy, gz, bx, by, bz, params);
  ASSERT_EQ(lastError(), "");
  for (int z = 0; z < gz; ++z)
    for (int y = 0; y < gy; ++y)
      for (int x = 0; x < gx; ++x) {
        int block = x + gx * (y + gy * z);
        // Blocks run one at a time, x fastest.
        EXPECT_EQ(order[block], block);
        for (int tz = 0; tz < bz; ++tz)
          for (int ty = 0; ty < by; ++ty)
            for (int tx = 0; tx < bx; ++tx) {
              int thread = tx + bx * (ty + by * tz);
              const int32_t *r =
                  &out[size_t(14 * (block * numThreads + thread))];
              int32_t expected[14] = {tx, ty, tz, bx, by, bz,          x,
                                      y,  z,  gx, gy, gz, thread % 32, 32};
              for (int i = 0; i < 14; ++i)
                EXPECT_EQ(r[i], expected[i])
                    << "register " << i << " of thread (" << tx << "," << ty
                    << "," << tz << ") in block (" << x << "," << y << "," << z
                    << ")";
            }
      }
}

TEST_F(GPUEmulator, SRegOutsideLaunchIsAnError) {
  EXPECT_EQ(__kiln_emu_sreg(0), 0);
  EXPECT_NE(lastError().find("called outside a kernel launch"),
            std::string::npos)
      << lastError();
}

//===----------------------------------------------------------------------===//
// Barriers
//===----------------------------------------------------------------------===//

/// Workgroup memory, as kiln-gpu-emulate-kernels makes it: a global.
int64_t sharedSums[256];

/// A block-wide tree reduction of the thread ids + 1 (the sum of 1..256);
/// params[1] says whether to synchronize between the steps.
void treeReduceKernel(void **params) {
  auto *out = static_cast<int64_t *>(params[0]);
  bool sync = *static_cast<bool *>(params[1]);
  int32_t t = __kiln_emu_sreg(kTidX);
  int32_t n = __kiln_emu_sreg(kNtidX);
  sharedSums[t] = t + 1 + 1000 * __kiln_emu_sreg(kCtaidX);
  for (int32_t s = n / 2; s > 0; s /= 2) {
    if (sync)
      __kiln_emu_barrier();
    if (t < s)
      sharedSums[t] += sharedSums[t + s];
  }
  if (t == 0)
    out[__kiln_emu_sreg(kCtaidX)] = sharedSums[0];
}

TEST_F(GPUEmulator, BarrierTreeReduction) {
  int64_t out[3] = {0, 0, 0};
  bool sync = true;
  void *params[] = {out, &sync};
  launch(treeReduceKernel, 3, 1, 1, 256, 1, 1, params);
  ASSERT_EQ(lastError(), "");
  for (int b = 0; b < 3; ++b)
    EXPECT_EQ(out[b], 256 * 257 / 2 + 1000 * 256 * b);

  // Without the barriers, thread 0 runs to its end before any other thread
  // wrote its element: the answer is wrong, so the test above needs them.
  sync = false;
  memset(sharedSums, 0, sizeof(sharedSums));
  launch(treeReduceKernel, 1, 1, 1, 256, 1, 1, params);
  ASSERT_EQ(lastError(), "");
  EXPECT_NE(out[0], 256 * 257 / 2);
}

TEST_F(GPUEmulator, LaunchesFromSeveralThreadsAreSerialized) {
  // Workgroup memory is a process global: launches from two OS threads must
  // not interleave their blocks.
  auto run = [](int64_t *results) {
    for (int i = 0; i < 20; ++i) {
      bool sync = true;
      void *params[] = {results + 2 * i, &sync};
      launch(treeReduceKernel, 2, 1, 1, 256, 1, 1, params);
    }
  };
  std::vector<int64_t> first(40, 0), second(40, 0);
  std::thread other(run, second.data());
  run(first.data());
  other.join();
  EXPECT_EQ(lastError(), "");
  for (int i = 0; i < 40; ++i) {
    int64_t expected = 256 * 257 / 2 + 1000 * 256 * (i % 2);
    EXPECT_EQ(first[i], expected) << i;
    EXPECT_EQ(second[i], expected) << i;
  }
}

/// Threads that returned do not hold up a barrier.
void earlyExitKernel(void **params) {
  auto *in = static_cast<int32_t *>(params[0]);
  auto *out = static_cast<int32_t *>(params[1]);
  int32_t t = __kiln_emu_sreg(kTidX);
  if (t % 3 == 0)
    return;
  in[t] = 1;
  __kiln_emu_barrier();
  out[t] = 1 + in[(t + 1) % 96];
}

TEST_F(GPUEmulator, ReturnedThreadsLeaveTheBarrier) {
  std::vector<int32_t> in(96, 0), out(96, 0);
  void *params[] = {in.data(), out.data()};
  launch(earlyExitKernel, 1, 1, 1, 96, 1, 1, params);
  ASSERT_EQ(lastError(), "");
  for (int t = 0; t < 96; ++t)
    EXPECT_EQ(out[t], t % 3 == 0 ? 0 : 1 + ((t + 1) % 3 == 0 ? 0 : 1)) << t;
}

/// Threads 0..63 take an extra barrier that threads 64..127 skip.
void skippedBarrierKernel(void **params) {
  auto *out = static_cast<int32_t *>(params[0]);
  int32_t t = __kiln_emu_sreg(kTidX);
  if (t < 64)
    __kiln_emu_barrier();
  __kiln_emu_barrier();
  out[t] = 1;
}

TEST_F(GPUEmulator, SkippedBarrierIsADeadlockWithStrictBarriers) {
  std::vector<int32_t> out(128, 0);
  void *params[] = {out.data()};
  setenv("KILN_EMU_STRICT_BARRIERS", "1", 1);
  launch(skippedBarrierKernel, 2, 1, 1, 128, 1, 1, params);
  unsetenv("KILN_EMU_STRICT_BARRIERS");
  std::string error = lastError();
  EXPECT_NE(error.find("GPU emulator: barrier deadlock in block (0,0,0): "
                       "thread 0 (0,0,0) waits at bar.sync"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("thread 64 (64,0,0) at bar.sync"), std::string::npos)
      << error;
  for (int t = 0; t < 128; ++t)
    EXPECT_EQ(out[t], 0);

  // By default, like bar.sync 0 on the hardware, any barrier counts.
  kilnCudaClearLastError();
  launch(skippedBarrierKernel, 2, 1, 1, 128, 1, 1, params);
  EXPECT_EQ(lastError(), "");
  for (int t = 0; t < 128; ++t)
    EXPECT_EQ(out[t], 1);
}

/// In block 1, lanes 0..15 of warp 0 shuffle while the rest of the block
/// waits at a barrier: neither can complete.
void splitWarpKernel(void **params) {
  auto *out = static_cast<int32_t *>(params[0]);
  int32_t t = __kiln_emu_sreg(kTidX);
  int32_t block = __kiln_emu_sreg(kCtaidX);
  if (block == 1 && t < 16)
    (void)__kiln_emu_shfl_sync(3, -1, t, 1, 31, nullptr);
  else
    __kiln_emu_barrier();
  out[block * 64 + t] = 1;
}

TEST_F(GPUEmulator, DeadlockIsReportedAndStopsTheLaunch) {
  std::vector<int32_t> out(3 * 64, 0);
  void *params[] = {out.data()};
  launch(splitWarpKernel, 3, 1, 1, 64, 1, 1, params);
  std::string error = lastError();
  EXPECT_NE(error.find("GPU emulator: barrier deadlock in block (1,0,0): "
                       "thread 0 (0,0,0) waits at shfl.sync.bfly"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("thread 16 (16,0,0) at bar.sync"), std::string::npos)
      << error;
  // Block 0 ran; block 2 did not.
  for (int t = 0; t < 64; ++t) {
    EXPECT_EQ(out[t], 1);
    EXPECT_EQ(out[2 * 64 + t], 0);
  }
  // The error stays until cleared: a launch does nothing meanwhile.
  std::vector<int32_t> out2(3 * 64, 0);
  void *params2[] = {out2.data()};
  launch(splitWarpKernel, 1, 1, 1, 64, 1, 1, params2);
  EXPECT_EQ(out2[0], 0);
  kilnCudaClearLastError();
  launch(splitWarpKernel, 1, 1, 1, 64, 1, 1, params2);
  EXPECT_EQ(lastError(), "");
  for (int t = 0; t < 64; ++t)
    EXPECT_EQ(out2[t], 1);
}

//===----------------------------------------------------------------------===//
// Launch errors
//===----------------------------------------------------------------------===//

void markKernel(void **params) {
  auto *out = static_cast<int32_t *>(params[0]);
  out[__kiln_emu_sreg(kTidX) +
      __kiln_emu_sreg(kNtidX) * __kiln_emu_sreg(kCtaidX)] = 7;
}

TEST_F(GPUEmulator, OversizedBlockIsAnErrorAndALaterLaunchWorks) {
  std::vector<int32_t> out(1025, 0);
  void *params[] = {out.data()};
  launch(markKernel, 1, 1, 1, 1025, 1, 1, params);
  EXPECT_NE(lastError().find("invalid block 1025x1x1 (1025 threads"),
            std::string::npos)
      << lastError();
  EXPECT_EQ(out[0], 0);
  launch(markKernel, 1, 1, 1, 16, 1, 1, params);
  EXPECT_EQ(out[0], 0) << "a launch after an error must be a no-op";
  kilnCudaClearLastError();
  launch(markKernel, 2, 1, 1, 512, 2, 1, params);
  EXPECT_EQ(lastError(), "");
  // 1024 threads: the largest block.
  EXPECT_EQ(out[1023], 7);
  launch(markKernel, 1, 1, 1, 1, 1, 65, params);
  EXPECT_NE(lastError().find("invalid block 1x1x65"), std::string::npos)
      << lastError();
  kilnCudaClearLastError();
  launch(markKernel, 1, 1, 1, 32, 1, 1, params, 228 * 1024);
  EXPECT_NE(lastError().find("bytes of dynamic shared memory"),
            std::string::npos)
      << lastError();
}

/// Every thread writes its id to the dynamic shared memory, then reads its
/// neighbour's after a barrier.
void dynamicSharedKernel(void **params) {
  auto *out = static_cast<int32_t *>(params[0]);
  auto *shared = static_cast<int32_t *>(__kiln_emu_dynamic_shared());
  int32_t t = __kiln_emu_sreg(kTidX), n = __kiln_emu_sreg(kNtidX);
  if (t == 0)
    out[n] = int32_t(reinterpret_cast<uintptr_t>(shared) % 16);
  shared[t] = 100 + t;
  __kiln_emu_barrier();
  out[t] = shared[(t + 1) % n];
}

TEST_F(GPUEmulator, DynamicSharedMemory) {
  std::vector<int32_t> out(65, -1);
  void *params[] = {out.data()};
  launch(dynamicSharedKernel, 2, 1, 1, 64, 1, 1, params, 64 * 4);
  ASSERT_EQ(lastError(), "");
  EXPECT_EQ(out[64], 0) << "16-byte alignment";
  for (int t = 0; t < 64; ++t)
    EXPECT_EQ(out[t], 100 + (t + 1) % 64);
}

/// Fills a private array of params[0] KiB from its top down (the way a stack
/// grows) and writes its checksum: kernels keep private arrays on the fiber
/// stack.
void bigFrameKernel(void **params) {
  int32_t kib = *static_cast<int32_t *>(params[0]);
  auto *out = static_cast<int64_t *>(params[1]);
  size_t count = size_t(kib) * 1024 / sizeof(int64_t);
  auto *array = static_cast<volatile int64_t *>(alloca(count * 8));
  for (size_t i = count; i-- > 0;)
    array[i] = int64_t(i);
  int64_t sum = 0;
  for (size_t i = 0; i < count; ++i)
    sum += array[i];
  out[__kiln_emu_sreg(kTidX)] = sum;
}

TEST_F(GPUEmulator, FiberStacksHoldLargePrivateArrays) {
  // 384 KiB per thread fits the default 512 KiB stacks, for every thread of
  // a block.
  int32_t kib = 384;
  std::vector<int64_t> out(64, 0);
  void *params[] = {&kib, out.data()};
  launch(bigFrameKernel, 1, 1, 1, 64, 1, 1, params);
  ASSERT_EQ(lastError(), "");
  int64_t count = 384 * 1024 / 8;
  for (int t = 0; t < 64; ++t)
    EXPECT_EQ(out[t], count * (count - 1) / 2);
}

TEST_F(GPUEmulator, StackOverflowFaults) {
  // With 128 KiB stacks the same kernel runs into the guard region below its
  // stack: a segmentation fault, not a write into another thread's stack.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  int32_t kib = 160;
  std::vector<int64_t> out(2, 0);
  void *params[] = {&kib, out.data()};
  EXPECT_EXIT(
      {
        setenv("KILN_EMU_STACK_KIB", "128", 1);
        launch(bigFrameKernel, 1, 1, 1, 2, 1, 1, params);
        exit(0);
      },
      ::testing::KilledBySignal(SIGSEGV),
      "GPU emulator: segmentation fault in thread 0 \\(0,0,0\\) of block "
      "\\(0,0,0\\): fiber stack overflow \\(the stacks have 128 KiB; set "
      "KILN_EMU_STACK_KIB\\)");
}

/// Thread 5 of block 1 writes through a null pointer. The fault is the
/// point, so UndefinedBehaviorSanitizer's null check (a KILN_SANITIZE build)
/// stays out of it.
__attribute__((no_sanitize("null"))) void badAccessKernel(void **) {
  if (__kiln_emu_sreg(kCtaidX) == 1 && __kiln_emu_sreg(kTidX) == 5)
    *static_cast<volatile int32_t *>(nullptr) = 1;
}

TEST_F(GPUEmulator, SegmentationFaultNamesTheThread) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(launch(badAccessKernel, 2, 1, 1, 32, 1, 1, nullptr),
              ::testing::KilledBySignal(SIGSEGV),
              "GPU emulator: segmentation fault in thread 5 \\(5,0,0\\) of "
              "block \\(1,0,0\\): a bad access at 0x0");
  // The handler is only installed during a launch.
  struct sigaction action;
  sigaction(SIGSEGV, nullptr, &action);
  EXPECT_EQ(action.sa_handler, SIG_DFL);
}

//===----------------------------------------------------------------------===//
// shfl.sync
//===----------------------------------------------------------------------===//

/// The shuffle of CUDA's __shfl*_sync(value, b, width) (CUDA C++
/// programming guide, "Warp Shuffle Functions"), for mode 0 idx, 1 up,
/// 2 down, 3 xor, on the values of a full warp: lanes form segments of
/// `width`; idx reads lane b of the segment, up/down lane -/+ b when it lies
/// in the segment (else the own value, predicate false), xor lane ^ b
/// (b < width). Written from that definition, not from the PTX pseudo-code.
std::pair<int32_t, bool> referenceShuffle(const int32_t *values, int mode,
                                          int lane, int b, int width) {
  int base = lane / width * width, index = lane - base;
  switch (mode) {
  case 0:
    return {values[base + b % width], true};
  case 1:
    if (index - b >= 0)
      return {values[lane - b], true};
    return {values[lane], false};
  case 2:
    if (index + b < width)
      return {values[lane + b], true};
    return {values[lane], false};
  default:
    return {values[base + (index ^ b)], true};
  }
}

/// The `c` operand CUDA passes for a width: the segment mask in bits 8-12,
/// the clamp 31 (or 0 for up) in bits 0-4.
int32_t clampAndMaskFor(int mode, int width) {
  return ((32 - width) << 8) | (mode == 1 ? 0 : 31);
}

/// params: mode, offset, width, values in, values out, predicates out.
void shuffleKernel(void **params) {
  int32_t mode = *static_cast<int32_t *>(params[0]);
  int32_t b = *static_cast<int32_t *>(params[1]);
  int32_t width = *static_cast<int32_t *>(params[2]);
  auto *in = static_cast<int32_t *>(params[3]);
  auto *out = static_cast<int32_t *>(params[4]);
  auto *pred = static_cast<int8_t *>(params[5]);
  int32_t t = __kiln_emu_sreg(kTidX);
  out[t] = __kiln_emu_shfl_sync(mode, -1, in[t], b,
                                clampAndMaskFor(mode, width), &pred[t]);
}

TEST_F(GPUEmulator, ShuffleMatchesTheCudaDefinition) {
  const int numThreads = 64;
  std::vector<int32_t> in(numThreads), out(numThreads);
  std::vector<int8_t> pred(numThreads);
  for (int t = 0; t < numThreads; ++t)
    in[t] = 1000 * t + 7;
  for (int32_t mode = 0; mode < 4; ++mode)
    for (int32_t width : {32, 16, 8})
      for (int32_t b : {0, 1, 2, 3, 5, 7, 13, 31}) {
        if (mode == 3 && b >= width)
          continue; // CUDA defines xor within the segment only.
        void *params[] = {&mode,     &b,         &width,
                          in.data(), out.data(), pred.data()};
        launch(shuffleKernel, 1, 1, 1, numThreads, 1, 1, params);
        ASSERT_EQ(lastError(), "");
        for (int t = 0; t < numThreads; ++t) {
          int warp = t / 32, lane = t % 32;
          auto [value, valid] =
              referenceShuffle(in.data() + 32 * warp, mode, lane, b, width);
          EXPECT_EQ(out[t], value) << "mode " << mode << " width " << width
                                   << " b " << b << " thread " << t;
          EXPECT_EQ(pred[t] != 0, valid)
              << "mode " << mode << " width " << width << " b " << b
              << " thread " << t;
        }
      }
}

/// A butterfly sum of f32 values over segments of params[1] lanes and a
/// broadcast of lane 5 of each segment.
void reduceBroadcastKernel(void **params) {
  auto *out = static_cast<float *>(params[0]);
  int32_t width = *static_cast<int32_t *>(params[1]);
  int32_t t = __kiln_emu_sreg(kTidX);
  float value = 0.5f * float(t) + 0.25f;
  for (int32_t offset = width / 2; offset > 0; offset /= 2) {
    int32_t bits;
    memcpy(&bits, &value, 4);
    int32_t other = __kiln_emu_shfl_sync(3, -1, bits, offset,
                                         clampAndMaskFor(3, width), nullptr);
    float otherValue;
    memcpy(&otherValue, &other, 4);
    value += otherValue;
  }
  out[2 * t] = value;
  out[2 * t + 1] = float(__kiln_emu_shfl_sync(
      0, -1, t * 3, 5, clampAndMaskFor(0, width), nullptr));
}

TEST_F(GPUEmulator, ShuffleReductionAndBroadcast) {
  for (int32_t width : {32, 16, 8}) {
    std::vector<float> out(2 * 96);
    void *params[] = {out.data(), &width};
    launch(reduceBroadcastKernel, 1, 1, 1, 96, 1, 1, params);
    ASSERT_EQ(lastError(), "");
    for (int t = 0; t < 96; ++t) {
      int base = t / width * width;
      float sum = 0;
      for (int u = base; u < base + width; ++u)
        sum += 0.5f * float(u) + 0.25f; // Exact: small multiples of 1/4.
      EXPECT_EQ(out[2 * t], sum) << "width " << width << " thread " << t;
      EXPECT_EQ(out[2 * t + 1], float((base + 5) * 3));
    }
  }
}

/// Hand-computed cases of the PTX pseudo-code with a clamp and no segments,
/// as MLIR's gpu.shuffle lowering passes them (c = width - 1; up: 32 -
/// width), and sources outside the warp.
void clampKernel(void **params) {
  auto *out = static_cast<int32_t *>(params[0]);
  auto *pred = static_cast<int8_t *>(params[1]);
  int32_t t = __kiln_emu_sreg(kTidX);
  int32_t lane = __kiln_emu_sreg(kLaneId);
  int32_t value = 100 + t;
  // down 4, clamp 7: lanes 0..3 read lane + 4, lanes 4.. their own (false).
  out[4 * t] = __kiln_emu_shfl_sync(2, -1, value, 4, 7, &pred[4 * t]);
  // idx 40 reads lane 40 & 31 = 8 (clamp 31).
  out[4 * t + 1] = __kiln_emu_shfl_sync(0, -1, value, 40, 31, &pred[4 * t + 1]);
  // idx 12 with clamp 7: lane 12 > maxLane 7, so the own value (false).
  out[4 * t + 2] = __kiln_emu_shfl_sync(0, -1, value, 12, 7, &pred[4 * t + 2]);
  // up 2 with c = 32 - 8 = 24: valid when lane - 2 >= 24.
  out[4 * t + 3] = __kiln_emu_shfl_sync(1, -1, value, 2, 24, &pred[4 * t + 3]);
  (void)lane;
}

TEST_F(GPUEmulator, ShuffleClampPseudoCode) {
  std::vector<int32_t> out(4 * 32);
  std::vector<int8_t> pred(4 * 32);
  void *params[] = {out.data(), pred.data()};
  launch(clampKernel, 1, 1, 1, 32, 1, 1, params);
  ASSERT_EQ(lastError(), "");
  for (int l = 0; l < 32; ++l) {
    bool downValid = l + 4 <= 7;
    EXPECT_EQ(out[4 * l], 100 + (downValid ? l + 4 : l)) << l;
    EXPECT_EQ(pred[4 * l], downValid ? 1 : 0) << l;
    EXPECT_EQ(out[4 * l + 1], 108) << l;
    EXPECT_EQ(pred[4 * l + 1], 1) << l;
    EXPECT_EQ(out[4 * l + 2], 100 + l) << l;
    EXPECT_EQ(pred[4 * l + 2], 0) << l;
    bool upValid = l - 2 >= 24;
    EXPECT_EQ(out[4 * l + 3], 100 + (upValid ? l - 2 : l)) << l;
    EXPECT_EQ(pred[4 * l + 3], upValid ? 1 : 0) << l;
  }
}

/// Lanes 16..31 return; lanes 0..15 shuffle down by 8: lanes 8..15 read
/// exited lanes, which gives 0 (documented), with the predicate true.
void exitedLaneKernel(void **params) {
  auto *out = static_cast<int32_t *>(params[0]);
  auto *pred = static_cast<int8_t *>(params[1]);
  int32_t t = __kiln_emu_sreg(kTidX);
  if (t >= 16)
    return;
  out[t] = __kiln_emu_shfl_sync(2, -1, 100 + t, 8, 31, &pred[t]);
}

TEST_F(GPUEmulator, ShuffleFromExitedLanesReadsZero) {
  std::vector<int32_t> out(16, -1);
  std::vector<int8_t> pred(16, -1);
  void *params[] = {out.data(), pred.data()};
  launch(exitedLaneKernel, 1, 1, 1, 32, 1, 1, params);
  ASSERT_EQ(lastError(), "");
  for (int l = 0; l < 16; ++l) {
    EXPECT_EQ(out[l], l < 8 ? 108 + l : 0) << l;
    EXPECT_EQ(pred[l], 1) << l;
  }
  // A partial last warp: lanes past the block's end read 0 too.
  std::vector<int32_t> out2(16, -1);
  std::vector<int8_t> pred2(16, -1);
  void *params2[] = {out2.data(), pred2.data()};
  launch(exitedLaneKernel, 1, 1, 1, 12, 1, 1, params2);
  ASSERT_EQ(lastError(), "");
  for (int l = 0; l < 12; ++l)
    EXPECT_EQ(out2[l], l < 4 ? 108 + l : 0) << l;
}

/// Lanes 0..15 shuffle with bfly, lanes 16..31 with down.
void divergentShuffleKernel(void **) {
  int32_t t = __kiln_emu_sreg(kTidX);
  (void)__kiln_emu_shfl_sync(t < 16 ? 3 : 2, -1, t, 1, 31, nullptr);
}

/// Lane 3 calls shfl.sync with a member mask that leaves it out.
void maskKernel(void **) {
  int32_t t = __kiln_emu_sreg(kTidX);
  (void)__kiln_emu_shfl_sync(3, t == 3 ? 0x7 : -1, t, 1, 31, nullptr);
}

TEST_F(GPUEmulator, DivergentWarpCollectivesAreErrors) {
  launch(divergentShuffleKernel, 1, 1, 1, 32, 1, 1, nullptr);
  EXPECT_NE(lastError().find("divergent warp collectives in block (0,0,0), "
                             "warp 0: thread 0 (0,0,0) (lane 0) is at "
                             "shfl.sync.bfly"),
            std::string::npos)
      << lastError();
  EXPECT_NE(lastError().find("thread 16 (16,0,0) (lane 16) at shfl.sync.down"),
            std::string::npos)
      << lastError();
  kilnCudaClearLastError();
  launch(maskKernel, 1, 1, 1, 32, 1, 1, nullptr);
  EXPECT_NE(lastError().find("shfl.sync outside its member mask in block "
                             "(0,0,0)"),
            std::string::npos)
      << lastError();
}

//===----------------------------------------------------------------------===//
// mma.sync.m16n8k16
//===----------------------------------------------------------------------===//

/// The value of an IEEE half given as bits, by arithmetic (independent of
/// the runtime's bit manipulation).
double decodeHalf(uint16_t bits) {
  int sign = bits >> 15, exponent = (bits >> 10) & 31, mantissa = bits & 1023;
  double magnitude;
  if (exponent == 31)
    magnitude = mantissa ? NAN : INFINITY;
  else if (exponent == 0)
    magnitude = std::ldexp(double(mantissa), -24);
  else
    magnitude = std::ldexp(double(1024 + mantissa), exponent - 25);
  return sign ? -magnitude : magnitude;
}

/// The value of a bfloat16 given as bits, likewise.
double decodeBFloat16(uint16_t bits) {
  int sign = bits >> 15, exponent = (bits >> 7) & 255, mantissa = bits & 127;
  double magnitude;
  if (exponent == 255)
    magnitude = mantissa ? NAN : INFINITY;
  else if (exponent == 0)
    magnitude = std::ldexp(double(mantissa), -133);
  else
    magnitude = std::ldexp(double(128 + mantissa), exponent - 134);
  return sign ? -magnitude : magnitude;
}

/// The operands of one warp's m16n8k16: A 16x16 row-major, B 16x8 (b[k][n]),
/// C 16x8, as 16-bit patterns and floats.
struct MmaCase {
  uint16_t a[16][16];
  uint16_t b[16][8];
  float c[16][8];
  float d[16][8];
};

/// params: kind, cases (one per warp), repetitions. Each lane packs its
/// fragments per the PTX ISA's "Matrix Fragments for mma.m16n8k16 with
/// floating point type" and scatters its D fragment back.
void mmaKernel(void **params) {
  int32_t kind = *static_cast<int32_t *>(params[0]);
  auto *cases = static_cast<MmaCase *>(params[1]);
  int32_t t = __kiln_emu_sreg(kTidX);
  MmaCase &mc = cases[t / 32];
  int32_t lane = __kiln_emu_sreg(kLaneId);
  int32_t groupID = lane >> 2, tig = lane % 4;
  auto aElement = [&](int i) -> uint32_t {
    int row = (i == 0 || i == 1 || i == 4 || i == 5) ? groupID : groupID + 8;
    int col = i < 4 ? tig * 2 + (i & 1) : tig * 2 + (i & 1) + 8;
    return mc.a[row][col];
  };
  auto bElement = [&](int i) -> uint32_t {
    int k = i < 2 ? tig * 2 + (i & 1) : tig * 2 + (i & 1) + 8;
    return mc.b[k][groupID];
  };
  int32_t a[4], b[2];
  for (int r = 0; r < 4; ++r)
    a[r] = int32_t(aElement(2 * r) | (aElement(2 * r + 1) << 16));
  for (int r = 0; r < 2; ++r)
    b[r] = int32_t(bElement(2 * r) | (bElement(2 * r + 1) << 16));
  float c[4], d[4];
  for (int i = 0; i < 4; ++i)
    c[i] = mc.c[i < 2 ? groupID : groupID + 8][tig * 2 + (i & 1)];
  __kiln_emu_mma_m16n8k16_f32(kind, a[0], a[1], a[2], a[3], b[0], b[1], c[0],
                              c[1], c[2], c[3], d);
  for (int i = 0; i < 4; ++i)
    mc.d[i < 2 ? groupID : groupID + 8][tig * 2 + (i & 1)] = d[i];
}

/// A random 16-bit float pattern with a magnitude in about [2^-4, 2^4].
uint16_t randomPattern(std::mt19937 &rng, bool isBF16) {
  uint32_t sign = rng() & 1;
  if (isBF16) {
    uint32_t exponent = 127 - 4 + rng() % 9, mantissa = rng() & 127;
    return uint16_t(sign << 15 | exponent << 7 | mantissa);
  }
  uint32_t exponent = 15 - 4 + rng() % 9, mantissa = rng() & 1023;
  return uint16_t(sign << 15 | exponent << 10 | mantissa);
}

/// Runs the cases (one warp each) and compares D with C + A B in double.
/// Tolerance: D is C plus 16 products, each exact in f32, summed in f32: the
/// rounding error is at most gamma_16 = 16u/(1-16u) (u = 2^-24) times the sum
/// of the terms' magnitudes; 17u covers it. Non-finite references must match
/// exactly (NaN as NaN, inf with its sign).
void checkMma(int32_t kind, std::vector<MmaCase> &cases) {
  void *params[] = {&kind, cases.data()};
  launch(mmaKernel, 1, 1, 1, int64_t(32 * cases.size()), 1, 1, params);
  ASSERT_EQ(lastError(), "");
  auto decode = kind == 1 ? decodeBFloat16 : decodeHalf;
  for (size_t w = 0; w < cases.size(); ++w) {
    const MmaCase &mc = cases[w];
    for (int m = 0; m < 16; ++m)
      for (int n = 0; n < 8; ++n) {
        double sum = mc.c[m][n], magnitude = std::fabs(double(mc.c[m][n]));
        for (int k = 0; k < 16; ++k) {
          double product = decode(mc.a[m][k]) * decode(mc.b[k][n]);
          sum += product;
          magnitude += std::fabs(product);
        }
        float got = mc.d[m][n];
        if (std::isnan(sum)) {
          EXPECT_TRUE(std::isnan(got))
              << "warp " << w << " D[" << m << "][" << n << "] = " << got;
        } else if (std::isinf(sum)) {
          EXPECT_EQ(double(got), sum)
              << "warp " << w << " D[" << m << "][" << n << "]";
        } else {
          double tolerance = 17.0 * std::ldexp(1.0, -24) * magnitude;
          EXPECT_NEAR(double(got), sum, tolerance)
              << "warp " << w << " D[" << m << "][" << n << "]";
        }
      }
  }
}

std::vector<MmaCase> randomCases(int count, bool isBF16, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-4.0f, 4.0f);
  std::vector<MmaCase> cases(static_cast<size_t>(count));
  for (MmaCase &mc : cases) {
    for (auto &row : mc.a)
      for (auto &x : row)
        x = randomPattern(rng, isBF16);
    for (auto &row : mc.b)
      for (auto &x : row)
        x = randomPattern(rng, isBF16);
    for (auto &row : mc.c)
      for (auto &x : row)
        x = uniform(rng);
  }
  return cases;
}

TEST_F(GPUEmulator, MmaF16MatchesDoubleMatmul) {
  std::vector<MmaCase> cases = randomCases(4, /*isBF16=*/false, 1);
  checkMma(0, cases);
}

TEST_F(GPUEmulator, MmaBF16MatchesDoubleMatmul) {
  std::vector<MmaCase> cases = randomCases(4, /*isBF16=*/true, 2);
  checkMma(1, cases);
}

TEST_F(GPUEmulator, MmaSpecialValues) {
  // f16: a row of A with +inf, one with NaN, subnormals in B, -inf in C.
  std::vector<MmaCase> cases = randomCases(2, /*isBF16=*/false, 3);
  cases[0].a[1][3] = 0x7c00; // +inf
  cases[0].a[4][0] = 0x7e01; // NaN
  cases[0].a[6][2] = 0xfc00; // -inf
  cases[0].a[6][9] = 0x7c00; // +inf in the same row: NaN wherever both count
  for (int n = 0; n < 8; ++n) {
    cases[0].b[5][n] = uint16_t(0x0001 + 37 * n);       // subnormals
    cases[0].b[7][n] = uint16_t(0x8000 | (0x03ff - n)); // negative subnormals
  }
  cases[0].c[9][2] = -INFINITY;
  // Only subnormals and zeros in warp 1's A: tiny exact products.
  for (int m = 0; m < 16; ++m)
    for (int k = 0; k < 16; ++k)
      cases[1].a[m][k] = uint16_t((m * 16 + k) % 3 ? 0x0200 + m + k : 0x8000);
  checkMma(0, cases);

  std::vector<MmaCase> bf16 = randomCases(1, /*isBF16=*/true, 4);
  bf16[0].a[2][5] = 0x7f80; // +inf
  bf16[0].b[0][3] = 0xffc1; // NaN
  bf16[0].b[9][1] = 0xff80; // -inf
  checkMma(1, bf16);
}

/// params: kind, patterns (65536), out (65536 floats). One warp decodes every
/// 16-bit pattern through mma: B column n holds pattern p at k = n, the rest
/// of B and all of C are zero and A[0][n] = 1, so D[0][n] = 1 * p + 0 * 0 +
/// ... = p exactly (the sign of a zero aside).
void decodeAllKernel(void **params) {
  int32_t kind = *static_cast<int32_t *>(params[0]);
  auto *out = static_cast<float *>(params[1]);
  int32_t lane = __kiln_emu_sreg(kLaneId);
  int32_t groupID = lane >> 2, tig = lane % 4;
  uint32_t one = kind == 1 ? 0x3f80 : 0x3c00;
  // A: only row 0 (groupID 0, a0 and a2) has ones, at columns 0..7.
  int32_t a0 = groupID == 0 ? int32_t(one | one << 16) : 0;
  int32_t a2 = 0;
  for (uint32_t base = 0; base < 65536; base += 8) {
    // B: element (k, n) is pattern base + n when k == n (n = groupID).
    auto bElement = [&](int i) -> uint32_t {
      int k = i < 2 ? tig * 2 + (i & 1) : tig * 2 + (i & 1) + 8;
      return k == groupID ? base + uint32_t(groupID) : 0;
    };
    int32_t b0 = int32_t(bElement(0) | bElement(1) << 16);
    int32_t b1 = int32_t(bElement(2) | bElement(3) << 16);
    float d[4];
    __kiln_emu_mma_m16n8k16_f32(kind, a0, 0, a2, 0, b0, b1, 0, 0, 0, 0, d);
    // D[0][2 tig + e] lives in d[e] of the lanes with groupID 0.
    if (groupID == 0)
      for (int e = 0; e < 2; ++e)
        out[base + uint32_t(2 * tig + e)] = d[e];
  }
}

TEST_F(GPUEmulator, MmaDecodesEveryHalfAndBFloat16Exactly) {
  for (int32_t kind : {0, 1}) {
    std::vector<float> out(65536);
    void *params[] = {&kind, out.data()};
    launch(decodeAllKernel, 1, 1, 1, 32, 1, 1, params);
    ASSERT_EQ(lastError(), "");
    int mismatches = 0;
    for (uint32_t p = 0; p < 65536; ++p) {
      double expected =
          kind == 1 ? decodeBFloat16(uint16_t(p)) : decodeHalf(uint16_t(p));
      bool ok = std::isnan(expected) ? std::isnan(out[p])
                                     : double(out[p]) == expected;
      if (!ok && ++mismatches < 10)
        ADD_FAILURE() << (kind ? "bf16" : "f16") << " pattern 0x" << std::hex
                      << p << std::dec << ": got " << out[p] << ", expected "
                      << expected;
    }
    EXPECT_EQ(mismatches, 0);
  }
}

/// Only lanes 0..15 reach the mma (the others returned).
void partialMmaKernel(void **) {
  if (__kiln_emu_sreg(kLaneId) >= 16)
    return;
  float d[4];
  __kiln_emu_mma_m16n8k16_f32(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, d);
}

TEST_F(GPUEmulator, MmaNeedsTheFullWarp) {
  launch(partialMmaKernel, 1, 1, 1, 32, 1, 1, nullptr);
  EXPECT_NE(lastError().find("mma.sync.aligned in a partial warp in block "
                             "(0,0,0), warp 0"),
            std::string::npos)
      << lastError();
}

//===----------------------------------------------------------------------===//
// ldmatrix.m8n8.b16
//===----------------------------------------------------------------------===//

/// One ldmatrix case: a shared tile of `kLdRows` rows of `kLdStride` halves
/// (16-byte aligned, padded rows), the tile row each addressing lane points
/// at (and the column, a multiple of 8), and each lane's registers.
constexpr int kLdRows = 40, kLdStride = 72;
struct LdMatrixCase {
  int32_t numMatrices;
  int32_t transpose;
  alignas(16) uint16_t tile[kLdRows * kLdStride];
  int32_t row[32], column[32];
  uint32_t out[32][4];
};

void ldMatrixKernel(void **params) {
  auto *c = static_cast<LdMatrixCase *>(params[0]);
  int32_t lane = __kiln_emu_sreg(kLaneId);
  // Lanes past 8 numMatrices supply an address nobody may read.
  const void *address =
      lane < 8 * c->numMatrices
          ? &c->tile[c->row[lane] * kLdStride + c->column[lane]]
          : reinterpret_cast<const void *>(uintptr_t(1));
  int32_t out[4] = {-1, -1, -1, -1};
  __kiln_emu_ldmatrix_m8n8_b16(c->numMatrices, c->transpose, address, out);
  for (int i = 0; i < 4; ++i)
    c->out[lane][i] = uint32_t(out[i]);
}

/// The registers each lane should get, written from the PTX ISA's figures
/// of "Warp-level matrix load instruction: ldmatrix" the other way round
/// from the runtime: element (r, c) of matrix i (row r at the address of
/// lane 8i + r) goes to lane 4r + c/2, half c % 2 of register i; with
/// .trans to lane 4c + r/2, half r % 2. Registers past numMatrices are not
/// written (-1).
void expectedLdMatrix(const LdMatrixCase &c, uint32_t expected[32][4]) {
  for (int l = 0; l < 32; ++l)
    for (int i = 0; i < 4; ++i)
      expected[l][i] = i < c.numMatrices ? 0 : 0xffffffffu;
  for (int i = 0; i < c.numMatrices; ++i)
    for (int r = 0; r < 8; ++r)
      for (int col = 0; col < 8; ++col) {
        uint32_t value =
            c.tile[c.row[8 * i + r] * kLdStride + c.column[8 * i + r] + col];
        int lane = c.transpose ? 4 * col + r / 2 : 4 * r + col / 2;
        int half = c.transpose ? r % 2 : col % 2;
        expected[lane][i] |= value << (16 * half);
      }
}

TEST_F(GPUEmulator, LdMatrixMatchesThePtxLayout) {
  std::mt19937 rng(17);
  auto *c = new LdMatrixCase;
  int cases = 0;
  for (int32_t numMatrices : {1, 2, 4}) {
    for (int32_t transpose : {0, 1}) {
      for (int trial = 0; trial < 3; ++trial) {
        c->numMatrices = numMatrices;
        c->transpose = transpose;
        for (uint16_t &h : c->tile)
          h = uint16_t(rng());
        // Trial 0: the rows of a fragment load (consecutive rows, column
        // 8 (lane / 8)); then any rows and 16-byte aligned columns.
        for (int l = 0; l < 32; ++l) {
          c->row[l] = trial == 0 ? l % 8 + 8 * (l / 16) : int(rng() % kLdRows);
          c->column[l] =
              trial == 0 ? 8 * ((l / 8) % 2) : 8 * int(rng() % (kLdStride / 8));
        }
        void *params[] = {c};
        launch(ldMatrixKernel, 1, 1, 1, 64, 1, 1, params);
        ASSERT_EQ(lastError(), "");
        uint32_t expected[32][4];
        expectedLdMatrix(*c, expected);
        for (int l = 0; l < 32; ++l)
          for (int i = 0; i < 4; ++i)
            EXPECT_EQ(c->out[l][i], expected[l][i])
                << "x" << numMatrices << (transpose ? ".trans" : "")
                << " trial " << trial << " lane " << l << " register " << i;
        ++cases;
      }
    }
  }
  EXPECT_EQ(cases, 18);
  delete c;
}

/// Lane 5 gives a row address 2 bytes past a 16-byte boundary.
void misalignedLdMatrixKernel(void **params) {
  auto *tile = static_cast<uint16_t *>(params[0]);
  int32_t lane = __kiln_emu_sreg(kLaneId);
  int32_t out[4];
  __kiln_emu_ldmatrix_m8n8_b16(4, 0, tile + 8 * lane + (lane == 5 ? 1 : 0),
                               out);
}

/// Lanes 0..15 load x4, lanes 16..31 x4.trans.
void divergentLdMatrixKernel(void **params) {
  auto *tile = static_cast<uint16_t *>(params[0]);
  int32_t lane = __kiln_emu_sreg(kLaneId);
  int32_t out[4];
  __kiln_emu_ldmatrix_m8n8_b16(4, lane >= 16, tile + 8 * lane, out);
}

/// Only lanes 0..15 reach the ldmatrix.
void partialLdMatrixKernel(void **params) {
  auto *tile = static_cast<uint16_t *>(params[0]);
  int32_t lane = __kiln_emu_sreg(kLaneId);
  if (lane >= 16)
    return;
  int32_t out[4];
  __kiln_emu_ldmatrix_m8n8_b16(2, 0, tile + 8 * lane, out);
}

TEST_F(GPUEmulator, LdMatrixErrors) {
  alignas(16) static uint16_t tile[32 * 8];
  void *params[] = {tile};
  launch(misalignedLdMatrixKernel, 1, 1, 1, 32, 1, 1, params);
  EXPECT_NE(lastError().find("misaligned ldmatrix row address in block "
                             "(0,0,0): ldmatrix.m8n8.x4.b16 by thread 5 "
                             "(5,0,0) (lane 5)"),
            std::string::npos)
      << lastError();
  kilnCudaClearLastError();
  launch(divergentLdMatrixKernel, 1, 1, 1, 32, 1, 1, params);
  EXPECT_NE(lastError().find("divergent warp collectives in block (0,0,0), "
                             "warp 0: thread 0 (0,0,0) (lane 0) is at "
                             "ldmatrix.m8n8.x4.b16"),
            std::string::npos)
      << lastError();
  EXPECT_NE(lastError().find("(lane 16) at ldmatrix.m8n8.x4.trans.b16"),
            std::string::npos)
      << lastError();
  kilnCudaClearLastError();
  launch(partialLdMatrixKernel, 1, 1, 1, 32, 1, 1, params);
  EXPECT_NE(lastError().find("ldmatrix.sync.aligned in a partial warp in "
                             "block (0,0,0), warp 0"),
            std::string::npos)
      << lastError();
}

//===----------------------------------------------------------------------===//
// Misaligned accesses
//===----------------------------------------------------------------------===//

/// What kiln-gpu-emulate-kernels puts in front of a 16-byte access: thread 3
/// of block 1 finds its address 4 bytes past a 16-byte boundary and reports
/// it (params[2]: the kind); every thread that gets past the test marks
/// itself in params[1].
void misalignedKernel(void **params) {
  auto *buffer = static_cast<char *>(params[0]);
  auto *passed = static_cast<int32_t *>(params[1]);
  int32_t kind = *static_cast<int32_t *>(params[2]);
  int32_t t = __kiln_emu_sreg(kTidX), b = __kiln_emu_sreg(kCtaidX);
  char *address = buffer + 16 * t + (t == 3 && b == 1 ? 4 : 0);
  if (reinterpret_cast<uintptr_t>(address) % 16 != 0)
    __kiln_emu_misaligned(address, 16, kind);
  passed[b * 8 + t] = 1;
}

TEST_F(GPUEmulator, MisalignedAccessStopsTheLaunch) {
  alignas(16) static char buffer[8 * 16 + 16];
  const char *names[] = {"a load from", "a store to", "an atomic on"};
  for (int32_t kind = 0; kind < 3; ++kind) {
    int32_t passed[3 * 8] = {};
    void *params[] = {buffer, passed, &kind};
    launch(misalignedKernel, 3, 1, 1, 8, 1, 1, params);
    char expected[160];
    snprintf(expected, sizeof(expected),
             "GPU emulator: misaligned address in block (1,0,0): thread 3 "
             "(3,0,0): %s %p, which is not 16-byte aligned (called from ",
             names[kind], static_cast<void *>(buffer + 3 * 16 + 4));
    EXPECT_EQ(lastError().rfind(expected, 0), 0u) << lastError();
    // Block 0 ran; in block 1 threads 0..2 ran before thread 3 stopped the
    // launch, no thread after it; block 2 did not run.
    for (int b = 0; b < 3; ++b)
      for (int t = 0; t < 8; ++t)
        EXPECT_EQ(passed[b * 8 + t], b == 0 || (b == 1 && t < 3) ? 1 : 0)
            << "kind " << kind << " block " << b << " thread " << t;
    kilnCudaClearLastError();
  }
  // The stopped fibers are reused by the next launch.
  int32_t kind = 0;
  int32_t passed[3 * 8] = {};
  void *params[] = {buffer, passed, &kind};
  launch(misalignedKernel, 1, 1, 1, 8, 1, 1, params);
  EXPECT_EQ(lastError(), "");
  for (int t = 0; t < 8; ++t)
    EXPECT_EQ(passed[t], 1);
}

TEST_F(GPUEmulator, MisalignedAccessOutsideALaunchAborts) {
  alignas(16) static char buffer[32];
  EXPECT_DEATH(__kiln_emu_misaligned(buffer + 2, 4, 1),
               "GPU emulator: misaligned address outside a kernel launch: a "
               "store to 0x[0-9a-f]+, which is not 4-byte aligned");
}

//===----------------------------------------------------------------------===//
// The race check of workgroup memory
//===----------------------------------------------------------------------===//

/// A workgroup load and store as kiln-gpu-emulate-kernels compiles them:
/// recorded when the launch checks races.
template <typename T>
T sharedLoad(const T *address) {
  if (__kiln_emu_racecheck_enabled())
    __kiln_emu_shared_access(address, sizeof(T), 0);
  return *address;
}
template <typename T>
void sharedStore(T *address, T value) {
  if (__kiln_emu_racecheck_enabled())
    __kiln_emu_shared_access(address, sizeof(T), 1);
  *address = value;
}

/// A static workgroup buffer of the race tests and its declaration.
int64_t raceBuffer[256];
const KilnEmuWorkgroupBuffer raceBuffers[] = {
    {raceBuffer, sizeof(raceBuffer), "@test::@raceBuffer"}};

/// Turns the race check on for a test and off after it.
class GPUEmulatorRaceCheck : public GPUEmulator {
protected:
  void SetUp() override {
    GPUEmulator::SetUp();
    __kiln_emu_set_racecheck(1);
  }
  void TearDown() override {
    __kiln_emu_set_racecheck(-1);
    GPUEmulator::TearDown();
  }
  /// Launches `kernel` on one block with the race buffer declared.
  void launchChecked(void (*kernel)(void **), int64_t bx, int64_t by,
                     void **params, int32_t dynamicShared = 0,
                     int64_t gx = 1) {
    __kiln_emu_workgroup_buffers(raceBuffers, 1);
    launch(kernel, gx, 1, 1, bx, by, 1, params, dynamicShared);
  }
};

/// The tree reduction of 1..n through the race buffer, recording its
/// accesses; params[1] says whether it synchronizes between the steps.
void racyReduceKernel(void **params) {
  auto *out = static_cast<int64_t *>(params[0]);
  bool sync = *static_cast<bool *>(params[1]);
  int32_t t = __kiln_emu_sreg(kTidX), n = __kiln_emu_sreg(kNtidX);
  sharedStore(&raceBuffer[t], int64_t(t + 1));
  for (int32_t s = n / 2; s > 0; s /= 2) {
    if (sync)
      __kiln_emu_barrier();
    if (t < s)
      sharedStore(&raceBuffer[t],
                  sharedLoad(&raceBuffer[t]) + sharedLoad(&raceBuffer[t + s]));
  }
  if (t == 0)
    *out = sharedLoad(&raceBuffer[0]);
}

TEST_F(GPUEmulatorRaceCheck, ReductionWithoutItsBarriersIsARace) {
  int64_t out = 0;
  bool sync = true;
  void *params[] = {&out, &sync};
  launchChecked(racyReduceKernel, 256, 1, params);
  EXPECT_EQ(lastError(), "");
  EXPECT_EQ(out, 256 * 257 / 2);

  // Thread 0 runs the whole loop first: it reads element 1 (bytes 8..15)
  // in its last step, then thread 1 writes it, with no barrier between.
  sync = false;
  launchChecked(racyReduceKernel, 256, 1, params);
  EXPECT_EQ(lastError().rfind(
                "GPU emulator: workgroup memory race (write after read) in "
                "block (0,0,0), epoch 0 (after 0 barriers): thread 1 "
                "(1,0,0) writes byte 8 of @test::@raceBuffer (at ",
                0),
            0u)
      << lastError();
  EXPECT_NE(lastError().find("which thread 0 (0,0,0) read in the same epoch "
                             "(called from "),
            std::string::npos)
      << lastError();

  // Off (the default), the same launch reports nothing.
  kilnCudaClearLastError();
  __kiln_emu_set_racecheck(-1);
  unsetenv("KILN_EMU_RACECHECK");
  launchChecked(racyReduceKernel, 256, 1, params);
  EXPECT_EQ(lastError(), "");
  // KILN_EMU_RACECHECK=1 turns it on at the next launch.
  setenv("KILN_EMU_RACECHECK", "1", 1);
  launchChecked(racyReduceKernel, 256, 1, params);
  unsetenv("KILN_EMU_RACECHECK");
  EXPECT_NE(lastError().find("workgroup memory race (write after read)"),
            std::string::npos)
      << lastError();
}

/// Thread `first` (linear id) accesses the 4 bytes at params[1] + offset,
/// then thread `second` accesses 4 bytes at params[1] + params[3] (a byte
/// offset), both after a first barrier; how: params[2] (0 RAW, 1 WAR, 2 WAW,
/// 3 write-read with a barrier between, 4 write-read by the same thread).
void pairKernel(void **params) {
  auto *base = static_cast<char *>(params[0]);
  int32_t how = *static_cast<int32_t *>(params[1]);
  int32_t secondOffset = *static_cast<int32_t *>(params[2]);
  if (!base)
    base = static_cast<char *>(__kiln_emu_dynamic_shared());
  int32_t t = __kiln_emu_sreg(kTidX) +
              __kiln_emu_sreg(kNtidX) * __kiln_emu_sreg(kTidX + 1);
  const int32_t first = 2, second = how == 4 ? 2 : 5;
  auto *a = reinterpret_cast<int32_t *>(base + 8);
  auto *b = reinterpret_cast<int32_t *>(base + 8 + secondOffset);
  __kiln_emu_barrier();
  if (t == first) {
    if (how == 1)
      (void)sharedLoad(a);
    else
      sharedStore(a, 1);
  }
  if (how == 3)
    __kiln_emu_barrier();
  if (t == second) {
    if (how == 0 || how == 3 || how == 4)
      (void)sharedLoad(b);
    else
      sharedStore(b, 2);
  }
}

TEST_F(GPUEmulatorRaceCheck, ReadAfterWriteWriteAfterReadWriteAfterWrite) {
  const char *kinds[] = {"read after write", "write after read",
                         "write after write"};
  const char *verbs[][2] = {
      {"reads", "wrote"}, {"writes", "read"}, {"writes", "wrote"}};
  for (int32_t how = 0; how < 3; ++how) {
    int32_t offset = 0;
    void *params[] = {raceBuffer, &how, &offset};
    // A 4x2 block: thread 5 is (1,1,0).
    launchChecked(pairKernel, 4, 2, params);
    char expected[300];
    snprintf(expected, sizeof(expected),
             "GPU emulator: workgroup memory race (%s) in block (0,0,0), "
             "epoch 1 (after 1 barrier): thread 5 (1,1,0) %s byte 8 of "
             "@test::@raceBuffer (at %p), which thread 2 (2,0,0) %s in the "
             "same epoch (called from ",
             kinds[how], verbs[how][0],
             static_cast<void *>(reinterpret_cast<char *>(raceBuffer) + 8),
             verbs[how][1]);
    EXPECT_EQ(lastError().rfind(expected, 0), 0u) << lastError();
    kilnCudaClearLastError();
  }
  // A barrier between them, or the same thread: no race.
  for (int32_t how : {3, 4}) {
    int32_t offset = 0;
    void *params[] = {raceBuffer, &how, &offset};
    launchChecked(pairKernel, 4, 2, params);
    EXPECT_EQ(lastError(), "") << how;
  }
  // Byte granularity: the read of bytes 11..14 overlaps the write of 8..11
  // in byte 11 only; bytes 12..15 do not overlap.
  for (int32_t offset : {3, 4}) {
    int32_t how = 0;
    void *params[] = {raceBuffer, &how, &offset};
    launchChecked(pairKernel, 4, 2, params);
    if (offset == 3)
      EXPECT_NE(lastError().find("(read after write) in block (0,0,0), "
                                 "epoch 1 (after 1 barrier): thread 5 (1,1,0) "
                                 "reads byte 11 of @test::@raceBuffer"),
                std::string::npos)
          << lastError();
    else
      EXPECT_EQ(lastError(), "");
    kilnCudaClearLastError();
  }
  // The dynamic shared memory is checked without a declaration.
  int32_t how = 2, offset = 0;
  void *params[] = {nullptr, &how, &offset};
  launch(pairKernel, 1, 1, 1, 4, 2, 1, params, /*dynamicShared=*/64);
  EXPECT_NE(lastError().find("thread 5 (1,1,0) writes byte 8 of the dynamic "
                             "shared memory (at "),
            std::string::npos)
      << lastError();
}

/// Block b: thread b writes element 0 (each block alone is race free).
void perBlockKernel(void **) {
  if (__kiln_emu_sreg(kTidX) == __kiln_emu_sreg(kCtaidX))
    sharedStore(&raceBuffer[0], int64_t(1));
}

/// Thread 0 reads past the race buffer.
void outOfBoundsKernel(void **) {
  if (__kiln_emu_sreg(kTidX) == 0)
    (void)sharedLoad(&raceBuffer[256]);
}

TEST_F(GPUEmulatorRaceCheck, BlocksStartCleanAndBoundsAreChecked) {
  void *params[] = {nullptr};
  launchChecked(perBlockKernel, 4, 1, params, 0, /*gx=*/3);
  EXPECT_EQ(lastError(), "");
  launchChecked(outOfBoundsKernel, 4, 1, params);
  EXPECT_EQ(lastError().rfind(
                "GPU emulator: workgroup memory access out of bounds in block "
                "(0,0,0): thread 0 (0,0,0) reads 8 bytes at ",
                0),
            0u)
      << lastError();
  kilnCudaClearLastError();
  // The declaration is for one launch: without it the buffer is unknown.
  launch(perBlockKernel, 1, 1, 1, 4, 1, 1, params);
  EXPECT_NE(lastError().find("outside every workgroup buffer"),
            std::string::npos)
      << lastError();
}

/// Each lane writes row `lane` (8 halves, 16 bytes) of a 32-row tile in
/// the race buffer, optionally waits at the barrier, then ldmatrix.x4 reads
/// with lane l giving row (l + params[1]) % 32.
void ldMatrixRaceKernel(void **params) {
  bool sync = *static_cast<bool *>(params[0]);
  int32_t shift = *static_cast<int32_t *>(params[1]);
  int32_t lane = __kiln_emu_sreg(kLaneId);
  auto *tile = reinterpret_cast<uint16_t *>(raceBuffer);
  for (int32_t i = 0; i < 8; ++i)
    sharedStore(&tile[8 * lane + i], uint16_t(lane * 8 + i));
  if (sync)
    __kiln_emu_barrier();
  int32_t out[4];
  __kiln_emu_ldmatrix_m8n8_b16(4, 0, tile + 8 * ((lane + shift) % 32), out);
}

TEST_F(GPUEmulatorRaceCheck, LdMatrixReadsOnBehalfOfTheLanes) {
  bool sync = false;
  int32_t shift = 0;
  void *params[] = {&sync, &shift};
  // Every lane reads the row it wrote: no race.
  launchChecked(ldMatrixRaceKernel, 32, 1, params);
  EXPECT_EQ(lastError(), "");
  // Lane 0 gives row 1, which lane 1 wrote.
  shift = 1;
  launchChecked(ldMatrixRaceKernel, 32, 1, params);
  EXPECT_EQ(lastError().rfind(
                "GPU emulator: workgroup memory race (read after write) in "
                "block (0,0,0), epoch 0 (after 0 barriers): thread 0 "
                "(0,0,0) reads (ldmatrix row) byte 16 of @test::@raceBuffer "
                "(at ",
                0),
            0u)
      << lastError();
  EXPECT_NE(lastError().find("which thread 1 (1,0,0) wrote in the same epoch"),
            std::string::npos)
      << lastError();
  kilnCudaClearLastError();
  sync = true;
  launchChecked(ldMatrixRaceKernel, 32, 1, params);
  EXPECT_EQ(lastError(), "");
}

//===----------------------------------------------------------------------===//
// Host functions
//===----------------------------------------------------------------------===//

TEST_F(GPUEmulator, MemoryFunctions) {
  void *stream = mgpuStreamCreate();
  EXPECT_NE(stream, nullptr);
  void *event = mgpuEventCreate();
  EXPECT_NE(event, nullptr);
  mgpuEventRecord(event, stream);
  mgpuStreamWaitEvent(stream, event);
  EXPECT_EQ(mgpuMemAlloc(0, stream, false), nullptr);
  for (uint64_t size : {1, 3, 4096, 100000}) {
    void *p = mgpuMemAlloc(size, stream, size == 3);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 256, 0u) << size;
    mgpuMemFree(p, stream);
  }
  const size_t n = 1000;
  auto *a = static_cast<uint32_t *>(mgpuMemAlloc(n * 4, stream, false));
  auto *b = static_cast<uint32_t *>(mgpuMemAlloc(n * 4, stream, false));
  std::vector<uint32_t> host(n);
  for (size_t i = 0; i < n; ++i)
    host[i] = uint32_t(i * 2654435761u);
  mgpuMemcpy(a, host.data(), n * 4, stream);
  mgpuMemcpy(b, a, n * 4, stream);
  std::vector<uint32_t> back(n);
  mgpuMemcpy(back.data(), b, n * 4, stream);
  EXPECT_EQ(back, host);
  mgpuMemset32(b + 10, 0xdeadbeef, 7, stream);
  mgpuMemcpy(back.data(), b, n * 4, stream);
  for (size_t i = 0; i < n; ++i)
    EXPECT_EQ(back[i], i >= 10 && i < 17 ? 0xdeadbeefu : host[i]) << i;
  auto *h = reinterpret_cast<uint16_t *>(a);
  mgpuMemset16(h + 3, 0xabcd, 5, stream);
  std::vector<uint16_t> halves(2 * n);
  mgpuMemcpy(halves.data(), a, n * 4, stream);
  const auto *original = reinterpret_cast<const uint16_t *>(host.data());
  for (size_t i = 0; i < 2 * n; ++i)
    EXPECT_EQ(halves[i], i >= 3 && i < 8 ? 0xabcd : original[i]) << i;
  mgpuStreamSynchronize(stream);
  mgpuEventSynchronize(event);
  kilnCudaSynchronize();
  mgpuMemHostRegister(host.data(), n * 4);
  mgpuMemHostUnregister(host.data());
  mgpuMemFree(a, stream);
  mgpuMemFree(b, stream);
  mgpuEventDestroy(event);
  mgpuStreamDestroy(stream);
  EXPECT_EQ(lastError(), "");
}

TEST_F(GPUEmulator, GpuModulesAreClearErrors) {
  char blob[4] = {0};
  EXPECT_EQ(mgpuModuleLoad(blob, 4), nullptr);
  EXPECT_NE(lastError().find("mgpuModuleLoad cannot load a GPU binary"),
            std::string::npos)
      << lastError();
  kilnCudaClearLastError();
  EXPECT_EQ(mgpuModuleGetFunction(nullptr, "k"), nullptr);
  EXPECT_NE(lastError().find("mgpuModuleGetFunction(\"k\")"),
            std::string::npos);
  kilnCudaClearLastError();
  mgpuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr, 0);
  EXPECT_NE(lastError().find("__kiln_emu_launch"), std::string::npos);
  // The first error wins; later work is a no-op.
  kilnCudaReportError("second");
  EXPECT_EQ(lastError().find("second"), std::string::npos);
  EXPECT_EQ(mgpuMemAlloc(16, nullptr, false), nullptr);
}

TEST_F(GPUEmulator, LibDeviceMatchesLibm) {
  for (float x : {-3.5f, -0.25f, 0.0f, 0.7f, 2.0f, 11.0f}) {
    EXPECT_EQ(__nv_expf(x), std::exp(x));
    EXPECT_EQ(__nv_fast_expf(x), std::exp(x));
    EXPECT_EQ(__nv_exp(double(x)), std::exp(double(x)));
    EXPECT_EQ(__nv_tanhf(x), std::tanh(x));
    EXPECT_EQ(__nv_fabsf(x), std::fabs(x));
    EXPECT_EQ(__nv_erff(x), std::erf(x));
    EXPECT_EQ(__nv_powif(x, 3), std::pow(x, 3.0f));
    EXPECT_EQ(__nv_atan2(double(x), 0.5), std::atan2(double(x), 0.5));
    float s, c;
    __nv_sincosf(x, &s, &c);
    EXPECT_EQ(s, std::sin(x));
    EXPECT_EQ(c, std::cos(x));
  }
  for (float x : {0.125f, 1.0f, 3.0f, 1e10f}) {
    EXPECT_EQ(__nv_logf(x), std::log(x));
    EXPECT_EQ(__nv_log(double(x)), std::log(double(x)));
    EXPECT_EQ(__nv_sqrtf(x), std::sqrt(x));
    EXPECT_EQ(__nv_rsqrtf(x), 1.0f / std::sqrt(x));
    EXPECT_EQ(__nv_powf(x, 1.5f), std::pow(x, 1.5f));
  }
  EXPECT_EQ(__nv_fmaxf(NAN, 2.0f), 2.0f);
  EXPECT_EQ(__nv_fminf(1.0f, NAN), 1.0f);
  EXPECT_EQ(__nv_isnanf(NAN), 1);
  EXPECT_EQ(__nv_isnanf(1.0f), 0);
  EXPECT_EQ(__nv_isinfd(-INFINITY), 1);
  EXPECT_EQ(__nv_finitef(INFINITY), 0);
  EXPECT_EQ(__nv_abs(-5), 5);
}

//===----------------------------------------------------------------------===//
// The shared library
//===----------------------------------------------------------------------===//

#ifdef KILN_GPU_EMULATOR_SHARED_LIBRARY
/// The shared library, loaded privately, exports the whole ABI and runs a
/// kernel through its own copy of the emulator.
using SRegFn = int32_t (*)(int32_t);
using BarrierFn = void (*)();
SRegFn sharedSReg;
BarrierFn sharedBarrier;
int32_t sharedLibraryShared[64];

void sharedLibraryKernel(void **params) {
  auto *out = static_cast<int32_t *>(params[0]);
  int32_t t = sharedSReg(0);
  sharedLibraryShared[t] = t * t;
  sharedBarrier();
  out[t] = sharedLibraryShared[63 - t];
}

TEST_F(GPUEmulator, SharedLibraryExportsTheAbi) {
  void *library =
      dlopen(KILN_GPU_EMULATOR_SHARED_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  const char *names[] = {
      "__kiln_emu_launch", "__kiln_emu_sreg", "__kiln_emu_barrier",
      "__kiln_emu_shfl_sync", "__kiln_emu_mma_m16n8k16_f32",
      "__kiln_emu_ldmatrix_m8n8_b16", "__kiln_emu_dynamic_shared",
      "__kiln_emu_misaligned", "__kiln_emu_workgroup_buffers",
      "__kiln_emu_racecheck_enabled", "__kiln_emu_shared_access",
      "__kiln_emu_set_racecheck", "kilnCudaGetLastError", "kilnCudaClearLastError", "kilnCudaReportError",
      "kilnCudaSynchronize", "mgpuModuleLoad", "mgpuModuleLoadJIT",
      "mgpuModuleUnload", "mgpuModuleGetFunction", "mgpuLaunchKernel",
      "mgpuLaunchClusterKernel", "mgpuStreamCreate", "mgpuStreamDestroy",
      "mgpuStreamSynchronize", "mgpuStreamWaitEvent", "mgpuEventCreate",
      "mgpuEventDestroy", "mgpuEventSynchronize", "mgpuEventRecord",
      "mgpuMemAlloc", "mgpuMemFree", "mgpuMemcpy", "mgpuMemset16",
      "mgpuMemset32", "mgpuMemHostRegister", "mgpuMemHostRegisterMemRef",
      "mgpuMemHostUnregister", "mgpuMemHostUnregisterMemRef",
      "mgpuSetDefaultDevice",
      // Every libdevice function MLIR 22's GPU-to-NVVM lowering can call.
      "__nv_fmodf", "__nv_fmod", "__nv_fmaxf", "__nv_fmax", "__nv_fminf",
      "__nv_fmin", "__nv_abs", "__nv_fabsf", "__nv_fabs", "__nv_acosf",
      "__nv_acos", "__nv_acoshf", "__nv_acosh", "__nv_asinf", "__nv_asin",
      "__nv_asinhf", "__nv_asinh", "__nv_atanf", "__nv_atan", "__nv_atan2f",
      "__nv_atan2", "__nv_atanhf", "__nv_atanh", "__nv_cbrtf", "__nv_cbrt",
      "__nv_ceilf", "__nv_ceil", "__nv_copysignf", "__nv_copysign", "__nv_cosf",
      "__nv_cos", "__nv_fast_cosf", "__nv_coshf", "__nv_cosh", "__nv_erff",
      "__nv_erf", "__nv_erfcf", "__nv_erfc", "__nv_expf", "__nv_exp",
      "__nv_fast_expf", "__nv_exp2f", "__nv_exp2", "__nv_expm1f", "__nv_expm1",
      "__nv_floorf", "__nv_floor", "__nv_fmaf", "__nv_fma", "__nv_finitef",
      "__nv_isfinited", "__nv_isinff", "__nv_isinfd", "__nv_isnanf",
      "__nv_isnand", "__nv_logf", "__nv_log", "__nv_fast_logf", "__nv_log10f",
      "__nv_log10", "__nv_fast_log10f", "__nv_log1pf", "__nv_log1p",
      "__nv_log2f", "__nv_log2", "__nv_fast_log2f", "__nv_powf", "__nv_pow",
      "__nv_fast_powf", "__nv_powif", "__nv_powi", "__nv_roundf", "__nv_round",
      "__nv_rintf", "__nv_rint", "__nv_rsqrtf", "__nv_rsqrt", "__nv_sinf",
      "__nv_sin", "__nv_fast_sinf", "__nv_sinhf", "__nv_sinh", "__nv_sqrtf",
      "__nv_sqrt", "__nv_tanf", "__nv_tan", "__nv_fast_tanf", "__nv_tanhf",
      "__nv_tanh", "__nv_sincosf", "__nv_fast_sincosf", "__nv_sincos"};
  for (const char *name : names)
    EXPECT_NE(dlsym(library, name), nullptr) << name;
  // Nothing but the ABI: the internals stay hidden.
  EXPECT_EQ(dlsym(library, "kilnEmuSwitch"), nullptr);

  using LaunchFn = decltype(&__kiln_emu_launch);
  using ErrorFn = const char *(*)();
  auto sharedLaunch =
      reinterpret_cast<LaunchFn>(dlsym(library, "__kiln_emu_launch"));
  auto sharedError =
      reinterpret_cast<ErrorFn>(dlsym(library, "kilnCudaGetLastError"));
  sharedSReg = reinterpret_cast<SRegFn>(dlsym(library, "__kiln_emu_sreg"));
  sharedBarrier =
      reinterpret_cast<BarrierFn>(dlsym(library, "__kiln_emu_barrier"));
  ASSERT_TRUE(sharedLaunch && sharedError && sharedSReg && sharedBarrier);
  int32_t out[64];
  void *params[] = {out};
  sharedLaunch(sharedLibraryKernel, 1, 1, 1, 64, 1, 1, 0, nullptr, params);
  EXPECT_EQ(sharedError(), nullptr);
  for (int t = 0; t < 64; ++t)
    EXPECT_EQ(out[t], (63 - t) * (63 - t));
  dlclose(library);
}
#endif

//===----------------------------------------------------------------------===//
// Determinism and speed
//===----------------------------------------------------------------------===//

TEST_F(GPUEmulator, SameLaunchSameBits) {
  std::vector<MmaCase> first = randomCases(2, false, 9), second = first;
  int32_t kind = 0;
  void *params1[] = {&kind, first.data()};
  void *params2[] = {&kind, second.data()};
  launch(mmaKernel, 1, 1, 1, 64, 1, 1, params1);
  launch(mmaKernel, 1, 1, 1, 64, 1, 1, params2);
  ASSERT_EQ(lastError(), "");
  EXPECT_EQ(memcmp(first.data(), second.data(), first.size() * sizeof(MmaCase)),
            0);
}

/// params: iterations. A barrier per iteration.
void barrierLoopKernel(void **params) {
  int32_t iterations = *static_cast<int32_t *>(params[0]);
  for (int32_t i = 0; i < iterations; ++i)
    __kiln_emu_barrier();
}

TEST_F(GPUEmulator, SwitchRate) {
  int32_t iterations = 2000;
  void *params[] = {&iterations};
  uint64_t before = __kiln_emu_switch_count();
  auto start = std::chrono::steady_clock::now();
  launch(barrierLoopKernel, 1, 1, 1, 128, 1, 1, params);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  ASSERT_EQ(lastError(), "");
  uint64_t switches = __kiln_emu_switch_count() - before;
  // Each thread: one resume and one yield per barrier, plus its start/end.
  EXPECT_EQ(switches, uint64_t(128) * 2 * (iterations + 1));
  printf("[ GPU emulator ] %llu fiber switches in %.3f s: %.1f million "
         "switches/s (128-thread block, %d barriers)\n",
         static_cast<unsigned long long>(switches), seconds,
         double(switches) / seconds / 1e6, int(iterations));
}

} // namespace
