//===- Internal.h - The GPU emulator's shared internal state ----*- C++ -*-===//
//
// What the files of Kiln's GPU emulator share: the fibers that run a block's
// threads, the launch in progress, the race check's state, and the functions
// each file defines for the others. The runtime runs kernels compiled for the
// host CPU by `kiln-gpu-emulate-kernels`: a grid's blocks one after the
// other, the threads of a block as fibers on the calling OS thread, with
// bar.sync, shfl.sync, mma.sync and ldmatrix emulated by a small scheduler.
// See include/kiln/Runtime/GPUEmulator.h for the ABI,
// include/kiln/Runtime/GPUEmulatorABI.h for its codes and docs/GPUEmulator.md
// for the design.
//
//   Fibers.cpp        the fibers: context switches and their stacks
//   CrashHandler.cpp  the SIGSEGV handler that names the faulting thread
//   Diagnostics.cpp   the reports of errors that stop a launch
//   RaceCheck.cpp     the race check of workgroup memory
//   Collectives.cpp   shfl.sync, mma.sync and ldmatrix across a warp
//   Scheduler.cpp     runs a block: barriers, releases, deadlocks
//   KernelABI.cpp     the __kiln_emu_* functions the kernels call
//   HostFunctions.cpp Kiln's error slot and the mgpu* host functions
//
// Like KilnCudaRuntime, the emulator is linked into ahead-of-time libraries
// that must need nothing but libc: no C++ library facility (no exceptions,
// RTTI, new/delete or function-local statics with dynamic initialization),
// only the C library and pthreads, and no LLVM or MLIR header. Everything but
// the C ABI is hidden: what this header declares (namespace kiln::emu) is
// shared by the emulator's files and never exported from the shared library;
// what one file alone uses has internal linkage there.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_RUNTIME_GPUEMULATOR_INTERNAL_H
#define KILN_LIB_RUNTIME_GPUEMULATOR_INTERNAL_H

#include "kiln/Runtime/GPUEmulator.h"
#include "kiln/Runtime/GPUEmulatorABI.h"

#include <stddef.h>
#include <stdint.h>

/// x86-64 switches fibers with a few hand-written instructions; other
/// architectures (or a build with KILN_EMU_USE_UCONTEXT) use ucontext.
#if defined(__x86_64__) && !defined(KILN_EMU_USE_UCONTEXT)
#define KILN_EMU_ASM_SWITCH 1
#else
#define KILN_EMU_ASM_SWITCH 0
#include <ucontext.h>
#endif

/// Under AddressSanitizer (a KILN_SANITIZE build) every switch tells ASan
/// which stack it moves to, so that it neither loses track of the stack in
/// use nor reports the fibers' frames as overflows.
#if defined(__SANITIZE_ADDRESS__)
#define KILN_EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KILN_EMU_ASAN 1
#endif
#endif
#ifndef KILN_EMU_ASAN
#define KILN_EMU_ASAN 0
#endif
#if KILN_EMU_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

// Hidden in the shared library too (the static one hides every symbol).
#pragma GCC visibility push(hidden)

