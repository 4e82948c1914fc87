//===- AutodiffTest.cpp - Gradients against central finite differences ----===//
//
// Every backward rule, checked through the JIT in f64: the module goes through
// `kiln-autodiff{function=f}`, `@f_value_and_grad` is compiled and called,
// and each gradient entry is compared with (f(x + h e) - f(x - h e)) / 2h.
// Inputs are random and kept away from kinks and ties. A case whose backward
// graph uses an op without a CPU lowering yet is skipped with a message that
// names those ops.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/Autodiff.h"
#include "kiln/Conversion/KilnToLinalg/KilnToLinalg.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"
#include "kiln/Execution/JitSession.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include "TestSupport/AttentionCases.h"
#include "TestSupport/Graphs.h"
#include "TestSupport/JitHarness.h"
#include "TestSupport/PipelineHarness.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>
#include <set>

using namespace mlir;
using namespace mlir::kiln;

namespace {

using test::f64;
using test::Fill;
using test::InputSpec;

struct Case {
  std::string name;
  /// A module with a function @f returning a rank-0 f64.
  std::string source;
  std::vector<InputSpec> args;
  /// The arguments to differentiate with respect to.
  SmallVector<int64_t> wrt;
  /// At kinks and ties, where finite differences do not apply: the
  /// gradients PyTorch's autograd gives (torch 1.13, f64), one per wrt.
  std::vector<std::vector<double>> expected = {};
  /// Where f does not depend on an input entry at all (central differences
  /// exactly 0), the gradient must be exactly 0 too: masked keys, padded
  /// keys and empty rows of attention.
  bool exactZeros = false;
};

InputSpec given(ArrayRef<int64_t> shape, std::vector<double> values) {
  return test::given(DType::F64, shape, std::move(values));
}
InputSpec i64(ArrayRef<int64_t> shape, std::vector<double> values) {
  return test::given(DType::I64, shape, std::move(values));
}

/// `sum(y * w)` for a `type`d `%y` and weight argument `%w`: a loss whose
/// gradient with respect to `%y` is the random `w`, not a constant.
std::string weightedSum(const std::string &type, int64_t rank) {
  std::string mulLine = "  %yw = kiln.mul %y, %w : (" + type + ", " + type +
                        ") -> " + type + "\n";
  if (rank == 0)
    return mulLine + "  return %yw : tensor<f64>\n}\n";
  std::string axes;
  for (int64_t i = 0; i < rank; ++i)
    axes += (i ? ", " : "") + std::to_string(i);
  return mulLine + "  %l = kiln.sum %yw {axes = array<i64: " + axes +
         ">} : " + type + " -> tensor<f64>\n  return %l : tensor<f64>\n}\n";
}

/// A case of one op: `f(x..., w) = sum(op(x...) * w)`.
Case opCase(std::string name, std::string args, std::string body,
            std::string resultType, int64_t rank, std::vector<InputSpec> inputs,
            SmallVector<int64_t> wrt) {
  std::string source = "func.func @f(" + args + ", %w: " + resultType +
                       ") -> tensor<f64> {\n" + body + "\n" +
                       weightedSum(resultType, rank);
  return Case{std::move(name), source, std::move(inputs), std::move(wrt)};
}

/// `tensor<AxBx...xf64>` for `shape`.
std::string f64Type(ArrayRef<int64_t> shape) {
  return formatTensorType(DType::F64, shape);
}

/// An op of one operand `%x` of shape `in`, differentiated in it:
/// `%y = kiln.<op> %x <attrs> : <in> -> <out>`.
Case shapeCase(std::string name, const std::string &op,
               const std::string &attrs, ArrayRef<int64_t> in,
               ArrayRef<int64_t> out) {
  return opCase(std::move(name), "%x: " + f64Type(in),
                "  %y = kiln." + op + " %x" + (attrs.empty() ? "" : " ") +
                    attrs + " : " + f64Type(in) + " -> " + f64Type(out),
                f64Type(out), out.size(), {f64(in), f64(out)}, {0});
}

/// The same for an op whose assembly names its one type:
/// `%y = kiln.<op> %x <attrs> : <type>`.
Case sameTypeCase(std::string name, const std::string &op,
                  const std::string &attrs, ArrayRef<int64_t> shape) {
  return opCase(std::move(name), "%x: " + f64Type(shape),
                "  %y = kiln." + op + " %x" + (attrs.empty() ? "" : " ") +
                    attrs + " : " + f64Type(shape),
                f64Type(shape), shape.size(), {f64(shape), f64(shape)}, {0});
}

/// A unary elementwise op on tensor<2x3xf64>, or on rank-0 tensors (whose
/// backward graph needs no reduction).
Case unaryCase(const std::string &op, const std::string &attrs = "",
               Fill fill = Fill::Uniform, std::string name = "",
               bool rank0 = false) {
  const std::string t = rank0 ? "tensor<f64>" : "tensor<2x3xf64>";
  InputSpec arg = rank0 ? f64({}, fill) : f64({2, 3}, fill);
  InputSpec weight = rank0 ? f64({}) : f64({2, 3});
  return opCase((name.empty() ? op : name) + (rank0 ? "_rank0" : ""),
                "%x: " + t, "  %y = kiln." + op + " %x" + attrs + " : " + t, t,
                rank0 ? 0 : 2, {arg, weight}, {0, 1});
}

/// A binary elementwise op with broadcasting: [2,1,3] op [4,1] -> [2,4,3].
Case binaryCase(const std::string &op, Fill lhsFill, Fill rhsFill) {
  return opCase(op, "%a: tensor<2x1x3xf64>, %b: tensor<4x1xf64>",
                "  %y = kiln." + op +
                    " %a, %b : (tensor<2x1x3xf64>, tensor<4x1xf64>) -> "
                    "tensor<2x4x3xf64>",
                "tensor<2x4x3xf64>", 3,
                {f64({2, 1, 3}, lhsFill), f64({4, 1}, rhsFill), f64({2, 4, 3})},
                {0, 1, 2});
}

std::vector<Case> elementwiseCases() {
  std::vector<Case> cases;
  // Rank 0: the rules' formulas without broadcasting.
  for (const char *op :
       {"add", "sub", "mul", "div", "pow", "maximum", "minimum"}) {
    const std::string t = "tensor<f64>";
    Fill lhs = std::string(op) == "pow" ? Fill::Positive : Fill::Uniform;
    Fill rhs = std::string(op) == "div" ? Fill::Positive : Fill::Uniform;
    cases.push_back(
        opCase(std::string(op) + "_rank0", "%a: " + t + ", %b: " + t,
               "  %y = kiln." + std::string(op) + " %a, %b : (" + t + ", " + t +
                   ") -> " + t,
               t, 0, {f64({}, lhs), f64({}, rhs), f64({})}, {0, 1, 2}));
  }
  for (const char *op : {"exp", "expm1", "sin", "cos", "tanh", "sigmoid", "erf",
                         "silu", "neg", "gelu"})
    cases.push_back(unaryCase(op, "", Fill::Uniform, "", /*rank0=*/true));
  for (const char *op : {"log", "log2", "log10", "log1p", "sqrt", "rsqrt"})
    cases.push_back(unaryCase(op, "", Fill::Positive, "", /*rank0=*/true));
  for (const char *op : {"relu", "abs"})
    cases.push_back(unaryCase(op, "", Fill::AwayFromZero, "", /*rank0=*/true));
  cases.push_back(binaryCase("add", Fill::Uniform, Fill::Uniform));
  cases.push_back(binaryCase("sub", Fill::Uniform, Fill::Uniform));
  cases.push_back(binaryCase("mul", Fill::Uniform, Fill::Uniform));
  cases.push_back(binaryCase("div", Fill::Uniform, Fill::Positive));
  cases.push_back(binaryCase("pow", Fill::Positive, Fill::Uniform));
  cases.push_back(binaryCase("maximum", Fill::Uniform, Fill::Uniform));
  cases.push_back(binaryCase("minimum", Fill::Uniform, Fill::Uniform));
  cases.push_back(opCase(
      "select", "%a: tensor<2x3xf64>, %b: tensor<3xf64>",
      "  %c = kiln.gt %a, %b : (tensor<2x3xf64>, tensor<3xf64>) -> "
      "tensor<2x3xi1>\n"
      "  %y = kiln.select %c, %a, %b : (tensor<2x3xi1>, tensor<2x3xf64>, "
      "tensor<3xf64>) -> tensor<2x3xf64>",
      "tensor<2x3xf64>", 2, {f64({2, 3}), f64({3}), f64({2, 3})}, {0, 1, 2}));
  for (const char *op :
       {"exp", "expm1", "sin", "cos", "tanh", "sigmoid", "erf", "silu", "neg"})
    cases.push_back(unaryCase(op));
  for (const char *op : {"log", "log2", "log10", "log1p", "sqrt", "rsqrt"})
    cases.push_back(unaryCase(op, "", Fill::Positive));
  for (const char *op : {"relu", "abs"})
    cases.push_back(unaryCase(op, "", Fill::AwayFromZero));
  cases.push_back(unaryCase("leaky_relu", " {alpha = 2.000000e-01 : f64}",
                            Fill::AwayFromZero));
  cases.push_back(
      unaryCase("elu", " {alpha = 5.000000e-01 : f64}", Fill::AwayFromZero));
  cases.push_back(unaryCase("gelu", "", Fill::Uniform, "gelu_none"));
  cases.push_back(unaryCase("gelu",
                            " {approximate = #kiln.approximation<tanh>}",
                            Fill::Uniform, "gelu_tanh"));
  // Bounds at +-0.1 and magnitudes in [0.7, 1.2): no boundary is hit.
  cases.push_back(unaryCase(
      "clamp", " {max = 1.000000e-01 : f64, min = -1.000000e-01 : f64}",
      Fill::AwayFromZero, "clamp_both"));
  cases.push_back(unaryCase("clamp", " {min = 1.000000e-01 : f64}",
                            Fill::AwayFromZero, "clamp_min"));
  return cases;
}

std::vector<Case> tensorCases() {
  std::vector<Case> cases;
  cases.push_back(
      shapeCase("broadcast_to", "broadcast_to", "", {3, 1}, {2, 3, 4}));
  cases.push_back(shapeCase("reshape", "reshape", "", {2, 3}, {3, 2}));
  cases.push_back(shapeCase("flatten", "flatten",
                            "{end_dim = 2 : i64, start_dim = 1 : i64}",
                            {2, 3, 2}, {2, 6}));
  cases.push_back(shapeCase("squeeze", "squeeze", "{dims = array<i64: 0, 2>}",
                            {1, 3, 1}, {3}));
  cases.push_back(shapeCase("unsqueeze", "unsqueeze", "{dim = 1 : i64}", {2, 3},
                            {2, 1, 3}));
  cases.push_back(shapeCase("transpose", "transpose",
                            "{dim0 = 0 : i64, dim1 = 2 : i64}", {2, 3, 4},
                            {4, 3, 2}));
  cases.push_back(shapeCase("permute", "permute",
                            "{permutation = array<i64: 1, 2, 0>}", {2, 3, 4},
                            {3, 4, 2}));
  cases.push_back(shapeCase("slice_strided", "slice",
                            "{starts = array<i64: 1, 1>, stops = array<i64: 3, "
                            "7>, strides = array<i64: 1, 2>}",
                            {4, 7}, {2, 3}));
  cases.push_back(shapeCase("pad", "pad",
                            "{high = array<i64: 2, 0>, low = array<i64: 0, 1>, "
                            "value = 1.5 : f64}",
                            {2, 3}, {4, 4}));
  cases.push_back(opCase("concat", "%a: tensor<2x3xf64>, %b: tensor<2x1xf64>",
                         "  %y = kiln.concat %a, %b, %a {axis = 1 : i64} : "
                         "(tensor<2x3xf64>, tensor<2x1xf64>, tensor<2x3xf64>) "
                         "-> tensor<2x7xf64>",
                         "tensor<2x7xf64>", 2,
                         {f64({2, 3}), f64({2, 1}), f64({2, 7})}, {0, 1}));
  cases.push_back(opCase(
      "split", "%x: tensor<5x2xf64>",
      "  %p:3 = kiln.split %x {axis = 0 : i64, split_sizes = array<i64: 2, "
      "1, 2>} : tensor<5x2xf64> -> tensor<2x2xf64>, tensor<1x2xf64>, "
      "tensor<2x2xf64>\n"
      "  %y = kiln.mul %p#0, %p#1 : (tensor<2x2xf64>, tensor<1x2xf64>) -> "
      "tensor<2x2xf64>",
      "tensor<2x2xf64>", 2, {f64({5, 2}), f64({2, 2})}, {0}));
  cases.push_back(
      sameTypeCase("tril", "tril", "{diagonal = -1 : i64}", {3, 4}));
  cases.push_back(sameTypeCase("triu", "triu", "{diagonal = 1 : i64}", {3, 4}));
  // Repeated and out-of-range (clamped) indices.
  cases.push_back(opCase(
      "gather", "%x: tensor<4x3xf64>, %i: tensor<2x3xi64>",
      "  %y = kiln.gather %x, %i {axis = 0 : i64} : "
      "(tensor<4x3xf64>, tensor<2x3xi64>) -> "
      "tensor<2x3x3xf64>",
      "tensor<2x3x3xf64>", 3,
      {f64({4, 3}), i64({2, 3}, {1, 3, 1, 0, 1, 7}), f64({2, 3, 3})}, {0}));
  // Negative indices are clamped to 0: their adjoint reaches row 0.
  cases.push_back(
      opCase("gather_negative_index", "%x: tensor<4x3xf64>, %i: tensor<3xi64>",
             "  %y = kiln.gather %x, %i {axis = 0 : i64} : "
             "(tensor<4x3xf64>, tensor<3xi64>) -> tensor<3x3xf64>",
             "tensor<3x3xf64>", 2,
             {f64({4, 3}), i64({3}, {-2, 2, -1}), f64({3, 3})}, {0}));
  cases.push_back(opCase("index_select",
                         "%x: tensor<2x4xf64>, %i: tensor<3xi64>",
                         "  %y = kiln.index_select %x, %i {axis = 1 : i64} : "
                         "(tensor<2x4xf64>, tensor<3xi64>) -> tensor<2x3xf64>",
                         "tensor<2x3xf64>", 2,
                         {f64({2, 4}), i64({3}, {2, 0, 2}), f64({2, 3})}, {0}));
  return cases;
}

std::vector<Case> reductionCases() {
  std::vector<Case> cases;
  auto reduction = [](std::string name, const std::string &op,
                      const std::string &attrs, ArrayRef<int64_t> result) {
    return shapeCase(std::move(name), op, attrs, {2, 3, 4}, result);
  };
  cases.push_back(reduction("sum", "sum", "{axes = array<i64: 0, 2>}", {3}));
  cases.push_back(reduction("sum_keep", "sum",
                            "{axes = array<i64: 1>, keep_dims = true}",
                            {2, 1, 4}));
  cases.push_back(reduction("mean", "mean", "{axes = array<i64: 2>}", {2, 3}));
  cases.push_back(reduction("max", "max", "{axes = array<i64: 1>}", {2, 4}));
  cases.push_back(reduction("min", "min", "{axes = array<i64: 0, 1>}", {4}));
  cases.push_back(reduction("variance", "variance",
                            "{axes = array<i64: 2>, correction = 1 : i64}",
                            {2, 3}));
  cases.push_back(reduction("variance_population", "variance",
                            "{axes = array<i64: 0, 2>, correction = 0 : i64, "
                            "keep_dims = true}",
                            {1, 3, 1}));
  cases.push_back(
      sameTypeCase("softmax", "softmax", "{axis = 1 : i64}", {2, 3, 4}));
  cases.push_back(sameTypeCase("log_softmax", "log_softmax", "{axis = 2 : i64}",
                               {2, 3, 4}));
  // cumsum along the first, a middle and the last axis, in both directions
  // (the CPU lowering's row form, and its column form where nothing follows
  // the axis).
  cases.push_back(
      sameTypeCase("cumsum_first", "cumsum", "{axis = 0 : i64}", {4, 3, 2}));
  cases.push_back(sameTypeCase("cumsum_middle_reverse", "cumsum",
                               "{axis = 1 : i64, reverse = true}", {2, 5, 3}));
  cases.push_back(
      sameTypeCase("cumsum_last", "cumsum", "{axis = 1 : i64}", {3, 6}));
  cases.push_back(sameTypeCase("cumsum_vector_reverse", "cumsum",
                               "{axis = 0 : i64, reverse = true}", {7}));
  auto matmul = [](std::string name, ArrayRef<int64_t> lhs,
                   ArrayRef<int64_t> rhs, ArrayRef<int64_t> result) {
    std::string a = f64Type(lhs), b = f64Type(rhs), y = f64Type(result);
    return opCase(std::move(name), "%a: " + a + ", %b: " + b,
                  "  %y = kiln.matmul %a, %b : (" + a + ", " + b + ") -> " + y,
                  y, result.size(), {f64(lhs), f64(rhs), f64(result)}, {0, 1});
  };
  cases.push_back(matmul("matmul_2d", {2, 3}, {3, 4}, {2, 4}));
  cases.push_back(
      matmul("matmul_batch_broadcast", {2, 1, 2, 3}, {3, 3, 2}, {2, 3, 2, 2}));
  cases.push_back(matmul("matmul_vector_matrix", {3}, {2, 3, 4}, {2, 4}));
  cases.push_back(matmul("matmul_matrix_vector", {2, 3}, {3}, {2}));
  cases.push_back(matmul("matmul_dot", {3}, {3}, {}));
  return cases;
}

std::vector<Case> nnCases() {
  std::vector<Case> cases;
  for (const char *reduction : {"mean", "sum"}) {
    Case c;
    c.name = std::string("cross_entropy_") + reduction;
    c.source = std::string("func.func @f(%x: tensor<4x5xf64>, %t: "
                           "tensor<4xi64>) -> tensor<f64> {\n"
                           "  %l = kiln.cross_entropy %x, %t {ignore_index = "
                           "2 : i64, reduction = #kiln.reduction<") +
               reduction +
               ">} : (tensor<4x5xf64>, tensor<4xi64>) -> tensor<f64>\n"
               "  return %l : tensor<f64>\n}\n";
    c.args = {f64({4, 5}), i64({4}, {1, 2, 4, 1})};
    c.wrt = {0};
    cases.push_back(c);
  }
  cases.push_back(opCase(
      "cross_entropy_none", "%x: tensor<3x4xf64>, %t: tensor<3xi32>",
      "  %y = kiln.cross_entropy %x, %t {reduction = "
      "#kiln.reduction<none>} : (tensor<3x4xf64>, "
      "tensor<3xi32>) -> tensor<3xf64>",
      "tensor<3xf64>", 1,
      {f64({3, 4}), test::given(DType::I32, {3}, {3, 0, 3}), f64({3})}, {0}));
  // An ignore_index that i32 labels cannot hold matches no label, as in the
  // forward (which compares in i64). The rule once truncated it to the
  // label type (2^32 + 1 became 1) and dropped the samples labelled 1.
  cases.push_back(Case{
      "cross_entropy_wide_ignore_index",
      "func.func @f(%x: tensor<3x4xf64>, %t: tensor<3xi32>) -> tensor<f64> {\n"
      "  %l = kiln.cross_entropy %x, %t {ignore_index = 4294967297 : i64} : "
      "(tensor<3x4xf64>, tensor<3xi32>) -> tensor<f64>\n"
      "  return %l : tensor<f64>\n}\n",
      {f64({3, 4}), test::given(DType::I32, {3}, {1, 0, 1})},
      {0}});
  cases.push_back(opCase(
      "layer_norm",
      "%x: tensor<2x3x4xf64>, %g: tensor<3x4xf64>, %b: tensor<3x4xf64>",
      "  %y = kiln.layer_norm %x weight(%g : tensor<3x4xf64>) bias(%b : "
      "tensor<3x4xf64>) {epsilon = 1.0e-05 : f64, normalized_rank = 2 : i64} "
      ": tensor<2x3x4xf64>",
      "tensor<2x3x4xf64>", 3,
      {f64({2, 3, 4}), f64({3, 4}), f64({3, 4}), f64({2, 3, 4})}, {0, 1, 2}));
  cases.push_back(sameTypeCase(
      "layer_norm_plain", "layer_norm",
      "{epsilon = 1.0e-05 : f64, normalized_rank = 1 : i64}", {3, 4}));
  cases.push_back(opCase("rms_norm", "%x: tensor<3x4xf64>, %g: tensor<4xf64>",
                         "  %y = kiln.rms_norm %x weight(%g : tensor<4xf64>) "
                         "{epsilon = 1.0e-06 : f64, normalized_rank = 1 : "
                         "i64} : tensor<3x4xf64>",
                         "tensor<3x4xf64>", 2,
                         {f64({3, 4}), f64({4}), f64({3, 4})}, {0, 1}));
  cases.push_back(opCase("dropout", "%x: tensor<4x8xf64>, %s: tensor<i64>",
                         "  %y = kiln.dropout %x, %s {p = 3.000000e-01 : f64} "
                         ": tensor<4x8xf64>, tensor<i64>",
                         "tensor<4x8xf64>", 2,
                         {f64({4, 8}), i64({}, {1234}), f64({4, 8})}, {0}));
  return cases;
}

/// test::kMlpBlockSource, with a positive norm weight.
Case blockCase() {
  Case c;
  c.name = "mlp_block";
  c.source = test::kMlpBlockSource;
  c.args = test::getMlpBlockInputs(Fill::Positive);
  c.wrt = {0, 1, 2, 3, 4, 5};
  return c;
}

/// `sum(op(...))` on tensor<3xf64> values at kinks and ties.
Case kinkCase(std::string name, std::string args, std::string body,
              std::vector<InputSpec> inputs, SmallVector<int64_t> wrt,
              std::vector<std::vector<double>> expected) {
  std::string source = "func.func @f(" + args + ") -> tensor<f64> {\n" + body +
                       "\n  %l = kiln.sum %y {axes = array<i64: 0>} : "
                       "tensor<3xf64> -> tensor<f64>\n  return %l : "
                       "tensor<f64>\n}\n";
  return Case{std::move(name), source, std::move(inputs), std::move(wrt),
              std::move(expected)};
}

/// Ties and kinks follow PyTorch: maximum/minimum split a tie half-half,
/// pow's gradients are 0 at a zero base with a non-negative exponent and
/// at a zero exponent,
/// amax spreads evenly over the maxima, relu'(0) = abs'(0) = 0, clamp
/// passes the adjoint at its bounds, leaky_relu and elu take their
/// negative-side slope at 0.
std::vector<Case> kinkCases() {
  std::vector<Case> cases;
  const std::string two = "%a: tensor<3xf64>, %b: tensor<3xf64>";
  const std::string binary =
      " %a, %b : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>";
  cases.push_back(kinkCase("maximum_tie", two, "  %y = kiln.maximum" + binary,
                           {given({3}, {1, 2, 3}), given({3}, {1, 0, 5})},
                           {0, 1}, {{0.5, 1, 0}, {0.5, 0, 1}}));
  cases.push_back(kinkCase("minimum_tie", two, "  %y = kiln.minimum" + binary,
                           {given({3}, {1, 2, 3}), given({3}, {1, 0, 5})},
                           {0, 1}, {{0.5, 0, 1}, {0.5, 1, 0}}));
  // pow at a zero base and a zero exponent, where b * a^(b-1) and
  // a^b * log(a) are 0 * inf: PyTorch gives 0 there (and log(2) for 2^0).
  cases.push_back(kinkCase("pow_at_zero", two, "  %y = kiln.pow" + binary,
                           {given({3}, {0, 0, 2}), given({3}, {0, 2, 0})},
                           {0, 1}, {{0, 0, 0}, {0, 0, 0.6931471805599453}}));
  auto unary = [&](std::string name, std::string op,
                   std::vector<double> expected) {
    return kinkCase(std::move(name), "%a: tensor<3xf64>",
                    "  %y = kiln." + op + " : tensor<3xf64>",
                    {given({3}, {-1, 0, 2})}, {0}, {std::move(expected)});
  };
  cases.push_back(unary("relu_at_zero", "relu %a", {0, 0, 1}));
  cases.push_back(unary("abs_at_zero", "abs %a", {-1, 0, 1}));
  cases.push_back(unary("clamp_at_bounds",
                        "clamp %a {max = 2.0 : f64, min = -1.0 : f64}",
                        {0, 1, 0}));
  cases.push_back(unary("leaky_relu_at_zero",
                        "leaky_relu %a {alpha = 2.000000e-01 : f64}",
                        {0.2, 0.2, 1}));
  cases.push_back(unary("elu_at_zero", "elu %a {alpha = 5.000000e-01 : f64}",
                        {0.5 * std::exp(-1.0), 0.5, 1}));
  cases.push_back(Case{"amax_tie",
                       "func.func @f(%x: tensor<2x3xf64>) -> tensor<f64> {\n"
                       "  %y = kiln.max %x {axes = array<i64: 1>} : "
                       "tensor<2x3xf64> -> tensor<2xf64>\n"
                       "  %l = kiln.sum %y {axes = array<i64: 0>} : "
                       "tensor<2xf64> -> tensor<f64>\n"
                       "  return %l : tensor<f64>\n}\n",
                       {given({2, 3}, {3, 1, 3, 0, 2, -1})},
                       {0},
                       {{0.5, 0, 0.5, 0, 1, 0}}});
  // max_pool2d gives a window's adjoint to its first maximum in row-major
  // order (PyTorch's CPU kernel): every window here has tied maxima.
  cases.push_back(
      Case{"max_pool2d_tie",
           "func.func @f(%x: tensor<1x1x3x3xf64>) -> tensor<f64> {\n"
           "  %y = kiln.max_pool2d %x {kernel_size = array<i64: 2, "
           "2>, stride = array<i64: 1, 1>} : (tensor<1x1x3x3xf64>) "
           "-> tensor<1x1x2x2xf64>\n"
           "  %l = kiln.sum %y {axes = array<i64: 0, 1, 2, 3>} : "
           "tensor<1x1x2x2xf64> -> tensor<f64>\n"
           "  return %l : tensor<f64>\n}\n",
           {given({1, 1, 3, 3}, {2, 2, 1, 2, 0, 2, 1, 2, 2})},
           {0},
           {{1, 1, 0, 1, 0, 1, 0, 0, 0}}});
  return cases;
}

/// `f(q, k, v, extras..., w) = sum(attention(q, k, v, ...) * w)`, with
/// respect to q, k, v and every extra marked `wrt`.
Case attentionCase(const test::AttentionCase &a) {
  const test::AttentionShape &s = a.shape;
  std::string tq = formatTensorType(DType::F64, s.getQueryShape());
  std::string tk = formatTensorType(DType::F64, s.getKeyShape());
  std::string tv = formatTensorType(DType::F64, s.getValueShape());
  std::string to = formatTensorType(DType::F64, s.getOutputShape());
  std::string args = "%q: " + tq + ", %k: " + tk + ", %v: " + tv;
  std::vector<InputSpec> inputs = {f64(s.getQueryShape()), f64(s.getKeyShape()),
                                   f64(s.getValueShape())};
  SmallVector<int64_t> wrt = {0, 1, 2};
  std::vector<std::string> names;
  for (auto [n, extra] : llvm::enumerate(a.extras)) {
    std::string argName = "%x" + std::to_string(n);
    args += ", " + argName + ": " + extra.getType();
    names.push_back(argName);
    if (extra.wrt)
      wrt.push_back(inputs.size());
    inputs.push_back(extra.input);
  }
  std::string operands = test::formatOperandGroups(a.extras, names);
  inputs.push_back(f64(s.getOutputShape()));
  wrt.push_back(inputs.size() - 1);
  Case c =
      opCase(a.name, args,
             "  %y = kiln.attention %q, %k, %v" + operands + " " + a.attrs +
                 " : " + tq + ", " + tk + ", " + tv + " -> " + to,
             to, 4, inputs, wrt);
  c.exactZeros = true;
  return c;
}

/// kiln.attention's adjoint (kiln.attention_grad) in every configuration of
/// docs/Attention.md's "Adjoint" section.
std::vector<Case> attentionCases() {
  test::AttentionShape plain{2, 2, 2, 3, 4, 3, 2}; // Dv != Dk
  test::AttentionShape rect{1, 2, 2, 3, 5, 2, 3};
  // A boolean mask with a fully masked row (query 1 of batch 0) and a
  // fully masked key (2).
  InputSpec emptyRowMask =
      test::given(DType::I1, {2, 1, 3, 3},
                  {1, 0, 1, 0, 0, 0, 1, 1, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0});
  std::vector<test::AttentionCase> table = {
      {"attention_plain", plain, ""},
      {"attention_scale", plain, "{scale = 5.000000e-01 : f64}"},
      {"attention_causal_bottom_right", rect, "{causal}"},
      {"attention_causal_top_left", rect,
       "{causal, alignment = #kiln.alignment<top_left>}"},
      {"attention_gqa", {1, 4, 2, 3, 4, 2, 2}, ""},
      {"attention_mqa", {2, 3, 1, 2, 3, 2, 2}, "{causal}"},
      {"attention_key_lengths",
       {2, 2, 1, 3, 4, 2, 2},
       "",
       {{"key_lengths", i64({2}, {2, 4})}}},
      {"attention_empty_batches",
       {2, 2, 2, 2, 3, 2, 2},
       "",
       {{"key_lengths", i64({2}, {0, 3})}}},
      {"attention_query_lengths",
       {2, 2, 2, 3, 3, 2, 2},
       "",
       {{"query_lengths", i64({2}, {1, 3})}}},
      {"attention_window",
       {1, 2, 1, 5, 5, 2, 2},
       "{window_left = 2 : i64, window_right = 1 : i64}"},
      {"attention_dense_mask",
       {2, 2, 2, 3, 3, 2, 2},
       "",
       {{"mask", f64({2, 1, 3, 3}), true}}},
      {"attention_per_head_mask",
       {2, 3, 3, 2, 4, 2, 2},
       "",
       {{"mask", f64({1, 3, 1, 4}), true}}},
      {"attention_rank2_mask",
       {1, 2, 1, 3, 4, 2, 2},
       "{causal}",
       {{"mask", f64({3, 4}), true}}},
      {"attention_bool_mask_empty_row",
       {2, 2, 1, 3, 3, 2, 2},
       "",
       {{"mask", emptyRowMask}}},
      {"attention_decode", {1, 2, 2, 1, 5, 3, 2}, "{causal}"},
      {"attention_softcap", plain, "{softcap = 8.000000e-01 : f64}"},
      {"attention_softcap_mask",
       {1, 2, 2, 3, 3, 2, 2},
       "{softcap = 5.000000e-01 : f64}",
       {{"mask", f64({1, 2, 3, 3}), true}}},
      {"attention_dropout",
       {2, 4, 2, 3, 4, 2, 3},
       "{dropout_p = 3.000000e-01 : f64, causal}",
       {{"seed", i64({}, {1234})}}},
      {"attention_no_keys", {1, 2, 1, 2, 0, 2, 2}, ""},
      // ALiBi's bias -slope[b, h] * |j - p(i)| (the slopes get no gradient).
      {"attention_alibi_causal",
       rect,
       "{causal}",
       {{"alibi_slopes", given({2}, {0.5, 0.125})}}},
      {"attention_alibi_batch_mask_gqa_top_left",
       {2, 4, 2, 3, 4, 2, 2},
       "{alignment = #kiln.alignment<top_left>}",
       {{"mask", f64({1, 4, 1, 4}), true},
        {"alibi_slopes",
         given({2, 4}, {0.25, 0.5, 0.75, 1.0, 1.25, 0.0625, 0.125, 2.0})}}},
      // Sinks: a per-head logit in every row's softmax, differentiated
      // (d_sinks), with GQA and causal rows of which the first sees one key,
      // and with lengths that leave a batch's rows with the sink alone.
      {"attention_sinks_causal_gqa",
       {2, 4, 2, 3, 4, 2, 2},
       "{causal}",
       {{"sinks", given({4}, {0.5, -1.0, 1.5, 0.0}), true}}},
      {"attention_sinks_mask_lengths_softcap",
       {2, 2, 1, 3, 4, 2, 2},
       "{softcap = 1.5 : f64}",
       {{"mask", f64({1, 2, 1, 4}), true},
        {"key_lengths", i64({2}, {4, 0})},
        {"sinks", given({2}, {-0.5, 2.0}), true}}},
      // Packed sequences (cu_seqlens): three sequences of 2/3, 1/1 and 3/3
      // queries/keys with causal bands inside them (bottom_right: the first
      // sequence's rows see two keys and three), a padding query row and a
      // padding key, GQA and ALiBi distances within each sequence.
      {"attention_packed_causal_gqa_alibi",
       {1, 4, 2, 7, 8, 2, 2},
       "{causal}",
       {{"alibi_slopes", given({4}, {0.5, 0.25, 0.125, 1.0})},
        {"cu_seqlens_q", i64({4}, {0, 2, 3, 6})},
        {"cu_seqlens_k", i64({4}, {0, 3, 4, 7})}}},
      {"attention_packed_window_sinks_top_left",
       {2, 2, 1, 6, 6, 2, 2},
       "{window_left = 1 : i64, alignment = #kiln.alignment<top_left>}",
       {{"sinks", given({2}, {0.25, -1.0}), true},
        {"cu_seqlens_q", i64({3}, {0, 4, 6})},
        {"cu_seqlens_k", i64({3}, {0, 4, 6})}}},
  };
  std::vector<Case> cases;
  for (const test::AttentionCase &a : table)
    cases.push_back(attentionCase(a));

  // Rows whose every key carries one huge finite bias, as Hugging Face's
  // finfo.min padding masks give them: the forward's saved LSE rounds
  // log(l) away there, and the adjoint renormalises those rows
  // (docs/Attention.md, "Adjoint"); without it dV of such a row came out
  // up to Sk times too large. Row 1 of batch 0 has offsets on its bias,
  // row 2 of batch 1 none. Only v and the loss weight are differentiated:
  // beyond |bias| ~ 1e8 the f64 logits cannot hold the scores any more, so
  // f is flat in q, k and the mask along these rows and central
  // differences say nothing there (the PyTorch fixtures
  // large_bias_* check dQ, dK and d_mask).
  const double offsets[] = {0.0, 0.5, -1.0, 2.0};
  const std::pair<const char *, double> biases[] = {
      {"1e8", -1e8},
      {"1e16", -1e16},
      {"1e30", -1e30},
      {"lowest", std::numeric_limits<double>::lowest()}};
  for (auto [label, bias] : biases) {
    std::vector<double> mask(2 * 3 * 4);
    for (int64_t n = 0; n < int64_t(mask.size()); ++n) {
      int64_t b = n / 12, i = n / 4 % 3, j = n % 4;
      if (b == 0 && i == 1)
        mask[n] = bias + offsets[j];
      else if (b == 1 && i == 2)
        mask[n] = bias;
      else
        mask[n] = 0.25 * double(n % 5) - 0.5;
    }
    Case c = attentionCase({std::string("attention_large_bias_") + label,
                            plain,
                            "",
                            {{"mask", given({2, 1, 3, 4}, mask)}}});
    c.wrt = {2, 4};
    cases.push_back(std::move(c));
  }
  return cases;
}

/// One op of the conv family on f64 operands of the given shapes (all
/// differentiated): `%y = kiln.<op> %a0, %a1... <attrs> : <types>`.
Case convFamilyCase(std::string name, const std::string &op,
                    std::vector<SmallVector<int64_t>> operands,
                    const std::string &attrs, SmallVector<int64_t> result,
                    bool bias = false) {
  std::string args, uses, types;
  std::vector<InputSpec> inputs;
  SmallVector<int64_t> wrt;
  for (auto [i, shape] : llvm::enumerate(operands)) {
    std::string value = "%a" + std::to_string(i);
    args += (i ? ", " : "") + value + ": " + f64Type(shape);
    if (bias && i == 2)
      uses += " bias(" + value + ")";
    else
      uses += (i ? ", " : " ") + value;
    types += (i ? ", " : "") + f64Type(shape);
    inputs.push_back(f64(shape));
    wrt.push_back(i);
  }
  // unfold's assembly has a plain `type -> type`; the others print a
  // functional type.
  std::string signature = op == "unfold"
                              ? types + " -> " + f64Type(result)
                              : "(" + types + ") -> " + f64Type(result);
  inputs.push_back(f64(result));
  return opCase(std::move(name), args,
                "  %y = kiln." + op + uses + " " + attrs + " : " + signature,
                f64Type(result), result.size(), std::move(inputs),
                std::move(wrt));
}

/// Convolutions (strides, padding larger than the kernel's reach, dilation,
/// groups, bias, odd sizes), pooling (ceil_mode, padding, dilation, both
/// divisor modes), resizing (integer and fractional scales, shrinking, both
/// bilinear alignments) and unfold (overlapping and gapped windows). Inputs
/// are random, so max_pool2d's windows have no ties; the tie rule is checked
/// against PyTorch in test/fixtures/conv_grad.json.
std::vector<Case> convCases() {
  std::vector<Case> cases;
  cases.push_back(convFamilyCase(
      "conv1d_stride_pad_dilation_groups_bias", "conv1d",
      {{2, 4, 9}, {6, 2, 3}, {6}},
      "{dilation = array<i64: 2>, groups = 2 : i64, padding = array<i64: 1>, "
      "stride = array<i64: 2>}",
      {2, 6, 4}, /*bias=*/true));
  cases.push_back(convFamilyCase("conv1d_padding_beyond_reach", "conv1d",
                                 {{1, 2, 5}, {3, 2, 2}},
                                 "{padding = array<i64: 2>}", {1, 3, 8}));
  cases.push_back(convFamilyCase(
      "conv2d_strided_dilated_bias", "conv2d",
      {{1, 2, 5, 6}, {4, 2, 3, 2}, {4}},
      "{dilation = array<i64: 1, 2>, padding = array<i64: 1, 0>, stride = "
      "array<i64: 2, 3>}",
      {1, 4, 3, 2}, /*bias=*/true));
  cases.push_back(convFamilyCase("conv2d_depthwise_padded", "conv2d",
                                 {{2, 3, 4, 4}, {3, 1, 2, 2}},
                                 "{groups = 3 : i64, padding = array<i64: 1, "
                                 "1>}",
                                 {2, 3, 5, 5}));
  cases.push_back(convFamilyCase(
      "conv3d_groups_mixed", "conv3d", {{1, 2, 3, 4, 3}, {2, 1, 2, 2, 2}},
      "{dilation = array<i64: 1, 1, 2>, groups = 2 : i64, padding = "
      "array<i64: 0, 1, 1>, stride = array<i64: 1, 2, 1>}",
      {1, 2, 2, 3, 3}));
  cases.push_back(convFamilyCase(
      "conv_transpose1d_stride_outpad_groups_bias", "conv_transpose1d",
      {{2, 4, 3}, {4, 3, 3}, {6}},
      "{groups = 2 : i64, output_padding = array<i64: 1>, padding = "
      "array<i64: 1>, stride = array<i64: 2>}",
      {2, 6, 6}, /*bias=*/true));
  // output_padding 1 >= stride 1 (allowed by dilation 2): the conv1d of the
  // input adjoint reads one position past the input and is cropped.
  cases.push_back(convFamilyCase("conv_transpose1d_outpad_dilation",
                                 "conv_transpose1d", {{1, 2, 4}, {2, 2, 2}},
                                 "{dilation = array<i64: 2>, output_padding = "
                                 "array<i64: 1>}",
                                 {1, 2, 7}));
  cases.push_back(convFamilyCase(
      "avg_pool2d_ceil_exclude_pad", "avg_pool2d", {{1, 2, 5, 5}},
      "{ceil_mode = true, count_include_pad = false, kernel_size = array<i64: "
      "3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>}",
      {1, 2, 3, 3}));
  cases.push_back(
      convFamilyCase("avg_pool2d_default_stride", "avg_pool2d", {{2, 1, 4, 6}},
                     "{kernel_size = array<i64: 2, 3>}", {2, 1, 2, 2}));
  cases.push_back(convFamilyCase(
      "max_pool2d_padded_dilated", "max_pool2d", {{1, 2, 5, 5}},
      "{dilation = array<i64: 1, 2>, kernel_size = array<i64: 3, 2>, padding "
      "= array<i64: 1, 1>, stride = array<i64: 2, 1>}",
      {1, 2, 3, 5}));
  cases.push_back(convFamilyCase("max_pool2d_ceil", "max_pool2d",
                                 {{1, 1, 6, 7}},
                                 "{ceil_mode = true, kernel_size = array<i64: "
                                 "2, 2>}",
                                 {1, 1, 3, 4}));
  cases.push_back(convFamilyCase("upsample2d_nearest_fractional", "upsample2d",
                                 {{1, 2, 3, 4}}, "{size = array<i64: 5, 7>}",
                                 {1, 2, 5, 7}));
  cases.push_back(convFamilyCase("upsample2d_nearest_double_shrink",
                                 "upsample2d", {{1, 1, 3, 5}},
                                 "{size = array<i64: 6, 3>}", {1, 1, 6, 3}));
  cases.push_back(convFamilyCase(
      "upsample2d_bilinear", "upsample2d", {{2, 1, 3, 4}},
      "{mode = #kiln.upsample_mode<bilinear>, size = array<i64: 5, 3>}",
      {2, 1, 5, 3}));
  cases.push_back(convFamilyCase(
      "upsample2d_bilinear_align_corners", "upsample2d", {{1, 1, 3, 4}},
      "{align_corners = true, mode = #kiln.upsample_mode<bilinear>, size = "
      "array<i64: 4, 7>}",
      {1, 1, 4, 7}));
  cases.push_back(convFamilyCase("unfold_gapped", "unfold", {{2, 7, 3}},
                                 "{dim = 1 : i64, size = 2 : i64, step = 3 : "
                                 "i64}",
                                 {2, 2, 3, 2}));
  cases.push_back(convFamilyCase("unfold_overlapping", "unfold", {{5, 2}},
                                 "{dim = 0 : i64, size = 3 : i64, step = 1 : "
                                 "i64}",
                                 {3, 2, 3}));
  return cases;
}

std::vector<Case> allCases() {
  std::vector<Case> cases;
  for (auto *family : {elementwiseCases, tensorCases, reductionCases, nnCases,
                       kinkCases, attentionCases, convCases})
    for (Case &c : family())
      cases.push_back(std::move(c));
  cases.push_back(blockCase());
  // Only kiln.add: fan-out of a (two uses) summed into one adjoint.
  cases.push_back(Case{"add_fan_out_rank0",
                       "func.func @f(%a: tensor<f64>, %b: tensor<f64>) -> "
                       "tensor<f64> {\n"
                       "  %0 = kiln.add %a, %b : (tensor<f64>, tensor<f64>) "
                       "-> tensor<f64>\n"
                       "  %1 = kiln.add %0, %a : (tensor<f64>, tensor<f64>) "
                       "-> tensor<f64>\n"
                       "  return %1 : tensor<f64>\n}\n",
                       {f64({}), f64({})},
                       {0, 1}});
  // Fan-out and an inactive branch: x feeds three uses, the integer branch
  // and the exp of a non-wrt argument get no adjoint.
  cases.push_back(
      opCase("fan_out", "%x: tensor<3xf64>, %z: tensor<3xf64>",
             "  %s = kiln.sin %x : tensor<3xf64>\n"
             "  %m = kiln.mul %x, %s : (tensor<3xf64>, tensor<3xf64>) -> "
             "tensor<3xf64>\n"
             "  %e = kiln.exp %z : tensor<3xf64>\n"
             "  %y0 = kiln.add %m, %x : (tensor<3xf64>, tensor<3xf64>) -> "
             "tensor<3xf64>\n"
             "  %y = kiln.mul %y0, %e : (tensor<3xf64>, tensor<3xf64>) -> "
             "tensor<3xf64>",
             "tensor<3xf64>", 1, {f64({3}), f64({3}), f64({3})}, {0}));
  return cases;
}

void PrintTo(const Case &c, std::ostream *os) { *os << c.name; }

class AutodiffTest : public ::testing::TestWithParam<Case> {
protected:
  static JitSession &session() { return test::getAutodiffSession(); }
};

TEST_P(AutodiffTest, MatchesFiniteDifferences) {
  const Case &c = GetParam();
  MLIRContext &context = session().getContext();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(c.source, &context);
  ASSERT_TRUE(module) << c.source;

  test::PassRun run = test::runPasses(*module, [&](PassManager &pm) {
    KilnAutodiffPassOptions options;
    options.function = "f";
    options.wrt.assign(c.wrt.begin(), c.wrt.end());
    pm.addPass(createKilnAutodiffPass(options));
    pm.addPass(createCanonicalizerPass());
  });
  ASSERT_TRUE(run.succeeded) << run.getDiagnostics();

  // Closure: the backward graph only uses ops that have rules themselves.
  module->walk([&](Operation *op) {
    if (op->getDialect() && op->getDialect()->getNamespace() == "kiln") {
      EXPECT_TRUE(isa<AutodiffOpInterface>(op))
          << op->getName().getStringRef().str() << " has no backward rule";
    }
  });

  // Ops of the forward or backward graph that do not lower yet.
  llvm::StringSet<> lowered;
  for (OperationName name : getKilnOpsWithCPULowering(&context))
    lowered.insert(name.getStringRef());
  std::set<std::string> missing;
  module->walk([&](Operation *op) {
    if (op->getDialect() && op->getDialect()->getNamespace() == "kiln" &&
        !lowered.contains(op->getName().getStringRef()))
      missing.insert(op->getName().getStringRef().str());
  });
  // Every op has a CPU lowering: a missing one must fail the gradient check
  // it would otherwise skip.
  if (!missing.empty())
    FAIL() << "no CPU lowering for "
           << llvm::join(missing.begin(), missing.end(), ", ");

  auto compiled = session().compile(*module);
  ASSERT_TRUE(succeeded(compiled)) << "compilation failed (see stderr)";
  JitModule &jit = **compiled;

  SmallVector<HostTensor> inputs =
      test::makeInputs(c.args, test::getCaseSeed(c.name));

  auto valueAndGrad = jit.invoke("f_value_and_grad", inputs);
  ASSERT_TRUE(succeeded(valueAndGrad));
  ASSERT_EQ(valueAndGrad->size(), c.wrt.size() + 1);
  auto value = jit.invoke("f", inputs);
  ASSERT_TRUE(succeeded(value));
  EXPECT_NEAR((*valueAndGrad)[0].getElementAsDouble(0),
              (*value)[0].getElementAsDouble(0), 1e-12);

  if (!c.expected.empty()) {
    for (auto [k, want] : llvm::enumerate(c.expected)) {
      const HostTensor &gradient = (*valueAndGrad)[k + 1];
      ASSERT_EQ(gradient.getNumElements(), int64_t(want.size()));
      for (auto [i, w] : llvm::enumerate(want))
        EXPECT_NEAR(gradient.getElementAsDouble(i), w, 1e-12)
            << "d f / d arg" << c.wrt[k] << "[" << i << "]";
    }
    return;
  }

  test::CentralDifferenceOptions options;
  options.exactZeros = c.exactZeros;
  test::expectGradientsMatchCentralDifferences(
      jit, "f", inputs, c.wrt, *valueAndGrad, "d f / d arg", options);
}

/// Closure in practice: the pass runs on its own output. `@h(x, v) = <grad
/// f(x), v>` is built from the generated backward of `@f` in `source`, then
/// differentiated again; its gradient, the Hessian-vector product H v, is
/// checked against central differences of the (JIT-compiled) `@h`, at
/// random x and v drawn from `seed`.
void checkHessianVectorProduct(StringRef source, uint64_t seed) {
  JitSession &session = test::getAutodiffSession();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, &session.getContext());
  ASSERT_TRUE(module) << source.str();
  auto f = module->lookupSymbol<func::FuncOp>("f");
  FailureOr<func::FuncOp> grad = generateValueAndGrad(*module, f, {0});
  ASSERT_TRUE(succeeded(grad));

