//===- RaiseAttentionRepeatKV.cpp - K and V repeated over the heads -------===//
//
// DerepeatKeyValue: kiln.attention on K and V repeated along the heads as
// Hugging Face's `repeat_kv` does (unsqueeze at 2, broadcast, reshape) reads
// the unrepeated K and V instead; the op's own grouped-query rule (query
// head h reads kv head h / R) is what repeat_interleave along dim 1 gives.
//
//===----------------------------------------------------------------------===//

#include "RaiseAttentionImpl.h"
#include "kiln/Dialect/Kiln/Transforms/Autodiff.h"

namespace mlir::kiln::raise_attention {

namespace {

/// A K or V repeated along the heads as `repeat_kv` does:
/// reshape(broadcast_to(x5 : [B, Hkv, 1, S, D] -> [B, Hkv, R, S, D]))
/// -> [B, Hkv * R, S, D]. Returns x5 and R.
std::optional<std::pair<Value, int64_t>> matchRepeatedHeads(Value value) {
  auto reshape = value.getDefiningOp<ReshapeOp>();
  if (!reshape)
    return std::nullopt;
  auto broadcast = reshape.getInput().getDefiningOp<BroadcastToOp>();
  if (!broadcast)
    return std::nullopt;
  ArrayRef<int64_t> out = getRankedType(value).getShape();
  ArrayRef<int64_t> repeated = getRankedType(broadcast.getResult()).getShape();
  ArrayRef<int64_t> in = getRankedType(broadcast.getInput()).getShape();
  if (out.size() != 4 || repeated.size() != 5 || in.size() != 5)
    return std::nullopt;
  // Only the size-1 axis 2 is broadcast, and the reshape merges it into
  // the heads: row-major, head g * R + r of the result is kv head g.
  if (in[0] != repeated[0] || in[1] != repeated[1] || in[2] != 1 ||
      in[3] != repeated[3] || in[4] != repeated[4])
    return std::nullopt;
  if (out[0] != repeated[0] || out[1] != repeated[1] * repeated[2] ||
      out[2] != repeated[3] || out[3] != repeated[4])
    return std::nullopt;
  return std::make_pair(broadcast.getInput(), repeated[2]);
}

/// The rank-4 [B, Hkv, S, D] that `x5` ([B, Hkv, 1, S, D]) views: the
/// input of the unsqueeze or reshape that made it, else a new reshape.
Value unrepeated(RewriterBase &rewriter, Location loc, Value x5) {
  ArrayRef<int64_t> shape5 = getRankedType(x5).getShape();
  SmallVector<int64_t> shape4 = {shape5[0], shape5[1], shape5[3], shape5[4]};
  Operation *def = x5.getDefiningOp();
  if (isa_and_present<UnsqueezeOp, ReshapeOp>(def) &&
      getRankedType(def->getOperand(0)).getShape() == ArrayRef(shape4))
    return def->getOperand(0);
  return autodiff::reshapeTo(rewriter, loc, x5, shape4);
}

} // namespace

/// Makes `op` read the unrepeated K and V, in place.
LogicalResult derepeatKeyValue(AttentionOp op, RewriterBase &rewriter) {
  std::optional<std::pair<Value, int64_t>> key =
      matchRepeatedHeads(op.getKey());
  std::optional<std::pair<Value, int64_t>> value =
      matchRepeatedHeads(op.getValue());
  if (!key || !value)
    return rewriter.notifyMatchFailure(op, "K and V are not both repeated");
  if (key->second != value->second)
    return rewriter.notifyMatchFailure(op, "K and V repeat differently");
  Value newKey = unrepeated(rewriter, op.getLoc(), key->first);
  Value newValue = unrepeated(rewriter, op.getLoc(), value->first);
  rewriter.modifyOpInPlace(op, [&] {
    op.getKeyMutable().set(newKey);
    op.getValueMutable().set(newValue);
  });
  return success();
}

} // namespace mlir::kiln::raise_attention
