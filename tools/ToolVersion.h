//===- ToolVersion.h - What --version of Kiln's tools prints ----*- C++ -*-===//
//
// Kiln's version and git commit after LLVM's own --version lines. The commit
// is the one checked out when the build was configured (KILN_GIT_COMMIT,
// set by tools/CMakeLists.txt), so a build made after later commits without
// reconfiguring names an older one.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_TOOLVERSION_H
#define KILN_TOOLS_TOOLVERSION_H

#include "kiln/Version.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#ifndef KILN_GIT_COMMIT
#define KILN_GIT_COMMIT ""
#endif

namespace mlir::kiln::tools {

/// Makes --version print "Kiln version X.Y.Z (git <commit>)" too; call it
/// before the command line is parsed.
inline void addKilnVersionPrinter() {
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "Kiln version " KILN_VERSION_STRING;
    if (*KILN_GIT_COMMIT)
      os << " (git " KILN_GIT_COMMIT ")";
    os << "\n";
  });
}

} // namespace mlir::kiln::tools

#endif // KILN_TOOLS_TOOLVERSION_H