  // @h(x, v) = sum(grad f(x) * v), from a clone of the backward graph.
  func::FuncOp h = test::buildGradientDotProduct(f, *grad, "h");
  FailureOr<func::FuncOp> hessian = generateValueAndGrad(*module, h, {0});
  ASSERT_TRUE(succeeded(hessian));
  ASSERT_EQ(hessian->getSymName(), "h_value_and_grad");

  auto compiled = session.compile(*module);
  ASSERT_TRUE(succeeded(compiled));
  JitModule &jit = **compiled;
  auto xShape = cast<RankedTensorType>(f.getArgumentTypes()[0]).getShape();
  SmallVector<HostTensor> inputs =
      test::makeInputs({f64(xShape), f64(xShape)}, seed);
  auto hvp = jit.invoke("h_value_and_grad", inputs);
  ASSERT_TRUE(succeeded(hvp));
  test::expectMatchesCentralDifferences(jit, "h", inputs, 0, (*hvp)[1],
                                        "(H v)");
}

TEST_F(AutodiffTest, SecondOrderHessianVectorProduct) {
  constexpr const char *kSource = R"mlir(
func.func @f(%x: tensor<2x3xf64>) -> tensor<f64> {
  %t = kiln.tanh %x : tensor<2x3xf64>
  %s = kiln.sigmoid %x : tensor<2x3xf64>
  %ts = kiln.mul %t, %s : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %a = kiln.mul %ts, %x : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %p = kiln.softmax %x {axis = 1 : i64} : tensor<2x3xf64>
  %px = kiln.mul %p, %x : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %b = kiln.add %a, %px : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %l = kiln.mean %b {axes = array<i64: 0, 1>} : tensor<2x3xf64> -> tensor<f64>
  return %l : tensor<f64>
}
)mlir";
  checkHessianVectorProduct(kSource, /*seed=*/7);
}

