//===- GraphJsonImportNode.cpp - One graph JSON node -> one kiln op -------===//
//
// The part of the graph JSON import (docs/GraphJson.md) that builds one
// node: the references of its "inputs" and the values they name, its
// operands in the optional and variadic groups of the op's ODS definition,
// its attributes, its declared result types, and the op itself, inferred (or
// declared) and verified, with the diagnostics of both placed at the node.
//
//===----------------------------------------------------------------------===//

#include "GraphJsonImporter.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::graph_json;

//===----------------------------------------------------------------------===//
// References
//===----------------------------------------------------------------------===//

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
  // One "types" entry per result group, null for an absent optional result
  // (trailing nulls may be left out): the groups' sizes.
  if (opName.hasTrait<OpTrait::AttrSizedResultSegments>()) {
    if (declared.size() > spec.numResultGroups)
      return fail(node.path + ".types",
                  "kiln." + spec.name + " has " +
                      std::to_string(spec.numResultGroups) +
                      " result groups, got " + std::to_string(declared.size()) +
                      " types");
    SmallVector<int32_t> resultSegments(spec.numResultGroups, 0);
    for (auto [i, type] : llvm::enumerate(declared))
      resultSegments[i] = type ? 1 : 0;
    attrs.set("resultSegmentSizes",
              builder.getDenseI32ArrayAttr(resultSegments));
    llvm::erase(declared, Type());
  }
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
    // Null stands for an absent optional result of an op with result
    // groups (buildNode).
    OperationName opName("kiln." + node.spec->name, context);
    bool groups = opName.hasTrait<OpTrait::AttrSizedResultSegments>();
    for (size_t i = 0; i < it->size(); ++i) {
      if (groups && (*it)[i].is_null()) {
        declared.push_back(Type());
        continue;
      }
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
