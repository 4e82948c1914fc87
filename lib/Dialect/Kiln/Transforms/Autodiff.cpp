//===- Autodiff.cpp - The kiln-autodiff pass ------------------------------===//
//
// Reverse-mode automatic differentiation in combined mode: the generated
// function clones the forward ops, then walks them in reverse program order
// and asks each active op's AutodiffOpInterface for its operands' adjoints.
// See docs/Autodiff.md.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/Autodiff.h"
#include "Rules/Rules.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallSet.h"

#include <map>
#include <vector>

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNAUTODIFFPASS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

/// Returns true for a ranked tensor of floats: the only values that carry
/// derivatives (integers and booleans are inactive by type).
static bool isDifferentiableType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

static bool isScalarFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() == 0 &&
         isa<FloatType>(tensor.getElementType());
}

static bool isNonDifferentiable(Operation *op) {
  auto rule = dyn_cast<AutodiffOpInterface>(op);
  return rule && rule.isNonDifferentiable();
}

/// Checks that `function` is something the pass can differentiate with
/// respect to `wrt`, emitting an error where it is not.
static LogicalResult checkDifferentiable(func::FuncOp function,
                                         ArrayRef<int64_t> wrt) {
  if (function.isExternal())
    return function.emitError("cannot differentiate the external function '")
           << function.getSymName() << "'";
  if (!function.getBody().hasOneBlock())
    return function.emitError("cannot differentiate '")
           << function.getSymName()
           << "': functions with more than one block are not supported";
  FunctionType type = function.getFunctionType();
  if (type.getNumResults() != 1 || !isScalarFloatTensor(type.getResult(0)))
    return function.emitError("cannot differentiate '")
           << function.getSymName()
           << "': it must return exactly one rank-0 floating-point tensor";
  if (wrt.empty())
    return function.emitError("cannot differentiate '")
           << function.getSymName()
           << "': no floating-point argument to differentiate with respect to";
  llvm::SmallSet<int64_t, 8> seen;
  for (int64_t index : wrt) {
    if (index < 0 || index >= static_cast<int64_t>(type.getNumInputs()))
      return function.emitError("'wrt' entry ")
             << index << " is out of range [0, " << type.getNumInputs() << ")";
    if (!seen.insert(index).second)
      return function.emitError("'wrt' entry ") << index << " appears twice";
    if (!isDifferentiableType(type.getInput(index)))
      return function.emitError(
                 "cannot differentiate with respect to argument ")
             << index << " of non-floating-point type " << type.getInput(index);
  }
  for (Operation &op : function.getBody().front()) {
    if (isa<func::ReturnOp>(op))
      continue;
    if (isa<CallOpInterface>(op))
      return op.emitError("calls inside a differentiated function are not "
                          "supported (inline them first)");
    if (op.getNumRegions() != 0)
      return op.emitError("ops with regions are not supported inside a "
                          "differentiated function");
  }
  return success();
}

void mlir::kiln::registerAutodiffExternalModels(DialectRegistry &registry) {
  autodiff::registerElementwiseRules(registry);
  autodiff::registerTensorRules(registry);
  autodiff::registerReductionRules(registry);
  autodiff::registerNNRules(registry);
  autodiff::registerAttentionRules(registry);
  autodiff::registerConvRules(registry);
}

namespace {
/// The reverse sweep over one cloned function body.
class ReverseSweep {
public:
  ReverseSweep(Block &body, Value loss, ArrayRef<BlockArgument> wrtArgs)
      : body(body), loss(loss), wrtArgs(wrtArgs) {}

  /// Builds the adjoints at the end of the body (before its terminator is
  /// created). Returns the adjoint of each wrt argument, null for zero.
  FailureOr<SmallVector<Value>> run(OpBuilder &builder);

private:
  void analyzeActivity();
  bool isActive(Value value) const {
    return varied.contains(value) && useful.contains(value);
  }

  Block &body;
  Value loss;
  ArrayRef<BlockArgument> wrtArgs;
  /// The forward ops in program order.
  SmallVector<Operation *> ops;
  /// Values that depend on a wrt argument, and values that reach the loss.
  /// Only used for membership tests, never iterated.
  llvm::DenseSet<Value> varied, useful;
  /// One adjoint slot per value; a missing slot is a symbolic zero.
  llvm::DenseMap<Value, Value> adjoints;
};
} // namespace

