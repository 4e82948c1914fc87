//===- MatmulKernels.h - The CPU matmul kernels' shared pieces -*- C++ -*-===//
//
// What kiln-matmul-kernels' two emitters share: how a matmul reads its
// operands, and the AMX kernel's entry point (AmxMatmul.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CONVERSION_LINALGTOCPU_MATMULKERNELS_H
#define KILN_LIB_CONVERSION_LINALGTOCPU_MATMULKERNELS_H

#include "mlir/IR/Builders.h"

namespace mlir::kiln {

/// How a matmul reads its operands: A as [M, K] or, transposed, as [K, M];
/// B as [K, N] or, transposed, as [N, K]. C is always [M, N].
struct MatmulLayout {
  bool transposeA = false;
  bool transposeB = false;
};

/// Whether the AMX kernel takes a matmul of these buffers: bf16 A and B, an
/// f32 C, static shapes.
bool isAmxMatmul(MemRefType a, MemRefType b, MemRefType c);

/// Emits C += A * B (a `linalg.matmul`, or with `batched` a
/// `linalg.batch_matmul`, of buffers isAmxMatmul accepts) with AMX tiles:
/// `tdpbf16ps` products of bf16 pairs accumulated in f32. With `parallel`,
/// the column blocks of C (of every batch) are the iterations of one
/// scf.parallel, each computing its columns exactly as the sequential
/// kernel does.
void emitAmxMatmul(OpBuilder &builder, Location loc, Value a, Value b,
                   Value c, bool batched, MatmulLayout layout,
                   bool parallel);

} // namespace mlir::kiln

#endif // KILN_LIB_CONVERSION_LINALGTOCPU_MATMULKERNELS_H
