//===- GraphJsonImport.cpp - JSON model graphs -> kiln IR -----------------===//
//
// The import of docs/GraphJson.md: importGraphJson and
// readGraphJsonParameters, and the phases of Importer::run, which checks the
// top-level object and imports the graph's inputs, parameters, nodes (in
// dependency order) and outputs into one function. The Importer is declared
// in GraphJsonImporter.h; one node is built in GraphJsonImportNode.cpp, and
// single JSON values (types, tensor data, attributes) are read in
// GraphJsonImportValues.cpp. The operands and attributes of each op come from
// the op table (GraphJsonOpTable.h), so every kiln op imports without a
// hand-written table; diagnostics are placed with JsonLocator.h. LLVM builds
// without exceptions: every JSON access checks the value's type first, and
// parse errors come from nlohmann's non-throwing parse and SAX interfaces.
//
//===----------------------------------------------------------------------===//

#include "GraphJsonImporter.h"
#include "JsonLocator.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::graph_json;

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

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
