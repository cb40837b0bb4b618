#!/usr/bin/env bash
# Installs the Debian 12 packages hrw builds with, if any is missing. Idempotent and quiet
# when everything is there. Needs root (or sudo) only when something must be installed.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config python3
  libhwy-dev libtbb-dev catch2 libbenchmark-dev
  libcli11-dev nlohmann-json3-dev libfmt-dev libxxhash-dev zlib1g-dev libzstd-dev zstd
  pybind11-dev python3-dev python3-numpy python3-pandas python3-dask python3-distributed
  python3-pytest
  clang-14 libclang-rt-14-dev ccache
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
