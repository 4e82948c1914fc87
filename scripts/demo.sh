#!/usr/bin/env bash
# The main job on the bundled example, from a fresh Debian 12 machine:
# install what is missing, build, verify and summarize the transformer block
# with kiln-opt, then compile it for the CPU with the JIT (kiln-run) and run
# it on generated inputs, printing the loss and the time of each stage; then
# the same ahead of time: kiln-compile into a shared library, called through
# ctypes on the same inputs (scripts/run-aot.py); for the bundled block, a
# gradient check of a sample of parameters (float64 copy of
# examples/train_block.mlir, central differences of its own loss), then a few
# dozen Adam steps of examples/train_block.mlir on a fixed synthetic batch
# (scripts/train-aot.py), printing the loss as it falls.
#
# Usage: scripts/demo.sh [EXAMPLE.mlir]
#   KILN_BUILD_DIR    the build directory (default: build)
#   KILN_DEMO_ENTRY   the function to run (default: loss)
#   KILN_DEMO_RANGES  --random-range I:LO:HI values for the integer inputs
#                     (default for the bundled block: tokens in [0, 32),
#                     labels in [0, 5))
#   KILN_DEMO_SEED    the input seed (default: 0)
#   KILN_DEMO_REPEAT  runs per JIT-compiled module; the fastest is reported
#                     (default: 5)
#   KILN_DEMO_STEPS   training steps (default: 40)
#
# Until every op of the example lowers to the CPU, the compile-and-run step
# lists the ops that do not lower yet and stops there (exit code 0).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${KILN_BUILD_DIR:-$root/build}
example=${1:-$root/examples/transformer_block.mlir}
entry=${KILN_DEMO_ENTRY:-loss}
ranges=${KILN_DEMO_RANGES:-0:0:32 1:0:5}
seed=${KILN_DEMO_SEED:-0}
repeat=${KILN_DEMO_REPEAT:-5}

"$root/scripts/setup.sh"
"$root/scripts/build.sh"

now() { date +%s.%N; }
elapsed_ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) * 1000 }'; }

echo "== kiln-opt: verify + canonicalize $(basename "$example")"
start=$(now)
"$build/bin/kiln-opt" "$example" --canonicalize --kiln-graph-summary -o /dev/null
verify_ms=$(elapsed_ms "$start" "$(now)")

echo
echo "== CPU lowering: convert-kiln-to-linalg"
if ! lowering=$("$build/bin/kiln-opt" "$example" --convert-kiln-to-linalg \
                  -o /dev/null 2>&1); then
  missing=$(grep -o "'kiln\.[a-z_0-9]*' has no CPU lowering yet" <<<"$lowering" |
            cut -d"'" -f2 | sort | uniq -c | awk '{ printf "  %-24s %d use(s)\n", $2, $1 }')
  if [ -n "$missing" ]; then
    echo "These ops of $(basename "$example") do not lower to the CPU yet:"
    echo "$missing"
  else
    echo "convert-kiln-to-linalg failed:"
    echo "$lowering"
  fi
  echo "Skipping compile and run until they do."
  echo
  echo "== timings"
  printf "  verify + summary: %s ms\n" "$verify_ms"
  exit 0
fi
echo "every op lowers"

range_args=()
for r in $ranges; do range_args+=(--random-range "$r"); done

run_jit() { # label, extra kiln-run flags...
  local label=$1
  shift
  local out
  out=$("$build/bin/kiln-run" "$example" --entry "$entry" --random-inputs \
          --seed "$seed" "${range_args[@]}" --time --repeat "$repeat" \
          --print-limit 4 "$@")
  echo "$out" | sed 's/^/  /'
  # A rank-0 first result is the loss: "result0: tensor<f32>" then "  [v]".
  local loss
  loss=$(awk '/^result0: tensor<[a-z0-9]+>$/ { getline; gsub(/[][ ]/, ""); print }' <<<"$out")
  if [ -n "$loss" ]; then echo "  loss = $loss"; fi
  # "compile: X ms, run: Y ms (best of N)"
  printf "  %-22s %s\n" "$label" "$(grep '^compile:' <<<"$out")" >>"$timings"
}

timings=$(mktemp)
trap 'rm -f "$timings"' EXIT
echo
echo "== kiln-run: JIT compile + run @$entry on generated inputs (seed $seed)"
run_jit "JIT, sequential:"
echo
echo "== kiln-run --openmp (OMP_NUM_THREADS=${OMP_NUM_THREADS:-all cores})"
run_jit "JIT, OpenMP:" --openmp

echo
echo "== kiln-compile: ahead of time into a shared library, run through ctypes"
workdir=$(mktemp -d)
trap 'rm -f "$timings"; rm -rf "$workdir"' EXIT
aot_times=$("$build/bin/kiln-compile" "$example" -o "$workdir/libblock.so" \
              --header "$workdir/block.h" --mcpu native --time)
deps=$(readelf -d "$workdir/libblock.so" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
echo "  libblock.so needs: ${deps:-no shared library}"
printf "  %-22s %s\n" "AOT compile:" "$aot_times" >>"$timings"
if command -v python3 >/dev/null; then
  out=$(python3 "$root/scripts/run-aot.py" "$workdir/libblock.so" "$entry" \
          --seed "$seed" "${range_args[@]}" --time --repeat "$repeat" --print-limit 4)
  echo "$out" | sed 's/^/  /'
  loss=$(awk '/^result0: tensor<[a-z0-9]+>$/ { getline; gsub(/[][ ]/, ""); print }' <<<"$out")
  if [ -n "$loss" ]; then echo "  loss = $loss"; fi
  printf "  %-22s %s\n" "AOT run:" "$(grep '^run:' <<<"$out")" >>"$timings"
fi

if [ "$example" = "$root/examples/transformer_block.mlir" ] && command -v python3 >/dev/null; then
  echo
  echo "== training: examples/train_block.mlir (value_and_grad + Adam) through kiln-compile"
  start=$(now)
  "$build/bin/kiln-compile" "$root/examples/train_block.mlir" -o "$workdir/libtrain.so" --mcpu native
  printf "  %-22s %s ms\n" "AOT compile (train):" "$(elapsed_ms "$start" "$(now)")" >>"$timings"
  # The gradient check runs the same file in float64.
  start=$(now)
  sed 's/f32/f64/g' "$root/examples/train_block.mlir" >"$workdir/train_block_f64.mlir"
  "$build/bin/kiln-compile" "$workdir/train_block_f64.mlir" -o "$workdir/libtrain64.so" --mcpu native
  printf "  %-22s %s ms\n" "AOT compile (f64):" "$(elapsed_ms "$start" "$(now)")" >>"$timings"
  start=$(now)
  python3 "$root/scripts/train-aot.py" "$workdir/libtrain.so" --steps "${KILN_DEMO_STEPS:-40}" \
      --grad-check "$workdir/libtrain64.so" | sed 's/^/  /'
  printf "  %-22s %s ms\n" "grad check + training:" "$(elapsed_ms "$start" "$(now)")" >>"$timings"
fi

echo
echo "== timings"
printf "  %-22s %s ms\n" "verify + summary:" "$verify_ms"
cat "$timings"
