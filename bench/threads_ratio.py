#!/usr/bin/python3
"""Whole processes at --threads 2 against --threads 1: `hrw place --out FILE` and `hrw plan`
(100 -> 101 nodes) on `hrw sample`'s keys, runs interleaved, medians; the serial fraction
Amdahl's law gives for each ratio (s = 2 / ratio - 1) and what it projects for 16 and 64
cores (1 / (s + (1 - s) / N)).

With --base OTHER/hrw, the other binary's runs are interleaved with these (same keys, same
folder) and reported after them, so a change is compared within one run.

Usage: /usr/bin/python3 bench/threads_ratio.py --cli BUILD/hrw [--base OTHER/hrw] [--keys 10000000]
       [--runs 11] [--dir DIR]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--base", help="a second hrw binary, run interleaved with --cli")
    ap.add_argument("--keys", type=int, default=10**7)
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--dir", help="work folder (default: a temp folder)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=a.dir) as tmp:
        subprocess.run([a.cli, "sample", "--keys", str(a.keys), "--out", tmp], check=True, capture_output=True)
        for name, n, version in (("a", 100, 1), ("b", 101, 2)):
            with open(f"{tmp}/{name}.json", "w") as f:
                json.dump({"version": version, "nodes": [f"node-{i:03d}" for i in range(n)]}, f)
        keys = f"{tmp}/keys.txt"
        runs = {}
        clis = [a.cli] + ([a.base] if a.base else [])
        for cli in clis:
            for t in (1, 2):
                runs[(cli, "place", t)] = [cli, "place", "--cluster", f"{tmp}/a.json", "--keys", keys,
                                           "--out", f"{tmp}/place-{t}.csv", "--quiet", "--threads", str(t)]
                runs[(cli, "plan", t)] = [cli, "plan", "--from", f"{tmp}/a.json", "--to", f"{tmp}/b.json",
                                          "--keys", keys, "--out", f"{tmp}/plan-{t}", "--quiet", "--threads", str(t)]
        for argv in runs.values():  # warm the page cache and the outputs
            subprocess.run(argv, check=True)
        times = {k: [] for k in runs}
        for _ in range(a.runs):
            for k, argv in runs.items():
                t0 = time.perf_counter()
                subprocess.run(argv, check=True)
                times[k].append(time.perf_counter() - t0)
    cpu = open("/proc/cpuinfo").read().split("model name")[1].split(":")[1].split("\n")[0].strip()
    print(f"{a.keys} keys, {cpu}, {os.cpu_count()} cores; medians of {a.runs} interleaved runs (min-max)")
    for cli in clis:
        if len(clis) > 1:
            print(cli)
        for command in ("place", "plan"):
            t1, t2 = (statistics.median(times[(cli, command, t)]) for t in (1, 2))
            for t in (1, 2):
                v = times[(cli, command, t)]
                print(f"  hrw {command} --threads {t}: {statistics.median(v):.3f} s ({min(v):.3f}-{max(v):.3f})")
            ratio = t1 / t2
            s = max(0.0, 2 / ratio - 1)
            projected = {n: 1 / (s + (1 - s) / n) for n in (16, 64)}
            print(f"  {command}: {ratio:.2f}x; serial fraction {s:.3f}; projects {projected[16]:.1f}x on 16 cores, "
                  f"{projected[64]:.1f}x on 64")


if __name__ == "__main__":
    main()
