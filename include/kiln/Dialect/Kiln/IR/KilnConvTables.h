//===- KilnConvTables.h - Tables of pooling and resizing -------*- C++ -*-===//
//
// The per-dim constant tables that define kiln.avg_pool2d's divisors and
// kiln.upsample2d's source indices and weights. They are computed once here
// and shared by the CPU lowering (which reads them in the forward) and the
// backward rules (which scatter the adjoint through them), so both always
// agree with each other and with PyTorch.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNCONVTABLES_H
#define KILN_DIALECT_KILN_IR_KILNCONVTABLES_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace mlir::kiln {

/// The divisor of each of the `out` windows of an average pool along one
/// spatial dim of size `in`, as in PyTorch's avg_pool2d: the window clipped
/// to the padded input, or, with `countIncludePad` false, to the input.
SmallVector<int64_t> getAvgPoolDivisors(int64_t in, int64_t out, int64_t kernel,
                                        int64_t stride, int64_t padding,
                                        bool countIncludePad);

/// The source indices and weights of bilinear interpolation along one dim:
/// output `dst` is `lambda0[dst] * in[index0[dst]] + lambda1[dst] *
/// in[index1[dst]]`.
struct LinearTaps {
  SmallVector<int64_t> index0, index1;
  SmallVector<double> lambda0, lambda1;
};

/// The taps of bilinear resizing from `in` to `out`, computed like PyTorch's
/// compute_source_index_and_lambda in its opmath type: double when `inDouble`
/// (f64 tensors), float otherwise.
LinearTaps getLinearTaps(int64_t in, int64_t out, bool alignCorners,
                         bool inDouble);

/// The input index each output index reads with PyTorch's legacy nearest
/// mode (nearest_idx): the identity for equal sizes, dst / 2 when doubling,
/// and otherwise min(floor(dst * scale), in - 1) in float32 with
/// scale = float(in) / out. The float scale rounds a few indices down from
/// the exact floor(dst * in / out), e.g. in = 26, out = 22, dst = 11 reads 12,
/// not 13.
SmallVector<int64_t> getNearestIndices(int64_t in, int64_t out);

} // namespace mlir::kiln

#endif // KILN_DIALECT_KILN_IR_KILNCONVTABLES_H
