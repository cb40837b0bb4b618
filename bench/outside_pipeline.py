#!/usr/bin/python3
"""How much of a whole `hrw plan` (100 -> 101 nodes, `hrw sample`'s keys) lies outside its
pipeline, at --threads 1, at --threads 2, and for two one-thread processes at once on half
the keys each, one per core (started as threads_ratio.py --halves starts them): each run's
wall time from its start to its exit as seen from here, and its pipeline's wall time (the
hidden --stage-times: read, place, count, write the rows); medians of interleaved runs.
For the two half-runs, both are the slower one's (each timed from its own start,
pinned_runs.py). Also the thread-ms of each pipeline step, summed over a run's threads or
processes: where two threads of one process do more work than two processes. For one
process, also its threads' time in the pipeline outside every step (threads x pipeline
wall - the steps' thread-ms): idle, or handing a range on.

Usage: /usr/bin/python3 bench/outside_pipeline.py BUILD/hrw [--runs 15] [--keys 10000000] [--dir DIR]
"""
import os
import shutil
import statistics
import tempfile

from pinned_runs import STAGES, cpu_model, interleaved_rounds, run_together, stage_times_in
from plan_inputs import plan_arguments, write_key_halves, write_plan_inputs

MODES = ("--threads 1", "--threads 2", "two half-runs")
THREADS = {"--threads 1": 1, "--threads 2": 2}  # the modes that are one process


def outside_steps(mode, runs):
    """For a one-process mode, the median thread-ms its pipeline's threads spent outside
    every step: threads x pipeline wall - the steps' thread-ms."""
    if mode not in THREADS:
        return ""
    return f"; outside every step {statistics.median(THREADS[mode] * x[1] - sum(x[2].values()) for x in runs):.1f}"


def main():
    ap = plan_arguments(runs=15)
    a = ap.parse_args()
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) != 2:
        ap.error("needs exactly two cores")
    with tempfile.TemporaryDirectory(dir=a.dir) as tmp:
        write_plan_inputs(a.hrw, a.keys, tmp)
        write_key_halves(tmp)

        def plan(keys, out, threads):
            return [a.hrw, "plan", "--from", f"{tmp}/a.json", "--to", f"{tmp}/b.json", "--keys", keys, "--out",
                    f"{tmp}/{out}", "--quiet", "--threads", str(threads), "--stage-times"]

        starts = {"--threads 1": [(plan(f"{tmp}/keys.txt", "p", 1), None)],
                  "--threads 2": [(plan(f"{tmp}/keys.txt", "p", 2), None)],
                  "two half-runs": [(plan(f"{tmp}/keys-h{i}.txt", f"h{i}", 1), c) for i, c in enumerate(cores)]}

        def run(mode):
            """(whole ms, pipeline ms, {step: thread-ms}) of one run of `mode`: the times its
            slower process's, the steps summed over its processes."""
            for out in ("p", "h0", "h1"):
                shutil.rmtree(f"{tmp}/{out}", ignore_errors=True)
            logs = [f"{tmp}/stderr{i}" for i in range(len(starts[mode]))]
            took = run_together([(argv, core, log) for (argv, core), log in zip(starts[mode], logs)])
            times = [stage_times_in(log) for log in logs]
            slower = took.index(max(took))
            return took[slower] * 1e3, times[slower]["wall"], {s: sum(t[s] for t in times) for s in STAGES}

        got = interleaved_rounds(run, MODES, a.runs)
    print(f"hrw plan 100 -> 101, {a.keys} keys, {cpu_model()}; medians of {a.runs} interleaved runs (ms)")
    whole = {}
    for mode in MODES:
        w = [x[0] for x in got[mode]]
        whole[mode] = statistics.median(w)
        print(f"  {mode}: whole {whole[mode]:.1f}, pipeline {statistics.median(x[1] for x in got[mode]):.1f}, "
              f"outside it {statistics.median(x[0] - x[1] for x in got[mode]):.1f}; thread-ms: "
              + ", ".join(f"{s} {statistics.median(x[2][s] for x in got[mode]):.1f}" for s in STAGES)
              + outside_steps(mode, got[mode]))
    print(f"  --threads 1 / --threads 2: {whole['--threads 1'] / whole['--threads 2']:.2f}x; "
          f"--threads 1 / two half-runs: {whole['--threads 1'] / whole['two half-runs']:.2f}x")


if __name__ == "__main__":
    main()
