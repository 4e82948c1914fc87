//===- Autodiff.cpp - The kiln-autodiff pass ------------------------------===//
//
// Reverse-mode automatic differentiation: a working function clones the
// forward ops, then walks them in reverse program order and asks each active
// op's AutodiffOpInterface for its operands' adjoints; the remat policy then
// chooses what the backward recomputes. Combined mode returns that function
// as @f_value_and_grad, split mode cuts it into @f_forward and @f_backward at
// the residuals. See docs/Autodiff.md.
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
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallSet.h"

#include <functional>
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

static bool isNonDifferentiable(Operation *op) {
  auto rule = dyn_cast<AutodiffOpInterface>(op);
  return rule && rule.isNonDifferentiable();
}

/// Checks that `function` is something the pass can differentiate with
/// respect to `wrt` in `mode`, emitting an error where it is not.
static LogicalResult checkDifferentiable(func::FuncOp function,
                                         ArrayRef<int64_t> wrt,
                                         AutodiffMode mode) {
  if (function.isExternal())
    return function.emitError("cannot differentiate the external function '")
           << function.getSymName() << "'";
  if (!function.getBody().hasOneBlock())
    return function.emitError("cannot differentiate '")
           << function.getSymName()
           << "': functions with more than one block are not supported";
  FunctionType type = function.getFunctionType();
  if (mode == AutodiffMode::Combined &&
      (type.getNumResults() != 1 || !isScalarFloatTensor(type.getResult(0))))
    return function.emitError("cannot differentiate '")
           << function.getSymName()
           << "': it must return exactly one rank-0 floating-point tensor "
              "(mode=split differentiates other results, with one cotangent "
              "argument per result)";
  // Split mode takes one cotangent per float output; integer and boolean
  // outputs (argmax, masks) carry no derivative and get none.
  if (mode == AutodiffMode::Split) {
    if (type.getNumResults() == 0)
      return function.emitError("cannot split '")
             << function.getSymName() << "': it returns nothing";
    if (llvm::none_of(type.getResults(), isDifferentiableType))
      return function.emitError("cannot split '")
             << function.getSymName()
             << "': no result is a floating-point tensor, so there is "
                "nothing to differentiate";
  }
  if (wrt.empty())
    return function.emitError("cannot differentiate '")
           << function.getSymName()
           << "': no floating-point argument to differentiate with respect to "
              "(weights held as constants are not arguments; kiln-translate "
              "--lift-parameters makes graph JSON parameters arguments)";
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
    // Its gradient is built from kiln ops (a zero constant when unused, a
    // sum when used twice), which are statically shaped: a dynamic dim
    // would make IR that fails verification.
    if (!cast<RankedTensorType>(type.getInput(index)).hasStaticShape())
      return emitError(function.getArgument(index).getLoc(),
                       "cannot differentiate '")
             << function.getSymName() << "' with respect to argument "
             << index << " of dynamically shaped type "
             << type.getInput(index) << " (kiln ops are statically shaped)";
  }
  // Calls are checked by the sweep: an inactive one (e.g. the gradient of
  // another function, from a nested kiln.value_and_grad) is a constant.
  for (Operation &op : function.getBody().front()) {
    if (isa<func::ReturnOp>(op))
      continue;
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
/// The reverse sweep over straight-line ops: the cloned forward ops of one
/// function, or a decomposition built by a backward rule.
class ReverseSweep {
public:
  ReverseSweep(ArrayRef<Operation *> ops, ArrayRef<Value> outputs,
               ArrayRef<Value> inputs)
      : ops(ops), outputs(outputs), inputs(inputs) {}

  /// Builds the adjoints at the builder's insertion point, seeding each
  /// active output with `getSeed(index)` (null: none). Returns the adjoint
  /// of each input, null for zero.
  FailureOr<SmallVector<Value>> run(OpBuilder &builder,
                                    function_ref<Value(unsigned)> getSeed);

private:
  void analyzeActivity();
  bool isActive(Value value) const {
    return varied.contains(value) && useful.contains(value);
  }

  /// The forward ops in program order.
  ArrayRef<Operation *> ops;
  ArrayRef<Value> outputs;
  ArrayRef<Value> inputs;
  /// Values that depend on an input, and values that reach an output.
  /// Only used for membership tests, never iterated.
  llvm::DenseSet<Value> varied, useful;
  /// One adjoint slot per value; a missing slot is a symbolic zero.
  llvm::DenseMap<Value, Value> adjoints;
};
} // namespace

