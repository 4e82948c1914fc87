#!/usr/bin/env bash
# The main job on the bundled example, from a fresh Debian 12 machine:
# install what is missing, build, then verify and canonicalize the bundled
# transformer block with kiln-opt and print a summary of its ops and shapes.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${KILN_BUILD_DIR:-$root/build}
example=${1:-$root/examples/transformer_block.mlir}

"$root/scripts/setup.sh"
"$root/scripts/build.sh"

echo "== kiln-opt: verify + canonicalize $(basename "$example")"
"$build/bin/kiln-opt" "$example" --canonicalize --kiln-graph-summary -o /dev/null
