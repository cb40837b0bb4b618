#!/usr/bin/env bash
# The fused plan kernel against one-view placement, from hrw_bench: keys/s of
# plan/<T>/fmix/<w>/R1/t1/prefix/100to101 (100 -> 101 nodes, both views in one walk of the
# union trie) over place/<T>/fmix/<w>/R1/t1/prefix/101 (one view of the same 101 ids).
# Two placements per key would give 0.5; figures: docs/performance.md, "`hrw plan` end to end".
#
#   bench/plan_ratio.sh [HRW_BENCH] [RUNS]     (defaults: build/bench/hrw_bench, 5)
#
# RUNS invocations, each running every place/plan case once (so the two cases of a ratio
# run seconds apart, and the invocations alternate them with the other targets); per case
# the best keys/s of all runs. keys/s = keys_per_iteration / CPU time per iteration: the
# cases run on one thread, and on a shared machine the CPU time excludes the time the
# thread was preempted (wall time then runs up to 2x longer).
set -euo pipefail
BENCH=${1:-build/bench/hrw_bench}
RUNS=${2:-5}
FILTER='^(place|plan)/[A-Z0-9_]+/fmix/(un)?weighted/R1/t1/prefix/(101|100to101)$'
WORK=$(mktemp -d /tmp/hrw-plan-ratio-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
for ((r = 0; r < RUNS; r++)); do
  "$BENCH" --benchmark_filter="$FILTER" --benchmark_min_time=0.3 \
    --benchmark_format=json --benchmark_out="$WORK/run$r.json" > /dev/null 2>&1
done
echo "== $(lscpu | sed -n 's/^Model name:\s*//p'), $(nproc) vCPUs; best of $RUNS runs, CPU time"
python3 - "$WORK" <<'PY'
import glob, json, sys
best = {}
for f in sorted(glob.glob(sys.argv[1] + "/run*.json")):
    for b in json.load(open(f))["benchmarks"]:
        if b.get("error_occurred"):
            sys.exit(f"{b['name']}: {b.get('error_message')}")
        unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
        rate = b["keys_per_iteration"] / (b["cpu_time"] * unit)
        best[b["name"]] = max(best.get(b["name"], 0), rate)
print(f"{'target':<8} {'weighting':<10} {'place/101 keys/s':>17} {'plan/100to101 keys/s':>21} {'ratio':>6}")
for name in best:
    if not name.startswith("place/"):
        continue
    parts = name.split("/")
    plan = "/".join(["plan"] + parts[1:-1] + ["100to101"])
    if plan in best:
        print(f"{parts[1]:<8} {parts[3]:<10} {best[name] / 1e6:>15.2f} M {best[plan] / 1e6:>19.2f} M {best[plan] / best[name]:>6.3f}")
PY
