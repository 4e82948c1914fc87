//===- GraphJsonImport.cpp - JSON model graphs -> kiln IR -----------------===//
//
// The import of docs/GraphJson.md: the Importer, importGraphJson and
// readGraphJsonParameters. The operands and attributes of each op come from
// the op table (GraphJsonOpTable.h), so every kiln op imports without a
// hand-written table; diagnostics are placed with JsonLocator.h. LLVM builds
// without exceptions: every JSON access checks the value's type first, and
// parse errors come from nlohmann's non-throwing parse and SAX interfaces.
//
//===----------------------------------------------------------------------===//

#include "GraphJsonOpTable.h"
#include "JsonLocator.h"

#include "kiln/Target/GraphJson.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Support/HostTensor.h"
#include "kiln/Support/Npy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

#include <cstring>
#include <limits>
#include <vector>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::graph_json;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static std::string quote(StringRef s) { return json(s.str()).dump(); }

static const char *jsonTypeName(const json &value) {
  switch (value.type()) {
  case json::value_t::null:
    return "null";
  case json::value_t::object:
    return "an object";
  case json::value_t::array:
    return "an array";
  case json::value_t::string:
    return "a string";
  case json::value_t::boolean:
    return "a boolean";
  case json::value_t::number_integer:
  case json::value_t::number_unsigned:
    return "an integer";
  case json::value_t::number_float:
    return "a number";
  default:
    return "a binary value";
  }
}

/// Reads a JSON integer that fits in int64_t.
static std::optional<int64_t> getInt64(const json &value) {
  if (value.is_number_unsigned()) {
    uint64_t v = value.get<uint64_t>();
    if (v > uint64_t(std::numeric_limits<int64_t>::max()))
      return std::nullopt;
    return int64_t(v);
  }
  if (value.is_number_integer())
    return value.get<int64_t>();
  return std::nullopt;
}

/// Reads a JSON number or one of the strings "nan", "inf", "-inf".
static std::optional<double> getDouble(const json &value) {
  if (value.is_number())
    return value.get<double>();
  if (value.is_string()) {
    const std::string &s = value.get_ref<const std::string &>();
    if (s == "nan")
      return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf")
      return std::numeric_limits<double>::infinity();
    if (s == "-inf")
      return -std::numeric_limits<double>::infinity();
  }
  return std::nullopt;
}

namespace {
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
} // namespace

Location Importer::getLocation(StringRef path) const {
  if (!isa<FileLineColRange>(loc))
    return loc;
  std::optional<size_t> offset = JsonLocator(text).find(path);
  return offset ? getLocation(*offset) : loc;
}

Location Importer::getLocation(size_t offset) const {
  auto file = dyn_cast<FileLineColRange>(loc);
  if (!file)
    return loc;
  StringRef before = text.take_front(offset);
  unsigned line = 1 + before.count('\n');
  size_t lineStart = before.rfind('\n');
  unsigned column =
      1 + (lineStart == StringRef::npos ? offset : offset - lineStart - 1);
  return FileLineColLoc::get(file.getFilename(), line, column);
}

LogicalResult Importer::checkKeys(const json &object, const std::string &path,
                                  ArrayRef<const char *> allowed) {
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (!llvm::is_contained(
            llvm::map_range(allowed,
                            [](const char *s) { return StringRef(s); }),
            StringRef(it.key())))
      return fail(path, "unknown key " + quote(it.key()));
  }
  return success();
}

FailureOr<RankedTensorType> Importer::parseType(const json &object,
                                                const std::string &path) {
  if (!object.is_object())
    return fail(path, Twine("expected a tensor type object, got ") +
                          jsonTypeName(object));
  auto dtypeIt = object.find("dtype");
  if (dtypeIt == object.end() || !dtypeIt->is_string())
    return fail(path, "expected a string \"dtype\" (f16 bf16 f32 f64 i1 i8 "
                      "i32 i64)");
  std::optional<DType> dtype =
      parseDType(dtypeIt->get_ref<const std::string &>());
  if (!dtype)
    return fail(path + ".dtype",
                "unknown dtype " + quote(dtypeIt->get<std::string>()));
  auto shapeIt = object.find("shape");
  if (shapeIt == object.end() || !shapeIt->is_array())
    return fail(path, "expected an integer array \"shape\"");
  SmallVector<int64_t> shape;
  for (size_t i = 0; i < shapeIt->size(); ++i) {
    std::optional<int64_t> dim = getInt64((*shapeIt)[i]);
    if (!dim || *dim < 0)
      return fail(path + ".shape[" + std::to_string(i) + "]",
                  "expected a non-negative integer");
    shape.push_back(*dim);
  }
  if (llvm::Expected<int64_t> n = checkedNumElements(*dtype, shape); !n)
    return fail(path + ".shape", llvm::toString(n.takeError()));
  return RankedTensorType::get(shape, getMLIRType(*dtype, context));
}

