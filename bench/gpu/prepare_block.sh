#!/usr/bin/env bash
# Libraries of check_block.py, compiled with kiln-compile --target=cuda:
#   libblock_grad.so   @main = kiln.value_and_grad of the transformer block's
#                      @loss (examples/transformer_block.mlir) with respect
#                      to its 12 float parameters: the module
#                      scripts/fixtures/gen_block_grad.py builds
#   libtrain_block.so  examples/train_block.mlir (@train_step: loss and the
#                      SGD-updated parameters)
#   libblock_smoke_ops.so  bench/gpu/block_smoke_ops.mlir
# Run by bench/gpu/prepare.sh, which sets the KILN_* variables. Every library
# is attempted; the exit code says whether all were built.
set -uo pipefail
: "${KILN_ROOT:?run bench/gpu/prepare.sh}"
out=$KILN_GPU_ARTIFACTS
status=0
compile() {  # source library
  if "$KILN_COMPILE" --target=cuda --gpu-chip="$KILN_GPU_CHIP" "$1" -o "$out/$2"; then
    echo "prepare_block: $2"
  else
    echo "prepare_block: kiln-compile --target=cuda $1 failed" >&2
    status=1
  fi
}
/usr/bin/python3 - "$out/block_grad.mlir" <<'PY' || status=1
import os, sys
sys.path.insert(0, os.path.join(os.environ["KILN_ROOT"], "scripts", "fixtures"))
from gen_block import params
from gen_block_grad import main_source
open(sys.argv[1], "w").write(main_source(params()))
PY
compile "$out/block_grad.mlir" libblock_grad.so
compile "$KILN_ROOT/examples/train_block.mlir" libtrain_block.so
compile "$KILN_ROOT/bench/gpu/block_smoke_ops.mlir" libblock_smoke_ops.so
exit $status
