//===- GraphJsonExport.cpp - kiln IR -> JSON model graphs -----------------===//
//
// The export of docs/GraphJson.md: exportGraphJson, and the parameter file
// names that tools share with it (getGraphJsonFileName and
// getLiftedParameterFileNames, GraphJsonNames.h). The operands and
// attributes of each op come from the op table (GraphJsonOpTable.h), so
// every kiln op exports without a hand-written table.
//
//===----------------------------------------------------------------------===//

#include "GraphJsonOpTable.h"

#include "kiln/Target/GraphJson.h"
#include "kiln/Target/GraphJsonNames.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Support/HostTensor.h"
#include "kiln/Support/Npy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::graph_json;

//===----------------------------------------------------------------------===//
// Export
//===----------------------------------------------------------------------===//

static ojson encodeDouble(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  return v;
}

/// The double with the fewest significant digits that rounds back to `v` in
/// `v`'s own semantics: f32 1e-6 is written 1e-06, not 9.99999997e-07.
static double shortestDouble(const APFloat &v) {
  APFloat wide = v;
  bool lost;
  wide.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
  double exact = wide.convertToDouble();
  if (&v.getSemantics() == &APFloat::IEEEdouble() || !std::isfinite(exact))
    return exact;
  for (int digits = 1; digits < 17; ++digits) {
    char buffer[40];
    std::snprintf(buffer, sizeof(buffer), "%.*g", digits, exact);
    double candidate = std::strtod(buffer, nullptr);
    APFloat narrow(candidate);
    narrow.convert(v.getSemantics(), APFloat::rmNearestTiesToEven, &lost);
    if (narrow.bitwiseIsEqual(v))
      return candidate;
  }
  return exact;
}

static ojson encodeType(RankedTensorType type);

/// The `.npy` file name of parameter `name`: characters other than letters,
/// digits and `_-.` replaced by `_`, made unique among `usedFiles`
/// (GraphJsonNames.h; kiln-run finds --weights-dir files with it).
std::string mlir::kiln::getGraphJsonFileName(StringRef name,
                                             llvm::StringSet<> &usedFiles) {
  std::string stem;
  for (char c : name)
    stem += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
                    c == '-' || c == '.'
                ? c
                : '_';
  std::string fileName = stem + ".npy";
  for (int k = 1; !usedFiles.insert(fileName).second; ++k)
    fileName = stem + "_" + std::to_string(k) + ".npy";
  return fileName;
}

/// Writes a parameter to `<weightsDir>/<name>.npy` (the name made a safe,
/// unique file name) and returns its `{"dtype", "shape", "file"}` entry.
static FailureOr<ojson> writeWeights(Operation *op, DenseElementsAttr dense,
                                     StringRef name,
                                     const GraphJsonExportOptions &options,
                                     llvm::StringSet<> &usedFiles) {
  auto type = cast<RankedTensorType>(dense.getType());
  std::optional<DType> dtype = getDTypeFor(type.getElementType());
  if (!dtype)
    return op->emitError("graph JSON export: no .npy form for this element "
                         "type"),
           failure();
  std::string fileName = getGraphJsonFileName(name, usedFiles);

  size_t elementSize = getDTypeSize(*dtype);
  std::vector<char> bytes;
  bytes.reserve(type.getNumElements() * elementSize);
  auto append = [&](const APInt &bits) {
    for (size_t b = 0; b < elementSize; ++b)
      bytes.push_back(char(
          bits.getBitWidth() > b * 8
              ? bits.extractBitsAsZExtValue(
                    std::min<unsigned>(8, bits.getBitWidth() - b * 8), b * 8)
              : 0));
  };
  if (isa<FloatType>(type.getElementType())) {
    for (const APFloat &v : dense.getValues<APFloat>())
      append(v.bitcastToAPInt());
  } else {
    for (const APInt &v : dense.getValues<APInt>())
      append(v);
  }
  llvm::Expected<HostTensor> tensor =
      HostTensor::fromBytes(*dtype, type.getShape(), bytes);
  if (!tensor)
    return op->emitError("graph JSON export: ")
               << llvm::toString(tensor.takeError()),
           failure();
  SmallString<256> path(options.weightsDir);
  llvm::sys::path::append(path, fileName);
  if (llvm::Error error = writeNpy(*tensor, path))
    return op->emitError("graph JSON export: ")
               << llvm::toString(std::move(error)),
           failure();
  ojson entry = encodeType(type);
  entry["file"] = fileName;
  return entry;
}

