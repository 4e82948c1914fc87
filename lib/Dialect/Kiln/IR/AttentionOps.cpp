//===- AttentionOps.cpp - Attention kiln ops ------------------------------===//
//
// Verifier, result-type inference, folding and canonicalization of
// kiln.attention and kiln.attention_grad, and the derived accessors of
// AttentionOpInterface (KilnAttentionInterface.td).
// The rules implement the "Verifier" section of docs/Attention.md;
// docs/Attention.md lists which check rejects what.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <cmath>

using namespace mlir;
using namespace mlir::kiln;

//===----------------------------------------------------------------------===//
// kiln.attention_grad's optional result types
//===----------------------------------------------------------------------===//

/// `-> dq, dk, dv [, dmask] [, dsinks]`: the optional adjoints follow the
/// three required ones as plain types. Up to two are parsed; one alone is
/// d_sinks only when the op has sinks and no additive mask could own it
/// (its mask, if any, is boolean), so that the verifier, not the parser,
/// reports an adjoint that does not match the operands.
static ParseResult parseAttentionGradOptionalResultTypes(OpAsmParser &parser,
                                                         Type &dmaskType,
                                                         Type &dsinksType,
                                                         Type maskType,
                                                         Type sinksType) {
  SmallVector<Type, 2> types;
  while (types.size() < 2 && succeeded(parser.parseOptionalComma())) {
    Type type;
    if (parser.parseType(type))
      return failure();
    types.push_back(type);
  }
  bool additiveMask =
      maskType && !getElementTypeOrSelf(maskType).isInteger(1);
  if (types.size() == 2) {
    dmaskType = types[0];
    dsinksType = types[1];
  } else if (types.size() == 1) {
    (sinksType && !additiveMask ? dsinksType : dmaskType) = types[0];
  }
  return success();
}

static void printAttentionGradOptionalResultTypes(OpAsmPrinter &printer,
                                                  Operation *, Type dmaskType,
                                                  Type dsinksType, Type, Type) {
  for (Type type : {dmaskType, dsinksType})
    if (type)
      printer << ", " << type;
}

#define GET_OP_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnAttentionOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The layout names of the rank-4 operands, for diagnostics.
static constexpr StringLiteral kQueryLayout = "[B, Hq, Sq, Dk]";
static constexpr StringLiteral kKeyLayout = "[B, Hkv, Sk, Dk]";
static constexpr StringLiteral kValueLayout = "[B, Hkv, Sk, Dv]";

/// Returns `type` as a ranked tensor of rank 4, or emits
/// "<name> must have rank 4 <layout>, got rank N" through `emitError`.
static FailureOr<RankedTensorType>
getRank4Type(function_ref<OptionalDiagnostic()> emitError, Type type,
             StringRef name, StringRef layout) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (!tensorType) {
    emitError() << name << " must be a ranked tensor " << layout << ", got "
                << type;
    return failure();
  }
  if (tensorType.getRank() != 4) {
    emitError() << name << " must have rank 4 " << layout << ", got rank "
                << tensorType.getRank();
    return failure();
  }
  return tensorType;
}

/// Formats a float attribute value for diagnostics: `0.1`, `-30`, `inf`,
/// `nan`.
static std::string formatDouble(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format("%g", value);
  return text;
}

/// Returns the result type [B, Hq, Sq, Dv] of attention over rank-4 `query`
/// and `value` types.
static RankedTensorType getResultType(RankedTensorType queryType,
                                      RankedTensorType valueType) {
  ArrayRef<int64_t> q = queryType.getShape();
  return RankedTensorType::get({q[0], q[1], q[2], valueType.getDimSize(3)},
                               queryType.getElementType());
}

/// Returns true when `lengths` is a constant whose every entry satisfies
/// `predicate` (vacuously true for B = 0).
static bool allLengths(Attribute lengths,
                       function_ref<bool(int64_t)> predicate) {
  auto elements = dyn_cast_if_present<DenseIntElementsAttr>(lengths);
  if (!elements)
    return false;
  return llvm::all_of(elements.getValues<APInt>(), [&](const APInt &length) {
    return predicate(length.getSExtValue());
  });
}

