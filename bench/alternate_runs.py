#!/usr/bin/python3
"""Whole `hrw plan` (100 -> 101 nodes) or `hrw place --out FILE` runs of several hrw binaries,
alternating (the starting binary rotates each round), on `hrw sample`'s keys: the median and
quartiles of each binary's wall time, and the paired difference of each binary against the
first (same round). Alternating keeps a VM's drifting core speeds out of the comparison.

Usage: /usr/bin/python3 bench/alternate_runs.py BASE/hrw NEW/hrw [...] [--command plan|place]
       [--threads 2] [--runs 20] [--keys 10000000] [--dir DIR]
"""
import argparse
import shutil
import statistics
import subprocess
import tempfile
import time

from plan_inputs import write_plan_inputs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bins", nargs="+")
    ap.add_argument("--command", choices=("plan", "place"), default="plan")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--keys", type=int, default=10**7)
    ap.add_argument("--dir", help="work folder (default: a temp folder)")
    a = ap.parse_args()
    if a.runs < 2:
        ap.error("--runs: at least 2 (the quartiles need two runs)")
    with tempfile.TemporaryDirectory(dir=a.dir) as tmp:
        write_plan_inputs(a.bins[0], a.keys, tmp)
        out = f"{tmp}/out"
        times = {b: [] for b in a.bins}
        for r in range(a.runs + 1):  # the first round warms the page cache and is not counted
            for b in a.bins[r % len(a.bins):] + a.bins[:r % len(a.bins)]:
                shutil.rmtree(out, ignore_errors=True)
                if a.command == "plan":
                    args = [b, "plan", "--from", f"{tmp}/a.json", "--to", f"{tmp}/b.json", "--out", out]
                else:
                    args = [b, "place", "--cluster", f"{tmp}/a.json", "--out", out]
                args += ["--keys", f"{tmp}/keys.txt", "--threads", str(a.threads), "--quiet"]
                t0 = time.perf_counter()
                subprocess.run(args, check=True)
                if r:
                    times[b].append((time.perf_counter() - t0) * 1e3)
    print(f"hrw {a.command} --threads {a.threads}, {a.keys} keys; {a.runs} alternating rounds (ms)")
    for b, xs in times.items():
        q = statistics.quantiles(xs, n=4)
        line = f"  {b}: median {statistics.median(xs):.1f} (quartiles {q[0]:.1f}-{q[2]:.1f})"
        if b != a.bins[0]:
            diffs = [x - y for x, y in zip(xs, times[a.bins[0]])]
            line += f"; paired against the first: median {statistics.median(diffs):+.2f}, mean {statistics.mean(diffs):+.2f}"
        print(line)


if __name__ == "__main__":
    main()
