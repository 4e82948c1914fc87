//===- GPUEmulationTest.cpp - The GPU kernels against the CPU backend -----===//
//
// Compiles the same kiln functions twice, for the CPU (JitTarget::CPU, whose
// numerics the PyTorch fixtures check) and for the GPU pipeline with its
// kernels run by Kiln's GPU emulator (JitTarget::GPUEmulator: the same NVVM
// kernels the H200 runs, compiled for the host), and compares the results:
// kiln.attention and kiln.attention_grad in every mask form of the contract
// (attention sinks too), f32/f16/bf16 with and without the tensor-core
// kernel (and f64), a few generic-path ops, and the transformer block's loss
// and gradients.
//
// Tolerances (u = the unit roundoff of the precision the kernels compute in:
// 2^-24 for f32, 2^-53 for f64; uh that of the result type: 2^-11 f16,
// 2^-8 bf16). Both backends evaluate the same sums in different orders (the
// CPU softmax over the whole row, the GPU's online softmax over 64-key tiles
// with rescaling; tiles of threads, atomics for dQ, or with the
// deterministic backward one thread's sum over a row's keys), so a result
// that is a sum of n terms may differ by up to about 2 n u sum|terms| (the
// forward error bound of recursive summation, once per backend); the
// softmax adds a few u of the exp and of the rescaling per tile. The bound
// used is
//   tol = (2 n + 32) u scale,
// where n is the reduction length of the result (Sk for O and dQ, Sq times
// the group size for dK and dV) and `scale` bounds sum|terms| per element:
// max|V| for O (the p's sum to 1), and for the gradients (sums of products
// of order-1 factors, sigma |dS| <= 2 max|dO| max|V| ...) the max of the two
// results' magnitudes over the tensor times a factor 4.
// Half types compute in f32 and round once: the two results may round the
// same f32 value (up to the f32 bound) to neighbouring half values, so they
// differ by at most one ulp of the result, i.e. 2 uh |ref|, plus the f32
// bound. The tensor-core forward also rounds P to the half type before P V
// (FlashAttention-2's register reuse, docs/GPUAttention.md), which changes
// O by up to uh sum p |v| <= uh max|V|; that term is added for it.
// The tensor-core backward (AttentionBackwardMma.cpp) rounds P' to the half
// type before dV += P'^T dO, and dS before dK += dS^T Q and dQ += dS K. With
// |dS_ij| = scale cap' P_ij |Z'_ij dP0_ij - D_i| <= scale P_ij 2 M / (1 - p),
// where M = max |dO_i . V_j| (computed from the inputs, over the pairs of a
// batch and kv group), cap' <= 1, Z' <= 1 / (1 - p) and |D_i| <= M / (1 - p)
// (a row of P sums to 1 or 0), and C = max_j sum_i P_ij over the group's
// rows (the CPU's dV with dO = 1 and without dropout, rounded up), the
// rounding changes
//   dV by <= uh max|dO| C / (1 - p),
//   dK by <= uh max|Q| scale 2 M / (1 - p) C,
//   dQ by <= uh max|K| scale 2 M / (1 - p)
// (plus, for f16, n 2^-25 times the same maxima for the values rounded into
// the subnormal range, n the length of the sum). Those terms are added.
// The paired backward (GPUEmulationPaired) in half types: each backend
// rounds its own O to the half type, and its backward computes
// D_i = sum_d dO_id O_id in f32 from that rounded O (products of two halves
// are exact in f32). The forward's bound on the two O's difference,
// elementwise (one ulp of the result, <= 2 uh |O| for a normal value,
// 2^-24 in f16's subnormal range, plus the f32 sums and the tensor-core
// forward's rounding of P),
//   e_id = 2 uh |O_id| [+ 2^-24 f16] + (2 Sk + 32) u max|V| [+ uh max|V|],
// (with sinks, the last two terms times 1 - P_sink: the row's P sums to
// that), and the two f32 sums of Dv products give
//   |D_i - D'_i| <= sum_d |dO_id| e_id + (2 Dv + 32) u sum_d |dO_id||O_id|
// with the CPU's O; delta = the max over the rows. D enters only
// dT_ij = P_ij (dP_ij - D_i) (Z does not multiply D), and dS = cap' dT with
// |cap'| <= 1, so |dT_ij - dT'_ij| <= P_ij delta and
//   dQ_id = scale sum_j dS_ij K_jd:   + scale delta max|K|    (sum_j P_ij <= 1)
//   dK_jd = scale sum_i dS_ij Q_id:   + scale delta max|Q| C
//   dV_jd = sum_i P'_ij dO_id:        unchanged (no D)
//   d_mask = dT summed over the N = B Hq Sq Sk / |mask| entries it
//            broadcasts over:          + N delta                (P_ij <= 1)
// with C = max_j sum_i P_ij over a group's rows as above (from the CPU).
// d_sinks[h] = -sum_{b, i} P_sink D_i sums B Sq terms, each from a sum over
// the keys (n = B Sq + Sk + Dv), and moves by at most sum_{b, i} P_sink
// delta_i, P_sink = exp(sinks[h] - LSE) from the CPU's LSE and delta_i the
// row's bound above (delta its max).
// With tensor cores the backward's rounding terms above are added too,
// with |dS_ij| <= scale P_ij (2 M / (1 - p) + delta), since D now comes
// from a rounded O.
// Empty rows (no visible key) and padded keys must be exactly 0 on both.
//
//===----------------------------------------------------------------------===//

#include "kiln/Execution/JitSession.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/MemoryBuffer.h"

#include "DiagnosticCollector.h"

#include "gtest/gtest.h"

#include <chrono>
#include <cstdio>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

using namespace mlir;
using namespace mlir::kiln;

