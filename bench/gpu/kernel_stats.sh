#!/usr/bin/env bash
# Runs HERE (no GPU): compiles the attention kernels of the benchmark's
# shapes (bench/gpu/kernels/*.mlir) through kiln-lower-to-nvvm for sm_90 and
# prints, per kernel, ptxas's registers and spills and the number of PTX
# instructions (scripts/ptxas_stats.py). The figures of docs/GPUAttention.md
# and docs/GPUAttentionBackward.md come from it.
#
#   bench/gpu/kernel_stats.sh [KILN_OPT]
#
# KILN_OPT defaults to build/bin/kiln-opt; ptxas is taken from $PATH or
# /usr/local/cuda/bin. Only the kernels with more than 32 registers are
# printed (the zero, preprocess and cast kernels are small).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
opt=${1:-build/bin/kiln-opt}
export PATH=$PATH:/usr/local/cuda/bin
command -v ptxas >/dev/null || { echo "kernel_stats: no ptxas" >&2; exit 1; }
for case in bench/gpu/kernels/*.mlir; do
  echo "== $case"
  "$opt" "$case" --kiln-lower-to-nvvm="format=isa" \
    | python3 scripts/ptxas_stats.py \
    | awk '{ for (i = 1; i < NF; ++i) if ($(i + 1) == "registers," && $i > 32) print }'
done
