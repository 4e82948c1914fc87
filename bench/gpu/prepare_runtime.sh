#!/usr/bin/env bash
# The runtime's own device check (check_runtime.py), independent of the kiln
# pipelines: test/Integration/GPU/Inputs/runtime_smoke.mlir (upstream
# dialects: stream, alloc, memset, memcpy, a launch with 64 KiB of dynamic
# shared memory) lowered with mlir-opt's NVVM pipeline and linked with its C
# entry point and Kiln's CUDA runtime into libruntime_smoke.so. Run by
# bench/gpu/prepare.sh, which sets the KILN_* variables.
set -euo pipefail
: "${KILN_ROOT:?run bench/gpu/prepare.sh}"
tools=${LLVM_TOOLS_DIR:-/usr/lib/llvm-22/bin}
inputs=$KILN_ROOT/test/Integration/GPU/Inputs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$tools/mlir-opt" "$inputs/runtime_smoke.mlir" \
  --gpu-lower-to-nvvm-pipeline="cubin-chip=$KILN_GPU_CHIP cubin-features=+ptx80 cubin-format=bin" \
  -o "$work/smoke.mlir"
"$tools/mlir-translate" --mlir-to-llvmir "$work/smoke.mlir" -o "$work/smoke.ll"
"$tools/llc" -O2 -relocation-model=pic -filetype=obj "$work/smoke.ll" \
  -o "$work/smoke.o"
cc -shared -fPIC -O2 -o "$KILN_GPU_ARTIFACTS/libruntime_smoke.so" \
  "$work/smoke.o" "$inputs/runtime_smoke_entry.c" \
  "$KILN_BUILD_DIR/lib/libKilnCudaRuntime.a" -Wl,--no-undefined -ldl -lpthread
