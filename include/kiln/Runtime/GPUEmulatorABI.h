/*===- GPUEmulatorABI.h - The codes of the GPU emulator's C ABI --*- C -*-===*
 *
 * The integer codes that cross the C boundary between the code that
 * `kiln-gpu-emulate-kernels` (lib/Conversion/GPUHost/EmulateKernels.cpp)
 * generates and Kiln's GPU emulator (lib/Runtime/GPUEmulator), the runtime
 * whose functions include/kiln/Runtime/GPUEmulator.h declares: which special
 * register __kiln_emu_sreg reads, the mode of __kiln_emu_shfl_sync, the kind
 * of __kiln_emu_mma_m16n8k16_f32 and __kiln_emu_misaligned, and the mode of
 * __kiln_emu_set_racecheck.
 *
 * The contract: the pass emits these values as `i32` constants
 * (`llvm.mlir.constant`) into the compiled kernels, and the runtime decodes
 * the same values, so both include this one header and neither writes a
 * code as a literal. The values are the ABI: kernels compiled ahead of time
 * (kiln-compile's libraries) carry them, so a value never changes meaning;
 * a new code gets a new value. Booleans (ldmatrix's `transpose`,
 * __kiln_emu_shared_access's `isWrite`, the results of
 * __kiln_emu_racecheck_enabled and shfl.sync's predicate) are 0 or 1, and
 * counts (ldmatrix's number of matrices) are plain numbers: neither is a
 * code here.
 *
 * Plain C with nothing but enumerators, for the runtime (C++ built on libc
 * alone), the compiler (C++ with LLVM) and C programs alike.
 *
 *===----------------------------------------------------------------------===*/

#ifndef KILN_RUNTIME_GPUEMULATORABI_H
#define KILN_RUNTIME_GPUEMULATORABI_H

/* The `which` operand of __kiln_emu_sreg: PTX's special registers. */
enum KilnEmuSpecialRegister {
  KILN_EMU_SREG_TID_X = 0,
  KILN_EMU_SREG_TID_Y = 1,
  KILN_EMU_SREG_TID_Z = 2,
  KILN_EMU_SREG_NTID_X = 3,
  KILN_EMU_SREG_NTID_Y = 4,
  KILN_EMU_SREG_NTID_Z = 5,
  KILN_EMU_SREG_CTAID_X = 6,
  KILN_EMU_SREG_CTAID_Y = 7,
  KILN_EMU_SREG_CTAID_Z = 8,
  KILN_EMU_SREG_NCTAID_X = 9,
  KILN_EMU_SREG_NCTAID_Y = 10,
  KILN_EMU_SREG_NCTAID_Z = 11,
  KILN_EMU_SREG_LANEID = 12,
  /* Always 32. */
  KILN_EMU_SREG_WARPSIZE = 13
};

/* The `mode` operand of __kiln_emu_shfl_sync: shfl.sync's .idx, .up, .down
 * and .bfly. */
enum KilnEmuShflMode {
  KILN_EMU_SHFL_IDX = 0,
  KILN_EMU_SHFL_UP = 1,
  KILN_EMU_SHFL_DOWN = 2,
  KILN_EMU_SHFL_BFLY = 3
};

/* The `kind` operand of __kiln_emu_mma_m16n8k16_f32: the type of the A and
 * B multiplicands. */
enum KilnEmuMmaKind { KILN_EMU_MMA_F16 = 0, KILN_EMU_MMA_BF16 = 1 };

/* The `kind` operand of __kiln_emu_misaligned: the access that the address
 * is misaligned for. */
enum KilnEmuAccessKind {
  KILN_EMU_ACCESS_LOAD = 0,
  KILN_EMU_ACCESS_STORE = 1,
  KILN_EMU_ACCESS_ATOMIC = 2
};

/* The `mode` operand of __kiln_emu_set_racecheck (any negative value reads
 * as FROM_ENV, any positive one as ON). */
enum KilnEmuRacecheckMode {
  /* Each launch reads KILN_EMU_RACECHECK (non-empty and not "0": on). */
  KILN_EMU_RACECHECK_FROM_ENV = -1,
  KILN_EMU_RACECHECK_OFF = 0,
  KILN_EMU_RACECHECK_ON = 1
};

#endif /* KILN_RUNTIME_GPUEMULATORABI_H */
