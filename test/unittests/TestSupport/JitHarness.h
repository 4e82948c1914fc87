//===- JitHarness.h - Run kiln functions and check gradients ----*- C++ -*-===//
//
// The harness of the GoogleTests that compile kiln functions with the JIT,
// run them on f64 inputs and check gradients: a JitSession whose context has
// the autodiff rules, seeded inputs, the central-difference check, and the
// `<grad f, v>` function that second-order tests differentiate again.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TEST_UNITTESTS_TESTSUPPORT_JITHARNESS_H
#define KILN_TEST_UNITTESTS_TESTSUPPORT_JITHARNESS_H

#include "kiln/Support/HostTensor.h"
#include "kiln/Execution/JitSession.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"

#include <random>
#include <string>
#include <vector>

namespace mlir::kiln::test {

//===----------------------------------------------------------------------===//
// Sessions and inputs
//===----------------------------------------------------------------------===//

/// Adds the func and kiln dialects and the autodiff rules to `context`, which
/// generateValueAndGrad and kiln-autodiff need.
void appendAutodiffRegistry(MLIRContext &context);

/// One JitSession per test binary whose context has the autodiff rules.
JitSession &getAutodiffSession();

/// How an input's entries are drawn.
enum class Fill {
  /// Uniform in [-1, 1).
  Uniform,
  /// Uniform in [0.5, 1.5): for log, sqrt, pow bases, divisors.
  Positive,
  /// Magnitude in [0.7, 1.2) with a random sign: away from the kinks of
  /// relu, abs, leaky_relu and elu at 0.
  AwayFromZero,
  /// The given values (indices, labels, seeds).
  Given,
};

/// One input of a test function.
struct InputSpec {
  DType dtype;
  SmallVector<int64_t> shape;
  Fill fill = Fill::Uniform;
  std::vector<double> values = {};
};

/// A random f64 input.
InputSpec f64(ArrayRef<int64_t> shape, Fill fill = Fill::Uniform);
/// An input of the given values.
InputSpec given(DType dtype, ArrayRef<int64_t> shape,
                std::vector<double> values);

/// The seed of a named case: the same inputs on every run.
uint64_t getCaseSeed(StringRef name);

/// Draws `spec`'s entries from `rng`. Every entry takes one uniform draw
/// (AwayFromZero a second one for its magnitude), given values too: giving
/// an input's values leaves the other inputs' draws where they were.
HostTensor makeInput(const InputSpec &spec, std::mt19937_64 &rng);

/// The inputs of `specs`, in order, from one generator seeded with `seed`.
SmallVector<HostTensor> makeInputs(ArrayRef<InputSpec> specs, uint64_t seed);

/// A tensor of `values`; a test failure (and an empty tensor) where they do
/// not make one.
HostTensor makeTensor(DType dtype, ArrayRef<int64_t> shape,
                      ArrayRef<double> values);

/// HostTensor::random; a test failure (and an empty tensor) where it fails.
HostTensor makeRandomTensor(DType dtype, ArrayRef<int64_t> shape,
                            uint64_t seed);

/// The text of the file at `path` with every "f32" replaced by "f64" (how
/// the f64 tests use examples/transformer_block.mlir); a test failure and
/// an empty string where it cannot be read.
std::string readAsF64(StringRef path);

//===----------------------------------------------------------------------===//
// Central differences
//===----------------------------------------------------------------------===//

/// The settings of the central-difference check.
struct CentralDifferenceOptions {
  /// The step h of (f(x + h e_i) - f(x - h e_i)) / 2h.
  double step = 1e-6;
  /// An analytic entry a must be within tolerance * (1 + |fd|) of the
  /// difference fd.
  double tolerance = 1e-6;
  /// Where f does not depend on an entry at all (f(x + h e_i) is
  /// f(x - h e_i)), the analytic entry must also be exactly 0.
  bool exactZeros = false;
};

/// What the check saw.
struct CentralDifferenceStats {
  /// The entries compared.
  int64_t checked = 0;
  /// The entries f depends on: f(x + h e_i) != f(x - h e_i).
  int64_t dependent = 0;
  /// max |a| over the analytic entries.
  double largestAnalytic = 0;
  /// max |a - fd| / (1 + |fd|).
  double worstError = 0;

  CentralDifferenceStats &operator+=(const CentralDifferenceStats &other);
};

/// Compares every entry of `gradient`, the analytic derivative of `function`
/// (whose first result is a scalar f) with respect to `inputs[argIndex]`,
/// with the central difference of f. `inputs[argIndex]` is restored after
/// each entry. A mismatch is a test failure naming `label[i]`.
CentralDifferenceStats expectMatchesCentralDifferences(
    JitModule &jit, StringRef function, MutableArrayRef<HostTensor> inputs,
    int64_t argIndex, const HostTensor &gradient, StringRef label,
    const CentralDifferenceOptions &options = {});

/// The check above for each argument `wrt[k]` of `function`, whose gradient
/// is `valueAndGrad[k + 1]` (the results of its value-and-gradient
/// function); the labels are `labelPrefix` followed by the argument index.
CentralDifferenceStats expectGradientsMatchCentralDifferences(
    JitModule &jit, StringRef function, MutableArrayRef<HostTensor> inputs,
    ArrayRef<int64_t> wrt, ArrayRef<HostTensor> valueAndGrad,
    StringRef labelPrefix, const CentralDifferenceOptions &options = {});

//===----------------------------------------------------------------------===//
// Second order
//===----------------------------------------------------------------------===//

/// Adds `@name(args of f..., v_1, ..., v_n) = sum_k sum(g_k * v_k)` at the
/// end of f's module, where g_k is result k of `valueAndGrad` (f's value and
/// gradient function, k >= 1) and v_k has g_k's type. Its body is a clone of
/// valueAndGrad's, so its gradient with respect to an argument x of f is
/// the Hessian-vector product sum_k (d g_k / d x) v_k.
func::FuncOp buildGradientDotProduct(func::FuncOp f, func::FuncOp valueAndGrad,
                                     StringRef name);

} // namespace mlir::kiln::test

#endif // KILN_TEST_UNITTESTS_TESTSUPPORT_JITHARNESS_H