namespace {

using test::DiagnosticCollector;

/// One attention case of the contract (docs/Attention.md), as in
/// bench/gpu/gen_attention_fwd_cases.py but small.
struct AttentionCase {
  std::string name;
  int64_t B, Hq, Hkv, Sq, Sk, Dk, Dv;
  bool causal = false;
  bool topLeft = false;
  std::optional<int64_t> windowLeft, windowRight;
  /// "", "bool" or "add", and the mask's shape.
  std::string mask;
  SmallVector<int64_t> maskShape;
  /// Rows of the mask that see no key: all false in a boolean mask, all
  /// -inf in an additive one (or `rowBias`).
  SmallVector<int64_t> emptyRows;
  /// The additive mask's value on the rows of `emptyRows`: -inf, or a huge
  /// finite bias on every key of the row (the row is not empty then, and
  /// its saved LSE must be renormalised: docs/Attention.md, "Adjoint").
  /// NaN stands for the lowest finite value of the element type.
  double rowBias = -INFINITY;
  SmallVector<int64_t> keyLengths, queryLengths;
  double dropoutP = 0, scale = 0, softcap = 0;
  int64_t seed = 0;
  /// ALiBi slopes' shape ([Hq] or [B, Hq]; empty: none) and values, f32.
  SmallVector<int64_t> alibiShape;
  SmallVector<double> alibiSlopes;
  /// Attention sinks ([Hq]) of type `sinksType` ("" for the dtype), drawn in
  /// [-2, 2) except on the heads of `largeSinks`, which get `largeSink` (30:
  /// their sink takes nearly all of each row's probability).
  bool sinks = false;
  std::string sinksType;
  SmallVector<int64_t> largeSinks;
  double largeSink = 30.0;
  /// Packed sequences: the [N + 1] offsets (i32; empty: none).
  SmallVector<int64_t> cuSeqlensQ, cuSeqlensK;
};

std::vector<AttentionCase> getAttentionCases() {
  std::vector<AttentionCase> cases;
  auto add = [&](std::string name, int64_t B, int64_t Hq, int64_t Hkv,
                 int64_t Sq, int64_t Sk, int64_t Dk,
                 int64_t Dv) -> AttentionCase & {
    cases.push_back({name, B, Hq, Hkv, Sq, Sk, Dk, Dv});
    return cases.back();
  };
  // Sizes that are not multiples of the 64-row/64-key tiles (70, 100).
  add("plain", 1, 2, 2, 70, 100, 16, 16);
  add("causal", 1, 2, 2, 70, 100, 16, 16).causal = true;
  {
    AttentionCase &c = add("causal_top_left", 1, 1, 1, 100, 70, 16, 16);
    c.causal = true;
    c.topLeft = true;
  }
  add("gqa_4_over_2", 1, 4, 2, 40, 70, 16, 16).causal = true;
  add("mqa", 1, 4, 1, 33, 65, 16, 16);
  {
    // Three heads per group (packed rows of a block span heads and
    // positions unevenly), a per-head mask and a sliding window.
    AttentionCase &c = add("gqa_3_mask_per_head", 1, 6, 2, 37, 70, 16, 16);
    c.mask = "bool";
    c.maskShape = {1, 6, 37, 70};
    c.emptyRows = {0, 36};
    c.windowLeft = 9;
    c.windowRight = 0;
  }
  {
    // A long sliding window: the tensor-core kernels' blocks see some
    // tiles whole (no predicate) and others cut at either band edge.
    AttentionCase &c = add("gqa_window_long", 1, 4, 2, 128, 256, 16, 16);
    c.windowLeft = 150;
    c.windowRight = 0;
  }
  {
    // The band's left edge one key inside a tile: the last row of the
    // 64-row block (p = 63) sees keys 1 .. 63, so the tensor-core kernels'
    // key tile 0 .. 63 is cut (not whole) by exactly one key.
    AttentionCase &c = add("window_tile_edge", 1, 1, 1, 64, 64, 16, 16);
    c.windowLeft = 62;
  }
  {
    // A key block's last key seen by the first row of the next query tile
    // alone: keys 0 .. 63 are seen up to row 63 + L = 64, so the backward's
    // query tiles of that block must reach the second 64-row tile (the
    // band's end row, AttentionBand::buildEndRow).
    AttentionCase &c = add("window_row_tile_edge", 1, 1, 1, 128, 128, 16, 16);
    c.windowLeft = 1;
    c.windowRight = 0;
  }
  // Batch 1 sees no key: every row empty.
  add("key_lengths", 3, 1, 1, 20, 70, 16, 16).keyLengths = {45, 0, 1000};
  add("query_lengths", 3, 1, 1, 70, 30, 16, 16).queryLengths = {50, -3, 500};
  {
    AttentionCase &c = add("window", 1, 2, 2, 70, 70, 16, 16);
    c.windowLeft = 3;
    c.windowRight = 1;
  }
  {
    AttentionCase &c = add("window_top_left", 1, 1, 1, 30, 70, 16, 16);
    c.windowLeft = 2;
    c.windowRight = 0;
    c.topLeft = true;
  }
  {
    AttentionCase &c = add("bool_mask", 2, 2, 2, 40, 70, 16, 16);
    c.mask = "bool";
    c.maskShape = {2, 2, 40, 70};
    c.emptyRows = {3, 39};
  }
  {
    AttentionCase &c = add("bool_mask_broadcast", 2, 2, 1, 40, 70, 16, 16);
    c.mask = "bool";
    c.maskShape = {40, 70};
  }
  {
    // Rows of only -inf biases are empty rows too (exactly 0, never NaN).
    AttentionCase &c = add("additive_mask", 2, 2, 2, 40, 70, 16, 16);
    c.mask = "add";
    c.maskShape = {2, 1, 40, 70};
    c.emptyRows = {3, 39};
  }
  {
    AttentionCase &c = add("softcap", 1, 2, 2, 40, 70, 16, 16);
    c.softcap = 3.0;
    c.scale = 0.5;
    c.causal = true;
  }
  {
    AttentionCase &c = add("dropout", 1, 2, 1, 40, 70, 16, 16);
    c.dropoutP = 0.25;
    c.seed = 1234567;
    c.causal = true;
  }
  {
    // Huge finite biases on every key of rows 3 and 39 (Hugging Face's
    // finfo.min padding masks): -1e30 (-inf in f16, where the rows are
    // empty), and the element type's lowest finite value.
    AttentionCase &c = add("additive_mask_huge_bias", 2, 2, 2, 40, 70, 16, 16);
    c.mask = "add";
    c.maskShape = {2, 1, 40, 70};
    c.emptyRows = {3, 39};
    c.rowBias = -1e30;
    AttentionCase &lowest =
        add("additive_mask_lowest_bias", 1, 2, 1, 40, 70, 16, 16);
    lowest.mask = "add";
    lowest.maskShape = {40, 70};
    lowest.emptyRows = {0, 17};
    lowest.rowBias = NAN;
    lowest.causal = true;
  }
  {
    // Packed sequences: self-attention over documents of 30, 1, 50 and 19
    // tokens (boundaries inside the 64-key tiles and 16/64-row query
    // blocks), causal GQA with ALiBi distances inside each document; then
    // cross lengths (more keys than queries per sequence, bottom_right
    // causal within each), padding rows and keys in no sequence, a window
    // and sinks.
    AttentionCase &self = add("packed_causal_gqa", 1, 4, 2, 100, 100, 16, 16);
    self.causal = true;
    self.alibiShape = {4};
    self.alibiSlopes = {0.25, 0.0625, 0.015625, 0.00390625};
    self.cuSeqlensQ = {0, 30, 31, 81, 100};
    self.cuSeqlensK = {0, 30, 31, 81, 100};
    AttentionCase &cross = add("packed_cross_window_sinks", 2, 2, 1, 60, 90, 16, 16);
    cross.causal = true;
    cross.windowLeft = 20;
    cross.sinks = true;
    cross.sinksType = "f32";
    cross.cuSeqlensQ = {0, 10, 45, 55};
    cross.cuSeqlensK = {0, 25, 70, 85};
  }
  {
    // ALiBi: the slopes of the paper for four heads, over several key and
    // query tiles of every kernel.
    AttentionCase &c = add("alibi_causal_gqa", 1, 4, 2, 70, 100, 16, 16);
    c.causal = true;
    c.alibiShape = {4};
    c.alibiSlopes = {0.25, 0.0625, 0.015625, 0.00390625};
    // Per batch and head, on both sides of the diagonal, with an additive
    // mask (the raw-score path of the tensor-core forward is off).
    AttentionCase &batch = add("alibi_batch_mask", 2, 2, 1, 40, 70, 16, 16);
    batch.topLeft = true;
    batch.mask = "add";
    batch.maskShape = {40, 70};
    batch.alibiShape = {2, 2};
    batch.alibiSlopes = {0.5, 0.125, 0.03125, 0.75};
  }
  {
    // Attention sinks (f32, as gpt-oss keeps them) over causal GQA, two
    // batches (d_sinks sums over both) and several key and query tiles.
    AttentionCase &c = add("sinks_causal_gqa", 2, 4, 2, 70, 100, 16, 16);
    c.causal = true;
    c.sinks = true;
    c.sinksType = "f32";
    // Sinks in the dtype with an additive mask (the tensor-core forward's
    // logits, not raw scores; d_mask before d_sinks) whose rows 3 and 39
    // see no key, and a batch without keys: those rows' O is 0 and their
    // LSE the sink. Head 1's sink of 30 dominates every row.
    AttentionCase &mask = add("sinks_mask_lengths", 3, 2, 1, 40, 70, 16, 16);
    mask.mask = "add";
    mask.maskShape = {3, 1, 40, 70};
    mask.emptyRows = {3, 39};
    mask.keyLengths = {45, 0, 1000};
    mask.sinks = true;
    mask.largeSinks = {1};
    // With dropout (which leaves the sink alone) and the common head dim.
    AttentionCase &dropout = add("sinks_dropout_d64", 1, 2, 1, 70, 100, 64, 64);
    dropout.causal = true;
    dropout.dropoutP = 0.25;
    dropout.seed = 2468;
    dropout.sinks = true;
    dropout.largeSinks = {0};
    // Rows 3 and 39 see every key through a bias of +300 and sinks of 301:
    // |LSE| > 256, so the saved-LSE backward renormalises those rows, the
    // sink among their terms (it holds about half of each row).
    AttentionCase &large = add("sinks_large_logits", 2, 2, 1, 40, 70, 16, 16);
    large.mask = "add";
    large.maskShape = {2, 1, 40, 70};
    large.emptyRows = {3, 39};
    large.rowBias = 300.0;
    large.sinks = true;
    large.sinksType = "f32";
    large.largeSinks = {0, 1};
    large.largeSink = 301.0;
  }
  add("dv_ne_dk", 1, 2, 2, 40, 70, 32, 16);
  add("odd_dims", 1, 2, 1, 40, 70, 20, 12).causal = true;
  // The common head dim: four k-steps of the mma per fragment.
  add("d64", 1, 2, 1, 70, 100, 64, 64).causal = true;
  // The tensor-core backward's other tilings: Sq <= 16 (16-row query tiles,
  // Dk / 8 = 6 n-tiles of dQ over 4 warps) and D = 128 (32-row tiles).
  add("decode_d48", 1, 2, 1, 5, 70, 48, 48).causal = true;
  add("d128", 1, 2, 2, 40, 70, 128, 128).causal = true;
  // KILN_EMU_CASES=<substring> keeps only the cases whose name holds it
  // (while working on one form; the suite runs them all).
  if (const char *filter = getenv("KILN_EMU_CASES"))
    llvm::erase_if(cases, [&](const AttentionCase &c) {
      return !StringRef(c.name).contains(filter);
    });
  return cases;
}

std::string tensorType(ArrayRef<int64_t> shape, StringRef element) {
  std::string text = "tensor<";
  for (int64_t d : shape)
    text += std::to_string(d) + "x";
  return text + element.str() + ">";
}

/// The type of `c`'s sinks (and of d_sinks) for queries of `dtype`.
std::string getSinksType(const AttentionCase &c, StringRef dtype) {
  return tensorType({c.Hq}, c.sinksType.empty() ? dtype : c.sinksType);
}

/// The optional operands of `c` in kiln's order: (name, type).
SmallVector<std::pair<std::string, std::string>>
getOptionalOperands(const AttentionCase &c, StringRef dtype) {
  SmallVector<std::pair<std::string, std::string>> operands;
  if (!c.mask.empty())
    operands.push_back(
        {"mask", tensorType(c.maskShape, c.mask == "bool" ? "i1" : dtype)});
  if (!c.keyLengths.empty())
    operands.push_back({"key_lengths", tensorType({c.B}, "i32")});
  if (!c.queryLengths.empty())
    operands.push_back({"query_lengths", tensorType({c.B}, "i64")});
  if (c.dropoutP > 0)
    operands.push_back({"seed", "tensor<i64>"});
  if (!c.alibiShape.empty())
    operands.push_back({"alibi_slopes", tensorType(c.alibiShape, "f32")});
  if (c.sinks)
    operands.push_back({"sinks", getSinksType(c, dtype)});
  if (!c.cuSeqlensQ.empty()) {
    operands.push_back(
        {"cu_seqlens_q", tensorType({int64_t(c.cuSeqlensQ.size())}, "i32")});
    operands.push_back(
        {"cu_seqlens_k", tensorType({int64_t(c.cuSeqlensK.size())}, "i32")});
  }
  return operands;
}

/// The function arguments (`, %name: type` each) and the op's operand
/// groups of `c`'s optional operands: ` name(%name : type)`, the offsets of
/// packed sequences as one ` cu_seqlens(%q, %k : tq, tk)`.
std::pair<std::string, std::string>
formatOptionalOperands(const AttentionCase &c, StringRef dtype) {
  auto optional = getOptionalOperands(c, dtype);
  std::string args, groups;
  for (size_t n = 0; n < optional.size(); ++n) {
    auto &[name, type] = optional[n];
    args += ", %" + name + ": " + type;
    if (name == "cu_seqlens_q") {
      auto &[keyName, keyType] = optional[++n];
      args += ", %" + keyName + ": " + keyType;
      groups += " cu_seqlens(%" + name + ", %" + keyName + " : " + type +
                ", " + keyType + ")";
      continue;
    }
    groups += " " + name + "(%" + name + " : " + type + ")";
  }
  return {args, groups};
}

std::string getAttributes(const AttentionCase &c) {
  SmallVector<std::string> attrs;
  if (c.causal)
    attrs.push_back("causal");
  if (c.windowLeft)
    attrs.push_back("window_left = " + std::to_string(*c.windowLeft) + " : i64");
  if (c.windowRight)
    attrs.push_back("window_right = " + std::to_string(*c.windowRight) +
                    " : i64");
  if (c.topLeft)
    attrs.push_back("alignment = #kiln.alignment<top_left>");
  auto real = [](double value) {
    std::string text = std::to_string(value);
    return text + " : f64";
  };
  if (c.scale)
    attrs.push_back("scale = " + real(c.scale));
  if (c.softcap)
    attrs.push_back("softcap = " + real(c.softcap));
  if (c.dropoutP)
    attrs.push_back("dropout_p = " + real(c.dropoutP));
  return attrs.empty() ? "" : "{" + llvm::join(attrs, ", ") + "}";
}

/// The result types and SSA names of kiln.attention_grad for `c`:
/// dq, dk, dv[, dmask][, dsinks].
std::pair<std::string, std::string> getGradientTypes(const AttentionCase &c,
                                                     StringRef dtype) {
  std::string results = tensorType({c.B, c.Hq, c.Sq, c.Dk}, dtype) + ", " +
                        tensorType({c.B, c.Hkv, c.Sk, c.Dk}, dtype) + ", " +
                        tensorType({c.B, c.Hkv, c.Sk, c.Dv}, dtype);
  std::string values = "%dq, %dk, %dv";
  if (c.mask == "add") {
    results += ", " + tensorType(c.maskShape, dtype);
    values += ", %dm";
  }
  if (c.sinks) {
    results += ", " + getSinksType(c, dtype);
    values += ", %ds";
  }
  return {results, values};
}

/// @fwd_<name>(q, k, v, optional...) -> o, or @<prefix>_<name>(q, k, v,
/// dout, optional...) -> (dq, dk, dv[, dmask][, dsinks]).
std::string getAttentionFunction(const AttentionCase &c, StringRef dtype,
                                 bool backward, StringRef prefix = "bwd") {
  std::string q = tensorType({c.B, c.Hq, c.Sq, c.Dk}, dtype);
  std::string k = tensorType({c.B, c.Hkv, c.Sk, c.Dk}, dtype);
  std::string v = tensorType({c.B, c.Hkv, c.Sk, c.Dv}, dtype);
  std::string o = tensorType({c.B, c.Hq, c.Sq, c.Dv}, dtype);
  auto [args, groups] = formatOptionalOperands(c, dtype);
  std::string attrs = getAttributes(c);
  if (!backward)
    return "func.func @fwd_" + c.name + "(%q: " + q + ", %k: " + k + ", %v: " +
          v + args + ") -> " + o + " {\n  %o = kiln.attention %q, %k, %v" +
          groups + " " + attrs + " : " + q + ", " + k + ", " + v + " -> " + o +
          "\n  return %o : " + o + "\n}\n";
  auto [results, values] = getGradientTypes(c, dtype);
  return "func.func @" + prefix.str() + "_" + c.name + "(%q: " + q + ", %k: " + k + ", %v: " +
          v + ", %do: " + o + args + ") -> (" + results + ") {\n  " + values +
          " = kiln.attention_grad %q, %k, %v, %do" + groups + " " + attrs +
          " : " + q + ", " + k + ", " + v + ", " + o + " -> " + results +
          "\n  return " + values + " : " + results + "\n}\n";
}

HostTensor makeTensor(DType dtype, ArrayRef<int64_t> shape,
                      ArrayRef<double> values) {
  llvm::Expected<HostTensor> tensor =
      HostTensor::fromDoubles(dtype, shape, values);
  EXPECT_TRUE(bool(tensor)) << llvm::toString(tensor.takeError());
  return std::move(*tensor);
}

HostTensor randomTensor(DType dtype, ArrayRef<int64_t> shape, uint64_t seed) {
  llvm::Expected<HostTensor> tensor = HostTensor::random(dtype, shape, seed);
  EXPECT_TRUE(bool(tensor)) << llvm::toString(tensor.takeError());
  return std::move(*tensor);
}

/// The lowest finite value of a float `dtype`.
double getLowestFinite(DType dtype) {
  switch (dtype) {
  case DType::F16:
    return -65504.0;
  case DType::BF16:
    return -0x1.fep127;
  case DType::F32:
    return std::numeric_limits<float>::lowest();
  default:
    return std::numeric_limits<double>::lowest();
  }
}

/// The inputs of @fwd_ (backward: with dout after v).
SmallVector<HostTensor> getAttentionInputs(const AttentionCase &c, DType dtype,
                                           bool backward, uint64_t seed) {
  SmallVector<HostTensor> inputs;
  inputs.push_back(randomTensor(dtype, {c.B, c.Hq, c.Sq, c.Dk}, seed));
  inputs.push_back(randomTensor(dtype, {c.B, c.Hkv, c.Sk, c.Dk}, seed + 1));
  inputs.push_back(randomTensor(dtype, {c.B, c.Hkv, c.Sk, c.Dv}, seed + 2));
  if (backward)
    inputs.push_back(randomTensor(dtype, {c.B, c.Hq, c.Sq, c.Dv}, seed + 3));
  if (!c.mask.empty()) {
    bool boolean = c.mask == "bool";
    HostTensor mask =
        randomTensor(boolean ? DType::I1 : dtype, c.maskShape, seed + 4);
    // Every row of the last two dims listed in emptyRows sees no key (or,
    // with a finite rowBias, sees every key through that one bias).
    double rowBias = c.rowBias;
    if (std::isnan(rowBias))
      rowBias = getLowestFinite(dtype);
    int64_t sk = c.maskShape.back(), sq = c.maskShape[c.maskShape.size() - 2];
    for (int64_t i = 0; i < mask.getNumElements(); ++i)
      if (llvm::is_contained(c.emptyRows, (i / sk) % sq))
        mask.setElementFromDouble(i, boolean ? 0 : rowBias);
    inputs.push_back(std::move(mask));
  }
  auto lengths = [&](ArrayRef<int64_t> values, DType type) {
    SmallVector<double> doubles(values.begin(), values.end());
    inputs.push_back(makeTensor(type, {c.B}, doubles));
  };
  if (!c.keyLengths.empty())
    lengths(c.keyLengths, DType::I32);
  if (!c.queryLengths.empty())
    lengths(c.queryLengths, DType::I64);
  if (c.dropoutP > 0)
    inputs.push_back(makeTensor(DType::I64, {}, {double(c.seed)}));
  if (!c.alibiShape.empty())
    inputs.push_back(makeTensor(DType::F32, c.alibiShape, c.alibiSlopes));
  if (c.sinks) {
    HostTensor draw = randomTensor(DType::F64, {c.Hq}, seed + 5);
    SmallVector<double> sinks;
    for (int64_t h = 0; h < c.Hq; ++h)
      sinks.push_back(llvm::is_contained(c.largeSinks, h)
                          ? c.largeSink
                          : 2 * draw.getElementAsDouble(h));
    DType type = c.sinksType.empty() ? dtype : *parseDType(c.sinksType);
    inputs.push_back(makeTensor(type, {c.Hq}, sinks));
  }
  for (ArrayRef<int64_t> offsets : {c.cuSeqlensQ, c.cuSeqlensK}) {
    if (offsets.empty())
      continue;
    SmallVector<double> doubles(offsets.begin(), offsets.end());
    inputs.push_back(
        makeTensor(DType::I32, {int64_t(offsets.size())}, doubles));
  }
  return inputs;
}

/// The index of `c`'s seed among the inputs of @bwd_ (q, k, v, dout, then
/// the optional operands in kiln's order), or -1 without dropout.
int64_t getSeedInput(const AttentionCase &c) {
  if (c.dropoutP == 0)
    return -1;
  return 4 + !c.mask.empty() + !c.keyLengths.empty() + !c.queryLengths.empty();
}

double maxAbs(const HostTensor &tensor) {
  double result = 0;
  for (int64_t i = 0; i < tensor.getNumElements(); ++i)
    result = std::max(result, std::abs(tensor.getElementAsDouble(i)));
  return result;
}

/// The unit roundoff of `dtype`.
double getUnitRoundoff(DType dtype) {
  switch (dtype) {
  case DType::F16:
    return std::ldexp(1.0, -11);
  case DType::BF16:
    return std::ldexp(1.0, -8);
  case DType::F32:
    return std::ldexp(1.0, -24);
  case DType::F64:
    return std::ldexp(1.0, -53);
  default:
    return 0;
  }
}

/// The worst |emulated - cpu| / tol over the tensor, with NaN, inf and
/// "exact zero on one side only" counted as failures (returned as inf).
/// `tol` = (2 n + 32) u scale + [half types] 2 uh |ref| + extra. With
/// `zeroRows` = L, an exact zero of the CPU must be exact on the GPU only
/// where its whole row of the last L elements is 0 (an empty query row, a
/// padded key): see GPUEmulationPaired.
struct Comparison {
  double worstRatio = 0, maxError = 0, tol = 0;
  int64_t worstIndex = -1;
};

Comparison compare(const HostTensor &cpu, const HostTensor &emulated, int64_t n,
                   double scale, double extra = 0, int64_t zeroRows = 1) {
  Comparison result;
  DType dtype = cpu.getDType();
  double u = dtype == DType::F64 ? getUnitRoundoff(DType::F64)
                                 : getUnitRoundoff(DType::F32);
  double uh = dtype == DType::F16 || dtype == DType::BF16
                  ? getUnitRoundoff(dtype)
                  : 0;
  double base = (2.0 * n + 32) * u * scale + extra;
  result.tol = base;
  for (int64_t i = 0; i < cpu.getNumElements(); ++i) {
    double a = cpu.getElementAsDouble(i), b = emulated.getElementAsDouble(i);
    double error = std::abs(a - b);
    double tol = base + 2 * uh * std::abs(a);
    double ratio = error / std::max(tol, 1e-300);
    // An exact zero of the CPU (an empty row, a padded key: with random
    // inputs nothing else is exactly 0) must be exact on the GPU too; with
    // `zeroRows`, only in a row of zeros.
    int64_t rowStart = i - i % zeroRows;
    bool structuralZero = a == 0;
    for (int64_t j = rowStart; structuralZero && j < rowStart + zeroRows; ++j)
      structuralZero = cpu.getElementAsDouble(j) == 0;
    if (std::isnan(a) || std::isnan(b) || (structuralZero && b != 0))
      ratio = INFINITY;
    if (!(ratio <= result.worstRatio)) {
      result.worstRatio = ratio;
      result.worstIndex = i;
    }
    result.maxError = std::max(result.maxError, error);
  }
  return result;
}

/// Compiles once per target and options, shared by the tests.
class Backends {
public:
  static Backends &get() {
    if (!instance)
      instance = new Backends;
    return *instance;
  }
  /// Frees the modules and the session (a gtest Environment calls it, before
  /// static destruction).
  static void reset() {
    delete instance;
    instance = nullptr;
  }

