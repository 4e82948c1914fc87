#!/usr/bin/env python3
"""Source mutation testing: does the test suite catch small bugs in Kiln?

Each mutant is one small edit of the real source (a flipped comparison, a
dropped term, a swapped operand, a removed verifier check), given as
(file, exact original snippet, replacement, test commands). For each one the
script applies the edit with a plain text replace (the snippet must occur
exactly once), rebuilds only the targets its tests need, runs the tests with
a timeout, and ALWAYS restores the file (checked with `git diff --quiet`). A
mutant is "killed" when a test command fails (or times out), "survived" when
every command passes, "broken" when it does not compile (a bad mutant, not a
result). Survivors are re-run against the whole `ctest` before they are
called survivors (`--no-full` skips that).

Offline, not part of ctest: one mutant costs a rebuild of one .cpp plus the
relinks and its tests (about 0.5 to 3 minutes on two cores).

  test/robustness/mutate_source.py --build build            # every mutant
  test/robustness/mutate_source.py --build build --only vis-left-ge,ad-fanout
  test/robustness/mutate_source.py --list                   # ids and areas
  test/robustness/mutate_source.py --check                  # snippets only

The table (markdown) goes to stdout and to --out (default
<build>/mutants/report.md), with a JSON copy next to it. Mutants marked
`equivalent` in the list are run too; their note says why no test can tell
them from the original.
"""
import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import List, Optional

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIT = "/usr/lib/llvm-22/bin/lit"


@dataclass
class Test:
    """One test command: argv relative to the build dir, and the build
    targets it needs."""
    name: str
    argv: List[str]
    targets: List[str]


def gtest(binary, gfilter):
    return Test(f"{binary} {gfilter}",
                [f"test/unittests/{binary}", f"--gtest_filter={gfilter}"], [binary])


def lit(path, tools=("kiln-opt",)):
    return Test(f"lit {path}", [LIT, "-q", f"test/{path}"], list(tools))


def FIX(gfilter):
    return gtest("KilnFixtureTests", "*MatchesPyTorch/" + gfilter)


FIX_ATT = FIX("attention_*")            # attention.json and attention_grad.json
FIX_ATT_FWD = FIX("attention_attention_*")
FIX_ATT_GRAD = FIX("attention_grad_*")
FIX_AD = FIX("autodiff_*")
DEC = gtest("KilnDecomposeAttentionTests", "*")
DEC_FIX = gtest("KilnDecomposeAttentionTests", "Fixtures/*")
EMU_F32 = gtest("KilnGPUEmulationTests", "GPUEmulationAttention.*/f32_simt")
EMU_F64 = gtest("KilnGPUEmulationTests", "GPUEmulationAttention.*/f64_simt")
EMU_F16_MMA = gtest("KilnGPUEmulationTests", "GPUEmulationAttention.*/f16_mma")
EMU_PAIRED_F32 = gtest("KilnGPUEmulationTests", "GPUEmulationPaired.*/f32_simt")
PHILOX = gtest("KilnCPUBackendTests", "*Philox*:*Dropout*")
AD = gtest("KilnAutodiffTests", "*")
DIALECT_ATT = gtest("KilnDialectTests", "AttentionOpTest.*")
GRAPH_JSON = gtest("KilnGraphJsonTests", "*")
INVALID_ATT = lit("Dialect/Kiln/invalid-attention.mlir")


def AD_CASE(pattern):
    return gtest("KilnAutodiffTests", f"*{pattern}*")


@dataclass
class Mutant:
    id: str
    area: str
    file: str
    old: str
    new: str
    what: str
    tests: List[Test]
    # Why no test can tell this mutant from the original, if so.
    equivalent: Optional[str] = None
    line: int = 0
    result: str = ""
    killed_by: str = ""
    seconds: float = 0.0
    detail: str = field(default="", repr=False)


A = "lib/Conversion/KilnToLinalg/Attention.cpp"
AG = "lib/Conversion/KilnToLinalg/AttentionGrad.cpp"
AT = "lib/Dialect/Kiln/Utils/AttentionUtils.cpp"
PH = "lib/Dialect/Kiln/Utils/Philox.cpp"
DR = "lib/Conversion/KilnToLinalg/Dropout.cpp"
DA = "lib/Dialect/Kiln/Transforms/DecomposeAttention.cpp"
GF = "lib/Conversion/KilnToGPU/AttentionForward.cpp"
GFH = "lib/Conversion/KilnToGPU/AttentionForward.h"
GFS = "lib/Conversion/KilnToGPU/AttentionForwardSimt.cpp"
GFM = "lib/Conversion/KilnToGPU/AttentionForwardMma.cpp"
GB = "lib/Conversion/KilnToGPU/AttentionBackward.cpp"
GBM = "lib/Conversion/KilnToGPU/AttentionBackwardMma.cpp"
VER = "lib/Dialect/Kiln/IR/AttentionOps.cpp"
AU = "lib/Dialect/Kiln/Transforms/Autodiff.cpp"
AUU = "lib/Dialect/Kiln/Transforms/AutodiffUtils.cpp"
ER = "lib/Dialect/Kiln/Transforms/Rules/ElementwiseRules.cpp"
RR = "lib/Dialect/Kiln/Transforms/Rules/ReductionRules.cpp"
NR = "lib/Dialect/Kiln/Transforms/Rules/NNRules.cpp"
TR = "lib/Dialect/Kiln/Transforms/Rules/TensorRules.cpp"
CR = "lib/Dialect/Kiln/Transforms/Rules/ConvRules.cpp"
AR = "lib/Dialect/Kiln/Transforms/Rules/AttentionRules.cpp"
GJ = "lib/Target/GraphJson/GraphJsonImportNode.cpp"
GJV = "lib/Target/GraphJson/GraphJsonImportValues.cpp"
K2L = "lib/Conversion/KilnToLinalg/KilnToLinalg.cpp"
EP = "lib/Conversion/KilnToLinalg/EntryPoints.cpp"
KC = "lib/Runtime/AotEntryPoints.c"
KR = "tools/kiln-run/kiln-run.cpp"
NPY = "lib/Support/Npy.cpp"
MPL = "lib/Conversion/GPUHost/MapParallelLoops.cpp"

