//===- EmulateKernels.h - kiln-gpu-emulate-kernels --------------*- C++ -*-===//
//
// Private to the KilnGPUHost library: what the pass (EmulateKernels.cpp) and
// the rewriting of the kernels' code (EmulateDeviceCode.cpp) share. The
// alignments NVPTX gives accesses, the emulator's runtime functions as the
// host module declares them, and the phases that check and rewrite the
// functions of a gpu.module for the host. See docs/GPUEmulator.md.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CONVERSION_GPUHOST_EMULATEKERNELS_H
#define KILN_LIB_CONVERSION_GPUHOST_EMULATEKERNELS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Target/LLVMIR/TypeToLLVM.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/LLVMContext.h"

#include <cstdint>
#include <utility>

namespace mlir::kiln::emulate_kernels {

/// The alignment that NVPTX gets for an access without an `alignment`
/// attribute: MLIR's translation to LLVM IR runs before
/// gpu-module-to-binary sets the NVPTX data layout, so IRBuilder takes the
/// ABI alignment (atomics: the store size) of the gpu.module's own data layout
/// (its `llvm.data_layout`, else LLVM's default layout, in which e.g. i64
/// needs only 4 bytes), and the NVPTX back end splits any access it cannot
/// issue at that alignment.
class NVPTXAlignments {
public:
  NVPTXAlignments(gpu::GPUModuleOp gpuModule)
      : layout(getLayoutString(gpuModule)), types(context) {}

  uint64_t getABIAlignment(Type type) {
    return layout.getABITypeAlign(types.translateType(type)).value();
  }
  uint64_t getStoreSize(Type type) {
    return layout.getTypeStoreSize(types.translateType(type)).getFixedValue();
  }
  uint64_t getAllocSize(Type type) {
    return layout.getTypeAllocSize(types.translateType(type)).getFixedValue();
  }

private:
  static StringRef getLayoutString(gpu::GPUModuleOp gpuModule) {
    if (auto layout = gpuModule->getAttrOfType<StringAttr>(
            LLVM::LLVMDialect::getDataLayoutAttrName()))
      return layout.getValue();
    return "";
  }

  llvm::LLVMContext context;
  llvm::DataLayout layout;
  LLVM::TypeToLLVMIRTranslator types;
};

/// The emulator's runtime functions, declared in the host module on demand.
class EmulatorABI {
public:
  EmulatorABI(ModuleOp module) : module(module) {}

  LLVM::LLVMFuncOp get(StringRef name, Type result, ArrayRef<Type> params) {
    if (auto existing = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
      return existing;
    OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
    return LLVM::LLVMFuncOp::create(
        builder, module.getLoc(), name,
        LLVM::LLVMFunctionType::get(result, params));
  }

  LLVM::LLVMFuncOp launch() {
    Type i64 = integer(64), i32 = integer(32), ptr = pointer();
    return get("__kiln_emu_launch", voidType(),
               {ptr, i64, i64, i64, i64, i64, i64, i32, ptr, ptr});
  }
  LLVM::LLVMFuncOp sreg() {
    return get("__kiln_emu_sreg", integer(32), {integer(32)});
  }
  // The collectives are `convergent`, like the NVVM intrinsics they
  // replace: LLVM must not make them control dependent on more values (e.g.
  // duplicate a barrier into both sides of a branch), which the emulator's
  // strict barrier mode would report.
  LLVM::LLVMFuncOp barrier() {
    return convergent(get("__kiln_emu_barrier", voidType(), {}));
  }
  LLVM::LLVMFuncOp shuffle() {
    Type i32 = integer(32);
    return convergent(
        get("__kiln_emu_shfl_sync", i32, {i32, i32, i32, i32, i32, pointer()}));
  }
  LLVM::LLVMFuncOp mma() {
    Type i32 = integer(32), f32 = Float32Type::get(module.getContext());
    return convergent(get(
        "__kiln_emu_mma_m16n8k16_f32", voidType(),
        {i32, i32, i32, i32, i32, i32, i32, f32, f32, f32, f32, pointer()}));
  }
  LLVM::LLVMFuncOp ldmatrix() {
    Type i32 = integer(32), ptr = pointer();
    return convergent(
        get("__kiln_emu_ldmatrix_m8n8_b16", voidType(), {i32, i32, ptr, ptr}));
  }
  LLVM::LLVMFuncOp dynamicShared() {
    return get("__kiln_emu_dynamic_shared", pointer(), {});
  }
  /// Stops the launch and does not return: `cold` and `noreturn`, so that
  /// its calls stay out of the way of the accesses' fast path.
  LLVM::LLVMFuncOp misaligned() {
    LLVM::LLVMFuncOp func = get("__kiln_emu_misaligned", voidType(),
                                {pointer(), integer(64), integer(32)});
    Builder builder(module.getContext());
    func.setPassthroughAttr(builder.getStrArrayAttr({"cold", "noreturn"}));
    return func;
  }
  LLVM::LLVMFuncOp racecheckEnabled() {
    return get("__kiln_emu_racecheck_enabled", integer(32), {});
  }
  LLVM::LLVMFuncOp sharedAccess() {
    return get("__kiln_emu_shared_access", voidType(),
               {pointer(), integer(64), integer(32)});
  }
  LLVM::LLVMFuncOp workgroupBuffers() {
    return get("__kiln_emu_workgroup_buffers", voidType(),
               {pointer(), integer(32)});
  }

private:
  static LLVM::LLVMFuncOp convergent(LLVM::LLVMFuncOp func) {
    func.setConvergent(true);
    return func;
  }
  Type integer(unsigned width) {
    return IntegerType::get(module.getContext(), width);
  }
  Type pointer() { return LLVM::LLVMPointerType::get(module.getContext()); }
  Type voidType() { return LLVM::LLVMVoidType::get(module.getContext()); }

  ModuleOp module;
};

// Defined in EmulateDeviceCode.cpp.

/// Whether `global` is the zero-sized workgroup global that
/// `gpu.dynamic_shared_memory` lowers to.
bool isDynamicSharedMemory(LLVM::GlobalOp global);

/// The address of a load or store in workgroup memory (address space 3)
/// and whether it writes, or null. Atomics are not recorded: they do not
/// race with each other.
std::pair<Value, bool> getWorkgroupAccess(Operation *op);

// The checks and rewrites of a gpu.module's functions.

/// Reports every op of `gpuModule` the emulator cannot run.
LogicalResult checkModule(gpu::GPUModuleOp gpuModule);

/// Replaces the NVVM ops of `func` (address spaces already dropped) with
/// calls of the emulator.
void rewriteNVVMOps(LLVM::LLVMFuncOp func, EmulatorABI &abi);

/// Guards each load, store and atomic of `func` (address spaces dropped) that
/// needs more than byte alignment with a test of its address, which calls
/// `__kiln_emu_misaligned` when it fails.
void checkAlignment(LLVM::LLVMFuncOp func, EmulatorABI &abi,
                    NVPTXAlignments &alignments);

/// Lets the race check see the workgroup loads and stores of `func`
/// (`accesses`, found before the address spaces were dropped).
void recordWorkgroupAccesses(LLVM::LLVMFuncOp func, EmulatorABI &abi,
                             NVPTXAlignments &alignments,
                             const DenseSet<Operation *> &accesses);

} // namespace mlir::kiln::emulate_kernels

#endif // KILN_LIB_CONVERSION_GPUHOST_EMULATEKERNELS_H