/// Returns true when `mask` is a splat constant that blocks every key: false
/// for a boolean mask, -inf for an additive one.
static bool isBlockingMask(Attribute mask) {
  auto splat = dyn_cast_if_present<SplatElementsAttr>(mask);
  if (!splat)
    return false;
  if (splat.getElementType().isInteger(1))
    return !splat.getSplatValue<bool>();
  if (isa<FloatType>(splat.getElementType())) {
    APFloat value = splat.getSplatValue<APFloat>();
    return value.isInfinity() && value.isNegative();
  }
  return false;
}

/// Returns true when `mask` is a splat constant that changes nothing: true
/// for a boolean mask, zero (of either sign) for an additive one or for ALiBi
/// slopes.
static bool isNeutralMask(Attribute mask) {
  auto splat = dyn_cast_if_present<SplatElementsAttr>(mask);
  if (!splat)
    return false;
  if (splat.getElementType().isInteger(1))
    return splat.getSplatValue<bool>();
  if (isa<FloatType>(splat.getElementType()))
    return splat.getSplatValue<APFloat>().isZero();
  return false;
}

/// Checks that `lengths` (key_lengths or query_lengths) is a rank-1 tensor of
/// `batch` entries; its element type is checked by the ODS constraint.
static LogicalResult verifyLengths(Operation *op, Value lengths, StringRef name,
                                   int64_t batch) {
  if (!lengths)
    return success();
  auto type = cast<RankedTensorType>(lengths.getType());
  if (type.getRank() != 1)
    return op->emitOpError() << "'" << name << "' must have rank 1 ([B]), got "
                             << "rank " << type.getRank();
  if (type.getDimSize(0) != batch)
    return op->emitOpError() << "'" << name << "' has " << type.getDimSize(0)
                             << " entries, but the batch size B is " << batch;
  return success();
}

