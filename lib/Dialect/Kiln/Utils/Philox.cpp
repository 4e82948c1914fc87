//===- Philox.cpp - The counter-based generator of kiln's dropout ---------===//

#include "kiln/Dialect/Kiln/Utils/Philox.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>

using namespace mlir;
using namespace mlir::kiln;

// The Philox 4x32 constants of Random123 (philox.h).
static constexpr uint32_t kPhiloxM0 = 0xD2511F53u;
static constexpr uint32_t kPhiloxM1 = 0xCD9E8D57u;
static constexpr uint32_t kPhiloxW0 = 0x9E3779B9u; // golden ratio
static constexpr uint32_t kPhiloxW1 = 0xBB67AE85u; // sqrt(3) - 1
static constexpr int kPhiloxRounds = 10;

static Value constI32(OpBuilder &builder, Location loc, uint32_t value) {
  return arith::ConstantOp::create(
      builder, loc, builder.getI32IntegerAttr(static_cast<int32_t>(value)));
}

static Value constI64(OpBuilder &builder, Location loc, int64_t value) {
  return arith::ConstantOp::create(builder, loc,
                                   builder.getI64IntegerAttr(value));
}

/// The high and low 32 bits of the 64-bit product of two unsigned i32s.
static std::pair<Value, Value> mulHiLo(OpBuilder &builder, Location loc,
                                       uint32_t multiplier, Value x) {
  Type i64 = builder.getI64Type();
  Type i32 = builder.getI32Type();
  Value wide = arith::ExtUIOp::create(builder, loc, i64, x);
  Value product = arith::MulIOp::create(
      builder, loc, wide, constI64(builder, loc, int64_t(multiplier)));
  Value hi = arith::TruncIOp::create(
      builder, loc, i32,
      arith::ShRUIOp::create(builder, loc, product, constI64(builder, loc, 32)));
  Value lo = arith::TruncIOp::create(builder, loc, i32, product);
  return {hi, lo};
}

std::array<Value, 4> mlir::kiln::buildPhilox4x32(OpBuilder &builder,
                                                 Location loc,
                                                 std::array<Value, 4> counter,
                                                 std::array<Value, 2> key) {
  std::array<Value, 4> c = counter;
  Value k0 = key[0], k1 = key[1];
  for (int round = 0; round < kPhiloxRounds; ++round) {
    if (round > 0) {
      // Bump the key (Weyl sequence) between rounds; i32 adds wrap.
      k0 = arith::AddIOp::create(builder, loc, k0,
                                 constI32(builder, loc, kPhiloxW0));
      k1 = arith::AddIOp::create(builder, loc, k1,
                                 constI32(builder, loc, kPhiloxW1));
    }
    auto [hi0, lo0] = mulHiLo(builder, loc, kPhiloxM0, c[0]);
    auto [hi1, lo1] = mulHiLo(builder, loc, kPhiloxM1, c[2]);
    Value x0 = arith::XOrIOp::create(
        builder, loc, arith::XOrIOp::create(builder, loc, hi1, c[1]), k0);
    Value x2 = arith::XOrIOp::create(
        builder, loc, arith::XOrIOp::create(builder, loc, hi0, c[3]), k1);
    c = {x0, lo1, x2, lo0};
  }
  return c;
}

int64_t mlir::kiln::getDropoutKeepThreshold(double p) {
  // p * 2^32 is exact in double (a power-of-two scaling), and so is its
  // ceiling: w * 2^-32 >= p  <=>  w >= p * 2^32  <=>  w >= ceil(p * 2^32).
  if (!(p > 0.0))
    return 0;
  double scaled = std::ceil(std::ldexp(p, 32));
  if (scaled >= std::ldexp(1.0, 32))
    return int64_t(1) << 32;
  return static_cast<int64_t>(scaled);
}

Value mlir::kiln::buildDropoutKeep(OpBuilder &builder, Location loc,
                                   Value seed, Value flatIndex, double p) {
  Type i32 = builder.getI32Type();
  Type i64 = builder.getI64Type();
  auto lo32 = [&](Value v) { return arith::TruncIOp::create(builder, loc, i32, v); };
  auto hi32 = [&](Value v) {
    return arith::TruncIOp::create(
        builder, loc, i32,
        arith::ShRUIOp::create(builder, loc, v, constI64(builder, loc, 32)));
  };
  // n >= 0, so the unsigned and signed divisions agree.
  Value block =
      arith::ShRUIOp::create(builder, loc, flatIndex, constI64(builder, loc, 2));
  Value lane = arith::AndIOp::create(builder, loc, flatIndex,
                                     constI64(builder, loc, 3));
  Value zero = constI32(builder, loc, 0);
  std::array<Value, 4> words =
      buildPhilox4x32(builder, loc, {lo32(block), hi32(block), zero, zero},
                      {lo32(seed), hi32(seed)});
  // word[lane], by a chain of selects.
  Value word = words[3];
  for (int w = 2; w >= 0; --w) {
    Value isLane = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                         lane, constI64(builder, loc, w));
    word = arith::SelectOp::create(builder, loc, isLane, words[w], word);
  }
  Value wide = arith::ExtUIOp::create(builder, loc, i64, word);
  return arith::CmpIOp::create(
      builder, loc, arith::CmpIPredicate::sge, wide,
      constI64(builder, loc, getDropoutKeepThreshold(p)));
}
