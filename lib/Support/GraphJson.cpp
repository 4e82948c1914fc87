//===- GraphJson.cpp - JSON model graphs <-> kiln IR ----------------------===//
//
// The schema is docs/GraphJson.md. The operands and attributes of each op
// come from GraphJsonOps.inc, generated from the ODS records, so every kiln
// op imports and exports without a hand-written table. LLVM builds without
// exceptions: every JSON access checks the value's type first, and parse
// errors come from nlohmann's non-throwing parse and SAX interfaces.
//
//===----------------------------------------------------------------------===//

#include "kiln/Support/GraphJson.h"
#include "kiln/Support/GraphJsonNames.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Runtime/HostTensor.h"
#include "kiln/Runtime/Npy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <vector>

using namespace mlir;
using namespace mlir::kiln;
using json = nlohmann::json;
/// The export keeps the schema's key order.
using ojson = nlohmann::ordered_json;

//===----------------------------------------------------------------------===//
// The op table
//===----------------------------------------------------------------------===//

namespace {
enum class OperandKind { Single, Optional, Variadic };
enum class AttrKind {
  I64,
  F64,
  Bool,
  Unit,
  I64Array,
  Elements,
  GeluApproximation,
  AttentionAlignment,
  LossReduction,
  UpsampleMode
};
enum class Presence { Required, Optional, Defaulted };

struct OperandSpec {
  const char *name;
  OperandKind kind;
};
struct AttrSpec {
  const char *name;
  AttrKind kind;
  Presence presence;
};
struct OpSpec {
  std::string name;
  std::vector<OperandSpec> operands;
  std::vector<AttrSpec> attrs;
  bool variadicResults = false;

  const AttrSpec *findAttr(StringRef attr) const {
    for (const AttrSpec &spec : attrs)
      if (attr == spec.name)
        return &spec;
    return nullptr;
  }
  bool hasGroups() const {
    for (const OperandSpec &operand : operands)
      if (operand.kind != OperandKind::Single)
        return true;
    return false;
  }
};
} // namespace

static const std::map<std::string, OpSpec> &getOpSpecs() {
  static const std::map<std::string, OpSpec> specs = [] {
    using OK = OperandKind;
    using AK = AttrKind;
    using P = Presence;
    std::map<std::string, OpSpec> result;
    OpSpec current;
#define KILN_GRAPH_OP(NAME) current = OpSpec{NAME, {}, {}, false};
#define KILN_GRAPH_OPERAND(NAME, KIND)                                         \
  current.operands.push_back({NAME, OK::KIND});
#define KILN_GRAPH_ATTR(NAME, KIND, PRESENCE)                                  \
  current.attrs.push_back({NAME, AK::KIND, P::PRESENCE});
#define KILN_GRAPH_END(VARIADIC)                                               \
  current.variadicResults = VARIADIC;                                          \
  result[current.name] = current;
#include "GraphJsonOps.inc"
#undef KILN_GRAPH_OP
#undef KILN_GRAPH_OPERAND
#undef KILN_GRAPH_ATTR
#undef KILN_GRAPH_END
    return result;
  }();
  return specs;
}

/// The function attributes that name the graph's inputs and outputs, in
/// order (lifted parameters, which are arguments too, are named by
/// kParameter argument attributes instead).
static constexpr const char kInputNames[] = "kiln.input_names";
static constexpr const char kOutputNames[] = "kiln.output_names";
/// Names a parameter: the discardable attribute of its `kiln.constant`, or
/// the argument attribute of a lifted parameter.
static constexpr const char kParameter[] = "kiln.parameter";

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

static ojson encodeDouble(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  return v;
}

namespace {
/// Records the first syntax error of a SAX parse.
struct SyntaxErrorFinder : nlohmann::json_sax<json> {
  std::string message;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t &) override { return true; }
  bool string(string_t &) override { return true; }
  bool binary(binary_t &) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t &) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string &,
                   const nlohmann::detail::exception &ex) override {
    message = ex.what();
    // nlohmann counts the characters read, the offending one included.
    offset = position ? position - 1 : 0;
    return false;
  }
  /// The offset of the character where the parse failed (the text's size
  /// at its end).
  size_t offset = 0;
};

/// Finds the JSON values that the importer's error paths name in the raw
/// text, since nlohmann's DOM keeps no positions: a path such as
/// `nodes[2] (id "mm").attrs.axes[0]` is followed key by key and index by
/// index, skipping the values in between. The text has already parsed, so
/// the scanner only has to skip strings (with escapes), numbers, literals and
/// nested containers; it still stops safely on anything unexpected.
class JsonLocator {
public:
  explicit JsonLocator(StringRef text) : text(text) {}

