#!/usr/bin/env bash
# The whole test suite, as CI runs it (.ci/run calls exactly this):
#   0. every path and contract section cited in code and docs exists (tools/check-references.sh);
#   1. Release build: ctest, then `hrw verify` on every SIMD target this CPU runs, then
#      `cmake --install` to a temp prefix that is then moved, examples/ built against it and
#      embedding the tree with add_subdirectory (tools/test-install.sh),
#      then the Python module's pytest suite (tools/test-python.sh);
#   2. ASan + UBSan build: ctest (native targets only; emulated ARM is not sanitized);
#   3. aarch64 cross build under qemu: ctest and `hrw verify` on NEON, SVE, SVE2,
#      SVE_256 and SVE2_128 (tools/arm-ci.sh; its downloads start in the background first);
#   4. the libFuzzer harnesses of tests/fuzz, 35 s each, one per core at a time (tools/fuzz.sh).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JOBS="$(nproc)"
# Each stage's wall time is printed when the next begins, and all of them at the end.
STAGE_NAME="" STAGE_START=$SECONDS TIMES=()
stage() {
  if [[ -n $STAGE_NAME ]]; then
    local took=$((SECONDS - STAGE_START))
    TIMES+=("$(printf '%5d s  %s' "$took" "$STAGE_NAME")")
    echo "=== took ${took} s: $STAGE_NAME"
  fi
  STAGE_NAME="${*%% (*}" STAGE_START=$SECONDS
  echo; echo "=== $* ($(date +%H:%M:%S))"
}
stage "setup"
"$ROOT/tools/setup.sh"
# ccache (tools/setup.sh installs it) serves every build tree below: CMake reads these as the
# launchers' defaults. Paths are hashed relative to the checkout and without the build
# folder, so a fresh clone of sources compiled before (by an earlier run on this machine)
# takes their objects from the cache; precompiled headers need the sloppiness below. A
# cold cache builds everything: docs/testing.md gives both times.
if command -v ccache >/dev/null; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
  export CCACHE_BASEDIR="$ROOT" CCACHE_NOHASHDIR=true
  export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
  ccache --zero-stats >/dev/null
fi

# The ARM stage's downloads (cross compiler, qemu, arm64 packages: minutes of network, little
# CPU) run in the background while the x86 stages build; the ARM stage waits for them.
stage "aarch64 toolchain and packages: fetched in the background"
ARM_PREP_LOG="$(mktemp)"
HRW_ARM_PREPARE_ONLY=1 "$ROOT/tools/arm-ci.sh" >"$ARM_PREP_LOG" 2>&1 &
ARM_PREP=$!

stage "references: every cited path and contract section exists (tools/check-references.sh)"
"$ROOT/tools/check-references.sh"

stage "release build"
"$ROOT/tools/build.sh" "$ROOT/build" -DCMAKE_BUILD_TYPE=Release
stage "release tests"
ctest --test-dir "$ROOT/build" -j "$JOBS" --output-on-failure
stage "hrw verify (native targets)"
"$ROOT/build/hrw" verify

stage "install, move the prefix, build examples/ against it (find_package, pkg-config) and with add_subdirectory"
"$ROOT/tools/test-install.sh" "$ROOT/build"

stage "Python module: pytest (python/tests), Dask on a 2-process LocalCluster"
"$ROOT/tools/test-python.sh" "$ROOT/build"

stage "ASan/UBSan build"
# -O1, as the sanitizer docs suggest: the kernels' file alone compiles in 68 s instead of
# 93 s at -O2 under ASan, and the tests still run in well under a minute. -g1 (line tables)
# is what a sanitizer report's stack needs. No bench and no Python module: neither runs here.
"$ROOT/tools/build.sh" "$ROOT/build-asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHRW_SANITIZE=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DHRW_BUILD_BENCH=OFF -DHRW_BUILD_PYTHON=OFF \
  -DHRW_INSTALL=OFF
stage "ASan/UBSan tests"
# Sanitized code runs ~3x slower: heavy property tests scale their sizes down.
HRW_TEST_SCALE=0.25 ctest --test-dir "$ROOT/build-asan" -j "$JOBS" --output-on-failure

stage "aarch64 under qemu"
arm_prep=0
wait "$ARM_PREP" || arm_prep=$?
cat "$ARM_PREP_LOG"
[[ $arm_prep -eq 0 ]] || { echo "the aarch64 preparation failed (exit $arm_prep)" >&2; exit 1; }
"$ROOT/tools/arm-ci.sh"

stage "fuzzing (clang 14, ASan + UBSan)"
"$ROOT/tools/fuzz.sh" 35

stage "system files untouched"
# No test may ever replace a device node (hrw once renamed its output over /dev/null).
[[ -c /dev/null ]] || { echo "/dev/null is no longer a character device" >&2; exit 1; }

stage "all passed"
echo "stage times (wall):"
printf '  %s\n' "${TIMES[@]}"
echo "  total: $((SECONDS / 60)) min $((SECONDS % 60)) s"
if command -v ccache >/dev/null; then ccache --show-stats | grep -iE "hits|misses" | head -4; fi
