//===- RaceCheck.cpp - The race check of workgroup memory -----------------===//
//
// The opt-in race check (KILN_EMU_RACECHECK=1 or __kiln_emu_set_racecheck):
// every byte of the launch's workgroup memory (the dynamic shared memory and
// the static buffers the kernels' module declares) has a shadow that records
// who last wrote it and who read it in the current epoch, the stretch between
// two releases of the block's barrier. Two threads that access a byte in one
// epoch, at least one of them writing, race; the first race stops the launch.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace kiln::emu {

namespace {

constexpr uint16_t kNoThread = 0xffff;

} // namespace

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

RaceCheck race;

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

} // namespace kiln::emu