  JitSession &getSession() { return session; }

  /// The module compiled for `options`, cached by `key`.
  JitModule *compile(const std::string &key, const std::string &source,
                     const JitOptions &options) {
    auto it = modules.find(key);
    if (it != modules.end())
      return it->second.get();
    DiagnosticCollector diagnostics(session.getContext());
    auto start = std::chrono::steady_clock::now();
    FailureOr<std::unique_ptr<JitModule>> module =
        session.compileSource(source, key, options);
    if (failed(module)) {
      ADD_FAILURE() << "compiling " << key << " failed:\n" << diagnostics.all();
      return nullptr;
    }
    compileSeconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    return (modules[key] = std::move(*module)).get();
  }

  double compileSeconds = 0;

private:
  static Backends *instance;
  // The modules report through the session: destroyed first.
  JitSession session;
  std::map<std::string, std::unique_ptr<JitModule>> modules;
};
Backends *Backends::instance = nullptr;

struct BackendsEnvironment : testing::Environment {
  void TearDown() override {
    std::printf("compile time of all modules: %.1f s\n",
                Backends::get().compileSeconds);
    Backends::reset();
  }
};
const testing::Environment *const environment =
    testing::AddGlobalTestEnvironment(new BackendsEnvironment);

// LLVM at -O0 on both sides: the kernels run in milliseconds and compiling
// them dominates the test's time (-O0 halves it). No optimization changes
// floating-point results (no fast-math flags), so the comparison is the same.
JitOptions cpuOptions() {
  JitOptions options;
  options.optLevel = 0;
  return options;
}

JitOptions emulatorOptions(bool tensorCores, bool softwarePipeline = false,
                           bool deterministic = false) {
  JitOptions options;
  options.target = JitTarget::GPUEmulator;
  options.tensorCores = tensorCores;
  options.deterministic = deterministic;
  // Explicit either way, so that each test names the kernel it checks
  // (auto would pipeline head dims in (64, 128]).
  options.softwarePipeline = softwarePipeline ? AttentionSoftwarePipeline::On
                                              : AttentionSoftwarePipeline::Off;
  options.optLevel = 0;
  return options;
}

/// Turns the emulator's race check of workgroup memory on for the emulated
/// runs, unless KILN_EMU_RACECHECK says otherwise (KILN_EMU_RACECHECK=0
/// measures without it): every kernel of the test is checked, and a race is
/// a diagnostic of the invocation ("failed on the GPU emulator: ...").
void enableRaceCheck() {
  if (getenv("KILN_EMU_RACECHECK"))
    return;
  auto *set = reinterpret_cast<void (*)(int32_t)>(
      llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(
          "__kiln_emu_set_racecheck"));
  ASSERT_NE(set, nullptr) << "the GPU emulator library is not loaded";
  set(1);
}

/// Runs `name` on both modules; fails the test on a diagnostic.
bool runBoth(JitModule *cpu, JitModule *emulated, StringRef name,
             ArrayRef<HostTensor> inputs, SmallVector<HostTensor> &cpuResults,
             SmallVector<HostTensor> &emulatedResults) {
  if (!cpu || !emulated)
    return false;
  DiagnosticCollector diagnostics(Backends::get().getSession().getContext());
  FailureOr<SmallVector<HostTensor>> a = cpu->invoke(name, inputs);
  enableRaceCheck();
  FailureOr<SmallVector<HostTensor>> b = emulated->invoke(name, inputs);
  if (failed(a) || failed(b)) {
    ADD_FAILURE() << "@" << name.str() << ": " << diagnostics.all();
    return false;
  }
  cpuResults = std::move(*a);
  emulatedResults = std::move(*b);
  return true;
}

void expectClose(const std::string &what, const HostTensor &cpu,
                 const HostTensor &emulated, int64_t n, double scale,
                 double extra = 0, int64_t zeroRows = 1) {
  Comparison c = compare(cpu, emulated, n, scale, extra, zeroRows);
  // The figures of the report (docs/GPUEmulator.md): worst error / tol.
  std::printf("    %-28s max |emu - cpu| %-9.3g tol %-9.3g worst ratio %.3g\n",
              what.c_str(), c.maxError, c.tol, c.worstRatio);
  EXPECT_LE(c.worstRatio, 1.0)
      << what << ": element " << c.worstIndex << " cpu "
      << (c.worstIndex >= 0 ? cpu.getElementAsDouble(c.worstIndex) : 0)
      << " emulated "
      << (c.worstIndex >= 0 ? emulated.getElementAsDouble(c.worstIndex) : 0)
      << ", max error " << c.maxError << ", tol " << c.tol;
}

struct AttentionParam {
  DType dtype;
  bool tensorCores;
  /// The forward tensor-core kernel's software-pipeline option.
  bool softwarePipeline = false;
  /// The backward without float atomics (the pipeline's deterministic).
  bool deterministic = false;
};

/// Every dtype, the half types with and without tensor cores.
const AttentionParam kAttentionParams[] = {
    {DType::F64, false}, {DType::F32, false}, {DType::F16, true},
    {DType::F16, false}, {DType::BF16, true}, {DType::BF16, false}};

/// The forward's software-pipelined tensor-core kernel.
const AttentionParam kPipelinedParams[] = {{DType::F16, true, true},
                                           {DType::BF16, true, true}};

/// The deterministic backward: the SIMT main kernel (f32) and the
/// tensor-core one (f16), each with the dQ kernel.
const AttentionParam kDeterministicParams[] = {{DType::F32, false, false, true},
                                               {DType::F16, true, false, true}};

std::string getParamName(const testing::TestParamInfo<AttentionParam> &info) {
  return stringifyDType(info.param.dtype).str() +
         (info.param.tensorCores ? "_mma" : "_simt") +
         (info.param.softwarePipeline ? "_pipelined" : "") +
         (info.param.deterministic ? "_deterministic" : "");
}

/// The CPU module of every case's @bwd_<name> in `dtype`, plus the CPU-only
/// @colsum_<name>: the backward without dropout, for the bounds of the
/// tensor-core backward (see the header and getBackwardSums).
JitModule *compileCpuBackward(StringRef dtype) {
  std::string source;
  for (const AttentionCase &c : getAttentionCases()) {
    source += getAttentionFunction(c, dtype, /*backward=*/true);
    AttentionCase withoutDropout = c;
    withoutDropout.dropoutP = 0;
    source += getAttentionFunction(withoutDropout, dtype, /*backward=*/true,
                                   "colsum");
  }
  return Backends::get().compile("attention-cpu-bwd-" + dtype.str(), source,
                                 cpuOptions());
}

class GPUEmulationAttention : public testing::TestWithParam<AttentionParam> {
protected:
  /// The module of every case's forward (or backward) in the param's
  /// dtype, for the CPU and the emulator. The backward kernels have no
  /// tensor-core variant: one emulated module serves both params.
  void compileBoth(bool backward, JitModule *&cpu, JitModule *&emulated) {
    AttentionParam param = GetParam();
    StringRef dtype = stringifyDType(param.dtype);
    std::string source;
    for (const AttentionCase &c : getAttentionCases())
      source += getAttentionFunction(c, dtype, backward);
    std::string kind = backward ? "bwd-" : "fwd-";
    cpu = backward ? compileCpuBackward(dtype)
                   : Backends::get().compile("attention-cpu-fwd-" + dtype.str(),
                                             source, cpuOptions());
    std::string variant = param.tensorCores ? "-mma" : "-simt";
    if (param.softwarePipeline)
      variant += "-pipelined";
    if (param.deterministic)
      variant += "-deterministic";
    emulated = Backends::get().compile(
        "attention-emu-" + kind + dtype.str() + variant, source,
        emulatorOptions(param.tensorCores, param.softwarePipeline,
                        param.deterministic));
  }

