//===- JsonLocator.h - Positions of JSON values for diagnostics -*- C++ -*-===//
//
// Private to the KilnGraphJson library: how the importer
// (GraphJsonImport.cpp) places its diagnostics at a line and column of the
// JSON text. nlohmann's DOM keeps no positions, so a syntax error's offset
// comes from a SAX parse (SyntaxErrorFinder) and a value's offset from
// scanning the raw text along the value's JSON path (JsonLocator). LLVM
// builds without exceptions: both rely only on nlohmann's non-throwing parse
// and SAX interfaces.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_TARGET_GRAPHJSON_JSONLOCATOR_H
#define KILN_LIB_TARGET_GRAPHJSON_JSONLOCATOR_H

#include "GraphJsonOpTable.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>

namespace mlir::kiln::graph_json {

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

} // namespace mlir::kiln::graph_json

#endif // KILN_LIB_TARGET_GRAPHJSON_JSONLOCATOR_H
