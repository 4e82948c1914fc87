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

namespace mlir::kiln::tools {

/// Makes --version print "Kiln version X.Y.Z (git <commit>)" too; call it
/// before the command line is parsed. Defined in ToolVersion.cpp, the one
/// file compiled with the commit, so a new commit recompiles only it.
void addKilnVersionPrinter();

} // namespace mlir::kiln::tools

#endif // KILN_TOOLS_TOOLVERSION_H