static ojson encodeType(RankedTensorType type) {
  std::optional<DType> dtype = getDTypeFor(type.getElementType());
  return ojson{{"dtype", dtype ? stringifyDType(*dtype).str() : "?"},
               {"shape", type.getShape().vec()}};
}

static FailureOr<ojson> encodeElements(Operation *op, Attribute attr) {
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  auto type = dense ? dyn_cast<RankedTensorType>(dense.getType()) : nullptr;
  if (!type || !getDTypeFor(type.getElementType()))
    return op->emitError("graph JSON export: only dense constants of kiln "
                         "element types have a JSON form"),
           failure();
  ojson result = encodeType(type);
  ojson data = ojson::array();
  if (isa<FloatType>(type.getElementType())) {
    for (APFloat v : dense.getValues<APFloat>()) {
      data.push_back(encodeDouble(shortestDouble(v)));
      if (dense.isSplat())
        break;
    }
  } else {
    bool isBool = type.getElementType().isInteger(1);
    for (APInt v : dense.getValues<APInt>()) {
      data.push_back(isBool ? int64_t(v.getZExtValue()) : v.getSExtValue());
      if (dense.isSplat())
        break;
    }
  }
  if (dense.isSplat() && type.getNumElements() != 1)
    result["splat"] = data.empty() ? ojson(0) : data[0];
  else if (type.getNumElements() == 0)
    result["data"] = ojson::array();
  else
    result["data"] = data;
  return result;
}

static FailureOr<ojson> encodeAttr(Operation *op, const AttrSpec &spec,
                                   Attribute attr) {
  switch (spec.kind) {
  case AttrKind::I64:
    if (auto a = dyn_cast<IntegerAttr>(attr))
      return ojson(a.getValue().getSExtValue());
    break;
  case AttrKind::F64:
    if (auto a = dyn_cast<FloatAttr>(attr))
      return encodeDouble(a.getValueAsDouble());
    break;
  case AttrKind::Bool:
    if (auto a = dyn_cast<BoolAttr>(attr))
      return ojson(a.getValue());
    break;
  case AttrKind::Unit:
    if (isa<UnitAttr>(attr))
      return ojson(true);
    break;
  case AttrKind::I64Array:
    if (auto a = dyn_cast<DenseI64ArrayAttr>(attr))
      return ojson(a.asArrayRef().vec());
    break;
  case AttrKind::Elements:
    return encodeElements(op, attr);
  case AttrKind::GeluApproximation:
    if (auto a = dyn_cast<GeluApproximationAttr>(attr))
      return ojson(stringifyGeluApproximation(a.getValue()).str());
    break;
  case AttrKind::AttentionAlignment:
    if (auto a = dyn_cast<AttentionAlignmentAttr>(attr))
      return ojson(stringifyAttentionAlignment(a.getValue()).str());
    break;
  case AttrKind::LossReduction:
    if (auto a = dyn_cast<LossReductionAttr>(attr))
      return ojson(stringifyLossReduction(a.getValue()).str());
    break;
  case AttrKind::UpsampleMode:
    if (auto a = dyn_cast<UpsampleModeAttr>(attr))
      return ojson(stringifyUpsampleMode(a.getValue()).str());
    break;
  }
  return op->emitError("graph JSON export: attribute '")
             << spec.name << "' has an unexpected kind",
         failure();
}

/// The `index`th entry of the function's string-array attribute `attr`.
static std::string getName(func::FuncOp func, StringRef attr, size_t index) {
  auto names = func->getAttrOfType<ArrayAttr>(attr);
  if (!names || index >= names.size())
    return "";
  if (auto name = dyn_cast<StringAttr>(names[index]))
    return name.str();
  return "";
}

namespace {
/// The names and file names an export has given so far: inputs, parameters
/// and node ids share one namespace, weights files another.
struct ExportNames {
  llvm::StringSet<> used;
  llvm::StringSet<> usedFiles;

