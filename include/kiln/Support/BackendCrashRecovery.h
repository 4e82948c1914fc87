//===- BackendCrashRecovery.h - LLVM code generators that fail -*- C++ -*-===//
//
// LLVM's code generators stop the process on input they cannot compile:
// instruction selection calls report_fatal_error ("LLVM ERROR: Cannot
// select: ..."), which aborts. IR that verifies can get there (an NVVM
// intrinsic of sm_90 compiled for sm_80, an AVX-512 intrinsic for a CPU
// without it), so Kiln runs every code generator it drives (the JIT's, the
// AOT compiler's, gpu-module-to-binary's) under crash recovery, as clang
// runs its compiler: the abort ends the code generation, LLVM's message
// stays on stderr, and the caller reports an error. (On a thread of its own
// that a crash parks for good; BackendCrashRecovery.cpp says why not
// llvm::CrashRecoveryContext.)
//
// Only code generation runs this way: a crash in Kiln's own passes is a bug
// and stays a crash, for the fuzzers and campaigns to find.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_BACKENDCRASHRECOVERY_H
#define KILN_SUPPORT_BACKENDCRASHRECOVERY_H

#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir::kiln {

/// Runs `codegen` on a thread of its own and waits for it; returns false
/// when it crashed or aborted (LLVM's own message, if it printed one, is on
/// stderr). What it used then (its LLVMContext, its module, any lock it
/// held) is not to be used or destroyed again: leak it.
bool runBackendSafely(llvm::function_ref<void()> codegen);

} // namespace mlir::kiln

#endif // KILN_SUPPORT_BACKENDCRASHRECOVERY_H