/// A loss that reads attention's lse result too. The default policy refuses
/// it (test/Transforms/Autodiff/invalid.mlir); `remat=save-all` decomposes
/// the attention before the sweep, so the lse is differentiated through the
/// primitive ops' rules: checked against central differences in q, k, v
/// (every row sees a key, so every lse is finite).
TEST_F(AutodiffTest, AttentionLseCotangentUnderSaveAll) {
  constexpr const char *kSource = R"mlir(
func.func @f(%q: tensor<2x2x3x2xf64>, %k: tensor<2x1x4x2xf64>, %v: tensor<2x1x4x2xf64>, %w: tensor<2x2x3xf64>) -> tensor<f64> {
  %kl = kiln.constant dense<[4, 2]> : tensor<2xi32>
  %o, %lse = kiln.attention %q, %k, %v key_lengths(%kl : tensor<2xi32>) {causal} : tensor<2x2x3x2xf64>, tensor<2x1x4x2xf64>, tensor<2x1x4x2xf64> -> tensor<2x2x3x2xf64>, tensor<2x2x3xf64>
  %lw = kiln.mul %lse, %w : (tensor<2x2x3xf64>, tensor<2x2x3xf64>) -> tensor<2x2x3xf64>
  %a = kiln.sum %lw {axes = array<i64: 0, 1, 2>} : tensor<2x2x3xf64> -> tensor<f64>
  %b = kiln.sum %o {axes = array<i64: 0, 1, 2, 3>} : tensor<2x2x3x2xf64> -> tensor<f64>
  %l = kiln.add %a, %b : (tensor<f64>, tensor<f64>) -> tensor<f64>
  return %l : tensor<f64>
}
)mlir";
  MLIRContext &context = session().getContext();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kSource, &context);
  ASSERT_TRUE(module);
  test::PassRun run = test::runPasses(*module, [](PassManager &pm) {
    KilnAutodiffPassOptions options;
    options.function = "f";
    options.wrt = {0, 1, 2};
    options.remat = RematPolicy::SaveAll;
    pm.addPass(createKilnAutodiffPass(options));
  });
  ASSERT_TRUE(run.succeeded) << run.getDiagnostics();
  auto compiled = session().compile(*module);
  ASSERT_TRUE(succeeded(compiled));
  JitModule &jit = **compiled;
  SmallVector<HostTensor> inputs = test::makeInputs(
      {f64({2, 2, 3, 2}), f64({2, 1, 4, 2}), f64({2, 1, 4, 2}), f64({2, 2, 3})},
      11);
  auto grads = jit.invoke("f_value_and_grad", inputs);
  ASSERT_TRUE(succeeded(grads));
  test::expectGradientsMatchCentralDifferences(jit, "f", inputs, {0, 1, 2},
                                               *grads, "d f / d arg");
}

