//===- EmulateKernels.cpp - kiln-gpu-emulate-kernels ------------------------===//
//
// Compiles the NVVM kernels of a module for the host CPU: the gpu.modules'
// LLVM functions move into the host module, NVVM ops become calls of Kiln's
// GPU emulator (include/kiln/Runtime/GPUEmulator.h, with the codes of
// include/kiln/Runtime/GPUEmulatorABI.h), and gpu.launch_func becomes a call
// of its launcher. See docs/GPUEmulator.md.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/GPUHost/Passes.h"
#include "kiln/Runtime/GPUEmulatorABI.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Target/LLVMIR/TypeToLLVM.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/LLVMContext.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNGPUEMULATEKERNELSPASS
#include "kiln/Conversion/GPUHost/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

/// The `which` operand of `__kiln_emu_sreg` for a special register op (a
/// KilnEmuSpecialRegister), or -1 for any other op.
static int getSpecialRegister(Operation *op) {
  return llvm::TypeSwitch<Operation *, int>(op)
      .Case([](NVVM::ThreadIdXOp) { return KILN_EMU_SREG_TID_X; })
      .Case([](NVVM::ThreadIdYOp) { return KILN_EMU_SREG_TID_Y; })
      .Case([](NVVM::ThreadIdZOp) { return KILN_EMU_SREG_TID_Z; })
      .Case([](NVVM::BlockDimXOp) { return KILN_EMU_SREG_NTID_X; })
      .Case([](NVVM::BlockDimYOp) { return KILN_EMU_SREG_NTID_Y; })
      .Case([](NVVM::BlockDimZOp) { return KILN_EMU_SREG_NTID_Z; })
      .Case([](NVVM::BlockIdXOp) { return KILN_EMU_SREG_CTAID_X; })
      .Case([](NVVM::BlockIdYOp) { return KILN_EMU_SREG_CTAID_Y; })
      .Case([](NVVM::BlockIdZOp) { return KILN_EMU_SREG_CTAID_Z; })
      .Case([](NVVM::GridDimXOp) { return KILN_EMU_SREG_NCTAID_X; })
      .Case([](NVVM::GridDimYOp) { return KILN_EMU_SREG_NCTAID_Y; })
      .Case([](NVVM::GridDimZOp) { return KILN_EMU_SREG_NCTAID_Z; })
      .Case([](NVVM::LaneIdOp) { return KILN_EMU_SREG_LANEID; })
      .Case([](NVVM::WarpSizeOp) { return KILN_EMU_SREG_WARPSIZE; })
      .Default([](Operation *) { return -1; });
}

/// The `mode` operand of `__kiln_emu_shfl_sync` (a KilnEmuShflMode).
static int getShuffleMode(NVVM::ShflKind kind) {
  switch (kind) {
  case NVVM::ShflKind::idx:
    return KILN_EMU_SHFL_IDX;
  case NVVM::ShflKind::up:
    return KILN_EMU_SHFL_UP;
  case NVVM::ShflKind::down:
    return KILN_EMU_SHFL_DOWN;
  case NVVM::ShflKind::bfly:
    return KILN_EMU_SHFL_BFLY;
  }
  llvm_unreachable("unknown shfl kind");
}

/// Whether `type` is a 2-element vector of `element`, or i32 (a packed pair).
static bool isPackedPair(Type type, Type element) {
  if (type.isInteger(32))
    return true;
  auto vector = dyn_cast<VectorType>(type);
  return vector && vector.getRank() == 1 && vector.getDimSize(0) == 2 &&
         vector.getElementType() == element;
}

/// The `kind` operand of `__kiln_emu_mma_m16n8k16_f32` (KILN_EMU_MMA_F16 or
/// KILN_EMU_MMA_BF16), or failure with `reason` set when the emulator does
/// not implement the mma.
static FailureOr<int> getMmaKind(NVVM::MmaOp mma, std::string &reason) {
  MLIRContext *context = mma.getContext();
  if (mma.getLayoutA() != NVVM::MMALayout::row ||
      mma.getLayoutB() != NVVM::MMALayout::col) {
    reason = "only row-major A and column-major B are emulated";
    return failure();
  }
  std::optional<NVVM::MMATypes> type = mma.getMultiplicandAPtxType();
  if (!type && !mma.getOperandA().empty()) {
    Type a = mma.getOperandA().front().getType();
    if (isPackedPair(a, Float16Type::get(context)) && !a.isInteger(32))
      type = NVVM::MMATypes::f16;
    else if (isPackedPair(a, BFloat16Type::get(context)) && !a.isInteger(32))
      type = NVVM::MMATypes::bf16;
  }
  std::optional<NVVM::MMATypes> typeB = mma.getMultiplicandBPtxType();
  if (!type || (*type != NVVM::MMATypes::f16 && *type != NVVM::MMATypes::bf16) ||
      (typeB && *typeB != *type)) {
    reason = "only f16 and bf16 multiplicands are emulated";
    return failure();
  }
  NVVM::MMAShapeAttr shape = mma.getShapeAttr();
  if (shape.getM() != 16 || shape.getN() != 8 || shape.getK() != 16) {
    reason = "only the m16n8k16 shape is emulated";
    return failure();
  }
  Type element = *type == NVVM::MMATypes::f16
                     ? Type(Float16Type::get(context))
                     : Type(BFloat16Type::get(context));
  auto isPacked = [&](Value value) {
    return isPackedPair(value.getType(), element);
  };
  Type f32 = Float32Type::get(context);
  auto result = dyn_cast<LLVM::LLVMStructType>(mma.getRes().getType());
  if (mma.getOperandA().size() != 4 || mma.getOperandB().size() != 2 ||
      !llvm::all_of(mma.getOperandA(), isPacked) ||
      !llvm::all_of(mma.getOperandB(), isPacked) ||
      mma.getOperandC().size() != 4 ||
      !llvm::all_of(mma.getOperandC().getTypes(),
                    [&](Type t) { return t == f32; }) ||
      !result || result.getBody().size() != 4 ||
      !llvm::all_of(result.getBody(), [&](Type t) { return t == f32; })) {
    reason = "only 4 A and 2 B registers of packed pairs with 4 f32 "
             "accumulators are emulated";
    return failure();
  }
  return *type == NVVM::MMATypes::f16 ? int(KILN_EMU_MMA_F16)
                                      : int(KILN_EMU_MMA_BF16);
}

