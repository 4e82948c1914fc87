#!/usr/bin/env bash
# Runs THERE, on the GPU machine, from the repository root, with the
# artifacts that bench/gpu/prepare.sh built here carried along: every
# bench/gpu/check_*.py, then every bench/gpu/bench_*.py (each with its own
# time limit), printing the environment first and a summary last.
#
#   bench/gpu/run.sh [--quick] [--checks-only] [--emulate] [PATTERN]
#
# --quick passes --quick to each script (the smallest cases, for a first
# smoke run); PATTERN runs only the scripts whose name contains it. Writes
# the log to $OUT/gpu-run.log when OUT is set. Exits non-zero if a check
# failed (or timed out, or crashed); a benchmark's failure is listed in the
# summary but does not change the exit code.
# Needs python3 with torch and numpy, and the CUDA driver; not LLVM or Kiln.
#
# At the end, when time remains in the run's budget and compute-sanitizer
# is on PATH (not with --emulate or a PATTERN), memcheck runs on the
# smallest attention cases (each with its own limit,
# KILN_GPU_SANITIZER_LIMIT, default 120 s): reported in the summary, never
# changing the exit code.
#
# --emulate runs the checks HERE, without a GPU, on Kiln's GPU emulator:
# the libraries of `bench/gpu/prepare.sh --emulate`
# (bench/gpu/artifacts-emulator/), torch on the CPU (KILN_GPU_EMULATE=1,
# read by kiln_gpu.py), longer time limits, no benchmarks (timing the
# emulator means nothing) and no check_emulator.py (it compares the emulator
# with the hardware). PYTHON defaults to the first of python3 and
# /usr/bin/python3 that has torch.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
quick=
checks_only=
emulate=
pattern=
for arg in "$@"; do
  case $arg in
    --quick) quick=--quick ;;
    --checks-only) checks_only=1 ;;
    --emulate) emulate=1 ;;
    -*) echo "usage: $0 [--quick] [--checks-only] [--emulate] [PATTERN]" >&2
        exit 2 ;;
    *) pattern=$arg ;;
  esac
done
# A time limit kills Python with whatever it had not flushed yet.
export PYTHONUNBUFFERED=1
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  exec > >(tee -a "$OUT/gpu-run.log") 2>&1
  tee_pid=$!
  # bash does not wait for a process substitution at exit: close its input
  # and wait, so the log has the summary when run.sh returns.
  trap 'exec >&- 2>&-; wait "$tee_pid"' EXIT
fi
python=${PYTHON:-python3}
# Per-script limits and the whole run's budget, in seconds.
check_limit=${KILN_GPU_CHECK_LIMIT:-90}
bench_limit=${KILN_GPU_BENCH_LIMIT:-120}
budget=${KILN_GPU_BUDGET:-300}
artifacts=bench/gpu/artifacts
if [ -n "$emulate" ]; then
  export KILN_GPU_EMULATE=1
  artifacts=bench/gpu/artifacts-emulator
  checks_only=1
  check_limit=${KILN_GPU_CHECK_LIMIT:-600}
  budget=${KILN_GPU_BUDGET:-1800}
  if [ -z "${PYTHON:-}" ] && ! python3 -c 'import torch' 2>/dev/null; then
    python=/usr/bin/python3
  fi
fi
export KILN_GPU_ARTIFACTS=${KILN_GPU_ARTIFACTS:-$PWD/$artifacts}
artifacts=$KILN_GPU_ARTIFACTS

echo "== environment"
if [ -n "$emulate" ]; then
  echo "Kiln GPU emulator (KILN_GPU_EMULATE=1): torch on the CPU," \
       "$(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  $python -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__)' 2>&1
else
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm \
    --format=csv,noheader 2>&1 | head -4
  $python -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "device", torch.cuda.get_device_name() if torch.cuda.is_available() else "NONE")' 2>&1
fi
if [ -f "$artifacts/MANIFEST.txt" ]; then
  sed 's/^/artifacts: /' "$artifacts/MANIFEST.txt" | head -3
elif [ -n "$emulate" ]; then
  echo "run: $artifacts/ is missing: run bench/gpu/prepare.sh --emulate" >&2
  exit 1
else
  echo "run: $artifacts/ is missing: run bench/gpu/prepare.sh where" \
       "Kiln is built and carry the artifacts" >&2
  exit 1
fi

