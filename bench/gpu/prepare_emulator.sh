#!/usr/bin/env bash
# The GPU emulator against the hardware (check_emulator.py): builds
# emulator_check.cu with nvcc into $KILN_GPU_ARTIFACTS/emulator_check, which
# runs shfl.sync and mma.sync both on the GPU (inline PTX) and through
# libKilnGPUEmulator.a, and compares them. cudart is linked statically, so
# the GPU machine needs only the driver. Run by bench/gpu/prepare.sh, which
# sets the KILN_* variables.
set -euo pipefail
: "${KILN_ROOT:?run bench/gpu/prepare.sh}"
if [ -n "${KILN_GPU_EMULATE:-}" ]; then
  echo "prepare_emulator: skipped for the emulator (it checks the emulator" \
       "against the GPU)"
  exit 0
fi
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
cmake --build "$KILN_BUILD_DIR" --target KilnGPUEmulator -j2 > /dev/null
"$nvcc" -O2 -std=c++17 -arch="$KILN_GPU_CHIP" -I"$KILN_ROOT/include" \
  "$KILN_ROOT/bench/gpu/emulator_check.cu" \
  "$KILN_BUILD_DIR/lib/libKilnGPUEmulator.a" -lpthread \
  -o "$KILN_GPU_ARTIFACTS/emulator_check"
