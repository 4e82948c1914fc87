//===- JitTest.cpp - Compiling and invoking kiln modules on the CPU -------===//

#include "kiln/Execution/JitSession.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"

#include "DiagnosticCollector.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::kiln;

namespace {

using test::DiagnosticCollector;

constexpr const char *kAddModule = R"mlir(
func.func @add_f32(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
func.func @outer_i64(%a: tensor<4x1xi64>, %b: tensor<1x3xi64>) -> tensor<4x3xi64> {
  %0 = kiln.add %a, %b : (tensor<4x1xi64>, tensor<1x3xi64>) -> tensor<4x3xi64>
  return %0 : tensor<4x3xi64>
}
func.func @rank3_i32(%a: tensor<2x1x4xi32>, %b: tensor<3x1xi32>, %c: tensor<i32>)
    -> (tensor<2x3x4xi32>, tensor<i32>) {
  %0 = kiln.add %a, %b : (tensor<2x1x4xi32>, tensor<3x1xi32>) -> tensor<2x3x4xi32>
  %1 = kiln.add %c, %c : (tensor<i32>, tensor<i32>) -> tensor<i32>
  return %0, %1 : tensor<2x3x4xi32>, tensor<i32>
}
func.func @add_const_f64(%a: tensor<3xf64>) -> tensor<3xf64> {
  %c = kiln.constant dense<[0.5, 1.5, 2.5]> : tensor<3xf64>
  %0 = kiln.add %a, %c : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func @add_small(%a: tensor<4xf16>, %b: tensor<4xbf16>, %p: tensor<4xi1>, %q: tensor<4xi8>)
    -> (tensor<4xf16>, tensor<4xbf16>, tensor<4xi1>, tensor<4xi8>) {
  %0 = kiln.add %a, %a : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  %1 = kiln.add %b, %b : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
  %2 = kiln.add %p, %p : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %3 = kiln.add %q, %q : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  return %0, %1, %2, %3 : tensor<4xf16>, tensor<4xbf16>, tensor<4xi1>, tensor<4xi8>
}
func.func @takes_index(%i: index) -> tensor<2xf32> {
  %c = kiln.constant dense<1.0> : tensor<2xf32>
  return %c : tensor<2xf32>
}
)mlir";

class JitTest : public ::testing::Test {
protected:
  void SetUp() override {
    FailureOr<std::unique_ptr<JitModule>> compiled =
        session.compileSource(kAddModule, "add.mlir");
    ASSERT_TRUE(succeeded(compiled));
    jit = std::move(*compiled);
  }

  HostTensor random(DType dtype, ArrayRef<int64_t> shape, uint64_t seed) {
    llvm::Expected<HostTensor> tensor = HostTensor::random(dtype, shape, seed);
    EXPECT_TRUE(bool(tensor));
    return std::move(*tensor);
  }

  JitSession session;
  std::unique_ptr<JitModule> jit;
};

TEST_F(JitTest, BroadcastingAddF32) {
  HostTensor a = random(DType::F32, {2, 3}, 1);
  HostTensor b = random(DType::F32, {3}, 2);
  FailureOr<SmallVector<HostTensor>> results = jit->invoke("add_f32", {a, b});
  ASSERT_TRUE(succeeded(results));
  ASSERT_EQ(results->size(), 1u);
  const HostTensor &r = (*results)[0];
  EXPECT_EQ(r.getTypeString(), "tensor<2x3xf32>");
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      EXPECT_EQ(r.getValues<float>()[i * 3 + j],
                a.getValues<float>()[i * 3 + j] + b.getValues<float>()[j]);
  EXPECT_GT(jit->getTimings().compileSeconds, 0.0);
  EXPECT_GE(jit->getTimings().runSeconds, 0.0);
}

TEST_F(JitTest, BroadcastingAddBothSidesI64) {
  HostTensor a = random(DType::I64, {4, 1}, 3);
  HostTensor b = random(DType::I64, {1, 3}, 4);
  FailureOr<SmallVector<HostTensor>> results = jit->invoke("outer_i64", {a, b});
  ASSERT_TRUE(succeeded(results));
  const HostTensor &r = (*results)[0];
  EXPECT_EQ(r.getTypeString(), "tensor<4x3xi64>");
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 3; ++j)
      EXPECT_EQ(r.getValues<int64_t>()[i * 3 + j],
                a.getValues<int64_t>()[i] + b.getValues<int64_t>()[j]);
}

TEST_F(JitTest, Rank3AndScalarResults) {
  HostTensor a = random(DType::I32, {2, 1, 4}, 5);
  HostTensor b = random(DType::I32, {3, 1}, 6);
  HostTensor c = random(DType::I32, {}, 7);
  FailureOr<SmallVector<HostTensor>> results =
      jit->invoke("rank3_i32", {a, b, c});
  ASSERT_TRUE(succeeded(results));
  ASSERT_EQ(results->size(), 2u);
  const HostTensor &r = (*results)[0];
  EXPECT_EQ(r.getTypeString(), "tensor<2x3x4xi32>");
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t k = 0; k < 4; ++k)
        EXPECT_EQ(r.getValues<int32_t>()[(i * 3 + j) * 4 + k],
                  a.getValues<int32_t>()[i * 4 + k] +
                      b.getValues<int32_t>()[j]);
  EXPECT_EQ((*results)[1].getValues<int32_t>()[0],
            2 * c.getValues<int32_t>()[0]);
}

