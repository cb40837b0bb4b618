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
import statistics
import tempfile

from pinned_runs import STAGES, interleaved_rounds, run_together, stage_times_in
from plan_inputs import write_plan_inputs


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

        def run(b):
            run_together([([b, "plan", "--from", f"{tmp}/a.json", "--to", f"{tmp}/b.json", "--keys",
                            f"{tmp}/keys.txt", "--out", f"{tmp}/plan", "--quiet", "--threads", str(a.threads),
                            "--stage-times"], a.core, f"{tmp}/stderr")])
            return stage_times_in(f"{tmp}/stderr")

        got = interleaved_rounds(run, a.bins, a.runs)
    where = f"core {a.core}" if a.core is not None else "unpinned"
    print(f"hrw plan 100 -> 101, {a.keys} keys, --threads {a.threads}, {where}; medians of {a.runs} alternating "
          "runs (thread-ms; wall: the pipeline's ms)")
    for b in a.bins:
        print(f"  {b}: " + ", ".join(f"{s} {statistics.median(x[s] for x in got[b]):.1f}" for s in STAGES + ("wall",)))


if __name__ == "__main__":
    main()
