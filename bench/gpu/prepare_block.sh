#!/usr/bin/env bash
# Libraries of check_block.py, compiled with kiln-compile --target=cuda:
#   libblock_grad.so   @main = kiln.value_and_grad of the transformer block's
#                      @loss (examples/transformer_block.mlir) with respect
#                      to its 12 float parameters: the module
#                      scripts/fixtures/gen_block_grad.py builds
#   libtrain_block.so  examples/train_block.mlir (@train_step: the loss,
#                      and the parameters and moments after one Adam step)
#   libblock_smoke_ops.so  bench/gpu/block_smoke_ops.mlir
# and libblock_grad_decomposed.so, libtrain_block_decomposed.so: the same
# with kiln-decompose-attention first, so attention goes the generic way
# instead of through the flash kernels (the block check then tests the rest
# of the pipeline and the runtime even when the attention kernels fail).
# Run by bench/gpu/prepare.sh, which sets the KILN_* variables (for the
# emulator, KILN_GPU_TARGET=cuda-emulator). Every library is attempted; the
# exit code says whether all were built.
set -uo pipefail
: "${KILN_ROOT:?run bench/gpu/prepare.sh}"
out=$KILN_GPU_ARTIFACTS
status=0
target=${KILN_GPU_TARGET:-cuda}
compile() {  # source library [kiln-compile options]
  if "$KILN_COMPILE" --target="$target" --gpu-chip="$KILN_GPU_CHIP" \
       --gpu-format="${KILN_GPU_FORMAT:-fatbin}" "$1" -o "$out/$2" "${@:3}"; then
    echo "prepare_block: $2"
  else
    echo "prepare_block: kiln-compile --target=$target $1 failed" >&2
    status=1
  fi
}
# block_grad.mlir's parameters come from the fixture generator, which uses
# torch (Debian's python3-torch; only here, not on the GPU machine).
rm -f "$out/block_grad.mlir" "$out/libblock_grad.so" "$out/libblock_grad_decomposed.so"
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  echo "prepare_block: /usr/bin/python3 has no torch (apt-get install" \
       "python3-torch): no block_grad libraries" >&2
  status=1
elif ! /usr/bin/python3 - "$out/block_grad.mlir" <<'PY'
import os, sys
sys.path.insert(0, os.path.join(os.environ["KILN_ROOT"], "scripts", "fixtures"))
from gen_block import params
from gen_block_grad import main_source
open(sys.argv[1], "w").write(main_source(params()))
PY
then
  status=1
  rm -f "$out/block_grad.mlir"
fi
[ -f "$out/block_grad.mlir" ] && compile "$out/block_grad.mlir" libblock_grad.so
compile "$KILN_ROOT/examples/train_block.mlir" libtrain_block.so
compile "$KILN_ROOT/bench/gpu/block_smoke_ops.mlir" libblock_smoke_ops.so
# --gpu-pipeline replaces the whole pipeline, `emulate` included.
decomposed="--gpu-pipeline=kiln-decompose-attention,kiln-lower-to-nvvm{chip=$KILN_GPU_CHIP format=${KILN_GPU_FORMAT:-fatbin}${KILN_GPU_EMULATE:+ emulate=true}}"
[ -f "$out/block_grad.mlir" ] &&
  compile "$out/block_grad.mlir" libblock_grad_decomposed.so "$decomposed"
compile "$KILN_ROOT/examples/train_block.mlir" libtrain_block_decomposed.so "$decomposed"
exit $status
