//===- KernelArith.h - scalar IR helpers of the attention kernels -*- C++ -*-===//
//
// Private to the KilnToGPU library: the scalar and index arithmetic that the
// forward and backward attention kernels write, bound to one builder and
// location so that the kernels read like their formulas. Each kernel family
// extends it with its own loop and memory helpers (the forward's are generic
// over its compute type, the backward's work in f32).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CONVERSION_KILNTOGPU_KERNELARITH_H
#define KILN_LIB_CONVERSION_KILNTOGPU_KERNELARITH_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::kiln {

/// Returns the memref type of `shape` x `element` in the GPU address space
/// `space` (identity layout).
inline MemRefType getGPUMemRefType(ArrayRef<int64_t> shape, Type element,
                                   gpu::AddressSpace space) {
  return MemRefType::get(
      shape, element, MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(element.getContext(), space));
}

/// Index and float arithmetic at one insertion point: `add`, `mul`, ... on
/// index (signed compare and min/max, unsigned division: kernel indices are
/// never negative), `addf`, `mulf`, ... on floats, named after the arith ops
/// they create.
struct KernelArith {
  OpBuilder &b;
  Location loc;

  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivUIOp::create(b, loc, x, y); }
  Value rem(Value x, Value y) { return arith::RemUIOp::create(b, loc, x, y); }
  Value min(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value max(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  Value lt(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, y);
  }
  Value andI(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }

  Value addf(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value subf(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mulf(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value divf(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value eqf(Value x, Value y) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, y);
  }
  Value exp(Value x) { return math::ExpOp::create(b, loc, x); }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
};

} // namespace mlir::kiln

#endif // KILN_LIB_CONVERSION_KILNTOGPU_KERNELARITH_H