/// Reports, in `reason`, why the emulator does not implement `load`:
/// it runs ldmatrix.m8n8 of b16 elements, x1, x2 or x4, with or without
/// .trans (`#nvvm.mma_layout<col>`).
static LogicalResult checkLdMatrix(NVVM::LdMatrixOp load, std::string &reason) {
  NVVM::LdStMatrixShapeAttr shape = load.getShape();
  uint32_t num = load.getNum();
  if (shape.getM() != 8 || shape.getN() != 8 ||
      load.getEltType() != NVVM::LdStMatrixEltType::B16 ||
      (num != 1 && num != 2 && num != 4)) {
    reason = "only m8n8 b16 matrices, x1, x2 or x4, are emulated";
    return failure();
  }
  return success();
}

/// Whether `global` is the zero-sized workgroup global that
/// `gpu.dynamic_shared_memory` lowers to.
static bool isDynamicSharedMemory(LLVM::GlobalOp global) {
  auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
  return global.getAddrSpace() == 3 && array && array.getNumElements() == 0;
}

/// The kinds of memory access that `__kiln_emu_misaligned` reports, with
/// their values in its `kind` operand.
enum class AccessKind {
  Load = KILN_EMU_ACCESS_LOAD,
  Store = KILN_EMU_ACCESS_STORE,
  Atomic = KILN_EMU_ACCESS_ATOMIC
};

namespace {

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
    return convergent(get("__kiln_emu_shfl_sync", i32,
                          {i32, i32, i32, i32, i32, pointer()}));
  }
  LLVM::LLVMFuncOp mma() {
    Type i32 = integer(32), f32 = Float32Type::get(module.getContext());
    return convergent(get("__kiln_emu_mma_m16n8k16_f32", voidType(),
                          {i32, i32, i32, i32, i32, i32, i32, f32, f32, f32,
                           f32, pointer()}));
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

struct KilnGPUEmulateKernelsPass
    : kiln::impl::KilnGPUEmulateKernelsPassBase<KilnGPUEmulateKernelsPass> {
  void runOnOperation() override;

private:
  LogicalResult checkModule(gpu::GPUModuleOp gpuModule);
  void rewriteNVVMOps(LLVM::LLVMFuncOp func, EmulatorABI &abi);
  void checkAlignment(LLVM::LLVMFuncOp func, EmulatorABI &abi,
                      NVPTXAlignments &alignments);
  void recordWorkgroupAccesses(LLVM::LLVMFuncOp func, EmulatorABI &abi,
                               NVPTXAlignments &alignments,
                               const DenseSet<Operation *> &accesses);
  void addWorkgroupTable(gpu::GPUModuleOp gpuModule,
                         ArrayRef<std::pair<LLVM::GlobalOp, uint64_t>> buffers);
  LogicalResult moveModule(gpu::GPUModuleOp gpuModule, EmulatorABI &abi);
  void rewriteLaunch(gpu::LaunchFuncOp launch, EmulatorABI &abi);

  /// The entry function of each kernel, by "module::kernel".
  llvm::StringMap<LLVM::LLVMFuncOp> entries;
  /// The moved kernels, by "module::kernel".
  llvm::StringMap<LLVM::LLVMFuncOp> kernels;
  /// The last op of the launch argument slots in each host function.
  DenseMap<Operation *, Operation *> lastSlots;
  /// The table of static workgroup buffers of each gpu.module that has
  /// some, and their number.
  llvm::StringMap<std::pair<LLVM::GlobalOp, int64_t>> workgroupTables;
};

} // namespace

/// The name of `symbol` of `gpuModule` in the host module.
static std::string getHostName(gpu::GPUModuleOp gpuModule, StringRef symbol) {
  return ("__kiln_emu." + gpuModule.getName() + "." + symbol).str();
}

