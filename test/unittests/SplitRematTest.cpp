//===- SplitRematTest.cpp - Split mode and remat policies, numerically ----===//
//
// For a few f64 graphs (an MLP block, attention, the transformer block of
// examples/) every remat policy generates both forms into one module, which
// is JIT-compiled once:
//   - each policy's combined gradients equal the default policy's to 1e-12
//     (relative to max(1, |g|)): recomputing changes where values come from,
//     not the arithmetic;
//   - running @f_forward, then @f_backward on its residuals and a cotangent
//     of 1, gives exactly (bit for bit) the combined gradients of the same
//     policy, and @f_forward's output is @f's value (to 1e-12, as in
//     AutodiffTest.cpp: @f_forward also returns the residuals, so the CPU
//     pipeline may fuse its ops differently and round the last bit
//     differently);
//   - recompute-elementwise never saves more bytes than recompute-attention,
//     and in the transformer block no default-policy residual has the
//     attention's Sq x Sk trailing shape.
// save-all on a graph with attention needs kiln-decompose-attention, so the
// attention graphs run the two other policies.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/Autodiff.h"
#include "kiln/Execution/JitSession.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "TestSupport/Graphs.h"
#include "TestSupport/JitHarness.h"

#include "gtest/gtest.h"

#include <cmath>
#include <iostream>

using namespace mlir;
using namespace mlir::kiln;