  /// `name`, or `fallback` when it is empty, has a `:` or is taken; then
  /// `fallback_1`, `fallback_2`, ... while that is taken.
  std::string unique(std::string name, const std::string &fallback) {
    if (name.empty() || StringRef(name).contains(':') || used.count(name))
      name = fallback;
    for (int k = 1; used.count(name); ++k)
      name = fallback + "_" + std::to_string(k);
    used.insert(name);
    return name;
  }
};

/// The graph name of an argument, and for a lifted parameter its file name.
struct ArgumentName {
  std::string name;
  /// Empty for an input.
  std::string file;
};
} // namespace

/// Names the arguments of `func` as the export does: a lifted parameter
/// (`kiln.parameter`) by its attribute (else `param<k>`, k counting the
/// parameters), referencing `<name>.npy` made a file name; an input by
/// `kiln.input_names` (else `arg<i>`, i its argument number).
static SmallVector<ArgumentName> nameArguments(func::FuncOp func,
                                               ExportNames &names) {
  SmallVector<ArgumentName> result;
  size_t numParameters = 0, numInputs = 0;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    ArgumentName argName;
    if (auto param = func.getArgAttrOfType<StringAttr>(i, kParameter)) {
      argName.name = names.unique(param.str(),
                                  "param" + std::to_string(numParameters++));
      argName.file = getGraphJsonFileName(argName.name, names.usedFiles);
    } else {
      argName.name = names.unique(getName(func, kInputNames, numInputs++),
                                  "arg" + std::to_string(i));
    }
    result.push_back(std::move(argName));
  }
  return result;
}

SmallVector<std::string>
mlir::kiln::getLiftedParameterFileNames(func::FuncOp func) {
  ExportNames names;
  SmallVector<std::string> files;
  for (ArgumentName &argName : nameArguments(func, names))
    files.push_back(std::move(argName.file));
  return files;
}

/// The function `op` names for the export: itself, or the one func.func of
/// a module.
static FailureOr<func::FuncOp> getExportedFunction(Operation *op) {
  func::FuncOp func = dyn_cast<func::FuncOp>(op);
  if (!func) {
    auto module = dyn_cast<ModuleOp>(op);
    if (!module)
      return op->emitError("graph JSON export: expected a func.func or a "
                           "module holding one");
    for (Operation &child : module.getBody()->getOperations()) {
      auto f = dyn_cast<func::FuncOp>(child);
      if (!f)
        return child.emitError("graph JSON export: the module may hold only "
                               "one func.func");
      if (func)
        return f.emitError("graph JSON export: the module holds more than "
                           "one func.func");
      func = f;
    }
    if (!func)
      return op->emitError("graph JSON export: the module holds no func.func");
  }
  if (func.isExternal() || !func.getBody().hasOneBlock())
    return func.emitError("graph JSON export: expected a function with one "
                          "block");
  return func;
}

/// Writes `graph` with one line per input, parameter, node and output
/// (readable and diffable), or on one line when `indent` is negative.
static void printGraph(const ojson &graph, int indent, raw_ostream &os) {
  if (indent < 0) {
    os << graph.dump() << "\n";
    return;
  }
  std::string pad(indent, ' ');
  os << "{\n";
  size_t k = 0;
  for (auto it = graph.begin(); it != graph.end(); ++it, ++k) {
    os << pad << ojson(it.key()).dump() << ": ";
    if (it->is_array() && !it->empty()) {
      os << "[\n";
      for (size_t e = 0; e < it->size(); ++e)
        os << pad << pad << (*it)[e].dump()
           << (e + 1 < it->size() ? ",\n" : "\n");
      os << pad << "]";
    } else {
      os << it->dump();
    }
    os << (k + 1 < graph.size() ? ",\n" : "\n");
  }
  os << "}\n";
}

namespace {
/// One export: the function, the names given so far and the JSON reference
/// of each value (`name` for an input or parameter, `id:k` for result k of
/// a node). Each phase fills one array of the graph.
class Exporter {
public:
  Exporter(func::FuncOp func, const GraphJsonExportOptions &options)
      : func(func), body(func.getBody().front()), options(options) {}

