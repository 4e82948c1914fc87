//===- GraphJsonImporter.h - The graph JSON Importer ------------*- C++ -*-===//
//
// Private to the KilnGraphJson library: the Importer class, whose phases are
// defined in GraphJsonImport.cpp (the graph: its top-level object, inputs,
// parameters, nodes and outputs), GraphJsonImportNode.cpp (one node:
// references, operands, attributes and the op) and GraphJsonImportValues.cpp
// (JSON values: tensor types, tensor data and attributes), and the readers
// of JSON values they share.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_TARGET_GRAPHJSON_GRAPHJSONIMPORTER_H
#define KILN_LIB_TARGET_GRAPHJSON_GRAPHJSONIMPORTER_H

#include "GraphJsonOpTable.h"

#include "kiln/Target/GraphJson.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::kiln::graph_json {

//===----------------------------------------------------------------------===//
// Helpers (GraphJsonImportValues.cpp)
//===----------------------------------------------------------------------===//

/// `s` as a JSON string literal, for diagnostics.
std::string quote(StringRef s);

/// The JSON type of `value` for diagnostics, e.g. "an array".
const char *jsonTypeName(const json &value);

/// Reads a JSON integer that fits in int64_t.
std::optional<int64_t> getInt64(const json &value);

/// Reads a JSON number or one of the strings "nan", "inf", "-inf".
std::optional<double> getDouble(const json &value);

//===----------------------------------------------------------------------===//
// The Importer
//===----------------------------------------------------------------------===//

/// The import of one graph; `fail` emits a diagnostic and returns failure.
class Importer {
public:
  Importer(MLIRContext *context, Location loc,
           const GraphJsonImportOptions &options)
      : context(context), loc(loc), options(options), builder(context) {}

  /// Imports the graph in `text`; null after a diagnostic.
  OwningOpRef<ModuleOp> run(StringRef text);

private:
  LogicalResult fail(const std::string &path, const Twine &message) {
    emitError(getLocation(path)) << path << ": " << message;
    return failure();
  }

  /// The line and column of the value that `path` names in the file of
  /// `loc`, when `loc` is a file location; `loc` otherwise.
  Location getLocation(StringRef path) const;
  /// The line and column of `offset` in the file of `loc`.
  Location getLocation(size_t offset) const;

  LogicalResult checkKeys(const json &object, const std::string &path,
                          ArrayRef<const char *> allowed);
  FailureOr<RankedTensorType> parseType(const json &object,
                                        const std::string &path);
  FailureOr<RankedTensorType> parseTensorDecl(const json &object,
                                              const std::string &path);
  FailureOr<DenseElementsAttr> parseTensorData(const json &object,
                                               const std::string &path);
  FailureOr<Attribute> parseAttr(const json &value, const AttrSpec &spec,
                                 const std::string &path);
  /// Builds the op of node `index`, whose producers are built: its
  /// operands, its attributes, its result types, then the op itself.
  LogicalResult buildNode(size_t index);

  /// Where a reference points: a named input/parameter or a node's result.
  struct Ref {
    bool isNull = false;
    Value named;
    int64_t node = -1;
    int64_t result = 0;
  };
  FailureOr<Ref> parseRef(const json &value, const std::string &path);
  /// The value a non-null reference names; a result index past the
  /// producer's results is an error at `path`.
  FailureOr<Value> getValue(const Ref &ref, const std::string &path);

  struct Node {
    const json *object;
    std::string id;
    std::string path;
    const OpSpec *spec;
    std::vector<Ref> inputs;
    Operation *op = nullptr;
  };

  /// The function name and the arrays of the top-level object.
  struct Sections {
    const std::string *name;
    const json *inputs, *parameters, *nodeList, *outputs;
  };

  // The phases of `run`, in order; each emits its diagnostic and fails.

  /// Parses `text` into `root`; a syntax error is placed where the SAX
  /// parse stopped.
  LogicalResult parseDocument(json &root);
  /// Checks the top-level object (its keys, "format", "version", "name")
  /// and finds its arrays, each only after the previous one was found.
  FailureOr<Sections> parseTopLevel(const json &root);
  /// Checks the "name" of an input or parameter entry `entry` at `path`
  /// and returns it in `name`.
  LogicalResult checkName(const json &entry, const std::string &path,
                          std::string &name);
  /// Inputs: the function's arguments.
  LogicalResult importInputs(const json &inputs);
  /// Parameters: tagged constants, or leading arguments when lifted.
  LogicalResult importParameters(const json &parameters);
  /// Nodes: ids first, so that references may point forward; then each
  /// node's "inputs" as references.
  LogicalResult declareNodes(const json &nodeList);
  /// Builds the nodes in dependency order, rejecting cycles.
  LogicalResult buildNodes();
  /// Outputs: the function's results, and their names in `outputNames`.
  LogicalResult importOutputs(const json &outputs,
                              SmallVectorImpl<Value> &results,
                              SmallVectorImpl<Attribute> &outputNames);
  /// Ends `func` with a return of `results` and sets its type and its
  /// input, output and parameter names.
  void finishFunction(func::FuncOp func, ValueRange results,
                      ArrayRef<Attribute> outputNames);

  // The phases of `buildNode`, in order.

  /// The node's operands, and the size of each ODS operand group in
  /// `segments`.
  LogicalResult buildOperands(const Node &node,
                              SmallVectorImpl<Value> &operands,
                              SmallVectorImpl<int32_t> &segments);
  /// The node's "attrs", each typed by its ODS kind, and the check that
  /// every required attribute is there.
  LogicalResult parseNodeAttrs(const Node &node, NamedAttrList &attrs);
  /// The result types the node declares in "type" or "types", if any.
  LogicalResult parseDeclaredTypes(const Node &node,
                                   SmallVectorImpl<Type> &declared);
  /// Infers (or takes the declared) result types, creates the node's op
  /// and verifies it; the diagnostics of inference and verification are
  /// reported at the node.
  LogicalResult createOp(Node &node, OperationName opName, Location opLoc,
                         ValueRange operands, const NamedAttrList &attrs,
                         ArrayRef<Type> declared);

  MLIRContext *context;
  Location loc;
  const GraphJsonImportOptions &options;
  OpBuilder builder;
  StringRef text;
  llvm::StringMap<Value> named;
  llvm::StringMap<size_t> nodeIndex;
  std::vector<Node> nodes;
  /// The entry block of the function being built, its argument types (the
  /// lifted parameters first), and the names of its inputs and of its
  /// lifted parameters.
  Block *body = nullptr;
  SmallVector<Type> argTypes;
  SmallVector<Attribute> inputNames;
  SmallVector<Attribute> parameterNames;
};

} // namespace mlir::kiln::graph_json

#endif // KILN_LIB_TARGET_GRAPHJSON_GRAPHJSONIMPORTER_H