/// Converts a double to an APFloat of `type`, rounding to nearest even.
static APFloat toAPFloat(double v, FloatType type) {
  APFloat f(v);
  bool lost;
  f.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
  return f;
}

/// Checks the keys of a tensor data entry (parameter or constant value) and
/// returns its declared type, without reading the data.
FailureOr<RankedTensorType>
Importer::parseTensorDecl(const json &object, const std::string &path) {
  FailureOr<RankedTensorType> type = parseType(object, path);
  if (failed(type))
    return failure();
  if (failed(checkKeys(object, path,
                       {"dtype", "shape", "data", "file", "splat", "name"})))
    return failure();
  int count = object.contains("data") + object.contains("file") +
              object.contains("splat");
  if (count != 1)
    return fail(path,
                "expected exactly one of \"data\", \"splat\" or \"file\"");
  return type;
}

FailureOr<DenseElementsAttr>
Importer::parseTensorData(const json &object, const std::string &path) {
  FailureOr<RankedTensorType> type = parseTensorDecl(object, path);
  if (failed(type))
    return failure();
  Type elementType = type->getElementType();
  int64_t numElements = type->getNumElements();

  auto fromDoubles =
      [&](const json &list,
          const std::string &where) -> FailureOr<DenseElementsAttr> {
    if (auto floatType = dyn_cast<FloatType>(elementType)) {
      SmallVector<APFloat> values;
      values.reserve(list.size());
      for (size_t i = 0; i < list.size(); ++i) {
        std::optional<double> v = getDouble(list[i]);
        if (!v)
          return fail(where + "[" + std::to_string(i) + "]",
                      Twine("expected a number, \"nan\", \"inf\" or "
                            "\"-inf\", got ") +
                          jsonTypeName(list[i]));
        values.push_back(toAPFloat(*v, floatType));
      }
      return DenseElementsAttr::get(*type, values);
    }
    unsigned width = elementType.getIntOrFloatBitWidth();
    SmallVector<APInt> values;
    values.reserve(list.size());
    for (size_t i = 0; i < list.size(); ++i) {
      const json &item = list[i];
      std::optional<int64_t> v;
      if (width == 1 && item.is_boolean())
        v = item.get<bool>() ? 1 : 0;
      else
        v = getInt64(item);
      int64_t lo = width == 1 ? 0 : -(int64_t(1) << std::min(width - 1, 62u));
      int64_t hi =
          width == 1 ? 1 : (int64_t(1) << std::min(width - 1, 62u)) - 1;
      if (width == 64) {
        lo = std::numeric_limits<int64_t>::min();
        hi = std::numeric_limits<int64_t>::max();
      }
      if (!v || *v < lo || *v > hi)
        return fail(where + "[" + std::to_string(i) + "]",
                    "expected an integer in [" + std::to_string(lo) + ", " +
                        std::to_string(hi) + "] for " + std::to_string(width) +
                        "-bit elements");
      values.push_back(APInt(width, uint64_t(*v), /*isSigned=*/width != 1));
    }
    return DenseElementsAttr::get(*type, values);
  };

  if (auto it = object.find("data"); it != object.end()) {
    if (!it->is_array())
      return fail(path + ".data", "expected an array");
    if (int64_t(it->size()) != numElements)
      return fail(path + ".data", "has " + std::to_string(it->size()) +
                                      " values, the shape needs " +
                                      std::to_string(numElements));
    return fromDoubles(*it, path + ".data");
  }
  if (auto it = object.find("splat"); it != object.end()) {
    json list = json::array({*it});
    RankedTensorType shape = *type;
    type = RankedTensorType::get({}, elementType);
    FailureOr<DenseElementsAttr> scalar = fromDoubles(list, path + ".splat");
    if (failed(scalar))
      return failure();
    return scalar->resizeSplat(shape);
  }
  const json &file = object["file"];
  if (!file.is_string())
    return fail(path + ".file", "expected a string");
  SmallString<256> filePath(file.get_ref<const std::string &>());
  if (!llvm::sys::path::is_absolute(filePath)) {
    filePath = options.weightsDir;
    llvm::sys::path::append(filePath, file.get_ref<const std::string &>());
  }
  llvm::Expected<HostTensor> tensor = readNpy(filePath);
  if (!tensor)
    return fail(path + ".file", llvm::toString(tensor.takeError()));
  if (tensor->getTypeString() !=
      formatTensorType(*getDTypeFor(elementType), type->getShape()))
    return fail(path + ".file", "holds " + tensor->getTypeString() +
                                    ", the entry declares " +
                                    formatTensorType(*getDTypeFor(elementType),
                                                     type->getShape()));
  const char *data = tensor->getData();
  if (auto floatType = dyn_cast<FloatType>(elementType)) {
    unsigned width = floatType.getWidth();
    SmallVector<APFloat> values;
    values.reserve(numElements);
    for (int64_t i = 0; i < numElements; ++i) {
      uint64_t bits = 0;
      std::memcpy(&bits, data + i * (width / 8), width / 8);
      values.push_back(
          APFloat(floatType.getFloatSemantics(), APInt(width, bits)));
    }
    return DenseElementsAttr::get(*type, values);
  }
  unsigned width = elementType.getIntOrFloatBitWidth();
  unsigned bytes = width == 1 ? 1 : width / 8;
  SmallVector<APInt> values;
  values.reserve(numElements);
  for (int64_t i = 0; i < numElements; ++i) {
    uint64_t bits = 0;
    std::memcpy(&bits, data + i * bytes, bytes);
    values.push_back(width == 1 ? APInt(1, bits != 0) : APInt(width, bits));
  }
  return DenseElementsAttr::get(*type, values);
}

