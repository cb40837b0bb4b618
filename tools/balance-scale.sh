#!/bin/bash
# docs/balance.md, "Balance time against place time": N keys `user:I` with log-normal sizes
# (median e^10, sigma 1.5) on 100 nodes; hrw balance by bytes at eps 0.02 against hrw place of
# the same keys, wall time and peak RSS of each (/usr/bin/time), and the balance's stats.
# Usage: tools/balance-scale.sh BUILD_DIR N [WORK_DIR]
set -euo pipefail
build=${1:?build dir}
n=${2:?key count}
work=${3:-$(mktemp -d)}
hrw="$build/hrw"
mkdir -p "$work"
nodes() { for i in $(seq 0 99); do [ "$i" -gt 0 ] && printf ', '; printf '{"id": "node-%02d"}' "$i"; done; }
echo "{\"version\": 1, \"nodes\": [$(nodes)]}" > "$work/a.json"
awk -v n="$n" 'BEGIN { srand(11); print "key,bytes"; for (i = 0; i < n; i++)
  printf "user:%d,%d\n", i, int(exp(10 + 1.5 * sqrt(-2 * log(1 - rand())) * cos(6.283185307 * rand()))) }' \
  > "$work/keys.csv"
timed() { /usr/bin/time -f "%e s, %M KB peak RSS" "$@" 2>&1 >/dev/null | tail -1; }
echo "keys: $n, 100 nodes, by bytes, eps 0.02"
echo "hrw balance: $(timed "$hrw" balance --cluster "$work/a.json" --keys "$work/keys.csv" --by bytes \
  --max-overload 0.02 --out "$work/b.json" --stats "$work/stats.json" --quiet)"
echo "hrw place:   $(timed "$hrw" place --cluster "$work/a.json" --keys "$work/keys.csv" --out "$work/placed.csv" --quiet)"
/usr/bin/python3 - "$work/stats.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("passes {passes}, peak load/target {peak_load_over_target_before:.4f} -> {peak_load_over_target_after:.4f}, "
      "displaced {displaced}, overflow {overflow}".format(**d))
PY