/// Reports every op of `gpuModule` the emulator cannot run.
LogicalResult
KilnGPUEmulateKernelsPass::checkModule(gpu::GPUModuleOp gpuModule) {
  bool ok = true;
  for (Operation &op : gpuModule.getBody()->getOperations()) {
    if (isa<LLVM::GlobalOp>(op))
      continue;
    auto func = dyn_cast<LLVM::LLVMFuncOp>(op);
    if (!func) {
      op.emitError() << "cannot emulate '" << op.getName() << "' in gpu.module @"
                     << gpuModule.getName()
                     << ": only llvm.func and llvm.mlir.global are expected "
                        "after convert-gpu-to-nvvm";
      ok = false;
      continue;
    }
    auto where = [&] {
      return (func->hasAttr(gpu::GPUDialect::getKernelFuncAttrName())
                  ? "kernel @"
                  : "function @") +
             gpuModule.getName().str() + "::@" + func.getName().str();
    };
    func.walk([&](Operation *nested) {
      std::string reason;
      bool unsupported = false;
      if (isa<LLVM::InlineAsmOp>(nested)) {
        unsupported = true;
        reason = "inline assembly cannot run on the host";
      } else if (auto intrinsic = dyn_cast<LLVM::CallIntrinsicOp>(nested)) {
        if (intrinsic.getIntrin().starts_with("llvm.nvvm.")) {
          unsupported = true;
          reason = "NVVM intrinsic '" + intrinsic.getIntrin().str() +
                   "' has no emulation";
        }
      } else if (isa<NVVM::NVVMDialect>(nested->getDialect())) {
        if (auto barrier = dyn_cast<NVVM::BarrierOp>(nested)) {
          unsupported = barrier->getNumOperands() != 0 ||
                        barrier->getNumResults() != 0 ||
                        barrier.getReductionOpAttr();
          reason = "only a barrier of the whole block without a reduction is "
                   "emulated";
        } else if (auto mma = dyn_cast<NVVM::MmaOp>(nested)) {
          unsupported = failed(getMmaKind(mma, reason));
        } else if (auto load = dyn_cast<NVVM::LdMatrixOp>(nested)) {
          unsupported = failed(checkLdMatrix(load, reason));
        } else if (!isa<NVVM::Barrier0Op, NVVM::ShflOp>(nested) &&
                   getSpecialRegister(nested) < 0) {
          unsupported = true;
          reason = "the emulator does not implement it";
        }
      } else if (!isa<LLVM::LLVMDialect>(nested->getDialect())) {
        unsupported = true;
        reason = "only LLVM and NVVM dialect ops are expected after "
                 "convert-gpu-to-nvvm";
      }
      if (unsupported) {
        nested->emitError() << "cannot emulate '" << nested->getName()
                            << "' in " << where() << ": " << reason;
        ok = false;
      }
    });
  }
  return success(ok);
}

