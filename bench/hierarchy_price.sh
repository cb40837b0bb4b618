#!/usr/bin/env bash
# The price of a hierarchy (docs/hierarchy.md): moved fraction vs the flat ideal for four
# changes of the 10 x 10 x 100 cluster, flat hrw, hierarchical hrw (--hierarchy zone,rack)
# and CRUSH (crushtool --compare, straw2, x = 0..KEYS-1) side by side, plus the time of
# each plan and of crushtool --test. Benchmark-only: needs crushtool (apt-get install ceph-base).
#   bench/hierarchy_price.sh BUILD_DIR OUT_DIR [KEYS]   (default 1000000 keys)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
B="$(cd "$1" && pwd)"; O="$2"; K="${3:-1000000}"
mkdir -p "$O"
"$B/hrw" sample --keys "$K" --out "$O/sample" >/dev/null 2>&1
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }
secs() { local TIMEFORMAT=%R; { time "$@" >/dev/null 2>&1; } 2>&1; }  # wall seconds
have_crush=1; command -v crushtool >/dev/null || have_crush=0
printf "%-10s %-12s %9s %9s %9s %9s   %8s %8s %8s\n" weights change ideal flat tree crush \
  "flat_s" "tree_s" "crush_s"
for w in unweighted weighted; do
  python3 "$ROOT/bench/tree_cluster.py" "$O/$w" $([ $w = weighted ] && echo --weighted)
  [ $have_crush = 1 ] && for c in base add-node add-rack remove-zone reweight; do
    crushtool -c "$O/$w/$c.crush.txt" -o "$O/$w/$c.bin"; done
  for c in add-node add-rack remove-zone reweight; do
    args=(plan --from "$O/$w/base.json" --to "$O/$w/$c.json" --keys "$O/sample/keys.txt" --quiet)
    tf=$(secs "$B/hrw" "${args[@]}" --out "$O/plan-flat")
    tt=$(secs "$B/hrw" "${args[@]}" --out "$O/plan-tree" --hierarchy zone,rack)
    ideal=$(field "$O/plan-flat/summary.json" ideal_fraction)
    flat=$(field "$O/plan-flat/summary.json" moved_fraction)
    tree=$(field "$O/plan-tree/summary.json" moved_fraction)
    crush=n/a; tc=n/a
    if [ $have_crush = 1 ]; then
      # crushtool --compare exits 1 when the maps differ; no "mismatched" line: none moved.
      crush=$( (crushtool -i "$O/$w/base.bin" --compare "$O/$w/$c.bin" --rule 0 --num-rep 1 \
                 --min-x 0 --max-x $((K - 1)) 2>&1 || true) | sed -n 's/.*mismatched mappings (\(.*\))/\1/p')
      crush=${crush:-0}
      tc=$(secs crushtool -i "$O/$w/$c.bin" --test --rule 0 --num-rep 1 --min-x 0 --max-x $((K - 1)))
    fi
    printf "%-10s %-12s %9.6f %9.6f %9.6f %9s   %8s %8s %8s\n" $w $c "$ideal" "$flat" "$tree" \
      "$crush" "$tf" "$tt" "$tc"
  done
done