/// Checks packed-sequence offsets: `cu_seqlens_q` and `cu_seqlens_k` come
/// together, each rank 1 with N + 1 >= 1 entries for the same N. Their
/// values are not checked: every array has a meaning (docs/Attention.md,
/// "Packed sequences"), and a verifier does not read other ops' constants.
template <typename OpT>
static LogicalResult verifyPackedSequences(OpT op) {
  Value queryOffsets = op.getCuSeqlensQ(), keyOffsets = op.getCuSeqlensK();
  if (!queryOffsets && !keyOffsets)
    return success();
  if (!queryOffsets || !keyOffsets)
    return op.emitOpError()
           << "'cu_seqlens_q' and 'cu_seqlens_k' must be given together";
  int64_t numEntries = -1;
  for (auto [offsets, name] :
       {std::make_pair(queryOffsets, StringRef("cu_seqlens_q")),
        std::make_pair(keyOffsets, StringRef("cu_seqlens_k"))}) {
    auto type = cast<RankedTensorType>(offsets.getType());
    if (type.getRank() != 1 || type.getDimSize(0) < 1)
      return op.emitOpError()
             << "'" << name << "' must have rank 1 with N + 1 >= 1 entries "
             << "([N + 1]), got shape " << formatShape(type.getShape());
    if (numEntries >= 0 && type.getDimSize(0) != numEntries)
      return op.emitOpError()
             << "'cu_seqlens_q' has " << numEntries
             << " entries and 'cu_seqlens_k' " << type.getDimSize(0)
             << ": both are N + 1 for the same N sequences";
    numEntries = type.getDimSize(0);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

void AttentionOp::build(OpBuilder &builder, OperationState &state, Value query,
                        Value key, Value value) {
  build(builder, state, query, key, value, /*mask=*/nullptr,
        /*key_lengths=*/nullptr, /*query_lengths=*/nullptr, /*seed=*/nullptr,
        /*alibi_slopes=*/nullptr, /*sinks=*/nullptr, /*cu_seqlens_q=*/nullptr,
        /*cu_seqlens_k=*/nullptr, /*scale=*/nullptr, /*causal=*/nullptr,
        /*window_left=*/nullptr, /*window_right=*/nullptr,
        /*alignment=*/nullptr, /*softcap=*/nullptr, /*dropout_p=*/nullptr);
}

LogicalResult
AttentionOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                              ValueRange operands, DictionaryAttr attributes,
                              OpaqueProperties properties, RegionRange regions,
                              SmallVectorImpl<Type> &inferredReturnTypes) {
  // Without a location there is nowhere to report: the errors are dropped.
  auto emitError = optionalErrorAt(loc);
  // query, key and value lead the operand list whatever optional operands
  // follow, so this does not depend on the (not yet verified) segment sizes.
  if (operands.size() < 3) {
    emitError() << "expected query, key and value operands, got "
                << operands.size() << " operands";
    return failure();
  }
  // Only what the result type needs is checked here. On the verifier path
  // this runs after verify() (InferTypeOpInterface verifies with the
  // regions), which has already checked everything; it can still be reached
  // first from a builder, so it must not assume anything.
  FailureOr<RankedTensorType> queryType =
      getRank4Type(emitError, operands[0].getType(), "query", kQueryLayout);
  if (failed(queryType))
    return failure();
  FailureOr<RankedTensorType> valueType =
      getRank4Type(emitError, operands[2].getType(), "value", kValueLayout);
  if (failed(valueType))
    return failure();
  inferredReturnTypes.push_back(getResultType(*queryType, *valueType));
  return success();
}

bool AttentionOp::isCompatibleReturnTypes(TypeRange inferred,
                                          TypeRange actual) {
  // Inference gives the one-result form; the optional lse result follows it
  // and is checked by verify(), which runs first.
  return actual.size() >= inferred.size() &&
         actual.size() <= inferred.size() + 1 &&
         actual.take_front(inferred.size()) == inferred;
}

RankedTensorType AttentionOp::getLseType(RankedTensorType queryType) {
  ArrayRef<int64_t> q = queryType.getShape();
  // Half types compute in f32; their row statistics stay in f32, as
  // FlashAttention keeps its softmax_lse.
  return RankedTensorType::get(q.take_front(3),
                               getComputeType(queryType.getElementType()));
}

AttentionOp AttentionOp::cloneWithLse(OpBuilder &builder, bool withLse) {
  SmallVector<Type> resultTypes = {getResult().getType()};
  if (withLse)
    resultTypes.push_back(
        getLseType(cast<RankedTensorType>(getQuery().getType())));
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(*this);
  return AttentionOp::create(builder, getLoc(), resultTypes, getOperands(),
                             (*this)->getAttrs());
}

/// The shared checks of kiln.attention and kiln.attention_grad, phase 1:
/// the first `numRequired` operand groups hold one operand each, and query,
/// key and value are rank-4 tensors of one element type whose shapes agree.
/// Returns their types.
template <typename OpT>
static FailureOr<std::array<RankedTensorType, 3>>
verifyAttentionOperandShapes(OpT op, unsigned numRequired) {
  // The ODS verifier checks that each optional operand group has 0 or 1
  // operands, but not that the required query, key and value groups have
  // exactly one; without this the accessors below would read out of range.
  for (unsigned group = 0; group < numRequired; ++group) {
    if (op.getODSOperandIndexAndLength(group).second != 1)
      return op.emitOpError() << "'operandSegmentSizes' must give query, key "
                                 "and value one operand each";
  }
  // This runs before InferTypeOpInterface's check of the result type, so it
  // checks the ranks itself.
  auto emitError = [&]() { return op.emitOpError(); };
  FailureOr<RankedTensorType> queryType =
      getRank4Type(emitError, op.getQuery().getType(), "query", kQueryLayout);
  if (failed(queryType))
    return failure();
  FailureOr<RankedTensorType> keyType =
      getRank4Type(emitError, op.getKey().getType(), "key", kKeyLayout);
  if (failed(keyType))
    return failure();
  FailureOr<RankedTensorType> valueType =
      getRank4Type(emitError, op.getValue().getType(), "value", kValueLayout);
  if (failed(valueType))
    return failure();

  // Element types: one floating-point type for query, key and value (the
  // ODS constraint already rejects non-float elements).
  Type elementType = queryType->getElementType();
  if (keyType->getElementType() != elementType)
    return op.emitOpError()
           << "key element type " << keyType->getElementType()
           << " does not match query element type " << elementType;
  if (valueType->getElementType() != elementType)
    return op.emitOpError()
           << "value element type " << valueType->getElementType()
           << " does not match query element type " << elementType;

  // Shapes: [B, Hq, Sq, Dk], [B, Hkv, Sk, Dk], [B, Hkv, Sk, Dv].
  ArrayRef<int64_t> q = queryType->getShape();
  ArrayRef<int64_t> k = keyType->getShape();
  ArrayRef<int64_t> v = valueType->getShape();
  if (k[0] != q[0])
    return op.emitOpError() << "key batch size " << k[0]
                            << " does not match query batch size " << q[0];
  if (v[0] != q[0])
    return op.emitOpError() << "value batch size " << v[0]
                            << " does not match query batch size " << q[0];
  if (v[1] != k[1])
    return op.emitOpError() << "value has " << v[1] << " heads, but key has "
                            << k[1] << " (both are Hkv)";
  if (v[2] != k[2])
    return op.emitOpError() << "value sequence length " << v[2]
                            << " does not match key sequence length " << k[2]
                            << " (both are Sk)";
  if (k[3] != q[3])
    return op.emitOpError()
           << "key head dim " << k[3] << " does not match query head dim "
           << q[3] << " (both are Dk)";

  return std::array<RankedTensorType, 3>{*queryType, *keyType, *valueType};
}

/// Phase 2: the grouped-query heads and the optional operands (mask, ALiBi
/// slopes, lengths) against the sizes of query [B, Hq, Sq, Dk] and key
/// [B, Hkv, Sk, Dk].
template <typename OpT>
static LogicalResult verifyAttentionOptionalOperands(OpT op,
                                                     RankedTensorType queryType,
                                                     RankedTensorType keyType) {
  ArrayRef<int64_t> q = queryType.getShape();
  ArrayRef<int64_t> k = keyType.getShape();
  Type elementType = queryType.getElementType();
  // Grouped-query heads: Hq = R * Hkv with R >= 1. Hq = Hkv = 0 is the one
  // degenerate case left (empty output, R taken as 1). Hkv = 0 is checked
  // first so that the modulo below never divides by zero.
  int64_t numQueryHeads = q[1], numKVHeads = k[1];
  if (numKVHeads == 0 && numQueryHeads != 0)
    return op.emitOpError()
           << "key and value have 0 heads, but query has " << numQueryHeads
           << "; each query head needs a kv head";
  if (numKVHeads != 0 &&
      (numQueryHeads == 0 || numQueryHeads % numKVHeads != 0))
    return op.emitOpError()
           << "query heads Hq = " << numQueryHeads
           << " must be a positive multiple of kv heads Hkv = " << numKVHeads;

  // Mask: i1 or the query's float type, rank <= 4, broadcastable to
  // [B, Hq, Sq, Sk].
  if (Value mask = op.getMask()) {
    auto maskType = cast<RankedTensorType>(mask.getType());
    if (maskType.getRank() > 4)
      return op.emitOpError()
             << "mask must have rank <= 4, got rank " << maskType.getRank();
    Type maskElementType = maskType.getElementType();
    if (!maskElementType.isInteger(1) && maskElementType != elementType)
      return op.emitOpError()
             << "mask element type " << maskElementType
             << " must be i1 or the query element type " << elementType;
    SmallVector<int64_t> scoresShape = {q[0], q[1], q[2], k[2]};
    if (!isBroadcastableTo(maskType.getShape(), scoresShape))
      return op.emitOpError()
             << "mask shape " << formatShape(maskType.getShape())
             << " is not broadcastable to [B, Hq, Sq, Sk] = "
             << formatShape(scoresShape);
  }

  // ALiBi slopes: f32 or the query's float type, rank 1 or 2, broadcastable
  // to [B, Hq].
  if (Value slopes = op.getAlibiSlopes()) {
    auto slopesType = cast<RankedTensorType>(slopes.getType());
    if (slopesType.getRank() < 1 || slopesType.getRank() > 2)
      return op.emitOpError()
             << "'alibi_slopes' must have rank 1 ([Hq]) or 2 ([B, Hq]), got "
                "rank "
             << slopesType.getRank();
    Type slopesElementType = slopesType.getElementType();
    if (!slopesElementType.isF32() && slopesElementType != elementType)
      return op.emitOpError()
             << "'alibi_slopes' element type " << slopesElementType
             << " must be f32 or the query element type " << elementType;
    SmallVector<int64_t> headsShape = {q[0], q[1]};
    if (!isBroadcastableTo(slopesType.getShape(), headsShape))
      return op.emitOpError()
             << "'alibi_slopes' shape " << formatShape(slopesType.getShape())
             << " is not broadcastable to [B, Hq] = "
             << formatShape(headsShape);
  }

  // Sinks: [Hq] of f32 or the query's float type.
  if (Value sinks = op.getSinks()) {
    auto sinksType = cast<RankedTensorType>(sinks.getType());
    if (sinksType.getRank() != 1 || sinksType.getDimSize(0) != q[1])
      return op.emitOpError()
             << "'sinks' shape " << formatShape(sinksType.getShape())
             << " must be [Hq] = " << formatShape(q.slice(1, 1));
    Type sinksElementType = sinksType.getElementType();
    if (!sinksElementType.isF32() && sinksElementType != elementType)
      return op.emitOpError()
             << "'sinks' element type " << sinksElementType
             << " must be f32 or the query element type " << elementType;
  }

  // Lengths: [B] of i32 or i64.
  if (failed(verifyLengths(op, op.getKeyLengths(), "key_lengths", q[0])) ||
      failed(verifyLengths(op, op.getQueryLengths(), "query_lengths", q[0])))
    return failure();

  // Packed sequences: [N + 1] offsets.
  if (failed(verifyPackedSequences(op)))
    return failure();

  return success();
}

/// Phase 3: the attributes (band, scale, softcap, dropout).
template <typename OpT>
static LogicalResult verifyAttentionAttributes(OpT op) {
  // The band. Read through the attributes: the integer accessors are
  // unsigned.
  if (IntegerAttr left = op.getWindowLeftAttr(); left && left.getInt() < 0)
    return op.emitOpError()
           << "'window_left' must be non-negative, got " << left.getInt();
  if (IntegerAttr right = op.getWindowRightAttr()) {
    if (right.getInt() < 0)
      return op.emitOpError()
             << "'window_right' must be non-negative, got " << right.getInt();
    if (op.getCausal() && right.getInt() > 0)
      return op.emitOpError() << "'causal' means window_right = 0, but "
                                 "'window_right' is "
                              << right.getInt();
  }

  // Scores: scale and softcap.
  if (FloatAttr scale = op.getScaleAttr()) {
    double value = scale.getValueAsDouble();
    if (!std::isfinite(value))
      return op.emitOpError()
             << "'scale' must be finite, got " << formatDouble(value);
    if (value == 0.0)
      return op.emitOpError() << "'scale' must be non-zero";
  }
  if (FloatAttr softcap = op.getSoftcapAttr()) {
    double value = softcap.getValueAsDouble();
    // Written so that NaN fails too.
    if (!(value > 0.0) || std::isinf(value))
      return op.emitOpError() << "'softcap' must be positive and finite, got "
                              << formatDouble(value);
  }

  // Dropout.
  double dropout = op.getDropoutPAttr().getValueAsDouble();
  // Written so that NaN fails too.
  if (!(dropout >= 0.0 && dropout < 1.0))
    return op.emitOpError()
           << "'dropout_p' must be in [0, 1), got " << formatDouble(dropout);
  if (dropout > 0.0 && !op.getSeed())
    return op.emitOpError() << "'dropout_p' = " << formatDouble(dropout)
                            << " needs a seed operand";
  return success();
}

/// The checks kiln.attention and kiln.attention_grad share, in this order:
/// operand shapes, the op's own result types (`checkResults`), the optional
/// operands, the attributes. The first `numRequired` operand groups are
/// query, key and value (and dout).
template <typename OpT>
static LogicalResult verifyAttentionLike(
    OpT op, unsigned numRequired,
    function_ref<LogicalResult(RankedTensorType, RankedTensorType,
                               RankedTensorType)>
        checkResults) {
  FailureOr<std::array<RankedTensorType, 3>> types =
      verifyAttentionOperandShapes(op, numRequired);
  if (failed(types))
    return failure();
  auto [queryType, keyType, valueType] = *types;
  if (failed(checkResults(queryType, keyType, valueType)) ||
      failed(verifyAttentionOptionalOperands(op, queryType, keyType)))
    return failure();
  return verifyAttentionAttributes(op);
}

LogicalResult AttentionOp::verify() {
  return verifyAttentionLike(
      *this, 3,
      [&](RankedTensorType queryType, RankedTensorType,
          RankedTensorType valueType) -> LogicalResult {
        AttentionOp op = *this;
        // The result: [B, Hq, Sq, Dv] in the query's element type. The type
        // inference check would catch a mismatch too, but only after this
        // verifier, and with a message that does not say the rule.
        RankedTensorType resultType = getResultType(queryType, valueType);
        if (op.getResult().getType() != resultType)
          return op.emitOpError()
                 << "result type " << op.getResult().getType() << " must be "
                 << resultType << ": [B, Hq, Sq, Dv] in the query element type";
        if (Value lse = op.getLse()) {
          RankedTensorType lseType = getLseType(queryType);
          if (lse.getType() != lseType)
            return op.emitOpError()
                   << "lse type " << lse.getType() << " must be " << lseType
                   << ": [B, Hq, Sq] in f32 for f16 and bf16 queries, else in "
                      "the query element type";
        }
        return success();
      });
}

//===----------------------------------------------------------------------===//
// AttentionOpInterface
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnAttentionInterface.cpp.inc"

double mlir::kiln::detail::getEffectiveAttentionScale(FloatAttr scale,
                                                      Type queryType) {
  if (scale)
    return scale.getValueAsDouble();
  int64_t headDim = cast<ShapedType>(queryType).getDimSize(3);
  if (headDim <= 0)
    return 1.0;
  return 1.0 / std::sqrt(static_cast<double>(headDim));
}

//===----------------------------------------------------------------------===//
// Folding and canonicalization
//===----------------------------------------------------------------------===//

LogicalResult AttentionOp::fold(FoldAdaptor adaptor,
                                SmallVectorImpl<OpFoldResult> &results) {
  // Every row is empty, so the result is exactly zero (the contract's rule
  // for empty rows, whatever Q, K and V hold): no keys at all, a mask that
  // blocks every key, lengths that leave no key or no query, or no packed
  // sequence at all (N = 0).
  auto keyType = cast<RankedTensorType>(getKey().getType());
  auto resultType = cast<RankedTensorType>(getResult().getType());
  int64_t numKeys = keyType.getDimSize(2);
  if (!(numKeys == 0 || isBlockingMask(adaptor.getMask()) ||
        allLengths(adaptor.getKeyLengths(),
                   [](int64_t length) { return length <= 0; }) ||
        allLengths(adaptor.getQueryLengths(),
                   [](int64_t length) { return length <= 0; }) ||
        (hasPackedSequences() && getNumPackedSequences() == 0)))
    return failure();
  // With sinks the lse of an empty row is the sink, not a constant.
  if (getLse() && getSinks())
    return failure();
  results.push_back(Builder(getContext()).getZeroAttr(resultType));
  if (Value lse = getLse()) {
    auto lseType = cast<RankedTensorType>(lse.getType());
    auto elementType = cast<FloatType>(lseType.getElementType());
    results.push_back(DenseElementsAttr::get(
        lseType, APFloat::getInf(elementType.getFloatSemantics())));
  }
  return success();
}

namespace {

/// Drops the seed when there is no dropout: nothing reads it.
struct DropUnusedSeed : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getSeed() || !op.getDropoutP().isZero())
      return rewriter.notifyMatchFailure(op, "no unused seed");
    rewriter.modifyOpInPlace(op, [&] { op.getSeedMutable().clear(); });
    return success();
  }
};

