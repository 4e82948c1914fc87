//===- GraphJsonNames.h - File names of graph JSON weights ------*- C++ -*-===//
//
// The `.npy` file names that the graph JSON export (GraphJson.h) gives
// parameters, for the tools that read or write such files by name (kiln-run's
// --weights-dir and --named-outputs): one rule, implemented once, in
// lib/Target/GraphJson/GraphJsonExport.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TARGET_GRAPHJSONNAMES_H
#define KILN_TARGET_GRAPHJSONNAMES_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

#include <string>

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace mlir::kiln {

/// The `.npy` file name of `name`: `<stem>.npy`, the stem being `name` with
/// the characters other than ASCII letters, digits and `_-.` replaced by
/// `_`, then `<stem>_1.npy`, `<stem>_2.npy`, ... until it is not in
/// `usedFiles`; the name returned is added to `usedFiles`.
std::string getGraphJsonFileName(StringRef name, llvm::StringSet<> &usedFiles);

/// The `.npy` file names that exportGraphJson references for the lifted
/// parameters of `func` (its arguments with a `kiln.parameter` attribute),
/// one entry per argument of `func`, empty for the other arguments. They are
/// the parameters' names made file names by getGraphJsonFileName, in
/// argument order; a parameter whose name the export cannot use (empty, with
/// a `:`, or already taken by an earlier argument) is named `param<k>`
/// first, as the export names it.
SmallVector<std::string> getLiftedParameterFileNames(func::FuncOp func);

} // namespace mlir::kiln

#endif // KILN_TARGET_GRAPHJSONNAMES_H
