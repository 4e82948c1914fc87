//===- Fibers.cpp - The GPU emulator's fibers -----------------------------===//
//
// The emulated threads of a block are fibers on the launching OS thread: each
// has its own stack, mapped at first use with a guard region below it and
// reused by every later block and launch, and a saved context. The scheduler
// resumes a fiber until it waits (at a barrier or a warp collective) or
// returns. x86-64 switches with a few hand-written instructions, other
// architectures with ucontext.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

namespace kiln::emu {

Fiber fibers[kMaxThreadsPerBlock];
uint64_t switchCount;

namespace {

/// The default stack of a fiber; KILN_EMU_STACK_KIB overrides it.
constexpr size_t kDefaultStackBytes = 512 * 1024;

[[noreturn]] void fiberMain(Fiber *fiber);

} // namespace

#if KILN_EMU_ASM_SWITCH
// The context switch, kilnEmuSwitch (declared in Internal.h): saves the
// callee-saved registers, MXCSR and the x87 control word on the current
// stack, stores the stack pointer to *saveSp, and resumes the context whose
// stack pointer is newSp. A fresh fiber's stack is prepared so that the `ret`
// lands in fiberStart with the Fiber in r12 and fiberMain in r13. About 20
// instructions and no system call, unlike swapcontext (which saves the signal
// mask with a system call).
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

/// The floating-point environment fibers start with: the launching thread's.
void captureFloatingPointControl() {
  asm volatile("stmxcsr %0" : "=m"(launch.mxcsr));
  asm volatile("fnstcw %0" : "=m"(launch.fpuControl));
}
#else
// Other architectures: ucontext, slower (a system call per switch) but
// portable.
Fiber *startingFiber;

namespace {

void fiberTrampoline() { fiberMain(startingFiber); }

} // namespace

void resetFiber(Fiber *fiber) {
  getcontext(&fiber->context);
  fiber->context.uc_stack.ss_sp = fiber->stack;
  fiber->context.uc_stack.ss_size = fiber->stackBytes;
  fiber->context.uc_link = nullptr;
  makecontext(&fiber->context, fiberTrampoline, 0);
}

void captureFloatingPointControl() {}
#endif

namespace {

/// Runs the kernel in a fiber; never returns (a finished fiber is not resumed
/// until resetFiber gives it a fresh start).
void fiberMain(Fiber *fiber) {
  // The first switch into this stack ends here, not in resumeFiber.
  endStackSwitch(nullptr, /*fromScheduler=*/true);
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

} // namespace

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

/// Abandons the running fiber after an error stopped the launch: it is never
/// resumed (the next block or launch resets it).
[[noreturn]] void stopFiber(Fiber *fiber, void *site) {
  fiber->site = site;
  fiber->state = FiberState::Stopped;
  yieldToScheduler(fiber);
  __builtin_trap();
}

} // namespace kiln::emu