void ReverseSweep::analyzeActivity() {
  for (Operation &op : body)
    ops.push_back(&op);
  // Forward: what depends on a wrt argument. The block is in dominance
  // order, so one pass in program order suffices (no recursion).
  for (BlockArgument arg : wrtArgs)
    varied.insert(arg);
  for (Operation *op : ops) {
    if (isNonDifferentiable(op))
      continue;
    if (llvm::none_of(op->getOperands(),
                      [&](Value v) { return varied.contains(v); }))
      continue;
    for (Value result : op->getResults())
      if (isDifferentiableType(result.getType()))
        varied.insert(result);
  }
  // Backward: what reaches the loss.
  useful.insert(loss);
  for (Operation *op : llvm::reverse(ops)) {
    if (llvm::none_of(op->getResults(),
                      [&](Value v) { return useful.contains(v); }))
      continue;
    for (Value operand : op->getOperands())
      if (isDifferentiableType(operand.getType()))
        useful.insert(operand);
  }
}

FailureOr<SmallVector<Value>> ReverseSweep::run(OpBuilder &builder) {
  analyzeActivity();
  if (isActive(loss)) {
    Value seed =
        autodiff::createSplat(builder, loss.getLoc(), loss.getType(), 1.0);
    adjoints[loss] = seed;
  }
  for (Operation *op : llvm::reverse(ops)) {
    SmallVector<Value> resultAdjoints;
    bool anyAdjoint = false;
    for (Value result : op->getResults()) {
      Value adjoint = isActive(result) ? adjoints.lookup(result) : Value();
      anyAdjoint |= bool(adjoint);
      resultAdjoints.push_back(adjoint);
    }
    if (!anyAdjoint)
      continue;
    SmallVector<bool> needed;
    for (Value operand : op->getOperands())
      needed.push_back(isActive(operand));
    if (llvm::none_of(needed, [](bool b) { return b; }))
      continue;
    auto rule = dyn_cast<AutodiffOpInterface>(op);
    if (!rule)
      return op->emitError("'") << op->getName() << "' has no backward rule";
    SmallVector<Value> operandAdjoints;
    if (failed(rule.buildAdjoints(builder, resultAdjoints, needed,
                                  operandAdjoints)))
      return failure();
    if (operandAdjoints.size() != op->getNumOperands())
      return op->emitError("the backward rule of '")
             << op->getName() << "' returned " << operandAdjoints.size()
             << " adjoints for " << op->getNumOperands() << " operands";
    for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
      Value adjoint = operandAdjoints[i];
      if (!needed[i] || !adjoint)
        continue;
      if (adjoint.getType() != operand.getType())
        return op->emitError("the backward rule of '")
               << op->getName() << "' built an adjoint of type "
               << adjoint.getType() << " for operand #" << i << " of type "
               << operand.getType();
      Value &slot = adjoints[operand];
      // Fan-out: contributions are summed, in reverse program order.
      slot =
          slot ? AddOp::create(builder, op->getLoc(), slot, adjoint) : adjoint;
    }
  }
  SmallVector<Value> result;
  for (BlockArgument arg : wrtArgs)
    result.push_back(adjoints.lookup(arg));
  return result;
}

