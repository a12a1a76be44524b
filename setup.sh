#!/usr/bin/env bash
# Quick start, step 1: create the dev venv .venv, install the pinned tools and torch, install all
# five neml2 packages editable (the C++ ones built against that torch), then run the demo.
# Needs only python3 (>= 3.10, with venv + shared libpython for the C++ tests), pip, a C++17
# compiler; cmake and ninja come from PyPI. Idempotent: a re-run only rebuilds what changed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

PYTHON=${PYTHON:-python3}
VENV=.venv
PY="$VENV/bin/python"
PIP=("$PY" -m pip install --disable-pip-version-check -q)

if [[ ! -x "$PY" ]]; then
  echo "==> creating $VENV with $("$PYTHON" --version)"
  "$PYTHON" -m venv "$VENV"
fi

echo "==> dev tools + torch (constraints/dev.txt)"
"${PIP[@]}" -r <(grep -Ev '^\s*(#|$)' constraints/dev.txt | sed 's/[=<>!~].*//') -c constraints/dev.txt

echo "==> pure-Python packages (editable)"
"${PIP[@]}" --no-build-isolation -c constraints/dev.txt \
  -e packages/neml2-tensors -e packages/neml2-hit -e packages/neml2-models

echo "==> system packages: OpenMPI for the MPI dispatcher (skipped when present)"
if ! command -v mpicxx >/dev/null || ! command -v mpiexec >/dev/null; then
  SUDO=$([[ $EUID -ne 0 ]] && echo sudo || true)
  $SUDO apt-get update -qq && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libopenmpi-dev openmpi-bin \
    || echo "warning: could not install OpenMPI; the MPI dispatcher will not be built" >&2
fi

echo "==> C++ packages (editable, built against the installed torch)"
"${PIP[@]}" --no-build-isolation --no-deps -e packages/neml2-aoti
"${PIP[@]}" --no-build-isolation --no-deps -e packages/neml2-eager-cpp
"$PY" -c "import neml2.aoti._aoti, neml2.eager; print('neml2.aoti', neml2.aoti.__version__, 'OK')"

echo "==> demo"
"$VENV/bin/nox" -s demo
