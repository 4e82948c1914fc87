//===- KernelABI.cpp - The GPU emulator's kernel ABI ----------------------===//
//
// The __kiln_emu_* functions of include/kiln/Runtime/GPUEmulator.h: the
// launch, which runs a grid's blocks one after the other, and the functions
// the kernels call in place of the NVVM operations (special registers,
// bar.sync, shfl.sync, mma.sync, ldmatrix) and for the alignment and race
// checks, with the codes of include/kiln/Runtime/GPUEmulatorABI.h.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

using namespace kiln::emu;

namespace {

/// The most dynamic shared memory a block may use on sm_90 (227 KiB).
constexpr int32_t kMaxDynamicSharedBytes = 227 * 1024;

/// Whether the calling OS thread is inside __kiln_emu_launch (a fiber or the
/// scheduler).
thread_local bool inLaunch = false;
/// One launch at a time in the process (the launch state and the workgroup
/// globals are the process's).
pthread_mutex_t launchMutex = PTHREAD_MUTEX_INITIALIZER;

/// __kiln_emu_set_racecheck's mode, a KilnEmuRacecheckMode: FROM_ENV reads
/// KILN_EMU_RACECHECK at launch.
int32_t racecheckMode = KILN_EMU_RACECHECK_FROM_ENV;
/// The static workgroup buffers declared for the next launch of this thread.
thread_local const KilnEmuWorkgroupBuffer *pendingBuffers;
thread_local int32_t numPendingBuffers;

/// The running fiber, or null (with an error recorded) when `what` is called
/// outside a kernel.
Fiber *getCurrentFiber(const char *what) {
  if (inLaunch && launch.current)
    return launch.current;
  reportError("GPU emulator: %s called outside a kernel launch", what);
  return nullptr;
}

} // namespace

extern "C" void __kiln_emu_launch(void (*entry)(void **params), int64_t gridX,
                                  int64_t gridY, int64_t gridZ, int64_t blockX,
                                  int64_t blockY, int64_t blockZ,
                                  int32_t dynamicSharedBytesArg, void *stream,
                                  void **params) {
  (void)stream;
  // The buffers declared for this launch, consumed whatever happens.
  const KilnEmuWorkgroupBuffer *buffers = pendingBuffers;
  int32_t numBuffers = numPendingBuffers;
  pendingBuffers = nullptr;
  numPendingBuffers = 0;
  if (hasRecordedError())
    return;
  if (inLaunch) {
    reportError("GPU emulator: a kernel launched a kernel (dynamic "
                "parallelism is not emulated)");
    return;
  }
  if (!entry) {
    reportError("GPU emulator: launch of a null kernel");
    return;
  }
  if (gridX < 1 || gridY < 1 || gridZ < 1 || gridX > 0x7fffffff ||
      gridY > 65535 || gridZ > 65535) {
    reportError("GPU emulator: invalid grid %ldx%ldx%ld", long(gridX),
                long(gridY), long(gridZ));
    return;
  }
  if (blockX < 1 || blockY < 1 || blockZ < 1 || blockX > 1024 ||
      blockY > 1024 || blockZ > 64 ||
      blockX * blockY * blockZ > kMaxThreadsPerBlock) {
    reportError("GPU emulator: invalid block %ldx%ldx%ld (%ld threads; at "
                "most 1024, 1024x1024x64)",
                long(blockX), long(blockY), long(blockZ),
                long(blockX * blockY * blockZ));
    return;
  }
  if (dynamicSharedBytesArg < 0 ||
      dynamicSharedBytesArg > kMaxDynamicSharedBytes) {
    reportError("GPU emulator: %d bytes of dynamic shared memory (at most "
                "%d on sm_90)",
                int(dynamicSharedBytesArg), int(kMaxDynamicSharedBytes));
    return;
  }

  pthread_mutex_lock(&launchMutex);
  int32_t numThreads = int32_t(blockX * blockY * blockZ);
  bool ok = ensureStacks(numThreads);
  if (ok && size_t(dynamicSharedBytesArg) > dynamicSharedCapacity) {
    free(dynamicShared);
    dynamicShared = nullptr;
    dynamicSharedCapacity = 0;
    size_t capacity = (size_t(dynamicSharedBytesArg) + 4095) & ~size_t(4095);
    if (posix_memalign(&dynamicShared, 128, capacity) != 0) {
      dynamicShared = nullptr;
      reportError("GPU emulator: cannot allocate %d bytes of dynamic shared "
                  "memory",
                  int(dynamicSharedBytesArg));
      ok = false;
    } else {
      dynamicSharedCapacity = capacity;
    }
  }
  if (ok) {
    const char *strict = getenv("KILN_EMU_STRICT_BARRIERS");
    launch.entry = entry;
    launch.params = params;
    launch.grid[0] = int32_t(gridX);
    launch.grid[1] = int32_t(gridY);
    launch.grid[2] = int32_t(gridZ);
    launch.block[0] = int32_t(blockX);
    launch.block[1] = int32_t(blockY);
    launch.block[2] = int32_t(blockZ);
    launch.numThreads = numThreads;
    launch.strictBarriers = strict && strict[0] && strcmp(strict, "0") != 0;
    launch.aborted = false;
    launch.current = nullptr;
    dynamicSharedBytes = dynamicSharedBytesArg;
    if (racecheckMode != KILN_EMU_RACECHECK_FROM_ENV) {
      race.enabled = racecheckMode == KILN_EMU_RACECHECK_ON;
    } else {
      const char *racecheck = getenv("KILN_EMU_RACECHECK");
      race.enabled =
          racecheck && racecheck[0] && strcmp(racecheck, "0") != 0;
    }
    ok = setUpRaceCheck(buffers, numBuffers);
  }
  if (ok) {
    captureFloatingPointControl();
    inLaunch = true;
    installCrashHandler();
    for (int32_t z = 0; z < launch.grid[2] && !launch.aborted; ++z)
      for (int32_t y = 0; y < launch.grid[1] && !launch.aborted; ++y)
        for (int32_t x = 0; x < launch.grid[0] && !launch.aborted; ++x) {
          launch.ctaid[0] = x;
          launch.ctaid[1] = y;
          launch.ctaid[2] = z;
          runBlock();
        }
    removeCrashHandler();
    inLaunch = false;
  }
  race.enabled = false;
  pthread_mutex_unlock(&launchMutex);
}

