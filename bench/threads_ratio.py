#!/usr/bin/python3
"""Whole processes at --threads 2 against --threads 1: `hrw place --out FILE` and `hrw plan`
(100 -> 101 nodes) on `hrw sample`'s keys, runs interleaved, medians; the serial fraction
Amdahl's law gives for each ratio (s = 2 / ratio - 1) and what it projects for 16 and 64
cores (1 / (s + (1 - s) / N)).

With --base OTHER/hrw, the other binary's runs are interleaved with these (same keys, same
folder) and reported after them, so a change is compared within one run.

With --per-core, every --threads 1 run is also made pinned to each core in turn. A VM's
cores need not be equally fast (a busy neighbour on one core's host sibling slows it by a
third or more, and the slower core changes from minute to minute), and then no two threads
can reach 2x one thread on the faster core. The script then also prints each core's
one-thread time and the efficiency of two threads: their speed over the sum of the two
cores' one-thread speeds (1.0 = perfect scaling; on equal cores 0.9 is a ratio of 1.8x).

With --halves (two cores), two one-thread processes also run at once, each pinned to its
own core and each on half the keys (the file split at its middle line): nothing shared,
so their time is what two threads could reach on this machine at that moment, fixed
process costs and the VM's own two-core overhead included. Their time is the slower
one's, each timed from its own start to its own exit (pinned_runs.py). The script prints
that ratio and how close --threads 2 comes to it.

Usage: /usr/bin/python3 bench/threads_ratio.py --cli BUILD/hrw [--base OTHER/hrw] [--keys 10000000]
       [--runs 11] [--dir DIR] [--per-core] [--halves]
"""
import argparse
import os
import statistics
import tempfile

from pinned_runs import cpu_model, interleaved_rounds, run_together
from plan_inputs import write_key_halves, write_plan_inputs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--base", help="a second hrw binary, run interleaved with --cli")
    ap.add_argument("--keys", type=int, default=10**7)
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--dir", help="work folder (default: a temp folder)")
    ap.add_argument("--per-core", action="store_true", help="also run --threads 1 pinned to each core")
    ap.add_argument("--halves", action="store_true",
                    help="also run two one-thread processes at once, one per core, each on half the keys")
    a = ap.parse_args()
    cores = sorted(os.sched_getaffinity(0)) if a.per_core else []
    if a.halves and len(os.sched_getaffinity(0)) != 2:
        ap.error("--halves needs exactly two cores")
    with tempfile.TemporaryDirectory(dir=a.dir) as tmp:
        write_plan_inputs(a.cli, a.keys, tmp)
        keys = f"{tmp}/keys.txt"
        if a.halves:
            write_key_halves(tmp)  # read and written in a function: no big list left in this process
        runs = {}
        clis = [a.cli] + ([a.base] if a.base else [])
        pinned = {}  # run key -> the one core it runs on

        def argv(cli, command, keys, name, threads):
            """`hrw place` or `hrw plan` (100 -> 101) on `keys`, its output named by `name`."""
            if command == "place":
                return [cli, "place", "--cluster", f"{tmp}/a.json", "--keys", keys, "--out",
                        f"{tmp}/place-{name}.csv", "--quiet", "--threads", threads]
            return [cli, "plan", "--from", f"{tmp}/a.json", "--to", f"{tmp}/b.json", "--keys", keys, "--out",
                    f"{tmp}/plan-{name}", "--quiet", "--threads", threads]

        for cli in clis:
            for command in ("place", "plan"):
                # "t" is the thread count, or ("core", c) for one thread pinned to core c.
                for t in [1, 2] + [("core", c) for c in cores]:
                    threads = "1" if isinstance(t, tuple) else str(t)
                    runs[(cli, command, t)] = argv(cli, command, keys, threads, threads)
                    if isinstance(t, tuple):
                        pinned[(cli, command, t)] = t[1]
                if a.halves:  # a list of (argv, core): started together
                    both = zip(("h0", "h1"), sorted(os.sched_getaffinity(0)))
                    runs[(cli, command, "halves")] = [(argv(cli, command, f"{tmp}/keys-{h}.txt", h, "1"), c)
                                                      for h, c in both]

        def run(k):
            """The run's time in seconds: its slower process's (pinned_runs.py)."""
            started = runs[k] if k[2] == "halves" else [(runs[k], pinned.get(k))]
            return max(run_together([(argv, core, None) for argv, core in started]))

        times = interleaved_rounds(run, list(runs), a.runs)
    print(f"{a.keys} keys, {cpu_model()}, {os.cpu_count()} cores; medians of {a.runs} interleaved runs (min-max)")
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
            if cores:
                per_core = {c: statistics.median(times[(cli, command, ("core", c))]) for c in cores}
                print("  hrw " + command + " --threads 1 pinned: " +
                      ", ".join(f"core {c} {v:.3f} s" for c, v in per_core.items()))
                efficiency = (1 / t2) / sum(1 / v for v in per_core.values())
                print(f"  {command}: --threads {len(cores)} runs at {efficiency:.2f} of the cores' summed one-thread "
                      f"speeds ({len(cores) * efficiency:.2f}x on equal cores); {min(per_core.values()) / t2:.2f}x "
                      f"the fastest core alone")
            if a.halves:
                halves = statistics.median(times[(cli, command, "halves")])
                print(f"  {command}: two --threads 1 processes at once, one per core, half the keys each: "
                      f"{halves:.3f} s, {t1 / halves:.2f}x --threads 1 (what two threads could reach here now); "
                      f"--threads 2 reaches {halves / t2:.2f} of it")


if __name__ == "__main__":
    main()