/// Second order through the conv family: `@h(x, v) = <grad f(x), v>`,
/// where `f` feeds `x` to an op both as its input and (sliced) as its
/// weight, is differentiated again and its gradient checked against central
/// differences of `@h`.
class ConvSecondOrderTest : public AutodiffTest {};

TEST_P(ConvSecondOrderTest, HessianVectorProduct) {
  checkHessianVectorProduct(GetParam().source, /*seed=*/11);
}

/// conv2d (input and weight), max_pool2d (ceil_mode), avg_pool2d (padded),
/// bilinear upsample2d and unfold in one graph; conv_transpose1d alone.
std::vector<Case> convSecondOrderCases() {
  Case image;
  image.name = "conv2d_pools_upsample_unfold";
  image.source = R"mlir(
func.func @f(%x: tensor<1x2x5x5xf64>) -> tensor<f64> {
  %w = kiln.slice %x {starts = array<i64: 0, 0, 0, 0>, stops = array<i64: 1, 2, 3, 3>, strides = array<i64: 1, 1, 1, 1>} : tensor<1x2x5x5xf64> -> tensor<1x2x3x3xf64>
  %c = kiln.conv2d %x, %w {padding = array<i64: 1, 1>, stride = array<i64: 2, 1>} : (tensor<1x2x5x5xf64>, tensor<1x2x3x3xf64>) -> tensor<1x1x3x5xf64>
  %t = kiln.tanh %c : tensor<1x1x3x5xf64>
  %m = kiln.max_pool2d %t {ceil_mode = true, kernel_size = array<i64: 2, 2>, stride = array<i64: 1, 2>} : (tensor<1x1x3x5xf64>) -> tensor<1x1x2x3xf64>
  %a = kiln.avg_pool2d %t {kernel_size = array<i64: 2, 2>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x1x3x5xf64>) -> tensor<1x1x4x6xf64>
  %u = kiln.upsample2d %m {mode = #kiln.upsample_mode<bilinear>, size = array<i64: 4, 6>} : (tensor<1x1x2x3xf64>) -> tensor<1x1x4x6xf64>
  %p = kiln.mul %a, %u : (tensor<1x1x4x6xf64>, tensor<1x1x4x6xf64>) -> tensor<1x1x4x6xf64>
  %q = kiln.unfold %p {dim = 3 : i64, size = 3 : i64, step = 2 : i64} : tensor<1x1x4x6xf64> -> tensor<1x1x4x2x3xf64>
  %s = kiln.mul %q, %q : (tensor<1x1x4x2x3xf64>, tensor<1x1x4x2x3xf64>) -> tensor<1x1x4x2x3xf64>
  %l = kiln.sum %s {axes = array<i64: 0, 1, 2, 3, 4>} : tensor<1x1x4x2x3xf64> -> tensor<f64>
  return %l : tensor<f64>
}
)mlir";
  Case transposed;
  transposed.name = "conv_transpose1d";
  transposed.source = R"mlir(
func.func @f(%x: tensor<1x2x4xf64>) -> tensor<f64> {
  %s = kiln.slice %x {starts = array<i64: 0, 0, 0>, stops = array<i64: 1, 2, 3>, strides = array<i64: 1, 1, 1>} : tensor<1x2x4xf64> -> tensor<1x2x3xf64>
  %w = kiln.reshape %s : tensor<1x2x3xf64> -> tensor<2x1x3xf64>
  %y = kiln.conv_transpose1d %x, %w {padding = array<i64: 1>, stride = array<i64: 2>} : (tensor<1x2x4xf64>, tensor<2x1x3xf64>) -> tensor<1x1x7xf64>
  %t = kiln.tanh %y : tensor<1x1x7xf64>
  %z = kiln.mul %t, %y : (tensor<1x1x7xf64>, tensor<1x1x7xf64>) -> tensor<1x1x7xf64>
  %l = kiln.sum %z {axes = array<i64: 0, 1, 2>} : tensor<1x1x7xf64> -> tensor<f64>
  return %l : tensor<f64>
}
)mlir";
  return {image, transposed};
}