namespace kiln::emu {

//===----------------------------------------------------------------------===//
// Fibers (Fibers.cpp)
//===----------------------------------------------------------------------===//

constexpr int kWarpSize = 32;
constexpr int kMaxThreadsPerBlock = 1024;

/// The inaccessible region below each fiber stack. Larger than a page: code
/// compiled from MLIR does not probe the stack, so a frame that allocates a
/// large array can step over a single guard page.
constexpr size_t kGuardBytes = 64 * 1024;

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
  /// AddressSanitizer's fake stack of the fiber while it is switched out.
  void *fakeStack;
  FiberState state;
  WarpOp op;
  int32_t linearId;
  int32_t tid[3];
  /// The return address of the emulator call the thread waits in.
  void *site;
  // shfl.sync operands and result (mode: a KilnEmuShflMode).
  int32_t mode, memberMask, value, laneOrOffset, clampAndMask, result;
  bool valid;
  // mma.sync operands and result (kind: a KilnEmuMmaKind).
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
extern Fiber fibers[kMaxThreadsPerBlock];

/// Fiber switches since the process started (both directions count).
extern uint64_t switchCount;

/// Points the fiber's saved context at a fresh start of the kernel
/// (launch.entry(launch.params)) on its stack.
void resetFiber(Fiber *fiber);
/// The floating-point environment fibers start with: the launching thread's.
void captureFloatingPointControl();
/// Maps the stacks of fibers [0, count) that have none yet (or one of another
/// size); false, with an error recorded, when it cannot.
bool ensureStacks(int32_t count);
/// Abandons the running fiber after an error stopped the launch: it is never
/// resumed (the next block or launch resets it).
[[noreturn]] void stopFiber(Fiber *fiber, void *site);

//===----------------------------------------------------------------------===//
// The launch in progress (Scheduler.cpp)
//===----------------------------------------------------------------------===//

/// The launch in progress. Blocks share the kernels' workgroup globals, so a
/// process runs one launch at a time (__kiln_emu_launch's mutex) and one
/// block at a time.
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
  /// The scheduler's stack, as AddressSanitizer reports it when a fiber is
  /// entered, and its fake stack while a fiber runs (unused without ASan).
  const void *schedulerStackBottom;
  size_t schedulerStackSize;
  void *schedulerFakeStack;
};

extern Launch launch;

/// The dynamic shared memory buffer, grown to the largest request, and the
/// size the launch in progress asked for.
extern void *dynamicShared;
extern size_t dynamicSharedCapacity;
extern int32_t dynamicSharedBytes;

/// Runs the current block (launch.ctaid) to completion or to an error.
void runBlock();

//===----------------------------------------------------------------------===//
// Context switches (Fibers.cpp), inline in the scheduler and the kernel ABI
//===----------------------------------------------------------------------===//

/// AddressSanitizer's side of a switch (no-ops without it): before it, the
/// stack switched to (`fakeStack` null when the current fiber is done, so
/// that ASan frees its fake frames); after it, on the new stack, the end of
/// the switch, which also gives the stack left when that was the
/// scheduler's.
inline void beginStackSwitch(void **fakeStack, const void *bottom,
                             size_t size) {
#if KILN_EMU_ASAN
  __sanitizer_start_switch_fiber(fakeStack, bottom, size);
#else
  (void)fakeStack, (void)bottom, (void)size;
#endif
}
inline void endStackSwitch(void *fakeStack, bool fromScheduler) {
#if KILN_EMU_ASAN
  if (fromScheduler)
    __sanitizer_finish_switch_fiber(fakeStack, &launch.schedulerStackBottom,
                                    &launch.schedulerStackSize);
  else
    __sanitizer_finish_switch_fiber(fakeStack, nullptr, nullptr);
#else
  (void)fakeStack, (void)fromScheduler;
#endif
}

#if KILN_EMU_ASM_SWITCH
/// The context switch: saves the callee-saved registers, MXCSR and the x87
/// control word on the current stack, stores the stack pointer to *saveSp,
/// and resumes the context whose stack pointer is newSp (Fibers.cpp).
extern "C" void kilnEmuSwitch(void **saveSp, void *newSp);
#else
/// The fiber that resumeFiber switches to, for a fresh one's trampoline.
extern Fiber *startingFiber;
#endif

// The fake stacks live in Launch and Fiber, not in locals: a local whose
// address is taken gets redzones in the frame, and the frame a finished
// fiber leaves on its stack would keep them poisoned for the next kernel
// that reuses the stack.

