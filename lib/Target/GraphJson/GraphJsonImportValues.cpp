//===- GraphJsonImportValues.cpp - JSON values -> types and attributes ----===//
//
// The part of the graph JSON import (docs/GraphJson.md) that reads single
// JSON values: the helpers of GraphJsonImporter.h, the key check of an
// object, tensor types, tensor data (inline "data", "splat", or a "file" of
// the weights directory read with Npy.h) and the attributes of a node, each
// typed by its ODS kind. LLVM builds without exceptions: every JSON access
// checks the value's type first.
//
//===----------------------------------------------------------------------===//

#include "GraphJsonImporter.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Support/HostTensor.h"
#include "kiln/Support/Npy.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/Support/Path.h"

#include <cstring>
#include <limits>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::graph_json;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

namespace mlir::kiln::graph_json {

std::string quote(StringRef s) { return json(s.str()).dump(); }

const char *jsonTypeName(const json &value) {
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
std::optional<int64_t> getInt64(const json &value) {
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
std::optional<double> getDouble(const json &value) {
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

} // namespace mlir::kiln::graph_json

//===----------------------------------------------------------------------===//
// Types, tensor data and attributes
//===----------------------------------------------------------------------===//

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
