//===- Diagnostics.cpp - The GPU emulator's error reports -----------------===//
//
// How the emulator names what a thread waits at and where it is, and the
// report of an error that stops a launch: the scheduler, the warp collectives
// and the race check report through abortLaunch, which records the message
// in Kiln's error slot and marks the launch aborted.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <stdarg.h>
#include <stdio.h>

namespace kiln::emu {

namespace {

const char *getShflModeName(int32_t mode) {
  switch (mode) {
  case KILN_EMU_SHFL_IDX:
    return "shfl.sync.idx";
  case KILN_EMU_SHFL_UP:
    return "shfl.sync.up";
  case KILN_EMU_SHFL_DOWN:
    return "shfl.sync.down";
  case KILN_EMU_SHFL_BFLY:
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

} // namespace

/// What `fiber` waits at, for diagnostics.
const char *describeWait(const Fiber &fiber) {
  switch (fiber.state) {
  case FiberState::AtBarrier:
    return "bar.sync";
  case FiberState::AtWarpOp:
    if (fiber.op == WarpOp::Mma)
      return fiber.kind == KILN_EMU_MMA_F16 ? "mma.sync.m16n8k16.f16"
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

} // namespace kiln::emu
