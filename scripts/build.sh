#!/usr/bin/env bash
# Configures (once) and builds Kiln into the directory of scripts/build-dir.sh.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$("$root/scripts/build-dir.sh")

# ccache keys on paths relative to the checkout, so clones and build dirs share hits.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}

if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ \
    -DKILN_ENABLE_ASSERTIONS=ON
fi
# KILN_SANITIZE (e.g. address,undefined) instruments Kiln and its tests
# (cmake/KilnSanitize.cmake); reconfigure only when it changes.
if [ -n "${KILN_SANITIZE:-}" ] &&
   ! grep -qx "KILN_SANITIZE:STRING=$KILN_SANITIZE" "$build/CMakeCache.txt"; then
  cmake "$build" -DKILN_SANITIZE:STRING="$KILN_SANITIZE"
fi
# KILN_PYTHON (a python with torch, from scripts/python-env.sh) turns on the
# Python tests; reconfigure only when it changes.
if [ -n "${KILN_PYTHON:-}" ] &&
   ! grep -qx "KILN_PYTHON:FILEPATH=$KILN_PYTHON" "$build/CMakeCache.txt"; then
  cmake "$build" -DKILN_PYTHON:FILEPATH="$KILN_PYTHON"
fi
cmake --build "$build" "$@"