  FailureOr<ojson> run();

private:
  LogicalResult exportArguments();
  LogicalResult exportConstantsAndCollectNodes();
  void chooseNodeIds();
  LogicalResult exportNode(size_t index, Operation *node);
  FailureOr<ojson> exportInputs(Operation *node, const OpSpec &spec);
  FailureOr<ojson> exportAttrs(Operation *node, const OpSpec &spec);
  LogicalResult exportResultTypes(Operation *node, const OpSpec &spec,
                                  ojson &entry);
  LogicalResult exportOutputs();

  std::string unique(std::string name, const std::string &fallback) {
    return names.unique(std::move(name), fallback);
  }

  func::FuncOp func;
  Block &body;
  const GraphJsonExportOptions &options;
  llvm::DenseMap<Value, std::string> refs;
  ExportNames names;
  ojson inputs = ojson::array(), parameters = ojson::array(),
        nodes = ojson::array(), outputs = ojson::array();
  /// The ops that become nodes, and whether their NameLocs are their ids.
  SmallVector<Operation *> nodeOps;
  bool useLocs = true;
};
} // namespace

/// Arguments tagged `kiln.parameter` are lifted parameters: their data is
/// not in the IR, so they are referenced as `<name>.npy` files; the other
/// arguments are the inputs, named in order by `kiln.input_names`.
LogicalResult Exporter::exportArguments() {
  for (BlockArgument arg : body.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || !type.hasStaticShape() || !getDTypeFor(type.getElementType()))
      return func.emitError("graph JSON export: argument ")
             << arg.getArgNumber() << " is not a static kiln tensor";
  }
  SmallVector<ArgumentName> argNames = nameArguments(func, names);
  for (auto [arg, argName] : llvm::zip_equal(body.getArguments(), argNames)) {
    refs[arg] = argName.name;
    ojson entry = ojson::object();
    entry["name"] = argName.name;
    entry.update(encodeType(cast<RankedTensorType>(arg.getType())));
    if (!argName.file.empty()) {
      entry["file"] = argName.file;
      parameters.push_back(entry);
    } else {
      inputs.push_back(entry);
    }
  }
  return success();
}

/// Named `kiln.constant`s (`kiln.parameter`) become parameters, with their
/// data inline or in a `.npy` file; every other op becomes a node.
LogicalResult Exporter::exportConstantsAndCollectNodes() {
  for (Operation &child : body.without_terminator()) {
    if (child.getDialect() == nullptr ||
        child.getDialect()->getNamespace() != "kiln")
      return child.emitError("graph JSON export: only kiln ops have a JSON "
                             "form");
    if (auto constant = dyn_cast<ConstantOp>(child)) {
      if (auto param = constant->getAttrOfType<StringAttr>(kParameter)) {
        std::string name =
            unique(param.str(), "param" + std::to_string(parameters.size()));
        ojson entry = ojson::object();
        entry["name"] = name;
        auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
        if (!options.weightsDir.empty() && dense &&
            dense.getNumElements() >= options.minFileElements) {
          FailureOr<ojson> file =
              writeWeights(&child, dense, name, options, names.usedFiles);
          if (failed(file))
            return failure();
          entry.update(*file);
        } else {
          FailureOr<ojson> data = encodeElements(&child, constant.getValue());
          if (failed(data))
            return failure();
          entry.update(*data);
        }
        parameters.push_back(entry);
        refs[constant.getResult()] = name;
        continue;
      }
    }
    nodeOps.push_back(&child);
  }
  return success();
}

/// Node ids: the NameLocs of the ops when they are all usable, else n<k>.
void Exporter::chooseNodeIds() {
  llvm::StringSet<> ids;
  for (Operation *node : nodeOps) {
    auto nameLoc = dyn_cast<NameLoc>(node->getLoc());
    StringRef id = nameLoc ? nameLoc.getName().strref() : StringRef();
    if (id.empty() || id.contains(':') || names.used.count(id) ||
        !ids.insert(id).second) {
      useLocs = false;
      return;
    }
  }
}