/// Replaces the NVVM ops of `func` (address spaces already dropped) with
/// calls of the emulator.
void KilnGPUEmulateKernelsPass::rewriteNVVMOps(LLVM::LLVMFuncOp func,
                                               EmulatorABI &abi) {
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) {
    if (isa<NVVM::NVVMDialect>(op->getDialect()) ||
        isa<LLVM::AddrSpaceCastOp, LLVM::AddressOfOp>(op))
      ops.push_back(op);
  });
  if (ops.empty())
    return;
  MLIRContext *context = func.getContext();
  IRRewriter rewriter(context);
  Type i8 = rewriter.getI8Type(), i32 = rewriter.getI32Type();
  Type f32 = rewriter.getF32Type();
  Type ptr = LLVM::LLVMPointerType::get(context);
  auto constantI32 = [&](Location loc, int64_t value) -> Value {
    return LLVM::ConstantOp::create(rewriter, loc, i32, value);
  };
  // Scratch memory of a call's outputs: one alloca per op in the entry
  // block, so loops do not grow the (fiber's) stack.
  auto entryAlloca = [&](Location loc, Type element, int64_t count) -> Value {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&func.getBody().front());
    Value size = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI64Type(),
                                          count);
    return LLVM::AllocaOp::create(rewriter, loc, ptr, element, size);
  };
  SymbolTableCollection symbols;
  for (Operation *op : ops) {
    Location loc = op->getLoc();
    rewriter.setInsertionPoint(op);
    if (auto cast = dyn_cast<LLVM::AddrSpaceCastOp>(op)) {
      rewriter.replaceOp(cast, cast.getArg());
    } else if (auto address = dyn_cast<LLVM::AddressOfOp>(op)) {
      auto global = dyn_cast_or_null<LLVM::GlobalOp>(
          symbols.lookupNearestSymbolFrom(address, address.getGlobalNameAttr()));
      if (global && isDynamicSharedMemory(global))
        rewriter.replaceOp(
            address,
            LLVM::CallOp::create(rewriter, loc, abi.dynamicShared(), {})
                .getResult());
    } else if (int which = getSpecialRegister(op); which >= 0) {
      rewriter.replaceOp(op, LLVM::CallOp::create(rewriter, loc, abi.sreg(),
                                                  constantI32(loc, which))
                                 .getResult());
    } else if (isa<NVVM::Barrier0Op, NVVM::BarrierOp>(op)) {
      LLVM::CallOp::create(rewriter, loc, abi.barrier(), {});
      rewriter.eraseOp(op);
    } else if (auto shuffle = dyn_cast<NVVM::ShflOp>(op)) {
      Value value = shuffle.getVal();
      Type valueType = value.getType();
      if (valueType != i32)
        value = LLVM::BitcastOp::create(rewriter, loc, i32, value);
      Value valid = entryAlloca(loc, i8, 1);
      Value result =
          LLVM::CallOp::create(
              rewriter, loc, abi.shuffle(),
              {constantI32(loc, getShuffleMode(shuffle.getKind())),
               shuffle.getThreadMask(), value, shuffle.getOffset(),
               shuffle.getMaskAndClamp(), valid})
              .getResult();
      if (valueType != i32)
        result = LLVM::BitcastOp::create(rewriter, loc, valueType, result);
      if (shuffle.getReturnValueAndIsValid()) {
        Type structType = shuffle.getRes().getType();
        Value isValid = LLVM::ICmpOp::create(
            rewriter, loc, LLVM::ICmpPredicate::ne,
            LLVM::LoadOp::create(rewriter, loc, i8, valid),
            LLVM::ConstantOp::create(rewriter, loc, i8, 0));
        Value pair = LLVM::PoisonOp::create(rewriter, loc, structType);
        pair = LLVM::InsertValueOp::create(rewriter, loc, structType, pair,
                                           result, ArrayRef<int64_t>{0});
        result = LLVM::InsertValueOp::create(rewriter, loc, structType, pair,
                                             isValid, ArrayRef<int64_t>{1});
      }
      rewriter.replaceOp(shuffle, result);
    } else if (auto mma = dyn_cast<NVVM::MmaOp>(op)) {
      std::string reason;
      int kind = *getMmaKind(mma, reason);
      SmallVector<Value> args = {constantI32(loc, kind)};
      for (Value value : llvm::concat<Value>(mma.getOperandA(),
                                             mma.getOperandB()))
        args.push_back(value.getType() == i32
                           ? value
                           : LLVM::BitcastOp::create(rewriter, loc, i32, value)
                                 .getResult());
      llvm::append_range(args, mma.getOperandC());
      Value d = entryAlloca(loc, f32, 4);
      args.push_back(d);
      LLVM::CallOp::create(rewriter, loc, abi.mma(), args);
      Type structType = mma.getRes().getType();
      Value result = LLVM::PoisonOp::create(rewriter, loc, structType);
      for (int64_t i = 0; i < 4; ++i) {
        Value element = LLVM::GEPOp::create(rewriter, loc, ptr, f32, d,
                                            ArrayRef<LLVM::GEPArg>{int32_t(i)});
        Value loaded = LLVM::LoadOp::create(rewriter, loc, f32, element);
        result = LLVM::InsertValueOp::create(rewriter, loc, structType, result,
                                             loaded, ArrayRef<int64_t>{i});
      }
      rewriter.replaceOp(mma, result);
    } else if (auto load = dyn_cast<NVVM::LdMatrixOp>(op)) {
      // One i32 per matrix, written by the call: the result is that i32
      // (x1) or a struct of them.
      int64_t num = load.getNum();
      Value out = entryAlloca(loc, i32, 4);
      bool transpose = load.getLayout() == NVVM::MMALayout::col;
      LLVM::CallOp::create(rewriter, loc, abi.ldmatrix(),
                           {constantI32(loc, num), constantI32(loc, transpose),
                            load.getPtr(), out});
      SmallVector<Value> registers;
      for (int64_t i = 0; i < num; ++i) {
        Value element = LLVM::GEPOp::create(rewriter, loc, ptr, i32, out,
                                            ArrayRef<LLVM::GEPArg>{int32_t(i)});
        registers.push_back(LLVM::LoadOp::create(rewriter, loc, i32, element));
      }
      Type resultType = load.getRes().getType();
      Value result = registers.front();
      if (resultType != i32) {
        result = LLVM::PoisonOp::create(rewriter, loc, resultType);
        for (auto [i, value] : llvm::enumerate(registers))
          result =
              LLVM::InsertValueOp::create(rewriter, loc, resultType, result,
                                          value, ArrayRef<int64_t>{int64_t(i)});
      }
      rewriter.replaceOp(load, result);
    }
  }
}

