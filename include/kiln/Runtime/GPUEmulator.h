//===- GPUEmulator.h - Kiln's host-CPU GPU emulator runtime ------*- C++
//-*-===//
//
// The C ABI of Kiln's GPU emulator (lib/Runtime/GPUEmulator): the functions
// that kernels compiled for the host CPU by `kiln-gpu-emulate-kernels` call in
// place of the NVVM operations (special registers, bar.sync, shfl.sync,
// mma.sync, ldmatrix), and the launch that runs a grid of such kernels, one
// block at a time, with the threads of a block as fibers on the calling OS
// thread.
//
// The same library also defines the `mgpu*` host functions and Kiln's error
// slot (`kilnCuda*`, declared in CudaRuntime.h) over host memory, and the
// libdevice functions (`__nv_*`) the kernels call, so that a program lowered
// for CUDA runs unchanged on it: it replaces KilnCudaRuntime, it is never
// linked with it. It needs neither a GPU nor the CUDA toolkit. See
// docs/GPUEmulator.md.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_GPUEMULATOR_H
#define KILN_RUNTIME_GPUEMULATOR_H

#include "kiln/Runtime/GPUEmulatorABI.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Runs a grid of blocks: blocks one at a time, in x-fastest order; the
/// threads of a block as fibers on the calling OS thread, each calling
/// entry(params). Returns after the grid finished. dynamicSharedBytes: size of
/// the buffer __kiln_emu_dynamic_shared returns. stream: ignored (the host
/// code's stream handle). Errors (a block of more than 1024 threads, a barrier
/// deadlock, divergent warp collectives, ...) go through kilnCudaReportError
/// with a message naming the block and thread, and the launch stops.
void __kiln_emu_launch(void (*entry)(void **params), int64_t gridX,
                       int64_t gridY, int64_t gridZ, int64_t blockX,
                       int64_t blockY, int64_t blockZ,
                       int32_t dynamicSharedBytes, void *stream, void **params);

/// The special register `which`, a KilnEmuSpecialRegister (tid, ntid, ctaid,
/// nctaid in x/y/z, laneid, warpsize).
int32_t __kiln_emu_sreg(int32_t which);

/// bar.sync 0 / barrier0: waits until every thread of the block that has not
/// returned reaches a barrier.
void __kiln_emu_barrier(void);

/// shfl.sync with PTX semantics; `mode` is a KilnEmuShflMode (idx, up,
/// down, bfly).
/// `clampAndMask` is PTX's `c` operand (bits 0-4 the clamp, bits 8-12 the
/// segment mask). Writes the PTX predicate (source lane in range) to *valid
/// when valid is non-null. The value is passed as its 32 bits (f32 values are
/// bitcast by the caller).
int32_t __kiln_emu_shfl_sync(int32_t mode, int32_t memberMask, int32_t value,
                             int32_t laneOrOffset, int32_t clampAndMask,
                             int8_t *valid);

/// mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32 for the
/// calling lane; `kind` is a KilnEmuMmaKind (f16, bf16). a0..a3 and b0, b1 are the lane's A
/// and B fragment registers, each two 16-bit values (element 0 in the low
/// half); c0..c3 its accumulator fragment; the lane's D fragment is written to
/// d[0..3]. Warp-collective: every lane of the warp calls it; the result of
/// each lane depends on all 32 lanes' fragments.
void __kiln_emu_mma_m16n8k16_f32(int32_t kind, int32_t a0, int32_t a1,
                                 int32_t a2, int32_t a3, int32_t b0, int32_t b1,
                                 float c0, float c1, float c2, float c3,
                                 float *d);

/// ldmatrix.sync.aligned.m8n8.x{numMatrices}{.trans}.shared.b16 for the
/// calling lane: numMatrices is 1, 2 or 4, transpose is 0 or 1. Lane l
/// supplies `rowAddress`, the start of row l % 8 of matrix l / 8 (eight
/// consecutive 16-bit elements, 16-byte aligned); lanes from 8 numMatrices
/// on supply nothing the load reads. The lane's register i (matrix i) is
/// written to out[i]: with g = lane / 4, t = lane % 4, elements (g, 2t) (low
/// half) and (g, 2t + 1) of matrix i, or with transpose (2t, g) and
/// (2t + 1, g). Warp-collective and .aligned: all 32 lanes call it with the
/// same numMatrices and transpose; the rows are read when the last lane
/// arrives.
void __kiln_emu_ldmatrix_m8n8_b16(int32_t numMatrices, int32_t transpose,
                                  const void *rowAddress, int32_t *out);

/// Reports a load, store or atomic (`kind`, a KilnEmuAccessKind) of the
/// calling thread at
/// `address`, which is not `alignment`-byte aligned as the instruction needs
/// (on the GPU: a misaligned address error, fatal to the CUDA context), and
/// stops the launch. Does not return: the thread is abandoned like the rest
/// of the stopped block (outside a launch, the message goes to stderr and
/// the process aborts). `kiln-gpu-emulate-kernels` calls it from a test in
/// front of every access that needs more than byte alignment.
void __kiln_emu_misaligned(const void *address, int64_t alignment,
                           int32_t kind);

/// A static workgroup buffer of a kernel module: `kiln-gpu-emulate-kernels`
/// turns the workgroup globals into host globals and describes them in a
/// constant table of these.
typedef struct KilnEmuWorkgroupBuffer {
  void *address;
  int64_t bytes;
  /// `@module::@global`, for race reports.
  const char *name;
} KilnEmuWorkgroupBuffer;

/// Declares the static workgroup buffers of the next __kiln_emu_launch from
/// the calling OS thread (the launch consumes them), which the race check
/// needs to tell workgroup memory apart and to name it. The dynamic shared
/// memory is the runtime's own and needs no declaration.
void __kiln_emu_workgroup_buffers(const KilnEmuWorkgroupBuffer *buffers,
                                  int32_t count);

/// Whether the running launch checks workgroup memory for races: the
/// kernels call it once per function and test the result before each
/// workgroup access (a predictable branch when it is off).
int32_t __kiln_emu_racecheck_enabled(void);

/// Records an access of `bytes` bytes at `address` in workgroup memory by the
/// calling thread (isWrite 1 for a store). Between two releases of the
/// block's barrier (an epoch), a byte that two different threads access,
/// at least one of them writing, is a race: the first one is reported
/// (kind, both threads, the buffer and byte, the epoch) and the launch
/// stops; so is an access outside every workgroup buffer. Call it only when
/// __kiln_emu_racecheck_enabled() is true.
void __kiln_emu_shared_access(const void *address, int64_t bytes,
                              int32_t isWrite);

/// Turns the race check on (KILN_EMU_RACECHECK_ON) or off
/// (KILN_EMU_RACECHECK_OFF) for the launches that follow, whatever the
/// KILN_EMU_RACECHECK environment variable says; KILN_EMU_RACECHECK_FROM_ENV
/// goes back to reading it (non-empty and not "0": on) at each launch.
void __kiln_emu_set_racecheck(int32_t mode);

/// The launch's dynamic shared memory (dynamicSharedBytes bytes, 16-byte
/// aligned, the same buffer for every thread of a block; contents undefined at
/// block start).
void *__kiln_emu_dynamic_shared(void);

#ifdef __cplusplus
}
#endif

#endif // KILN_RUNTIME_GPUEMULATOR_H