std::string caseName(const ::testing::TestParamInfo<Case> &info) {
  return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(Rules, AutodiffTest, ::testing::ValuesIn(allCases()),
                         caseName);
INSTANTIATE_TEST_SUITE_P(Conv, ConvSecondOrderTest,
                         ::testing::ValuesIn(convSecondOrderCases()), caseName);

} // namespace

namespace {

/// The rules attach through registerAutodiffExternalModels: ops with a rule,
/// non-differentiable ops, and ops without one (an error only when active).
TEST(AutodiffInterfaceTest, ExternalModelsAttach) {
  DialectRegistry registry;
  registry.insert<KilnDialect, func::FuncDialect>();
  registerAutodiffExternalModels(registry);
  MLIRContext context(registry);
  context.loadDialect<KilnDialect>();
  auto has = [&](StringRef name) {
    std::optional<RegisteredOperationName> op =
        RegisteredOperationName::lookup(name, &context);
    return op && op->hasInterface<AutodiffOpInterface>();
  };
  for (StringRef name :
       {"kiln.add", "kiln.matmul", "kiln.gather", "kiln.cross_entropy",
        "kiln.layer_norm", "kiln.eq", "kiln.iota", "kiln.argmax",
        "kiln.constant", "kiln.conv2d", "kiln.unfold"})
    EXPECT_TRUE(has(name)) << name.str();
  EXPECT_FALSE(has("kiln.value_and_grad"));

  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
    func.func @g(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xi1> {
      %s = kiln.sin %x : tensor<3xf32>
      %c = kiln.lt %s, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
      return %c : tensor<3xi1>
    }
  )mlir",
                                                             &context);
  ASSERT_TRUE(module);
  SmallVector<bool> nonDifferentiable;
  module->walk([&](AutodiffOpInterface op) {
    nonDifferentiable.push_back(op.isNonDifferentiable());
  });
  EXPECT_EQ(nonDifferentiable, SmallVector<bool>({false, true}));
}

} // namespace

