#!/usr/bin/env bash
# Byte-compares `hrw plan` of two binaries (e.g. this tree and a build of an older commit)
# on the sample data and on N random view pairs (nodes added, removed, reweighted,
# relabelled; 1-2000 nodes; weighted or not; both hash modes; R 1-5 with and without
# --distinct zone): moves.csv, summary.json and stderr must be identical, errors included.
#
#   tools/plan-identity.sh NEW_HRW OLD_HRW [N]        (N defaults to 30)
set -euo pipefail
NEW=$1; OLD=$2; N=${3:-30}
W=$(mktemp -d /tmp/hrw-plan-identity-XXXXXX); trap 'rm -rf "$W"' EXIT
$OLD sample --keys 20000 --out "$W/s" 2>/dev/null
python3 - "$W" "$N" <<'PY'
import json, random, sys
w, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(7)
for t in range(n):
    k = rng.choice([1, 3, 10, 100, 300, 2000]) if t % 5 else rng.randint(1, 40)
    weighted = t % 2 == 1
    seed = rng.choice(["", "s1"])
    hashm = rng.choice(["fnv1a-fmix", "fnv1a"])
    nodes = []
    for i in range(k):
        d = {"id": rng.choice(["node-%d" % i, "n%03d" % i, "c-%x" % (i * 7919)]), "zone": "z%d" % rng.randint(0, 3)}
        if weighted: d["weight"] = rng.choice([1, 2, 0.5, 3.25])
        nodes.append(d)
    ids = set(); nodes = [x for x in nodes if not (x["id"] in ids or ids.add(x["id"]))]
    b = [dict(x) for x in nodes]
    ops = rng.sample(["add", "remove", "reweight", "relabel"], rng.randint(1, 3))
    if "add" in ops:
        for j in range(rng.randint(1, 3)):
            d = {"id": "new-%d-%d" % (t, j), "zone": "z%d" % rng.randint(0, 3)}
            if weighted: d["weight"] = 1.5
            b.append(d)
    if "remove" in ops and len(b) > 2:
        for j in range(rng.randint(1, min(3, len(b) - 1))): b.pop(rng.randrange(len(b)))
    if "reweight" in ops and weighted:
        for j in range(rng.randint(1, 3)): rng.choice(b)["weight"] = rng.choice([0.25, 4, 7.5])
    if "relabel" in ops:
        for j in range(rng.randint(1, 3)): rng.choice(b)["zone"] = "z%d" % rng.randint(0, 5)
    json.dump({"version": 1, "seed": seed, "hash": hashm, "nodes": nodes}, open(f"{w}/a{t}.json", "w"))
    json.dump({"version": 2, "seed": seed, "hash": hashm, "nodes": b}, open(f"{w}/b{t}.json", "w"))
PY
run() { # bin out args...
  local bin=$1 out=$2; shift 2
  "$bin" "$@" --out "$out" 2> "$out.err" || echo "exit $?" >> "$out.err"
}
fail=0; count=0
check() { # name args...
  local name=$1; shift
  run "$OLD" "$W/old" "$@"; run "$NEW" "$W/new" "$@"
  if { [[ -e $W/old || -e $W/new ]] && ! diff -r "$W/old" "$W/new" > /dev/null; } || ! diff "$W/old.err" "$W/new.err" > /dev/null; then
    echo "DIFF: $name $*"; fail=1
  fi
  rm -rf "$W/old" "$W/new"; count=$((count + 1))
}
check sample plan --from "$W/s/from.json" --to "$W/s/to.json" --keys "$W/s/keys.txt"
check sample-r3 plan --from "$W/s/from.json" --to "$W/s/to.json" --keys "$W/s/keys.txt" --replicas 3
for ((t = 0; t < N; t++)); do
  a="$W/a$t.json"; b="$W/b$t.json"
  r=$((1 + t % 5))
  check "pair $t" plan --from "$a" --to "$b" --keys "$W/s/keys.txt" --threads $((1 + t % 2))
  check "pair $t R$r" plan --from "$a" --to "$b" --keys "$W/s/keys.txt" --replicas $r --partial
  check "pair $t R$r distinct" plan --from "$a" --to "$b" --keys "$W/s/keys.txt" --replicas $r --distinct zone --partial
done
echo "compared $count runs; fail=$fail"
exit $fail
