#!/usr/bin/env bash
# Installs a build tree into a temporary prefix, checks that exactly the listed public headers
# were installed and that each compiles on its own, MOVES the prefix, and builds
# examples/place_keys.cpp against the moved package with find_package(hrw) and with
# pkg-config, and once more embedding the source tree with add_subdirectory (the library
# only: no CLI11, no tests); every build must print what `hrw place` prints. Then imports the
# installed Python module (when built) and checks it places the same keys the same way.
# Usage: tools/test-install.sh [BUILD_DIR]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$(cd "${1:-$ROOT/build}" && pwd)"
WORK="$(mktemp -d)"
# The add_subdirectory build sits beside BUILD and is built at -O0 (see below).
EMBED="$(mktemp -d "$(dirname "$BUILD")/.test-install-embed-XXXXXX")"
trap 'rm -rf "$WORK" "$EMBED"' EXIT
PREFIX="$WORK/prefix"
LAUNCHER=()
command -v ccache >/dev/null && LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

cmake --install "$BUILD" --prefix "$WORK/first-prefix" >/dev/null
# The package must work after its prefix is moved: no absolute path may point back.
if grep -rlI -e "$WORK/first-prefix" -e "$ROOT" "$WORK/first-prefix/lib/cmake" "$WORK/first-prefix/lib/pkgconfig"; then
  echo "test-install: the files above name the install prefix or the source tree" >&2; exit 1
fi
# (A library path is absolute when it starts the value, not after ${_IMPORT_PREFIX}.)
if grep -rnE '(^|[" ;:<>])/[^" ;>]*\.(so|a)([" ;>]|$)' "$WORK/first-prefix/lib/cmake"; then
  echo "test-install: the CMake package names a library by absolute path" >&2; exit 1
fi
mv "$WORK/first-prefix" "$PREFIX"
for f in include/hrw/placement.hpp include/hrw/version.hpp bin/hrw lib/libhrw_core.a \
         lib/cmake/hrw/hrwConfig.cmake lib/cmake/hrw/hrwConfigVersion.cmake \
         lib/cmake/hrw/Findxxhash.cmake lib/pkgconfig/hrw.pc; do
  [ -e "$PREFIX/$f" ] || { echo "test-install: $f was not installed" >&2; exit 1; }
done
# Exactly the headers listed in cmake/install.cmake (HRW_PUBLIC_HEADERS) plus version.hpp.
listed="$(sed -n '/^set(HRW_PUBLIC_HEADERS/,/)/p' "$ROOT/cmake/install.cmake" | grep -o '[a-z_]*\.hpp' | sort)"
installed="$(cd "$PREFIX/include/hrw" && ls | grep -vx version.hpp | sort)"
[ "$listed" = "$installed" ] || { echo "test-install: installed headers differ from HRW_PUBLIC_HEADERS:" >&2
  diff <(echo "$listed") <(echo "$installed") >&2; exit 1; }
# Each public header compiles on its own against the installed tree (none needs wiring).
for h in "$PREFIX"/include/hrw/*.hpp; do
  printf '#include <hrw/%s>\n' "$(basename "$h")" > "$WORK/one_header.cpp"
  g++ -std=c++20 -fsyntax-only -I"$PREFIX/include" "$WORK/one_header.cpp" \
    || { echo "test-install: $(basename "$h") does not compile on its own" >&2; exit 1; }
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

# 1. CMake: find_package(hrw CONFIG REQUIRED) from the moved prefix.
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

# 3. add_subdirectory of the source tree: the library only (no CLI, tests, bench, Python).
# At -O0: this build proves that embedding configures and gives the same bits (no result may
# depend on the optimiser; contract §4 for the weighted math), not speed, and -O0 compiles
# the library in a fraction of -O3's time (CI builds it from scratch).
cmake -S "$ROOT/examples" -B "$EMBED" -G Ninja -DHRW_EMBED_DIR="$ROOT" \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 "${LAUNCHER[@]}" > "$WORK/embed-configure.log"
embed_targets="$(cmake --build "$EMBED" --target help)"
if grep -q "hrw Python module" "$WORK/embed-configure.log" \
   || grep -q "hrw_cli\|hrw_tests\|hrw_bench\|hrw_python\|fuzz_" <<< "$embed_targets"; then
  echo "test-install: add_subdirectory(hrw) configured more than the library" >&2; exit 1
fi
cmake --build "$EMBED" --target place_keys >/dev/null
"$EMBED/place_keys" "$WORK/cluster.json" "$WORK/keys.txt" > "$WORK/embed.csv"
cmp "$WORK/expected.csv" "$WORK/embed.csv"

echo "test-install: find_package and pkg-config builds (moved prefix) and the add_subdirectory build print what hrw place prints ($(wc -l < "$WORK/expected.csv") rows)"

# 4. The Python module (when the build has it), imported from P/lib/python3/dist-packages.
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