//===----------------------------------------------------------------------===//
// kiln.index_add, and the gather/index_select adjoints built from it
//===----------------------------------------------------------------------===//

namespace {

InputSpec i32(ArrayRef<int64_t> shape, std::vector<double> values) {
  return test::given(DType::I32, shape, std::move(values));
}

/// Repeated, negative and too large (clamped) indices throughout.
std::vector<Case> indexAddCases() {
  std::vector<Case> cases;
  cases.push_back(opCase(
      "index_add_axis0",
      "%x: tensor<4x3xf64>, %i: tensor<5xi64>, %s: tensor<5x3xf64>",
      "  %y = kiln.index_add %x, %i, %s {axis = 0 : i64} : (tensor<4x3xf64>, "
      "tensor<5xi64>, tensor<5x3xf64>) -> tensor<4x3xf64>",
      "tensor<4x3xf64>", 2,
      {f64({4, 3}), i64({5}, {2, 0, 2, -3, 9}), f64({5, 3}), f64({4, 3})},
      {0, 2}));
  cases.push_back(opCase(
      "index_add_middle_axis",
      "%x: tensor<2x4x3xf64>, %i: tensor<3xi32>, %s: tensor<2x3x3xf64>",
      "  %y = kiln.index_add %x, %i, %s {axis = 1 : i64} : (tensor<2x4x3xf64>, "
      "tensor<3xi32>, tensor<2x3x3xf64>) -> tensor<2x4x3xf64>",
      "tensor<2x4x3xf64>", 3,
      {f64({2, 4, 3}), i32({3}, {3, -1, 3}), f64({2, 3, 3}), f64({2, 4, 3})},
      {0, 2}));
  // x is both dest and, selected, the source: both rules' adjoints add up.
  cases.push_back(opCase(
      "index_add_of_index_select", "%x: tensor<4x3xf64>, %i: tensor<3xi64>",
      "  %s = kiln.index_select %x, %i {axis = 1 : i64} : (tensor<4x3xf64>, "
      "tensor<3xi64>) -> tensor<4x3xf64>\n"
      "  %t = kiln.tanh %s : tensor<4x3xf64>\n"
      "  %y = kiln.index_add %x, %i, %t {axis = 1 : i64} : (tensor<4x3xf64>, "
      "tensor<3xi64>, tensor<4x3xf64>) -> tensor<4x3xf64>",
      "tensor<4x3xf64>", 2,
      {f64({4, 3}), i64({3}, {2, 2, -4}), f64({4, 3})}, {0}));
  cases.push_back(opCase(
      "gather_middle_axis", "%x: tensor<2x5x3xf64>, %i: tensor<2x3xi64>",
      "  %y = kiln.gather %x, %i {axis = 1 : i64} : (tensor<2x5x3xf64>, "
      "tensor<2x3xi64>) -> tensor<2x2x3x3xf64>",
      "tensor<2x2x3x3xf64>", 4,
      {f64({2, 5, 3}), i64({2, 3}, {4, 4, -1, 7, 0, 4}), f64({2, 2, 3, 3})},
      {0}));
  cases.push_back(opCase(
      "index_select_clamped", "%x: tensor<4x2xf64>, %i: tensor<4xi32>",
      "  %y = kiln.index_select %x, %i {axis = 0 : i64} : (tensor<4x2xf64>, "
      "tensor<4xi32>) -> tensor<4x2xf64>",
      "tensor<4x2xf64>", 2,
      {f64({4, 2}), i32({4}, {3, -2, 3, 8}), f64({4, 2})}, {0}));
  return cases;
}

INSTANTIATE_TEST_SUITE_P(IndexAdd, AutodiffTest,
                         ::testing::ValuesIn(indexAddCases()), caseName);

/// Second order through gather, index_select and index_add: each rule's
/// adjoint uses another of the three (gather -> index_add -> index_select),
/// and the pass runs on its own output.
TEST_F(AutodiffTest, IndexAddSecondOrderHessianVectorProduct) {
  constexpr const char *kSource = R"mlir(
func.func @f(%x: tensor<4x3xf64>) -> tensor<f64> {
  %ids = kiln.constant dense<[2, 0, 2, -1, 7]> : tensor<5xi64>
  %g = kiln.gather %x, %ids {axis = 0 : i64} : (tensor<4x3xf64>, tensor<5xi64>) -> tensor<5x3xf64>
  %t = kiln.tanh %g : tensor<5x3xf64>
  %j = kiln.constant dense<[1, 3, 1]> : tensor<3xi64>
  %s = kiln.index_select %t, %j {axis = 0 : i64} : (tensor<5x3xf64>, tensor<3xi64>) -> tensor<3x3xf64>
  %a = kiln.index_add %x, %j, %s {axis = 0 : i64} : (tensor<4x3xf64>, tensor<3xi64>, tensor<3x3xf64>) -> tensor<4x3xf64>
  %m = kiln.mul %a, %a : (tensor<4x3xf64>, tensor<4x3xf64>) -> tensor<4x3xf64>
  %e = kiln.sin %m : tensor<4x3xf64>
  %l = kiln.sum %e {axes = array<i64: 0, 1>} : tensor<4x3xf64> -> tensor<f64>
  return %l : tensor<f64>
}
)mlir";
  checkHessianVectorProduct(kSource, /*seed=*/13);
}

