//===- GPUEmulator.cpp - Kiln's host-CPU GPU emulator ---------------------===//
//
// Runs kernels compiled for the host CPU by `kiln-gpu-emulate-kernels`: a
// grid's blocks one after the other, the threads of a block as fibers on the
// calling OS thread, with bar.sync, shfl.sync, mma.sync and ldmatrix emulated
// by a small scheduler. See include/kiln/Runtime/GPUEmulator.h for the ABI and
// docs/GPUEmulator.md for the design.
//
// Like KilnCudaRuntime, the file is linked into ahead-of-time libraries that
// must need nothing but libc: no C++ library facility (no exceptions, RTTI,
// new/delete or function-local statics with dynamic initialization), only the
// C library and pthreads. Everything but the C ABI has internal linkage.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/GPUEmulator.h"
#include "kiln/Runtime/CudaRuntime.h"

#include "../ErrorSlot.h"

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/// x86-64 switches fibers with a few hand-written instructions; other
/// architectures (or a build with KILN_EMU_USE_UCONTEXT) use ucontext.
#if defined(__x86_64__) && !defined(KILN_EMU_USE_UCONTEXT)
#define KILN_EMU_ASM_SWITCH 1
#else
#define KILN_EMU_ASM_SWITCH 0
#include <ucontext.h>
#endif

