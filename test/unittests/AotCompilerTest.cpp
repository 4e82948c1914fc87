//===- AotCompilerTest.cpp - compileToSharedLibrary from C++ --------------===//
//
// The ahead-of-time compiler as a program that embeds Kiln calls it: a
// library it writes is loaded with dlopen and called through the C ABI; its
// errors arrive as diagnostics (or through AotOptions::reportError) and
// leave no output behind. kiln-compile's own tests (test/Integration/AOT)
// cover the flags and the header in depth.
//
//===----------------------------------------------------------------------===//

#include "kiln/Execution/AotCompiler.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "DiagnosticCollector.h"

#include "gtest/gtest.h"

#include <dlfcn.h>

using namespace mlir;
using namespace mlir::kiln;

namespace {

using test::DiagnosticCollector;

// Two entry points: an elementwise sum with broadcasting, and a reduction
// with a scalar result.
constexpr const char *kModule = R"mlir(
func.func @add(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
func.func @total(%a: tensor<4xf64>) -> tensor<f64> {
  %0 = kiln.sum %a {axes = array<i64: 0>} : tensor<4xf64> -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @helper(%a: tensor<4xf64>) -> tensor<4xf64> {
  return %a : tensor<4xf64>
}
)mlir";

class AotCompilerTest : public ::testing::Test {
protected:
  void SetUp() override {
    registerAotCompilerDialects(registry, AotTarget::CPU);
    context.appendDialectRegistry(registry);
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("kiln-aot-test", dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  OwningOpRef<ModuleOp> parse(StringRef source) {
    return parseSourceString<ModuleOp>(source, &context);
  }
  std::string path(StringRef name) {
    SmallString<128> result(dir);
    llvm::sys::path::append(result, name);
    return std::string(result);
  }

  DialectRegistry registry;
  MLIRContext context{MLIRContext::Threading::DISABLED};
  SmallString<128> dir;
};

TEST_F(AotCompilerTest, EntryPointsAreThePublicFunctions) {
  OwningOpRef<ModuleOp> module = parse(kModule);
  ASSERT_TRUE(module);
  FailureOr<SmallVector<AotEntryPoint>> functions =
      collectAotEntryPoints(*module);
  ASSERT_TRUE(succeeded(functions));
  ASSERT_EQ(functions->size(), 2u);
  EXPECT_EQ((*functions)[0].name, "add");
  ASSERT_EQ((*functions)[0].signature.inputs.size(), 2u);
  EXPECT_EQ((*functions)[0].signature.inputs[1].getTypeString(),
            "tensor<3xf32>");
  EXPECT_EQ((*functions)[0].signature.results[0].getNumBytes(), 24);
  EXPECT_EQ((*functions)[1].name, "total");
  EXPECT_TRUE((*functions)[1].signature.results[0].shape.empty());

  std::string header = generateAotHeader(*functions, AotTarget::CPU,
                                         "my-lib.h", "model.mlir");
  EXPECT_NE(header.find("#ifndef KILN_MY_LIB_H_"), std::string::npos);
  EXPECT_NE(header.find("from model.mlir"), std::string::npos);
  EXPECT_NE(header.find("int kiln_add(const void *const *inputs, "
                        "void *const *outputs);"),
            std::string::npos);
  EXPECT_NE(header.find("#define KILN_ADD_INPUT1_SHAPE {3}"),
            std::string::npos);
  EXPECT_EQ(header.find("kiln_helper"), std::string::npos);
}

TEST_F(AotCompilerTest, CompilesLoadsAndRuns) {
  OwningOpRef<ModuleOp> module = parse(kModule);
  ASSERT_TRUE(module);
  AotOutputs outputs{path("libmodel.so"), path("model.h"), ""};
  AotTimings timings;
  DiagnosticCollector diagnostics(context);
  ASSERT_TRUE(succeeded(
      compileToSharedLibrary(*module, outputs, AotOptions(), &timings)))
      << diagnostics.all();
  EXPECT_GT(timings.linkMs, 0);
  EXPECT_TRUE(llvm::sys::fs::exists(outputs.header));

  void *library = dlopen(outputs.library.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  using Entry = int (*)(const void *const *, void *const *);
  using Text = const char *(*)();
  auto add = reinterpret_cast<Entry>(dlsym(library, "kiln_add"));
  auto total = reinterpret_cast<Entry>(dlsym(library, "kiln_total"));
  auto signature = reinterpret_cast<Text>(dlsym(library, "kiln_add_signature"));
  auto lastError = reinterpret_cast<Text>(dlsym(library, "kiln_last_error"));
  ASSERT_TRUE(add && total && signature && lastError);
  // Only the C entry points are exported, not the compiled functions.
  EXPECT_EQ(dlsym(library, "add"), nullptr);
  EXPECT_EQ(dlsym(library, "kiln_helper"), nullptr);
  EXPECT_STREQ(signature(), "f32[2,3],f32[3]->f32[2,3]");

  float a[6] = {1, 2, 3, 4, 5, 6}, b[3] = {0.5f, -1, 10}, sum[6] = {};
  const void *addInputs[] = {a, b};
  void *addOutputs[] = {sum};
  ASSERT_EQ(add(addInputs, addOutputs), 0) << lastError();
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(sum[i], a[i] + b[i % 3]) << i;

  double x[4] = {0.25, 1e10, -1e10, 3}, y = 0;
  const void *totalInputs[] = {x};
  void *totalOutputs[] = {&y};
  ASSERT_EQ(total(totalInputs, totalOutputs), 0) << lastError();
  // Exact in any summation order.
  EXPECT_EQ(y, 3.25);

  // An in-place call is refused with a message, and nothing is written.
  void *inPlace[] = {a};
  EXPECT_EQ(add(addInputs, inPlace), 1);
  EXPECT_STREQ(lastError(), "kiln_add: outputs[0] overlaps inputs[0]");
  EXPECT_EQ(a[0], 1);
  dlclose(library);
}

TEST_F(AotCompilerTest, ErrorsAreDiagnosticsAndLeaveNoOutput) {
  OwningOpRef<ModuleOp> module = parse(kModule);
  ASSERT_TRUE(module);
  AotOutputs outputs{path("libbad.so"), path("bad.h"), path("bad.o")};
  AotOptions options;
  options.cpu = "no-such-cpu";
  {
    DiagnosticCollector diagnostics(context);
    EXPECT_TRUE(failed(compileToSharedLibrary(*module, outputs, options)));
    EXPECT_NE(diagnostics.all().find("--mcpu 'no-such-cpu' is not a CPU of"),
              std::string::npos)
        << diagnostics.all();
  }
  // reportError takes the errors that concern no op instead.
  std::string reported;
  options.cpu = "generic";
  options.cc = path("missing-cc");
  options.reportError = [&](const Twine &message) {
    reported = message.str();
  };
  EXPECT_TRUE(failed(compileToSharedLibrary(*module, outputs, options)));
  EXPECT_NE(reported.find("is not an executable file"), std::string::npos)
      << reported;
  // Neither left an output or a temporary behind.
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    ADD_FAILURE() << "left behind: " << it->path();
}

TEST_F(AotCompilerTest, PrepareFailsBeforeAnyModule) {
  // An output in a directory that does not exist fails in prepare(), with
  // no module yet (kiln-compile prepares before it reads its input), and
  // compile() then fails without work.
  DiagnosticCollector diagnostics(context);
  AotCompiler compiler(context, {path("no/such/dir/lib.so"), "", ""});
  EXPECT_TRUE(failed(compiler.prepare()));
  EXPECT_NE(diagnostics.all().find("cannot write '"), std::string::npos)
      << diagnostics.all();
  OwningOpRef<ModuleOp> module = parse(kModule);
  ASSERT_TRUE(module);
  diagnostics.messages.clear();
  EXPECT_TRUE(failed(compiler.compile(*module)));
  EXPECT_TRUE(diagnostics.messages.empty()) << diagnostics.all();
}

TEST_F(AotCompilerTest, NeedsALibraryPath) {
  DiagnosticCollector diagnostics(context);
  AotCompiler compiler(context, {"", path("h.h"), ""});
  EXPECT_TRUE(failed(compiler.prepare()));
  EXPECT_EQ(diagnostics.all(), "no shared library to write (-o)");
}

TEST_F(AotCompilerTest, OneModulePerCompiler) {
  OwningOpRef<ModuleOp> module = parse(kModule);
  OwningOpRef<ModuleOp> again = parse(kModule);
  ASSERT_TRUE(module && again);
  DiagnosticCollector diagnostics(context);
  AotCompiler compiler(context, {path("libonce.so"), "", ""});
  ASSERT_TRUE(succeeded(compiler.compile(*module))) << diagnostics.all();
  EXPECT_TRUE(failed(compiler.compile(*again)));
  EXPECT_NE(diagnostics.all().find("has compiled a module already"),
            std::string::npos)
      << diagnostics.all();
}

TEST_F(AotCompilerTest, SignatureErrorsPointAtTheFunction) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
func.func @takes_index(%i: index) -> tensor<2xf32> {
  %c = kiln.constant dense<1.0> : tensor<2xf32>
  return %c : tensor<2xf32>
}
)mlir");
  ASSERT_TRUE(module);
  DiagnosticCollector diagnostics(context);
  EXPECT_TRUE(failed(compileToSharedLibrary(
      *module, {path("libindex.so"), "", ""}, AotOptions())));
  EXPECT_EQ(diagnostics.all(),
            "argument #0 of @takes_index has type 'index', but the C ABI only "
            "passes statically shaped tensors of f16, bf16, f32, f64, i1, i8, "
            "i32 or i64");
}

} // namespace
