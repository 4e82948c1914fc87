//===- APITest.cpp - The public C++ API of kiln/Kiln.h --------------------===//

#include "kiln/Kiln.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// Collects the error messages emitted while it lives.
struct DiagnosticCollector {
  explicit DiagnosticCollector(MLIRContext &context)
      : handler(&context, [this](Diagnostic &diagnostic) {
          messages.push_back(diagnostic.str());
          return success();
        }) {}
  std::string all() const { return llvm::join(messages, "\n"); }

  SmallVector<std::string> messages;
  ScopedDiagnosticHandler handler;
};

RankedTensorType f32Tensor(MLIRContext &context, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, Float32Type::get(&context));
}

/// Adds `@name(a: 2x3, b: 3) -> 2x3 = a + b` to `module`.
FailureOr<func::FuncOp> buildAdd(ModuleOp module, StringRef name) {
  MLIRContext &context = *module.getContext();
  return buildFunction(
      module, name, {f32Tensor(context, {2, 3}), f32Tensor(context, {3})},
      [](OpBuilder &builder, Location loc, ValueRange args) {
        return SmallVector<Value>{
            AddOp::create(builder, loc, args[0], args[1])};
      });
}

TEST(APITest, VersionMatchesTheHeader) {
  EXPECT_EQ(getVersionString(), KILN_VERSION_STRING);
}

TEST(APITest, BuildFunctionInfersTheResultTypes) {
  MLIRContext context; // nothing registered: buildFunction loads the dialects
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  FailureOr<func::FuncOp> func = buildAdd(*module, "add");
  ASSERT_TRUE(succeeded(func));
  EXPECT_TRUE(func->isPublic());
  ASSERT_EQ(func->getNumResults(), 1u);
  EXPECT_EQ(func->getResultTypes()[0], f32Tensor(context, {2, 3}));
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST(APITest, BuildFunctionRefusesADuplicateName) {
  MLIRContext context;
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  ASSERT_TRUE(succeeded(buildAdd(*module, "add")));
  DiagnosticCollector diagnostics(context);
  EXPECT_TRUE(failed(buildAdd(*module, "add")));
  EXPECT_NE(diagnostics.all().find("already has a symbol @add"),
            std::string::npos)
      << diagnostics.all();
  EXPECT_EQ(llvm::range_size(module->getOps<func::FuncOp>()), 1u);
}

TEST(APITest, BuildFunctionRemovesAFunctionThatDoesNotVerify) {
  MLIRContext context;
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  DiagnosticCollector diagnostics(context);
  // An explicit, wrong result type: the add's verifier rejects it.
  FailureOr<func::FuncOp> func = buildFunction(
      *module, "bad", {f32Tensor(context, {2, 3})},
      [&](OpBuilder &builder, Location loc, ValueRange args) {
        return SmallVector<Value>{AddOp::create(
            builder, loc, f32Tensor(context, {5}), args[0], args[0])};
      });
  EXPECT_TRUE(failed(func));
  EXPECT_FALSE(diagnostics.messages.empty());
  EXPECT_TRUE(module->getBody()->empty());
}

TEST(APITest, LowerToCPURunsTheGraphPassesFirst) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  ASSERT_TRUE(succeeded(buildAdd(*module, "add")));

  KilnToCPUPipelineOptions options;
  options.fuseElementwise = false;
  bool hookCalled = false;
  ASSERT_TRUE(succeeded(lowerToCPU(*module, options,
                                   [&](OpPassManager &pm) {
                                     hookCalled = true;
                                     pm.addPass(createCanonicalizerPass());
                                   })));
  EXPECT_TRUE(hookCalled);
  bool hasCInterface = false;
  module->walk([&](Operation *op) {
    EXPECT_NE(op->getDialect()->getNamespace(), "kiln");
    if (op->getName().getStringRef() == "llvm.func" &&
        cast<SymbolOpInterface>(op).getName() == "_mlir_ciface_add")
      hasCInterface = true;
  });
  EXPECT_TRUE(hasCInterface);
}

TEST(APITest, LowerToCPUWorksInABareContext) {
  MLIRContext context; // lowerToCPU registers what the pipeline needs
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  ASSERT_TRUE(succeeded(buildAdd(*module, "add")));
  EXPECT_TRUE(succeeded(lowerToCPU(*module)));
}