FailureOr<Attribute> Importer::parseAttr(const json &value,
                                         const AttrSpec &spec,
                                         const std::string &path) {
  auto illTyped = [&](const char *expected) {
    return fail(path,
                Twine("expected ") + expected + ", got " + jsonTypeName(value));
  };
  auto parseEnum = [&](auto symbolize, auto makeAttr,
                       const char *names) -> FailureOr<Attribute> {
    if (!value.is_string())
      return illTyped("a string");
    auto e = symbolize(value.get_ref<const std::string &>());
    if (!e)
      return fail(path, "unknown value " + quote(value.get<std::string>()) +
                            " (expected one of " + names + ")");
    return makeAttr(*e);
  };
  switch (spec.kind) {
  case AttrKind::I64: {
    std::optional<int64_t> v = getInt64(value);
    if (!v)
      return illTyped("a 64-bit integer");
    return Attribute(builder.getI64IntegerAttr(*v));
  }
  case AttrKind::F64: {
    std::optional<double> v = getDouble(value);
    if (!v)
      return illTyped("a number, \"nan\", \"inf\" or \"-inf\"");
    return Attribute(builder.getF64FloatAttr(*v));
  }
  case AttrKind::Bool:
    if (!value.is_boolean())
      return illTyped("a boolean");
    return Attribute(builder.getBoolAttr(value.get<bool>()));
  case AttrKind::Unit:
    if (!value.is_boolean())
      return illTyped("a boolean");
    // false: the unit attribute is absent.
    return value.get<bool>() ? Attribute(builder.getUnitAttr()) : Attribute();
  case AttrKind::I64Array: {
    if (!value.is_array())
      return illTyped("an array of integers");
    SmallVector<int64_t> values;
    for (size_t i = 0; i < value.size(); ++i) {
      std::optional<int64_t> v = getInt64(value[i]);
      if (!v)
        return fail(path + "[" + std::to_string(i) + "]",
                    Twine("expected a 64-bit integer, got ") +
                        jsonTypeName(value[i]));
      values.push_back(*v);
    }
    return Attribute(builder.getDenseI64ArrayAttr(values));
  }
  case AttrKind::Elements: {
    FailureOr<DenseElementsAttr> data = parseTensorData(value, path);
    if (failed(data))
      return failure();
    return Attribute(*data);
  }
  case AttrKind::GeluApproximation:
    return parseEnum([](StringRef s) { return symbolizeGeluApproximation(s); },
                     [&](GeluApproximation e) {
                       return Attribute(GeluApproximationAttr::get(context, e));
                     },
                     "\"none\", \"tanh\"");
  case AttrKind::AttentionAlignment:
    return parseEnum([](StringRef s) { return symbolizeAttentionAlignment(s); },
                     [&](AttentionAlignment e) {
                       return Attribute(
                           AttentionAlignmentAttr::get(context, e));
                     },
                     "\"top_left\", \"bottom_right\"");
  case AttrKind::LossReduction:
    return parseEnum([](StringRef s) { return symbolizeLossReduction(s); },
                     [&](LossReduction e) {
                       return Attribute(LossReductionAttr::get(context, e));
                     },
                     "\"none\", \"mean\", \"sum\"");
  case AttrKind::UpsampleMode:
    return parseEnum([](StringRef s) { return symbolizeUpsampleMode(s); },
                     [&](UpsampleMode e) {
                       return Attribute(UpsampleModeAttr::get(context, e));
                     },
                     "\"nearest\", \"bilinear\"");
  }
  return fail(path, "unsupported attribute kind");
}

