#!/usr/bin/env bash
# The whole test suite from a fresh Debian 12 machine: install what is
# missing, configure, build, and run every test (lit + GoogleTest + Python)
# with ctest; then the C++ suite again on a sanitized build (below).
# KILN_SANITIZE=address,undefined runs the whole suite on the sanitized build
# alone (in build-sanitize/; cmake/KilnSanitize.cmake).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$("$root/scripts/build-dir.sh")

"$root/scripts/setup.sh"
# The Python layer's tests (python/tests) need torch and transformers from
# PyPI in a virtual environment; KILN_NO_PYTHON=1 runs the C++ suite alone.
if [ "${KILN_NO_PYTHON:-0}" != 1 ]; then
  KILN_PYTHON=$("$root/scripts/python-env.sh")
  export KILN_PYTHON
fi
"$root/scripts/build.sh"
# A sanitized build registers a slice of the GPU emulation tests beside the
# whole (test/unittests/CMakeLists.txt): the whole runs here.
(cd "$build" && ctest --output-on-failure -j "$(nproc)" -LE '^slice$')

# Then the C++ suite (GoogleTest, lit, the fuzz and mutation slices, the
# embedding examples) once more on a build instrumented with AddressSanitizer
# and UBSan, Kiln's asserts on, in build-sanitize/ (cmake/KilnSanitize.cmake;
# the Python tests run on the first build only, the GPU emulation tests here
# as a slice). KILN_SANITIZED_SUITE=0 skips
# it; with KILN_SANITIZE set, the suite above already ran sanitized.
if [ -z "${KILN_SANITIZE:-}" ] && [ "${KILN_SANITIZED_SUITE:-1}" = 1 ]; then
  sanitized=${KILN_SANITIZED_BUILD_DIR:-$build-sanitize}
  KILN_SANITIZE=address,undefined KILN_BUILD_DIR="$sanitized" KILN_PYTHON= \
    "$root/scripts/build.sh"
  (cd "$sanitized" && ctest --output-on-failure -j "$(nproc)" -LE '^whole$')
fi
