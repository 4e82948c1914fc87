#!/usr/bin/env bash
# The whole test suite from a fresh Debian 12 machine: install what is
# missing, configure, build, and run every test (lit + GoogleTest) with ctest.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${KILN_BUILD_DIR:-$root/build}

"$root/scripts/setup.sh"
"$root/scripts/build.sh"
cd "$build"
ctest --output-on-failure -j "$(nproc)"