FailureOr<Importer::Ref> Importer::parseRef(const json &value,
                                            const std::string &path) {
  Ref ref;
  if (value.is_null()) {
    ref.isNull = true;
    return ref;
  }
  if (!value.is_string())
    return fail(path, Twine("expected a reference string such as \"x\" or "
                            "\"n3:0\", got ") +
                          jsonTypeName(value));
  StringRef text = value.get_ref<const std::string &>();
  if (auto it = named.find(text); it != named.end()) {
    ref.named = it->second;
    return ref;
  }
  auto [id, index] = text.rsplit(':');
  int64_t result = 0;
  if (text.contains(':') &&
      (index.empty() || index.getAsInteger(10, result) || result < 0))
    return fail(path, "bad result index in reference " + quote(text));
  auto it = nodeIndex.find(id);
  if (it == nodeIndex.end())
    return fail(path, "dangling reference " + quote(text) +
                          ": no input, parameter or node has that name");
  ref.node = it->second;
  ref.result = result;
  return ref;
}

FailureOr<Value> Importer::getValue(const Ref &ref, const std::string &path) {
  if (ref.named)
    return ref.named;
  Node &producer = nodes[ref.node];
  if (ref.result >= int64_t(producer.op->getNumResults()))
    return fail(path, "node " + quote(producer.id) + " has " +
                          std::to_string(producer.op->getNumResults()) +
                          " result(s), no result " +
                          std::to_string(ref.result));
  return producer.op->getResult(ref.result);
}

//===----------------------------------------------------------------------===//
// One node
//===----------------------------------------------------------------------===//

LogicalResult Importer::buildNode(size_t index) {
  Node &node = nodes[index];
  const OpSpec &spec = *node.spec;

  SmallVector<Value> operands;
  SmallVector<int32_t> segments;
  if (failed(buildOperands(node, operands, segments)))
    return failure();
  NamedAttrList attrs;
  if (failed(parseNodeAttrs(node, attrs)))
    return failure();
  // Result types: inferred, else from "type"/"types".
  OperationName opName("kiln." + spec.name, context);
  if (opName.hasTrait<OpTrait::AttrSizedOperandSegments>())
    attrs.set("operandSegmentSizes", builder.getDenseI32ArrayAttr(segments));
  Location opLoc = NameLoc::get(builder.getStringAttr(node.id));
  SmallVector<Type> declared;
  if (failed(parseDeclaredTypes(node, declared)))
    return failure();
  return createOp(node, opName, opLoc, operands, attrs, declared);
}

LogicalResult Importer::buildOperands(const Node &node,
                                      SmallVectorImpl<Value> &operands,
                                      SmallVectorImpl<int32_t> &segments) {
  const OpSpec &spec = *node.spec;
  const std::string &path = node.path;

  // Operands, with the optional and variadic groups of the ODS definition.
  size_t numSingles = 0;
  for (const OperandSpec &operand : spec.operands)
    numSingles += operand.kind == OperandKind::Single;
  size_t numGiven = node.inputs.size();
  auto valueOf = [&](size_t i) -> FailureOr<Value> {
    return getValue(node.inputs[i],
                    path + ".inputs[" + std::to_string(i) + "]");
  };
  bool hasVariadic = llvm::any_of(spec.operands, [](const OperandSpec &o) {
    return o.kind == OperandKind::Variadic;
  });
  if (hasVariadic) {
    if (numGiven < numSingles)
      return fail(path + ".inputs", "kiln." + spec.name + " takes at least " +
                                        std::to_string(numSingles) +
                                        " inputs, got " +
                                        std::to_string(numGiven));
    for (size_t i = 0; i < numGiven; ++i) {
      if (node.inputs[i].isNull)
        return fail(path + ".inputs[" + std::to_string(i) + "]",
                    "null is only allowed for optional inputs");
      FailureOr<Value> v = valueOf(i);
      if (failed(v))
        return failure();
      operands.push_back(*v);
    }
    for (const OperandSpec &operand : spec.operands)
      segments.push_back(operand.kind == OperandKind::Variadic
                             ? int32_t(numGiven - numSingles)
                             : 1);
    return success();
  }
  if (numGiven > spec.operands.size())
    return fail(path + ".inputs", "kiln." + spec.name + " takes at most " +
                                      std::to_string(spec.operands.size()) +
                                      " inputs, got " +
                                      std::to_string(numGiven));
  for (size_t i = 0; i < spec.operands.size(); ++i) {
    const OperandSpec &operand = spec.operands[i];
    std::string where = path + ".inputs[" + std::to_string(i) + "]";
    if (i >= numGiven || node.inputs[i].isNull) {
      if (operand.kind != OperandKind::Optional)
        return fail(i >= numGiven ? path + ".inputs" : where,
                    "missing input '" + std::string(operand.name) +
                        "' of kiln." + spec.name);
      segments.push_back(0);
      continue;
    }
    FailureOr<Value> v = valueOf(i);
    if (failed(v))
      return failure();
    operands.push_back(*v);
    segments.push_back(1);
  }
  return success();
}

