//===- JitHarness.cpp - Run kiln functions and check gradients ------------===//

#include "TestSupport/JitHarness.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/Autodiff.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::test;

void test::appendAutodiffRegistry(MLIRContext &context) {
  DialectRegistry registry;
  registry.insert<func::FuncDialect, KilnDialect>();
  registerAutodiffExternalModels(registry);
  context.appendDialectRegistry(registry);
}

JitSession &test::getAutodiffSession() {
  // Never destroyed: compiled modules may outlive the test that made them.
  static JitSession *session = [] {
    auto *s = new JitSession();
    appendAutodiffRegistry(s->getContext());
    return s;
  }();
  return *session;
}

InputSpec test::f64(ArrayRef<int64_t> shape, Fill fill) {
  return InputSpec{DType::F64, SmallVector<int64_t>(shape), fill};
}

InputSpec test::given(DType dtype, ArrayRef<int64_t> shape,
                      std::vector<double> values) {
  return InputSpec{dtype, SmallVector<int64_t>(shape), Fill::Given,
                   std::move(values)};
}

uint64_t test::getCaseSeed(StringRef name) {
  return std::hash<std::string>()(name.str()) & 0xffff;
}

HostTensor test::makeInput(const InputSpec &spec, std::mt19937_64 &rng) {
  int64_t n = 1;
  for (int64_t d : spec.shape)
    n *= d;
  std::vector<double> values(n);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (int64_t i = 0; i < n; ++i) {
    double u = uniform(rng);
    switch (spec.fill) {
    case Fill::Uniform:
      values[i] = u;
      break;
    case Fill::Positive:
      values[i] = 1.0 + 0.5 * u;
      break;
    case Fill::AwayFromZero:
      values[i] = (u < 0 ? -1 : 1) * (0.7 + 0.5 * std::fabs(uniform(rng)));
      break;
    case Fill::Given:
      values[i] = spec.values[i];
      break;
    }
  }
  return makeTensor(spec.dtype, spec.shape, values);
}

SmallVector<HostTensor> test::makeInputs(ArrayRef<InputSpec> specs,
                                         uint64_t seed) {
  std::mt19937_64 rng(seed);
  SmallVector<HostTensor> inputs;
  for (const InputSpec &spec : specs)
    inputs.push_back(makeInput(spec, rng));
  return inputs;
}

HostTensor test::makeTensor(DType dtype, ArrayRef<int64_t> shape,
                            ArrayRef<double> values) {
  llvm::Expected<HostTensor> tensor =
      HostTensor::fromDoubles(dtype, shape, values);
  if (!tensor) {
    ADD_FAILURE() << llvm::toString(tensor.takeError());
    return HostTensor();
  }
  return std::move(*tensor);
}

HostTensor test::makeRandomTensor(DType dtype, ArrayRef<int64_t> shape,
                                  uint64_t seed) {
  llvm::Expected<HostTensor> tensor = HostTensor::random(dtype, shape, seed);
  if (!tensor) {
    ADD_FAILURE() << llvm::toString(tensor.takeError());
    return HostTensor();
  }
  return std::move(*tensor);
}

std::string test::readAsF64(StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    ADD_FAILURE() << "cannot read " << path.str();
    return {};
  }
  std::string text = (*buffer)->getBuffer().str();
  for (size_t pos = text.find("f32"); pos != std::string::npos;
       pos = text.find("f32", pos + 3))
    text.replace(pos, 3, "f64");
  return text;
}

CentralDifferenceStats &
CentralDifferenceStats::operator+=(const CentralDifferenceStats &other) {
  checked += other.checked;
  dependent += other.dependent;
  largestAnalytic = std::max(largestAnalytic, other.largestAnalytic);
  worstError = std::max(worstError, other.worstError);
  return *this;
}

/// The scalar first result of `function` on `inputs`; a test failure where
/// the call fails.
static std::optional<double> invokeScalar(JitModule &jit, StringRef function,
                                          ArrayRef<HostTensor> inputs) {
  auto results = jit.invoke(function, inputs);
  if (failed(results) || results->empty()) {
    ADD_FAILURE() << "calling @" << function.str() << " failed (see stderr)";
    return std::nullopt;
  }
  return (*results)[0].getElementAsDouble(0);
}

