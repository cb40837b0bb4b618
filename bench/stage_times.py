#!/usr/bin/python3
"""Where a whole `hrw plan` (100 -> 101 nodes, `hrw sample`'s keys) spends its threads' time,
for one or more hrw binaries run alternately: the medians of the hidden `--stage-times`
counters (thread-milliseconds in reading, placing, digesting, the in-order step and the
parallel write step, and the pipeline's wall time). Comparing binaries within one run keeps
a VM's drifting core speeds out of the comparison; --core pins every run to one core.

Usage: /usr/bin/python3 bench/stage_times.py BUILD/hrw [OTHER/hrw ...] [--threads 2] [--runs 12]
       [--core C] [--keys 10000000] [--dir DIR]
"""
import argparse
import os
import re
import statistics
import subprocess
import tempfile

from plan_inputs import write_plan_inputs

STAGES = ("read", "place", "digest", "consume", "write", "wall")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bins", nargs="+")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=12)
    ap.add_argument("--core", type=int, help="pin every run to this core")
    ap.add_argument("--keys", type=int, default=10**7)
    ap.add_argument("--dir", help="work folder (default: a temp folder)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=a.dir) as tmp:
        write_plan_inputs(a.bins[0], a.keys, tmp)
        pin = (lambda: os.sched_setaffinity(0, {a.core})) if a.core is not None else None
        times = {b: {s: [] for s in STAGES} for b in a.bins}
        for r in range(a.runs + 1):  # the first round warms the page cache and is not counted
            for b in a.bins:
                out = subprocess.run([b, "plan", "--from", f"{tmp}/a.json", "--to", f"{tmp}/b.json", "--keys",
                                      f"{tmp}/keys.txt", "--out", f"{tmp}/plan", "--quiet", "--threads",
                                      str(a.threads), "--stage-times"],
                                     check=True, capture_output=True, text=True, preexec_fn=pin).stderr
                found = dict(re.findall(r"(read|place|digest|consume|write|wall) ([0-9.]+)", out))
                if r:
                    for s in STAGES:
                        times[b][s].append(float(found[s]))
    where = f"core {a.core}" if a.core is not None else "unpinned"
    print(f"hrw plan 100 -> 101, {a.keys} keys, --threads {a.threads}, {where}; medians of {a.runs} alternating "
          "runs (thread-ms; wall: the pipeline's ms)")
    for b in a.bins:
        print(f"  {b}: " + ", ".join(f"{s} {statistics.median(times[b][s]):.1f}" for s in STAGES))


if __name__ == "__main__":
    main()