LogicalResult Importer::parseNodeAttrs(const Node &node, NamedAttrList &attrs) {
  const json &object = *node.object;
  const OpSpec &spec = *node.spec;
  const std::string &path = node.path;

  // Attributes, typed by their ODS kind.
  const json empty = json::object();
  const json *attrObject = &empty;
  if (auto it = object.find("attrs"); it != object.end()) {
    if (!it->is_object())
      return fail(path + ".attrs",
                  Twine("expected an object, got ") + jsonTypeName(*it));
    attrObject = &*it;
  }
  for (auto it = attrObject->begin(); it != attrObject->end(); ++it) {
    std::string where = path + ".attrs." + it.key();
    const AttrSpec *attrSpec = spec.findAttr(it.key());
    if (!attrSpec) {
      std::string known;
      for (const AttrSpec &a : spec.attrs)
        known += (known.empty() ? "" : ", ") + std::string(a.name);
      return fail(where,
                  "unknown attribute " + quote(it.key()) + " of kiln." +
                      spec.name +
                      (known.empty() ? " (it has none)"
                                     : " (expected one of " + known + ")"));
    }
    FailureOr<Attribute> attr = parseAttr(it.value(), *attrSpec, where);
    if (failed(attr))
      return failure();
    if (*attr)
      attrs.set(attrSpec->name, *attr);
  }
  for (const AttrSpec &attrSpec : spec.attrs)
    if (attrSpec.presence == Presence::Required && !attrs.get(attrSpec.name))
      return fail(path + ".attrs", "missing attribute '" +
                                       std::string(attrSpec.name) +
                                       "' of kiln." + spec.name);
  return success();
}

LogicalResult Importer::parseDeclaredTypes(const Node &node,
                                           SmallVectorImpl<Type> &declared) {
  const json &object = *node.object;
  const std::string &path = node.path;
  if (auto it = object.find("type"); it != object.end()) {
    FailureOr<RankedTensorType> t = parseType(*it, path + ".type");
    if (failed(t))
      return failure();
    declared.push_back(*t);
  } else if (auto it = object.find("types"); it != object.end()) {
    if (!it->is_array())
      return fail(path + ".types", "expected an array of tensor types");
    for (size_t i = 0; i < it->size(); ++i) {
      FailureOr<RankedTensorType> t =
          parseType((*it)[i], path + ".types[" + std::to_string(i) + "]");
      if (failed(t))
        return failure();
      declared.push_back(*t);
    }
  }
  return success();
}

LogicalResult Importer::createOp(Node &node, OperationName opName,
                                 Location opLoc, ValueRange operands,
                                 const NamedAttrList &attrs,
                                 ArrayRef<Type> declared) {
  const OpSpec &spec = *node.spec;
  SmallVector<Type> resultTypes;

  // Diagnostics of inference and verification name the node.
  std::string diagnostics;
  LogicalResult result = success();
  {
    ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
      if (diag.getSeverity() != DiagnosticSeverity::Error)
        return success();
      diagnostics += (diagnostics.empty() ? "" : "; ") + diag.str();
      for (Diagnostic &note : diag.getNotes())
        if (!StringRef(note.str()).starts_with("see current operation"))
          diagnostics += " (note: " + note.str() + ")";
      return success();
    });
    bool infers = opName.hasInterface<InferTypeOpInterface>();
    if (infers) {
      Operation *probe =
          Operation::create(opLoc, opName, TypeRange(), operands,
                            NamedAttrList(attrs), nullptr, BlockRange(), 0);
      auto iface = cast<InferTypeOpInterface>(probe);
      if (failed(iface.inferReturnTypes(context, opLoc, probe->getOperands(),
                                        probe->getRawDictionaryAttrs(),
                                        probe->getPropertiesStorage(),
                                        probe->getRegions(), resultTypes)))
        result = failure();
      probe->destroy();
      // Declared types that extend the inferred ones name optional results
      // that inference leaves out (kiln.attention's lse); the verifier
      // judges them.
      if (succeeded(result) && declared.size() > resultTypes.size() &&
          TypeRange(declared).take_front(resultTypes.size()) ==
              TypeRange(resultTypes))
        resultTypes.assign(declared.begin(), declared.end());
      if (succeeded(result) && !declared.empty() &&
          TypeRange(declared) != TypeRange(resultTypes)) {
        std::string want;
        llvm::raw_string_ostream os(want);
        llvm::interleaveComma(resultTypes, os);
        diagnostics =
            "the declared result type(s) differ from the inferred " + want;
        result = failure();
      }
    } else {
      if (declared.empty()) {
        diagnostics = "kiln." + spec.name +
                      " does not infer its result type: give \"type\" (or "
                      "\"types\")";
        result = failure();
      }
      resultTypes.assign(declared.begin(), declared.end());
    }
    if (succeeded(result)) {
      node.op = builder.create(opLoc, opName.getIdentifier(), operands,
                               resultTypes, attrs.getAttrs());
      if (failed(verify(node.op, /*verifyRecursively=*/false))) {
        node.op->erase();
        node.op = nullptr;
        result = failure();
      }
    }
  }
  if (failed(result))
    return fail(node.path, diagnostics.empty()
                               ? "kiln." + spec.name + " failed to build"
                               : diagnostics);
  return success();
}

