//===- Toolchain.h - What the JIT and the AOT compiler share ----*- C++ -*-===//
//
// The LLVM optimization of lowered modules and the search for the runtime
// libraries Kiln's build wrote, used alike by JitSession and
// compileToSharedLibrary.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_EXECUTION_TOOLCHAIN_H
#define KILN_EXECUTION_TOOLCHAIN_H

#include "mlir/Support/LLVM.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace mlir::kiln {

/// Finds a runtime library that Kiln's build wrote at `buildPath` (its file
/// name is what is looked for), in order: lib/ beside the running program's
/// bin/ (an installed tool, or the build tree's own), `buildPath` itself, and
/// the lib/ directory Kiln was configured to install into. Returns the first
/// that exists; otherwise nothing, with the places looked at in `tried`.
/// Shared by the JIT (the GPU emulator's runtime) and the AOT compiler (the
/// static runtimes a GPU library links).
std::optional<std::string>
findRuntimeLibrary(StringRef buildPath,
                   SmallVectorImpl<std::string> *tried = nullptr);

/// Optimizes the LLVM IR of a lowered module as the JIT and the AOT compiler
/// do: LLVM's default per-module pipeline at `optLevel` (0-3) for
/// `targetMachine` (may be null), less CalledValuePropagation. That pass
/// only annotates indirect calls, which kiln code does not make, and took
/// time quadratic in the number of calls: 49 s of the 57 s of `opt -O2` on
/// a 24-layer training step, whose entry points are long sequences of
/// kernel calls (kiln-outline-kernels; docs/CPUBackend.md).
llvm::Error optimizeLLVMModule(llvm::Module &module, unsigned optLevel,
                               llvm::TargetMachine *targetMachine);

} // namespace mlir::kiln

#endif // KILN_EXECUTION_TOOLCHAIN_H