  /// Returns the offset of the value that `path` names, or else that of the
  /// value its longest followable prefix names (for a missing key, its
  /// object); the root value's for `graph` and for a path whose first key
  /// is missing. Nullopt for a text of only white space.
  std::optional<size_t> find(StringRef path) const;

private:
  size_t skipSpace(size_t pos) const;
  /// The offset just past the string starting at `pos`.
  std::optional<size_t> skipString(size_t pos) const;
  /// The offset just past the value starting at `pos`.
  std::optional<size_t> skipValue(size_t pos) const;
  /// The value of the key of the object at `pos` that `path` starts with
  /// (the longest such key, its last occurrence, as nlohmann keeps it);
  /// advances `path` past the key.
  std::optional<size_t> findMember(size_t pos, StringRef &path) const;
  /// The value of element `index` of the array at `pos`.
  std::optional<size_t> findElement(size_t pos, size_t index) const;

  StringRef text;
};
} // namespace

size_t JsonLocator::skipSpace(size_t pos) const {
  while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' ||
                               text[pos] == '\n' || text[pos] == '\r'))
    ++pos;
  return pos;
}

std::optional<size_t> JsonLocator::skipString(size_t pos) const {
  if (pos >= text.size() || text[pos] != '"')
    return std::nullopt;
  for (++pos; pos < text.size(); ++pos) {
    if (text[pos] == '\\')
      ++pos;
    else if (text[pos] == '"')
      return pos + 1;
  }
  return std::nullopt;
}

std::optional<size_t> JsonLocator::skipValue(size_t pos) const {
  if (pos >= text.size())
    return std::nullopt;
  if (text[pos] == '"')
    return skipString(pos);
  if (text[pos] != '{' && text[pos] != '[') {
    // A number or a literal.
    while (pos < text.size() && !StringRef(",]} \t\n\r").contains(text[pos]))
      ++pos;
    return pos;
  }
  // A container: count the brackets outside strings.
  size_t depth = 0;
  while (pos < text.size()) {
    char c = text[pos];
    if (c == '"') {
      std::optional<size_t> end = skipString(pos);
      if (!end)
        return std::nullopt;
      pos = *end;
      continue;
    }
    ++pos;
    if (c == '{' || c == '[')
      ++depth;
    else if ((c == '}' || c == ']') && --depth == 0)
      return pos;
  }
  return std::nullopt;
}

std::optional<size_t> JsonLocator::findMember(size_t pos,
                                              StringRef &path) const {
  if (pos >= text.size() || text[pos] != '{')
    return std::nullopt;
  std::optional<size_t> found;
  size_t foundLength = 0;
  pos = skipSpace(pos + 1);
  while (pos < text.size() && text[pos] == '"') {
    std::optional<size_t> keyEnd = skipString(pos);
    if (!keyEnd)
      return std::nullopt;
    StringRef raw = text.slice(pos + 1, *keyEnd - 1);
    std::string key = raw.str();
    if (raw.contains('\\')) {
      json decoded = json::parse(text.slice(pos, *keyEnd), nullptr,
                                 /*allow_exceptions=*/false);
      if (decoded.is_string())
        key = decoded.get<std::string>();
    }
    pos = skipSpace(*keyEnd);
    if (pos >= text.size() || text[pos] != ':')
      return std::nullopt;
    size_t valuePos = skipSpace(pos + 1);
    // The key must end where the path's next step (or the path) begins.
    StringRef rest = path;
    if (rest.consume_front(key) &&
        (rest.empty() || rest.starts_with(".") || rest.starts_with("[") ||
         rest.starts_with(" (")) &&
        key.size() >= foundLength) {
      found = valuePos;
      foundLength = key.size();
    }
    std::optional<size_t> valueEnd = skipValue(valuePos);
    if (!valueEnd)
      break;
    pos = skipSpace(*valueEnd);
    if (pos >= text.size() || text[pos] != ',')
      break;
    pos = skipSpace(pos + 1);
  }
  if (found)
    path = path.drop_front(foundLength);
  return found;
}

