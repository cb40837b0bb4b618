#!/usr/bin/env bash
# Installs a build tree into a temporary prefix and builds examples/place_keys.cpp against
# the installed package twice, with find_package(hrw) and with pkg-config, then checks that
# both print what `hrw place` prints; then imports the installed Python module (when built) and
# checks it places the same keys the same way. Usage: tools/test-install.sh [BUILD_DIR]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
PREFIX="$WORK/prefix"

cmake --install "$BUILD" --prefix "$PREFIX" >/dev/null
for f in include/hrw/placement.hpp include/hrw/version.hpp bin/hrw lib/libhrw_core.a \
         lib/cmake/hrw/hrwConfig.cmake lib/cmake/hrw/hrwConfigVersion.cmake lib/pkgconfig/hrw.pc; do
  [ -e "$PREFIX/$f" ] || { echo "test-install: $f was not installed" >&2; exit 1; }
done
"$PREFIX/bin/hrw" --version | head -1

# Sample input: a weighted, zoned view and keys with commas, quotes and an empty key.
cat > "$WORK/cluster.json" <<'JSON'
{"version": 7, "seed": "s", "nodes": [
  {"id": "node-1", "zone": "a", "weight": 2}, {"id": "node-2", "zone": "b"},
  {"id": "node,3", "zone": "c", "weight": 0.5}, {"id": "node-4", "zone": "a"}]}
JSON
{ printf '\nkey,with,commas\n"quoted"\n'; seq -f 'user:%.0f' 1 20000; } > "$WORK/keys.txt"
"$PREFIX/bin/hrw" place --cluster "$WORK/cluster.json" --keys "$WORK/keys.txt" --out - \
  2>/dev/null > "$WORK/expected.csv"

# 1. CMake: find_package(hrw CONFIG REQUIRED).
cmake -S "$ROOT/examples" -B "$WORK/build-cmake" -G Ninja -DCMAKE_PREFIX_PATH="$PREFIX" >/dev/null
cmake --build "$WORK/build-cmake" >/dev/null
"$WORK/build-cmake/place_keys" "$WORK/cluster.json" "$WORK/keys.txt" > "$WORK/cmake.csv"
cmp "$WORK/expected.csv" "$WORK/cmake.csv"

# 2. pkg-config --cflags --libs hrw.
export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig"
# shellcheck disable=SC2046
g++ -std=c++20 -O2 "$ROOT/examples/place_keys.cpp" -o "$WORK/place_keys_pc" \
  $(pkg-config --cflags --libs hrw)
"$WORK/place_keys_pc" "$WORK/cluster.json" "$WORK/keys.txt" > "$WORK/pkgconfig.csv"
cmp "$WORK/expected.csv" "$WORK/pkgconfig.csv"

echo "test-install: find_package and pkg-config builds print what hrw place prints ($(wc -l < "$WORK/expected.csv") rows)"

# 3. The Python module (when the build has it), imported from P/lib/python3/dist-packages.
if compgen -G "$BUILD/python/hrw/_hrw*.so" >/dev/null; then
  [ -f "$PREFIX/lib/python3/dist-packages/hrw/dask.py" ] || { echo "test-install: hrw/dask.py was not installed" >&2; exit 1; }
  ( cd "$WORK" && PYTHONPATH="$PREFIX/lib/python3/dist-packages" /usr/bin/python3 -P - "$PREFIX" <<'PY'
import csv, sys
import hrw, hrw.dask
assert hrw.__file__.startswith(sys.argv[1]), hrw.__file__
view = hrw.ClusterView.from_json("cluster.json")
keys = open("keys.txt", "rb").read().split(b"\n")[:-1]
owners = [view.ids[o].decode() for o in hrw.place(view, keys)]
with open("expected.csv", newline="") as f:
    assert owners == [row[1] for row in list(csv.reader(f))[1:]]
print(f"test-install: the installed Python module ({hrw.__version__}) places as hrw place does ({len(keys)} keys)")
PY
  )
fi
