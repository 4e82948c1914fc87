#!/usr/bin/env bash
# The whole test suite from a fresh Debian 12 machine: install what is
# missing, configure, build, and run every test (lit + GoogleTest) with ctest.
# KILN_SANITIZE=address,undefined runs the same suite on a sanitized build
# (in build-sanitize/; cmake/KilnSanitize.cmake).
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
cd "$build"
ctest --output-on-failure -j "$(nproc)"
