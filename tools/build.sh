#!/usr/bin/env bash
# Configures and builds one build tree: tools/build.sh [BUILD_DIR] [extra cmake args...]
# Default BUILD_DIR is build/ (Release). Re-running only rebuilds what changed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${1:-$ROOT/build}"
shift || true
cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja "$@" >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)"
