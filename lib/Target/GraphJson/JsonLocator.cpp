//===- JsonLocator.cpp - Positions of JSON values for diagnostics ---------===//
//
// The scanner that maps an importer error path, such as
// `nodes[2] (id "mm").attrs.axes[0]`, to the byte offset of the value it
// names in the raw JSON text (JsonLocator.h).
//
//===----------------------------------------------------------------------===//

#include "JsonLocator.h"

namespace mlir::kiln::graph_json {

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

} // namespace mlir::kiln::graph_json
