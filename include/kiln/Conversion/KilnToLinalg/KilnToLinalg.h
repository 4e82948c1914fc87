//===- KilnToLinalg.h - Lowering kiln to linalg on tensors ------*- C++ -*-===//
//
// The public face of the kiln-to-linalg conversion: its pattern set, and the
// list of kiln ops it covers (the CPU column of the coverage matrix).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CONVERSION_KILNTOLINALG_KILNTOLINALG_H
#define KILN_CONVERSION_KILNTOLINALG_KILNTOLINALG_H

#include "mlir/IR/OperationSupport.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir {
class MLIRContext;
class RewritePatternSet;
} // namespace mlir

namespace mlir::kiln {

/// Adds the patterns of every op family that lower kiln ops to linalg,
/// tensor, arith and math ops on tensors. `indexAddThreadPerColumn` selects
/// the GPU's form of kiln.index_add and kiln.cumsum, one thread per column,
/// instead of the CPU's, one thread per chunk of contiguous row elements.
/// `sequentialAttention` lowers kiln.attention and kiln.attention_grad to
/// scf.for loops over their blocks instead of scf.forall ops whose
/// iterations own disjoint blocks of the results.
void populateKilnToLinalgConversionPatterns(RewritePatternSet &patterns,
                                            bool indexAddThreadPerColumn = false,
                                            bool sequentialAttention = false);

/// Returns the names of the kiln ops that have a CPU lowering, i.e. the root
/// ops of the patterns `populateKilnToLinalgConversionPatterns` adds, sorted
/// by name and without duplicates.
SmallVector<OperationName> getKilnOpsWithCPULowering(MLIRContext *context);

} // namespace mlir::kiln

#endif // KILN_CONVERSION_KILNTOLINALG_KILNTOLINALG_H