  /// Every case's forward on the emulator against the CPU.
  void checkForward();
  /// Every case's backward on the emulator against the CPU.
  void checkBackward();
};

/// The forward with the software-pipelined tensor-core kernel (the
/// backward does not use the option).
class GPUEmulationPipelined : public GPUEmulationAttention {};

/// The emulator's count of fiber switches so far: it grows when kernels
/// really run on the emulator (not, say, on the CPU pipeline).
uint64_t getSwitchCount() {
  auto *count = reinterpret_cast<uint64_t (*)()>(
      llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(
          "__kiln_emu_switch_count"));
  return count ? count() : 0;
}

void GPUEmulationAttention::checkForward() {
  AttentionParam param = GetParam();
  JitModule *cpu, *emulated;
  compileBoth(/*backward=*/false, cpu, emulated);
  uint64_t switches = getSwitchCount();
  bool halfType = param.dtype == DType::F16 || param.dtype == DType::BF16;
  for (auto [index, c] : llvm::enumerate(getAttentionCases())) {
    SCOPED_TRACE("fwd_" + c.name);
    SmallVector<HostTensor> inputs =
        getAttentionInputs(c, param.dtype, /*backward=*/false, 100 * index);
    SmallVector<HostTensor> a, b;
    if (!runBoth(cpu, emulated, "fwd_" + c.name, inputs, a, b))
      continue;
    double maxV = maxAbs(inputs[2]);
    // The tensor-core kernel rounds P to the half type before P V.
    double roundP = halfType && param.tensorCores
                        ? getUnitRoundoff(param.dtype) * maxV
                        : 0;
    expectClose(c.name + " O", a[0], b[0], c.Sk, maxV, roundP);
  }
  EXPECT_GT(getSwitchCount(), switches) << "no kernel ran on the emulator";
}

TEST_P(GPUEmulationAttention, Forward) { checkForward(); }

TEST_P(GPUEmulationPipelined, Forward) { checkForward(); }

INSTANTIATE_TEST_SUITE_P(, GPUEmulationPipelined,
                         testing::ValuesIn(kPipelinedParams), getParamName);

/// CPU-side quantities of the tensor-core backward's bounds (see the
/// header): M = max |dO_i . V_j| over (b, h, i, j), and C = max_j sum_i
/// P_ij over a group's rows, rounded up.
struct BackwardSums {
  double m = 0, columns = 0;
};

/// Computes BackwardSums for `inputs` (@bwd_'s order); `cpu` must hold the
/// CPU-only @colsum_<name> (the dropout-free backward: its dV with dO = 1 is
/// the column sums of P).
FailureOr<BackwardSums> getBackwardSums(const AttentionCase &c, DType dtype,
                                        ArrayRef<HostTensor> inputs,
                                        JitModule *cpu) {
  BackwardSums result;
  int64_t group = c.Hq / c.Hkv;
  const HostTensor &dout = inputs[3], &value = inputs[2];
  for (int64_t b = 0; b < c.B; ++b)
    for (int64_t h = 0; h < c.Hq; ++h)
      for (int64_t i = 0; i < c.Sq; ++i)
        for (int64_t j = 0; j < c.Sk; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < c.Dv; ++d)
            dot += dout.getElementAsDouble(((b * c.Hq + h) * c.Sq + i) * c.Dv +
                                           d) *
                   value.getElementAsDouble(
                       ((b * c.Hkv + h / group) * c.Sk + j) * c.Dv + d);
          result.m = std::max(result.m, std::abs(dot));
        }
  SmallVector<HostTensor> colsumInputs;
  for (auto [n, input] : llvm::enumerate(inputs)) {
    if (int64_t(n) == getSeedInput(c))
      continue;
    if (n == 3) {
      SmallVector<double> ones(input.getNumElements(), 1.0);
      colsumInputs.push_back(makeTensor(dtype, input.getShape(), ones));
    } else {
      colsumInputs.push_back(input);
    }
  }
  FailureOr<SmallVector<HostTensor>> colsums =
      cpu->invoke("colsum_" + c.name, colsumInputs);
  if (failed(colsums))
    return failure();
  double uh = getUnitRoundoff(dtype);
  double rows = c.Sq * group;
  result.columns = maxAbs((*colsums)[2]) * (1 + 2 * uh) +
                   (2 * rows + 32) * getUnitRoundoff(DType::F32) * rows;
  return result;
}