/// A node's inputs, positional per ODS operand, null for an absent optional
/// (trailing nulls dropped).
FailureOr<ojson> Exporter::exportInputs(Operation *node, const OpSpec &spec) {
  ojson inputList = ojson::array();
  auto refOf = [&](Value v) -> FailureOr<ojson> {
    auto it = refs.find(v);
    if (it == refs.end())
      return node->emitError("graph JSON export: an operand is not defined "
                             "in the function body"),
             failure();
    return ojson(it->second);
  };
  SmallVector<int64_t> sizes;
  if (!spec.hasGroups()) {
    sizes.assign(spec.operands.size(), 1);
  } else if (auto segs = node->getInherentAttr("operandSegmentSizes");
             segs && *segs && isa<DenseI32ArrayAttr>(*segs)) {
    for (int32_t s : cast<DenseI32ArrayAttr>(*segs).asArrayRef())
      sizes.push_back(s);
  } else {
    int64_t numSingles = 0;
    for (const OperandSpec &o : spec.operands)
      numSingles += o.kind == OperandKind::Single;
    for (const OperandSpec &o : spec.operands)
      sizes.push_back(o.kind == OperandKind::Single
                          ? 1
                          : int64_t(node->getNumOperands()) - numSingles);
  }
  if (sizes.size() != spec.operands.size())
    return node->emitError("graph JSON export: unexpected operand groups");
  unsigned next = 0;
  for (auto [operand, size] : llvm::zip(spec.operands, sizes)) {
    if (operand.kind == OperandKind::Optional && size == 0) {
      inputList.push_back(nullptr);
      continue;
    }
    for (int64_t k = 0; k < size; ++k) {
      if (next >= node->getNumOperands())
        return node->emitError("graph JSON export: unexpected operands");
      FailureOr<ojson> ref = refOf(node->getOperand(next++));
      if (failed(ref))
        return failure();
      inputList.push_back(*ref);
    }
  }
  while (!inputList.empty() && inputList.back().is_null())
    inputList.erase(inputList.size() - 1);
  return inputList;
}

/// A node's attributes that differ from the op's default: MLIR fills
/// defaulted attributes in, a bare op of the same name shows which those
/// are. A discardable attribute has no JSON form.
FailureOr<ojson> Exporter::exportAttrs(Operation *node, const OpSpec &spec) {
  Operation *bare = Operation::create(
      UnknownLoc::get(func.getContext()), node->getName(), TypeRange(),
      ValueRange(), NamedAttrList(), nullptr, BlockRange(), 0);
  llvm::scope_exit bareGuard([&] { bare->destroy(); });
  ojson attrs = ojson::object();
  for (const AttrSpec &attrSpec : spec.attrs) {
    std::optional<Attribute> attr = node->getInherentAttr(attrSpec.name);
    if (!attr || !*attr)
      continue;
    if (attrSpec.presence == Presence::Defaulted) {
      std::optional<Attribute> def = bare->getInherentAttr(attrSpec.name);
      if (def && *def == *attr)
        continue;
    }
    FailureOr<ojson> value = encodeAttr(node, attrSpec, *attr);
    if (failed(value))
      return failure();
    attrs[attrSpec.name] = *value;
  }
  for (NamedAttribute discardable : node->getDiscardableAttrs())
    return node->emitError("graph JSON export: the attribute '")
           << discardable.getName().strref() << "' has no JSON form";
  return attrs;
}

/// A node's result types, only where the op does not infer them, or where
/// it has results that inference leaves out (kiln.attention's optional lse).
LogicalResult Exporter::exportResultTypes(Operation *node, const OpSpec &spec,
                                          ojson &entry) {
  bool inferred = false;
  if (auto infer = dyn_cast<InferTypeOpInterface>(node)) {
    SmallVector<Type> types;
    inferred = succeeded(infer.inferReturnTypes(
                   node->getContext(), node->getLoc(), node->getOperands(),
                   node->getRawDictionaryAttrs(), node->getPropertiesStorage(),
                   node->getRegions(), types)) &&
               TypeRange(types) == node->getResultTypes();
  }
  if (inferred)
    return success();
  ojson types = ojson::array();
  for (Type t : node->getResultTypes()) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor)
      return node->emitError("graph JSON export: a result is not a "
                             "ranked tensor");
    types.push_back(encodeType(tensor));
  }
  // With result groups: one entry per group, null for an absent optional
  // result, trailing nulls dropped.
  if (auto segs = node->getInherentAttr("resultSegmentSizes");
      node->hasTrait<OpTrait::AttrSizedResultSegments>() && segs && *segs &&
      isa<DenseI32ArrayAttr>(*segs)) {
    ojson grouped = ojson::array();
    size_t next = 0;
    for (int32_t size : cast<DenseI32ArrayAttr>(*segs).asArrayRef()) {
      if (size > 1)
        return node->emitError("graph JSON export: a variadic result group");
      grouped.push_back(size == 1 ? types[next++] : ojson());
    }
    while (!grouped.empty() && grouped.back().is_null())
      grouped.erase(grouped.size() - 1);
    entry["types"] = grouped;
    return success();
  }
  if (node->getNumResults() == 1 && !spec.variadicResults)
    entry["type"] = types[0];
  else
    entry["types"] = types;
  return success();
}