namespace {

using test::f64;
using test::Fill;
using test::given;

struct Graph {
  std::string name;
  std::string source;
  /// The differentiated function.
  std::string function = "f";
  std::vector<test::InputSpec> args;
  SmallVector<int64_t> wrt;
};

const char *policyName(RematPolicy policy) {
  switch (policy) {
  case RematPolicy::SaveAll:
    return "save-all";
  case RematPolicy::RecomputeAttention:
    return "recompute-attention";
  case RematPolicy::RecomputeElementwise:
    return "recompute-elementwise";
  }
  return "";
}

JitSession &session() { return test::getAutodiffSession(); }

/// The generated functions of one policy.
struct Generated {
  RematPolicy policy;
  std::string combined, forward, backward;
  /// The residual types, from @f_forward's `kiln.residual` results.
  SmallVector<RankedTensorType> residuals;
};

/// Generates every policy's functions for `graph`, compiles the module and
/// checks the gradients as the file comment says. Returns the generated
/// functions for further checks.
std::vector<Generated> checkGraph(const Graph &graph) {
  MLIRContext &context = session().getContext();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(graph.source, &context);
  EXPECT_TRUE(module) << graph.name;
  if (!module)
    return {};
  auto f = module->lookupSymbol<func::FuncOp>(graph.function);
  bool hasAttention = f.walk([](AttentionOp) {
                         return WalkResult::interrupt();
                       }).wasInterrupted();

  std::vector<Generated> generated;
  for (RematPolicy policy :
       {RematPolicy::RecomputeAttention, RematPolicy::RecomputeElementwise,
        RematPolicy::SaveAll}) {
    if (policy == RematPolicy::SaveAll && hasAttention)
      continue;
    GradientGraphOptions options;
    options.remat = policy;
    FailureOr<func::FuncOp> combined =
        generateValueAndGrad(*module, f, graph.wrt, options);
    FailureOr<SplitForwardBackward> split =
        generateSplitForwardBackward(*module, f, graph.wrt, options);
    EXPECT_TRUE(succeeded(combined) && succeeded(split)) << policyName(policy);
    if (failed(combined) || failed(split))
      return {};
    Generated g{policy,
                combined->getSymName().str(),
                split->forward.getSymName().str(),
                split->backward.getSymName().str(),
                {}};
    for (unsigned i = 0; i < split->forward.getNumResults(); ++i)
      if (split->forward.getResultAttr(i, "kiln.residual"))
        g.residuals.push_back(
            cast<RankedTensorType>(split->forward.getResultTypes()[i]));
    generated.push_back(g);
  }
  EXPECT_TRUE(succeeded(verify(*module)));

  auto compiled = session().compile(*module);
  EXPECT_TRUE(succeeded(compiled)) << "compilation failed (see stderr)";
  if (failed(compiled))
    return {};
  JitModule &jit = **compiled;
  SmallVector<HostTensor> inputs =
      test::makeInputs(graph.args, test::getCaseSeed(graph.name));
  auto value = jit.invoke(graph.function, inputs);
  auto reference = jit.invoke(generated.front().combined, inputs);
  EXPECT_TRUE(succeeded(value) && succeeded(reference));
  if (failed(value) || failed(reference))
    return {};

  for (const Generated &g : generated) {
    SCOPED_TRACE(std::string(policyName(g.policy)));
    int64_t bytes = 0;
    for (RankedTensorType type : g.residuals)
      bytes += autodiff::getSizeInBytes(type);
    std::cout << "[ residuals ] " << graph.name << " " << policyName(g.policy)
              << ": " << g.residuals.size() << " values, " << bytes
              << " bytes\n";

    auto combined = jit.invoke(g.combined, inputs);
    EXPECT_TRUE(succeeded(combined));
    if (failed(combined))
      continue;
    if (combined->size() != graph.wrt.size() + 1) {
      ADD_FAILURE() << "wrong result count of " << g.combined;
      continue;
    }
    for (size_t k = 1; k < combined->size(); ++k)
      for (int64_t i = 0; i < (*combined)[k].getNumElements(); ++i) {
        double want = (*reference)[k].getElementAsDouble(i);
        EXPECT_NEAR((*combined)[k].getElementAsDouble(i), want,
                    1e-12 * std::max(1.0, std::fabs(want)))
            << "d f / d arg" << graph.wrt[k - 1] << "[" << i << "]";
      }

    auto forward = jit.invoke(g.forward, inputs);
    EXPECT_TRUE(succeeded(forward));
    if (failed(forward))
      continue;
    if (forward->size() != 1 + g.residuals.size()) {
      ADD_FAILURE() << "wrong result count of " << g.forward;
      continue;
    }
    EXPECT_NEAR((*forward)[0].getElementAsDouble(0),
                (*value)[0].getElementAsDouble(0), 1e-12);
    SmallVector<HostTensor> backwardInputs;
    for (size_t i = 1; i < forward->size(); ++i)
      backwardInputs.push_back(std::move((*forward)[i]));
    backwardInputs.push_back(
        std::move(*HostTensor::fromDoubles(DType::F64, {}, {1.0})));
    auto gradients = jit.invoke(g.backward, backwardInputs);
    EXPECT_TRUE(succeeded(gradients));
    if (failed(gradients))
      continue;
    if (gradients->size() != graph.wrt.size()) {
      ADD_FAILURE() << "wrong result count of " << g.backward;
      continue;
    }
    for (size_t k = 0; k < gradients->size(); ++k)
      for (int64_t i = 0; i < (*gradients)[k].getNumElements(); ++i)
        EXPECT_EQ((*gradients)[k].getElementAsDouble(i),
                  (*combined)[k + 1].getElementAsDouble(i))
            << "d f / d arg" << graph.wrt[k] << "[" << i << "]";
  }

  auto totalBytes = [](const Generated &g) {
    int64_t bytes = 0;
    for (RankedTensorType type : g.residuals)
      bytes += autodiff::getSizeInBytes(type);
    return bytes;
  };
  EXPECT_LE(totalBytes(generated[1]), totalBytes(generated[0]));
  return generated;
}

TEST(SplitRematTest, MlpBlock) {
  Graph g;
  g.name = "mlp_block";
  g.source = test::kMlpBlockSource;
  g.args = test::getMlpBlockInputs(Fill::Uniform);
  g.wrt = {0, 1, 2, 3, 4, 5};
  std::vector<Generated> generated = checkGraph(g);
  ASSERT_EQ(generated.size(), 3u);
  // The gelu and the products of the norm are recomputed from saved values.
  EXPECT_LT(generated[1].residuals.size(), generated[0].residuals.size());
}

TEST(SplitRematTest, SoftmaxAndActivations) {
  Graph g;
  g.name = "activations";
  g.source = R"mlir(
func.func @f(%x: tensor<3x4xf64>, %w: tensor<4x4xf64>, %b: tensor<4xf64>) -> tensor<f64> {
  %m = kiln.matmul %x, %w : (tensor<3x4xf64>, tensor<4x4xf64>) -> tensor<3x4xf64>
  %bb = kiln.broadcast_to %b : tensor<4xf64> -> tensor<3x4xf64>
  %a = kiln.add %m, %bb : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %s = kiln.sigmoid %a : tensor<3x4xf64>
  %e = kiln.exp %a : tensor<3x4xf64>
  %p = kiln.softmax %a {axis = 1 : i64} : tensor<3x4xf64>
  %se = kiln.mul %s, %e : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %q = kiln.mul %se, %bb : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %y = kiln.add %q, %p : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %l = kiln.mean %y {axes = array<i64: 0, 1>} : tensor<3x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}
)mlir";
  g.args = {f64({3, 4}), f64({4, 4}), f64({4})};
  g.wrt = {0, 1, 2};
  EXPECT_EQ(checkGraph(g).size(), 3u);
}

