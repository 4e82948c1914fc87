#!/usr/bin/env bash
# The runtime's own device check (check_runtime.py), independent of the kiln
# pipelines: test/Integration/GPU/Inputs/runtime_smoke.mlir (upstream
# dialects: stream, alloc, memset, memcpy, a launch with 64 KiB of dynamic
# shared memory) lowered with mlir-opt's NVVM pipeline and linked with its C
# entry point and Kiln's CUDA runtime into libruntime_smoke.so. Run by
# bench/gpu/prepare.sh, which sets the KILN_* variables.
#
# For the emulator (KILN_GPU_EMULATE=1): the same upstream passes up to
# gpu-to-llvm (those of gpu-lower-to-nvvm-pipeline before
# gpu-module-to-binary), then Kiln's kiln-gpu-emulate-kernels in place of the
# binary, linked with libKilnGPUEmulator.a: the check then exercises the
# emulator's mgpu* functions and its dynamic shared memory.
set -euo pipefail
: "${KILN_ROOT:?run bench/gpu/prepare.sh}"
tools=${LLVM_TOOLS_DIR:-/usr/lib/llvm-22/bin}
inputs=$KILN_ROOT/test/Integration/GPU/Inputs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "${KILN_GPU_EMULATE:-}" ]; then
  "$tools/mlir-opt" "$inputs/runtime_smoke.mlir" --pass-pipeline="builtin.module(\
convert-nvgpu-to-nvvm,gpu-kernel-outlining,convert-vector-to-scf,\
convert-scf-to-cf,convert-nvvm-to-llvm,convert-func-to-llvm,\
expand-strided-metadata,nvvm-attach-target{chip=$KILN_GPU_CHIP},lower-affine,\
convert-arith-to-llvm,convert-index-to-llvm,canonicalize,cse,\
gpu.module(strip-debuginfo,convert-gpu-to-nvvm,canonicalize,cse,\
reconcile-unrealized-casts),gpu-to-llvm)" -o "$work/nvvm.mlir"
  "$KILN_BUILD_DIR/bin/kiln-opt" "$work/nvvm.mlir" --kiln-gpu-emulate-kernels \
    -o "$work/emulated.mlir"
  "$tools/mlir-opt" "$work/emulated.mlir" --convert-math-to-llvm \
    --canonicalize --cse --reconcile-unrealized-casts -o "$work/smoke.mlir"
  runtime=$KILN_BUILD_DIR/lib/libKilnGPUEmulator.a
else
  "$tools/mlir-opt" "$inputs/runtime_smoke.mlir" \
    --gpu-lower-to-nvvm-pipeline="cubin-chip=$KILN_GPU_CHIP cubin-features=+ptx80 cubin-format=${KILN_GPU_FORMAT:-fatbin}" \
    -o "$work/smoke.mlir"
  runtime=$KILN_BUILD_DIR/lib/libKilnCudaRuntime.a
fi
"$tools/mlir-translate" --mlir-to-llvmir "$work/smoke.mlir" -o "$work/smoke.ll"
"$tools/llc" -O2 -relocation-model=pic -filetype=obj "$work/smoke.ll" \
  -o "$work/smoke.o"
cc -shared -fPIC -O2 -o "$KILN_GPU_ARTIFACTS/libruntime_smoke.so" \
  "$work/smoke.o" "$inputs/runtime_smoke_entry.c" \
  "$runtime" -Wl,--no-undefined -ldl -lpthread ${KILN_GPU_EMULATE:+-lm}