/// Drops `window_right = 0` next to `causal`, which already means it.
struct DropRedundantWindowRight : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    IntegerAttr right = op.getWindowRightAttr();
    if (!op.getCausal() || !right || right.getInt() != 0)
      return rewriter.notifyMatchFailure(op, "no redundant window_right");
    rewriter.modifyOpInPlace(op, [&] { op.removeWindowRightAttr(); });
    return success();
  }
};

/// Drops a constant mask that lets every key through unchanged (all true,
/// or all zero bias).
struct DropNeutralMask : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    Attribute mask;
    if (!op.getMask() || !matchPattern(op.getMask(), m_Constant(&mask)) ||
        !isNeutralMask(mask))
      return rewriter.notifyMatchFailure(op, "no neutral constant mask");
    rewriter.modifyOpInPlace(op, [&] { op.getMaskMutable().clear(); });
    return success();
  }
};

/// Drops constant ALiBi slopes that are all zero: the bias -0 * |j - p(i)|
/// changes no logit.
struct DropZeroAlibiSlopes : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    Attribute slopes;
    if (!op.getAlibiSlopes() ||
        !matchPattern(op.getAlibiSlopes(), m_Constant(&slopes)) ||
        !isNeutralMask(slopes))
      return rewriter.notifyMatchFailure(op, "no zero constant slopes");
    rewriter.modifyOpInPlace(op, [&] { op.getAlibiSlopesMutable().clear(); });
    return success();
  }
};