/// Adds to `extras` (dQ, dK, dV) the tensor-core backward's rounding of P'
/// and dS (see the header); `deltaD` bounds a difference of the two
/// backends' D, which enlarges |dS| by scale deltaD.
void addTensorCoreBackwardTerms(const AttentionCase &c, DType dtype,
                                ArrayRef<HostTensor> inputs,
                                const BackwardSums &sums, double deltaD,
                                double extras[4]) {
  double uh = getUnitRoundoff(dtype);
  double subnormal = dtype == DType::F16 ? std::ldexp(1.0, -25) : 0;
  double keep = 1 / (1 - c.dropoutP);
  double scale = c.scale ? c.scale : 1 / std::sqrt(double(c.Dk));
  double rows = c.Sq * (c.Hq / c.Hkv);
  double dsSum = scale * (2 * sums.m * keep + deltaD);
  extras[0] += (uh * dsSum + c.Sk * subnormal) * maxAbs(inputs[1]);
  extras[1] += (uh * dsSum * sums.columns + rows * subnormal) * maxAbs(inputs[0]);
  extras[2] += (uh * keep * sums.columns + rows * subnormal) * maxAbs(inputs[3]);
}

/// One result of kiln.attention_grad: its kind (0 dQ, 1 dK, 2 dV,
/// 3 d_mask, 4 d_sinks), its name and the length n of the sums that give an
/// element of it (see the header).
struct GradientResult {
  int64_t kind;
  std::string name;
  int64_t length;
};

