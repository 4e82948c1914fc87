//===- PopulatePatterns.h - Per-family kiln-to-linalg patterns --*- C++ -*-===//
//
// Private to the KilnToLinalg library. Each op family lowers its ops in its
// own file and exposes one populate function here; KilnToLinalg.cpp calls
// them all. A family adds a pattern by adding it to its own populate function
// and nothing else: the conversion pass and the coverage matrix pick it up.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CONVERSION_KILNTOLINALG_POPULATEPATTERNS_H
#define KILN_LIB_CONVERSION_KILNTOLINALG_POPULATEPATTERNS_H

#include "mlir/Support/LLVM.h"

namespace mlir {
class Operation;
class RewritePatternSet;
} // namespace mlir

namespace mlir::kiln {

/// Elementwise.cpp: unary, binary, comparison and select ops.
void populateElementwisePatterns(RewritePatternSet &patterns);
/// Tensor.cpp: creation, layout and shape ops.
void populateTensorPatterns(RewritePatternSet &patterns);
/// Indexing.cpp: the gathers and index_add; `indexAddThreadPerColumn` as in
/// populateKilnToLinalgConversionPatterns.
void populateIndexingPatterns(RewritePatternSet &patterns,
                              bool indexAddThreadPerColumn);
/// Contraction.cpp: kiln.matmul.
void populateContractionPatterns(RewritePatternSet &patterns);
/// Reduction.cpp: reductions and scans; `scanThreadPerColumn`
/// picks kiln.cumsum's column form (populateKilnToLinalgConversionPatterns
/// passes its `indexAddThreadPerColumn`).
void populateReductionPatterns(RewritePatternSet &patterns,
                               bool scanThreadPerColumn);
/// Conv.cpp: convolutions and pooling.
void populateConvPatterns(RewritePatternSet &patterns);
/// Conv.cpp: emits an error at `op` and fails when it is an op of the family
/// that verifies but that the patterns refuse for its size (a pooling or
/// upsampling table larger than the lowering builds as a constant).
LogicalResult checkConvLoweringLimits(Operation *op);
/// NN.cpp: training helpers (losses, normalization, dropout, ...).
void populateNNPatterns(RewritePatternSet &patterns);
/// Dropout.cpp: kiln.dropout.
void populateDropoutPatterns(RewritePatternSet &patterns);
/// Attention.cpp: scaled dot-product attention and its adjoint; `parallel`
/// makes their loops over independent blocks scf.forall ops (else scf.for).
void populateAttentionPatterns(RewritePatternSet &patterns, bool parallel);

} // namespace mlir::kiln

#endif // KILN_LIB_CONVERSION_KILNTOLINALG_POPULATEPATTERNS_H