MUTANTS = [
    # --- Attention's one definition (kiln/Dialect/Kiln/Utils/
    # AttentionUtils.cpp), which the CPU lowering, the GPU kernels and the
    # decomposition all read: one mutant per rule, killed by the PyTorch
    # fixtures (CPU), the emulated GPU kernels and the decomposition alike.
    Mutant("vis-left-ge", "attention definition", AT,
           "arith::CmpIPredicate::sge, j,\n                                  firstKey",
           "arith::CmpIPredicate::sgt, j,\n                                  firstKey",
           "left window edge j >= p(i) - L becomes j > p(i) - L", [FIX_ATT]),
    Mutant("vis-right-lt", "attention definition", AT,
           "arith::CmpIPredicate::slt, j,\n                                  endKey",
           "arith::CmpIPredicate::sle, j,\n                                  endKey",
           "right edge / causal j < p(i) + R + 1 becomes <=", [FIX_ATT]),
    Mutant("vis-align-offset", "attention definition", AT,
           "alignment == AttentionAlignment::bottom_right ? numKeys - numQueries\n",
           "alignment == AttentionAlignment::bottom_right ? numQueries - numKeys\n",
           "bottom_right offset Sk - Sq negated (predicate, key tiles, GPU "
           "loop bounds, decomposition, ALiBi's distance)", [FIX_ATT, DEC_FIX, EMU_F32]),
    Mutant("vis-edge-bound-sq", "attention definition", AT,
           "return edge && *edge < numQueries + numKeys;",
           "return edge && *edge < numQueries;",
           "an edge >= Sq (not Sq + Sk) is taken as unbounded", [FIX_ATT]),
    Mutant("band-end-key", "attention definition", AT,
           "addConstant(builder, loc, row, *maxDistance + 1)",
           "addConstant(builder, loc, row, *maxDistance)",
           "a row's band ends one key early (predicate and GPU key ranges)",
           [FIX_ATT, EMU_F32]),
    Mutant("band-first-row", "attention definition", AT,
           "addConstant(builder, loc, key, -*maxDistance)",
           "addConstant(builder, loc, key, 1 - *maxDistance)",
           "a key's band starts one row late (GPU backward query tiles)",
           [EMU_F32]),
    Mutant("band-end-row", "attention definition", AT,
           "addConstant(builder, loc, key, 1 - *minDistance)",
           "addConstant(builder, loc, key, -*minDistance)",
           "a key's band ends one row early (GPU backward query tiles)",
           [EMU_F32]),
    Mutant("vis-keylen-lt", "attention definition", AT,
           "arith::CmpIPredicate::slt, j,\n                                  length",
           "arith::CmpIPredicate::sle, j,\n                                  length",
           "key length j < kl becomes j <= kl", [FIX_ATT]),
    Mutant("vis-clamp-low", "attention definition", AT,
           "  length = arith::MaxSIOp::create(\n      builder, loc, length,\n      arith::ConstantOp::create(builder, loc, builder.getI64IntegerAttr(0)));\n",
           "",
           "lengths no longer clamped at 0", [FIX_ATT, EMU_F32],
           equivalent="every use compares j < length or bounds a loop by "
                      "min(Sk, length) with j >= 0: a negative length and 0 "
                      "exclude the same keys, and a loop with an upper bound "
                      "below its lower bound runs no iteration"),
    Mutant("vis-clamp-high", "attention definition", AT,
           "  length = arith::MinSIOp::create(\n      builder, loc, length,\n      arith::ConstantOp::create(builder, loc,\n                                builder.getI64IntegerAttr(bound)));\n",
           "",
           "lengths no longer clamped at Sk / Sq", [FIX_ATT, EMU_F32],
           equivalent="every use compares j < length or i < length with "
                      "j < Sk, i < Sq, or takes min(Sk, length), or ands "
                      "the test with j < Sk: a length beyond Sk (Sq) and Sk "
                      "(Sq) itself select the same keys (rows)"),
    Mutant("vis-bcast-align", "attention definition", AT,
           ": indices[leading + dim]);", ": indices[dim]);",
           "a rank < 4 mask aligned with the leading, not trailing, indices",
           [FIX_ATT]),
    Mutant("vis-bcast-size1", "attention definition", AT,
           "reads.push_back(size == 1 ? constIndex(builder, loc, 0)",
           "reads.push_back(size == 0 ? constIndex(builder, loc, 0)",
           "a size-1 mask dim read at the index, not at 0 (no broadcast)",
           [FIX_ATT]),
    Mutant("logit-softcap-div", "attention definition", AT,
           "arith::DivFOp::create(builder, loc, x, cap)",
           "arith::MulFOp::create(builder, loc, x, cap)",
           "softcap tanh(x / c) becomes tanh(x * c)", [FIX_ATT, EMU_F32]),
    Mutant("logit-softcap-deriv", "attention definition", AT,
           "*capDerivative = arith::SubFOp::create(",
           "*capDerivative = arith::AddFOp::create(",
           "the GPU backward's softcap factor 1 + tanh^2", [EMU_F32]),
    Mutant("logit-alibi-offset", "attention definition", AT,
           "  return addConstant(builder, loc, row, positionOffset);",
           "  return row;",
           "ALiBi's distance from i instead of p(i) (bottom_right, Sq != Sk)",
           [FIX_ATT, EMU_F32]),
    Mutant("packed-first-wins", "attention definition", AT,
           "            b, loc, constIndex(b, loc, numSequences - 1), t);",
           "            b, loc, t, constIndex(b, loc, 0));",
           "packed sequences searched first to last, so the last sequence "
           "that holds a row wins (offsets out of order)", [FIX_ATT]),
    Mutant("packed-position-offset", "attention definition", AT,
           "        if (alignment == AttentionAlignment::bottom_right)\n"
           "          position = arith::AddIOp::create(",
           "        if (alignment == AttentionAlignment::top_left)\n"
           "          position = arith::AddIOp::create(",
           "a packed sequence's bottom_right offset applied to top_left "
           "instead (cross lengths)", [FIX_ATT, EMU_F32]),
    Mutant("packed-key-end", "attention definition", AT,
           "    conjoin(arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, j,\n"
           "                                  keyEnd));",
           "    conjoin(arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sle, j,\n"
           "                                  keyEnd));",
           "a row sees the first key of the next sequence", [FIX_ATT, EMU_F32]),
    Mutant("packed-whole-tile", "GPU kernels", "include/kiln/Dialect/Kiln/Utils/AttentionUtils.h",
           "    return booleanMask || queryLengths || static_cast<bool>(sequences);",
           "    return booleanMask || queryLengths;",
           "the tensor-core kernels' whole-tile shortcut skips the packed "
           "sequences' predicate", [EMU_F16_MMA]),
    Mutant("logit-alibi-abs", "attention definition", AT,
           "    distance = math::AbsIOp::create(\n        builder, loc,\n        arith::IndexCastOp::create(builder, loc, builder.getI64Type(),\n                                   distance));",
           "    distance = arith::IndexCastOp::create(builder, loc, builder.getI64Type(),\n                                          distance);",
           "ALiBi's signed distance j - p(i) instead of |j - p(i)| (keys "
           "after the query)", [FIX_ATT]),
    Mutant("sink-fold-rescale", "attention definition", AT,
           "fold.rescale = buildGuardedExp(builder, loc, m, fold.max, negInf);",
           "fold.rescale = buildGuardedExp(builder, loc, fold.max, m, negInf);",
           "the sink fold's rescale exp(m' - m) instead of exp(m - m') (a "
           "sink above the row max)", [FIX_ATT, EMU_F32]),
    Mutant("sink-fold-pivot", "attention definition", AT,
           "      buildGuardedExp(builder, loc, sink, fold.max, negInf));",
           "      buildGuardedExp(builder, loc, sink, m, negInf));",
           "the sink's term exp(s - m) against the old max instead of m'",
           [FIX_ATT, EMU_F32]),
    Mutant("cpu-sink-adjoint-sign", "attention adjoint", AG,
           "  Value sum = arith::SubFOp::create(\n      builder, loc, tensor::ExtractOp::create(builder, loc, acc, ValueRange{h}),",
           "  Value sum = arith::AddFOp::create(\n      builder, loc, tensor::ExtractOp::create(builder, loc, acc, ValueRange{h}),",
           "d_sinks accumulated with the sign of P_sink * D instead of its "
           "negation (CPU adjoint)", [FIX_ATT_GRAD]),
    Mutant("cpu-sink-saved-renorm", "attention adjoint", AG,
           "  auto [foldMax, foldSum, scale] = bb.foldSinkIntoRows(lse, rowSum, sink);",
           "  auto [foldMax, foldSum, scale] = bb.foldSinkIntoRows(\n      lse, rowSum, bb.constant(builder, loc, -std::numeric_limits<double>::infinity()));",
           "the saved-LSE renormalisation without the sink (rows whose keys "
           "carry a huge bias)", [FIX_ATT_GRAD]),
    Mutant("dec-sink-adjoint-sign", "decomposition", DA,
           "    Value dsinks = NegOp::create(b, loc, mul(b, loc, forward.sinkProbs, rowDot));",
           "    Value dsinks = mul(b, loc, forward.sinkProbs, rowDot);",
           "the decomposition's d_sinks without its sign", [DEC_FIX]),
    Mutant("dropout-scale-attention", "dropout", AT,
           "builder.getFloatAttr(type, 1.0 / (1.0 - p))",
           "builder.getFloatAttr(type, 1.0 / p)",
           "attention's kept P scaled by 1 / p (CPU and GPU forward and "
           "adjoint)", [FIX_ATT, EMU_F16_MMA]),
    Mutant("dropout-index-order", "dropout", AT,
           "Value coords[] = {h, i, j};", "Value coords[] = {i, h, j};",
           "attention dropout's flat index with h and i swapped", [FIX_ATT]),
    Mutant("guarded-exp-empty", "attention definition", AT,
           "arith::CmpFPredicate::OEQ, m,\n      arith::ConstantOp::create(builder, loc,\n                                builder.getFloatAttr(type, emptyRow)));",
           "arith::CmpFPredicate::OEQ, m,\n      arith::ConstantOp::create(builder, loc,\n                                builder.getFloatAttr(type, 0.0)));",
           "the empty-row guard tests m == 0 instead of m == +-inf", [FIX_ATT]),

    # --- Philox and kiln.dropout.
    Mutant("philox-rounds", "dropout", PH,
           "for (int round = 0; round < kPhiloxRounds; ++round)",
           "for (int round = 0; round < kPhiloxRounds - 1; ++round)",
           "Philox 4x32-9 instead of -10", [PHILOX]),
    Mutant("dropout-keep-ge", "dropout", PH,
           "builder, loc, arith::CmpIPredicate::sge, wide,",
           "builder, loc, arith::CmpIPredicate::sgt, wide,",
           "keep iff w > threshold (not >=): off by one at the threshold",
           [PHILOX, FIX("*dropout*")]),
    Mutant("dropout-scale", "dropout", DR,
           "rewriter.getFloatAttr(computeType, 1.0 / (1.0 - p));",
           "rewriter.getFloatAttr(computeType, 1.0 / p);",
           "kiln.dropout scales kept values by 1/p", [PHILOX]),

    # --- The CPU linalg lowerings (forward and adjoint).
    # The forward's query-block tasks (buildQueryBlockTasks) and the head
    # loop (buildGroupHeadLoop), which the adjoint shares.
    Mutant("cpu-kv-head", "CPU lowering", A,
           "g = arith::DivUIOp::create(\n                builder, loc, h, constIndex(builder, loc, sizes.groupSize));",
           "g = arith::RemUIOp::create(\n                builder, loc, h, constIndex(builder, loc, sizes.groupSize));",
           "forward's kv head g = h % R instead of h / R", [FIX_ATT]),
    Mutant("cpu-block-order", "CPU lowering", A,
           "b, l, constIndex(b, l, numFull - 1), half);",
           "b, l, constIndex(b, l, numFull - 2), half);",
           "the odd query-block tasks take block n - 2 - t / 2: one block "
           "twice, another never", [FIX_ATT]),
    Mutant("cpu-group-head", "CPU lowering", A,
           "b, l, arith::MulIOp::create(b, l, g, groupSizeValue), r);",
           "b, l, arith::MulIOp::create(b, l, g, groupSizeValue),\n            constIndex(b, l, 0));",
           "query head h = g * R (r dropped)", [FIX_ATT]),
    Mutant("cpu-fwd-empty-row", "CPU lowering", A,
           "return arith::SelectOp::create(pb, pl, empty, zeroValue, o);",
           "return o;",
           "forward empty rows no longer zeroed (0 / 0)", [FIX_ATT_FWD]),
    Mutant("cpu-lanes-tail", "CPU lowering", A,
           "SmallVector<OpFoldResult> offsets = {builder.getIndexAttr(0), whole};",
           "SmallVector<OpFoldResult> offsets = {builder.getIndexAttr(0), "
           "builder.getIndexAttr(0)};",
           "the row reductions' last width mod 16 columns read from column 0",
           [FIX_ATT]),
    Mutant("cpu-exp-cody-waite", "CPU pipeline",
           "lib/Conversion/LinalgToCPU/ExpandMath.cpp",
           "r = fma(kf, f(-1.428606765330187e-06f), r);", "",
           "exp's range reduction without the low part of ln2",
           [gtest("KilnCPUBackendTests", "ExpandMath*")]),
    Mutant("cpu-amx-b-tile", "CPU pipeline",
           "lib/Conversion/LinalgToCPU/AmxMatmul.cpp",
           "ValueRange{depthTile, tileColumns[s], zero, zero}",
           "ValueRange{depthTile, tileColumns[0], zero, zero}",
           "the AMX kernel's second B tile read from the first's columns",
           [gtest("KilnCPUBackendTests", "AmxMatmul*")]),
    Mutant("cpu-amx-pair-order", "CPU pipeline",
           "lib/Conversion/LinalgToCPU/AmxMatmul.cpp",
           "vector::InterleaveOp::create(jb, loc, first, second);",
           "vector::InterleaveOp::create(jb, loc, second, first);",
           "B's row pairs interleaved the wrong way round",
           [gtest("KilnCPUBackendTests", "AmxMatmul*")]),
    Mutant("cpu-amx-no-copy-back", "CPU pipeline",
           "lib/Conversion/LinalgToCPU/AmxMatmul.cpp",
           "    if (copyC)\n      linalg::CopyOp::create(builder, loc, view(builder, cSource, m, n), c);",
           "",
           "a padded C never copied back to the output",
           [gtest("KilnCPUBackendTests", "AmxMatmul*")]),
    Mutant("cpu-grad-dp-dropout", "CPU lowering", AG,
           "dropped(bb.visibleProduct(dout,", "(bb.visibleProduct(dout,",
           "adjoint's dP not multiplied by Z / (1 - p)", [FIX_ATT_GRAD]),
    Mutant("cpu-grad-softcap-deriv", "CPU lowering", AG,
           "arith::SubFOp::create(pb, pl, bb.constant(pb, pl, 1.0),",
           "arith::AddFOp::create(pb, pl, bb.constant(pb, pl, 1.0),",
           "softcap derivative 1 + tanh^2", [FIX_ATT_GRAD]),
    Mutant("cpu-grad-saved-lse-guard", "CPU lowering", AG,
           "-negInf);", "negInf);",
           "saved-LSE guard tests -inf instead of +inf", [FIX_ATT_GRAD],
           equivalent="an empty row has LSE = +inf and only t = -inf entries, "
                      "so exp(t - LSE) = exp(-inf) = 0 without the guard; no "
                      "finite t meets LSE = +inf"),
    Mutant("cpu-grad-dmask-broadcast", "CPU lowering", AG,
           "{maskAt(0, b), maskAt(1, h),", "{maskAt(0, b), maskAt(1, b),",
           "per-head d_mask accumulated at the batch index", [FIX_ATT_GRAD]),
    Mutant("cpu-index-add-row-tail", "CPU lowering",
           "lib/Conversion/KilnToLinalg/Indexing.cpp",
           "row = addRow(row, vectorEnd, width, 1);",
           "row = addRow(row, zero, width, 1);",
           "index_add's row chunks add the vectorized part again, element "
           "by element", [lit("Integration/CPU/index-add-rows.mlir",
                              ("kiln-opt", "kiln-run"))]),
    Mutant("cpu-cumsum-row-prev", "CPU lowering",
           "lib/Conversion/KilnToLinalg/Reduction.cpp",
           "                    : arith::SubIOp::create(b, bodyLoc, i, one).getResult();",
           "                    : arith::SubIOp::create(b, bodyLoc, i, i).getResult();",
           "cumsum's row chunks add the first row, not the previous one",
           [FIX("cumsum_cumsum_chunks_*"),
            lit("Integration/CPU/cumsum.mlir", ("kiln-opt", "kiln-run"))]),
    # Query blocks and key tiles (Attention.cpp, AttentionGrad.cpp): the
    # fixtures' tiles_* cases have bands that start and end inside tiles.
    Mutant("cpu-tiles-end", "CPU lowering", A,
           "clampTile((d0 + lastKey).floorDiv(kAttentionKeyTile) + 1,",
           "clampTile((d0 + lastKey).floorDiv(kAttentionKeyTile) + 0,",
           "a block's last visible key tile is skipped", [FIX_ATT]),
    Mutant("cpu-tiles-first", "CPU lowering", A,
           "clampTile((d0 + firstKey).floorDiv(kAttentionKeyTile), tiles.endTile);",
           "clampTile((d0 + firstKey).floorDiv(kAttentionKeyTile) + 1,\n                  tiles.endTile);",
           "a block's first visible key tile is skipped", [FIX_ATT]),
    Mutant("cpu-tiles-remainder", "CPU lowering", A,
           "arith::CmpIPredicate::sgt,\n                              getIndexValue(builder, loc, tiles.endTile),",
           "arith::CmpIPredicate::slt,\n                              getIndexValue(builder, loc, tiles.endTile),",
           "the partial last key tile is skipped in the query-block loop",
           [FIX_ATT]),
    Mutant("cpu-tiles-remainder-static", "CPU lowering", A,
           "if (*firstTile <= numFull && numFull < *endTile)",
           "if (*firstTile <= numFull && numFull + 1 < *endTile)",
           "the partial last key tile is skipped in a static range (the "
           "remainder query block)", [FIX_ATT]),
    Mutant("cpu-block-key-offset", "CPU lowering", A,
           "addOffset(builder, loc, j, tiles.firstKey)};",
           "j};",
           "a block's column index not offset by its first visible key "
           "(logits and dropout of both lowerings)", [FIX_ATT]),
    Mutant("cpu-grad-tile-rows", "CPU lowering", AG,
           "return {tb.insertRows(tile, tileArgs[0], firstKey)};",
           "return {tb.insertRows(tile, tileArgs[0], column)};",
           "dK/dV of a key tile stored at its column in the visible block, "
           "not at its key", [FIX_ATT_GRAD]),

    # --- kiln-decompose-attention.
    Mutant("gather-pages-slot", "CPU lowering", "lib/Conversion/KilnToLinalg/Indexing.cpp",
           "          Value slot = arith::DivUIOp::create(b, loc, at[2], size);",
           "          Value slot = arith::RemUIOp::create(b, loc, at[2], size);",
           "kiln.gather_pages reads table entry j % T instead of j / T",
           [FIX("attention_attention_paged_*")]),
    Mutant("gather-pages-adjoint-order", "autodiff", "lib/Dialect/Kiln/Transforms/Rules/TensorRules.cpp",
           "  g = PermuteOp::create(c.b, c.loc, g, ArrayRef<int64_t>{0, 2, 1, 3, 4});",
           "  g = PermuteOp::create(c.b, c.loc, g, ArrayRef<int64_t>{0, 1, 2, 3, 4});",
           "the pages' gradient cut into page slices head-major instead of "
           "page-major", [FIX("autodiff_gather_pages_*")]),
    Mutant("dec-packed-first-wins", "decomposition", DA,
           "      MinOp::create(b, loc, candidates, ArrayRef<int64_t>{1}, false);",
           "      MaxOp::create(b, loc, candidates, ArrayRef<int64_t>{1}, false);",
           "the decomposition takes the largest candidate sequence of a row "
           "(N, none) instead of the least", [DEC_FIX]),
    Mutant("dec-mask-heads", "decomposition", DA,
           "return {shape4[0], numKVHeads, groupSize, shape4[2], shape4[3]};",
           "return {shape4[0], groupSize, numKVHeads, shape4[2], shape4[3]};",
           "a per-head mask split [R, Hkv] instead of [Hkv, R]", [DEC_FIX]),
    Mutant("dec-empty-probs", "decomposition", DA,
           "    probs = SelectOp::create(b, loc, empty, zero, probs);\n", "",
           "empty rows keep the uniform softmax of 0", [DEC_FIX]),
    Mutant("dec-lse-inf", "decomposition", DA,
           "if (forward.emptyRows)\n    lse =", "if (false)\n    lse =",
           "LSE of an empty row not set to +inf", [DEC_FIX]),
    Mutant("dec-dv-sum-r", "decomposition", DA,
           "dvalue = SumOp::create(b, loc, dvalue, ArrayRef<int64_t>{2},",
           "dvalue = MaxOp::create(b, loc, dvalue, ArrayRef<int64_t>{2},",
           "dV reduced over R with max instead of sum", [DEC_FIX]),
    Mutant("dec-softcap-deriv", "decomposition", DA,
           "ds = mul(b, loc, dt,\n             sub(b, loc, one,",
           "ds = mul(b, loc, dt,\n             add(b, loc, one,",
           "softcap derivative 1 + tanh^2", [DEC_FIX]),
    Mutant("dec-rowdot-dropped", "decomposition", DA,
           "mul(b, loc, dprobs, forward.probs)",
           "mul(b, loc, dprobs, forward.droppedProbs)",
           "rowsum(dP * P') instead of rowsum(dP * P) with dropout", [DEC_FIX]),
    Mutant("dec-dmask-ds", "decomposition", DA,
           "Value dt4 = reshapeTo(b, loc, dt,", "Value dt4 = reshapeTo(b, loc, ds,",
           "d_mask takes dS (after the softcap factor), not dT", [DEC_FIX]),

    # --- GPU kernels (KilnToGPU), run on the CPU by the emulator against the
    # CPU lowering.
    Mutant("gpu-keyrange-right", "GPU kernels", GF,
           "    hi = kb.min(hi, endKey);",
           "    hi = kb.min(hi, kb.add(endKey, kb.index(-1)));",
           "forward key range stops one key before the band's right edge",
           [EMU_F32]),
    Mutant("gpu-fwd-gqa-pack", "GPU kernels", GFH,
           "return {kb.add(kb.mul(kvHead, group), member), at};",
           "return {kb.add(kvHead, member), at};",
           "packed GQA row maps to head g + r instead of g * R + r", [EMU_F32]),
    Mutant("gpu-fwd-alpha", "GPU kernels", GFS,
           "kb.select(stillEmpty, kb.fconst(1.0), kb.exp(kb.subf(m, newMax)));",
           "kb.select(stillEmpty, kb.fconst(1.0), kb.exp(kb.subf(newMax, m)));",
           "SIMT online-softmax rescale exp(m' - m) instead of exp(m - m')",
           [EMU_F32]),
    Mutant("gpu-fwd-sum-dropped", "GPU kernels", GFS,
           "return {kb.addf(sum[0], p)};", "return {kb.addf(sum[0], w)};",
           "SIMT row sum l adds the dropped-out weight", [EMU_F32]),
    Mutant("gpu-fwd-lse-empty", "GPU kernels", GFS,
           "kb.select(empty, kb.fconst(std::numeric_limits<double>::infinity()),",
           "kb.select(empty, kb.fconst(-std::numeric_limits<double>::infinity()),",
           "SIMT LSE of an empty row -inf", [EMU_PAIRED_F32]),
    Mutant("gpu-fwd-mma-whole-left", "GPU kernels", GFM,
           "arith::CmpIPredicate::sge, kt,\n                                firstKey));",
           "arith::CmpIPredicate::sge, kt,\n                                kb.add(firstKey, kb.index(-1))));",
           "mma forward: a tile one key left of the band taken as whole",
           [EMU_F16_MMA]),
    Mutant("gpu-fwd-mma-whole-right", "GPU kernels", GFM,
           "kb.lt(last, endKey));",
           "kb.lt(last, kb.add(endKey, kb.index(1))));",
           "mma forward: a tile one key right of the band taken as whole",
           [EMU_F16_MMA]),
    Mutant("gpu-bwd-mask-index", "GPU kernels", GB,
           "    if (size != 1)\n      flat = kb.add(flat, coords[4 - shape.size() + d]);",
           "    flat = kb.add(flat, coords[4 - shape.size() + d]);",
           "d_mask index ignores broadcast (size-1) dims", [EMU_F32]),
    Mutant("gpu-bwd-prep-left", "GPU kernels", GB,
           "    firstKey = kb.max(zero, bandFirst);",
           "    firstKey = kb.max(zero, kb.add(bandFirst, kb.index(1)));",
           "preprocess (LSE, D) skips the band's first key", [EMU_F32]),
    Mutant("gpu-bwd-prep-lse-empty", "GPU kernels", GB,
           "kb.store(kb.select(empty, kb.f32(inf), m), lse, row);",
           "kb.store(m, lse, row);",
           "preprocess row max of an empty row -inf instead of +inf",
           [EMU_F32]),
    Mutant("gpu-sink-grad-sign", "GPU kernels", GB,
           "          kb.store(arith::NegFOp::create(kb.b, kb.loc,\n                                         kb.load(partial, kb.index(0))),\n                   dsinks, h);",
           "          kb.store(kb.load(partial, kb.index(0)), dsinks, h);",
           "the GPU d_sinks without its sign", [EMU_F32]),
    Mutant("gpu-sink-grad-tree", "GPU kernels", GB,
           "Value other = kb.add(t, kb.index(half));",
           "Value other = t;",
           "the d_sinks tree adding a partial sum to itself instead of its "
           "partner's", [EMU_F32]),
    Mutant("gpu-sink-saved-renorm", "GPU kernels", GB,
           "                  AttentionSinkFold::build(kb.b, kb.loc, rowLse, sum, sink).sum;",
           "                  sum;",
           "the GPU saved-LSE renormalisation without the sink", [EMU_PAIRED_F32]),
    Mutant("gpu-bwd-qtile-first", "GPU kernels", GB,
           "    firstTile = kb.div(kb.max(zero, firstRow), kb.index(rows));",
           "    firstTile = kb.add(kb.div(kb.max(zero, firstRow), kb.index(rows)),\n                       kb.index(1));",
           "backward skips the first query tile of a key block's band",
           [EMU_F32]),
    Mutant("gpu-bwd-head", "GPU kernels", GB,
           "          Value h = kb.add(kb.mul(g, kb.index(p.groupSize)), r);\n          Value rowBase",
           "          Value h = kb.add(g, r);\n          Value rowBase",
           "backward query head g + r instead of g * R + r", [EMU_F32]),
    Mutant("gpu-bwdmma-whole-left", "GPU kernels", GBM,
           "j0, firstKey));",
           "j0, kb.add(firstKey, kb.index(-1))));",
           "mma backward: a block one key left of the band taken as whole",
           [EMU_F16_MMA]),
    Mutant("gpu-bwd-softcap", "GPU kernels", GB,
           "  if (logit.capFactor)\n    ds = kb.mulf(ds, logit.capFactor);\n",
           "",
           "the backward's dS without the softcap factor (buildScoreGradient: "
           "the SIMT, tensor-core and deterministic dQ kernels)",
           [EMU_F16_MMA]),

    # --- The attention verifier's rejection list (attention.md, last
    # section): one check removed at a time.
    Mutant("ver-batch", "verifier", VER,
           "if (k[0] != q[0])", "if (false)",
           "key batch mismatch accepted", [INVALID_ATT]),
    Mutant("ver-gqa", "verifier", VER,
           "(numQueryHeads == 0 || numQueryHeads % numKVHeads != 0))",
           "(numQueryHeads == 0))",
           "Hq % Hkv != 0 accepted", [INVALID_ATT]),
    Mutant("ver-mask-bcast", "verifier", VER,
           "if (!isBroadcastableTo(maskType.getShape(), scoresShape))",
           "if (false)",
           "a non-broadcastable mask accepted", [INVALID_ATT]),
    Mutant("ver-causal-right", "verifier", VER,
           "if (op.getCausal() && right.getInt() > 0)", "if (false)",
           "causal with window_right > 0 accepted", [INVALID_ATT]),
    Mutant("ver-dropout-seed", "verifier", VER,
           "if (dropout > 0.0 && !op.getSeed())", "if (false)",
           "dropout_p > 0 without a seed accepted", [INVALID_ATT]),

    # --- The autodiff pass and its rules.
    Mutant("ad-fanout", "autodiff", AU,
           "      slot =\n          slot ? AddOp::create(builder, op->getLoc(), slot, adjoint) : adjoint;",
           "      slot = adjoint;",
           "a value used twice keeps only the last adjoint", [AD_CASE("fan")]),
    Mutant("ad-output-twice", "autodiff", AU,
           "slot = slot ? AddOp::create(builder, output.getLoc(), slot, seed) : seed;",
           "slot = seed;",
           "split mode: an output returned twice keeps only one cotangent",
           [gtest("KilnSplitRematTests", "*"), lit("Transforms/Autodiff")]),
    Mutant("ad-pow-zero-exp", "autodiff", ER,
           "    d = SelectOp::create(c.b, c.loc, isZero, zero, d);\n    c.setReduced(0, d, op.getLhs());",
           "    c.setReduced(0, d, op.getLhs());",
           "pow base gradient at exponent 0 not forced to 0", [AD_CASE("pow")]),
    Mutant("ad-extremum-tie", "autodiff", ER,
           "Value half = scale(c.b, c.loc, c.grad(), 0.5);",
           "Value half = c.grad();",
           "maximum/minimum tie gives each operand the full adjoint",
           [AD_CASE("imum")]),
    Mutant("ad-relu-zero", "autodiff", ER,
           "Value dropped = LeOp::create(c.b, c.loc, op.getResult(), zero);",
           "Value dropped = LtOp::create(c.b, c.loc, op.getResult(), zero);",
           "relu'(0) = 1", [AD_CASE("relu"), FIX_AD]),
    Mutant("ad-clamp-bound", "autodiff", ER,
           "GtOp::create(c.b, c.loc, x, c.scalar(et, lo.getValueAsDouble())), d);",
           "GeOp::create(c.b, c.loc, x, c.scalar(et, lo.getValueAsDouble())), d);",
           "clamp passes the adjoint at x = min (torch 1.13's rule, not torch "
           "2's)", [AD_CASE("clamp"), FIX_AD]),
    Mutant("ad-amax-tie", "autodiff", RR,
           "c.set(0, mul(c.b, c.loc, mask, share));",
           "c.set(0, mul(c.b, c.loc, mask, g));",
           "max/min reduction tie: each tied element gets the full adjoint",
           [AD_CASE("max"), AD_CASE("min")]),
    Mutant("ad-cumsum-direction", "autodiff", RR,
           "op.getAxis(), !op.getReverse()));",
           "op.getAxis(), op.getReverse()));",
           "cumsum's adjoint scans in the forward's direction, not the other",
           [AD_CASE("cumsum"), FIX("cumsum_cumsum_grad_*")]),
    Mutant("ad-softmax", "autodiff", RR,
           "c.set(0, mul(c.b, c.loc, y, sub(c.b, c.loc, c.grad(), dot)));",
           "c.set(0, mul(c.b, c.loc, y, c.grad()));",
           "softmax adjoint without the row-dot term", [AD_CASE("softmax")]),
    Mutant("ad-layernorm", "autodiff", NR,
           "Value inner = sub(c.b, c.loc, sub(c.b, c.loc, gh, meanG),",
           "Value inner = sub(c.b, c.loc, gh,",
           "layer_norm input adjoint without the mean term",
           [AD_CASE("layer_norm")]),
    Mutant("ad-xent-ignore", "autodiff", NR,
           "Value isValid = NeOp::create(", "Value isValid = EqOp::create(",
           "cross_entropy's ignore_index mask inverted", [AD_CASE("cross")]),
    Mutant("ad-permute-inverse", "autodiff", TR,
           "    inverse[p] = i;", "    inverse[i] = p;",
           "permute's adjoint permutes by the permutation, not its inverse",
           [AD_CASE("permute")]),
    Mutant("ad-gather-clamp", "autodiff", "lib/Conversion/KilnToLinalg/Indexing.cpp",
           "  index = arith::MaxSIOp::create(b, loc, index, zero);\n",
           "",
           "index_add (gather's adjoint) does not clamp negative indices",
           [AD_CASE("gather"), AD_CASE("index")]),
    Mutant("ad-conv-input-pad", "autodiff", CR,
           "    low[2 + i] = reach - padding[i];", "    low[2 + i] = reach;",
           "conv input adjoint ignores the padding on the low side",
           [AD_CASE("conv")]),
    Mutant("ad-maxpool-tie", "autodiff", CR,
           "  Value first = mul(c.b, c.loc, hit, free);", "  Value first = hit;",
           "max_pool2d tie: every tied tap gets the adjoint (not the first)",
           [AD_CASE("pool"), FIX("conv_grad_*")]),
    Mutant("ad-maxpool-nan-first", "autodiff", CR,
           "  for (size_t t = wins.size(); t-- > 0;)",
           "  for (size_t t = 0; t < wins.size(); ++t)",
           "max_pool2d NaN window: the first NaN gets the adjoint (not the last)",
           [lit("Integration/CPU/nan-gradients.mlir", ("kiln-run",))]),
    Mutant("ad-attention-rule-mask", "autodiff", AR,
           "if (op.hasAdditiveMask() && c.needs(3))", "if (false)",
           "attention's rule drops the additive mask's adjoint",
           [AD_CASE("attention")]),
    Mutant("ad-attgrad-same-value", "autodiff", AR,
           "if (assigned.insert(operand).second)", "if (true)",
           "attention_grad's rule: a value passed as q and k gets its adjoint twice",
           [DEC, AD_CASE("attention")]),

    # --- Error paths: the CPU pipeline and the JSON importer.
    Mutant("cpu-no-lowering-diag", "error paths", K2L,
           "    if (refused)\n      return signalPassFailure();", "",
           "an op without a CPU lowering no longer fails the pass up front",
           [gtest("KilnCPUBackendTests", "KilnToLinalgTest.*")]),
    Mutant("json-data-count", "error paths", GJV,
           "if (int64_t(it->size()) != numElements)", "if (int64_t(it->size()) > numElements)",
           "a short constant data array accepted", [GRAPH_JSON, lit("Translate", ("kiln-opt", "kiln-translate"))]),
    Mutant("json-bad-index", "error paths", GJ,
           "(index.empty() || index.getAsInteger(10, result) || result < 0))",
           "(index.getAsInteger(10, result) || result < 0))",
           "a reference \"x:\" with an empty result index accepted",
           [GRAPH_JSON, lit("Translate", ("kiln-opt", "kiln-translate"))],
           equivalent="StringRef::getAsInteger fails on an empty string, so "
                      "the index.empty() test is redundant"),
    Mutant("json-negative-index", "error paths", GJ,
           "index.getAsInteger(10, result) || result < 0))",
           "index.getAsInteger(10, result)))",
           "a negative result index (\"x:-1\") accepted",
           [GRAPH_JSON, lit("Translate", ("kiln-opt", "kiln-translate"))]),
    # --- The tools and the runtime's ABI.
    Mutant("entry-body-rename", "tools", EP,
           "      if (!func->hasAttr(kEntryPointAttrName))\n        bodies.push_back(func);\n",
           "",
           "function bodies keep the user's names (@exp binds LLVM's libm call)",
           [lit("Integration/AOT/libc-names.mlir",
                ("kiln-opt", "kiln-run", "kiln-compile", "KilnGPUEmulator"))]),
    Mutant("aot-overlap-adjacent", "tools", KC,
           "if (n && x < y + n && y < x + m) {",
           "if (n && x <= y + n && y <= x + m) {",
           "adjacent buffers count as overlapping",
           [lit("Integration/AOT/overlap.mlir", ("kiln-compile",))]),
    Mutant("aot-amx-no-request", "tools", "lib/Execution/AotCompiler.cpp",
           'name.starts_with("llvm.x86.t") && name.ends_with(".internal")',
           'name.starts_with("llvm.x86.amx.")',
           "a library with AMX tiles never asks the OS for them (SIGILL)",
           [lit("Integration/AOT/amx-refused.mlir",
                ("kiln-run", "kiln-compile"))]),
    Mutant("jit-amx-no-request", "tools", "lib/Execution/JitSession.cpp",
           'features.lookup("amx-bf16") &&\n         kilnRequestAMX();',
           'features.lookup("amx-bf16");',
           "the JIT picks AMX without the OS's permission",
           [lit("Integration/AOT/amx-refused.mlir",
                ("kiln-run", "kiln-compile"))]),
    Mutant("run-int-through-double", "tools", KR,
           "os << tensor.getElementAsInt64(i);",
           "os << int64_t(tensor.getElementAsDouble(i));",
           "kiln-run prints integers through a double",
           [lit("Integration/CPU/integers.mlir", ("kiln-run",))]),
    Mutant("host-alloc-no-recovery", "tools", "lib/Runtime/HostAllocator.c",
           "  if (recovery && !kilnInParallel()) {",
           "  if (0) {",
           "a failed allocation of compiled code aborts instead of ending the call",
           [gtest("KilnCPUBackendTests", "HostAllocatorTest.*"),
            lit("Integration/CPU/out-of-memory.mlir", ("kiln-run",))]),
    Mutant("host-alloc-keep-on-failure", "tools", "lib/Runtime/HostAllocator.c",
           "  if (failed)\n    while (blocks) {",
           "  if (0)\n    while (blocks) {",
           "a failed call keeps its large temporaries",
           [gtest("KilnCPUBackendTests", "HostAllocatorTest.*")]),
    Mutant("verify-byte-size", "verifier", "lib/Dialect/Kiln/IR/KilnDialect.cpp",
           "    if (llvm::MulOverflow(bytes, size, bytes))",
           "    if (llvm::MulOverflow(int64_t(1), size, bytes))",
           "the byte-size check counts elements, not bytes",
           [lit("Dialect/Kiln/invalid-sizes.mlir")]),
    Mutant("npy-b1-raw", "tools", NPY,
           "      byte = byte != 0;", "      (void)byte;",
           "the bytes of a bool .npy pass through raw",
           [lit("Integration/CPU/integers.mlir", ("kiln-run",))]),
    Mutant("gpu-block-size-max", "tools", MPL,
           "blockSize > kMaxThreadsPerBlock", "blockSize > 2 * kMaxThreadsPerBlock",
           "block-size above CUDA's 1024 threads accepted",
           [lit("Conversion/GPUHost/map-parallel-loops.mlir")]),
]