start=$(date +%s)
passed=()
failed=()
skipped=()
run_script() {  # kind limit script
  local kind=$1 limit=$2 script=$3 name rc t0
  name=$(basename "$script" .py)
  if [ -n "$pattern" ] && [[ $name != *"$pattern"* ]]; then return; fi
  if [ $(( $(date +%s) - start )) -ge "$budget" ]; then
    echo "== $name: SKIPPED (the run's ${budget} s budget is spent)"
    skipped+=("$name"); return
  fi
  echo "== $name"
  t0=$(date +%s)
  timeout -k 5 "$limit" $python "$script" $quick
  rc=$?
  if [ $rc -eq 0 ]; then
    passed+=("$name")
  else
    [ $rc -eq 124 ] && echo "FAIL $name nan nan (timed out after ${limit} s)"
    failed+=("$kind:$name")
  fi
  echo "-- $name: exit $rc, $(( $(date +%s) - t0 )) s"
}
# The harness's self-test (no GPU needed), then the runtime's own check: if
# either fails, the others cannot be trusted or cannot pass.
checks=(bench/gpu/check_harness.py bench/gpu/check_runtime.py)
for script in bench/gpu/check_*.py; do
  case $script in
    bench/gpu/check_harness.py|bench/gpu/check_runtime.py) continue ;;
  esac
  # The emulator against the hardware: nothing to compare with here.
  [ -n "$emulate" ] && [ "$script" = bench/gpu/check_emulator.py ] && continue
  checks+=("$script")
done
for script in "${checks[@]}"; do
  [ -e "$script" ] && run_script check "$check_limit" "$script"
done
if [ -z "$checks_only" ]; then
  # The benchmarks time Kiln with the runtime's two opt-in savings (a
  # stream reused per thread, the pool's memory kept between calls; see
  # docs/GPURuntime.md); check_runtime.py prints the per-call overhead with
  # and without them.
  for script in bench/gpu/bench_*.py; do
    [ -e "$script" ] && KILN_CUDA_STREAM_CACHE=1 KILN_CUDA_KEEP_POOL_MEMORY=1 \
      run_script bench "$bench_limit" "$script"
  done
fi

# compute-sanitizer's memcheck: the only tool that sees a kernel read past
# the end of a buffer. torch's caching allocator packs tensors into large
# blocks, inside which such a read is legal to memcheck, so caching is off
# (PYTORCH_NO_CUDA_MEMORY_CACHING=1): every tensor is its own allocation.
sanitized=()
sanitize() {  # label script [args]
  local label=$1 limit=${KILN_GPU_SANITIZER_LIMIT:-120} log rc errors
  shift
  if [ $(( $(date +%s) - start + limit )) -gt "$budget" ]; then
    sanitized+=("$label: skipped (the budget is spent)"); return
  fi
  echo "== sanitizer: $label"
  log=$(mktemp)
  # No restart after a fault (kiln_gpu.py): the re-executed image would
  # lose the sanitizer's summary of the faulting one.
  KILN_GPU_NO_RESTART=1 PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout -k 5 "$limit" \
    compute-sanitizer --tool memcheck --print-limit 20 $python "$@" \
    > "$log" 2>&1
  rc=$?
  cat "$log"
  errors=$(sed -n 's/^========= ERROR SUMMARY: \([0-9]*\) error.*/\1/p' "$log" | tail -1)
  rm -f "$log"
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    sanitized+=("$label: timed out after ${limit} s")
  elif [ -z "$errors" ]; then
    sanitized+=("$label: no memcheck summary (exit $rc)")
  else
    sanitized+=("$label: $errors memcheck error(s), exit $rc")
  fi
}
if [ -z "$emulate" ] && [ -z "$pattern" ] && command -v compute-sanitizer > /dev/null; then
  # A forward (tensor cores, partial tiles) and a backward, unpaired and
  # paired: three small libraries.
  sanitize check_attention_fwd:plain_bf16 bench/gpu/check_attention_fwd.py --filter plain_bf16
  sanitize check_attention_bwd:plain_bf16 bench/gpu/check_attention_bwd.py plain_bf16
fi

echo "== summary: ${#passed[@]} passed, ${#failed[@]} failed, ${#skipped[@]} skipped, $(( $(date +%s) - start )) s"
[ ${#failed[@]} -eq 0 ] || echo "failed: ${failed[*]}"
[ ${#skipped[@]} -eq 0 ] || echo "skipped: ${skipped[*]}"
for entry in "${sanitized[@]}"; do
  echo "sanitizer: $entry (does not change the exit code)"
done
for entry in "${failed[@]}"; do
  [[ $entry == check:* ]] && exit 1
done
exit 0
