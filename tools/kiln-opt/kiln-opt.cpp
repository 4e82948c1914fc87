//===- kiln-opt.cpp - The Kiln optimizer driver ---------------------------===//
//
// An MlirOptMain driver with the kiln dialect, the upstream dialects Kiln's
// pipelines use, and Kiln's passes.
//
//===----------------------------------------------------------------------===//

#include "kiln/InitAll.h"

#include "ToolVersion.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::kiln::tools::addKilnVersionPrinter();
  mlir::kiln::registerAllPasses();
  mlir::DialectRegistry registry;
  mlir::kiln::registerAllDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Kiln optimizer driver\n", registry));
}