//===----------------------------------------------------------------------===//
// The graph
//===----------------------------------------------------------------------===//

OwningOpRef<ModuleOp> Importer::run(StringRef jsonText) {
  context->getOrLoadDialect<KilnDialect>();
  context->getOrLoadDialect<func::FuncDialect>();
  text = jsonText;

  json root;
  if (failed(parseDocument(root)))
    return nullptr;
  FailureOr<Sections> sections = parseTopLevel(root);
  if (failed(sections))
    return nullptr;

  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(builder, loc, *sections->name,
                                   builder.getFunctionType({}, {}));
  body = func.addEntryBlock();
  builder.setInsertionPointToStart(body);

  SmallVector<Value> results;
  SmallVector<Attribute> outputNames;
  if (failed(importInputs(*sections->inputs)) ||
      failed(importParameters(*sections->parameters)) ||
      failed(declareNodes(*sections->nodeList)) || failed(buildNodes()) ||
      failed(importOutputs(*sections->outputs, results, outputNames)))
    return nullptr;
  finishFunction(func, results, outputNames);
  if (failed(verify(*module))) {
    (void)fail("graph", "the imported function does not verify");
    return nullptr;
  }
  return module;
}

LogicalResult Importer::parseDocument(json &root) {
  root = json::parse(text.begin(), text.end(), nullptr,
                     /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    SyntaxErrorFinder finder;
    json::sax_parse(text.begin(), text.end(), &finder);
    emitError(getLocation(std::min(finder.offset, text.size())))
        << "JSON: syntax error: "
        << (finder.message.empty() ? std::string("malformed") : finder.message);
    return failure();
  }
  return success();
}

FailureOr<Importer::Sections> Importer::parseTopLevel(const json &root) {
  if (!root.is_object())
    return fail("graph",
                Twine("expected an object, got ") + jsonTypeName(root));
  if (failed(checkKeys(root, "graph",
                       {"format", "version", "name", "inputs", "parameters",
                        "nodes", "outputs", "metadata"})))
    return failure();
  if (auto it = root.find("format");
      it != root.end() && (!it->is_string() || *it != "kiln-graph"))
    return fail("format", "expected \"kiln-graph\"");
  if (auto it = root.find("version"); it != root.end() && *it != 1)
    return fail("version", "expected 1");
  auto nameIt = root.find("name");
  if (nameIt == root.end() || !nameIt->is_string() ||
      nameIt->get_ref<const std::string &>().empty())
    return fail("name", "expected a non-empty string (the function name)");
  auto getArray = [&](const char *key, bool required) -> const json * {
    static const json emptyArray = json::array();
    auto it = root.find(key);
    if (it == root.end()) {
      if (required)
        (void)fail(key, "missing (expected an array)");
      return required ? nullptr : &emptyArray;
    }
    if (!it->is_array()) {
      (void)fail(key, Twine("expected an array, got ") + jsonTypeName(*it));
      return nullptr;
    }
    return &*it;
  };
  const json *inputs = getArray("inputs", true);
  const json *parameters = inputs ? getArray("parameters", false) : nullptr;
  const json *nodeList = parameters ? getArray("nodes", true) : nullptr;
  const json *outputs = nodeList ? getArray("outputs", true) : nullptr;
  if (!outputs)
    return failure();
  return Sections{&nameIt->get_ref<const std::string &>(), inputs, parameters,
                  nodeList, outputs};
}