TEST(SplitRematTest, Attention) {
  Graph g;
  g.name = "attention";
  g.source = R"mlir(
func.func @f(%x: tensor<2x3x4xf64>, %wq: tensor<4x4xf64>, %wk: tensor<4x4xf64>, %wv: tensor<4x4xf64>) -> tensor<f64> {
  %qp = kiln.matmul %x, %wq : (tensor<2x3x4xf64>, tensor<4x4xf64>) -> tensor<2x3x4xf64>
  %kp = kiln.matmul %x, %wk : (tensor<2x3x4xf64>, tensor<4x4xf64>) -> tensor<2x3x4xf64>
  %vp = kiln.matmul %x, %wv : (tensor<2x3x4xf64>, tensor<4x4xf64>) -> tensor<2x3x4xf64>
  %q = kiln.reshape %qp : tensor<2x3x4xf64> -> tensor<2x1x3x4xf64>
  %k = kiln.reshape %kp : tensor<2x3x4xf64> -> tensor<2x1x3x4xf64>
  %v = kiln.reshape %vp : tensor<2x3x4xf64> -> tensor<2x1x3x4xf64>
  %o = kiln.attention %q, %k, %v {causal} : tensor<2x1x3x4xf64>, tensor<2x1x3x4xf64>, tensor<2x1x3x4xf64> -> tensor<2x1x3x4xf64>
  %t = kiln.tanh %o : tensor<2x1x3x4xf64>
  %l = kiln.sum %t {axes = array<i64: 0, 1, 2, 3>} : tensor<2x1x3x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}
)mlir";
  g.args = {f64({2, 3, 4}), f64({4, 4}), f64({4, 4}), f64({4, 4})};
  g.wrt = {0, 1, 2, 3};
  EXPECT_EQ(checkGraph(g).size(), 2u);
}

