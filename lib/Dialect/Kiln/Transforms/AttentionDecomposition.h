//===- AttentionDecomposition.h - Builders of the decomposition -*- C++ -*-===//
//
// Private to lib/Dialect/Kiln/Transforms. The builders behind
// `kiln-decompose-attention`, for the backward rule of kiln.attention_grad
// (Rules/AttentionRules.cpp), which differentiates the decomposition.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_DIALECT_KILN_TRANSFORMS_ATTENTIONDECOMPOSITION_H
#define KILN_LIB_DIALECT_KILN_TRANSFORMS_ATTENTIONDECOMPOSITION_H

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

namespace mlir::kiln {

/// Builds `op`'s results, O and (when the op has it) LSE, out of primitive
/// kiln ops at the builder's insertion point.
SmallVector<Value> buildAttentionDecomposition(OpBuilder &builder,
                                               AttentionOp op);

/// Builds `op`'s results (dQ, dK, dV and, for an additive mask, d_mask) out
/// of primitive kiln ops at the builder's insertion point.
SmallVector<Value> buildAttentionGradDecomposition(OpBuilder &builder,
                                                   AttentionGradOp op);

} // namespace mlir::kiln

#endif // KILN_LIB_DIALECT_KILN_TRANSFORMS_ATTENTIONDECOMPOSITION_H
