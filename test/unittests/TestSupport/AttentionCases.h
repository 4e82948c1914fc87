//===- AttentionCases.h - Configurations of attention tests -----*- C++ -*-===//
//
// The shape of the case tables of the tests that differentiate kiln.attention
// and kiln.attention_grad: sizes, the attribute dictionary, and the optional
// operand groups (key_lengths, query_lengths, mask, seed) with their inputs.
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