/// Drops constant key (query) lengths that are all >= Sk (Sq): clamped to
/// the sequence length, they hide nothing.
struct DropFullLengths : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    int64_t numKeys =
        cast<RankedTensorType>(op.getKey().getType()).getDimSize(2);
    int64_t numQueries =
        cast<RankedTensorType>(op.getQuery().getType()).getDimSize(2);
    auto isFull = [](Value lengths, int64_t size) {
      Attribute constant;
      return lengths && matchPattern(lengths, m_Constant(&constant)) &&
             allLengths(constant,
                        [&](int64_t length) { return length >= size; });
    };
    bool dropKeyLengths = isFull(op.getKeyLengths(), numKeys);
    bool dropQueryLengths = isFull(op.getQueryLengths(), numQueries);
    if (!dropKeyLengths && !dropQueryLengths)
      return rewriter.notifyMatchFailure(op, "no lengths to drop");
    rewriter.modifyOpInPlace(op, [&] {
      if (dropKeyLengths)
        op.getKeyLengthsMutable().clear();
      if (dropQueryLengths)
        op.getQueryLengthsMutable().clear();
    });
    return success();
  }
};

/// Drops an `lse` result that nothing reads.
struct DropUnusedLse : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getLse() || !op.getLse().use_empty())
      return rewriter.notifyMatchFailure(op, "no unused lse result");
    AttentionOp replacement = op.cloneWithLse(rewriter, /*withLse=*/false);
    rewriter.replaceOp(op, {replacement.getResult(), Value()});
    return success();
  }
};

} // namespace

void AttentionOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<DropUnusedSeed, DropRedundantWindowRight, DropNeutralMask,
              DropZeroAlibiSlopes, DropFullLengths, DropUnusedLse>(context);
}

//===----------------------------------------------------------------------===//
// AttentionGradOp
//===----------------------------------------------------------------------===//

LogicalResult AttentionGradOp::verify() {
  return verifyAttentionLike(
      *this, 4,
      [&](RankedTensorType queryType, RankedTensorType keyType,
          RankedTensorType valueType) -> LogicalResult {
        RankedTensorType outType = getResultType(queryType, valueType);
        if (getDout().getType() != outType)
          return emitOpError()
                 << "dout type " << getDout().getType() << " must be "
                 << outType << ": the attention's result type [B, Hq, Sq, Dv]";
        if (getDquery().getType() != queryType)
          return emitOpError() << "dquery type " << getDquery().getType()
                               << " must be the query type " << queryType;
        if (getDkey().getType() != keyType)
          return emitOpError() << "dkey type " << getDkey().getType()
                               << " must be the key type " << keyType;
        if (getDvalue().getType() != valueType)
          return emitOpError() << "dvalue type " << getDvalue().getType()
                               << " must be the value type " << valueType;
        if (hasAdditiveMask() != static_cast<bool>(getDmask()))
          return emitOpError()
                 << "has a 'dmask' result if and only if the mask is "
                    "additive (a float mask)";
        if (Value dmask = getDmask();
            dmask && dmask.getType() != getMask().getType())
          return emitOpError()
                 << "dmask type " << dmask.getType()
                 << " must be the mask type " << getMask().getType();
        if (static_cast<bool>(getSinks()) != static_cast<bool>(getDsinks()))
          return emitOpError()
                 << "has a 'dsinks' result if and only if it has 'sinks'";
        if (Value dsinks = getDsinks();
            dsinks && dsinks.getType() != getSinks().getType())
          return emitOpError()
                 << "dsinks type " << dsinks.getType()
                 << " must be the sinks type " << getSinks().getType();
        // The forward's O and LSE, both or neither.
        if (static_cast<bool>(getOut()) != static_cast<bool>(getLse()))
          return emitOpError() << "'out' and 'lse' must be given together "
                                  "(the forward's O and LSE), got only '"
                               << (getOut() ? "out" : "lse") << "'";
        if (Value out = getOut(); out && out.getType() != outType)
          return emitOpError()
                 << "out type " << out.getType() << " must be " << outType
                 << ": the attention's result type [B, Hq, Sq, Dv]";
        if (Value lse = getLse()) {
          RankedTensorType lseType = AttentionOp::getLseType(queryType);
          if (lse.getType() != lseType)
            return emitOpError()
                   << "lse type " << lse.getType() << " must be " << lseType
                   << ": [B, Hq, Sq] in f32 for f16 and bf16 queries, else in "
                      "the query element type";
        }
        return success();
      });
}