/// The results of `c`'s kiln.attention_grad, in order.
SmallVector<GradientResult> getGradientResults(const AttentionCase &c) {
  int64_t group = c.Hq / c.Hkv;
  SmallVector<GradientResult> results = {{0, "dQ", c.Sk + c.Dv},
                                         {1, "dK", c.Sq * group + c.Dv},
                                         {2, "dV", c.Sq * group}};
  if (c.mask == "add")
    results.push_back({3, "d_mask", c.B * c.Hq + c.Dv});
  if (c.sinks)
    results.push_back({4, "d_sinks", c.B * c.Sq + c.Sk + c.Dv});
  return results;
}

void GPUEmulationAttention::checkBackward() {
  AttentionParam param = GetParam();
  JitModule *cpu, *emulated;
  compileBoth(/*backward=*/true, cpu, emulated);
  bool halfType = param.dtype == DType::F16 || param.dtype == DType::BF16;
  for (auto [index, c] : llvm::enumerate(getAttentionCases())) {
    SCOPED_TRACE("bwd_" + c.name);
    SmallVector<HostTensor> inputs =
        getAttentionInputs(c, param.dtype, /*backward=*/true, 100 * index + 7);
    SmallVector<HostTensor> a, b;
    if (!runBoth(cpu, emulated, "bwd_" + c.name, inputs, a, b))
      continue;
    // The tensor-core backward's rounding of P' and dS (see the header).
    double extras[5] = {0, 0, 0, 0, 0};
    if (halfType && param.tensorCores) {
      FailureOr<BackwardSums> sums = getBackwardSums(c, param.dtype, inputs, cpu);
      ASSERT_TRUE(succeeded(sums));
      addTensorCoreBackwardTerms(c, param.dtype, inputs, *sums, /*deltaD=*/0,
                                 extras);
    }
    // dQ sums over keys, dK and dV over the query rows of a group, d_mask
    // over the heads and batches it broadcasts over, d_sinks over the rows
    // of a head (each a term of a sum over the keys).
    SmallVector<GradientResult> gradients = getGradientResults(c);
    ASSERT_EQ(gradients.size(), a.size());
    for (auto [i, gradient] : llvm::enumerate(gradients)) {
      double scale = 4 * std::max(maxAbs(a[i]), maxAbs(b[i]));
      expectClose(c.name + " " + gradient.name, a[i], b[i], gradient.length,
                  scale, extras[gradient.kind]);
    }
  }
}

TEST_P(GPUEmulationAttention, Backward) { checkBackward(); }

// f64 attention: the SIMT forward kernel; the backward goes the generic way.
INSTANTIATE_TEST_SUITE_P(, GPUEmulationAttention,
                         testing::ValuesIn(kAttentionParams), getParamName);

/// The deterministic backward (the pipeline's `deterministic`): the main
/// kernels without dQ, the dQ kernel of one thread per query row, and the
/// forms with an additive mask the generic way (d_mask would take
/// atomics). The same cases and bounds as Backward: the dQ kernel sums the
/// Sk keys of a row in order, within the bound of the atomics' sums.
class GPUEmulationDeterministic : public GPUEmulationAttention {};

TEST_P(GPUEmulationDeterministic, Backward) { checkBackward(); }

/// Runs every case's deterministic backward twice on the same inputs and
/// requires bitwise equal dQ. The emulator runs blocks in a fixed order, so
/// it would repeat even the atomics' sums: this checks that nothing else
/// (uninitialised workspaces, races the race check misses) varies between
/// runs. That a GPU repeats too rests on the absence of atomics, which
/// test/Conversion/KilnToGPU/attention-backward-deterministic.mlir checks.
TEST_P(GPUEmulationDeterministic, RepeatsDqBitwise) {
  AttentionParam param = GetParam();
  JitModule *cpu, *emulated;
  compileBoth(/*backward=*/true, cpu, emulated);
  ASSERT_TRUE(emulated);
  DiagnosticCollector diagnostics(Backends::get().getSession().getContext());
  for (auto [index, c] : llvm::enumerate(getAttentionCases())) {
    SCOPED_TRACE("bwd_" + c.name);
    SmallVector<HostTensor> inputs =
        getAttentionInputs(c, param.dtype, /*backward=*/true, 100 * index + 7);
    enableRaceCheck();
    FailureOr<SmallVector<HostTensor>> first =
        emulated->invoke("bwd_" + c.name, inputs);
    FailureOr<SmallVector<HostTensor>> second =
        emulated->invoke("bwd_" + c.name, inputs);
    ASSERT_TRUE(succeeded(first) && succeeded(second)) << diagnostics.all();
    ArrayRef<char> a = (*first)[0].getBytes(), b = (*second)[0].getBytes();
    EXPECT_TRUE(a == b) << "dQ differs between two runs";
  }
}

INSTANTIATE_TEST_SUITE_P(, GPUEmulationDeterministic,
                         testing::ValuesIn(kDeterministicParams), getParamName);

/// @pair_<name>(q, k, v, dout, optional...) -> (o, lse, dq, dk, dv[, dmask]):
/// the forward with its lse result and the backward from the forward's O and
/// LSE, as kiln-autodiff pairs them (docs/Attention.md, "The lse result").
std::string getPairedFunction(const AttentionCase &c, StringRef dtype) {
  std::string q = tensorType({c.B, c.Hq, c.Sq, c.Dk}, dtype);
  std::string k = tensorType({c.B, c.Hkv, c.Sk, c.Dk}, dtype);
  std::string v = tensorType({c.B, c.Hkv, c.Sk, c.Dv}, dtype);
  std::string o = tensorType({c.B, c.Hq, c.Sq, c.Dv}, dtype);
  std::string l = tensorType({c.B, c.Hq, c.Sq},
                             dtype == "f16" || dtype == "bf16" ? "f32" : dtype);
  auto [args, groups] = formatOptionalOperands(c, dtype);
  std::string attrs = getAttributes(c);
  auto [results, values] = getGradientTypes(c, dtype);
  return "func.func @pair_" + c.name + "(%q: " + q + ", %k: " + k +
         ", %v: " + v + ", %do: " + o + args + ") -> (" + o + ", " + l + ", " +
         results + ") {\n  %o, %lse = kiln.attention %q, %k, %v" + groups +
         " " + attrs + " : " + q + ", " + k + ", " + v + " -> " + o + ", " + l +
         "\n  " + values + " = kiln.attention_grad %q, %k, %v, %do" + groups +
         " out(%o : " + o + ") lse(%lse : " + l + ") " + attrs + " : " + q +
         ", " + k + ", " + v + ", " + o + " -> " + results + "\n  return %o, " +
         "%lse, " + values + " : " + o + ", " + l + ", " + results + "\n}\n";
}

/// The forward with its lse and the backward from its O and LSE, on the CPU
/// and on the emulator (the lse-writing forward kernels, the backward's
/// D-only preprocess reading the emulated forward's O and LSE, and for
/// f16/bf16 with tensor cores the mma main kernel: what every user of
/// kiln-autodiff runs).
/// Bounds: O as in Forward. LSE = m + log l: +inf exactly where the CPU has
/// it (empty rows), else l a sum of Sk terms and m from dot products of Dk,
/// (2 (Sk + Dk) + 32) u max(1, max|LSE|) (f32 for half types too). The
/// gradients as in Backward, with Sk more terms in n: the backward now reads
/// the forward's O and LSE, each with the error of its own sum over the Sk
/// keys.
/// Half types: the GPU computes D from its rounded O, the CPU rowsum(dP * P)
/// (the bound below was made for D from each side's rounded O, and covers
/// one side's rounding too); the file header bounds what that moves (dQ, dK,
/// d_mask; not dV).
class GPUEmulationPaired : public testing::TestWithParam<AttentionParam> {};