/// The address, the alignment NVPTX requires and the kind of `op` if it is a
/// load, store or atomic.
static std::optional<std::tuple<Value, uint64_t, AccessKind>>
getAccess(Operation *op, NVPTXAlignments &alignments) {
  return llvm::TypeSwitch<Operation *,
                          std::optional<std::tuple<Value, uint64_t, AccessKind>>>(
             op)
      .Case([&](LLVM::LoadOp load) {
        return std::make_tuple(
            load.getAddr(),
            load.getAlignment().value_or(
                alignments.getABIAlignment(load.getType())),
            AccessKind::Load);
      })
      .Case([&](LLVM::StoreOp store) {
        return std::make_tuple(
            store.getAddr(),
            store.getAlignment().value_or(
                alignments.getABIAlignment(store.getValue().getType())),
            AccessKind::Store);
      })
      .Case([&](LLVM::AtomicRMWOp atomic) {
        return std::make_tuple(
            atomic.getPtr(),
            atomic.getAlignment().value_or(
                alignments.getStoreSize(atomic.getVal().getType())),
            AccessKind::Atomic);
      })
      .Case([&](LLVM::AtomicCmpXchgOp atomic) {
        return std::make_tuple(
            atomic.getPtr(),
            atomic.getAlignment().value_or(
                alignments.getStoreSize(atomic.getVal().getType())),
            AccessKind::Atomic);
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// Guards each load, store and atomic of `func` (address spaces dropped) that
/// needs more than byte alignment with a test of its address: a misaligned
/// address is a CUDA error on the GPU but works on the host. The test is
/// inline (`ptrtoint`, `and`, `icmp`, `cond_br`); only a misaligned access
/// branches to a block at the end of the function (one per alignment and
/// kind) that calls `__kiln_emu_misaligned`, which stops the launch and does
/// not return.
void KilnGPUEmulateKernelsPass::checkAlignment(LLVM::LLVMFuncOp func,
                                               EmulatorABI &abi,
                                               NVPTXAlignments &alignments) {
  SmallVector<std::pair<Operation *, std::tuple<Value, uint64_t, AccessKind>>>
      accesses;
  func.walk([&](Operation *op) {
    if (auto access = getAccess(op, alignments);
        access && std::get<1>(*access) > 1)
      accesses.push_back({op, *access});
  });
  if (accesses.empty())
    return;
  MLIRContext *context = func.getContext();
  IRRewriter rewriter(context);
  Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
  Type ptr = LLVM::LLVMPointerType::get(context);
  Location loc = func.getLoc();

  // The constants, once per function in its entry block.
  Block &entry = func.getBody().front();
  DenseMap<std::pair<Type, int64_t>, Value> constants;
  auto getConstant = [&](Type type, int64_t value) {
    Value &constant = constants[{type, value}];
    if (!constant) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&entry);
      constant = LLVM::ConstantOp::create(rewriter, loc, type, value);
    }
    return constant;
  };

  // ^misaligned(%address): the report, one block per alignment and kind,
  // shared by the accesses of the function.
  DenseMap<std::pair<uint64_t, AccessKind>, Block *> reports;
  auto getReport = [&](uint64_t alignment, AccessKind kind) {
    Block *&report = reports[{alignment, kind}];
    if (!report) {
      OpBuilder::InsertionGuard guard(rewriter);
      report = rewriter.createBlock(&func.getBody(), func.getBody().end(),
                                    {ptr}, {loc});
      Value alignmentValue =
          LLVM::ConstantOp::create(rewriter, loc, i64, int64_t(alignment));
      Value kindValue =
          LLVM::ConstantOp::create(rewriter, loc, i32, int64_t(kind));
      LLVM::CallOp::create(
          rewriter, loc, abi.misaligned(),
          {report->getArgument(0), alignmentValue, kindValue});
      LLVM::UnreachableOp::create(rewriter, loc);
    }
    return report;
  };

  for (auto &[op, access] : accesses) {
    auto [address, alignment, kind] = access;
    Location opLoc = op->getLoc();
    Block *report = getReport(alignment, kind);
    Block *before = op->getBlock();
    Block *after = rewriter.splitBlock(before, op->getIterator());
    rewriter.setInsertionPointToEnd(before);
    Value bits = LLVM::PtrToIntOp::create(rewriter, opLoc, i64, address);
    Value low = LLVM::AndOp::create(rewriter, opLoc, bits,
                                    getConstant(i64, int64_t(alignment) - 1));
    Value misaligned = LLVM::ICmpOp::create(
        rewriter, opLoc, LLVM::ICmpPredicate::ne, low, getConstant(i64, 0));
    LLVM::CondBrOp::create(rewriter, opLoc, misaligned, report,
                           ValueRange{address}, after, ValueRange(),
                           std::make_pair(uint32_t(1), uint32_t(1u << 20)));
  }
}

/// The address of a load or store in workgroup memory (address space 3)
/// and whether it writes, or null. Atomics are not recorded: they do not
/// race with each other.
static std::pair<Value, bool> getWorkgroupAccess(Operation *op) {
  auto [address, isWrite] =
      llvm::TypeSwitch<Operation *, std::pair<Value, bool>>(op)
          .Case([](LLVM::LoadOp load) {
            return std::make_pair(load.getAddr(), false);
          })
          .Case([](LLVM::StoreOp store) {
            return std::make_pair(store.getAddr(), true);
          })
          .Default([](Operation *) { return std::make_pair(Value(), false); });
  auto type =
      address ? dyn_cast<LLVM::LLVMPointerType>(address.getType()) : nullptr;
  if (!type || type.getAddressSpace() != 3)
    return {Value(), false};
  return {address, isWrite};
}

/// Lets the race check see the workgroup loads and stores of `func`
/// (`accesses`, found before the address spaces were dropped): the function
/// asks once whether the launch checks races, and each access then calls
/// `__kiln_emu_shared_access(address, bytes, isWrite)` behind a test of the
/// answer (a predictable branch when the check is off).
void KilnGPUEmulateKernelsPass::recordWorkgroupAccesses(
    LLVM::LLVMFuncOp func, EmulatorABI &abi, NVPTXAlignments &alignments,
    const DenseSet<Operation *> &accesses) {
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) {
    if (accesses.contains(op))
      ops.push_back(op);
  });
  if (ops.empty())
    return;
  MLIRContext *context = func.getContext();
  IRRewriter rewriter(context);
  Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
  Location loc = func.getLoc();
  rewriter.setInsertionPointToStart(&func.getBody().front());
  Value enabled = LLVM::ICmpOp::create(
      rewriter, loc, LLVM::ICmpPredicate::ne,
      LLVM::CallOp::create(rewriter, loc, abi.racecheckEnabled(), {})
          .getResult(),
      LLVM::ConstantOp::create(rewriter, loc, i32, 0));
  Value isRead = LLVM::ConstantOp::create(rewriter, loc, i32, 0);
  Value isWrite = LLVM::ConstantOp::create(rewriter, loc, i32, 1);
  for (Operation *op : ops) {
    Location opLoc = op->getLoc();
    auto load = dyn_cast<LLVM::LoadOp>(op);
    Type type = load ? load.getType()
                     : cast<LLVM::StoreOp>(op).getValue().getType();
    Value address = load ? load.getAddr() : cast<LLVM::StoreOp>(op).getAddr();
    Block *before = op->getBlock();
    Block *after = rewriter.splitBlock(before, op->getIterator());
    Block *record = rewriter.createBlock(after);
    LLVM::CallOp::create(
        rewriter, opLoc, abi.sharedAccess(),
        {address,
         LLVM::ConstantOp::create(rewriter, opLoc, i64,
                                  int64_t(alignments.getStoreSize(type))),
         load ? isRead : isWrite});
    LLVM::BrOp::create(rewriter, opLoc, after);
    rewriter.setInsertionPointToEnd(before);
    LLVM::CondBrOp::create(rewriter, opLoc, enabled, record, after);
  }
}