std::optional<size_t> JsonLocator::findElement(size_t pos,
                                               size_t index) const {
  if (pos >= text.size() || text[pos] != '[')
    return std::nullopt;
  pos = skipSpace(pos + 1);
  if (pos < text.size() && text[pos] == ']')
    return std::nullopt;
  for (size_t i = 0; i < index; ++i) {
    std::optional<size_t> end = skipValue(pos);
    if (!end)
      return std::nullopt;
    pos = skipSpace(*end);
    if (pos >= text.size() || text[pos] != ',')
      return std::nullopt;
    pos = skipSpace(pos + 1);
  }
  return pos < text.size() ? std::optional<size_t>(pos) : std::nullopt;
}

std::optional<size_t> JsonLocator::find(StringRef path) const {
  // nlohmann skips a UTF-8 byte order mark.
  size_t pos = skipSpace(text.starts_with("\xEF\xBB\xBF") ? 3 : 0);
  if (pos >= text.size())
    return std::nullopt;
  if (path == "graph")
    return pos;
  // The first step is a key of the root object, without a leading '.'.
  std::optional<size_t> next = findMember(pos, path);
  while (next) {
    pos = *next;
    if (path.consume_front(" (id ")) {
      // The node id the path quotes for the reader: no step.
      std::optional<size_t> end = JsonLocator(path).skipString(0);
      if (!end || !path.drop_front(*end).starts_with(")"))
        break;
      path = path.drop_front(*end + 1);
    }
    if (path.consume_front(".")) {
      next = findMember(pos, path);
    } else if (path.consume_front("[")) {
      size_t index;
      if (path.consumeInteger(10, index) || !path.consume_front("]"))
        break;
      next = findElement(pos, index);
    } else {
      break;
    }
  }
  return pos;
}

namespace {
/// The import of one graph; `fail` emits a diagnostic and returns failure.
class Importer {
public:
  Importer(MLIRContext *context, Location loc,
           const GraphJsonImportOptions &options)
      : context(context), loc(loc), options(options), builder(context) {}

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
  LogicalResult buildNode(size_t index);

  /// Where a reference points: a named input/parameter or a node's result.
  struct Ref {
    bool isNull = false;
    Value named;
    int64_t node = -1;
    int64_t result = 0;
  };
  FailureOr<Ref> parseRef(const json &value, const std::string &path);

  struct Node {
    const json *object;
    std::string id;
    std::string path;
    const OpSpec *spec;
    std::vector<Ref> inputs;
    Operation *op = nullptr;
  };

  MLIRContext *context;
  Location loc;
  const GraphJsonImportOptions &options;
  OpBuilder builder;
  StringRef text;
  llvm::StringMap<Value> named;
  llvm::StringMap<size_t> nodeIndex;
  std::vector<Node> nodes;
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

LogicalResult Importer::buildNode(size_t index) {
  Node &node = nodes[index];
  const json &object = *node.object;
  const OpSpec &spec = *node.spec;
  std::string path = node.path;

  // Operands, with the optional and variadic groups of the ODS definition.
  SmallVector<Value> operands;
  SmallVector<int32_t> segments;
  size_t numSingles = 0;
  for (const OperandSpec &operand : spec.operands)
    numSingles += operand.kind == OperandKind::Single;
  size_t numGiven = node.inputs.size();
  auto valueOf = [&](size_t i) -> FailureOr<Value> {
    const Ref &ref = node.inputs[i];
    std::string where = path + ".inputs[" + std::to_string(i) + "]";
    if (ref.named)
      return ref.named;
    Node &producer = nodes[ref.node];
    if (ref.result >= int64_t(producer.op->getNumResults()))
      return fail(where, "node " + quote(producer.id) + " has " +
                             std::to_string(producer.op->getNumResults()) +
                             " result(s), no result " +
                             std::to_string(ref.result));
    return producer.op->getResult(ref.result);
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
  } else {
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
  }

  // Attributes, typed by their ODS kind.
  NamedAttrList attrs;
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
  // Result types: inferred, else from "type"/"types".
  OperationName opName("kiln." + spec.name, context);
  if (opName.hasTrait<OpTrait::AttrSizedOperandSegments>())
    attrs.set("operandSegmentSizes", builder.getDenseI32ArrayAttr(segments));
  Location opLoc = NameLoc::get(builder.getStringAttr(node.id));
  SmallVector<Type> resultTypes;
  SmallVector<Type> declared;
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
        resultTypes = declared;
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
      resultTypes = declared;
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
    return fail(path, diagnostics.empty()
                          ? "kiln." + spec.name + " failed to build"
                          : diagnostics);
  return success();
}

OwningOpRef<ModuleOp> Importer::run(StringRef jsonText) {
  context->getOrLoadDialect<KilnDialect>();
  context->getOrLoadDialect<func::FuncDialect>();
  text = jsonText;

  json root = json::parse(text.begin(), text.end(), nullptr,
                          /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    SyntaxErrorFinder finder;
    json::sax_parse(text.begin(), text.end(), &finder);
    emitError(getLocation(std::min(finder.offset, text.size())))
        << "JSON: syntax error: "
        << (finder.message.empty() ? std::string("malformed")
                                   : finder.message);
    return nullptr;
  }
  if (!root.is_object()) {
    (void)fail("graph", Twine("expected an object, got ") + jsonTypeName(root));
    return nullptr;
  }
  if (failed(checkKeys(root, "graph",
                       {"format", "version", "name", "inputs", "parameters",
                        "nodes", "outputs", "metadata"})))
    return nullptr;
  if (auto it = root.find("format");
      it != root.end() && (!it->is_string() || *it != "kiln-graph")) {
    (void)fail("format", "expected \"kiln-graph\"");
    return nullptr;
  }
  if (auto it = root.find("version"); it != root.end() && *it != 1) {
    (void)fail("version", "expected 1");
    return nullptr;
  }
  auto nameIt = root.find("name");
  if (nameIt == root.end() || !nameIt->is_string() ||
      nameIt->get_ref<const std::string &>().empty()) {
    (void)fail("name", "expected a non-empty string (the function name)");
    return nullptr;
  }
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
    return nullptr;

  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());
  auto func =
      func::FuncOp::create(builder, loc, nameIt->get_ref<const std::string &>(),
                           builder.getFunctionType({}, {}));
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToStart(body);

