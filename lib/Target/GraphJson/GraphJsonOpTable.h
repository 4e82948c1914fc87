//===- GraphJsonOpTable.h - The graph JSON op table -------------*- C++ -*-===//
//
// Private to the KilnGraphJson library: what the importer
// (GraphJsonImport.cpp) and the exporter (GraphJsonExport.cpp) share. The
// operands and attributes of each op come from GraphJsonOps.inc, generated
// from the ODS records, so every kiln op imports and exports without a
// hand-written table; the function and argument attributes that name the
// graph's inputs, outputs and parameters; the JSON value types. The schema
// is docs/GraphJson.md.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_TARGET_GRAPHJSON_GRAPHJSONOPTABLE_H
#define KILN_LIB_TARGET_GRAPHJSON_GRAPHJSONOPTABLE_H

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace mlir::kiln::graph_json {

using json = nlohmann::json;
/// The export keeps the schema's key order.
using ojson = nlohmann::ordered_json;

//===----------------------------------------------------------------------===//
// The op table
//===----------------------------------------------------------------------===//

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
  /// The ODS result groups (results, optional or not). An op with
  /// AttrSizedResultSegments (kiln.attention_grad) writes one "types" entry
  /// per group, null for an absent optional result.
  unsigned numResultGroups = 0;

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

/// The spec of every kiln op, by its name without the `kiln.` prefix (built
/// once, from GraphJsonOps.inc).
const std::map<std::string, OpSpec> &getOpSpecs();

/// The function attributes that name the graph's inputs and outputs, in
/// order (lifted parameters, which are arguments too, are named by
/// kParameter argument attributes instead).
inline constexpr llvm::StringLiteral kInputNames =
    KilnDialect::InputNamesAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kOutputNames =
    KilnDialect::OutputNamesAttrHelper::getNameStr();
/// Names a parameter: the discardable attribute of its `kiln.constant`, or
/// the argument attribute of a lifted parameter.
inline constexpr llvm::StringLiteral kParameter =
    KilnDialect::ParameterAttrHelper::getNameStr();

} // namespace mlir::kiln::graph_json

#endif // KILN_LIB_TARGET_GRAPHJSON_GRAPHJSONOPTABLE_H
