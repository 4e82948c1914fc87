#!/usr/bin/env bash
# Libraries of check_attention_fwd.py and bench_attention_fwd.py: writes the
# case modules (gen_attention_fwd_cases.py: one kiln.attention per module, so
# that a case that fails to compile fails alone) and compiles each with
# kiln-compile --target=cuda into $KILN_GPU_ARTIFACTS/attention_fwd/. A hook
# of bench/gpu/prepare.sh, which sets the KILN_* variables; it also runs by
# itself, here (LLVM/MLIR, the Kiln build, the CUDA toolkit):
#
#   bench/gpu/prepare_attention_fwd.sh [check|bench]   # default: both
#
# and then, on the GPU machine (torch and the driver only):
#
#   python3 bench/gpu/check_attention_fwd.py
#   python3 bench/gpu/bench_attention_fwd.py
#
# JOBS (default 2) compiles run in parallel. Exits non-zero if any case
# failed to compile (its error is in the .log next to its .mlir; the case
# then FAILs on the GPU machine).
set -uo pipefail
root=${KILN_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
build=${KILN_BUILD_DIR:-$root/build}
compile=${KILN_COMPILE:-$build/bin/kiln-compile}
chip=${KILN_GPU_CHIP:-sm_90}
out=${KILN_GPU_ARTIFACTS:-$root/bench/gpu/artifacts}/attention_fwd
only=${1:-}
[ -x "$compile" ] || { echo "prepare_attention_fwd: no $compile" >&2; exit 1; }

rm -rf "$out"
/usr/bin/python3 "$root/bench/gpu/gen_attention_fwd_cases.py" "$out" || exit 1
case $only in
  check) select=(-name '*.mlir' -not -name 'bench_*') ;;
  bench) select=(-name 'bench_*.mlir') ;;
  *) select=(-name '*.mlir') ;;
esac
export compile chip
find "$out" "${select[@]}" | sort | xargs -P "${JOBS:-2}" -I{} sh -c '
  f={}; so=${f%.mlir}.so
  if "$compile" --target=cuda --gpu-chip="$chip" "$f" -o "$so" 2>"${f%.mlir}.log"; then
    rm -f "${f%.mlir}.log"
  else
    echo "prepare_attention_fwd: FAILED $f (see ${f%.mlir}.log)" >&2; exit 1
  fi'
status=$?
echo "prepare_attention_fwd: $(ls "$out"/*.so 2>/dev/null | wc -l) libraries in $out"
exit $status
