#!/usr/bin/env bash
# Builds, HERE (where LLVM/MLIR, the CUDA toolkit and Kiln's build are), every
# library the device-side checks load, into bench/gpu/artifacts/ (git-ignored),
# which is then carried with the working tree to the GPU machine, where
# bench/gpu/run.sh runs the checks with torch and the CUDA driver only.
#
#   bench/gpu/prepare.sh [--no-build] [--emulate] [--only NAME]
#
# It builds kiln-compile and the CUDA runtime (unless --no-build), then runs
# every hook bench/gpu/prepare_<NAME>.sh (or only NAME), each of which writes
# its own files into $KILN_GPU_ARTIFACTS. A failing hook is reported and the
# others still run; the exit code is non-zero if any failed. The hooks get:
#   KILN_ROOT           the repository root
#   KILN_BUILD_DIR      Kiln's build directory
#   KILN_COMPILE        kiln-compile
#   KILN_GPU_ARTIFACTS  where to write (bench/gpu/artifacts)
#   KILN_GPU_CHIP       the GPU architecture (default sm_90, the H200's)
#   KILN_GPU_FORMAT     kiln-compile's --gpu-format (default fatbin: the
#                       cubin for KILN_GPU_CHIP plus its PTX, a few KB more
#                       per library, so that a driver that rejects the cubin
#                       can still JIT-compile the PTX; bin: the cubin only)
#   KILN_GPU_TARGET     kiln-compile's --target: cuda, or cuda-emulator
#   KILN_GPU_EMULATE    1 with --emulate, else empty
#   KILN_GPU_RUNTIME    the runtime archive kiln-compile links into every
#                       library (libKilnCudaRuntime.a, libKilnGPUEmulator.a):
#                       a hook that keeps up-to-date libraries must also
#                       rebuild those older than it (kiln-compile only
#                       names it, so it is not relinked when it changes)
#
# --emulate builds the same libraries for Kiln's GPU emulator instead
# (kiln-compile --target=cuda-emulator, linked with libKilnGPUEmulator.a:
# the same C ABI on host pointers; no CUDA toolkit needed) into
# bench/gpu/artifacts-emulator/, for `bench/gpu/run.sh --emulate` here. The
# hooks then skip what only makes sense on a GPU (the benchmarks' libraries,
# the emulator-against-hardware check).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${KILN_BUILD_DIR:-$root/build}
do_build=1
emulate=
only=
while [ $# -gt 0 ]; do
  case $1 in
    --no-build) do_build= ;;
    --emulate) emulate=1 ;;
    --only) only=$2; shift ;;
    *) echo "usage: $0 [--no-build] [--emulate] [--only NAME]" >&2; exit 2 ;;
  esac
  shift
done
if [ -n "$emulate" ]; then
  artifacts=${KILN_GPU_ARTIFACTS:-$root/bench/gpu/artifacts-emulator}
  target=cuda-emulator runtime=KilnGPUEmulator
else
  artifacts=${KILN_GPU_ARTIFACTS:-$root/bench/gpu/artifacts}
  target=cuda runtime=KilnCudaRuntime
fi

if [ -n "$do_build" ]; then
  KILN_BUILD_DIR=$build "$root/scripts/build.sh" --target kiln-compile kiln-opt \
    "$runtime" -j2 || { echo "prepare: the build failed" >&2; exit 1; }
fi
if [ ! -f "$build/lib/lib$runtime.a" ]; then
  if [ -n "$emulate" ]; then
    echo "prepare: $build/lib/lib$runtime.a is missing: build Kiln" >&2
  else
    echo "prepare: $build/lib/lib$runtime.a is missing: Kiln was" \
         "configured without the CUDA toolkit (cuda.h)" >&2
  fi
  exit 1
fi

export KILN_ROOT=$root KILN_BUILD_DIR=$build
export KILN_COMPILE=$build/bin/kiln-compile
export KILN_GPU_ARTIFACTS=$artifacts
export KILN_GPU_CHIP=${KILN_GPU_CHIP:-sm_90}
export KILN_GPU_FORMAT=${KILN_GPU_FORMAT:-fatbin}
export KILN_GPU_TARGET=$target KILN_GPU_EMULATE=$emulate
export KILN_GPU_RUNTIME=$build/lib/lib$runtime.a
mkdir -p "$artifacts"

failed=()
for hook in "$root"/bench/gpu/prepare_*.sh; do
  name=$(basename "$hook" .sh); name=${name#prepare_}
  [ -n "$only" ] && [ "$name" != "$only" ] && continue
  start=$(date +%s)
  if bash "$hook"; then
    echo "prepare: $name ok ($(( $(date +%s) - start )) s)"
  else
    echo "prepare: $name FAILED ($(( $(date +%s) - start )) s)" >&2
    failed+=("$name")
  fi
done

listing=$(cd "$artifacts" && ls -l --time-style=+ | awk 'NR > 1 && $NF != "MANIFEST.txt" {print $5, $NF}')
# Whether the libraries are those of the commit: any tracked change, staged
# or not, or untracked file (ignored ones, such as the artifacts, aside)
# makes the tree "modified", and the first few are named.
changes=$(git -C "$root" status --porcelain 2>/dev/null | awk '{print $NF}')
if [ -z "$changes" ]; then
  tree="clean tree"
else
  tree="modified tree: $(echo "$changes" | wc -l) changed or untracked"
  tree="$tree file(s): $(echo "$changes" | head -5 | paste -sd' ')"
fi
{
  echo "commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null), $tree"
  echo "prepared $(date -u +%Y-%m-%dT%H:%M:%SZ) for ${emulate:+the emulator (--target=cuda-emulator) of }${KILN_GPU_CHIP}$([ -n "$emulate" ] || echo " ($KILN_GPU_FORMAT)")"
  echo "failed hooks: ${failed[*]:-none}"
  echo "runtime $(basename "$KILN_GPU_RUNTIME") sha256 $(sha256sum "$KILN_GPU_RUNTIME" | cut -c1-16), built $(date -u -r "$KILN_GPU_RUNTIME" +%Y-%m-%dT%H:%M:%SZ)"
  echo "$listing"
} > "$artifacts/MANIFEST.txt"
echo "prepare: artifacts in $artifacts ($(du -sh "$artifacts" | cut -f1))"
[ ${#failed[@]} -eq 0 ] || { echo "prepare: failed: ${failed[*]}" >&2; exit 1; }
