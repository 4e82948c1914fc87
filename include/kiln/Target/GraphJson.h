//===- GraphJson.h - JSON model graphs <-> kiln IR --------------*- C++ -*-===//
//
// A JSON model-graph format that maps one to one onto kiln ops (the schema is
// docs/GraphJson.md): named inputs and parameters, nodes (an id, an op name
// such as "add" for kiln.add, JSON-typed attributes and ordered input
// references such as "n3:0") and named outputs.
//
// The import builds a module holding one func.func:
//   - inputs become the function's arguments, named by the function's
//     `kiln.input_names` attribute;
//   - parameters become `kiln.constant` ops tagged `kiln.parameter = "<name>"`,
//     or, lifted (`liftParameters`), the function's leading arguments, each
//     with the argument attribute `kiln.parameter = "<name>"`, whose values
//     readGraphJsonParameters returns;
//   - nodes become kiln ops located at `loc("<id>")` (a NameLoc), so that an
//     export of imported IR keeps the node ids;
//   - outputs become the function's results, named by its
//     `kiln.output_names` attribute.
// The export is the inverse. Every malformed input is a diagnostic naming
// the offending JSON entry (e.g. `nodes[3] (id "n3")`), never a crash.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TARGET_GRAPHJSON_H
#define KILN_TARGET_GRAPHJSON_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>

namespace mlir {
class MLIRContext;
class Operation;
} // namespace mlir

namespace mlir::kiln {

struct GraphJsonImportOptions {
  /// The directory that `"file": "w.npy"` weights are relative to.
  std::string weightsDir = ".";
  /// Parameters become the function's leading arguments, in JSON order and
  /// before the inputs, each named by the argument attribute
  /// `kiln.parameter = "<name>"`, instead of `kiln.constant` ops; so
  /// kiln-autodiff can differentiate with respect to them. Their data is not
  /// read (a `"file"` need not exist).
  bool liftParameters = false;
};

/// Builds a module holding one func.func from the JSON graph `text`. Every
/// error is emitted as a diagnostic whose message starts with the JSON path
/// of the offending entry, at the entry's line and column in the file of
/// `loc` when `loc` is a file location (the file `text` was read from), at
/// `loc` otherwise; the result is null after an error.
/// Needs the kiln and func dialects loaded or registered in `context`.
OwningOpRef<ModuleOp>
importGraphJson(StringRef text, MLIRContext *context, Location loc,
                const GraphJsonImportOptions &options = {});

/// A parameter of a JSON graph and its value.
struct GraphParameter {
  std::string name;
  DenseElementsAttr value;
};

/// Reads the values of the parameters of the JSON graph `text`, in JSON order
/// (the order of the arguments that `liftParameters` makes of them). Checks
/// the whole graph like importGraphJson (whose `liftParameters` it ignores)
/// and fails with the same diagnostics.
FailureOr<SmallVector<GraphParameter>>
readGraphJsonParameters(StringRef text, MLIRContext *context, Location loc,
                        const GraphJsonImportOptions &options = {});

struct GraphJsonExportOptions {
  /// Spaces per indentation level; negative writes one line.
  int indent = 1;
  /// When not empty, parameters with at least `minFileElements` elements are
  /// written to `<weightsDir>/<name>.npy` and referenced as `"file"` (by
  /// file name: weightsDir should be the directory the JSON goes to).
  std::string weightsDir;
  int64_t minFileElements = 1;
};

/// Writes the JSON graph of `op`: a func.func, or a module holding exactly
/// one. Arguments with a `kiln.parameter` attribute (lifted parameters) are
/// written as parameters referencing `<name>.npy` (their data is not in the
/// IR), the other arguments as the inputs. Fails with a diagnostic on the op that has no JSON form (a non-kiln
/// op, a constant that is not dense, more than one block, ...).
LogicalResult exportGraphJson(Operation *op, raw_ostream &os,
                              const GraphJsonExportOptions &options = {});

} // namespace mlir::kiln

#endif // KILN_TARGET_GRAPHJSON_H
