#!/usr/bin/python3
"""`hrw plan` (100 -> 101 nodes, `hrw sample`'s keys), or with --command place `hrw place --out
FILE` (100 nodes), at --threads 2 against --threads 1, whole processes as the issue measures
them, counted only in windows when this VM's two cores are quiet: on this VM another tenant
slows one core or both for seconds to minutes at a time (bench/PLAN.md), and a core slowed
by 50% during a run says nothing about hrw.

Before and after each window, a busy loop (bash, 10^5 iterations) runs pinned to each
core; the window counts when all four took at most 5% more than the fastest loop seen so
far. A window is --pairs one-thread and two-thread plans in turn, each into a fresh output
folder, on one of --copies byte-identical copies of the key file (each file's page cache
lies in different memory, which alone moves reading by up to 13%; the windows take the
copies in turn). Prints each window (medians of its pairs, ms) and the median of the
windows' ratios; windows that end noisy are counted, not used.

Usage: /usr/bin/python3 bench/quiet_windows.py BUILD/hrw [--command plan|place] [--windows 9] [--pairs 12]
                                                [--copies 3] [--minutes 15] [--keys 10000000] [--dir DIR]
"""
import shutil
import statistics
import subprocess
import tempfile
import time

from pinned_runs import cpu_model, run_together
from plan_inputs import plan_arguments, write_key_copies, write_plan_inputs


def busy_loops():
    """Seconds of the pinned busy loop on core 0 and on core 1."""
    took = []
    for core in (0, 1):
        start = time.perf_counter()
        subprocess.run(["taskset", "-c", str(core), "bash", "-c", "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done"],
                       check=True)
        took.append(time.perf_counter() - start)
    return took


def main():
    ap = plan_arguments()
    ap.add_argument("--command", choices=("plan", "place"), default="plan")
    ap.add_argument("--windows", type=int, default=9)
    ap.add_argument("--pairs", type=int, default=12)
    ap.add_argument("--copies", type=int, default=3)
    ap.add_argument("--minutes", type=float, default=15)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=a.dir) as tmp:
        write_plan_inputs(a.hrw, a.keys, tmp)
        files = [f"{tmp}/{name}" for name in write_key_copies(tmp, a.copies)]

        def run(keys, threads):
            """One run of the command (ms) into a fresh output."""
            shutil.rmtree(f"{tmp}/p", ignore_errors=True)
            if a.command == "plan":
                argv = [a.hrw, "plan", "--from", f"{tmp}/a.json", "--to", f"{tmp}/b.json"]
            else:
                argv = [a.hrw, "place", "--cluster", f"{tmp}/a.json"]
            argv += ["--keys", keys, "--out", f"{tmp}/p", "--quiet", "--threads", str(threads)]
            return run_together([(argv, None, None)])[0] * 1e3

        for f in files:  # page cache and outputs warm
            run(f, 1)
        fastest = min(min(busy_loops()) for _ in range(3))
        quiet = lambda loops: max(loops) <= 1.05 * fastest
        what = "hrw plan 100 -> 101" if a.command == "plan" else "hrw place --out FILE, 100 nodes,"
        print(f"{what} {a.keys} keys, {cpu_model()}; windows of {a.pairs} pairs (ms, medians)")
        ratios, noisy, deadline = [], 0, time.time() + 60 * a.minutes
        while len(ratios) < a.windows and time.time() < deadline:
            before = busy_loops()
            fastest = min(fastest, *before)
            if not quiet(before):
                time.sleep(2)
                continue
            keys = files[len(ratios) % len(files)]
            pairs = [(run(keys, 1), run(keys, 2)) for _ in range(a.pairs)]
            after = busy_loops()
            fastest = min(fastest, *after)
            if not quiet(after):
                noisy += 1
                continue
            t1, t2 = (statistics.median(p[i] for p in pairs) for i in (0, 1))
            ratios.append(t1 / t2)
            print(f"  {time.strftime('%H:%M:%S')} {keys.rsplit('/', 1)[1]}: --threads 1 {t1:.1f}, --threads 2 "
                  f"{t2:.1f}: {t1 / t2:.3f}x (busy loops {before[0]:.3f}/{before[1]:.3f} s before, "
                  f"{after[0]:.3f}/{after[1]:.3f} after)", flush=True)
    if not ratios:
        raise SystemExit(f"no quiet window in {a.minutes} minutes ({noisy} ended noisy)")
    print(f"{len(ratios)} quiet windows ({noisy} more ended noisy): median {statistics.median(ratios):.3f}x, "
          f"{min(ratios):.3f}-{max(ratios):.3f}x")


if __name__ == "__main__":
    main()