namespace {

//===----------------------------------------------------------------------===//
// Fibers
//===----------------------------------------------------------------------===//

constexpr int kWarpSize = 32;
constexpr int kMaxThreadsPerBlock = 1024;
/// The most dynamic shared memory a block may use on sm_90 (227 KiB).
constexpr int32_t kMaxDynamicSharedBytes = 227 * 1024;
/// The default stack of a fiber; KILN_EMU_STACK_KIB overrides it.
constexpr size_t kDefaultStackBytes = 512 * 1024;

/// Stopped: the thread hit an error that stopped the launch; it is never
/// resumed.
enum class FiberState : uint8_t { Ready, AtBarrier, AtWarpOp, Done, Stopped };
enum class WarpOp : uint8_t { Shfl, Mma, LdMatrix };

/// One emulated thread: its fiber (stack and saved context) and what it waits
/// at, with the operands and results of a warp collective.
struct Fiber {
#if KILN_EMU_ASM_SWITCH
  void *sp;
#else
  ucontext_t context;
#endif
  /// The usable stack (above its guard region) and its size.
  char *stack;
  size_t stackBytes;
  FiberState state;
  WarpOp op;
  int32_t linearId;
  int32_t tid[3];
  /// The return address of the emulator call the thread waits in.
  void *site;
  // shfl.sync operands and result.
  int32_t mode, memberMask, value, laneOrOffset, clampAndMask, result;
  bool valid;
  // mma.sync operands and result.
  int32_t kind;
  uint32_t a[4], b[2];
  float c[4], d[4];
  // ldmatrix operands and result.
  int32_t numMatrices;
  bool transpose;
  const char *rowAddress;
  uint32_t loaded[4];
};

/// The process's fibers, their stacks mapped at first use and reused by every
/// later block and launch.
Fiber fibers[kMaxThreadsPerBlock];

/// The launch in progress. Blocks share the kernels' workgroup globals, so a
/// process runs one launch at a time (launchMutex) and one block at a time.
struct Launch {
  void (*entry)(void **);
  void **params;
  int32_t grid[3], block[3], ctaid[3];
  int32_t numThreads;
  bool strictBarriers;
  /// An error stopped the launch.
  bool aborted;
  Fiber *current;
#if KILN_EMU_ASM_SWITCH
  void *schedulerSp;
  uint32_t mxcsr;
  uint16_t fpuControl;
#else
  ucontext_t schedulerContext;
#endif
};

Launch launch;
/// Whether the calling OS thread is inside __kiln_emu_launch (a fiber or the
/// scheduler).
thread_local bool inLaunch = false;
pthread_mutex_t launchMutex = PTHREAD_MUTEX_INITIALIZER;

/// The dynamic shared memory buffer, grown to the largest request.
void *dynamicShared;
size_t dynamicSharedCapacity;
int32_t dynamicSharedBytes;

/// Fiber switches since the process started (both directions count).
uint64_t switchCount;

[[noreturn]] void fiberMain(Fiber *fiber);

#if KILN_EMU_ASM_SWITCH
// The context switch: saves the callee-saved registers, MXCSR and the x87
// control word on the current stack, stores the stack pointer to *saveSp,
// and resumes the context whose stack pointer is newSp. A fresh fiber's stack
// is prepared so that the `ret` lands in fiberStart with the Fiber in r12 and
// fiberMain in r13. About 20 instructions and no system call, unlike
// swapcontext (which saves the signal mask with a system call).
extern "C" void kilnEmuSwitch(void **saveSp, void *newSp);
extern "C" void kilnEmuFiberStart();
asm(R"(
  .text
  .p2align 4
  .hidden kilnEmuSwitch
  .globl kilnEmuSwitch
  .type kilnEmuSwitch,@function
kilnEmuSwitch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size kilnEmuSwitch, .-kilnEmuSwitch

  .p2align 4
  .hidden kilnEmuFiberStart
  .globl kilnEmuFiberStart
  .type kilnEmuFiberStart,@function
kilnEmuFiberStart:
  movq %r12, %rdi
  callq *%r13
  ud2
  .size kilnEmuFiberStart, .-kilnEmuFiberStart
)");

/// Points the fiber's saved context at fiberMain(fiber) on a fresh stack.
void resetFiber(Fiber *fiber) {
  // The stack top, 16-byte aligned; after the switch pops its 8 words the
  // stack pointer is top - 16, aligned for the call in kilnEmuFiberStart.
  auto top = reinterpret_cast<uintptr_t>(fiber->stack + fiber->stackBytes) &
             ~uintptr_t(15);
  auto *words = reinterpret_cast<uint64_t *>(top - 80);
  words[0] = uint64_t(launch.mxcsr) | (uint64_t(launch.fpuControl) << 32);
  words[1] = 0;                                      // r15
  words[2] = 0;                                      // r14
  words[3] = reinterpret_cast<uint64_t>(&fiberMain); // r13
  words[4] = reinterpret_cast<uint64_t>(fiber);      // r12
  words[5] = 0;                                      // rbx
  words[6] = 0;                                      // rbp
  words[7] = reinterpret_cast<uint64_t>(&kilnEmuFiberStart);
  words[8] = 0; // A null return address ends backtraces here.
  words[9] = 0;
  fiber->sp = words;
}

/// Resumes `fiber` from the scheduler until it waits or returns.
void resumeFiber(Fiber *fiber) {
  ++switchCount;
  kilnEmuSwitch(&launch.schedulerSp, fiber->sp);
}

/// Suspends the running fiber and returns to the scheduler.
void yieldToScheduler(Fiber *fiber) {
  ++switchCount;
  kilnEmuSwitch(&fiber->sp, launch.schedulerSp);
}

/// The floating-point environment fibers start with: the launching thread's.
void captureFloatingPointControl() {
  asm volatile("stmxcsr %0" : "=m"(launch.mxcsr));
  asm volatile("fnstcw %0" : "=m"(launch.fpuControl));
}
#else
// Other architectures: ucontext, slower (a system call per switch) but
// portable.
Fiber *startingFiber;

void fiberTrampoline() { fiberMain(startingFiber); }

void resetFiber(Fiber *fiber) {
  getcontext(&fiber->context);
  fiber->context.uc_stack.ss_sp = fiber->stack;
  fiber->context.uc_stack.ss_size = fiber->stackBytes;
  fiber->context.uc_link = nullptr;
  makecontext(&fiber->context, fiberTrampoline, 0);
}

void resumeFiber(Fiber *fiber) {
  ++switchCount;
  startingFiber = fiber;
  swapcontext(&launch.schedulerContext, &fiber->context);
}

void yieldToScheduler(Fiber *fiber) {
  ++switchCount;
  swapcontext(&fiber->context, &launch.schedulerContext);
}

void captureFloatingPointControl() {}
#endif

/// Runs the kernel in a fiber; never returns (a finished fiber is not resumed
/// until resetFiber gives it a fresh start).
void fiberMain(Fiber *fiber) {
  launch.entry(launch.params);
  fiber->state = FiberState::Done;
  yieldToScheduler(fiber);
  __builtin_trap();
}

/// The size of every fiber's stack: KILN_EMU_STACK_KIB KiB if set, else
/// kDefaultStackBytes, rounded up to pages.
size_t getStackBytes() {
  size_t bytes = kDefaultStackBytes;
  if (const char *env = getenv("KILN_EMU_STACK_KIB")) {
    long kib = atol(env);
    if (kib >= 64)
      bytes = size_t(kib) * 1024;
  }
  size_t page = size_t(sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}

/// The inaccessible region below each fiber stack. Larger than a page: code
/// compiled from MLIR does not probe the stack, so a frame that allocates a
/// large array can step over a single guard page.
constexpr size_t kGuardBytes = 64 * 1024;

/// Maps the stacks of fibers [0, count) that have none yet (or one of another
/// size): each with a PROT_NONE guard region below it, so that an overflow
/// faults instead of writing into the next stack.
bool ensureStacks(int32_t count) {
  size_t stackBytes = getStackBytes();
  for (int32_t i = 0; i < count; ++i) {
    Fiber &fiber = fibers[i];
    if (fiber.stack && fiber.stackBytes == stackBytes)
      continue;
    if (fiber.stack)
      munmap(fiber.stack - kGuardBytes, fiber.stackBytes + kGuardBytes);
    fiber.stack = nullptr;
    void *mapping =
        mmap(nullptr, stackBytes + kGuardBytes, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mapping == MAP_FAILED) {
      reportError("GPU emulator: cannot map a %zu-byte fiber stack for "
                  "thread %d",
                  stackBytes, int(i));
      return false;
    }
    if (mprotect(mapping, kGuardBytes, PROT_NONE) != 0) {
      munmap(mapping, stackBytes + kGuardBytes);
      reportError("GPU emulator: cannot protect the guard region of a fiber "
                  "stack");
      return false;
    }
    fiber.stack = static_cast<char *>(mapping) + kGuardBytes;
    fiber.stackBytes = stackBytes;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Crashes inside kernels
//===----------------------------------------------------------------------===//

/// While a launch runs, a SIGSEGV handler (on its own stack, since the fault
/// may be a fiber stack overflow) names the emulated thread and block that
/// faulted and whether it overflowed its stack, then restores the previous
/// handler and returns, so that the fault repeats and takes its usual course
/// (the host's own handler, or a core dump).
struct sigaction previousSegvAction;
stack_t previousSignalStack;
char signalStack[64 * 1024];

/// Appends `text` to the buffer at *end (async-signal-safe).
void appendText(char *&end, const char *limit, const char *text) {
  while (*text && end < limit)
    *end++ = *text++;
}

/// Appends `value` in decimal (base 10) or hexadecimal (base 16).
void appendNumber(char *&end, const char *limit, uint64_t value,
                  unsigned base) {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = "0123456789abcdef"[value % base];
    value /= base;
  } while (value);
  while (n && end < limit)
    *end++ = digits[--n];
}

void appendTriple(char *&end, const char *limit, const int32_t xyz[3]) {
  appendText(end, limit, "(");
  for (int i = 0; i < 3; ++i) {
    if (i)
      appendText(end, limit, ",");
    appendNumber(end, limit, uint64_t(xyz[i]), 10);
  }
  appendText(end, limit, ")");
}

void onSegmentationFault(int, siginfo_t *info, void *) {
  char message[512], *end = message;
  const char *limit = message + sizeof(message) - 1;
  auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  const Fiber *fiber = launch.current;
  appendText(end, limit, "GPU emulator: segmentation fault in ");
  if (fiber) {
    appendText(end, limit, "thread ");
    appendNumber(end, limit, uint64_t(fiber->linearId), 10);
    appendText(end, limit, " ");
    appendTriple(end, limit, fiber->tid);
    appendText(end, limit, " of block ");
    appendTriple(end, limit, launch.ctaid);
    auto stackStart = reinterpret_cast<uintptr_t>(fiber->stack);
    if (address < stackStart && address >= stackStart - kGuardBytes) {
      appendText(end, limit, ": fiber stack overflow (the stacks have ");
      appendNumber(end, limit, fiber->stackBytes / 1024, 10);
      appendText(end, limit, " KiB; set KILN_EMU_STACK_KIB)");
    } else {
      appendText(end, limit, ": a bad access at 0x");
      appendNumber(end, limit, uint64_t(address), 16);
    }
  } else {
    appendText(end, limit, "the emulator's scheduler, at 0x");
    appendNumber(end, limit, uint64_t(address), 16);
  }
  *end++ = '\n';
  ssize_t written = write(2, message, size_t(end - message));
  (void)written;
  sigaction(SIGSEGV, &previousSegvAction, nullptr);
}

/// Installs the handler and its stack for the launch.
void installCrashHandler() {
  stack_t stack;
  stack.ss_sp = signalStack;
  stack.ss_size = sizeof(signalStack);
  stack.ss_flags = 0;
  sigaltstack(&stack, &previousSignalStack);
  struct sigaction action;
  memset(&action, 0, sizeof(action));
  action.sa_sigaction = onSegmentationFault;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, &previousSegvAction);
}

void removeCrashHandler() {
  sigaction(SIGSEGV, &previousSegvAction, nullptr);
  sigaltstack(&previousSignalStack, nullptr);
}

//===----------------------------------------------------------------------===//
// Warp collectives
//===----------------------------------------------------------------------===//

const char *getShflModeName(int32_t mode) {
  switch (mode) {
  case 0:
    return "shfl.sync.idx";
  case 1:
    return "shfl.sync.up";
  case 2:
    return "shfl.sync.down";
  case 3:
    return "shfl.sync.bfly";
  default:
    return "shfl.sync.<invalid mode>";
  }
}

const char *getLdMatrixName(int32_t numMatrices, bool transpose) {
  switch (numMatrices) {
  case 1:
    return transpose ? "ldmatrix.m8n8.x1.trans.b16" : "ldmatrix.m8n8.x1.b16";
  case 2:
    return transpose ? "ldmatrix.m8n8.x2.trans.b16" : "ldmatrix.m8n8.x2.b16";
  case 4:
    return transpose ? "ldmatrix.m8n8.x4.trans.b16" : "ldmatrix.m8n8.x4.b16";
  default:
    return "ldmatrix.m8n8.<invalid count>.b16";
  }
}

/// What `fiber` waits at, for diagnostics.
const char *describeWait(const Fiber &fiber) {
  switch (fiber.state) {
  case FiberState::AtBarrier:
    return "bar.sync";
  case FiberState::AtWarpOp:
    if (fiber.op == WarpOp::Mma)
      return fiber.kind == 0 ? "mma.sync.m16n8k16.f16"
                             : "mma.sync.m16n8k16.bf16";
    if (fiber.op == WarpOp::LdMatrix)
      return getLdMatrixName(fiber.numMatrices, fiber.transpose);
    return getShflModeName(fiber.mode);
  case FiberState::Ready:
    return "nothing (ready)";
  case FiberState::Done:
    return "nothing (returned)";
  case FiberState::Stopped:
    return "nothing (stopped by an error)";
  }
  return "?";
}

/// The thread's position, `thread 37 (5,1,0)`.
void formatThread(const Fiber &fiber, char *buffer, size_t size) {
  snprintf(buffer, size, "thread %d (%d,%d,%d)", int(fiber.linearId),
           int(fiber.tid[0]), int(fiber.tid[1]), int(fiber.tid[2]));
}

/// Reports `GPU emulator: <what> in block (x,y,z)<details>` and stops the
/// launch.
__attribute__((format(printf, 2, 3))) void
abortLaunch(const char *what, const char *detailsFormat, ...) {
  char details[1536];
  va_list args;
  va_start(args, detailsFormat);
  vsnprintf(details, sizeof(details), detailsFormat, args);
  va_end(args);
  reportError("GPU emulator: %s in block (%d,%d,%d)%s", what,
              int(launch.ctaid[0]), int(launch.ctaid[1]), int(launch.ctaid[2]),
              details);
  launch.aborted = true;
}

//===----------------------------------------------------------------------===//
// The race check of workgroup memory
//===----------------------------------------------------------------------===//

/// The most static workgroup buffers a launch may declare.
constexpr int32_t kMaxWorkgroupBuffers = 64;
constexpr uint16_t kNoThread = 0xffff;

/// The shadow of one byte of workgroup memory: the thread that last wrote it
/// and in which epoch, and up to two distinct threads that read it in
/// readEpoch (enough to find a reader other than any given writer). An entry
/// of an older epoch is empty, so nothing is cleared between epochs, blocks
/// or launches.
struct ShadowByte {
  uint32_t writeEpoch, readEpoch;
  uint16_t writer;
  uint16_t readers[2];
};

/// A workgroup buffer of the launch and its shadow.
struct WorkgroupRange {
  const char *begin, *end;
  const char *name;
  ShadowByte *shadow;
};

/// The race check's state. Epochs count process-wide: a block starts a new
/// one, and so does every release of its barrier.
struct RaceCheck {
  bool enabled;
  WorkgroupRange ranges[kMaxWorkgroupBuffers + 1];
  int32_t numRanges;
  /// One ShadowByte per byte of every range, grown to the largest launch.
  ShadowByte *shadow;
  size_t shadowCapacity;
  uint32_t epoch;
  /// The epoch the running block started in.
  uint32_t blockEpoch;
};

RaceCheck race;
/// __kiln_emu_set_racecheck's mode: -1 reads KILN_EMU_RACECHECK at launch.
int32_t racecheckMode = -1;
/// The static workgroup buffers declared for the next launch of this thread.
thread_local const KilnEmuWorkgroupBuffer *pendingBuffers;
thread_local int32_t numPendingBuffers;

/// Starts an epoch. At the 2^32nd the shadow is cleared (it would alias).
void startEpoch() {
  if (++race.epoch == 0) {
    memset(race.shadow, 0, race.shadowCapacity * sizeof(ShadowByte));
    race.epoch = 1;
    race.blockEpoch = 1;
  }
}

/// Sets up the race check of a launch: on or off, and the workgroup ranges
/// (the dynamic shared memory and the declared buffers) with their shadow.
bool setUpRaceCheck(const KilnEmuWorkgroupBuffer *buffers, int32_t count) {
  race.numRanges = 0;
  if (!race.enabled)
    return true;
  if (count > kMaxWorkgroupBuffers) {
    reportError("GPU emulator: %d workgroup buffers declared for the race "
                "check (at most %d)",
                int(count), int(kMaxWorkgroupBuffers));
    return false;
  }
  size_t total = 0;
  if (dynamicSharedBytes > 0) {
    auto *begin = static_cast<const char *>(dynamicShared);
    race.ranges[race.numRanges++] = {begin, begin + dynamicSharedBytes,
                                     "the dynamic shared memory", nullptr};
    total += size_t(dynamicSharedBytes);
  }
  for (int32_t i = 0; i < count; ++i) {
    if (buffers[i].bytes <= 0 || !buffers[i].address)
      continue;
    auto *begin = static_cast<const char *>(buffers[i].address);
    race.ranges[race.numRanges++] = {begin, begin + buffers[i].bytes,
                                     buffers[i].name ? buffers[i].name : "?",
                                     nullptr};
    total += size_t(buffers[i].bytes);
  }
  if (total > race.shadowCapacity) {
    free(race.shadow);
    race.shadow = static_cast<ShadowByte *>(calloc(total, sizeof(ShadowByte)));
    race.shadowCapacity = race.shadow ? total : 0;
    if (!race.shadow) {
      reportError("GPU emulator: cannot allocate the race check's shadow of "
                  "%zu bytes of workgroup memory",
                  total);
      return false;
    }
  }
  size_t offset = 0;
  for (int32_t i = 0; i < race.numRanges; ++i) {
    race.ranges[i].shadow = race.shadow + offset;
    offset += size_t(race.ranges[i].end - race.ranges[i].begin);
  }
  return true;
}

/// Records that `fiber` reads or writes `bytes` bytes at `address`
/// (`what`: how, for the report; `site`: the call). Reports the first race
/// or an access outside every workgroup range, stops the launch and returns
/// false.
bool recordSharedAccess(const Fiber &fiber, const char *address, int64_t bytes,
                        bool isWrite, const char *what, void *site) {
  const WorkgroupRange *range = nullptr;
  for (int32_t i = 0; i < race.numRanges && !range; ++i)
    if (address >= race.ranges[i].begin &&
        address + bytes <= race.ranges[i].end)
      range = &race.ranges[i];
  char who[64];
  if (!range) {
    formatThread(fiber, who, sizeof(who));
    abortLaunch("workgroup memory access out of bounds",
                ": %s %s %ld bytes at %p, outside every workgroup buffer "
                "(called from %p)",
                who, what, long(bytes), static_cast<const void *>(address),
                site);
    return false;
  }
  auto thread = uint16_t(fiber.linearId);
  uint32_t epoch = race.epoch;
  ShadowByte *shadow = range->shadow + (address - range->begin);
  for (int64_t i = 0; i < bytes; ++i) {
    ShadowByte &byte = shadow[i];
    uint16_t other = kNoThread;
    const char *kind = nullptr, *otherDid = nullptr;
    if (byte.writeEpoch == epoch && byte.writer != thread) {
      other = byte.writer;
      kind = isWrite ? "write after write" : "read after write";
      otherDid = "wrote";
    } else if (isWrite && byte.readEpoch == epoch) {
      other = byte.readers[0] != thread ? byte.readers[0] : byte.readers[1];
      kind = "write after read";
      otherDid = "read";
    }
    if (other != kNoThread) {
      char otherWho[64];
      formatThread(fiber, who, sizeof(who));
      formatThread(fibers[other], otherWho, sizeof(otherWho));
      uint32_t blockEpoch = epoch - race.blockEpoch;
      char title[64];
      snprintf(title, sizeof(title), "workgroup memory race (%s)", kind);
      abortLaunch(title,
                  ", epoch %u (after %u barrier%s): %s %s byte %ld of %s (at "
                  "%p), which %s %s in the same epoch (called from %p)",
                  unsigned(blockEpoch), unsigned(blockEpoch),
                  blockEpoch == 1 ? "" : "s", who, what,
                  long(address + i - range->begin), range->name,
                  static_cast<const void *>(address + i), otherWho, otherDid,
                  site);
      return false;
    }
    if (isWrite) {
      byte.writeEpoch = epoch;
      byte.writer = thread;
    } else if (byte.readEpoch != epoch) {
      byte.readEpoch = epoch;
      byte.readers[0] = thread;
      byte.readers[1] = kNoThread;
    } else if (byte.readers[0] != thread && byte.readers[1] == kNoThread) {
      byte.readers[1] = thread;
    }
  }
  return true;
}

/// The value of a 16-bit IEEE half as an f32, by bit manipulation (exact for
/// every input: halves are a subset of floats; NaN payloads keep their top
/// bits, so a NaN stays a NaN, quiet or signalling alike).
float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1f;
  uint32_t mantissa = h & 0x3ff;
  uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {
    bits = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {
    // Subnormal: mantissa * 2^-24; normalize the leading one to bit 10.
    int32_t e = 127 - 15 + 1;
    while (!(mantissa & 0x400)) {
      mantissa <<= 1;
      --e;
    }
    bits = sign | (uint32_t(e) << 23) | ((mantissa & 0x3ff) << 13);
  }
  float value;
  memcpy(&value, &bits, sizeof(value));
  return value;
}

/// The value of a bfloat16 as an f32: its bits are the f32's top half.
float bfloat16ToFloat(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float value;
  memcpy(&value, &bits, sizeof(value));
  return value;
}

/// Releases the shfl.sync that every live lane of `lanes` waits at.
void releaseShfl(Fiber *lanes, int32_t count) {
  int32_t values[kWarpSize];
  uint32_t live = 0;
  for (int32_t l = 0; l < count; ++l) {
    if (lanes[l].state == FiberState::Done)
      continue;
    live |= 1u << l;
    values[l] = lanes[l].value;
  }
  for (int32_t l = 0; l < count; ++l) {
    Fiber &lane = lanes[l];
    if (lane.state == FiberState::Done)
      continue;
    // The PTX ISA's pseudo-code of shfl.sync.
    int32_t bval = lane.laneOrOffset & 31;
    int32_t cval = lane.clampAndMask & 31;
    int32_t segmask = (lane.clampAndMask >> 8) & 31;
    int32_t maxLane = (l & segmask) | (cval & ~segmask);
    int32_t minLane = l & segmask;
    int32_t j = l;
    bool pval = false;
    switch (lane.mode) {
    case 0:
      j = minLane | (bval & ~segmask);
      pval = j <= maxLane;
      break;
    case 1:
      j = l - bval;
      pval = j >= maxLane;
      break;
    case 2:
      j = l + bval;
      pval = j <= maxLane;
      break;
    case 3:
      j = l ^ bval;
      pval = j <= maxLane;
      break;
    }
    if (!pval)
      j = l;
    // A source lane that has exited (or lies past a partial last warp) has
    // no value: PTX leaves it undefined, the emulator reads 0.
    lane.result = (live >> j) & 1 ? values[j] : 0;
    lane.valid = pval;
    lane.state = FiberState::Ready;
  }
}

/// Releases the mma.sync that all 32 lanes of `lanes` wait at.
void releaseMma(Fiber *lanes) {
  bool isBF16 = lanes[0].kind == 1;
  auto decode = [&](uint32_t reg, int half) {
    auto bits = uint16_t(half ? reg >> 16 : reg & 0xffff);
    return isBF16 ? bfloat16ToFloat(bits) : halfToFloat(bits);
  };
  float a[16][16], b[16][8], c[16][8];
  for (int32_t l = 0; l < kWarpSize; ++l) {
    const Fiber &lane = lanes[l];
    int32_t g = l >> 2, t = l & 3;
    for (int r = 0; r < 4; ++r)
      for (int h = 0; h < 2; ++h)
        a[g + 8 * (r & 1)][2 * t + h + 8 * (r >> 1)] = decode(lane.a[r], h);
    for (int r = 0; r < 2; ++r)
      for (int h = 0; h < 2; ++h)
        b[2 * t + h + 8 * r][g] = decode(lane.b[r], h);
    for (int i = 0; i < 4; ++i)
      c[g + 8 * (i >> 1)][2 * t + (i & 1)] = lane.c[i];
  }
  // D = A B + C: products of two halves are exact in f32; they are added to
  // C in f32 in ascending k (the hardware's order and internal precision are
  // unspecified; this one is deterministic).
  float d[16][8];
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 8; ++n) {
      float sum = c[m][n];
      for (int k = 0; k < 16; ++k) {
        float product = a[m][k] * b[k][n];
        sum += product;
      }
      d[m][n] = sum;
    }
  for (int32_t l = 0; l < kWarpSize; ++l) {
    Fiber &lane = lanes[l];
    int32_t g = l >> 2, t = l & 3;
    for (int i = 0; i < 4; ++i)
      lane.d[i] = d[g + 8 * (i >> 1)][2 * t + (i & 1)];
    lane.state = FiberState::Ready;
  }
}

/// Releases the ldmatrix that all 32 lanes of `lanes` wait at (the row
/// addresses checked): lane 8i + r gives row r of matrix i; lane l receives
/// (g, 2t), (g, 2t + 1) of each matrix (g = l / 4, t = l % 4), or (2t, g),
/// (2t + 1, g) transposed, the first in the low half.
void releaseLdMatrix(Fiber *lanes) {
  int32_t numMatrices = lanes[0].numMatrices;
  bool transpose = lanes[0].transpose;
  uint16_t rows[4][8][8];
  for (int32_t i = 0; i < numMatrices; ++i)
    for (int32_t r = 0; r < 8; ++r)
      memcpy(rows[i][r], lanes[8 * i + r].rowAddress, sizeof(rows[i][r]));
  for (int32_t l = 0; l < kWarpSize; ++l) {
    Fiber &lane = lanes[l];
    int32_t g = l >> 2, t = l & 3;
    for (int32_t i = 0; i < numMatrices; ++i) {
      uint16_t lo = transpose ? rows[i][2 * t][g] : rows[i][g][2 * t];
      uint16_t hi = transpose ? rows[i][2 * t + 1][g] : rows[i][g][2 * t + 1];
      lane.loaded[i] = uint32_t(lo) | uint32_t(hi) << 16;
    }
    lane.state = FiberState::Ready;
  }
}

/// Releases the warp collective of warp `warp` if every live lane waits at
/// one; reports divergent collectives. Returns true if it released it.
bool tryReleaseWarp(int32_t warp) {
  int32_t first = warp * kWarpSize;
  int32_t count = launch.numThreads - first;
  if (count > kWarpSize)
    count = kWarpSize;
  Fiber *lanes = fibers + first;
  Fiber *leader = nullptr;
  int32_t numLive = 0;
  for (int32_t l = 0; l < count; ++l) {
    if (lanes[l].state == FiberState::Done)
      continue;
    if (lanes[l].state != FiberState::AtWarpOp)
      return false;
    ++numLive;
    if (!leader)
      leader = &lanes[l];
  }
  if (!leader)
    return false;
  char who[64], other[64];
  for (int32_t l = 0; l < count; ++l) {
    const Fiber &lane = lanes[l];
    if (lane.state != FiberState::Done && lane.op == WarpOp::Shfl &&
        !((uint32_t(lane.memberMask) >> l) & 1)) {
      formatThread(lane, who, sizeof(who));
      abortLaunch("shfl.sync outside its member mask",
                  ": %s by %s (lane %d), which is not in the member mask "
                  "0x%08x",
                  describeWait(lane), who, int(l), unsigned(lane.memberMask));
      return false;
    }
  }
  for (int32_t l = 0; l < count; ++l) {
    const Fiber &lane = lanes[l];
    if (lane.state == FiberState::Done)
      continue;
    bool same = lane.op == leader->op;
    if (same && lane.op == WarpOp::Shfl)
      same = lane.mode == leader->mode && lane.memberMask == leader->memberMask;
    else if (same && lane.op == WarpOp::Mma)
      same = lane.kind == leader->kind;
    else if (same)
      same = lane.numMatrices == leader->numMatrices &&
             lane.transpose == leader->transpose;
    if (!same) {
      formatThread(*leader, who, sizeof(who));
      formatThread(lane, other, sizeof(other));
      abortLaunch("divergent warp collectives",
                  ", warp %d: %s (lane %d) is at %s (member mask 0x%08x, "
                  "called from %p), "
                  "%s (lane %d) at %s (member mask 0x%08x, called from %p)",
                  int(warp), who, int(leader->linearId - first),
                  describeWait(*leader), unsigned(leader->memberMask),
                  leader->site, other, int(l), describeWait(lane),
                  unsigned(lane.memberMask), lane.site);
      return false;
    }
  }
  if (leader->op == WarpOp::Shfl) {
    if (leader->mode < 0 || leader->mode > 3) {
      formatThread(*leader, who, sizeof(who));
      abortLaunch("shfl.sync with an invalid mode", ": mode %d by %s",
                  int(leader->mode), who);
      return false;
    }
    releaseShfl(lanes, count);
    return true;
  }
  if (leader->op == WarpOp::LdMatrix) {
    int32_t numMatrices = leader->numMatrices;
    if (numMatrices != 1 && numMatrices != 2 && numMatrices != 4) {
      formatThread(*leader, who, sizeof(who));
      abortLaunch("ldmatrix with an invalid count",
                  ": %d matrices by %s (1, 2 or 4)", int(numMatrices), who);
      return false;
    }
    if (numLive != kWarpSize) {
      formatThread(*leader, who, sizeof(who));
      abortLaunch("ldmatrix.sync.aligned in a partial warp",
                  ", warp %d (first live lane %s): %d live lanes, it needs "
                  "all 32",
                  int(warp), who, int(numLive));
      return false;
    }
    // Only the lanes that give a row address: 8 per matrix.
    for (int32_t l = 0; l < 8 * numMatrices; ++l) {
      const Fiber &lane = lanes[l];
      if (reinterpret_cast<uintptr_t>(lane.rowAddress) % 16 == 0 &&
          lane.rowAddress)
        continue;
      formatThread(lane, who, sizeof(who));
      abortLaunch("misaligned ldmatrix row address",
                  ": %s by %s (lane %d) gives %p, which is not 16-byte "
                  "aligned",
                  describeWait(lane), who, int(l),
                  static_cast<const void *>(lane.rowAddress));
      return false;
    }
    // The rows are read on behalf of the lanes that gave their addresses.
    if (race.enabled)
      for (int32_t l = 0; l < 8 * numMatrices; ++l)
        if (!recordSharedAccess(lanes[l], lanes[l].rowAddress, 16,
                                /*isWrite=*/false, "reads (ldmatrix row)",
                                lanes[l].site))
          return false;
    releaseLdMatrix(lanes);
    return true;
  }
  if (leader->kind != 0 && leader->kind != 1) {
    formatThread(*leader, who, sizeof(who));
    abortLaunch("mma.sync with an invalid kind", ": kind %d by %s",
                int(leader->kind), who);
    return false;
  }
  if (numLive != kWarpSize) {
    formatThread(*leader, who, sizeof(who));
    abortLaunch("mma.sync.aligned in a partial warp",
                ", warp %d (first live lane %s): %d live lanes, it needs all "
                "32",
                int(warp), who, int(numLive));
    return false;
  }
  releaseMma(lanes);
  return true;
}

/// Releases the block barrier if every live thread waits at one (at the same
/// call site when barriers are strict). Returns true if it released it.
bool tryReleaseBarrier() {
  const Fiber *first = nullptr;
  for (int32_t t = 0; t < launch.numThreads; ++t) {
    const Fiber &fiber = fibers[t];
    if (fiber.state == FiberState::Done)
      continue;
    if (fiber.state != FiberState::AtBarrier)
      return false;
    if (!first)
      first = &fiber;
    else if (launch.strictBarriers && fiber.site != first->site)
      return false;
  }
  if (!first)
    return false;
  for (int32_t t = 0; t < launch.numThreads; ++t)
    if (fibers[t].state == FiberState::AtBarrier)
      fibers[t].state = FiberState::Ready;
  if (race.enabled)
    startEpoch();
  return true;
}

/// Reports that every live thread waits and none can go on: one thread of
/// each distinct wait (what, call site), in thread order.
void reportDeadlock() {
  const Fiber *shown[6];
  int numShown = 0, numOmitted = 0;
  for (int32_t t = 0; t < launch.numThreads; ++t) {
    const Fiber &fiber = fibers[t];
    if (fiber.state == FiberState::Done)
      continue;
    bool seen = false;
    for (int i = 0; i < numShown && !seen; ++i)
      seen = shown[i]->site == fiber.site &&
             strcmp(describeWait(*shown[i]), describeWait(fiber)) == 0;
    if (seen)
      continue;
    if (numShown < 6)
      shown[numShown++] = &fiber;
    else
      ++numOmitted;
  }
  char details[1400];
  size_t used = 0;
  for (int i = 0; i < numShown && used < sizeof(details); ++i) {
    char who[64];
    formatThread(*shown[i], who, sizeof(who));
    used += size_t(snprintf(details + used, sizeof(details) - used,
                            "%s%s %s %s (called from %p)", i ? ", " : ": ", who,
                            i ? "at" : "waits at", describeWait(*shown[i]),
                            shown[i]->site));
  }
  if (numOmitted && used < sizeof(details))
    snprintf(details + used, sizeof(details) - used, ", and %d other waits",
             numOmitted);
  abortLaunch("barrier deadlock", "%s", details);
}

/// Runs the current block (launch.ctaid) to completion or to an error.
void runBlock() {
  int32_t n = launch.numThreads;
  for (int32_t t = 0; t < n; ++t) {
    Fiber &fiber = fibers[t];
    fiber.state = FiberState::Ready;
    fiber.linearId = t;
    fiber.tid[0] = t % launch.block[0];
    fiber.tid[1] = (t / launch.block[0]) % launch.block[1];
    fiber.tid[2] = t / (launch.block[0] * launch.block[1]);
    fiber.site = nullptr;
    resetFiber(&fiber);
  }
  if (dynamicSharedBytes > 0)
    memset(dynamicShared, 0xff, size_t(dynamicSharedBytes));
  if (race.enabled) {
    startEpoch();
    race.blockEpoch = race.epoch;
  }
  int32_t numWarps = (n + kWarpSize - 1) / kWarpSize;
  for (;;) {
    // Run every ready thread until it waits or returns.
    for (int32_t t = 0; t < n; ++t) {
      Fiber &fiber = fibers[t];
      if (fiber.state != FiberState::Ready)
        continue;
      launch.current = &fiber;
      resumeFiber(&fiber);
      launch.current = nullptr;
      if (launch.aborted)
        return;
    }
    // Nobody is ready: release what can be released.
    bool anyLive = false, released = false;
    for (int32_t t = 0; t < n && !anyLive; ++t)
      anyLive = fibers[t].state != FiberState::Done;
    if (!anyLive)
      return;
    for (int32_t w = 0; w < numWarps; ++w) {
      released |= tryReleaseWarp(w);
      if (launch.aborted)
        return;
    }
    if (!released)
      released = tryReleaseBarrier();
    if (!released) {
      reportDeadlock();
      return;
    }
  }
}

/// Abandons the running fiber after an error stopped the launch: it is never
/// resumed (the next block or launch resets it).
[[noreturn]] void stopFiber(Fiber *fiber, void *site) {
  fiber->site = site;
  fiber->state = FiberState::Stopped;
  yieldToScheduler(fiber);
  __builtin_trap();
}

/// The running fiber, or null (with an error recorded) when `what` is called
/// outside a kernel.
Fiber *getCurrentFiber(const char *what) {
  if (inLaunch && launch.current)
    return launch.current;
  reportError("GPU emulator: %s called outside a kernel launch", what);
  return nullptr;
}

} // namespace

