#!/usr/bin/env bash
# Runs the hrw_bench cases behind the kernel table of docs/performance.md ("The kernel
# against its bound") and prints their ratios, rates and bounds.
#
#   bench/run-ratios.sh                    # run, then print the table
#   bench/run-ratios.sh --json out.json    # print the table of an earlier run's JSON
#
# Repetitions are randomly interleaved (--benchmark_enable_random_interleaving), so that
# a busy spell of a shared machine hits every case alike instead of a few of them.
# Environment: BENCH (binary, default build-bench/bench/hrw_bench), REPS (repetitions,
# default 5), MIN_TIME (seconds per repetition, default 0.2), OUT (where the JSON of this
# run is kept, default hrw_bench-ratios.json in the current directory).
# STAT (best|median, default best): which repetition stands for a case. Figures are
# wall-clock pair-scores/s (pairs_per_iteration / real_time); "best" takes the fastest
# repetition (the least disturbed one on a shared machine, as plan_throughput.sh does),
# "median" the median. "spread" is (max - min) / median: above ~5% the machine was busy.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
json=""
if [[ "${1:-}" == "--json" ]]; then
  json="${2:?--json needs a file}"
else
  bench="${BENCH:-$here/../build-bench/bench/hrw_bench}"
  json="${OUT:-hrw_bench-ratios.json}"
  filter='^mulbound/|^pairbound/'
  filter+='|^place/(SCALAR_REF|AVX3_DL|AVX3|AVX2|SCALAR_MIX64|SCALAR_MIX64_AUTOVEC)/(fmix|mix64)/(un)?weighted/R1/t1/'
  filter+='|^kernel/(AVX3|AVX2)/fmix/unweighted/R1/t1/prefix/'
  filter+='|^place10M/(AVX3|AVX2)/fmix/unweighted/R1/t[12]/prefix/100$'
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  "$bench" --benchmark_filter="$filter" \
    --benchmark_repetitions="${REPS:-5}" --benchmark_enable_random_interleaving=true \
    --benchmark_min_time="${MIN_TIME:-0.2}" \
    --benchmark_format=json --benchmark_out_format=json --benchmark_out="$json" >/dev/null
  echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)" >&2
fi

STAT="${STAT:-best}" python3 - "$json" <<'PY'
import json, os, statistics, sys

doc = json.load(open(sys.argv[1]))
UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}

runs = {}  # name -> list of wall-clock rates (items per second)
muls_per_pair = {}
for b in doc["benchmarks"]:
    if b.get("run_type") != "iteration" or b.get("error_occurred"):
        continue
    name = b["run_name"]
    secs = b["real_time"] * UNIT[b["time_unit"]]
    if name.startswith(("mulbound/", "pairbound/")):
        items = b["items_per_iteration"]
    else:
        items = b["pairs_per_iteration"]
        if "lane_muls_per_pair" in b:
            muls_per_pair[name] = b["lane_muls_per_pair"]
    runs.setdefault(name, []).append(items / secs)

STAT = os.environ.get("STAT", "best")

def rate(name):
    v = runs.get(name)
    if not v:
        return None
    return max(v) if STAT == "best" else statistics.median(v)

def spread(name):
    v = runs.get(name)
    return (max(v) - min(v)) / statistics.median(v) if v else None

def kernel(engine, n):
    return place(engine, n, family="kernel")

def place(engine, n, weighted=False, ids="prefix", threads=1, family="place"):
    hashname = "mix64" if engine.startswith("SCALAR_MIX64") else "fmix"
    w = "weighted" if weighted else "unweighted"
    return f"{family}/{engine}/{hashname}/{w}/R1/t{threads}/{ids}/{n}"

def mulbound(isa, family="mulbound"):
    names = [k for k in runs if k.startswith(f"{family}/{isa}/")]
    return max(((rate(k), k) for k in names), default=(None, None))

def fmt_rate(x):
    return "n/a" if x is None else f"{x / 1e9:.3f} G/s" if x >= 1e9 else f"{x / 1e6:.1f} M/s"

rows = []
def ratio(label, num, den, target=None):
    a, b = rate(num), rate(den)
    r = a / b if a and b else None
    sp = max(spread(num) or 0, spread(den) or 0) if r else None
    rows.append((label, r, target, sp, f"{fmt_rate(a)} / {fmt_rate(b)}"))

ratio("AVX3 / SCALAR_REF, N=100", place("AVX3", 100), place("SCALAR_REF", 100), 100)
ratio("AVX3 / SCALAR_MIX64, N=100", place("AVX3", 100), place("SCALAR_MIX64", 100), 15)
ratio("AVX3 / SCALAR_MIX64, N=1000", place("AVX3", 1000), place("SCALAR_MIX64", 1000), 12)
ratio("AVX2 / SCALAR_MIX64, N=100", place("AVX2", 100), place("SCALAR_MIX64", 100), 8)
ratio("AVX2 / SCALAR_MIX64, N=1000", place("AVX2", 1000), place("SCALAR_MIX64", 1000))
ratio("weighted AVX3 / weighted SCALAR_MIX64, N=100",
      place("AVX3", 100, weighted=True), place("SCALAR_MIX64", 100, weighted=True), 3)
