#!/usr/bin/env bash
# End-to-end `hrw plan` throughput, the whole process, on generated keys and views (KEYS
# keys, 100 -> 101 nodes); docs/performance.md, "`hrw plan` end to end".
#
#   bench/plan_throughput.sh [HRW_BINARY] [KEYS] [BASE_HRW]   (defaults: build/hrw, 10000000)
#
# With BASE_HRW (another build, e.g. of the previous commit) its `hrw plan` runs on the same
# input, alternating with HRW_BINARY's, and the script prints the ratio of the two plans'
# keys/s (best of each). Peak RSS comes from one more run under /usr/bin/time -v when
# available.
set -euo pipefail

HRW=${1:-build/hrw}
KEYS=${2:-10000000}
BASE=${3:-}
WORK=${WORK:-$(mktemp -d /tmp/hrw-plan-bench-XXXXXX)}
trap 'rm -rf "$WORK"' EXIT

view() {  # view VERSION NODE_COUNT
  local sep=""
  printf '{"version": %d, "nodes": [' "$1"
  for ((i = 0; i < $2; i++)); do
    printf '%s{"id": "node-%d", "zone": "z%d"}' "$sep" "$i" $((i % 3))
    sep=", "
  done
  printf ']}\n'
}

view 1 100 > "$WORK/from.json"
view 2 101 > "$WORK/to.json"
"$HRW" sample --keys "$KEYS" --out "$WORK/sample" 2>/dev/null
KEYFILE="$WORK/sample/keys.txt"
cat "$KEYFILE" > /dev/null  # warm the page cache: measure hrw, not the disk

echo "== $KEYS keys, 100 -> 101 nodes, $(nproc) cores, $HRW${BASE:+ (base: $BASE)}"
# Wall seconds of one `hrw plan` by binary $1 ($EPOCHREALTIME, not $(date): a date process
# before and after would add its own start-up, milliseconds, to the interval).
timed_plan() {
  local start end
  start=$EPOCHREALTIME
  "$1" plan --from "$WORK/from.json" --to "$WORK/to.json" --keys "$KEYFILE" --out "$WORK/plan" 2> "$WORK/plan.err"
  end=$EPOCHREALTIME
  echo "$end - $start" | bc -l
}
# Best of RUNS for each binary, their runs alternating: the machine may be shared, the best
# run is the least disturbed, and alternating exposes both to the same drift.
RUNS=${RUNS:-3}
plan_s=999999
base_s=999999
for ((r = 0; r < RUNS; r++)); do
  s=$(timed_plan "$HRW")
  printf 'plan run: %.3f s\n' "$s"
  if (( $(echo "$s < $plan_s" | bc -l) )); then plan_s=$s; fi
  if [[ -n $BASE ]]; then
    s=$(timed_plan "$BASE")
    printf 'base plan run: %.3f s\n' "$s"
    if (( $(echo "$s < $base_s" | bc -l) )); then base_s=$s; fi
  fi
done
plan_rate=$(echo "$KEYS / $plan_s" | bc -l)
head -1 "$WORK/plan.err"
printf 'plan end to end (best): %.3f s, %.0f keys/s\n' "$plan_s" "$plan_rate"
if [[ -n $BASE ]]; then
  printf 'base plan end to end (best): %.3f s, %.0f keys/s\n' "$base_s" "$(echo "$KEYS / $base_s" | bc -l)"
  printf 'plan / base plan keys/s (best of each): %.2fx\n' "$(echo "$base_s / $plan_s" | bc -l)"
fi
# Peak memory from one more run, outside the timed ones (time(1) adds a process).
if [[ -x /usr/bin/time ]]; then
  /usr/bin/time -v -o "$WORK/time.txt" "$HRW" plan --from "$WORK/from.json" --to "$WORK/to.json" \
    --keys "$KEYFILE" --out "$WORK/plan" 2> /dev/null
  grep -E "Maximum resident set size" "$WORK/time.txt" | sed 's/^\s*/plan peak RSS: /'
fi