//===----------------------------------------------------------------------===//
// The kernel ABI
//===----------------------------------------------------------------------===//

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
  if (hasError)
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
    if (racecheckMode >= 0) {
      race.enabled = racecheckMode == 1;
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
  case 0:
  case 1:
  case 2:
    return fiber->tid[which];
  case 3:
  case 4:
  case 5:
    return launch.block[which - 3];
  case 6:
  case 7:
  case 8:
    return launch.ctaid[which - 6];
  case 9:
  case 10:
  case 11:
    return launch.grid[which - 9];
  case 12:
    return fiber->linearId % kWarpSize;
  case 13:
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
  const char *access = kind == 0   ? "a load from"
                       : kind == 1 ? "a store to"
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
  racecheckMode = mode < 0 ? -1 : mode != 0;
}

extern "C" void *__kiln_emu_dynamic_shared(void) {
  if (!getCurrentFiber("__kiln_emu_dynamic_shared"))
    return nullptr;
  return dynamicSharedBytes > 0 ? dynamicShared : nullptr;
}

/// Fiber switches since the process started, for benchmarks (not part of
/// the compiler's ABI).
extern "C" uint64_t __kiln_emu_switch_count(void) { return switchCount; }

//===----------------------------------------------------------------------===//
// Kiln's error slot
//===----------------------------------------------------------------------===//