  auto checkName = [&](const json &entry, const std::string &path,
                       std::string &name) -> LogicalResult {
    if (!entry.is_object())
      return fail(path,
                  Twine("expected an object, got ") + jsonTypeName(entry));
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
  };

  // Inputs: the function's arguments.
  SmallVector<Type> argTypes;
  SmallVector<Attribute> inputNames;
  for (size_t i = 0; i < inputs->size(); ++i) {
    std::string path = "inputs[" + std::to_string(i) + "]";
    const json &entry = (*inputs)[i];
    std::string name;
    if (failed(checkName(entry, path, name)) ||
        failed(checkKeys(entry, path, {"name", "dtype", "shape"})))
      return nullptr;
    FailureOr<RankedTensorType> type = parseType(entry, path);
    if (failed(type))
      return nullptr;
    argTypes.push_back(*type);
    inputNames.push_back(builder.getStringAttr(name));
    named[name] =
        body->addArgument(*type, NameLoc::get(builder.getStringAttr(name)));
  }

  // Parameters: tagged constants, or leading arguments when lifted (their
  // data is then not read: readGraphJsonParameters does that).
  SmallVector<Attribute> parameterNames;
  for (size_t i = 0; i < parameters->size(); ++i) {
    std::string path = "parameters[" + std::to_string(i) + "]";
    const json &entry = (*parameters)[i];
    std::string name;
    if (failed(checkName(entry, path, name)))
      return nullptr;
    if (options.liftParameters) {
      FailureOr<RankedTensorType> type = parseTensorDecl(entry, path);
      if (failed(type))
        return nullptr;
      argTypes.insert(argTypes.begin() + i, *type);
      parameterNames.push_back(builder.getStringAttr(name));
      named[name] = body->insertArgument(
          i, *type, NameLoc::get(builder.getStringAttr(name)));
      continue;
    }
    FailureOr<DenseElementsAttr> data = parseTensorData(entry, path);
    if (failed(data))
      return nullptr;
    auto constant = ConstantOp::create(
        builder, NameLoc::get(builder.getStringAttr(name)), *data);
    constant->setAttr(kParameter, builder.getStringAttr(name));
    named[name] = constant.getResult();
  }

