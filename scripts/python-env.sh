#!/usr/bin/env bash
# Creates (once) and reuses the Python virtual environment that Kiln's Python
# layer and its tests use: current torch and transformers from PyPI (Debian's
# python3-torch is too old to be a peer). Prints the environment's python.
#
#   KILN_VENV   where the environment lives (default ~/.cache/kiln/venv, so
#               that clones and CI runs on one machine share it)
set -euo pipefail
venv=${KILN_VENV:-$HOME/.cache/kiln/venv}
py=$venv/bin/python

# What the Python tests need; versions are the supported minimums
# (docs/Python.md).
requirements=("torch>=2.5" "transformers>=5.0" "numpy" "pytest")

ready() {
  [ -x "$py" ] && "$py" - <<'PY' 2>/dev/null
import importlib.metadata as md, sys
def v(name):
    return tuple(int(x) for x in md.version(name).split("+")[0].split(".")[:2])
assert v("torch") >= (2, 5) and v("transformers") >= (5, 0)
import numpy, pytest  # noqa: F401
PY
}

if ! ready; then
  if [ ! -x "$py" ]; then
    echo "kiln python-env: creating $venv" >&2
    mkdir -p "$(dirname "$venv")"
    /usr/bin/python3 -m venv "$venv"
  fi
  echo "kiln python-env: installing ${requirements[*]} into $venv" >&2
  "$py" -m pip install -q --upgrade pip >&2
  "$py" -m pip install -q "${requirements[@]}" >&2
  ready || { echo "kiln python-env: $venv is unusable after pip install" >&2; exit 1; }
fi
echo "$py"