extern "C" const char *kilnCudaGetLastError(void) { return getLastError(); }

extern "C" void kilnCudaClearLastError(void) { clearLastError(); }

extern "C" void kilnCudaReportError(const char *message) {
  reportError("%s", message);
}

/// Launches run to completion before __kiln_emu_launch returns: nothing to
/// wait for.
extern "C" void kilnCudaSynchronize(void) {}

//===----------------------------------------------------------------------===//
// The mgpu* host functions over host memory
//===----------------------------------------------------------------------===//

namespace {
/// What stream and event handles point at: valid, distinct, never freed.
char dummyStream, dummyEvent;
/// Device allocations are 256-byte aligned, like cuMemAlloc's.
constexpr size_t kAllocationAlignment = 256;
} // namespace

extern "C" void *mgpuModuleLoad(void *, size_t) {
  reportError("GPU emulator: mgpuModuleLoad cannot load a GPU binary: "
              "compile the kernels for the emulator "
              "(kiln-gpu-emulate-kernels) instead of gpu-module-to-binary");
  return nullptr;
}

extern "C" void *mgpuModuleLoadJIT(void *, int) {
  reportError("GPU emulator: mgpuModuleLoadJIT cannot load PTX: compile the "
              "kernels for the emulator (kiln-gpu-emulate-kernels) instead "
              "of gpu-module-to-binary");
  return nullptr;
}

