#!/usr/bin/env bash
# The Python module's test suite (python/tests, pytest) against a build tree: Debian's
# /usr/bin/python3 imports BUILD/python/hrw, and the tests compare it with BUILD/hrw.
# Fails (never skips) when the module was not built. Usage: tools/test-python.sh [BUILD_DIR]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$(cd "${1:-$ROOT/build}" && pwd)"
if ! compgen -G "$BUILD/python/hrw/_hrw*.so" >/dev/null; then
  echo "test-python: $BUILD/python/hrw/_hrw*.so is missing: the Python module was not built" \
       "(tools/setup.sh installs pybind11-dev and python3-dev; HRW_BUILD_PYTHON must be ON)" >&2
  exit 1
fi
# -P and a neutral working directory: the source tree's python/hrw (no extension in it)
# must never shadow the built package. The suite always collects its tests, so pytest's
# exit 5 ("no tests collected") cannot pass for success: any non-zero exit fails here.
cd "$BUILD"
PYTHONPATH="$BUILD/python" HRW_CLI="$BUILD/hrw" \
  /usr/bin/python3 -P -m pytest -q -p no:cacheprovider "$ROOT/python/tests"
