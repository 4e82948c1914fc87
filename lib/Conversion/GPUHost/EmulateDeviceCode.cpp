//===- EmulateDeviceCode.cpp - The kernels' code for the emulator ---------===//
//
// The part of kiln-gpu-emulate-kernels (EmulateKernels.cpp) that works on
// the LLVM functions of a gpu.module: the check that the emulator runs
// every op, and the rewrites that make the functions host code. NVVM ops
// become calls of Kiln's GPU emulator (include/kiln/Runtime/GPUEmulator.h,
// with the codes of include/kiln/Runtime/GPUEmulatorABI.h), each access
// that NVPTX would need aligned is guarded by a test of its address, and
// workgroup loads and stores report to the race check. See
// docs/GPUEmulator.md.
//
//===----------------------------------------------------------------------===//

#include "EmulateKernels.h"

#include "kiln/Runtime/GPUEmulatorABI.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/TypeSwitch.h"

#include <optional>
#include <tuple>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::emulate_kernels;

//===----------------------------------------------------------------------===//
// What the emulator runs
//===----------------------------------------------------------------------===//

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
  if (!type ||
      (*type != NVVM::MMATypes::f16 && *type != NVVM::MMATypes::bf16) ||
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
bool emulate_kernels::isDynamicSharedMemory(LLVM::GlobalOp global) {
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

/// Reports every op of `gpuModule` the emulator cannot run.
LogicalResult emulate_kernels::checkModule(gpu::GPUModuleOp gpuModule) {
  bool ok = true;
  for (Operation &op : gpuModule.getBody()->getOperations()) {
    if (isa<LLVM::GlobalOp>(op))
      continue;
    auto func = dyn_cast<LLVM::LLVMFuncOp>(op);
    if (!func) {
      op.emitError() << "cannot emulate '" << op.getName()
                     << "' in gpu.module @" << gpuModule.getName()
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

//===----------------------------------------------------------------------===//
// NVVM ops
//===----------------------------------------------------------------------===//

/// Replaces the NVVM ops of `func` (address spaces already dropped) with
/// calls of the emulator.
void emulate_kernels::rewriteNVVMOps(LLVM::LLVMFuncOp func, EmulatorABI &abi) {
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
    Value size =
        LLVM::ConstantOp::create(rewriter, loc, rewriter.getI64Type(), count);
    return LLVM::AllocaOp::create(rewriter, loc, ptr, element, size);
  };
  SymbolTableCollection symbols;
  for (Operation *op : ops) {
    Location loc = op->getLoc();
    rewriter.setInsertionPoint(op);
    if (auto cast = dyn_cast<LLVM::AddrSpaceCastOp>(op)) {
      rewriter.replaceOp(cast, cast.getArg());
    } else if (auto address = dyn_cast<LLVM::AddressOfOp>(op)) {
      auto global =
          dyn_cast_or_null<LLVM::GlobalOp>(symbols.lookupNearestSymbolFrom(
              address, address.getGlobalNameAttr()));
      if (global && isDynamicSharedMemory(global))
        rewriter.replaceOp(address, LLVM::CallOp::create(
                                        rewriter, loc, abi.dynamicShared(), {})
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
      Value result = LLVM::CallOp::create(
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
      for (Value value :
           llvm::concat<Value>(mma.getOperandA(), mma.getOperandB()))
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

//===----------------------------------------------------------------------===//
// Alignment
//===----------------------------------------------------------------------===//

/// The address, the alignment NVPTX requires and the kind of `op` if it is a
/// load, store or atomic.
static std::optional<std::tuple<Value, uint64_t, AccessKind>>
getAccess(Operation *op, NVPTXAlignments &alignments) {
  return llvm::TypeSwitch<
             Operation *,
             std::optional<std::tuple<Value, uint64_t, AccessKind>>>(op)
      .Case([&](LLVM::LoadOp load) {
        return std::make_tuple(load.getAddr(),
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
      .Case<LLVM::AtomicRMWOp, LLVM::AtomicCmpXchgOp>([&](auto atomic) {
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
void emulate_kernels::checkAlignment(LLVM::LLVMFuncOp func, EmulatorABI &abi,
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
      LLVM::CallOp::create(rewriter, loc, abi.misaligned(),
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

//===----------------------------------------------------------------------===//
// The race check
//===----------------------------------------------------------------------===//

/// The address of a load or store in workgroup memory (address space 3)
/// and whether it writes, or null. Atomics are not recorded: they do not
/// race with each other.
std::pair<Value, bool> emulate_kernels::getWorkgroupAccess(Operation *op) {
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
void emulate_kernels::recordWorkgroupAccesses(
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
    Type type =
        load ? load.getType() : cast<LLVM::StoreOp>(op).getValue().getType();
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
