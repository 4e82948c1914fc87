#!/usr/bin/env bash
# Libraries of check_attention_bwd.py and bench_attention_bwd.py, one kiln
# function per library (the cases of attention_bwd_cases.py), compiled with
# kiln-compile --target=cuda into $KILN_GPU_ARTIFACTS/attention_bwd/, so that
# a case that fails to compile fails alone. A hook of bench/gpu/prepare.sh,
# which sets the KILN_* variables; it also runs by itself:
#
#   bench/gpu/prepare_attention_bwd.sh [check|bench]   # default: both
#
# For the emulator (KILN_GPU_EMULATE=1, KILN_GPU_TARGET=cuda-emulator) only
# the check libraries.
#
# Up-to-date libraries are kept: those newer than their .mlir, kiln-compile,
# the runtime archive it links in ($KILN_GPU_RUNTIME; kiln-compile is not
# relinked when the runtime changes) and options.txt (the target, chip and
# format, KILN_GPU_*, rewritten when they change). Exits non-zero if any case failed to
# compile (its error is in the .log next to its .mlir).
set -uo pipefail
root=${KILN_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
build=${KILN_BUILD_DIR:-$root/build}
compile=${KILN_COMPILE:-$build/bin/kiln-compile}
chip=${KILN_GPU_CHIP:-sm_90}
format=${KILN_GPU_FORMAT:-fatbin}
target=${KILN_GPU_TARGET:-cuda}
out=${KILN_GPU_ARTIFACTS:-$root/bench/gpu/artifacts}/attention_bwd
only=${1:-}
[ -n "${KILN_GPU_EMULATE:-}" ] && only=check
if [ "$target" = cuda-emulator ]; then
  runtime=${KILN_GPU_RUNTIME:-$build/lib/libKilnGPUEmulator.a}
else
  runtime=${KILN_GPU_RUNTIME:-$build/lib/libKilnCudaRuntime.a}
fi
# Without it, every library would look up to date (-nt is true against a
# missing file).
[ -f "$runtime" ] || { echo "prepare_attention_bwd: no $runtime" >&2; exit 1; }

mkdir -p "$out"
options="--target=$target --gpu-chip=$chip --gpu-format=$format"
if [ "$(cat "$out/options.txt" 2>/dev/null)" != "$options" ]; then
  echo "$options" > "$out/options.txt"
fi
/usr/bin/python3 "$root/bench/gpu/attention_bwd_cases.py" --out "$out" \
  ${only:+--only "$only"} > "$out/list.txt" || exit 1

failed=0
built=0
while read -r mlir; do
  lib=${mlir%.mlir}.so
  if [ -f "$lib" ] && [ "$lib" -nt "$mlir" ] && [ "$lib" -nt "$compile" ] \
       && [ "$lib" -nt "$runtime" ] && [ "$lib" -nt "$out/options.txt" ]; then
    continue
  fi
  extra=()
  if [ "$(basename "$mlir")" = bench_paired_occupancy.mlir ]; then
    hints=$(cd "$root/bench/gpu" && /usr/bin/python3 -c \
      'import attention_bwd_cases as c; print(c.OCCUPANCY_PIPELINE_OPTIONS)')
    extra=("--gpu-pipeline=kiln-lower-to-nvvm{chip=$chip format=$format $hints}")
  fi
  if "$compile" $options "${extra[@]}" "$mlir" -o "$lib" 2> "${mlir%.mlir}.log"; then
    built=$((built + 1))
  else
    echo "prepare_attention_bwd: FAILED $mlir (see ${mlir%.mlir}.log)" >&2
    rm -f "$lib"
    failed=$((failed + 1))
  fi
done < "$out/list.txt"
echo "prepare_attention_bwd: built $built, $failed failure(s) in $out"
[ "$failed" -eq 0 ]
