//===- GPUPipelineTest.cpp - The kiln-lower-to-nvvm pipeline --------------===//
//
// Every kiln op lowers to PTX through kiln-lower-to-nvvm: the instances are
// the functions of the dialect's roundtrip tests, which hold every op but
// kiln.value_and_grad, and test/Pipelines/GPU/value-and-grad.mlir.
//
//===----------------------------------------------------------------------===//

#include "kiln/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include "TestSupport/PipelineHarness.h"

#include "gtest/gtest.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// The roundtrip tests of the dialect, in sorted order, and the GPU
/// pipeline's test of kiln.value_and_grad (which roundtrip tests lack).
static std::vector<std::string> getInstanceFiles() {
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(KILN_ROUNDTRIP_DIR, ec), end;
       it != end && !ec; it.increment(ec)) {
    StringRef name = llvm::sys::path::filename(it->path());
    if (name.starts_with("roundtrip-") && name.ends_with(".mlir"))
      files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  files.push_back(KILN_VALUE_AND_GRAD_INSTANCE);
  return files;
}

TEST(KilnToNVVMTest, EveryKilnOpHasGPULowering) {
  MLIRContext context;
  test::loadAllDialects(context);

  std::vector<std::string> files = getInstanceFiles();
  ASSERT_FALSE(files.empty()) << "no roundtrip tests in " KILN_ROUNDTRIP_DIR;
  std::vector<std::string> lowered;
  for (const std::string &file : files) {
    llvm::SourceMgr sourceMgr;
    OwningOpRef<ModuleOp> module =
        parseSourceFile<ModuleOp>(file, sourceMgr, ParserConfig(&context));
    ASSERT_TRUE(module) << "cannot parse " << file;
    std::string error;
    EXPECT_TRUE(succeeded(collectOpsLoweredToGPU(*module, lowered, error)))
        << file << " does not lower to PTX:\n"
        << error;
  }

  llvm::StringSet<> loweredSet;
  for (const std::string &name : lowered)
    loweredSet.insert(name);
  std::vector<std::string> missing =
      test::getKilnOpsMissingFrom(context, loweredSet);
  EXPECT_TRUE(missing.empty())
      << "ops without a GPU lowering (or without an instance in a roundtrip "
         "test): "
      << llvm::join(missing, ", ");
}

TEST(KilnToNVVMTest, FailureKeepsDiagnostics) {
  MLIRContext context;
  test::loadAllDialects(context);
  OwningOpRef<ModuleOp> module = test::buildModuleWithUnloweredOp(context);

  std::vector<std::string> ops;
  std::string error;
  EXPECT_TRUE(failed(collectOpsLoweredToGPU(*module, ops, error)));
  EXPECT_TRUE(ops.empty());
  // The pipeline's diagnostics come back, naming the op (the verifier
  // rejects it after kiln-autodiff, before any lowering sees it).
  EXPECT_NE(error.find("'kiln.not_lowered_yet'"), std::string::npos) << error;
}

} // namespace