extern "C" void mgpuModuleUnload(void *) {}

extern "C" void *mgpuModuleGetFunction(void *, const char *name) {
  reportError("GPU emulator: mgpuModuleGetFunction(\"%s\"): there are no GPU "
              "modules in the emulator",
              name ? name : "");
  return nullptr;
}

extern "C" void mgpuLaunchKernel(void *, intptr_t, intptr_t, intptr_t, intptr_t,
                                 intptr_t, intptr_t, int32_t, void *, void **,
                                 void **, size_t) {
  reportError("GPU emulator: mgpuLaunchKernel cannot launch a GPU kernel: "
              "emulated kernels are launched with __kiln_emu_launch");
}

extern "C" void mgpuLaunchClusterKernel(void *, intptr_t, intptr_t, intptr_t,
                                        intptr_t, intptr_t, intptr_t, intptr_t,
                                        intptr_t, intptr_t, int32_t, void *,
                                        void **, void **) {
  reportError("GPU emulator: mgpuLaunchClusterKernel cannot launch a GPU "
              "kernel: emulated kernels are launched with __kiln_emu_launch");
}

extern "C" void *mgpuStreamCreate(void) { return &dummyStream; }
extern "C" void mgpuStreamDestroy(void *) {}
extern "C" void mgpuStreamSynchronize(void *) {}
extern "C" void mgpuStreamWaitEvent(void *, void *) {}
extern "C" void *mgpuEventCreate(void) { return &dummyEvent; }
extern "C" void mgpuEventDestroy(void *) {}
extern "C" void mgpuEventSynchronize(void *) {}
extern "C" void mgpuEventRecord(void *, void *) {}

