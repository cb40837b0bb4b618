#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz (clang 14, ASan + UBSan + libFuzzer) and runs
# each for a bounded time, failing on the first crash, leak, sanitizer report or timeout:
#   tools/fuzz.sh [SECONDS_PER_HARNESS]     (default 45; tools/test-all.sh uses the default)
#   FUZZ_JOBS=2 tools/fuzz.sh 3600          (run longer, on more cores)
#   FUZZ_PARALLEL=N                          (harnesses run at once; default: the core count)
# The committed seed corpora (tests/fuzz/corpus/NAME) are read, never written: new inputs go
# to build-fuzz/corpus/NAME, which later runs start from. A crashing input is saved as
# build-fuzz/crash-NAME-*; reproduce with build-fuzz/tests/fuzz/fuzz_NAME FILE.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECONDS_EACH="${1:-45}"
BUILD="${FUZZ_BUILD_DIR:-$ROOT/build-fuzz}"
HARNESSES=(cluster_json lines_reader csv_reader placement_reader batch_vs_reference)

FLAGS="-O1 -g1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$FLAGS" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DHRW_BUILD_TESTS=OFF -DHRW_BUILD_BENCH=OFF -DHRW_BUILD_PYTHON=OFF -DHRW_BUILD_FUZZ=ON >/dev/null
cmake --build "$BUILD" -j "$(nproc)" --target "${HARNESSES[@]/#/fuzz_}"

jobs=()  # libFuzzer's -jobs runs workers whose logs go to ./fuzz-N.log: only when asked for
[[ "${FUZZ_JOBS:-1}" -gt 1 ]] && jobs=(-jobs="$FUZZ_JOBS" -workers="$FUZZ_JOBS")
cd "$BUILD"
# One harness per core at a time (each is single-threaded): on 2 cores the stage takes half
# the wall time of running them one after another.
run_one() {
  local h=$1 corpus="$BUILD/corpus/$1" log="$BUILD/fuzz-$1.log" dict=()
  mkdir -p "$corpus"
  [[ $h == cluster_json ]] && dict=(-dict="$ROOT/tests/fuzz/json.dict")
  if "$BUILD/tests/fuzz/fuzz_$h" "$corpus" "$ROOT/tests/fuzz/corpus/$h" "${dict[@]}" \
      -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
      "${jobs[@]}" -print_final_stats=1 \
      -artifact_prefix="$BUILD/crash-$h-" >"$log" 2>&1; then
    execs=$(grep -h "stat::number_of_executed_units" "$log" | awk '{n += $2} END {print n}')
    echo "fuzz $h: OK, ${execs:-?} executions in ${SECONDS_EACH} s"
  else
    echo "fuzz $h: FAILED (log: $log)" >&2
    grep -E "ERROR|SUMMARY|Test unit written" "$log" >&2 || tail -20 "$log" >&2
    return 1
  fi
}
PARALLEL="${FUZZ_PARALLEL:-$(nproc)}"
[[ "${FUZZ_JOBS:-1}" -gt 1 ]] && PARALLEL=1  # -jobs already uses the cores
status=0
running=0
for h in "${HARNESSES[@]}"; do
  if (( running >= PARALLEL )); then
    wait -n || status=1
    running=$((running - 1))
  fi
  run_one "$h" &
  running=$((running + 1))
done
while (( running > 0 )); do
  wait -n || status=1
  running=$((running - 1))
done
exit "$status"