TEST(SplitRematTest, TransformerBlock) {
  Graph g;
  g.name = "transformer_block";
  g.source = test::readAsF64(KILN_EXAMPLES_DIR "/transformer_block.mlir");
  ASSERT_FALSE(g.source.empty());
  g.function = "loss";
  std::vector<double> tokens = {3,  17, 5, 17, 0, 31, 9,  2,
                                12, 4,  4, 28, 7, 1,  19, 30};
  g.args = {given(DType::I64, {2, 8}, tokens),
            given(DType::I64, {2}, {1, 4}),
            f64({32, 16}),
            f64({16}),
            f64({16, 16}),
            f64({16, 8}),
            f64({16, 8}),
            f64({16, 16}),
            f64({16}),
            f64({16, 32}),
            f64({16, 32}),
            f64({32, 16}),
            f64({16}),
            f64({16, 5})};
  g.wrt = {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
  std::vector<Generated> generated = checkGraph(g);
  ASSERT_EQ(generated.size(), 2u);
  ASSERT_EQ(generated[0].policy, RematPolicy::RecomputeAttention);
  // The query and key lengths, from the example's attention op.
  const int64_t sq = 8, sk = 8;
  for (RematPolicy policy :
       {RematPolicy::RecomputeAttention, RematPolicy::RecomputeElementwise}) {
    const Generated &gen =
        generated[policy == RematPolicy::RecomputeAttention ? 0 : 1];
    ASSERT_EQ(gen.policy, policy);
    for (RankedTensorType type : gen.residuals) {
      ArrayRef<int64_t> shape = type.getShape();
      bool isScores = shape.size() >= 4 && shape[shape.size() - 2] == sq &&
                      shape.back() == sk;
      EXPECT_FALSE(isScores) << "a residual of the attention scores' shape";
    }
    // The attention's row log-sum-exp LSE [B, Hq, Sq] = [2, 4, 8] is saved:
    // the backward rebuilds P from it (docs/Autodiff.md).
    EXPECT_TRUE(llvm::any_of(gen.residuals, [](RankedTensorType type) {
      return type.getShape() == ArrayRef<int64_t>{2, 4, 8};
    })) << "no residual of the lse's shape [2, 4, 8]";
  }
}

/// A function of several tensor outputs: @g_backward takes one cotangent
/// per output and gives the gradient of sum(y * cy) + s * cs, checked
/// against the combined gradient of that sum.
TEST(SplitRematTest, SeveralOutputsTakeCotangents) {
  constexpr const char *kSource = R"mlir(
func.func @g(%x: tensor<2x3xf64>, %w: tensor<3x3xf64>) -> (tensor<2x3xf64>, tensor<f64>) {
  %m = kiln.matmul %x, %w : (tensor<2x3xf64>, tensor<3x3xf64>) -> tensor<2x3xf64>
  %y = kiln.tanh %m : tensor<2x3xf64>
  %sq = kiln.mul %y, %x : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %s = kiln.sum %sq {axes = array<i64: 0, 1>} : tensor<2x3xf64> -> tensor<f64>
  return %y, %s : tensor<2x3xf64>, tensor<f64>
}
func.func @h(%x: tensor<2x3xf64>, %w: tensor<3x3xf64>, %cy: tensor<2x3xf64>, %cs: tensor<f64>) -> tensor<f64> {
  %y, %s = call @g(%x, %w) : (tensor<2x3xf64>, tensor<3x3xf64>) -> (tensor<2x3xf64>, tensor<f64>)
  %yc = kiln.mul %y, %cy : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %ys = kiln.sum %yc {axes = array<i64: 0, 1>} : tensor<2x3xf64> -> tensor<f64>
  %sc = kiln.mul %s, %cs : (tensor<f64>, tensor<f64>) -> tensor<f64>
  %l = kiln.add %ys, %sc : (tensor<f64>, tensor<f64>) -> tensor<f64>
  return %l : tensor<f64>
}
)mlir";
  MLIRContext &context = session().getContext();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kSource, &context);
  ASSERT_TRUE(module);
  auto g = module->lookupSymbol<func::FuncOp>("g");
  FailureOr<SplitForwardBackward> split =
      generateSplitForwardBackward(*module, g, {0, 1});
  ASSERT_TRUE(succeeded(split));
  // @h with @g inlined by hand, differentiated in combined mode.
  auto h = module->lookupSymbol<func::FuncOp>("h");
  auto call = cast<func::CallOp>(&h.getBody().front().front());
  OpBuilder b(call);
  IRMapping mapping;
  mapping.map(g.getArguments(), call.getOperands());
  for (Operation &op : g.getBody().front().without_terminator())
    b.clone(op, mapping);
  auto ret = cast<func::ReturnOp>(g.getBody().front().getTerminator());
  call.replaceAllUsesWith(llvm::map_to_vector(
      ret.getOperands(), [&](Value v) { return mapping.lookup(v); }));
  call.erase();
  ASSERT_TRUE(succeeded(generateValueAndGrad(*module, h, {0, 1})));

  auto compiled = session().compile(*module);
  ASSERT_TRUE(succeeded(compiled));
  JitModule &jit = **compiled;
  SmallVector<HostTensor> inputs =
      test::makeInputs({f64({2, 3}), f64({3, 3}), f64({2, 3}), f64({})}, 11);
  auto combined = jit.invoke("h_value_and_grad", inputs);
  ASSERT_TRUE(succeeded(combined));
  auto forward = jit.invoke("g_forward", {inputs[0], inputs[1]});
  ASSERT_TRUE(succeeded(forward));
  SmallVector<HostTensor> backwardInputs;
  for (size_t i = 2; i < forward->size(); ++i)
    backwardInputs.push_back(std::move((*forward)[i]));
  backwardInputs.push_back(inputs[2]);
  backwardInputs.push_back(inputs[3]);
  auto gradients = jit.invoke("g_backward", backwardInputs);
  ASSERT_TRUE(succeeded(gradients));
  ASSERT_EQ(gradients->size(), 2u);
  for (size_t k = 0; k < 2; ++k)
    for (int64_t i = 0; i < (*gradients)[k].getNumElements(); ++i) {
      double want = (*combined)[k + 1].getElementAsDouble(i);
      EXPECT_NEAR((*gradients)[k].getElementAsDouble(i), want,
                  1e-12 * std::max(1.0, std::fabs(want)))
          << "d / d arg" << k << "[" << i << "]";
    }
}

