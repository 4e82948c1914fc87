//===- GraphJsonOpTable.cpp - The graph JSON op table ---------------------===//
//
// The op table of the graph JSON import and export (GraphJsonOpTable.h),
// built from GraphJsonOps.inc, which is generated from the ODS records.
//
//===----------------------------------------------------------------------===//

#include "GraphJsonOpTable.h"

namespace mlir::kiln::graph_json {

const std::map<std::string, OpSpec> &getOpSpecs() {
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
#define KILN_GRAPH_END(VARIADIC, GROUPS)                                       \
  current.variadicResults = VARIADIC;                                          \
  current.numResultGroups = GROUPS;                                            \
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

} // namespace mlir::kiln::graph_json