  // Nodes: ids first, so that references may point forward.
  for (size_t i = 0; i < nodeList->size(); ++i) {
    std::string path = "nodes[" + std::to_string(i) + "]";
    const json &entry = (*nodeList)[i];
    if (!entry.is_object()) {
      (void)fail(path, Twine("expected an object, got ") + jsonTypeName(entry));
      return nullptr;
    }
    auto idIt = entry.find("id");
    if (idIt == entry.end() || !idIt->is_string() ||
        idIt->get_ref<const std::string &>().empty()) {
      (void)fail(path, "expected a non-empty string \"id\"");
      return nullptr;
    }
    std::string id = idIt->get<std::string>();
    path += " (id " + quote(id) + ")";
    if (StringRef(id).contains(':')) {
      (void)fail(path, "the id contains ':'");
      return nullptr;
    }
    if (named.count(id) || nodeIndex.count(id)) {
      (void)fail(path, "duplicate id " + quote(id));
      return nullptr;
    }
    if (failed(checkKeys(entry, path,
                         {"id", "op", "inputs", "attrs", "type", "types"})))
      return nullptr;
    auto opIt = entry.find("op");
    if (opIt == entry.end() || !opIt->is_string()) {
      (void)fail(path, "expected a string \"op\" (e.g. \"add\" for kiln.add)");
      return nullptr;
    }
    StringRef opText = opIt->get_ref<const std::string &>();
    opText.consume_front("kiln.");
    auto specIt = getOpSpecs().find(opText.str());
    if (specIt == getOpSpecs().end()) {
      (void)fail(path + ".op", "unknown op " + quote(opIt->get<std::string>()));
      return nullptr;
    }
    nodeIndex[id] = nodes.size();
    nodes.push_back(Node{&entry, id, path, &specIt->second, {}, nullptr});
  }
  for (Node &node : nodes) {
    auto it = node.object->find("inputs");
    if (it == node.object->end())
      continue;
    if (!it->is_array()) {
      (void)fail(node.path + ".inputs",
                 Twine("expected an array, got ") + jsonTypeName(*it));
      return nullptr;
    }
    for (size_t i = 0; i < it->size(); ++i) {
      FailureOr<Ref> ref =
          parseRef((*it)[i], node.path + ".inputs[" + std::to_string(i) + "]");
      if (failed(ref))
        return nullptr;
      node.inputs.push_back(*ref);
    }
  }

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
          (void)fail(nodes[current].path, "cyclic reference: " + cycle);
          return nullptr;
        }
        if (state[dep] == State::New) {
          state[dep] = State::Active;
          stack.push_back({dep, 0});
        }
        continue;
      }
      if (failed(buildNode(current)))
        return nullptr;
      state[current] = State::Done;
      stack.pop_back();
    }
  }

  // Outputs: the function's results.
  SmallVector<Value> results;
  SmallVector<Attribute> outputNames;
  llvm::StringSet<> seenOutputs;
  for (size_t i = 0; i < outputs->size(); ++i) {
    std::string path = "outputs[" + std::to_string(i) + "]";
    const json &entry = (*outputs)[i];
    if (!entry.is_object()) {
      (void)fail(path, Twine("expected an object, got ") + jsonTypeName(entry));
      return nullptr;
    }
    if (failed(checkKeys(entry, path, {"name", "value"})))
      return nullptr;
    auto nameIt = entry.find("name");
    if (nameIt == entry.end() || !nameIt->is_string() ||
        nameIt->get_ref<const std::string &>().empty()) {
      (void)fail(path, "expected a non-empty string \"name\"");
      return nullptr;
    }
    if (StringRef(nameIt->get_ref<const std::string &>()).contains(':')) {
      (void)fail(path,
                 "name " + quote(nameIt->get<std::string>()) + " contains ':'");
      return nullptr;
    }
    if (!seenOutputs.insert(nameIt->get<std::string>()).second) {
      (void)fail(path,
                 "duplicate output name " + quote(nameIt->get<std::string>()));
      return nullptr;
    }
    auto valueIt = entry.find("value");
    if (valueIt == entry.end() || valueIt->is_null()) {
      (void)fail(path, "expected a reference \"value\"");
      return nullptr;
    }
    FailureOr<Ref> ref = parseRef(*valueIt, path + ".value");
    if (failed(ref))
      return nullptr;
    Value value = ref->named;
    if (!value) {
      Node &producer = nodes[ref->node];
      if (ref->result >= int64_t(producer.op->getNumResults())) {
        (void)fail(path + ".value",
                   "node " + quote(producer.id) + " has " +
                       std::to_string(producer.op->getNumResults()) +
                       " result(s), no result " + std::to_string(ref->result));
        return nullptr;
      }
      value = producer.op->getResult(ref->result);
    }
    results.push_back(value);
    outputNames.push_back(builder.getStringAttr(nameIt->get<std::string>()));
  }
  func::ReturnOp::create(builder, loc, results);
  func.setFunctionType(
      builder.getFunctionType(argTypes, TypeRange(ValueRange(results))));
  func->setAttr(kInputNames, builder.getArrayAttr(inputNames));
  func->setAttr(kOutputNames, builder.getArrayAttr(outputNames));
  for (auto [i, name] : llvm::enumerate(parameterNames))
    func.setArgAttr(i, kParameter, name);
  if (failed(verify(*module))) {
    (void)fail("graph", "the imported function does not verify");
    return nullptr;
  }
  return module;
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

