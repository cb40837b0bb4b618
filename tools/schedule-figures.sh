#!/usr/bin/env bash
# The figures of docs/plan.md ("Rounds", "Staged plans"): schedules and staged plans on
# 10^6 keys with log-normal sizes (median e^10 ≈ 22 kB, σ = 1.5), for the 10 -> 12 change
# of docs/plan.md's worked migration and for a mixed change.
# Usage: tools/schedule-figures.sh [BUILD_DIR] [KEYS]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HRW="$(cd "${1:-$ROOT/build}" && pwd)/hrw"
KEYS="${2:-1000000}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
nodes() { for i in $(seq 0 $(($1 - 1))); do [ "$i" -gt 0 ] && printf ', '; printf '{"id": "node-%02d"}' "$i"; done; }
echo "{\"version\": 1, \"nodes\": [$(nodes 10)]}" > a.json
echo "{\"version\": 2, \"nodes\": [$(nodes 12)]}" > add.json
# Mixed: node-00 removed, node-03 doubled, node-05 halved, node-10 and node-11 added.
echo '{"version": 2, "nodes": [{"id": "node-01", "weight": 1}, {"id": "node-02", "weight": 1},
  {"id": "node-03", "weight": 2}, {"id": "node-04", "weight": 1}, {"id": "node-05", "weight": 0.5},
  {"id": "node-06", "weight": 1}, {"id": "node-07", "weight": 1}, {"id": "node-08", "weight": 1},
  {"id": "node-09", "weight": 1}, {"id": "node-10", "weight": 1}, {"id": "node-11", "weight": 1}]}' > mixed.json
awk -v n="$KEYS" 'BEGIN { srand(1); print "key,bytes"; for (i = 0; i < n; i++)
  printf "user:%d,%d\n", i, int(exp(10 + 1.5 * sqrt(-2 * log(1 - rand())) * cos(6.283185307 * rand()))) }' > keys.csv

echo "change  limits                          rounds  lower_bound  ratio  oversize"
for to in add mixed; do
  for limits in "--max-moves-per-node 1000" "--max-moves-per-node 100" \
                "--max-bytes-per-node 1000000000" "--max-bytes-per-node 100000000" \
                "--max-bytes-per-node 10000000" "--max-bytes-per-node 1000000" \
                "--max-moves-per-node 1000 --max-bytes-per-node 100000000"; do
    # shellcheck disable=SC2086
    "$HRW" plan --from a.json --to $to.json --keys keys.csv $limits --out plan 2>/dev/null
    python3 - "$to" "$limits" <<'PY'
import json, sys
s = json.load(open("plan/summary.json"))["schedule"]
print(f"{sys.argv[1]:<7} {sys.argv[2]:<31} {s['rounds']:>6}  {s['lower_bound']:>11}  "
      f"{s['rounds'] / s['lower_bound']:.3f}  {s['oversize_keys']:>8}")
PY
  done
done

echo
echo "change  cap               steps  total_moved  direct_moved  excess  probes"
for to in add mixed; do
  for cap in "0.05" "0.02" "0.05 --cap-by bytes"; do
    # shellcheck disable=SC2086
    "$HRW" plan --from a.json --to $to.json --keys keys.csv --max-moved-fraction $cap --out staged 2>/dev/null
    python3 - "$to" "$cap" <<'PY'
import json, sys
s = json.load(open("staged/summary.json"))
print(f"{sys.argv[1]:<7} {sys.argv[2]:<17} {len(s['steps']):>5}  {s['total_moved']:>11}  "
      f"{s['direct_moved']:>12}  {s['excess']:>6}  {s['probes']:>6}")
PY
    rm -rf staged
  done
done
