#!/usr/bin/env bash
# Builds the artifacts of the GPU attention forward check and benchmark:
# writes the case modules (gen_attention_fwd_cases.py) and compiles each with
# `kiln-compile --target=cuda` into bench/gpu/artifacts/attention_fwd/.
# Runs here (LLVM/MLIR, the Kiln build, the CUDA toolkit's ptxas); the GPU
# machine then needs only the artifacts, the driver and torch:
#
#   bench/gpu/prepare_attention_fwd.sh            # here
#   python3 bench/gpu/check_attention_fwd.py      # there
#   python3 bench/gpu/bench_attention_fwd.py      # there
#
# Environment: KILN_BUILD_DIR (default build), JOBS (parallel compiles,
# default 2), KILN_GPU_CHIP (default sm_90) and KILN_GPU_FORMAT (default
# fatbin; see prepare.sh), KILN_COMPILE_FLAGS (extra kiln-compile flags),
# ONLY=check|bench
# (compile only one group), KILN_GPU_ARTIFACTS, KILN_GPU_TARGET and
# KILN_GPU_EMULATE (from prepare.sh; with KILN_GPU_EMULATE=1 only the check
# group, for the emulator). A module that fails to compile is reported and
# skipped (its case then FAILs on the GPU machine); the exit code is
# non-zero if any did.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${KILN_BUILD_DIR:-$root/build}
out=${KILN_GPU_ARTIFACTS:-$root/bench/gpu/artifacts}/attention_fwd
compile=$build/bin/kiln-compile
target=${KILN_GPU_TARGET:-cuda}
[ -x "$compile" ] || { echo "no $compile: build Kiln first" >&2; exit 1; }
[ -n "${KILN_GPU_EMULATE:-}" ] && ONLY=check

rm -rf "$out"
/usr/bin/python3 "$root/bench/gpu/gen_attention_fwd_cases.py" "$out" || exit 1
case ${ONLY:-} in
  check) select=(-name '*.mlir' -not -name 'bench_*') ;;
  bench) select=(-name 'bench_*.mlir') ;;
  *) select=(-name '*.mlir') ;;
esac
# The chip and format first: a case's own .flags come later, and win.
export compile target KILN_COMPILE_FLAGS="--gpu-chip=${KILN_GPU_CHIP:-sm_90} \
--gpu-format=${KILN_GPU_FORMAT:-fatbin} ${KILN_COMPILE_FLAGS:-}"
find "$out" "${select[@]}" | sort | xargs -P "${JOBS:-2}" -I{} sh -c '
  f={}; so=${f%.mlir}.so
  flags=$(cat "${f%.mlir}.flags" 2>/dev/null)
  if "$compile" --target="$target" $KILN_COMPILE_FLAGS $flags "$f" -o "$so" 2>"${f%.mlir}.log"; then
    rm -f "${f%.mlir}.log"
  else
    echo "FAILED to compile $(basename "$f") (see ${f%.mlir}.log)"; exit 1
  fi'
status=$?
echo "$(ls "$out"/*.so 2>/dev/null | wc -l) libraries in $out"
exit $status