/// Adds a constant table of the static workgroup buffers of `gpuModule`
/// (moved globals and their sizes in bytes), `KilnEmuWorkgroupBuffer`s:
/// address, size and the name `@module::@global`, which each launch of its
/// kernels declares to the race check.
void KilnGPUEmulateKernelsPass::addWorkgroupTable(
    gpu::GPUModuleOp gpuModule,
    ArrayRef<std::pair<LLVM::GlobalOp, uint64_t>> buffers) {
  ModuleOp module = getOperation();
  MLIRContext *context = module.getContext();
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  Location loc = gpuModule.getLoc();
  Type ptr = LLVM::LLVMPointerType::get(context);
  Type i8 = builder.getI8Type(), i64 = builder.getI64Type();
  std::string prefix = getHostName(gpuModule, "");
  SmallVector<LLVM::GlobalOp> names;
  for (auto [i, buffer] : llvm::enumerate(buffers)) {
    LLVM::GlobalOp global = buffer.first;
    std::string name = ("@" + gpuModule.getName() + "::@" +
                        global.getSymName().drop_front(prefix.size()))
                           .str();
    name.push_back('\0');
    names.push_back(LLVM::GlobalOp::create(
        builder, loc, LLVM::LLVMArrayType::get(i8, name.size()),
        /*isConstant=*/true, LLVM::Linkage::Internal,
        prefix + "__workgroup_name_" + std::to_string(i),
        builder.getStringAttr(name)));
  }
  auto entryType = LLVM::LLVMStructType::getLiteral(context, {ptr, i64, ptr});
  auto tableType = LLVM::LLVMArrayType::get(entryType, buffers.size());
  auto table = LLVM::GlobalOp::create(builder, loc, tableType,
                                      /*isConstant=*/true,
                                      LLVM::Linkage::Internal,
                                      prefix + "__workgroup_buffers",
                                      Attribute());
  builder.setInsertionPointToStart(
      builder.createBlock(&table.getInitializerRegion()));
  Value value = LLVM::PoisonOp::create(builder, loc, tableType);
  for (auto [i, buffer] : llvm::enumerate(buffers)) {
    LLVM::GlobalOp global = buffer.first;
    Value fields[] = {
        LLVM::AddressOfOp::create(builder, loc, global),
        LLVM::ConstantOp::create(builder, loc, i64, int64_t(buffer.second)),
        LLVM::AddressOfOp::create(builder, loc, names[i])};
    for (auto [j, field] : llvm::enumerate(fields))
      value = LLVM::InsertValueOp::create(
          builder, loc, value, field,
          ArrayRef<int64_t>{int64_t(i), int64_t(j)});
  }
  LLVM::ReturnOp::create(builder, loc, value);
  workgroupTables[gpuModule.getName()] = {table, int64_t(buffers.size())};
}

/// Drops the `nvvm.*` and `gpu.*` attributes of `func` and its arguments.
static void dropTargetAttributes(LLVM::LLVMFuncOp func) {
  auto isTargetAttr = [](StringRef name) {
    return name.starts_with("nvvm.") || name.starts_with("gpu.");
  };
  for (NamedAttribute attr :
       llvm::to_vector(func->getDiscardableAttrDictionary()))
    if (isTargetAttr(attr.getName().strref()))
      func->removeDiscardableAttr(attr.getName());
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (DictionaryAttr attrs = func.getArgAttrDict(i))
      for (NamedAttribute attr : attrs)
        if (isTargetAttr(attr.getName().strref()))
          func.removeArgAttr(i, attr.getName());
}

