#!/usr/bin/env bash
# Regenerates the measured parts of docs/compare.md (the table between the compare-table
# markers) and docs/compare.svg from
#   hrw compare --sample 1000000 --from 10 --to 11
# Usage: tools/make-compare-doc.sh [PATH_TO_HRW]   (default: build/hrw, built if missing)
# The ns/key column depends on the machine: rerun it where you want the timings to mean
# something, and commit both files together.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HRW="${1:-$ROOT/build/hrw}"
if [[ ! -x "$HRW" ]]; then
  "$ROOT/tools/build.sh" "$ROOT/build" -DCMAKE_BUILD_TYPE=Release
  HRW="$ROOT/build/hrw"
fi
ARGS=(compare --sample 1000000 --from 10 --to 11)

table="$(mktemp)"
trap 'rm -f "$table"' EXIT
"$HRW" "${ARGS[@]}" --svg "$ROOT/docs/compare.svg" > "$table"

# Replace everything between the markers with the fresh table in a code block.
for DOC in "$ROOT/docs/compare.md"; do
  awk -v table="$table" -v cmd="hrw ${ARGS[*]}" '
    /<!-- compare-table:begin -->/ {
      print
      print "```"
      print "$ " cmd
      while ((getline line < table) > 0) print line
      close(table)
      print "```"
      skipping = 1
      next
    }
    /<!-- compare-table:end -->/ { skipping = 0 }
    !skipping { print }
  ' "$DOC" > "$DOC.tmp"
  grep -q '<!-- compare-table:end -->' "$DOC.tmp" || { echo "markers missing in $DOC" >&2; rm -f "$DOC.tmp"; exit 1; }
  mv "$DOC.tmp" "$DOC"
  echo "updated $DOC"
done
echo "updated $ROOT/docs/compare.svg"