ratio("weighted AVX3 / weighted SCALAR_MIX64, N=1000",
      place("AVX3", 1000, weighted=True), place("SCALAR_MIX64", 1000, weighted=True))
ratio("AVX3 2 threads / 1 thread, 1e7 keys, N=100",
      place("AVX3", 100, threads=2, family="place10M"),
      place("AVX3", 100, threads=1, family="place10M"), 1.9)
ratio("AVX2 2 threads / 1 thread, 1e7 keys, N=100",
      place("AVX2", 100, threads=2, family="place10M"),
      place("AVX2", 100, threads=1, family="place10M"))
ratio("trie gain AVX3 prefix / noprefix, N=100", place("AVX3", 100),
      place("AVX3", 100, ids="noprefix"))
ratio("trie gain AVX3 prefix / noprefix, N=1000", place("AVX3", 1000),
      place("AVX3", 1000, ids="noprefix"))
ratio("AVX3_DL / SCALAR_MIX64, N=100", place("AVX3_DL", 100), place("SCALAR_MIX64", 100))
ratio("AVX3 / SCALAR_MIX64_AUTOVEC, N=100", place("AVX3", 100),
      place("SCALAR_MIX64_AUTOVEC", 100))
ratio("SCALAR_MIX64_AUTOVEC / SCALAR_MIX64, N=100", place("SCALAR_MIX64_AUTOVEC", 100),
      place("SCALAR_MIX64", 100))

# The kernel as a fraction of the multiply bound, for the multiplies it executes:
# kernel/ = kernels::run_batch alone on precomputed key states (what the target is about);
# place/ = the whole hrw::place call (adds the scalar per-key FNV of the key bytes).
for isa, engine, target in (("AVX512", "AVX3", 0.75), ("AVX2", "AVX2", None)):
    bound, bname = mulbound(isa)
    for fam in ("kernel", "place"):
        for n in (100, 1000):
            name = place(engine, n, family=fam)
            r, m = rate(name), muls_per_pair.get(name)
            frac = r * m / bound if r and m and bound else None
            rows.append((f"{fam} {engine} N={n}: lane-muls/s / {isa} vpmulld bound", frac,
                         target if (n == 100 and fam == "kernel") else None, spread(name),
                         f"{m:.3f} muls/pair x {fmt_rate(r)} / {fmt_rate(bound)}" if frac else "n/a"))
pb, pbname = mulbound("AVX512", "pairbound")
for fam in ("kernel", "place"):
    for n in (100, 1000):
        name = place("AVX3", n, family=fam)
        r = rate(name)
        frac = r / pb if r and pb else None
        rows.append((f"{fam} AVX3 N={n} / pair op-mix bound", frac, None, spread(name),
                     f"{fmt_rate(r)} / {fmt_rate(pb)} ({pbname})"))
for engine in ("AVX3", "AVX2"):
    for n in (10, 100, 1000):
        ratio(f"{engine} place / kernel alone, N={n}", place(engine, n), kernel(engine, n))

print(f"{'ratio':52} {'measured':>9} {'target':>7} {'met':>4} {'spread':>7}  detail")
for label, r, target, sp, detail in rows:
    meas = "n/a" if r is None else f"{r:.2f}"
    tgt = "" if target is None else f">={target:g}"
    met = "" if target is None or r is None else ("yes" if r >= target else "NO")
    s = "" if sp is None else f"{100 * sp:.1f}%"
    print(f"{label:52} {meas:>9} {tgt:>7} {met:>4} {s:>7}  {detail}")

print()
print("multiply bound (lane-multiplies/s, best chain count):")
for isa in ("AVX512", "AVX2"):
    bound, bname = mulbound(isa)
    print(f"  {isa:7} {fmt_rate(bound):>12}  ({bname})")
pb, pbname = mulbound("AVX512", "pairbound")
print(f"pair op-mix bound (pair-scores/s): {fmt_rate(pb)}  ({pbname})")
print()
print(f"pair-scores/s, unweighted fnv1a-fmix R1 t1 (wall clock, {STAT} of repetitions):")
engines = ["SCALAR_REF", "SCALAR_MIX64", "SCALAR_MIX64_AUTOVEC", "AVX2", "AVX3", "AVX3_DL"]
print(f"  {'engine':22} {'ids':9}" + "".join(f"{'N=' + str(n):>14}" for n in (10, 100, 1000)))
for ids in ("prefix", "noprefix"):
    for e in engines:
        print(f"  {e:22} {ids:9}" + "".join(f"{fmt_rate(rate(place(e, n, ids=ids))):>14}"
                                            for n in (10, 100, 1000)))
ctx = doc.get("context", {})
print()
print(f"host: {ctx.get('host_name')}, {ctx.get('num_cpus')} CPUs at {ctx.get('mhz_per_cpu')} MHz, "
      f"load {ctx.get('load_avg')}, targets {ctx.get('hrw_runnable_targets')}")
PY