LogicalResult Importer::checkName(const json &entry, const std::string &path,
                                  std::string &name) {
  if (!entry.is_object())
    return fail(path, Twine("expected an object, got ") + jsonTypeName(entry));
  auto it = entry.find("name");
  if (it == entry.end() || !it->is_string() ||
      it->get_ref<const std::string &>().empty())
    return fail(path, "expected a non-empty string \"name\"");
  name = it->get<std::string>();
  if (StringRef(name).contains(':'))
    return fail(path, "name " + quote(name) + " contains ':'");
  if (named.count(name))
    return fail(path, "duplicate name " + quote(name));
  return success();
}

LogicalResult Importer::importInputs(const json &inputs) {
  // Inputs: the function's arguments.
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string path = "inputs[" + std::to_string(i) + "]";
    const json &entry = inputs[i];
    std::string name;
    if (failed(checkName(entry, path, name)) ||
        failed(checkKeys(entry, path, {"name", "dtype", "shape"})))
      return failure();
    FailureOr<RankedTensorType> type = parseType(entry, path);
    if (failed(type))
      return failure();
    argTypes.push_back(*type);
    inputNames.push_back(builder.getStringAttr(name));
    named[name] =
        body->addArgument(*type, NameLoc::get(builder.getStringAttr(name)));
  }
  return success();
}

LogicalResult Importer::importParameters(const json &parameters) {
  // Parameters: tagged constants, or leading arguments when lifted (their
  // data is then not read: readGraphJsonParameters does that).
  for (size_t i = 0; i < parameters.size(); ++i) {
    std::string path = "parameters[" + std::to_string(i) + "]";
    const json &entry = parameters[i];
    std::string name;
    if (failed(checkName(entry, path, name)))
      return failure();
    if (options.liftParameters) {
      FailureOr<RankedTensorType> type = parseTensorDecl(entry, path);
      if (failed(type))
        return failure();
      argTypes.insert(argTypes.begin() + i, *type);
      parameterNames.push_back(builder.getStringAttr(name));
      named[name] = body->insertArgument(
          i, *type, NameLoc::get(builder.getStringAttr(name)));
      continue;
    }
    FailureOr<DenseElementsAttr> data = parseTensorData(entry, path);
    if (failed(data))
      return failure();
    auto constant = ConstantOp::create(
        builder, NameLoc::get(builder.getStringAttr(name)), *data);
    constant->setAttr(kParameter, builder.getStringAttr(name));
    named[name] = constant.getResult();
  }
  return success();
}

LogicalResult Importer::declareNodes(const json &nodeList) {
  // Nodes: ids first, so that references may point forward.
  for (size_t i = 0; i < nodeList.size(); ++i) {
    std::string path = "nodes[" + std::to_string(i) + "]";
    const json &entry = nodeList[i];
    if (!entry.is_object())
      return fail(path,
                  Twine("expected an object, got ") + jsonTypeName(entry));
    auto idIt = entry.find("id");
    if (idIt == entry.end() || !idIt->is_string() ||
        idIt->get_ref<const std::string &>().empty())
      return fail(path, "expected a non-empty string \"id\"");
    std::string id = idIt->get<std::string>();
    path += " (id " + quote(id) + ")";
    if (StringRef(id).contains(':'))
      return fail(path, "the id contains ':'");
    if (named.count(id) || nodeIndex.count(id))
      return fail(path, "duplicate id " + quote(id));
    if (failed(checkKeys(entry, path,
                         {"id", "op", "inputs", "attrs", "type", "types"})))
      return failure();
    auto opIt = entry.find("op");
    if (opIt == entry.end() || !opIt->is_string())
      return fail(path, "expected a string \"op\" (e.g. \"add\" for kiln.add)");
    StringRef opText = opIt->get_ref<const std::string &>();
    opText.consume_front("kiln.");
    auto specIt = getOpSpecs().find(opText.str());
    if (specIt == getOpSpecs().end())
      return fail(path + ".op",
                  "unknown op " + quote(opIt->get<std::string>()));
    nodeIndex[id] = nodes.size();
    nodes.push_back(Node{&entry, id, path, &specIt->second, {}, nullptr});
  }
  for (Node &node : nodes) {
    auto it = node.object->find("inputs");
    if (it == node.object->end())
      continue;
    if (!it->is_array())
      return fail(node.path + ".inputs",
                  Twine("expected an array, got ") + jsonTypeName(*it));
    for (size_t i = 0; i < it->size(); ++i) {
      FailureOr<Ref> ref =
          parseRef((*it)[i], node.path + ".inputs[" + std::to_string(i) + "]");
      if (failed(ref))
        return failure();
      node.inputs.push_back(*ref);
    }
  }
  return success();
}