TEST(APITest, LowerToGPUEmitsPTXForTheChosenChip) {
  MLIRContext context; // lowerToGPU registers what the pipeline needs
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  ASSERT_TRUE(succeeded(buildAdd(*module, "add")));
  KilnToNVVMPipelineOptions options;
  options.chip = "sm_80";
  options.format = "isa"; // PTX: no ptxas needed
  bool hookCalled = false;
  ASSERT_TRUE(succeeded(lowerToGPU(*module, options, [&](OpPassManager &) {
    hookCalled = true;
  })));
  EXPECT_TRUE(hookCalled);
  std::string ptx;
  bool hasCInterface = false;
  module->walk([&](Operation *op) {
    EXPECT_NE(op->getDialect()->getNamespace(), "kiln");
    if (op->getName().getStringRef() == "llvm.func" &&
        cast<SymbolOpInterface>(op).getName() == "_mlir_ciface_add")
      hasCInterface = true;
    if (op->getName().getStringRef() == "gpu.binary") {
      llvm::raw_string_ostream os(ptx);
      op->print(os);
    }
  });
  EXPECT_TRUE(hasCInterface);
  EXPECT_NE(ptx.find(".target sm_80"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find(".entry"), std::string::npos);
}

TEST(APITest, BuiltGraphsRunInTheJit) {
  JitSession session;
  OwningOpRef<ModuleOp> module =
      ModuleOp::create(UnknownLoc::get(&session.getContext()));
  ASSERT_TRUE(succeeded(buildAdd(*module, "add")));
  FailureOr<std::unique_ptr<JitModule>> jit = session.compile(*module);
  ASSERT_TRUE(succeeded(jit));

  auto a = HostTensor::fromDoubles(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto b = HostTensor::fromDoubles(DType::F32, {3}, {10, 20, 30});
  ASSERT_TRUE(bool(a) && bool(b));
  FailureOr<SmallVector<HostTensor>> results =
      (*jit)->invoke("add", {*a, *b});
  ASSERT_TRUE(succeeded(results));
  ASSERT_EQ(results->size(), 1u);
  std::vector<float> got((*results)[0].getValues<float>().begin(),
                         (*results)[0].getValues<float>().end());
  EXPECT_EQ(got, (std::vector<float>{11, 22, 33, 14, 25, 36}));
}

/// Adds `@loss(a: 2x3, b: 2x3) -> f32 = sum(a * b)`: d/da = b, d/db = a.
FailureOr<func::FuncOp> buildDotLoss(ModuleOp module) {
  MLIRContext &context = *module.getContext();
  return buildFunction(
      module, "loss", {f32Tensor(context, {2, 3}), f32Tensor(context, {2, 3})},
      [](OpBuilder &builder, Location loc, ValueRange args) {
        Value product = MulOp::create(builder, loc, args[0], args[1]);
        return SmallVector<Value>{SumOp::create(builder, loc, product,
                                                ArrayRef<int64_t>{0, 1},
                                                /*keep_dims=*/false)};
      });
}

TEST(APITest, DifferentiateWithTypedOptions) {
  MLIRContext context;
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  ASSERT_TRUE(succeeded(buildDotLoss(*module)));
  AutodiffOptions options;
  options.function = "loss";
  options.wrt = {1};
  ASSERT_TRUE(succeeded(differentiate(*module, options)));
  auto grad = module->lookupSymbol<func::FuncOp>("loss_value_and_grad");
  ASSERT_TRUE(grad);
  // The loss, then one gradient: with respect to b only.
  ASSERT_EQ(grad.getNumResults(), 2u);
  EXPECT_EQ(grad.getResultTypes()[1], f32Tensor(context, {2, 3}));
}

TEST(APITest, DifferentiateReportsABadWrt) {
  MLIRContext context;
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  ASSERT_TRUE(succeeded(buildDotLoss(*module)));
  DiagnosticCollector diagnostics(context);
  AutodiffOptions options;
  options.function = "loss";
  options.wrt = {5};
  EXPECT_TRUE(failed(differentiate(*module, options)));
  EXPECT_FALSE(diagnostics.messages.empty());
}

TEST(APITest, JitOptionsCarryTheGraphPassesAndPipelineOptions) {
  JitSession session;
  OwningOpRef<ModuleOp> module =
      ModuleOp::create(UnknownLoc::get(&session.getContext()));
  ASSERT_TRUE(succeeded(buildDotLoss(*module)));
  AutodiffOptions autodiff;
  autodiff.function = "loss";
  auto a = HostTensor::fromDoubles(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto b = HostTensor::fromDoubles(DType::F32, {2, 3}, {-1, 0, 2, 1, 3, 0.5});
  ASSERT_TRUE(bool(a) && bool(b));
  for (bool fuse : {true, false}) {
    JitOptions options;
    options.fuseElementwise = fuse;
    options.addGraphPasses = [&](OpPassManager &pm) {
      buildAutodiffPipeline(pm, autodiff);
    };
    FailureOr<std::unique_ptr<JitModule>> jit =
        session.compile(*module, options);
    ASSERT_TRUE(succeeded(jit));
    // The module is unchanged; the generated function is in the JitModule.
    EXPECT_FALSE(module->lookupSymbol("loss_value_and_grad"));
    FailureOr<SmallVector<HostTensor>> results =
        (*jit)->invoke("loss_value_and_grad", {*a, *b});
    ASSERT_TRUE(succeeded(results));
    ASSERT_EQ(results->size(), 3u);
    EXPECT_EQ((*results)[0].getValues<float>()[0], -1 + 6 + 4 + 15 + 3.0f);
    std::vector<float> da((*results)[1].getValues<float>().begin(),
                          (*results)[1].getValues<float>().end());
    std::vector<float> db((*results)[2].getValues<float>().begin(),
                          (*results)[2].getValues<float>().end());
    EXPECT_EQ(da, (std::vector<float>{-1, 0, 2, 1, 3, 0.5}));
    EXPECT_EQ(db, (std::vector<float>{1, 2, 3, 4, 5, 6}));
  }
}

} // namespace
