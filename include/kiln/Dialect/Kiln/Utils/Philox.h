//===- Philox.h - The counter-based generator of kiln's dropout -*- C++ -*-===//
//
// Philox 4x32-10 (Salmon et al.,
// "Parallel random numbers: as easy as 1, 2, 3", SC'11; the Random123
// library) as IR builders on scalar `arith` ops, and the one mapping from a
// seed and a flat element index to a dropout keep bit. kiln.dropout and the
// dropout of kiln.attention (AttentionUtils.h) both call buildDropoutKeep, so
// every lowering, CPU and GPU, and the adjoints, which redraw the mask, draw
// the same bits.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_UTILS_PHILOX_H
#define KILN_DIALECT_KILN_UTILS_PHILOX_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

#include <array>
#include <cstdint>

namespace mlir::kiln {

/// Builds Philox 4x32-10 on `counter` (four i32 values) with `key` (two i32
/// values) and returns the four i32 output words. All words are read as
/// unsigned.
std::array<Value, 4> buildPhilox4x32(OpBuilder &builder, Location loc,
                                     std::array<Value, 4> counter,
                                     std::array<Value, 2> key);

/// Returns the smallest 32-bit word `w` with `w * 2^-32 >= p`, as a 64-bit
/// integer in [0, 2^32]: an element is kept when its word is at least this.
/// Exact for every double `p` in [0, 1).
int64_t getDropoutKeepThreshold(double p);

/// Builds the keep bit (i1, true = keep) of the element at row-major flat
/// index `flatIndex` (i64) of a dropout keyed by `seed` (i64) with drop
/// probability `p` in [0, 1). This is kiln.dropout's definition: Philox
/// 4x32-10 with key (lo32(seed), hi32(seed)) on counter
/// (lo32(n / 4), hi32(n / 4), 0, 0); its word n % 4, read as
/// u = word * 2^-32, keeps the element when u >= p.
///
/// kiln.attention calls it with n the flat index of (b, h, i, j) in
/// [B, Hq, Sq, Sk], so attention's dropout draws exactly what kiln.dropout
/// draws on the [B, Hq, Sq, Sk] probabilities (the decomposed graph).
Value buildDropoutKeep(OpBuilder &builder, Location loc, Value seed,
                       Value flatIndex, double p);

} // namespace mlir::kiln

#endif // KILN_DIALECT_KILN_UTILS_PHILOX_H