/// Moves the functions and globals of `gpuModule` into the host module,
/// renamed, with NVVM ops replaced, and adds one entry per kernel.
LogicalResult KilnGPUEmulateKernelsPass::moveModule(gpu::GPUModuleOp gpuModule,
                                                    EmulatorABI &abi) {
  ModuleOp module = getOperation();
  MLIRContext *context = module.getContext();

  // Rename every defined symbol (declarations keep their names: they are
  // the libdevice functions the emulator defines).
  for (Operation &op : llvm::make_early_inc_range(gpuModule.getOps())) {
    auto symbol = dyn_cast<SymbolOpInterface>(op);
    auto func = dyn_cast<LLVM::LLVMFuncOp>(op);
    if (!symbol || (func && func.isExternal()))
      continue;
    auto name = StringAttr::get(context,
                                getHostName(gpuModule, symbol.getName()));
    if (failed(SymbolTable::replaceAllSymbolUses(&op, name, gpuModule)))
      return op.emitError() << "cannot rename the uses of @"
                            << symbol.getName();
    SymbolTable::setSymbolName(&op, name);
  }

  // The workgroup loads and stores, for the race check: their address
  // space says so until it goes.
  DenseSet<Operation *> workgroupAccesses;
  gpuModule.walk([&](Operation *op) {
    if (getWorkgroupAccess(op).first)
      workgroupAccesses.insert(op);
  });

  // No address spaces on the host.
  AttrTypeReplacer replacer;
  replacer.addReplacement([](LLVM::LLVMPointerType type) -> Type {
    return LLVM::LLVMPointerType::get(type.getContext());
  });
  for (Operation &op : gpuModule.getOps())
    replacer.recursivelyReplaceElementsIn(&op, /*replaceAttrs=*/true,
                                          /*replaceLocs=*/false,
                                          /*replaceTypes=*/true);

  NVPTXAlignments alignments(gpuModule);
  Block *hostBody = module.getBody();
  SmallVector<LLVM::GlobalOp> dynamicShared;
  SmallVector<std::pair<LLVM::GlobalOp, uint64_t>> workgroupBuffers;
  for (Operation &op : llvm::make_early_inc_range(gpuModule.getOps())) {
    if (auto global = dyn_cast<LLVM::GlobalOp>(op)) {
      if (isDynamicSharedMemory(global)) {
        dynamicShared.push_back(global);
        continue;
      }
      if (global.getAddrSpace() == 3)
        workgroupBuffers.push_back(
            {global, alignments.getAllocSize(global.getGlobalType())});
      global.setAddrSpace(0);
      global.setLinkage(LLVM::Linkage::Internal);
      op.moveBefore(hostBody, hostBody->end());
      continue;
    }
    auto func = cast<LLVM::LLVMFuncOp>(op);
    if (func.isExternal()) {
      // Declared once in the host module.
      if (Operation *existing = module.lookupSymbol(func.getName())) {
        auto hostFunc = dyn_cast<LLVM::LLVMFuncOp>(existing);
        if (!hostFunc || hostFunc.getFunctionType() != func.getFunctionType())
          return func.emitError()
                 << "cannot emulate the declaration of @" << func.getName()
                 << " in gpu.module @" << gpuModule.getName()
                 << ": the host module has another @" << func.getName();
        continue;
      }
      dropTargetAttributes(func);
      op.moveBefore(hostBody, hostBody->end());
      continue;
    }
    bool isKernel = func->hasAttr(gpu::GPUDialect::getKernelFuncAttrName());
    checkAlignment(func, abi, alignments);
    recordWorkgroupAccesses(func, abi, alignments, workgroupAccesses);
    rewriteNVVMOps(func, abi);
    dropTargetAttributes(func);
    func.setLinkage(LLVM::Linkage::Internal);
    op.moveBefore(hostBody, hostBody->end());
    if (!isKernel)
      continue;

    // void entry(ptr params): argument i is *params[i].
    std::string key = (gpuModule.getName() + "::" +
                       func.getName().drop_front(
                           getHostName(gpuModule, "").size()))
                          .str();
    OpBuilder builder = OpBuilder::atBlockEnd(hostBody);
    Location loc = func.getLoc();
    Type ptr = LLVM::LLVMPointerType::get(context);
    auto entry = LLVM::LLVMFuncOp::create(
        builder, loc, (func.getName() + ".entry").str(),
        LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context), {ptr}),
        LLVM::Linkage::Internal);
    Block *block = entry.addEntryBlock(builder);
    builder.setInsertionPointToStart(block);
    SmallVector<Value> args;
    for (auto [i, type] :
         llvm::enumerate(func.getFunctionType().getParams())) {
      Value slot = LLVM::GEPOp::create(builder, loc, ptr, ptr,
                                       block->getArgument(0),
                                       ArrayRef<LLVM::GEPArg>{int32_t(i)});
      Value address = LLVM::LoadOp::create(builder, loc, ptr, slot);
      args.push_back(LLVM::LoadOp::create(builder, loc, type, address));
    }
    LLVM::CallOp::create(builder, loc, func, args);
    LLVM::ReturnOp::create(builder, loc, ValueRange());
    entries[key] = entry;
    kernels[key] = func;
  }
  for (LLVM::GlobalOp global : dynamicShared)
    global.erase();
  if (!workgroupBuffers.empty())
    addWorkgroupTable(gpuModule, workgroupBuffers);
  return success();
}

/// Reports why the emulator cannot run `launch`, if it cannot.
static LogicalResult checkLaunch(gpu::LaunchFuncOp launch, ModuleOp module) {
  auto fail = [&](StringRef reason) {
    return launch.emitError()
           << "cannot emulate the launch of @"
           << launch.getKernelModuleName().getValue() << "::@"
           << launch.getKernelName().getValue() << ": " << reason;
  };
  if (launch.hasClusterSize())
    return fail("cluster launches are not emulated");
  if ((launch.getAsyncToken() && !launch.getAsyncToken().use_empty()) ||
      !launch.getAsyncDependencies().empty())
    return fail("it has async tokens (run gpu-to-llvm first)");
  auto gpuModule =
      module.lookupSymbol<gpu::GPUModuleOp>(launch.getKernelModuleName());
  auto kernel = gpuModule ? gpuModule.lookupSymbol<LLVM::LLVMFuncOp>(
                                launch.getKernelName())
                          : LLVM::LLVMFuncOp();
  if (!kernel || !kernel->hasAttr(gpu::GPUDialect::getKernelFuncAttrName()))
    return fail("no gpu.module defines that kernel");
  if (TypeRange(launch.getKernelOperands()) !=
          TypeRange(kernel.getFunctionType().getParams()) ||
      !launch->getParentOfType<LLVM::LLVMFuncOp>())
    return fail("its operands do not match the kernel's LLVM parameters "
                "(run gpu-to-llvm first)");
  return success();
}