/// Resumes `fiber` from the scheduler until it waits or returns.
inline void resumeFiber(Fiber *fiber) {
  ++switchCount;
  beginStackSwitch(&launch.schedulerFakeStack, fiber->stack,
                   fiber->stackBytes);
#if KILN_EMU_ASM_SWITCH
  kilnEmuSwitch(&launch.schedulerSp, fiber->sp);
#else
  startingFiber = fiber;
  swapcontext(&launch.schedulerContext, &fiber->context);
#endif
  endStackSwitch(launch.schedulerFakeStack, /*fromScheduler=*/false);
}

/// Suspends the running fiber and returns to the scheduler.
inline void yieldToScheduler(Fiber *fiber) {
  ++switchCount;
  beginStackSwitch(fiber->state == FiberState::Done ? nullptr
                                                    : &fiber->fakeStack,
                   launch.schedulerStackBottom, launch.schedulerStackSize);
#if KILN_EMU_ASM_SWITCH
  kilnEmuSwitch(&fiber->sp, launch.schedulerSp);
#else
  swapcontext(&fiber->context, &launch.schedulerContext);
#endif
  endStackSwitch(fiber->fakeStack, /*fromScheduler=*/true);
}

//===----------------------------------------------------------------------===//
// Crashes inside kernels (CrashHandler.cpp)
//===----------------------------------------------------------------------===//

/// Installs the SIGSEGV handler and its stack for the launch.
void installCrashHandler();
/// Restores the handler and the signal stack the launch found.
void removeCrashHandler();

//===----------------------------------------------------------------------===//
// Diagnostics (Diagnostics.cpp)
//===----------------------------------------------------------------------===//

/// What `fiber` waits at, for diagnostics.
const char *describeWait(const Fiber &fiber);
/// The thread's position, `thread 37 (5,1,0)`.
void formatThread(const Fiber &fiber, char *buffer, size_t size);
/// Reports `GPU emulator: <what> in block (x,y,z)<details>` and stops the
/// launch.
__attribute__((format(printf, 2, 3))) void
abortLaunch(const char *what, const char *detailsFormat, ...);

//===----------------------------------------------------------------------===//
// The race check of workgroup memory (RaceCheck.cpp)
//===----------------------------------------------------------------------===//

/// The most static workgroup buffers a launch may declare.
constexpr int32_t kMaxWorkgroupBuffers = 64;

/// The shadow of one byte of workgroup memory.
struct ShadowByte;

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

extern RaceCheck race;

/// Starts an epoch. At the 2^32nd the shadow is cleared (it would alias).
void startEpoch();
/// Sets up the race check of a launch: on or off, and the workgroup ranges
/// (the dynamic shared memory and the declared buffers) with their shadow.
bool setUpRaceCheck(const KilnEmuWorkgroupBuffer *buffers, int32_t count);
/// Records that `fiber` reads or writes `bytes` bytes at `address`
/// (`what`: how, for the report; `site`: the call). Reports the first race
/// or an access outside every workgroup range, stops the launch and returns
/// false.
bool recordSharedAccess(const Fiber &fiber, const char *address, int64_t bytes,
                        bool isWrite, const char *what, void *site);

//===----------------------------------------------------------------------===//
// Warp collectives (Collectives.cpp)
//===----------------------------------------------------------------------===//

/// Releases the warp collective of warp `warp` if every live lane waits at
/// one; reports divergent collectives. Returns true if it released it.
bool tryReleaseWarp(int32_t warp);

//===----------------------------------------------------------------------===//
// Kiln's error slot (HostFunctions.cpp)
//===----------------------------------------------------------------------===//

/// Records a formatted message in the calling thread's error slot unless an
/// error is already recorded (lib/Runtime/ErrorSlot.h, whose slot lives in
/// HostFunctions.cpp, the one file of the library that includes it).
__attribute__((format(printf, 1, 2))) void reportError(const char *format,
                                                       ...);
/// Whether the calling thread's error slot holds an error.
bool hasRecordedError();

} // namespace kiln::emu

#pragma GCC visibility pop

#endif // KILN_LIB_RUNTIME_GPUEMULATOR_INTERNAL_H