def git(*args, check=True):
    return subprocess.run(["git", "-C", ROOT, *args], capture_output=True,
                          text=True, check=check)


def locate(m):
    """The snippet's 1-based line; fails loudly unless it occurs once."""
    path = os.path.join(ROOT, m.file)
    text = open(path).read()
    count = text.count(m.old)
    if count != 1:
        raise SystemExit(f"mutant {m.id}: the snippet occurs {count} times "
                         f"in {m.file}, expected exactly once:\n{m.old}")
    if m.old == m.new:
        raise SystemExit(f"mutant {m.id}: the replacement equals the original")
    return text, text[:text.index(m.old)].count("\n") + 1


def build(build_dir, targets, log):
    cmd = ["cmake", "--build", build_dir, "--target", *targets, "--", "-j2"]
    run = subprocess.run(cmd, capture_output=True, text=True)
    log.write(run.stdout + run.stderr)
    return run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]


def run_tests(build_dir, tests, timeout, log):
    """Returns (name of the first failing test or None, output tail)."""
    for t in tests:
        try:
            run = subprocess.run(t.argv, cwd=build_dir, capture_output=True,
                                 text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return t.name + " (timeout)", ""
        log.write(f"$ {' '.join(t.argv)}\n{run.stdout[-20000:]}{run.stderr[-5000:]}\n")
        if "--gtest_filter" in t.argv[-1] and "[==========] 0 tests" in run.stdout:
            raise SystemExit(f"{t.name}: the filter selects no test")
        if run.returncode != 0:
            return t.name, (run.stdout + run.stderr)[-2000:]
    return None, ""


def full_ctest(build_dir, timeout, jobs, log):
    ok, out = build(build_dir, ["all"], log)
    if not ok:
        return "build of all targets", out
    run = subprocess.run(["ctest", f"-j{jobs}", "--output-on-failure"], cwd=build_dir,
                         capture_output=True, text=True, timeout=timeout)
    log.write(run.stdout[-20000:] + run.stderr[-5000:])
    if run.returncode != 0:
        failed = [l.strip() for l in run.stdout.splitlines()
                  if "***Failed" in l or "(Failed)" in l or "***Timeout" in l]
        return "ctest: " + "; ".join(failed[:4]), run.stdout[-2000:]
    return None, ""


def run_mutant(m, args, log):
    path = os.path.join(ROOT, m.file)
    if git("diff", "--quiet", "--", m.file, check=False).returncode != 0:
        raise SystemExit(f"{m.file} has uncommitted changes: refusing to mutate it")
    original, m.line = locate(m)
    start = time.time()
    log.write(f"\n=== {m.id} ({m.file}:{m.line}) {m.what}\n")
    targets = sorted({t for test in m.tests for t in test.targets})
    try:
        with open(path, "w") as f:
            f.write(original.replace(m.old, m.new, 1))
        ok, out = build(args.build, targets, log)
        if not ok:
            m.result, m.detail = "broken", out
        else:
            killer, out = run_tests(args.build, m.tests, args.timeout, log)
            if killer is None and not args.no_full:
                killer, out = full_ctest(args.build, args.ctest_timeout,
                                         args.ctest_jobs, log)
            m.result = "killed" if killer else "survived"
            m.killed_by, m.detail = killer or "", out
    finally:
        with open(path, "w") as f:
            f.write(original)
        if git("diff", "--quiet", "--", m.file, check=False).returncode != 0:
            raise SystemExit(f"FAILED TO RESTORE {m.file}: fix it by hand")
    m.seconds = time.time() - start
    if m.result == "survived" and m.equivalent:
        m.result = "equivalent"
    return targets


def table(mutants):
    rows = ["| id | area | file:line | what it changes | result | killed by | s |",
            "|---|---|---|---|---|---|---|"]
    for m in mutants:
        rows.append(f"| {m.id} | {m.area} | {m.file.replace('lib/', '')}:{m.line} | "
                    f"{m.what} | {m.result} | {m.killed_by or (m.equivalent or '')} | "
                    f"{m.seconds:.0f} |")
    counts = {}
    for m in mutants:
        counts.setdefault(m.area, {}).setdefault(m.result, 0)
        counts[m.area][m.result] += 1
    rows.append("")
    rows.append("| area | killed | survived | equivalent | broken |")
    rows.append("|---|---|---|---|---|")
    total = {}
    for area, c in counts.items():
        rows.append(f"| {area} | {c.get('killed', 0)} | {c.get('survived', 0)} | "
                    f"{c.get('equivalent', 0)} | {c.get('broken', 0)} |")
        for k, v in c.items():
            total[k] = total.get(k, 0) + v
    rows.append(f"| all | {total.get('killed', 0)} | {total.get('survived', 0)} | "
                f"{total.get('equivalent', 0)} | {total.get('broken', 0)} |")
    return "\n".join(rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--only", help="comma-separated mutant ids")
    parser.add_argument("--area", help="only the mutants of this area")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--check", action="store_true",
                        help="only check that every snippet occurs exactly once")
    parser.add_argument("--no-full", action="store_true",
                        help="do not re-run survivors against the whole ctest")
    parser.add_argument("--timeout", type=int, default=900)
    parser.add_argument("--ctest-timeout", type=int, default=1800)
    parser.add_argument("--ctest-jobs", type=int, default=2)
    parser.add_argument("--out")
    args = parser.parse_args()
    args.build = os.path.abspath(args.build)

    ids = [m.id for m in MUTANTS]
    dupes = {i for i in ids if ids.count(i) > 1}
    if dupes:
        raise SystemExit(f"duplicate mutant ids: {sorted(dupes)}")
    selected = MUTANTS
    if args.only:
        wanted = args.only.split(",")
        unknown = set(wanted) - set(ids)
        if unknown:
            raise SystemExit(f"unknown mutant ids: {sorted(unknown)}")
        selected = [m for m in MUTANTS if m.id in wanted]
    if args.area:
        selected = [m for m in selected if m.area == args.area]
    for m in selected:
        _, m.line = locate(m)
    if args.list or args.check:
        for m in selected:
            print(f"{m.id:28} {m.area:20} {m.file}:{m.line}  {m.what}")
        print(f"{len(selected)} mutants, every snippet found exactly once")
        return 0

    out = args.out or os.path.join(args.build, "mutants", "report.md")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    touched = set()
    with open(out + ".log", "w") as log:
        try:
            for n, m in enumerate(selected, 1):
                touched.update(run_mutant(m, args, log))
                log.flush()
                print(f"[{n}/{len(selected)}] {m.id}: {m.result}"
                      f"{' by ' + m.killed_by if m.killed_by else ''} ({m.seconds:.0f} s)",
                      flush=True)
        finally:
            # Leave the build as the restored source would give it.
            if touched:
                build(args.build, sorted(touched), log)
    report = table(selected)
    with open(out, "w") as f:
        f.write(report + "\n")
    with open(os.path.splitext(out)[0] + ".json", "w") as f:
        json.dump([{k: getattr(m, k) for k in ("id", "area", "file", "line", "what",
                                               "result", "killed_by", "seconds",
                                               "equivalent")}
                   for m in selected], f, indent=1)
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
