//===- Scheduler.cpp - The GPU emulator's block scheduler -----------------===//
//
// Runs one block of a launch: every thread of the block is a fiber, resumed
// in thread order until it waits or returns; when none is ready, the
// scheduler releases the warp collectives and the block barrier that every
// live thread they concern waits at, and reports a deadlock when it can
// release nothing.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <stdio.h>
#include <string.h>

namespace kiln::emu {

Launch launch;

void *dynamicShared;
size_t dynamicSharedCapacity;
int32_t dynamicSharedBytes;

namespace {

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

} // namespace

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

} // namespace kiln::emu
