//===- CrashHandler.cpp - Crashes inside emulated kernels -----------------===//
//
// While a launch runs, a SIGSEGV handler (on its own stack, since the fault
// may be a fiber stack overflow) names the emulated thread and block that
// faulted and whether it overflowed its stack, then restores the previous
// handler and returns, so that the fault repeats and takes its usual course
// (the host's own handler, or a core dump).
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

namespace kiln::emu {

namespace {

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

} // namespace

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

} // namespace kiln::emu