FailureOr<func::FuncOp>
mlir::kiln::generateValueAndGrad(ModuleOp module, func::FuncOp function,
                                 ArrayRef<int64_t> wrt) {
  if (failed(checkDifferentiable(function, wrt)))
    return failure();
  MLIRContext *context = module.getContext();
  // The generated function is built of kiln ops even when @f holds none.
  context->getOrLoadDialect<KilnDialect>();
  FunctionType type = function.getFunctionType();
  SmallVector<Type> resultTypes{type.getResult(0)};
  for (int64_t index : wrt)
    resultTypes.push_back(type.getInput(index));
  auto gradType = FunctionType::get(context, type.getInputs(), resultTypes);
  auto gradFunction = func::FuncOp::create(
      function.getLoc(), (function.getSymName() + "_value_and_grad").str(),
      gradType);
  gradFunction.setVisibility(function.getVisibility());
  Block *entry = gradFunction.addEntryBlock();

  // Forward: a clone of the body.
  IRMapping mapping;
  Block &source = function.getBody().front();
  mapping.map(source.getArguments(), entry->getArguments());
  OpBuilder builder(context);
  builder.setInsertionPointToEnd(entry);
  auto sourceReturn = cast<func::ReturnOp>(source.getTerminator());
  for (Operation &op : source.without_terminator())
    builder.clone(op, mapping);
  Value loss = mapping.lookupOrDefault(sourceReturn.getOperand(0));

  // Reverse.
  SmallVector<BlockArgument> wrtArgs;
  for (int64_t index : wrt)
    wrtArgs.push_back(entry->getArgument(index));
  ReverseSweep sweep(*entry, loss, wrtArgs);
  FailureOr<SmallVector<Value>> gradients = sweep.run(builder);
  if (failed(gradients)) {
    gradFunction.erase();
    return failure();
  }
  SmallVector<Value> results;
  results.push_back(loss);
  for (auto [i, arg] : llvm::enumerate(wrtArgs)) {
    Value gradient = (*gradients)[i];
    if (!gradient)
      gradient =
          autodiff::createSplat(builder, function.getLoc(), arg.getType(), 0.0);
    results.push_back(gradient);
  }
  func::ReturnOp::create(builder, sourceReturn.getLoc(), results);

  // Appended to the module, so generated functions appear in the order they
  // were asked for; the symbol table makes the name unique if it is taken.
  SymbolTable symbols(module);
  symbols.insert(gradFunction);
  return gradFunction;
}

namespace {
struct KilnAutodiffPass
    : public kiln::impl::KilnAutodiffPassBase<KilnAutodiffPass> {
  using KilnAutodiffPassBase::KilnAutodiffPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // (function name, wrt) -> generated function, so that value_and_grad
    // ops asking for the same gradient share one function.
    std::map<std::pair<std::string, std::vector<int64_t>>, func::FuncOp>
        generated;
    auto getOrGenerate =
        [&](func::FuncOp callee,
            ArrayRef<int64_t> wrtArgs) -> FailureOr<func::FuncOp> {
      auto key =
          std::make_pair(callee.getSymName().str(),
                         std::vector<int64_t>(wrtArgs.begin(), wrtArgs.end()));
      auto it = generated.find(key);
      if (it != generated.end())
        return it->second;
      FailureOr<func::FuncOp> result =
          generateValueAndGrad(module, callee, wrtArgs);
      if (succeeded(result))
        generated.emplace(key, *result);
      return result;
    };

    if (!function.empty()) {
      auto callee = symbols.lookup<func::FuncOp>(function);
      if (!callee) {
        module.emitError("kiln-autodiff: no function named '")
            << function << "'";
        return signalPassFailure();
      }
      SmallVector<int64_t> wrtArgs(wrt.begin(), wrt.end());
      if (wrtArgs.empty())
        for (auto [i, type] :
             llvm::enumerate(callee.getFunctionType().getInputs()))
          if (isDifferentiableType(type))
            wrtArgs.push_back(i);
      if (failed(getOrGenerate(callee, wrtArgs)))
        return signalPassFailure();
    }

    SmallVector<ValueAndGradOp> ops;
    module.walk([&](ValueAndGradOp op) { ops.push_back(op); });
    for (ValueAndGradOp op : ops) {
      auto callee = symbols.lookup<func::FuncOp>(op.getCallee());
      if (!callee) {
        op.emitError("'") << op.getCallee() << "' is not a func.func";
        return signalPassFailure();
      }
      FailureOr<func::FuncOp> gradFunction = getOrGenerate(callee, op.getWrt());
      if (failed(gradFunction))
        return signalPassFailure();
      OpBuilder builder(op);
      auto call = func::CallOp::create(builder, op.getLoc(), *gradFunction,
                                       op.getOperands());
      op.replaceAllUsesWith(call.getResults());
      op.erase();
    }
  }
};
} // namespace