//===----------------------------------------------------------------------===//
// Export
//===----------------------------------------------------------------------===//

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

LogicalResult
mlir::kiln::exportGraphJson(Operation *op, raw_ostream &os,
                            const GraphJsonExportOptions &options) {
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
  Block &body = func.getBody().front();
  MLIRContext *context = func.getContext();

  ojson graph = ojson::object();
  graph["format"] = "kiln-graph";
  graph["version"] = 1;
  graph["name"] = func.getSymName().str();

  llvm::DenseMap<Value, std::string> refs;
  ExportNames names;
  auto unique = [&](std::string name, const std::string &fallback) {
    return names.unique(std::move(name), fallback);
  };

  // Arguments tagged `kiln.parameter` are lifted parameters: their data is
  // not in the IR, so they are referenced as `<name>.npy` files; the other
  // arguments are the inputs, named in order by `kiln.input_names`.
  for (BlockArgument arg : body.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || !type.hasStaticShape() || !getDTypeFor(type.getElementType()))
      return func.emitError("graph JSON export: argument ")
             << arg.getArgNumber() << " is not a static kiln tensor";
  }
  ojson inputs = ojson::array();
  ojson parameters = ojson::array();
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

  // Node ids: the NameLocs of the ops when they are all usable, else n<k>.
  SmallVector<Operation *> nodeOps;
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
  bool useLocs = true;
  {
    llvm::StringSet<> ids;
    for (Operation *node : nodeOps) {
      auto nameLoc = dyn_cast<NameLoc>(node->getLoc());
      StringRef id = nameLoc ? nameLoc.getName().strref() : StringRef();
      if (id.empty() || id.contains(':') || names.used.count(id) ||
          !ids.insert(id).second) {
        useLocs = false;
        break;
      }
    }
  }

  ojson nodes = ojson::array();
  for (auto [index, node] : llvm::enumerate(nodeOps)) {
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

    // Inputs, positional per ODS operand, null for an absent optional.
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
    if (!inputList.empty())
      entry["inputs"] = inputList;

    // Attributes that differ from the op's default: MLIR fills defaulted
    // attributes in, a bare op of the same name shows which those are.
    Operation *bare = Operation::create(
        UnknownLoc::get(context), node->getName(), TypeRange(), ValueRange(),
        NamedAttrList(), nullptr, BlockRange(), 0);
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
    if (!attrs.empty())
      entry["attrs"] = attrs;

    // Types only where the op does not infer them, or where it has results
    // that inference leaves out (kiln.attention's optional lse).
    bool inferred = false;
    if (auto infer = dyn_cast<InferTypeOpInterface>(node)) {
      SmallVector<Type> types;
      inferred =
          succeeded(infer.inferReturnTypes(
              node->getContext(), node->getLoc(), node->getOperands(),
              node->getRawDictionaryAttrs(), node->getPropertiesStorage(),
              node->getRegions(), types)) &&
          TypeRange(types) == node->getResultTypes();
    }
    if (!inferred) {
      ojson types = ojson::array();
      for (Type t : node->getResultTypes()) {
        auto tensor = dyn_cast<RankedTensorType>(t);
        if (!tensor)
          return node->emitError("graph JSON export: a result is not a "
                                 "ranked tensor");
        types.push_back(encodeType(tensor));
      }
      if (node->getNumResults() == 1 && !spec.variadicResults)
        entry["type"] = types[0];
      else
        entry["types"] = types;
    }
    for (OpResult result : node->getResults())
      refs[result] = id + ":" + std::to_string(result.getResultNumber());
    nodes.push_back(entry);
  }

  ojson outputs = ojson::array();
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

  graph["inputs"] = inputs;
  if (!parameters.empty())
    graph["parameters"] = parameters;
  graph["nodes"] = nodes;
  graph["outputs"] = outputs;
  if (options.indent < 0) {
    os << graph.dump() << "\n";
    return success();
  }
  // One line per input, parameter, node and output: readable and diffable.
  std::string pad(options.indent, ' ');
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
  return success();
}