extern "C" void *mgpuMemAlloc(uint64_t sizeBytes, void *, bool) {
  // Zero-size buffers (empty tensors) are never dereferenced.
  if (hasError || sizeBytes == 0)
    return nullptr;
  void *pointer = nullptr;
  if (posix_memalign(&pointer, kAllocationAlignment, size_t(sizeBytes)) != 0) {
    reportError("GPU emulator: mgpuMemAlloc(%llu bytes): out of host memory",
                static_cast<unsigned long long>(sizeBytes));
    return nullptr;
  }
  // Device memory starts undefined: all-ones bytes (NaN in every float
  // format) make a kernel that reads what nobody wrote visible.
  memset(pointer, 0xff, size_t(sizeBytes));
  return pointer;
}

extern "C" void mgpuMemFree(void *ptr, void *) { free(ptr); }

extern "C" void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *) {
  if (hasError || sizeBytes == 0)
    return;
  memmove(dst, src, sizeBytes);
}

extern "C" void mgpuMemset16(void *dst, unsigned short value, size_t count,
                             void *) {
  if (hasError)
    return;
  auto *out = static_cast<uint16_t *>(dst);
  for (size_t i = 0; i < count; ++i)
    out[i] = value;
}

extern "C" void mgpuMemset32(void *dst, unsigned int value, size_t count,
                             void *) {
  if (hasError)
    return;
  auto *out = static_cast<uint32_t *>(dst);
  for (size_t i = 0; i < count; ++i)
    out[i] = value;
}

extern "C" void mgpuMemHostRegister(void *, uint64_t) {}
extern "C" void mgpuMemHostRegisterMemRef(int64_t, void *, int64_t) {}
extern "C" void mgpuMemHostUnregister(void *) {}
extern "C" void mgpuMemHostUnregisterMemRef(int64_t, void *, int64_t) {}
extern "C" void mgpuSetDefaultDevice(int32_t) {}