/// Replaces `launch` (checked by checkLaunch) with a call of
/// `__kiln_emu_launch`.
void KilnGPUEmulateKernelsPass::rewriteLaunch(gpu::LaunchFuncOp launch,
                                              EmulatorABI &abi) {
  std::string key =
      (launch.getKernelModuleName().getValue() + "::" +
       launch.getKernelName().getValue())
          .str();
  LLVM::LLVMFuncOp entry = entries[key];
  ArrayRef<Type> params = kernels[key].getFunctionType().getParams();
  ValueRange operands = launch.getKernelOperands();
  auto func = launch->getParentOfType<LLVM::LLVMFuncOp>();
  MLIRContext *context = launch.getContext();
  IRRewriter rewriter(context);
  Location loc = launch.getLoc();
  Type ptr = LLVM::LLVMPointerType::get(context);
  Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();

  // The argument slots and the array of their addresses live in the entry
  // block (a launch in a loop reuses them), in the order of the launches.
  SmallVector<Value> slots;
  Value array;
  {
    OpBuilder::InsertionGuard guard(rewriter);
    Operation *&lastSlot = lastSlots[func];
    if (lastSlot)
      rewriter.setInsertionPointAfter(lastSlot);
    else
      rewriter.setInsertionPointToStart(&func.getBody().front());
    Value one = LLVM::ConstantOp::create(rewriter, loc, i64, 1);
    for (Type type : params)
      slots.push_back(LLVM::AllocaOp::create(rewriter, loc, ptr, type, one));
    if (!params.empty()) {
      Value count = LLVM::ConstantOp::create(rewriter, loc, i64,
                                             int64_t(params.size()));
      array = LLVM::AllocaOp::create(rewriter, loc, ptr, ptr, count);
    }
    lastSlot = rewriter.getInsertionPoint() == rewriter.getBlock()->begin()
                   ? nullptr
                   : &*std::prev(rewriter.getInsertionPoint());
  }
  rewriter.setInsertionPoint(launch);
  for (auto [i, value, slot] : llvm::enumerate(operands, slots)) {
    LLVM::StoreOp::create(rewriter, loc, value, slot);
    Value element = LLVM::GEPOp::create(rewriter, loc, ptr, ptr, array,
                                        ArrayRef<LLVM::GEPArg>{int32_t(i)});
    LLVM::StoreOp::create(rewriter, loc, slot, element);
  }
  if (!array)
    array = LLVM::ZeroOp::create(rewriter, loc, ptr);
  auto toI64 = [&](Value value) -> Value {
    if (value.getType() == i64)
      return value;
    if (isa<IndexType>(value.getType()))
      return arith::IndexCastOp::create(rewriter, loc, i64, value);
    return LLVM::ZExtOp::create(rewriter, loc, i64, value);
  };
  Value sharedBytes = launch.getDynamicSharedMemorySize();
  if (!sharedBytes)
    sharedBytes = LLVM::ConstantOp::create(rewriter, loc, i32, 0);
  Value stream = launch.getAsyncObject();
  if (!stream)
    stream = LLVM::ZeroOp::create(rewriter, loc, ptr);
  // The kernel module's static workgroup buffers, for the race check.
  auto table = workgroupTables.find(launch.getKernelModuleName().getValue());
  if (table != workgroupTables.end())
    LLVM::CallOp::create(
        rewriter, loc, abi.workgroupBuffers(),
        {LLVM::AddressOfOp::create(rewriter, loc, table->second.first),
         LLVM::ConstantOp::create(rewriter, loc, i32, table->second.second)});
  Value entryAddress =
      LLVM::AddressOfOp::create(rewriter, loc, entry);
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  LLVM::CallOp::create(rewriter, loc, abi.launch(),
                       {entryAddress, toI64(grid.x), toI64(grid.y),
                        toI64(grid.z), toI64(block.x), toI64(block.y),
                        toI64(block.z), sharedBytes, stream, array});
  rewriter.eraseOp(launch);
}

void KilnGPUEmulateKernelsPass::runOnOperation() {
  ModuleOp module = getOperation();
  entries.clear();
  kernels.clear();
  lastSlots.clear();
  workgroupTables.clear();

  // Check everything first: an error leaves the module as it was.
  bool ok = true;
  SmallVector<gpu::GPUModuleOp> gpuModules =
      llvm::to_vector(module.getOps<gpu::GPUModuleOp>());
  for (gpu::GPUModuleOp gpuModule : gpuModules)
    ok &= succeeded(checkModule(gpuModule));
  SmallVector<gpu::LaunchFuncOp> launches;
  module.walk([&](gpu::LaunchFuncOp launch) { launches.push_back(launch); });
  for (gpu::LaunchFuncOp launch : launches)
    ok &= succeeded(checkLaunch(launch, module));
  if (!ok)
    return signalPassFailure();

  EmulatorABI abi(module);
  for (gpu::GPUModuleOp gpuModule : gpuModules) {
    if (failed(moveModule(gpuModule, abi)))
      return signalPassFailure();
  }
  for (gpu::LaunchFuncOp launch : launches)
    rewriteLaunch(launch, abi);
  for (gpu::GPUModuleOp gpuModule : gpuModules)
    gpuModule.erase();
  for (auto binary : llvm::make_early_inc_range(module.getOps<gpu::BinaryOp>()))
    binary.erase();
  module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
}