LogicalResult Importer::buildNodes() {
  // Build in dependency order (an iterative depth-first walk), rejecting
  // cycles; a topologically ordered list is built in its own order.
  enum class State { New, Active, Done };
  std::vector<State> state(nodes.size(), State::New);
  for (size_t root = 0; root < nodes.size(); ++root) {
    if (state[root] != State::New)
      continue;
    std::vector<std::pair<size_t, size_t>> stack{{root, 0}};
    state[root] = State::Active;
    while (!stack.empty()) {
      auto &[current, next] = stack.back();
      if (next < nodes[current].inputs.size()) {
        const Ref &ref = nodes[current].inputs[next++];
        if (ref.isNull || ref.named)
          continue;
        size_t dep = ref.node;
        if (state[dep] == State::Active) {
          std::string cycle = quote(nodes[dep].id);
          for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
            cycle = quote(nodes[it->first].id) + " -> " + cycle;
            if (it->first == dep)
              break;
          }
          return fail(nodes[current].path, "cyclic reference: " + cycle);
        }
        if (state[dep] == State::New) {
          state[dep] = State::Active;
          stack.push_back({dep, 0});
        }
        continue;
      }
      if (failed(buildNode(current)))
        return failure();
      state[current] = State::Done;
      stack.pop_back();
    }
  }
  return success();
}

LogicalResult Importer::importOutputs(const json &outputs,
                                      SmallVectorImpl<Value> &results,
                                      SmallVectorImpl<Attribute> &outputNames) {
  // Outputs: the function's results.
  llvm::StringSet<> seenOutputs;
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string path = "outputs[" + std::to_string(i) + "]";
    const json &entry = outputs[i];
    if (!entry.is_object())
      return fail(path,
                  Twine("expected an object, got ") + jsonTypeName(entry));
    if (failed(checkKeys(entry, path, {"name", "value"})))
      return failure();
    auto nameIt = entry.find("name");
    if (nameIt == entry.end() || !nameIt->is_string() ||
        nameIt->get_ref<const std::string &>().empty())
      return fail(path, "expected a non-empty string \"name\"");
    if (StringRef(nameIt->get_ref<const std::string &>()).contains(':'))
      return fail(path, "name " + quote(nameIt->get<std::string>()) +
                            " contains ':'");
    if (!seenOutputs.insert(nameIt->get<std::string>()).second)
      return fail(path,
                  "duplicate output name " + quote(nameIt->get<std::string>()));
    auto valueIt = entry.find("value");
    if (valueIt == entry.end() || valueIt->is_null())
      return fail(path, "expected a reference \"value\"");
    FailureOr<Ref> ref = parseRef(*valueIt, path + ".value");
    if (failed(ref))
      return failure();
    FailureOr<Value> value = getValue(*ref, path + ".value");
    if (failed(value))
      return failure();
    results.push_back(*value);
    outputNames.push_back(builder.getStringAttr(nameIt->get<std::string>()));
  }
  return success();
}

void Importer::finishFunction(func::FuncOp func, ValueRange results,
                              ArrayRef<Attribute> outputNames) {
  func::ReturnOp::create(builder, loc, results);
  func.setFunctionType(
      builder.getFunctionType(argTypes, TypeRange(ValueRange(results))));
  func->setAttr(kInputNames, builder.getArrayAttr(inputNames));
  func->setAttr(kOutputNames, builder.getArrayAttr(outputNames));
  for (auto [i, name] : llvm::enumerate(parameterNames))
    func.setArgAttr(i, kParameter, name);
}

OwningOpRef<ModuleOp>
mlir::kiln::importGraphJson(StringRef text, MLIRContext *context, Location loc,
                            const GraphJsonImportOptions &options) {
  Importer importer(context, loc, options);
  return importer.run(text);
}

FailureOr<SmallVector<GraphParameter>>
mlir::kiln::readGraphJsonParameters(StringRef text, MLIRContext *context,
                                    Location loc,
                                    const GraphJsonImportOptions &options) {
  // The constant-parameter import reads and checks every parameter's data
  // (and the rest of the graph); its tagged constants are in JSON order.
  GraphJsonImportOptions constantOptions = options;
  constantOptions.liftParameters = false;
  OwningOpRef<ModuleOp> module =
      importGraphJson(text, context, loc, constantOptions);
  if (!module)
    return failure();
  SmallVector<GraphParameter> parameters;
  module->walk([&](ConstantOp constant) {
    if (auto name = constant->getAttrOfType<StringAttr>(kParameter))
      parameters.push_back(
          {name.str(), cast<DenseElementsAttr>(constant.getValue())});
  });
  return parameters;
}