TEST_P(GPUEmulationPaired, ForwardWithLseThenBackward) {
  AttentionParam param = GetParam();
  StringRef dtype = stringifyDType(param.dtype);
  bool halfType = param.dtype == DType::F16 || param.dtype == DType::BF16;
  std::string source;
  for (const AttentionCase &c : getAttentionCases())
    source += getPairedFunction(c, dtype);
  Backends &backends = Backends::get();
  JitModule *cpu = backends.compile("attention-cpu-pair-" + dtype.str(),
                                    source, cpuOptions());
  JitModule *emulated = backends.compile(
      "attention-emu-pair-" + dtype.str() +
          (param.tensorCores ? "-mma" : "-simt") +
          (param.deterministic ? "-deterministic" : ""),
      source,
      emulatorOptions(param.tensorCores, /*softwarePipeline=*/false,
                      param.deterministic));
  // The column sums of P for the half types' bounds (Backward's module).
  JitModule *cpuBackward = halfType ? compileCpuBackward(dtype) : nullptr;
  uint64_t switches = getSwitchCount();
  for (auto [index, c] : llvm::enumerate(getAttentionCases())) {
    SCOPED_TRACE("pair_" + c.name);
    SmallVector<HostTensor> inputs = getAttentionInputs(
        c, param.dtype, /*backward=*/true, 100 * index + 11);
    SmallVector<HostTensor> a, b;
    if (!runBoth(cpu, emulated, "pair_" + c.name, inputs, a, b))
      continue;
    double maxV = maxAbs(inputs[2]);
    double uh = halfType ? getUnitRoundoff(param.dtype) : 0;
    double roundP = param.tensorCores ? uh * maxV : 0;
    expectClose("O", a[0], b[0], c.Sk, maxV, roundP);

    // LSE: the same +inf rows (set to 1 on both sides, in place), then the
    // finite entries.
    HostTensor &cpuLse = a[1], &emuLse = b[1];
    double maxLse = 1;
    int64_t infMismatches = 0;
    for (int64_t i = 0; i < cpuLse.getNumElements(); ++i) {
      double x = cpuLse.getElementAsDouble(i), y = emuLse.getElementAsDouble(i);
      if (std::isinf(x) || std::isinf(y)) {
        infMismatches += !(x == y && x > 0);
        cpuLse.setElementFromDouble(i, 1);
        emuLse.setElementFromDouble(i, 1);
        continue;
      }
      maxLse = std::max(maxLse, std::abs(x));
    }
    EXPECT_EQ(infMismatches, 0) << "LSE: +inf rows differ";
    expectClose("LSE", cpuLse, emuLse, c.Sk + c.Dk, maxLse);

    // The half types' difference of D and what it moves (see above).
    double extras[5] = {0, 0, 0, 0, 0};
    if (halfType) {
      double u = getUnitRoundoff(DType::F32);
      double subnormal = param.dtype == DType::F16 ? std::ldexp(1.0, -24) : 0;
      double perO = (2.0 * c.Sk + 32) * u * maxV + roundP;
      const HostTensor &out = a[0], &dout = inputs[3];
      // With sinks, row (b, h, i)'s P sums to 1 - P_sink, P_sink =
      // exp(sinks[h] - LSE) from the CPU's LSE: the f32 sums and the
      // rounding of P move its O by that much less.
      auto sinkProbability = [&](int64_t row) {
        if (!c.sinks)
          return 0.0;
        double sink = inputs.back().getElementAsDouble(row / c.Sq % c.Hq);
        return std::min(1.0, std::exp(sink - cpuLse.getElementAsDouble(row)));
      };
      double delta = 0;
      SmallVector<double> rowDeltas;
      for (int64_t row = 0; row < c.B * c.Hq * c.Sq; ++row) {
        double sum = 0, sumAbs = 0;
        double perRow = (1 - sinkProbability(row)) * perO + subnormal;
        for (int64_t d = 0; d < c.Dv; ++d) {
          double o = std::abs(out.getElementAsDouble(row * c.Dv + d));
          double g = std::abs(dout.getElementAsDouble(row * c.Dv + d));
          sum += g * (2 * uh * o + perRow);
          sumAbs += g * o;
        }
        rowDeltas.push_back(sum + (2.0 * c.Dv + 32) * u * sumAbs);
        delta = std::max(delta, rowDeltas.back());
      }
      // d_sinks[h] = -sum_{b, i} P_sink D: + sum_{b, i} P_sink delta_i.
      if (c.sinks) {
        for (int64_t h = 0; h < c.Hq; ++h) {
          double sum = 0;
          for (int64_t bi = 0; bi < c.B; ++bi)
            for (int64_t i = 0; i < c.Sq; ++i) {
              int64_t row = (bi * c.Hq + h) * c.Sq + i;
              sum += sinkProbability(row) * rowDeltas[row];
            }
          extras[4] = std::max(extras[4], sum);
        }
      }
      ASSERT_TRUE(cpuBackward);
      FailureOr<BackwardSums> sums =
          getBackwardSums(c, param.dtype, inputs, cpuBackward);
      ASSERT_TRUE(succeeded(sums));
      double scale = c.scale ? c.scale : 1 / std::sqrt(double(c.Dk));
      extras[0] = scale * delta * maxAbs(inputs[1]);
      extras[1] = scale * delta * maxAbs(inputs[0]) * sums->columns;
      if (c.mask == "add") {
        int64_t maskSize = 1;
        for (int64_t dim : c.maskShape)
          maskSize *= dim;
        extras[3] = double(c.B * c.Hq * c.Sq * c.Sk / maskSize) * delta;
      }
      if (param.tensorCores)
        addTensorCoreBackwardTerms(c, param.dtype, inputs, *sums, delta,
                                   extras);
    }

    // The CPU computes rowsum(dP * P) where the GPU kernels use D from the
    // rounded O: in half types a cancellation the CPU makes exact (two
    // visible keys whose K entries are equal: dQ = scale dS (K0 - K1) = 0)
    // is within the bounds but not exact on the GPU. So only whole zero
    // rows (empty query rows, padded keys) must be exact there.
    int64_t zeroRows[] = {halfType ? c.Dk : 1, halfType ? c.Dk : 1,
                          halfType ? c.Dv : 1, 1, 1};
    SmallVector<GradientResult> gradients = getGradientResults(c);
    ASSERT_EQ(gradients.size() + 2, a.size());
    for (auto [i, gradient] : llvm::enumerate(gradients)) {
      const HostTensor &x = a[i + 2], &y = b[i + 2];
      double scale = 4 * std::max(maxAbs(x), maxAbs(y));
      expectClose(gradient.name, x, y, gradient.length + c.Sk, scale,
                  extras[gradient.kind], zeroRows[gradient.kind]);
    }
  }
  EXPECT_GT(getSwitchCount(), switches) << "no kernel ran on the emulator";
}

// f64: the SIMT forward, the backward the generic way (its linalg lowering
// of the out/lse form); f32 and the half types without tensor cores: the
// SIMT kernels and the D-only preprocess; f16/bf16 with tensor cores: the
// mma forward, the D-only preprocess and the mma backward main kernel.
INSTANTIATE_TEST_SUITE_P(, GPUEmulationPaired,
                         testing::ValuesIn(kAttentionParams), getParamName);
// The same with the deterministic backward (GPUEmulationDeterministic).
INSTANTIATE_TEST_SUITE_P(Deterministic, GPUEmulationPaired,
                         testing::ValuesIn(kDeterministicParams), getParamName);

// Generic-path ops (one flat grid per linalg op, reductions sequential in
// the thread): the CPU's lowering patterns on the GPU. Bounds: a sum or
// dot product of n terms (2 n + 32) u max sum|terms| (the terms are
// products of values in [-1, 1), so sum|terms| <= n); softmax and
// layer_norm, a sum of n terms then elementwise ops, the same with
// scale 1 and the result's magnitude; elementwise ops and the gather a few
// ulps of the result (the libdevice functions are the C library's);
// index_add and cumsum exactly.
constexpr const char *kGenericOps = R"mlir(
func.func @matmul(%a: tensor<3x37x50xf32>, %b: tensor<50x29xf32>) -> tensor<3x37x29xf32> {
  %0 = kiln.matmul %a, %b : (tensor<3x37x50xf32>, tensor<50x29xf32>) -> tensor<3x37x29xf32>
  return %0 : tensor<3x37x29xf32>
}
func.func @sum(%x: tensor<6x300xf32>) -> (tensor<6xf32>, tensor<f32>) {
  %0 = kiln.sum %x {axes = array<i64: 1>} : tensor<6x300xf32> -> tensor<6xf32>
  %1 = kiln.sum %x {axes = array<i64: 0, 1>} : tensor<6x300xf32> -> tensor<f32>
  return %0, %1 : tensor<6xf32>, tensor<f32>
}
func.func @softmax(%x: tensor<5x7x90xf32>) -> tensor<5x7x90xf32> {
  %0 = kiln.softmax %x {axis = 2 : i64} : tensor<5x7x90xf32>
  return %0 : tensor<5x7x90xf32>
}
func.func @layer_norm(%x: tensor<9x64xf32>, %w: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<9x64xf32> {
  %0 = kiln.layer_norm %x weight(%w : tensor<64xf32>) bias(%b : tensor<64xf32>) : tensor<9x64xf32>
  return %0 : tensor<9x64xf32>
}
func.func @elementwise(%x: tensor<33x65xf32>, %y: tensor<65xf32>) -> tensor<33x65xf32> {
  %0 = kiln.mul %x, %y : (tensor<33x65xf32>, tensor<65xf32>) -> tensor<33x65xf32>
  %1 = kiln.exp %0 : tensor<33x65xf32>
  %2 = kiln.tanh %1 : tensor<33x65xf32>
  %3 = kiln.add %2, %x : (tensor<33x65xf32>, tensor<33x65xf32>) -> tensor<33x65xf32>
  return %3 : tensor<33x65xf32>
}
func.func @gather(%table: tensor<16x12xf32>, %ids: tensor<3x5xi64>) -> tensor<3x5x12xf32> {
  %0 = kiln.gather %table, %ids {axis = 0 : i64} : (tensor<16x12xf32>, tensor<3x5xi64>) -> tensor<3x5x12xf32>
  return %0 : tensor<3x5x12xf32>
}
func.func @paged_decode(%q: tensor<2x4x1x8xf32>, %kp: tensor<6x2x4x8xf32>, %vp: tensor<6x2x4x8xf32>, %table: tensor<2x3xi32>, %lengths: tensor<2xi32>) -> tensor<2x4x1x8xf32> {
  %k = kiln.gather_pages %kp, %table : (tensor<6x2x4x8xf32>, tensor<2x3xi32>) -> tensor<2x2x12x8xf32>
  %v = kiln.gather_pages %vp, %table : (tensor<6x2x4x8xf32>, tensor<2x3xi32>) -> tensor<2x2x12x8xf32>
  %o = kiln.attention %q, %k, %v key_lengths(%lengths : tensor<2xi32>) {causal} : tensor<2x4x1x8xf32>, tensor<2x2x12x8xf32>, tensor<2x2x12x8xf32> -> tensor<2x4x1x8xf32>
  return %o : tensor<2x4x1x8xf32>
}
func.func @index_add(%x: tensor<3x16x5xf32>, %ids: tensor<40xi64>, %s: tensor<3x40x5xf32>) -> tensor<3x16x5xf32> {
  %0 = kiln.index_add %x, %ids, %s {axis = 1 : i64} : (tensor<3x16x5xf32>, tensor<40xi64>, tensor<3x40x5xf32>) -> tensor<3x16x5xf32>
  return %0 : tensor<3x16x5xf32>
}
func.func @cumsum(%x: tensor<3x40x5xf32>, %y: tensor<6x200xf32>, %z: tensor<2x9x3xbf16>) -> (tensor<3x40x5xf32>, tensor<6x200xf32>, tensor<2x9x3xbf16>) {
  %0 = kiln.cumsum %x {axis = 1 : i64} : tensor<3x40x5xf32>
  %1 = kiln.cumsum %y {axis = 0 : i64, reverse = true} : tensor<6x200xf32>
  %2 = kiln.cumsum %z {axis = 2 : i64, reverse = true} : tensor<2x9x3xbf16>
  return %0, %1, %2 : tensor<3x40x5xf32>, tensor<6x200xf32>, tensor<2x9x3xbf16>
}
)mlir";

