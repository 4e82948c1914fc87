//===- AttentionCases.h - Configurations of attention tests -----*- C++ -*-===//
//
// The shape of the case tables of the tests that differentiate kiln.attention
// and kiln.attention_grad: sizes, the attribute dictionary, and the optional
// operand groups (key_lengths, query_lengths, mask, seed, alibi_slopes,
// sinks, cu_seqlens) with their inputs.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TEST_UNITTESTS_TESTSUPPORT_ATTENTIONCASES_H
#define KILN_TEST_UNITTESTS_TESTSUPPORT_ATTENTIONCASES_H

#include "TestSupport/JitHarness.h"

#include <ostream>
#include <string>
#include <vector>

namespace mlir::kiln::test {

/// The sizes of an attention (docs/Attention.md): batch B, query
/// heads Hq, key/value heads Hkv, query and key lengths Sq and Sk, key and
/// value head dims Dk and Dv.
struct AttentionShape {
  int64_t b, hq, hkv, sq, sk, dk, dv;

  /// Q [B, Hq, Sq, Dk].
  SmallVector<int64_t> getQueryShape() const { return {b, hq, sq, dk}; }
  /// K [B, Hkv, Sk, Dk].
  SmallVector<int64_t> getKeyShape() const { return {b, hkv, sk, dk}; }
  /// V [B, Hkv, Sk, Dv].
  SmallVector<int64_t> getValueShape() const { return {b, hkv, sk, dv}; }
  /// O and dO [B, Hq, Sq, Dv].
  SmallVector<int64_t> getOutputShape() const { return {b, hq, sq, dv}; }
};

/// An optional operand group, `keyword(%value : type)`, and its input.
struct AttentionOperand {
  std::string keyword;
  InputSpec input;
  /// Whether the test differentiates with respect to it.
  bool wrt = false;

  /// The input's tensor type.
  std::string getType() const {
    return formatTensorType(input.dtype, input.shape);
  }
  /// ` keyword(value : type)`, as the op's assembly prints it.
  std::string getGroup(StringRef value) const {
    return " " + keyword + "(" + value.str() + " : " + getType() + ")";
  }
};

/// The optional operand groups of `extras`, whose values are `names`, as
/// the op's assembly prints them: AttentionOperand::getGroup each, except
/// that "cu_seqlens_q" and the "cu_seqlens_k" right after it share one
/// ` cu_seqlens(q, k : tq, tk)`.
inline std::string formatOperandGroups(const std::vector<AttentionOperand> &extras,
                                       ArrayRef<std::string> names) {
  std::string groups;
  for (size_t n = 0; n < extras.size(); ++n) {
    if (extras[n].keyword == "cu_seqlens_q" && n + 1 < extras.size() &&
        extras[n + 1].keyword == "cu_seqlens_k") {
      groups += " cu_seqlens(" + names[n] + ", " + names[n + 1] + " : " +
                extras[n].getType() + ", " + extras[n + 1].getType() + ")";
      ++n;
      continue;
    }
    groups += extras[n].getGroup(names[n]);
  }
  return groups;
}

/// One configuration of an attention test.
struct AttentionCase {
  std::string name;
  AttentionShape shape;
  /// The attribute dictionary, e.g. "{causal}", or "".
  std::string attrs;
  std::vector<AttentionOperand> extras = {};
};

/// Names a case in gtest's messages.
inline void PrintTo(const AttentionCase &c, std::ostream *os) { *os << c.name; }

} // namespace mlir::kiln::test

#endif // KILN_TEST_UNITTESTS_TESTSUPPORT_ATTENTIONCASES_H