void ReverseSweep::analyzeActivity() {
  // Forward: what depends on an input. The ops are in dominance order, so
  // one pass in program order suffices (no recursion).
  for (Value input : inputs)
    varied.insert(input);
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
  // Backward: what reaches an output.
  for (Value output : outputs)
    useful.insert(output);
  for (Operation *op : llvm::reverse(ops)) {
    if (llvm::none_of(op->getResults(),
                      [&](Value v) { return useful.contains(v); }))
      continue;
    for (Value operand : op->getOperands())
      if (isDifferentiableType(operand.getType()))
        useful.insert(operand);
  }
}

FailureOr<SmallVector<Value>>
ReverseSweep::run(OpBuilder &builder, function_ref<Value(unsigned)> getSeed) {
  analyzeActivity();
  for (auto [i, output] : llvm::enumerate(outputs)) {
    if (!isActive(output))
      continue;
    Value seed = getSeed(i);
    if (!seed)
      continue;
    Value &slot = adjoints[output];
    // An output returned twice gets both cotangents.
    slot = slot ? AddOp::create(builder, output.getLoc(), slot, seed) : seed;
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
    if (isa<CallOpInterface>(op))
      return op->emitError("calls inside a differentiated function are not "
                           "supported (inline them first)");
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
  for (Value input : inputs)
    result.push_back(adjoints.lookup(input));
  return result;
}

FailureOr<SmallVector<Value>>
autodiff::buildReverseSweep(OpBuilder &builder, ArrayRef<Operation *> ops,
                            ArrayRef<Value> inputs, ArrayRef<Value> outputs,
                            function_ref<Value(unsigned)> getSeed) {
  return ReverseSweep(ops, outputs, inputs).run(builder, getSeed);
}

namespace {
/// A function under differentiation: a detached working function whose one
/// block holds a clone of the forward ops, then the backward ops (the
/// reverse sweep and what the remat policy recomputes), then a return of
/// the forward outputs. Its arguments are those of the differentiated
/// function followed, in split mode, by one cotangent per float output. Combined
/// mode turns it into @f_value_and_grad; split mode cuts it in two.
struct GradientGraph {
  func::FuncOp function;
  Block *body = nullptr;
  /// The arguments of the differentiated function come first.
  unsigned numInputs = 0;
  /// The forward ops in program order, and the same as a set.
  SmallVector<Operation *> forwardOps;
  llvm::DenseSet<Operation *> forwardSet;
  /// The forward outputs, and the gradient of each wrt argument.
  SmallVector<Value> outputs, gradients;

  /// Returns true for an argument of the differentiated function or a
  /// result of a forward op.
  bool isForwardValue(Value value) const {
    if (auto arg = dyn_cast<BlockArgument>(value))
      return arg.getOwner() == body && arg.getArgNumber() < numInputs;
    return forwardSet.contains(value.getDefiningOp());
  }
  /// Returns true for a forward constant: the backward gets its own copy,
  /// it is never a residual.
  bool isForwardConstant(Value value) const {
    Operation *op = value.getDefiningOp();
    return op && forwardSet.contains(op) &&
           op->hasTrait<OpTrait::ConstantLike>();
  }
  /// Returns true for an op of the backward part.
  bool isBackwardOp(Operation *op) const {
    Operation *top = body->findAncestorOpInBlock(*op);
    return top && !forwardSet.contains(top) && top != body->getTerminator();
  }
  /// Calls `fn` on every value the backward part reads: the operands of its
  /// ops (nested ones included) and the gradients.
  void forEachBackwardRead(function_ref<void(Value)> fn) const {
    for (Operation &op : body->without_terminator())
      if (!forwardSet.contains(&op))
        op.walk([&](Operation *nested) {
          for (Value operand : nested->getOperands())
            fn(operand);
        });
    for (Value gradient : gradients)
      fn(gradient);
  }
  /// The residuals: the forward values the backward reads, constants
  /// excluded, in forward program order (arguments first, by index).
  SmallVector<Value> getResiduals() const {
    llvm::DenseSet<Value> read;
    forEachBackwardRead([&](Value value) {
      if (isForwardValue(value) && !isForwardConstant(value))
        read.insert(value);
    });
    SmallVector<Value> residuals;
    for (BlockArgument arg : body->getArguments().take_front(numInputs))
      if (read.contains(arg))
        residuals.push_back(arg);
    for (Operation *op : forwardOps)
      for (Value result : op->getResults())
        if (read.contains(result))
          residuals.push_back(result);
    return residuals;
  }
};
} // namespace

/// `remat=save-all`: expands every op of `function` that asks to be
/// (AutodiffOpInterface::expandForSaveAll), so that its intermediates are
/// forward values the sweep saves like any other.
static void expandForSaveAll(func::FuncOp function) {
  SmallVector<AutodiffOpInterface> ops;
  function.walk([&](AutodiffOpInterface op) { ops.push_back(op); });
  OpBuilder builder(function.getContext());
  for (AutodiffOpInterface op : ops) {
    SmallVector<Value> replacements = op.expandForSaveAll(builder);
    if (replacements.empty())
      continue;
    op->replaceAllUsesWith(replacements);
    op->erase();
  }
}

/// Replaces each op of `body` that asks to by its form with the residuals
/// its rule reuses (AutodiffOpInterface::addResiduals). Runs before the
/// forward ops are collected, so no map of the sweep ever sees the replaced
/// ops.
static void addResiduals(Block *body) {
  SmallVector<AutodiffOpInterface> ops;
  for (Operation &op : *body)
    if (auto differentiable = dyn_cast<AutodiffOpInterface>(op))
      ops.push_back(differentiable);
  OpBuilder builder(body->getParentOp()->getContext());
  for (AutodiffOpInterface op : ops) {
    Operation *replacement = op.addResiduals(builder);
    if (!replacement)
      continue;
    op->replaceAllUsesWith(
        replacement->getResults().take_front(op->getNumResults()));
    op->erase();
  }
}

/// Takes the residual results that nothing read after the sweep off the
/// forward ops (AutodiffOpInterface::dropUnreadResiduals), updating the
/// graph's lists of forward ops, outputs and gradients.
static void dropUnreadResiduals(GradientGraph &graph) {
  OpBuilder builder(graph.function.getContext());
  for (Operation *&op : graph.forwardOps) {
    auto differentiable = dyn_cast<AutodiffOpInterface>(op);
    if (!differentiable)
      continue;
    Operation *replacement = differentiable.dropUnreadResiduals(builder);
    if (!replacement)
      continue;
    for (auto [from, to] :
         llvm::zip(op->getResults().take_front(replacement->getNumResults()),
                   replacement->getResults())) {
      from.replaceAllUsesWith(to);
      for (Value &value : llvm::concat<Value>(graph.outputs, graph.gradients))
        if (value == from)
          value = to;
    }
    graph.forwardSet.erase(op);
    graph.forwardSet.insert(replacement);
    op->erase();
    op = replacement;
  }
}

/// `remat=recompute-elementwise`: walks the forward ops in reverse program
/// order and clones each cheap op (isCheapToRecompute) whose result is a
/// residual into the start of the backward part, when the residual bytes
/// strictly shrink: the bytes of its operands that are not residuals yet
/// (constants are free) must be less than its result's. The backward then
/// reads the clone. Reverse order lets chains of cheap ops be recomputed
/// from the first saved value on, each clone placed before the clones that
/// use it; every step lowers the total, so the walk ends with no more
/// bytes than it started with.
static void recomputeCheapOps(GradientGraph &graph) {
  auto firstBackward =
      llvm::find_if(graph.body->without_terminator(), [&](Operation &op) {
        return !graph.forwardSet.contains(&op);
      });
  if (firstBackward == graph.body->without_terminator().end())
    return;
  Operation *insertBefore = &*firstBackward;
  SmallVector<Value> residualList = graph.getResiduals();
  llvm::DenseSet<Value> residuals(residualList.begin(), residualList.end());
  auto isNewResidual = [&](Value value) {
    return graph.isForwardValue(value) && !graph.isForwardConstant(value) &&
           !residuals.contains(value);
  };
  OpBuilder builder(insertBefore);
  for (Operation *op : llvm::reverse(graph.forwardOps)) {
    if (op->getNumResults() != 1 || !autodiff::isCheapToRecompute(op))
      continue;
    Value result = op->getResult(0);
    if (!residuals.contains(result))
      continue;
    int64_t added = 0;
    llvm::SmallDenseSet<Value, 4> counted;
    for (Value operand : op->getOperands())
      if (isNewResidual(operand) && counted.insert(operand).second)
        added += autodiff::getSizeInBytes(operand.getType());
    if (added >= autodiff::getSizeInBytes(result.getType()))
      continue;
    builder.setInsertionPoint(insertBefore);
    Operation *clone = builder.clone(*op);
    insertBefore = clone;
    result.replaceUsesWithIf(clone->getResult(0), [&](OpOperand &use) {
      return graph.isBackwardOp(use.getOwner());
    });
    for (Value &gradient : graph.gradients)
      if (gradient == result)
        gradient = clone->getResult(0);
    residuals.erase(result);
    for (Value operand : op->getOperands())
      if (isNewResidual(operand))
        residuals.insert(operand);
  }
}

/// Emits the `print-residuals` remarks of `function`'s residuals: one per
/// residual at the op or argument defining it, then the total at
/// `function`.
static void printResidualRemarks(func::FuncOp function,
                                 ArrayRef<Value> residuals) {
  int64_t total = 0;
  for (auto [i, residual] : llvm::enumerate(residuals)) {
    int64_t bytes = autodiff::getSizeInBytes(residual.getType());
    total += bytes;
    // The type unquoted, as in the IR.
    std::string type;
    llvm::raw_string_ostream(type) << residual.getType();
    if (auto arg = dyn_cast<BlockArgument>(residual)) {
      unsigned index = arg.getArgNumber();
      emitRemark(function.getArgument(index).getLoc())
          << "residual " << i << ": " << type << " (" << bytes
          << " bytes), argument " << index;
      continue;
    }
    Operation *op = residual.getDefiningOp();
    InFlightDiagnostic remark = emitRemark(op->getLoc());
    remark << "residual " << i << ": " << type << " (" << bytes
           << " bytes), from " << op->getName();
    if (op->getNumResults() > 1)
      remark << " result " << cast<OpResult>(residual).getResultNumber();
  }
  emitRemark(function.getLoc())
      << "'" << function.getSymName() << "' saves " << residuals.size()
      << " residuals, " << total << " bytes";
}

/// Builds the gradient graph of `function` with respect to `wrt` in a new
/// detached function named `name`. On failure nothing is left behind.
static FailureOr<GradientGraph>
buildGradientGraph(func::FuncOp function, ArrayRef<int64_t> wrt,
                   AutodiffMode mode, const GradientGraphOptions &options,
                   StringRef name) {
  if (failed(checkDifferentiable(function, wrt, mode)))
    return failure();
  MLIRContext *context = function.getContext();
  // The generated code is built of kiln ops even when @f holds none.
  context->getOrLoadDialect<KilnDialect>();
  FunctionType type = function.getFunctionType();
  SmallVector<Type> inputTypes(type.getInputs());
  // Split mode: one cotangent argument per float output.
  if (mode == AutodiffMode::Split)
    for (Type result : type.getResults())
      if (isDifferentiableType(result))
        inputTypes.push_back(result);

  GradientGraph graph;
  graph.numInputs = type.getNumInputs();
  graph.function = func::FuncOp::create(
      function.getLoc(), name,
      FunctionType::get(context, inputTypes, type.getResults()));
  graph.function.setVisibility(function.getVisibility());
  graph.body = graph.function.addEntryBlock();
  auto cleanup = [&] { graph.function.erase(); };

  // Forward: a clone of the body, return included.
  IRMapping mapping;
  Block &source = function.getBody().front();
  mapping.map(source.getArguments(),
              graph.body->getArguments().take_front(graph.numInputs));
  OpBuilder builder(context);
  builder.setInsertionPointToEnd(graph.body);
  for (Operation &op : source)
    builder.clone(op, mapping);

  // How each op's forward is kept for the sweep: expanded (save-all), or
  // with the residuals its rule reuses.
  if (options.remat == RematPolicy::SaveAll)
    expandForSaveAll(graph.function);
  addResiduals(graph.body);
  for (Operation &op : graph.body->without_terminator())
    graph.forwardOps.push_back(&op);
  graph.forwardSet.insert(graph.forwardOps.begin(), graph.forwardOps.end());
  Operation *terminator = graph.body->getTerminator();
  graph.outputs.assign(terminator->operand_begin(), terminator->operand_end());

  // Reverse: seeded with 1 (combined) or the cotangent arguments (split).
  SmallVector<Value> wrtArgs;
  for (int64_t index : wrt)
    wrtArgs.push_back(graph.body->getArgument(index));
  builder.setInsertionPoint(terminator);
  // Split mode: the cotangent arguments follow the inputs, one per float
  // output in order; an integer output seeds nothing.
  SmallVector<Value> seeds(graph.outputs.size());
  if (mode == AutodiffMode::Split) {
    auto cotangent = graph.body->args_begin() + graph.numInputs;
    for (auto [seed, output] : llvm::zip(seeds, graph.outputs))
      if (isDifferentiableType(output.getType()))
        seed = *cotangent++;
  }
  auto getSeed = [&](unsigned output) -> Value {
    if (mode == AutodiffMode::Split)
      return seeds[output];
    Value loss = graph.outputs[output];
    return autodiff::createSplat(builder, loss.getLoc(), loss.getType(), 1.0);
  };
  FailureOr<SmallVector<Value>> gradients = autodiff::buildReverseSweep(
      builder, graph.forwardOps, wrtArgs, graph.outputs, getSeed);
  if (failed(gradients)) {
    cleanup();
    return failure();
  }
  for (auto [i, arg] : llvm::enumerate(wrtArgs)) {
    Value gradient = (*gradients)[i];
    if (!gradient)
      gradient =
          autodiff::createSplat(builder, function.getLoc(), arg.getType(), 0.0);
    graph.gradients.push_back(gradient);
  }

  dropUnreadResiduals(graph);
  if (options.remat == RematPolicy::RecomputeElementwise)
    recomputeCheapOps(graph);
  return graph;
}

FailureOr<func::FuncOp>
mlir::kiln::generateValueAndGrad(ModuleOp module, func::FuncOp function,
                                 ArrayRef<int64_t> wrt,
                                 const GradientGraphOptions &options) {
  FailureOr<GradientGraph> graph =
      buildGradientGraph(function, wrt, AutodiffMode::Combined, options,
                         (function.getSymName() + "_value_and_grad").str());
  if (failed(graph))
    return failure();
  if (options.printResiduals)
    printResidualRemarks(function, graph->getResiduals());

  // The forward return becomes the return of the value and the gradients.
  func::FuncOp gradFunction = graph->function;
  Operation *terminator = graph->body->getTerminator();
  SmallVector<Value> results{graph->outputs.front()};
  llvm::append_range(results, graph->gradients);
  OpBuilder builder(terminator);
  func::ReturnOp::create(builder, terminator->getLoc(), results);
  terminator->erase();
  gradFunction.setType(FunctionType::get(module.getContext(),
                                         function.getArgumentTypes(),
                                         ValueRange(results).getTypes()));

  // Appended to the module, so generated functions appear in the order they
  // were asked for; the symbol table makes the name unique if it is taken.
  SymbolTable symbols(module);
  symbols.insert(gradFunction);
  return gradFunction;
}

FailureOr<SplitForwardBackward>
mlir::kiln::generateSplitForwardBackward(ModuleOp module, func::FuncOp function,
                                         ArrayRef<int64_t> wrt,
                                         const GradientGraphOptions &options) {
  FailureOr<GradientGraph> graph =
      buildGradientGraph(function, wrt, AutodiffMode::Split, options,
                         (function.getSymName() + "_gradient_graph").str());
  if (failed(graph))
    return failure();
  SmallVector<Value> residuals = graph->getResiduals();
  if (options.printResiduals)
    printResidualRemarks(function, residuals);

  MLIRContext *context = module.getContext();
  Location loc = function.getLoc();
  Builder b(context);
  auto indexAttr = [&](int64_t index) { return b.getI64IntegerAttr(index); };
  TypeRange outputTypes = function.getResultTypes();
  TypeRange residualTypes = ValueRange(residuals).getTypes();
  TypeRange gradientTypes = ValueRange(graph->gradients).getTypes();

  // @f_forward(args) -> (outputs..., residuals...): the forward ops.
  SmallVector<Type> forwardResults = llvm::to_vector(outputTypes);
  llvm::append_range(forwardResults, residualTypes);
  auto forward = func::FuncOp::create(
      loc, (function.getSymName() + "_forward").str(),
      FunctionType::get(context, function.getArgumentTypes(), forwardResults));
  forward.setVisibility(function.getVisibility());
  {
    Block *entry = forward.addEntryBlock();
    IRMapping mapping;
    mapping.map(graph->body->getArguments().take_front(graph->numInputs),
                entry->getArguments());
    OpBuilder builder = OpBuilder::atBlockEnd(entry);
    for (Operation *op : graph->forwardOps)
      builder.clone(*op, mapping);
    SmallVector<Value> results;
    for (Value value : llvm::concat<Value>(graph->outputs, residuals))
      results.push_back(mapping.lookup(value));
    func::ReturnOp::create(builder, loc, results);
    for (size_t i = 0; i < outputTypes.size(); ++i)
      forward.setResultAttr(i, KilnDialect::OutputAttrHelper::getNameStr(),
                            indexAttr(i));
    for (size_t i = 0; i < residuals.size(); ++i)
      forward.setResultAttr(outputTypes.size() + i,
                            KilnDialect::ResidualAttrHelper::getNameStr(),
                            indexAttr(i));
  }

  // @f_backward(residuals..., cotangents...) -> (gradients...): the
  // backward ops, reading the residuals and their own copy of the forward
  // constants.
  // The outputs that have a cotangent: the float ones.
  SmallVector<unsigned> differentiableOutputs;
  for (auto [i, outputType] : llvm::enumerate(outputTypes))
    if (isDifferentiableType(outputType))
      differentiableOutputs.push_back(i);
  SmallVector<Type> backwardInputs = llvm::to_vector(residualTypes);
  for (unsigned i : differentiableOutputs)
    backwardInputs.push_back(outputTypes[i]);
  auto backward = func::FuncOp::create(
      loc, (function.getSymName() + "_backward").str(),
      FunctionType::get(context, backwardInputs, gradientTypes));
  backward.setVisibility(function.getVisibility());
  {
    Block *entry = backward.addEntryBlock();
    IRMapping mapping;
    mapping.map(residuals, entry->getArguments().take_front(residuals.size()));
    mapping.map(graph->body->getArguments().drop_front(graph->numInputs),
                entry->getArguments().drop_front(residuals.size()));
    OpBuilder builder = OpBuilder::atBlockEnd(entry);
    llvm::DenseSet<Operation *> constants;
    graph->forEachBackwardRead([&](Value value) {
      if (graph->isForwardConstant(value))
        constants.insert(value.getDefiningOp());
    });
    for (Operation *op : graph->forwardOps)
      if (constants.contains(op))
        builder.clone(*op, mapping);
    for (Operation &op : graph->body->without_terminator())
      if (!graph->forwardSet.contains(&op))
        builder.clone(op, mapping);
    SmallVector<Value> results;
    for (Value gradient : graph->gradients)
      results.push_back(mapping.lookup(gradient));
    func::ReturnOp::create(builder, loc, results);
    for (size_t i = 0; i < residuals.size(); ++i)
      backward.setArgAttr(i, KilnDialect::ResidualAttrHelper::getNameStr(),
                          indexAttr(i));
    for (auto [k, i] : llvm::enumerate(differentiableOutputs))
      backward.setArgAttr(residuals.size() + k,
                          KilnDialect::CotangentAttrHelper::getNameStr(),
                          indexAttr(i));
    for (auto [i, index] : llvm::enumerate(wrt))
      backward.setResultAttr(i, KilnDialect::GradientAttrHelper::getNameStr(),
                             indexAttr(index));
  }
  graph->function.erase();

  SymbolTable symbols(module);
  symbols.insert(forward);
  symbols.insert(backward);
  // Each names its partner, whatever name the symbol table gave it.
  forward->setAttr(KilnDialect::BackwardAttrHelper::getNameStr(),
                   FlatSymbolRefAttr::get(backward));
  backward->setAttr(KilnDialect::ForwardAttrHelper::getNameStr(),
                    FlatSymbolRefAttr::get(forward));
  return SplitForwardBackward{forward, backward};
}

namespace {
struct KilnAutodiffPass
    : public kiln::impl::KilnAutodiffPassBase<KilnAutodiffPass> {
  using KilnAutodiffPassBase::KilnAutodiffPassBase;

  /// Rejects option combinations before any IR is touched: they would
  /// otherwise be reported at the module, with the module attached.
  LogicalResult initialize(MLIRContext *context) override {
    if (mode == AutodiffMode::Split && function.empty())
      return emitError(UnknownLoc::get(context))
             << "kiln-autodiff: mode=split needs function=<name>";
    if (!wrt.empty() && function.empty())
      return emitError(UnknownLoc::get(context))
             << "kiln-autodiff: wrt needs function=<name> (a "
                "kiln.value_and_grad op names its own wrt)";
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    GradientGraphOptions options;
    options.remat = remat;
    options.printResiduals = printResiduals;
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
          generateValueAndGrad(module, callee, wrtArgs, options);
      if (succeeded(result))
        generated.emplace(key, *result);
      return result;
    };

    // The functions that get differentiated: the callees of every
    // kiln.value_and_grad, and `function`.
    llvm::DenseSet<Operation *> differentiated;
    module.walk([&](ValueAndGradOp op) {
      if (auto callee = symbols.lookup<func::FuncOp>(op.getCallee()))
        differentiated.insert(callee);
    });
    if (!function.empty())
      if (auto callee = symbols.lookup<func::FuncOp>(function))
        differentiated.insert(callee);

    // Expands the kiln.value_and_grad ops of `scope` (a function, or the
    // module for ops outside functions), callees first. In a function that
    // is itself differentiated, the generated gradient is inlined rather
    // than called, so that its ops (which all have rules) carry the outer
    // adjoint: nested value_and_grad is second order. Elsewhere it is a
    // call, one generated function per (callee, wrt). A function that
    // reaches its own gradient is an error.
    llvm::DenseMap<Operation *, bool> expanded; // false while in progress
    llvm::SetVector<Operation *> inlined;
    Operation *kept = nullptr; // what `function` asked for
    std::function<LogicalResult(Operation *)> expandIn =
        [&](Operation *scope) -> LogicalResult {
      auto [it, inserted] = expanded.try_emplace(scope, false);
      if (!inserted) {
        if (it->second)
          return success();
        return scope->emitError("'")
               << cast<func::FuncOp>(scope).getSymName()
               << "' takes the gradient of itself through "
                  "kiln.value_and_grad";
      }
      SmallVector<ValueAndGradOp> ops;
      scope->walk([&](ValueAndGradOp op) {
        // Ops of nested functions belong to those functions.
        Operation *parent = op->getParentOfType<func::FuncOp>();
        if (parent == scope || (!parent && scope == module.getOperation()))
          ops.push_back(op);
      });
      bool inlineGradients = differentiated.contains(scope);
      for (ValueAndGradOp op : ops) {
        auto callee = symbols.lookup<func::FuncOp>(op.getCallee());
        if (!callee)
          return op.emitError("'") << op.getCallee() << "' is not a func.func";
        if (failed(expandIn(callee)))
          return failure();
        FailureOr<func::FuncOp> gradFunction =
            getOrGenerate(callee, op.getWrt());
        if (failed(gradFunction))
          return failure();
        OpBuilder builder(op);
        SmallVector<Value> results;
        if (inlineGradients) {
          Block &body = gradFunction->getBody().front();
          IRMapping mapping;
          mapping.map(body.getArguments(), op.getOperands());
          for (Operation &bodyOp : body.without_terminator())
            builder.clone(bodyOp, mapping);
          for (Value result : body.getTerminator()->getOperands())
            results.push_back(mapping.lookupOrDefault(result));
          inlined.insert(*gradFunction);
        } else {
          llvm::append_range(results, func::CallOp::create(builder, op.getLoc(),
                                                           *gradFunction,
                                                           op.getOperands())
                                          .getResults());
        }
        op.replaceAllUsesWith(results);
        op.erase();
      }
      expanded[scope] = true;
      return success();
    };

    if (!function.empty()) {
      auto callee = symbols.lookup<func::FuncOp>(function);
      if (!callee) {
        // At the module, but without printing it: the option is at fault.
        emitError(module.getLoc())
            << "kiln-autodiff: function=" << function
            << ": the module has no function named '" << function << "'";
        return signalPassFailure();
      }
      if (failed(expandIn(callee)))
        return signalPassFailure();
      SmallVector<int64_t> wrtArgs(wrt.begin(), wrt.end());
      if (wrtArgs.empty())
        for (auto [i, type] :
             llvm::enumerate(callee.getFunctionType().getInputs()))
          if (isDifferentiableType(type))
            wrtArgs.push_back(i);
      if (mode == AutodiffMode::Split) {
        if (failed(
                generateSplitForwardBackward(module, callee, wrtArgs, options)))
          return signalPassFailure();
      } else {
        FailureOr<func::FuncOp> requested = getOrGenerate(callee, wrtArgs);
        if (failed(requested))
          return signalPassFailure();
        kept = *requested;
      }
    }

    // The functions as they are now: generated ones hold no
    // kiln.value_and_grad (their sources were expanded first).
    SmallVector<Operation *> scopes;
    for (auto f : module.getOps<func::FuncOp>())
      scopes.push_back(f);
    scopes.push_back(module);
    for (Operation *scope : scopes)
      if (failed(expandIn(scope)))
        return signalPassFailure();
    // A generated function that was only ever inlined is not kept.
    for (Operation *gradFunction : inlined)
      if (gradFunction != kept &&
          SymbolTable::symbolKnownUseEmpty(gradFunction, module))
        gradFunction->erase();
  }
};
} // namespace
