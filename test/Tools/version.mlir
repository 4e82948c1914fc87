// --version names Kiln's version (and the git commit at configure time)
// after LLVM's.
// RUN: kiln-opt --version | FileCheck %s
// RUN: kiln-run --version | FileCheck %s
// RUN: kiln-translate --version | FileCheck %s
// CHECK: LLVM version
// CHECK: Kiln version {{[0-9]+\.[0-9]+\.[0-9]+}}
