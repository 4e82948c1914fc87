//===- BackendCrashRecovery.cpp - LLVM's code generators, made to fail ----===//
//
// Why not llvm::CrashRecoveryContext: it longjmps out of the crashed code,
// skipping its destructors, and what they would have undone stays behind.
// MLIR's NVPTX serializer keeps an llvm::Timer on its stack, which is in the
// default TimerGroup's list: after the jump the list points into dead stack
// frames, and llvm_shutdown spun forever in TimerGroup::removeTimer at the
// tool's exit (upstream mlir-opt's crash reproducer prints that dead timer).
//
// Here the code generator runs on a thread of its own. A fatal signal on it
// (abort from report_fatal_error, a segfault, a trap) is caught by a handler
// that tells the waiting caller and then parks the thread for good, inside
// the handler: the crashed frames stay where they are, so whatever still
// points into them points at live memory. The parked thread, its stack and
// what it holds are leaked; a signal on any other thread goes to the handler
// that was installed before.
//
//===----------------------------------------------------------------------===//

#include "kiln/Support/BackendCrashRecovery.h"

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <mutex>

#include <pthread.h>
#include <semaphore.h>
#include <unistd.h>

using namespace mlir::kiln;

namespace {

/// One code generation: its thread, and how it ended.
struct Generation {
  llvm::function_ref<void()> codegen;
  pthread_t thread{};
  sem_t go, ended;
  std::atomic<bool> crashed{false};
};

constexpr int kFatalSignals[] = {SIGABRT, SIGSEGV, SIGBUS,
                                 SIGILL,  SIGFPE,  SIGTRAP};
constexpr int kMaxGenerations = 64;

/// The running generations, found by the handler (no lock in a handler).
std::atomic<Generation *> running[kMaxGenerations];
/// The handlers installed before ours, while some generation runs.
std::mutex handlersMutex;
int numRunning = 0;
struct sigaction previous[NSIG];

void onFatalSignal(int signal, siginfo_t *info, void *context) {
  pthread_t self = pthread_self();
  for (std::atomic<Generation *> &slot : running) {
    Generation *generation = slot.load();
    if (!generation || !pthread_equal(generation->thread, self))
      continue;
    generation->crashed = true;
    sem_post(&generation->ended); // async-signal-safe
    for (;;)
      pause();
  }
  // Not a code generator's thread: what was there before.
  const struct sigaction &before = previous[signal];
  if (before.sa_flags & SA_SIGINFO) {
    before.sa_sigaction(signal, info, context);
    return;
  }
  if (before.sa_handler != SIG_DFL && before.sa_handler != SIG_IGN) {
    before.sa_handler(signal);
    return;
  }
  // The default action: restored and raised again (a fault re-executes
  // the faulting instruction when the handler returns).
  sigaction(signal, &before, nullptr);
  if (signal != SIGSEGV && signal != SIGBUS && signal != SIGILL &&
      signal != SIGFPE)
    raise(signal);
}

void *generate(void *argument) {
  auto *generation = static_cast<Generation *>(argument);
  // Until the handler can find this thread.
  while (sem_wait(&generation->go) != 0) {
  }
  generation->codegen();
  sem_post(&generation->ended);
  return nullptr;
}

} // namespace

/// Empties `slot`, and restores the previous handlers after the last
/// generation.
static void release(int slot) {
  std::lock_guard<std::mutex> lock(handlersMutex);
  running[slot].store(nullptr);
  if (--numRunning == 0)
    for (int signal : kFatalSignals)
      sigaction(signal, &previous[signal], nullptr);
}

bool mlir::kiln::runBackendSafely(llvm::function_ref<void()> codegen) {
  auto *generation = new Generation;
  generation->codegen = codegen;
  sem_init(&generation->go, 0, 0);
  sem_init(&generation->ended, 0, 0);
  // A slot of its own, taken under the lock (the handler finds the thread
  // there by its id), and our handlers while any generation runs.
  int slot = -1;
  {
    std::lock_guard<std::mutex> lock(handlersMutex);
    for (int i = 0; i < kMaxGenerations && slot < 0; ++i)
      if (!running[i].load())
        slot = i;
    if (slot >= 0) {
      running[slot].store(generation);
      if (numRunning++ == 0) {
        struct sigaction action = {};
        action.sa_sigaction = onFatalSignal;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        for (int signal : kFatalSignals)
          sigaction(signal, &action, &previous[signal]);
      }
    }
  }
  // LLVM's code generators recurse deeply: the main thread's 8 MiB, at least.
  bool started = false;
  if (slot >= 0) {
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setstacksize(&attributes, size_t(64) << 20);
    started = pthread_create(&generation->thread, &attributes, generate,
                             generation) == 0;
    pthread_attr_destroy(&attributes);
    if (!started)
      release(slot);
  }
  // More generations at once than slots, or no thread: no recovery.
  if (!started) {
    sem_destroy(&generation->go);
    sem_destroy(&generation->ended);
    delete generation;
    codegen();
    return true;
  }
  // The thread runs the code generator once pthread_create has written its
  // id, which the handler compares.
  sem_post(&generation->go);
  while (sem_wait(&generation->ended) != 0) {
  }
  bool crashed = generation->crashed.load();
  release(slot);
  if (crashed) {
    // Parked in the handler for good, with its stack: leaked.
    pthread_detach(generation->thread);
    return false;
  }
  pthread_join(generation->thread, nullptr);
  sem_destroy(&generation->go);
  sem_destroy(&generation->ended);
  delete generation;
  return true;
}
