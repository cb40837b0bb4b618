#!/usr/bin/env bash
# Checks that what the code and docs cite exists (docs/api.md, "References"):
#   - every path under docs/ src/ kernels/ tools/ bench/ include/ tests/ named in a tracked
#     file resolves (from the repository root, the citing file's folder or a library
#     layer's include root, src/jobs, src/io, src/core), a path
#     with a placeholder (NAME, N, *, <...>) matching at least one file;
#   - every "contract §N" (also "contract (§N, §M)", "§N–§M") names a section heading
#     "## N." of docs/placement-contract.md, whatever sections the doc has today.
# Generated files (configure_file outputs) are listed below. Prints every dangling
# reference as FILE:LINE: TEXT and exits 1 if there is one. Usage: tools/check-references.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
git ls-files -z | /usr/bin/python3 -c '
import os, re, sys, glob
files = [f for f in sys.stdin.read().split("\0") if f]
# Data, not prose: fuzz corpora and test fixtures.
skip = re.compile(r"^tests/fuzz/corpus/|^tests/data/|\.svg$|\.dict$")
generated = {"include/hrw/version.hpp"}  # cmake/version.hpp.in
path_re = re.compile(r"(?<![\w./$@{-])((?:docs|src|kernels|tools|bench|include|tests)/[\w./+*<>{}-]*[\w*>}])")
placeholder = re.compile(r"\*|<[^>]*>|\{[^}]*\}|(?<![a-z])[A-Z][A-Z0-9_]*$|_[A-Z][A-Z0-9]*(?=$|[./])")
headings = set()
with open("docs/placement-contract.md", encoding="utf-8") as f:
    for line in f:
        m = re.match(r"## (\d+)\.", line)
        if m:
            headings.add(int(m.group(1)))
contract_re = re.compile(r"contract(?:\.md)?\)?\s*\(?\s*((?:§\s?\d+(?:\s*(?:,|–|-|/|and|or)\s*)?)+)", re.I)
bad = []
def exists(p, here):
    p = p.rstrip(".")
    # The library layers are include roots too (#include "bench/workload.hpp").
    for base in ("", here, "src/jobs", "src/io", "src/core"):
        q = os.path.normpath(os.path.join(base, p))
        if q in generated or os.path.exists(q):
            return True
        if placeholder.search(q):
            pat = placeholder.sub("*", q)
            if glob.glob(pat) or glob.glob(pat + "*"):
                return True
    return False
for name in files:
    if skip.search(name) or not os.path.isfile(name):
        continue
    try:
        text = open(name, encoding="utf-8").read()
    except UnicodeDecodeError:
        continue
    here = os.path.dirname(name)
    for no, line in enumerate(text.splitlines(), 1):
        for m in path_re.finditer(line):
            if not exists(m.group(1), here):
                bad.append(f"{name}:{no}: path {m.group(1)} does not exist")
        for m in contract_re.finditer(line):
            for n in re.findall(r"§\s?(\d+)", m.group(1)):
                if int(n) not in headings:
                    bad.append(f"{name}:{no}: contract §{n} is not a section of docs/placement-contract.md")
for b in bad:
    print(b)
if bad:
    print(f"check-references: {len(bad)} dangling reference(s); sections in the contract: "
          + ", ".join(f"§{n}" for n in sorted(headings)), file=sys.stderr)
    sys.exit(1)
print(f"check-references: every cited path and contract section resolves ({len(files)} files)")
'