/// The diagonal of d/d arg[second] (d @f / d arg[first]), for an `@f` in
/// `source` that sums elementwise terms of its arguments (so the gradient of
/// <grad f, v> with v = 1 is the diagonal), at the inputs `args`, against
/// `expected`.
void checkHessianDiagonal(StringRef source, int64_t first, int64_t second,
                          ArrayRef<InputSpec> args, ArrayRef<double> expected) {
  JitSession &session = test::getAutodiffSession();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, &session.getContext());
  ASSERT_TRUE(module) << source.str();
  auto f = module->lookupSymbol<func::FuncOp>("f");
  FailureOr<func::FuncOp> grad = generateValueAndGrad(*module, f, {first});
  ASSERT_TRUE(succeeded(grad));
  func::FuncOp h = test::buildGradientDotProduct(f, *grad, "h");
  FailureOr<func::FuncOp> hessian = generateValueAndGrad(*module, h, {second});
  ASSERT_TRUE(succeeded(hessian));
  auto compiled = session.compile(*module);
  ASSERT_TRUE(succeeded(compiled));
  SmallVector<InputSpec> specs(args);
  specs.push_back(given({int64_t(expected.size())},
                        std::vector<double>(expected.size(), 1.0)));
  auto result =
      (**compiled).invoke("h_value_and_grad", test::makeInputs(specs, 0));
  ASSERT_TRUE(succeeded(result));
  const HostTensor &diagonal = (*result)[1];
  ASSERT_EQ(diagonal.getNumElements(), int64_t(expected.size()));
  for (auto [i, want] : llvm::enumerate(expected))
    EXPECT_NEAR(diagonal.getElementAsDouble(i), want,
                1e-12 * (1 + std::abs(want)))
        << "H[" << i << "][" << i << "]";
}