extern "C" int32_t __kiln_emu_sreg(int32_t which) {
  Fiber *fiber = getCurrentFiber("__kiln_emu_sreg");
  if (!fiber)
    return 0;
  switch (which) {
  case KILN_EMU_SREG_TID_X:
  case KILN_EMU_SREG_TID_Y:
  case KILN_EMU_SREG_TID_Z:
    return fiber->tid[which - KILN_EMU_SREG_TID_X];
  case KILN_EMU_SREG_NTID_X:
  case KILN_EMU_SREG_NTID_Y:
  case KILN_EMU_SREG_NTID_Z:
    return launch.block[which - KILN_EMU_SREG_NTID_X];
  case KILN_EMU_SREG_CTAID_X:
  case KILN_EMU_SREG_CTAID_Y:
  case KILN_EMU_SREG_CTAID_Z:
    return launch.ctaid[which - KILN_EMU_SREG_CTAID_X];
  case KILN_EMU_SREG_NCTAID_X:
  case KILN_EMU_SREG_NCTAID_Y:
  case KILN_EMU_SREG_NCTAID_Z:
    return launch.grid[which - KILN_EMU_SREG_NCTAID_X];
  case KILN_EMU_SREG_LANEID:
    return fiber->linearId % kWarpSize;
  case KILN_EMU_SREG_WARPSIZE:
    return kWarpSize;
  default:
    reportError("GPU emulator: __kiln_emu_sreg(%d): no such special register",
                int(which));
    return 0;
  }
}

extern "C" void __kiln_emu_barrier(void) {
  Fiber *fiber = getCurrentFiber("__kiln_emu_barrier");
  if (!fiber)
    return;
  fiber->site = __builtin_return_address(0);
  fiber->state = FiberState::AtBarrier;
  yieldToScheduler(fiber);
}

extern "C" int32_t __kiln_emu_shfl_sync(int32_t mode, int32_t memberMask,
                                        int32_t value, int32_t laneOrOffset,
                                        int32_t clampAndMask, int8_t *valid) {
  Fiber *fiber = getCurrentFiber("__kiln_emu_shfl_sync");
  if (!fiber) {
    if (valid)
      *valid = 0;
    return value;
  }
  fiber->site = __builtin_return_address(0);
  fiber->op = WarpOp::Shfl;
  fiber->mode = mode;
  fiber->memberMask = memberMask;
  fiber->value = value;
  fiber->laneOrOffset = laneOrOffset;
  fiber->clampAndMask = clampAndMask;
  fiber->state = FiberState::AtWarpOp;
  yieldToScheduler(fiber);
  if (valid)
    *valid = fiber->valid ? 1 : 0;
  return fiber->result;
}

