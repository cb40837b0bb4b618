#!/usr/bin/env bash
# The main job on built-in sample data: install what is missing, build, generate 10^6 keys
# and two views (10 nodes -> 11 nodes, with zones) in work/, and print the plan summary.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/tools/setup.sh"
"$ROOT/tools/build.sh" "$ROOT/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
HRW="$ROOT/build/hrw"
WORK="${WORK:-$ROOT/work}"
"$HRW" sample --keys 1000000 --out "$WORK"
"$HRW" plan --from "$WORK/from.json" --to "$WORK/to.json" --keys "$WORK/keys.txt" \
  --out "$WORK/plan" --svg "$WORK/plan/flows.svg"
echo "plan written to $WORK/plan (moves.csv, summary.json, flows.svg)"
