//===- EmulateKernels.cpp - kiln-gpu-emulate-kernels ----------------------===//
//
// Compiles the NVVM kernels of a module for the host CPU: the gpu.modules'
// LLVM functions move into the host module, NVVM ops become calls of Kiln's
// GPU emulator (include/kiln/Runtime/GPUEmulator.h, with the codes of
// include/kiln/Runtime/GPUEmulatorABI.h), and gpu.launch_func becomes a call
// of its launcher. This file holds the pass: its checks of the launches, the
// move of each gpu.module with an entry per kernel and a table of its
// workgroup buffers, and the launch lowering; the functions' code is checked
// and rewritten in EmulateDeviceCode.cpp. See docs/GPUEmulator.md.
//
//===----------------------------------------------------------------------===//

#include "EmulateKernels.h"

#include "kiln/Conversion/GPUHost/Passes.h"

#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNGPUEMULATEKERNELSPASS
#include "kiln/Conversion/GPUHost/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::emulate_kernels;

namespace {

struct KilnGPUEmulateKernelsPass
    : kiln::impl::KilnGPUEmulateKernelsPassBase<KilnGPUEmulateKernelsPass> {
  void runOnOperation() override;

private:
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