extern "C" void __kiln_emu_mma_m16n8k16_f32(int32_t kind, int32_t a0,
                                            int32_t a1, int32_t a2, int32_t a3,
                                            int32_t b0, int32_t b1, float c0,
                                            float c1, float c2, float c3,
                                            float *d) {
  Fiber *fiber = getCurrentFiber("__kiln_emu_mma_m16n8k16_f32");
  if (!fiber)
    return;
  fiber->site = __builtin_return_address(0);
  fiber->op = WarpOp::Mma;
  fiber->kind = kind;
  fiber->a[0] = uint32_t(a0);
  fiber->a[1] = uint32_t(a1);
  fiber->a[2] = uint32_t(a2);
  fiber->a[3] = uint32_t(a3);
  fiber->b[0] = uint32_t(b0);
  fiber->b[1] = uint32_t(b1);
  fiber->c[0] = c0;
  fiber->c[1] = c1;
  fiber->c[2] = c2;
  fiber->c[3] = c3;
  fiber->state = FiberState::AtWarpOp;
  yieldToScheduler(fiber);
  for (int i = 0; i < 4; ++i)
    d[i] = fiber->d[i];
}

extern "C" void __kiln_emu_ldmatrix_m8n8_b16(int32_t numMatrices,
                                             int32_t transpose,
                                             const void *rowAddress,
                                             int32_t *out) {
  Fiber *fiber = getCurrentFiber("__kiln_emu_ldmatrix_m8n8_b16");
  if (!fiber)
    return;
  fiber->site = __builtin_return_address(0);
  fiber->op = WarpOp::LdMatrix;
  fiber->numMatrices = numMatrices;
  fiber->transpose = transpose != 0;
  fiber->rowAddress = static_cast<const char *>(rowAddress);
  fiber->state = FiberState::AtWarpOp;
  yieldToScheduler(fiber);
  for (int32_t i = 0; i < numMatrices && i < 4; ++i)
    out[i] = int32_t(fiber->loaded[i]);
}

extern "C" void __kiln_emu_misaligned(const void *address, int64_t alignment,
                                      int32_t kind) {
  const char *access = kind == KILN_EMU_ACCESS_LOAD    ? "a load from"
                       : kind == KILN_EMU_ACCESS_STORE ? "a store to"
                                                       : "an atomic on";
  void *site = __builtin_return_address(0);
  if (!inLaunch || !launch.current) {
    fprintf(stderr,
            "GPU emulator: misaligned address outside a kernel launch: "
            "%s %p, which is not %ld-byte aligned (called from %p)\n",
            access, address, long(alignment), site);
    abort();
  }
  Fiber *fiber = launch.current;
  char who[64];
  formatThread(*fiber, who, sizeof(who));
  abortLaunch("misaligned address",
              ": %s: %s %p, which is not %ld-byte aligned (called from %p)",
              who, access, address, long(alignment), site);
  stopFiber(fiber, site);
}

extern "C" void __kiln_emu_workgroup_buffers(
    const KilnEmuWorkgroupBuffer *buffers, int32_t count) {
  pendingBuffers = buffers;
  numPendingBuffers = count;
}

extern "C" int32_t __kiln_emu_racecheck_enabled(void) {
  return inLaunch && race.enabled ? 1 : 0;
}

extern "C" void __kiln_emu_shared_access(const void *address, int64_t bytes,
                                         int32_t isWrite) {
  void *site = __builtin_return_address(0);
  Fiber *fiber = getCurrentFiber("__kiln_emu_shared_access");
  if (!fiber || !race.enabled)
    return;
  if (!recordSharedAccess(*fiber, static_cast<const char *>(address), bytes,
                          isWrite != 0, isWrite ? "writes" : "reads", site))
    stopFiber(fiber, site);
}

extern "C" void __kiln_emu_set_racecheck(int32_t mode) {
  racecheckMode = mode < 0    ? KILN_EMU_RACECHECK_FROM_ENV
                  : mode != 0 ? KILN_EMU_RACECHECK_ON
                              : KILN_EMU_RACECHECK_OFF;
}

extern "C" void *__kiln_emu_dynamic_shared(void) {
  if (!getCurrentFiber("__kiln_emu_dynamic_shared"))
    return nullptr;
  return dynamicSharedBytes > 0 ? dynamicShared : nullptr;
}

/// Fiber switches since the process started, for benchmarks (not part of
/// the compiler's ABI).
extern "C" uint64_t __kiln_emu_switch_count(void) { return switchCount; }
