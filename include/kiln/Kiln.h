//===- Kiln.h - The public C++ API of Kiln ---------------------*- C++ -*-===//
//
// One header for programs that embed Kiln (docs/Embedding.md): build kiln
// graphs in C++, lower them for the CPU, and run them with the JIT or
// compile them into a shared library with a C ABI. It
// includes the pieces of the API and adds the few functions that tie them
// together; with CMake, `find_package(Kiln CONFIG REQUIRED)` and link
// `Kiln::Kiln`.
//
//   1. Registration (kiln/InitAll.h): registerAllDialects(registry) puts the
//      kiln dialect and the dialects of its pipelines into a
//      DialectRegistry; registerAllPasses() registers Kiln's passes and
//      pipelines for textual pass pipelines (`kiln-opt`-style tools).
//   2. Graphs (kiln/Dialect/Kiln/IR/KilnOps.h): the ops, built with
//      `FooOp::create(builder, loc, ...)`; buildFunction() below wraps them
//      into a public function.
//   3. Graph transforms (kiln/Dialect/Kiln/Transforms/Passes.h): passes from
//      kiln graphs to kiln graphs. buildAutodiffPipeline() below adds
//      kiln-autodiff with typed options (AutodiffOptions); lowerToCPU() runs
//      graph passes through its `addGraphPasses` hook, the JIT through
//      JitOptions::addGraphPasses.
//   4. The CPU pipeline (kiln/Pipelines/Pipelines.h): buildKilnToCPUPipeline
//      fills a PassManager, typed options in KilnToCPUPipelineOptions;
//      lowerToCPU() below runs it on a module. The GPU pipeline likewise:
//      buildKilnToNVVMPipeline, KilnToNVVMPipelineOptions, lowerToGPU().
//   5. Execution (kiln/Execution/): JitSession compiles a module through the
//      CPU pipeline into a JitModule whose functions run on HostTensors,
//      with JitOptions (the pipeline's options, graph passes, LLVM's);
//      kiln/Support/Npy.h reads and writes NumPy files. Ahead of time,
//      compileToSharedLibrary (kiln/Execution/AotCompiler.h) writes a
//      module's public functions as a shared library with a C ABI and its
//      header (AotOptions: target, CPU, OpenMP, the GPU pipeline's
//      options), as kiln-compile does (docs/AOT.md).
//   6. JSON model graphs (kiln/Target/GraphJson.h): importGraphJson,
//      readGraphJsonParameters, exportGraphJson.
//
// Errors are MLIR diagnostics reported through the context (printed to
// stderr unless a handler is installed) plus a failure result.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_KILN_H
#define KILN_KILN_H

#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"
#include "kiln/Execution/AotCompiler.h"
#include "kiln/Execution/JitSession.h"
#include "kiln/InitAll.h"
#include "kiln/Pipelines/Pipelines.h"
#include "kiln/Support/HostTensor.h"
#include "kiln/Support/Npy.h"
#include "kiln/Target/GraphJson.h"
#include "kiln/Version.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir::kiln {

/// Kiln's version, `KILN_VERSION_STRING` of the library (which may differ
/// from the headers' if they were mixed up).
StringRef getVersionString();

/// Loads the dialects that graphs are built from (kiln, func, arith) into
/// `context`. Registering a dialect is not enough to create its ops with
/// `FooOp::create`; it must be loaded. JitSession's context has them
/// registered, not loaded.
void loadGraphDialects(MLIRContext &context);

/// Builds the body of a function: called with a builder at the end of the
/// entry block, the function's location and its arguments; returns the
/// values the function returns.
using FunctionBodyBuilder =
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>;

/// Appends a public function `@name` to `module`, taking arguments of types
/// `inputs`, with the body that `body` builds and a `func.return` of the
/// values it returns; their types become the result types. Loads the
/// dialects of loadGraphDialects(). Returns failure, with a diagnostic and
/// without the function, when the function does not verify or `module`
/// already has a symbol `@name`.
FailureOr<func::FuncOp> buildFunction(ModuleOp module, StringRef name,
                                      TypeRange inputs,
                                      FunctionBodyBuilder body);

/// Lowers `module` in place through `kiln-lower-to-cpu` to the LLVM dialect
/// (for ahead-of-time use: print it, or translate it to LLVM IR). Registers
/// the pipeline's dialects and interface models in the module's context
/// first. `addGraphPasses`, when set, adds passes that run on the kiln graph
/// before the lowering: the place of kiln-to-kiln transforms such as
/// autodiff. Returns failure after a diagnostic.
LogicalResult
lowerToCPU(ModuleOp module, const KilnToCPUPipelineOptions &options = {},
           function_ref<void(OpPassManager &)> addGraphPasses = nullptr);

/// Lowers `module` (kiln ops on tensors) through kiln-lower-to-nvvm with the
/// typed `options` (chip, PTX features, opt level, binary format, tensor
/// cores): host code in the LLVM dialect calling Kiln's CUDA runtime, and
/// `gpu.binary` ops holding the kernels (docs/GPUBackend.md). Registers the
/// pipeline's dialects and interface models in the module's context first;
/// `addGraphPasses` runs on the kiln graph before the lowering, as for
/// lowerToCPU. `format=bin` needs the CUDA toolkit's ptxas; `format=isa`
/// (PTX) needs nothing outside LLVM; `emulate` gives one host LLVM module
/// for Kiln's GPU emulator instead (docs/GPUEmulator.md). Returns failure
/// after a diagnostic.
LogicalResult
lowerToGPU(ModuleOp module, const KilnToNVVMPipelineOptions &options = {},
           function_ref<void(OpPassManager &)> addGraphPasses = nullptr);

/// The typed options of kiln-autodiff: the pass's own ODS options struct
/// (`function`, the function to differentiate, and `wrt`, the indices of
/// the arguments to differentiate with respect to, default every
/// floating-point one), so an option added to the pass appears here.
using AutodiffOptions = KilnAutodiffPassOptions;

/// Adds kiln-autodiff with `options` to `pm`, which must run on a module:
/// it expands every `kiln.value_and_grad` and, with `options.function`,
/// generates `@<function>_value_and_grad` (the function's results, then
/// one gradient per `wrt` argument).
void buildAutodiffPipeline(OpPassManager &pm,
                           const AutodiffOptions &options = {});

/// Differentiates `module` in place: runs buildAutodiffPipeline(options).
/// Returns failure after a diagnostic.
LogicalResult differentiate(ModuleOp module, const AutodiffOptions &options);

} // namespace mlir::kiln

#endif // KILN_KILN_H