/// Second order through the branches a rule's select discards: they are
/// evaluated on safe values, since differentiating the rule again
/// multiplies a discarded branch's zero adjoint by its factors, and an inf
/// there (exp(1000), 0^-1, log(0)) made the Hessian NaN. Closed forms:
/// elu''(x) = e^x for x < 0 and 0 for x > 0 (and 0 at 0, as PyTorch's double
/// backward); d2/da2 a^b = b (b - 1) a^(b - 2), 0 where b = 0 (a^0 = 1);
/// d2/db2 a^b = a^b log(a)^2 and d2/da db a^b = a^(b-1) (1 + b log(a)), 0
/// at a = 0 < b (0^b = 0). PyTorch's own double backward is NaN at a = 0,
/// b = 0 and at a = 0, b = 2.
TEST_F(AutodiffTest, SecondOrderThroughDiscardedBranches) {
  constexpr const char *kElu = R"mlir(
func.func @f(%x: tensor<4xf64>) -> tensor<f64> {
  %y = kiln.elu %x {alpha = 1.0 : f64} : tensor<4xf64>
  %l = kiln.sum %y {axes = array<i64: 0>} : tensor<4xf64> -> tensor<f64>
  return %l : tensor<f64>
}
)mlir";
  checkHessianDiagonal(kElu, 0, 0, {given({4}, {1000, -1, 1, 0})},
                       {0, std::exp(-1.0), 0, 0});
  constexpr const char *kPow = R"mlir(
func.func @f(%a: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<f64> {
  %y = kiln.pow %a, %b : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %l = kiln.sum %y {axes = array<i64: 0>} : tensor<4xf64> -> tensor<f64>
  return %l : tensor<f64>
}
)mlir";
  checkHessianDiagonal(kPow, 0, 0,
                       {given({4}, {0, 2, 0, 2}), given({4}, {0, 0, 2, 3})},
                       {0, 0, 2, 12});
  std::vector<InputSpec> base0 = {given({4}, {0, 3, 2, 3}),
                                  given({4}, {2, 0, 1, 2})};
  checkHessianDiagonal(kPow, 1, 1, base0,
                       {0, std::pow(std::log(3.0), 2),
                        2 * std::pow(std::log(2.0), 2),
                        9 * std::pow(std::log(3.0), 2)});
  checkHessianDiagonal(
      kPow, 1, 0, base0,
      {0, 1.0 / 3, 1 + std::log(2.0), 3 * (1 + 2 * std::log(3.0))});
}

} // namespace