TEST_F(JitTest, Constants) {
  llvm::Expected<HostTensor> a =
      HostTensor::fromDoubles(DType::F64, {3}, {1, 2, 3});
  ASSERT_TRUE(bool(a));
  FailureOr<SmallVector<HostTensor>> results =
      jit->invoke("add_const_f64", {*a});
  ASSERT_TRUE(succeeded(results));
  EXPECT_EQ((*results)[0].getValues<double>(),
            ArrayRef<double>({1.5, 3.5, 5.5}));
  // The inputs are read-only.
  EXPECT_EQ(a->getValues<double>(), ArrayRef<double>({1, 2, 3}));
}

TEST_F(JitTest, SmallElementTypes) {
  llvm::Expected<HostTensor> half =
      HostTensor::fromDoubles(DType::F16, {4}, {0.5, -1.25, 3, 100});
  llvm::Expected<HostTensor> bf16 =
      HostTensor::fromDoubles(DType::BF16, {4}, {0.5, -1.25, 3, 100});
  llvm::Expected<HostTensor> bools =
      HostTensor::fromDoubles(DType::I1, {4}, {0, 1, 0, 1});
  llvm::Expected<HostTensor> bytes =
      HostTensor::fromDoubles(DType::I8, {4}, {1, -2, 100, -128});
  ASSERT_TRUE(half && bf16 && bools && bytes);
  FailureOr<SmallVector<HostTensor>> results =
      jit->invoke("add_small", {*half, *bf16, *bools, *bytes});
  ASSERT_TRUE(succeeded(results));
  for (int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ((*results)[0].getElementAsDouble(i),
              2 * half->getElementAsDouble(i));
    EXPECT_EQ((*results)[1].getElementAsDouble(i),
              2 * bf16->getElementAsDouble(i));
    // bool + bool is a logical or.
    EXPECT_EQ((*results)[2].getValues<uint8_t>()[i],
              bools->getValues<uint8_t>()[i]);
    // i8 wraps around.
    EXPECT_EQ((*results)[3].getValues<int8_t>()[i],
              int8_t(2 * bytes->getValues<int8_t>()[i]));
  }
}

TEST_F(JitTest, SignatureMismatches) {
  HostTensor a = random(DType::F32, {2, 3}, 1);
  HostTensor b = random(DType::F32, {3}, 2);
  HostTensor wide = random(DType::F64, {3}, 2);
  struct Case {
    const char *function;
    SmallVector<HostTensor> inputs;
    const char *message;
  } cases[] = {
      {"add_f32", {a}, "@add_f32 takes 2 inputs, got 1"},
      {"add_f32", {a, b, b}, "@add_f32 takes 2 inputs, got 3"},
      {"add_f32",
       {b, b},
       "input #0 of @add_f32 is tensor<3xf32>, expected tensor<2x3xf32>"},
      {"add_f32",
       {a, wide},
       "input #1 of @add_f32 is tensor<3xf64>, expected tensor<3xf32>"},
      {"missing",
       {},
       "no public function named '@missing' in the module (it has "
       "@add_const_f64, "
       "@add_f32, @add_small, @outer_i64, @rank3_i32, @takes_index)"},
      {"takes_index",
       {},
       "argument #0 of @takes_index has type 'index', but the CPU runtime only "
       "passes statically shaped tensors of f16, bf16, f32, f64, i1, i8, i32 "
       "or i64"},
  };
  for (Case &c : cases) {
    SCOPED_TRACE(c.message);
    DiagnosticCollector diagnostics(session.getContext());
    EXPECT_TRUE(failed(jit->invoke(c.function, c.inputs)));
    EXPECT_EQ(diagnostics.all(), c.message);
  }
}

TEST(JitSessionTest, CompileErrorsAreDiagnostics) {
  JitSession session;
  DiagnosticCollector diagnostics(session.getContext());
  EXPECT_TRUE(failed(session.compileSource("func.func @f( {", "bad.mlir")));
  EXPECT_FALSE(diagnostics.messages.empty());
}

TEST(JitSessionTest, ModuleFromAnotherContext) {
  JitSession session;
  JitSession other;
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      "func.func @f() { return }", ParserConfig(&other.getContext()));
  ASSERT_TRUE(module);
  DiagnosticCollector diagnostics(other.getContext());
  EXPECT_TRUE(failed(session.compile(*module)));
  EXPECT_EQ(diagnostics.all(),
            "the module lives in another MLIRContext than the JitSession's "
            "(parse it in JitSession::getContext())");
}

} // namespace
