#!/usr/bin/env bash
# Builds bench/gpu/artifacts/attention_bwd/: the libraries that
# check_attention_bwd.py and bench_attention_bwd.py load on the GPU machine,
# which has neither LLVM/MLIR nor Kiln's build. One kiln function per
# library (attention_bwd_cases.py), compiled by `kiln-compile --target=cuda`,
# so a case that fails to compile fails alone.
#
#   bench/gpu/prepare_attention_bwd.sh [check|bench]   # default: both
#
# Up-to-date libraries are kept. Exits non-zero if any case failed to
# compile (its error is in the .log next to its .mlir).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${KILN_BUILD_DIR:-$root/build}
compile=${KILN_COMPILE:-$build/bin/kiln-compile}
out=$root/bench/gpu/artifacts/attention_bwd
only=${1:-}

mkdir -p "$out"
python3 "$root/bench/gpu/attention_bwd_cases.py" --out "$out" \
  ${only:+--only "$only"} > "$out/list.txt" || exit 1

failed=0
while read -r mlir; do
  lib=${mlir%.mlir}.so
  if [ -f "$lib" ] && [ "$lib" -nt "$mlir" ] && [ "$lib" -nt "$compile" ]; then
    continue
  fi
  if "$compile" --target=cuda "$mlir" -o "$lib" 2> "${mlir%.mlir}.log"; then
    echo "built $lib"
  else
    echo "FAILED $mlir (see ${mlir%.mlir}.log)"
    rm -f "$lib"
    failed=$((failed + 1))
  fi
done < "$out/list.txt"
echo "$failed failure(s)"
[ "$failed" -eq 0 ]