CentralDifferenceStats test::expectMatchesCentralDifferences(
    JitModule &jit, StringRef function, MutableArrayRef<HostTensor> inputs,
    int64_t argIndex, const HostTensor &gradient, StringRef label,
    const CentralDifferenceOptions &options) {
  CentralDifferenceStats stats;
  HostTensor &x = inputs[argIndex];
  if (gradient.getShape() != x.getShape()) {
    ADD_FAILURE() << label.str() << ": the gradient's shape is not "
                  << x.getTypeString() << "'s";
    return stats;
  }
  const double h = options.step;
  for (int64_t i = 0; i < x.getNumElements(); ++i) {
    double saved = x.getElementAsDouble(i);
    x.setElementFromDouble(i, saved + h);
    std::optional<double> plus = invokeScalar(jit, function, inputs);
    x.setElementFromDouble(i, saved - h);
    std::optional<double> minus = invokeScalar(jit, function, inputs);
    x.setElementFromDouble(i, saved);
    if (!plus || !minus)
      return stats;
    double numeric = (*plus - *minus) / (2 * h);
    double analytic = gradient.getElementAsDouble(i);
    if (*plus != *minus) {
      ++stats.dependent;
    } else if (options.exactZeros) {
      EXPECT_EQ(analytic, 0.0)
          << label.str() << "[" << i << "]: f does not depend on it";
    }
    EXPECT_NEAR(analytic, numeric, options.tolerance * (1 + std::fabs(numeric)))
        << label.str() << "[" << i << "]";
    ++stats.checked;
    stats.largestAnalytic =
        std::max(stats.largestAnalytic, std::fabs(analytic));
    stats.worstError =
        std::max(stats.worstError,
                 std::fabs(analytic - numeric) / (1 + std::fabs(numeric)));
  }
  return stats;
}

CentralDifferenceStats test::expectGradientsMatchCentralDifferences(
    JitModule &jit, StringRef function, MutableArrayRef<HostTensor> inputs,
    ArrayRef<int64_t> wrt, ArrayRef<HostTensor> valueAndGrad,
    StringRef labelPrefix, const CentralDifferenceOptions &options) {
  CentralDifferenceStats stats;
  if (valueAndGrad.size() != wrt.size() + 1) {
    ADD_FAILURE() << "expected a value and " << wrt.size() << " gradients, got "
                  << valueAndGrad.size() << " results";
    return stats;
  }
  for (auto [k, argIndex] : llvm::enumerate(wrt))
    stats += expectMatchesCentralDifferences(
        jit, function, inputs, argIndex, valueAndGrad[k + 1],
        labelPrefix.str() + std::to_string(argIndex), options);
  return stats;
}

func::FuncOp test::buildGradientDotProduct(func::FuncOp f,
                                           func::FuncOp valueAndGrad,
                                           StringRef name) {
  MLIRContext *context = f.getContext();
  Location loc = f.getLoc();
  Block &body = valueAndGrad.getBody().front();
  Operation *terminator = body.getTerminator();
  SmallVector<Type> inputs(f.getArgumentTypes());
  for (Value g : terminator->getOperands().drop_front())
    inputs.push_back(g.getType());

  OpBuilder b(context);
  b.setInsertionPointToEnd(f->getParentOfType<ModuleOp>().getBody());
  auto dot = func::FuncOp::create(
      b, loc, name, FunctionType::get(context, inputs, f.getResultTypes()));
  Block *entry = dot.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  IRMapping mapping;
  mapping.map(body.getArguments(),
              entry->getArguments().take_front(body.getNumArguments()));
  for (Operation &op : body.without_terminator())
    b.clone(op, mapping);
  Value total;
  unsigned numArgs = f.getNumArguments();
  for (auto [k, g] : llvm::enumerate(terminator->getOperands().drop_front())) {
    Value gv = MulOp::create(b, loc, mapping.lookup(g),
                             entry->getArgument(numArgs + k));
    auto axes = llvm::to_vector(
        llvm::seq<int64_t>(0, cast<RankedTensorType>(gv.getType()).getRank()));
    Value sum = SumOp::create(b, loc, gv, axes);
    total = total ? Value(AddOp::create(b, loc, total, sum)) : sum;
  }
  func::ReturnOp::create(b, loc, total);
  return dot;
}