/// One node: its id, op, inputs, attributes and (where needed) types.
LogicalResult Exporter::exportNode(size_t index, Operation *node) {
  std::string id = useLocs ? cast<NameLoc>(node->getLoc()).getName().str()
                           : unique("", "n" + std::to_string(index));
  if (useLocs)
    names.used.insert(id);
  StringRef opName = node->getName().stripDialect();
  auto specIt = getOpSpecs().find(opName.str());
  if (specIt == getOpSpecs().end())
    return node->emitError("graph JSON export: no JSON form for this op");
  const OpSpec &spec = specIt->second;

  ojson entry = ojson::object();
  entry["id"] = id;
  entry["op"] = opName.str();
  FailureOr<ojson> inputList = exportInputs(node, spec);
  if (failed(inputList))
    return failure();
  if (!inputList->empty())
    entry["inputs"] = *inputList;
  FailureOr<ojson> attrs = exportAttrs(node, spec);
  if (failed(attrs))
    return failure();
  if (!attrs->empty())
    entry["attrs"] = *attrs;
  if (failed(exportResultTypes(node, spec, entry)))
    return failure();
  for (OpResult result : node->getResults())
    refs[result] = id + ":" + std::to_string(result.getResultNumber());
  nodes.push_back(entry);
  return success();
}

/// The outputs, named by `kiln.output_names` where it names them uniquely,
/// else out<i>.
LogicalResult Exporter::exportOutputs() {
  auto ret = dyn_cast<func::ReturnOp>(body.getTerminator());
  if (!ret)
    return body.getTerminator()->emitError(
        "graph JSON export: expected func.return");
  llvm::StringSet<> outputNames;
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    auto it = refs.find(v);
    if (it == refs.end())
      return ret.emitError("graph JSON export: a result is not defined in "
                           "the function body");
    std::string name = getName(func, kOutputNames, i);
    std::string fallback = "out" + std::to_string(i);
    if (name.empty() || outputNames.count(name))
      name = fallback;
    for (int k = 1; outputNames.count(name); ++k)
      name = fallback + "_" + std::to_string(k);
    outputNames.insert(name);
    outputs.push_back(ojson{{"name", name}, {"value", it->second}});
  }
  return success();
}

FailureOr<ojson> Exporter::run() {
  ojson graph = ojson::object();
  graph["format"] = "kiln-graph";
  graph["version"] = 1;
  graph["name"] = func.getSymName().str();
  if (failed(exportArguments()) || failed(exportConstantsAndCollectNodes()))
    return failure();
  chooseNodeIds();
  for (auto [index, node] : llvm::enumerate(nodeOps))
    if (failed(exportNode(index, node)))
      return failure();
  if (failed(exportOutputs()))
    return failure();
  graph["inputs"] = inputs;
  if (!parameters.empty())
    graph["parameters"] = parameters;
  graph["nodes"] = nodes;
  graph["outputs"] = outputs;
  return graph;
}

LogicalResult
mlir::kiln::exportGraphJson(Operation *op, raw_ostream &os,
                            const GraphJsonExportOptions &options) {
  FailureOr<func::FuncOp> func = getExportedFunction(op);
  if (failed(func))
    return failure();
  FailureOr<ojson> graph = Exporter(*func, options).run();
  if (failed(graph))
    return failure();
  printGraph(*graph, options.indent, os);
  return success();
}
