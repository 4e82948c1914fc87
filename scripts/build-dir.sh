#!/usr/bin/env bash
# Prints the build directory that scripts/build.sh and scripts/test.sh use:
# KILN_BUILD_DIR when set, else build/ in the checkout, or build-sanitize/
# for a sanitized build (KILN_SANITIZE=address,undefined, see
# cmake/KilnSanitize.cmake), so that the two builds never share a tree.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -n "${KILN_BUILD_DIR:-}" ]; then
  echo "$KILN_BUILD_DIR"
elif [ -n "${KILN_SANITIZE:-}" ]; then
  echo "$root/build-sanitize"
else
  echo "$root/build"
fi