TEST(GPUEmulation, GenericOps) {
  Backends &backends = Backends::get();
  JitModule *cpu = backends.compile("generic-cpu", kGenericOps, cpuOptions());
  JitModule *emulated = backends.compile("generic-emu", kGenericOps,
                                         emulatorOptions(true));
  SmallVector<HostTensor> a, b;
  auto rand = [](ArrayRef<int64_t> shape, uint64_t seed) {
    return randomTensor(DType::F32, shape, seed);
  };
  if (runBoth(cpu, emulated, "matmul", {rand({3, 37, 50}, 1), rand({50, 29}, 2)},
              a, b))
    expectClose("matmul", a[0], b[0], 50, 50);
  if (runBoth(cpu, emulated, "sum", {rand({6, 300}, 3)}, a, b)) {
    expectClose("sum row", a[0], b[0], 300, 300);
    expectClose("sum all", a[1], b[1], 1800, 1800);
  }
  if (runBoth(cpu, emulated, "softmax", {rand({5, 7, 90}, 4)}, a, b))
    expectClose("softmax", a[0], b[0], 90, 1);
  if (runBoth(cpu, emulated, "layer_norm",
              {rand({9, 64}, 5), rand({64}, 6), rand({64}, 7)}, a, b))
    expectClose("layer_norm", a[0], b[0], 64, 4 * maxAbs(a[0]));
  if (runBoth(cpu, emulated, "elementwise", {rand({33, 65}, 8), rand({65}, 9)},
              a, b))
    expectClose("elementwise", a[0], b[0], 1, 4 * maxAbs(a[0]));
  SmallVector<double> ids;
  for (int64_t i = 0; i < 15; ++i)
    ids.push_back((i * 7) % 16);
  if (runBoth(cpu, emulated, "gather",
              {rand({16, 12}, 10), makeTensor(DType::I64, {3, 5}, ids)}, a, b))
    expectClose("gather", a[0], b[0], 0, 0);
  // A paged KV cache (kiln.gather_pages, one generic kernel per cache, then
  // the attention kernel) with clamped table entries past the lengths: the
  // gathers are bit-identical, the attention within its f32 sums (12 keys,
  // 8 dims) of the values' scale.
  {
    HostTensor values = rand({6, 2, 4, 8}, 18);
    double scale = 4 * maxAbs(values);
    if (runBoth(cpu, emulated, "paged_decode",
                {rand({2, 4, 1, 8}, 16), rand({6, 2, 4, 8}, 17), std::move(values),
                 makeTensor(DType::I32, {2, 3}, {3, 0, 5, 1, -1, 9}),
                 makeTensor(DType::I32, {2}, {10, 5})},
                a, b))
      expectClose("paged decode", a[0], b[0], 12 + 8, scale);
  }
  // Repeated ids and both clamps; each thread adds its column in index
  // order, as the CPU does: bit-identical.
  SmallVector<double> addIds;
  for (int64_t i = 0; i < 40; ++i)
    addIds.push_back((i * 7) % 19 - 1);
  if (runBoth(cpu, emulated, "index_add",
              {rand({3, 16, 5}, 11), makeTensor(DType::I64, {40}, addIds),
               rand({3, 40, 5}, 12)},
              a, b))
    expectClose("index_add", a[0], b[0], 0, 0);
  // The CPU's row chunks and the GPU's columns add the same terms in the
  // same order along the axis: the same bits (compare() allows bf16 its
  // rounding, f32 nothing).
  if (runBoth(cpu, emulated, "cumsum",
              {rand({3, 40, 5}, 13), rand({6, 200}, 14),
               randomTensor(DType::BF16, {2, 9, 3}, 15)},
              a, b)) {
    expectClose("cumsum middle", a[0], b[0], 0, 0);
    expectClose("cumsum reverse chunks", a[1], b[1], 0, 0);
    expectClose("cumsum bf16 last", a[2], b[2], 0, 0);
  }
}

/// examples/train_block.mlir's @loss_and_grads: the transformer block's loss
/// and the gradients of its 12 parameters, through the attention kernels
/// (causal GQA, head dim 4: the SIMT kernels) and the generic path. Bound:
/// the analysis of scripts/fixtures/gen_block_grad.py (about 60 ops deep,
/// dot products of length <= 32): an error of about 1e-4 of the gradients'
/// scale per backend, i.e. (2 n + 32) u scale with n = 32 * 60 and scale the
/// largest gradient.
TEST(GPUEmulation, TransformerBlock) {
  auto buffer = llvm::MemoryBuffer::getFile(KILN_EXAMPLES_DIR
                                            "/train_block.mlir");
  ASSERT_TRUE(bool(buffer));
  std::string source = (*buffer)->getBuffer().str();
  Backends &backends = Backends::get();
  JitModule *cpu = backends.compile("block-cpu", source, cpuOptions());
  JitModule *emulated =
      backends.compile("block-emu", source, emulatorOptions(true));
  ASSERT_TRUE(cpu && emulated);
  const FunctionSignature *signature = cpu->lookupSignature("loss_and_grads");
  ASSERT_TRUE(signature);
  SmallVector<HostTensor> inputs;
  SmallVector<double> tokens, labels;
  for (int64_t i = 0; i < 16; ++i)
    tokens.push_back((i * 13 + 5) % 32);
  labels = {1, 4};
  inputs.push_back(makeTensor(DType::I64, {2, 8}, tokens));
  inputs.push_back(makeTensor(DType::I64, {2}, labels));
  for (size_t i = 2; i < signature->inputs.size(); ++i) {
    HostTensor weight =
        randomTensor(DType::F32, signature->inputs[i].shape, 40 + i);
    // Weights of the scale an initialization would give (|w| < 0.5).
    for (int64_t j = 0; j < weight.getNumElements(); ++j)
      weight.setElementFromDouble(j, 0.5 * weight.getElementAsDouble(j));
    inputs.push_back(std::move(weight));
  }
  SmallVector<HostTensor> a, b;
  ASSERT_TRUE(runBoth(cpu, emulated, "loss_and_grads", inputs, a, b));
  double scale = 0;
  for (const HostTensor &gradient : ArrayRef(a).drop_front())
    scale = std::max(scale, maxAbs(gradient));
  expectClose("loss", a[0], b[0], 32 * 60, std::abs(a[0].getElementAsDouble(0)));
  for (size_t i = 1; i < a.size(); ++i)
    expectClose(("grad " + std::to_string(i)).c_str(), a[i], b[i], 32 * 60,
                scale);
}

} // namespace
