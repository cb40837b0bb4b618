#!/bin/bash
# Figures of docs/balance.md: hrw balance on 16,384 slots (keys 0 … 16383) on 100 nodes,
# unit and log-normal loads, eps = 0.01, 0.02, 0.05, 0.10; the 100 -> 101 plan between
# balanced views against plain views and the ideal; hrw compare's bounded loads beside it.
# Usage: tools/balance-figures.sh BUILD_DIR [WORK_DIR]
set -euo pipefail
build=${1:?build dir}
work=${2:-$(mktemp -d)}
hrw="$build/hrw"
mkdir -p "$work"
nodes() { for i in $(seq 0 $(($1 - 1))); do [ "$i" -gt 0 ] && printf ', '; printf '{"id": "node-%02d"}' "$i"; done; }
echo "{\"version\": 1, \"nodes\": [$(nodes 100)]}" > "$work/a.json"
echo "{\"version\": 2, \"nodes\": [$(nodes 101)]}" > "$work/b.json"
seq 0 16383 > "$work/slots.txt"
awk 'BEGIN { srand(7); print "key,bytes"; for (i = 0; i < 16384; i++)
  printf "%d,%d\n", i, int(exp(10 + 1.0 * sqrt(-2 * log(1 - rand())) * cos(6.283185307 * rand()))) }' > "$work/slots.csv"
jq_() { /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
moved() {  # moved fraction of a plan between two views on the slots
  "$hrw" plan --from "$1" --to "$2" --keys "$work/slots.csv" --out "$work/plan" --quiet
  jq_ "$work/plan/summary.json" 'd["moved_fraction"]'
}
plain_moved=$(moved "$work/a.json" "$work/b.json")
echo "| loads | eps | peak load/target plain | with cuts | keys displaced | passes | overflow | moved 100->101 balanced | plain | ideal |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for by in keys bytes; do
  for eps in 0.01 0.02 0.05 0.10; do
    "$hrw" balance --cluster "$work/a.json" --keys "$work/slots.csv" --by $by --max-overload $eps \
      --out "$work/a-$by-$eps.json" --stats "$work/a-$by-$eps.stats.json" --quiet
    "$hrw" balance --cluster "$work/b.json" --keys "$work/slots.csv" --by $by --max-overload $eps \
      --out "$work/b-$by-$eps.json" --quiet
    s="$work/a-$by-$eps.stats.json"
    m=$(moved "$work/a-$by-$eps.json" "$work/b-$by-$eps.json")
    printf "| %s | %s | %.4f | %.4f | %s | %s | %s | %.4f | %.4f | %.4f |\n" "$by" "$eps" \
      "$(jq_ "$s" 'd["peak_load_over_target_before"]')" "$(jq_ "$s" 'd["peak_load_over_target_after"]')" \
      "$(jq_ "$s" 'd["displaced"]')" "$(jq_ "$s" 'd["passes"]')" "$(jq_ "$s" 'd["overflow"]')" \
      "$m" "$plain_moved" "$(/usr/bin/python3 -c 'print(1/101)')"
  done
done
echo
echo "hrw compare (keys, order-dependent bounded loads vs hrw-cuts), 100 -> 101 on the 16,384 slots:"
echo "| c = 1 + eps | scheme | moved | peak load/target after |"
echo "|---:|---|---:|---:|"
for eps in 0.01 0.02 0.05 0.10; do
  c=$(/usr/bin/python3 -c "print(1 + $eps)")
  "$hrw" compare --keys "$work/slots.txt" --from 100 --to 101 --load-factor "$c" --format json > "$work/cmp.json"
  for scheme in hrw-fnv1a-fmix hrw-bounded hrw-cuts; do
    /usr/bin/python3 - "$work/cmp.json" "$scheme" "$c" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
a = next(x for x in d["algorithms"] if x["name"] == sys.argv[2])
print(f"| {sys.argv[3]} | {sys.argv[2]} | {a['moved_fraction']:.4f} | {a['peak_to_mean']:.4f} |")
PY
  done
done
