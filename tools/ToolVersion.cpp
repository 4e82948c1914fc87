//===- ToolVersion.cpp - What --version of Kiln's tools prints ------------===//
//
// The only file compiled with KILN_GIT_COMMIT (tools/CMakeLists.txt).
//
//===----------------------------------------------------------------------===//

#include "ToolVersion.h"

#include "kiln/Version.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#ifndef KILN_GIT_COMMIT
#define KILN_GIT_COMMIT ""
#endif

void mlir::kiln::tools::addKilnVersionPrinter() {
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "Kiln version " KILN_VERSION_STRING;
    if (*KILN_GIT_COMMIT)
      os << " (git " KILN_GIT_COMMIT ")";
    os << "\n";
  });
}