/// An output returned twice gets both cotangents: the gradient of
/// y = tanh(x), returned as outputs 0 and 1, is (1 - tanh^2 x) (c0 + c1).
TEST(SplitRematTest, OutputReturnedTwiceSumsItsCotangents) {
  constexpr const char *kSource = R"mlir(
func.func @g(%x: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
  %y = kiln.tanh %x : tensor<4xf64>
  return %y, %y : tensor<4xf64>, tensor<4xf64>
}
)mlir";
  MLIRContext &context = session().getContext();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kSource, &context);
  ASSERT_TRUE(module);
  auto g = module->lookupSymbol<func::FuncOp>("g");
  ASSERT_TRUE(succeeded(generateSplitForwardBackward(*module, g, {0})));
  auto compiled = session().compile(*module);
  ASSERT_TRUE(succeeded(compiled));
  JitModule &jit = **compiled;
  SmallVector<HostTensor> inputs =
      test::makeInputs({f64({4}), f64({4}), f64({4})}, 5);
  auto forward = jit.invoke("g_forward", {inputs[0]});
  ASSERT_TRUE(succeeded(forward));
  SmallVector<HostTensor> backwardInputs;
  for (size_t i = 2; i < forward->size(); ++i)
    backwardInputs.push_back(std::move((*forward)[i]));
  backwardInputs.push_back(inputs[1]);
  backwardInputs.push_back(inputs[2]);
  auto gradients = jit.invoke("g_backward", backwardInputs);
  ASSERT_TRUE(succeeded(gradients));
  ASSERT_EQ(gradients->size(), 1u);
  for (int64_t i = 0; i < 4; ++i) {
    double t = std::tanh(inputs[0].getElementAsDouble(i));
    double want = (1 - t * t) * (inputs[1].getElementAsDouble(i) +
                                 inputs[2].getElementAsDouble(i));
    EXPECT_NEAR((*gradients)[0].getElementAsDouble(i), want,
                1e-12 * std::max(1.0, std::fabs(want)))
        << "d / dx[" << i << "]";
  }
}

} // namespace
