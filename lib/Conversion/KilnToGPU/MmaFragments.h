//===- MmaFragments.h - m16n8k16 fragments, shared by attention -*- C++ -*-===//
//
// Private to the KilnToGPU library: the register-level builders that the
// tensor-core attention kernels (forward and backward) share. The fragment
// layouts are those of the PTX ISA, "Matrix Fragments for mma.m16n8k16 with
// floating point type". With g = lane / 4 and t = lane % 4:
//
//   A (16x16, row): a{0,1} (g, 2t+{0,1}), a{2,3} (g+8, 2t+{0,1}),
//                   a{4,5} (g, 2t+8+{0,1}), a{6,7} (g+8, 2t+8+{0,1});
//   B (16x8, col):  b{0,1} (k = 2t+{0,1}, n = g), b{2,3} (k = 2t+8+{0,1});
//   C (16x8, f32):  c{0,1} (g, 2t+{0,1}), c{2,3} (g+8, 2t+{0,1}).
//
// Each pair of halves travels in one 32-bit register, the first in the low
// half. The C fragments of two adjacent n-tiles, packed pairwise, are exactly
// an A fragment (FlashAttention-2's register reuse): n-tile 2k gives a{0..3},
// n-tile 2k+1 gives a{4..7}.
//
// See docs/GPUAttention.md ("The tensor-core kernel").
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CONVERSION_KILNTOGPU_MMAFRAGMENTS_H
#define KILN_LIB_CONVERSION_KILNTOGPU_MMAFRAGMENTS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

#include <array>

namespace mlir::kiln {

/// Builds the registers and the mma.sync.m16n8k16 of one element type (f16
/// or bf16, f32 accumulators) at the insertion point of `b`.
///
/// The mma is nvvm.mma.sync rather than nvgpu.mma.sync: MLIR 22's NVGPU to
/// NVVM lowering cannot deduce the PTX types of a bf16 nvgpu.mma.sync, and
/// one op for both types keeps one code path. Its operands are
/// vector<2xf16> (f16) or the same pair bitcast to i32 (bf16).
struct MmaBuilder {
  OpBuilder &b;
  Location loc;
  /// f16 or bf16.
  FloatType elementType;

  /// Packs two floats (of any width; rounded or extended to the element
  /// type) into one register, `lo` in the low half.
  Value pack(Value lo, Value hi) {
    auto pairType = VectorType::get({2}, elementType);
    Value pair = vector::FromElementsOp::create(
        b, loc, pairType, ValueRange{convert(lo), convert(hi)});
    return fromPair(pair);
  }

  /// ldmatrix.m8n8.x`count` of the 16-bit workgroup `tile` (2-D, 16-byte
  /// aligned, rows a multiple of 16 bytes): lane l < 8 count gives the
  /// address of `tile[row, column]`, the start of row l % 8 of matrix l / 8;
  /// every lane gets one register per matrix, (g, 2t) and (g, 2t + 1) of it,
  /// or with `transpose` (2t, g) and (2t + 1, g), i.e. two adjacent rows of
  /// a column (the B pairs of a row-major [k, n] tile). nvgpu.ldmatrix
  /// takes the memref and indices; convert-nvgpu-to-nvvm (in Kiln's and
  /// upstream's GPU pipelines) computes the shared address.
  SmallVector<Value> loadMatrices(Value tile, Value row, Value column,
                                  int64_t count, bool transpose) {
    auto type = VectorType::get({count, 2}, elementType);
    Value loaded =
        nvgpu::LdMatrixOp::create(b, loc, type, tile, ValueRange{row, column},
                                  transpose, uint32_t(count));
    SmallVector<Value> registers;
    for (int64_t i = 0; i < count; ++i)
      registers.push_back(fromPair(
          vector::ExtractOp::create(b, loc, loaded, ArrayRef<int64_t>{i})));
    return registers;
  }

  /// The A fragment of C fragments `lo` (n-tile 2k) and `hi` (n-tile
  /// 2k + 1): the 16x16 A operand of columns 16k..16k+15.
  std::array<Value, 4> aFromAccumulators(ArrayRef<Value> lo,
                                         ArrayRef<Value> hi) {
    return {pack(lo[0], lo[1]), pack(lo[2], lo[3]), pack(hi[0], hi[1]),
            pack(hi[2], hi[3])};
  }

  /// C + A B with four A registers, two B registers and four f32
  /// accumulators; returns the four results.
  SmallVector<Value> mma(ArrayRef<Value> a, ArrayRef<Value> bRegs,
                         ArrayRef<Value> c) {
    Type f32 = b.getF32Type();
    auto resultType =
        LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
    NVVM::MMATypes ptxType =
        elementType.isF16() ? NVVM::MMATypes::f16 : NVVM::MMATypes::bf16;
    auto op = NVVM::MmaOp::create(
        b, loc, resultType, a, bRegs, c, ArrayRef<int64_t>{16, 8, 16},
        /*b1Op=*/std::nullopt, /*intOverflow=*/std::nullopt,
        std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    SmallVector<Value> d;
    for (int64_t e = 0; e < 4; ++e)
      d.push_back(LLVM::ExtractValueOp::create(b, loc, op.getRes(), e));
    return d;
  }

  /// Reduces the f32 `x` over the four lanes of a quad (the lanes that hold
  /// one row of a C fragment) with `combine`.
  Value quadReduce(Value x, function_ref<Value(Value, Value)> combine) {
    for (int32_t offset : {1, 2}) {
      auto shuffle = gpu::ShuffleOp::create(b, loc, x, offset, /*width=*/32,
                                            gpu::ShuffleMode::XOR);
      x = combine(x, shuffle.getShuffleResult());
    }
    return x;
  }

private:
  /// The register of a vector<2 x element type>.
  Value fromPair(Value pair) {
    if (elementType.isF16())
      return pair;
    Value word = vector::BitCastOp::create(
        b, loc, VectorType::get({1}, b.getI32Type()), pair);
    return vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0});
  }

  Value convert(Value x) {
    auto type = cast<FloatType>(x.getType());
    if (type == elementType)
      return x;
    if (type.getWidth() < elementType.getWidth())
      return arith::ExtFOp::create(b, loc, elementType, x);
    return arith::TruncFOp::create(b, loc, elementType, x);
  }
};

} // namespace mlir::kiln

#endif // KILN_LIB_CONVERSION_KILNTOGPU_MMAFRAGMENTS_H
