//===- Collectives.cpp - The GPU emulator's warp collectives --------------===//
//
// shfl.sync, mma.sync and ldmatrix: each lane of a warp that calls one
// waits in its fiber with its operands; when every live lane of the warp
// waits at a collective, the scheduler checks that they agree (the same
// collective, mode and member mask) and computes every lane's result at
// once, with the PTX ISA's semantics.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <string.h>

namespace kiln::emu {

namespace {

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
    case KILN_EMU_SHFL_IDX:
      j = minLane | (bval & ~segmask);
      pval = j <= maxLane;
      break;
    case KILN_EMU_SHFL_UP:
      j = l - bval;
      pval = j >= maxLane;
      break;
    case KILN_EMU_SHFL_DOWN:
      j = l + bval;
      pval = j <= maxLane;
      break;
    case KILN_EMU_SHFL_BFLY:
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
  bool isBF16 = lanes[0].kind == KILN_EMU_MMA_BF16;
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

} // namespace

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
    if (leader->mode < KILN_EMU_SHFL_IDX || leader->mode > KILN_EMU_SHFL_BFLY) {
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
  if (leader->kind != KILN_EMU_MMA_F16 && leader->kind != KILN_EMU_MMA_BF16) {
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

} // namespace kiln::emu
