#!/usr/bin/python3
"""What reading costs in `hrw plan` (100 -> 101 nodes, `hrw sample`'s keys) from byte-identical
copies of one key file: keys.txt as `hrw sample` wrote it, two copies of it, and its two
halves one after the other (the files two half-runs read, read by one process in turn). On
a VM the page cache of each file lies in different memory, and that alone changes reading:
a comparison of reading across files (two threads of one process against two processes on
half-files) is only fair on the same file. Each run's --stage-times, at --threads 1 and 2;
medians of interleaved rounds, thread-ms of reading and placing, and the pipeline's wall ms.

Usage: /usr/bin/python3 bench/file_copies.py BUILD/hrw [--runs 9] [--keys 10000000] [--dir DIR]
"""
import shutil
import statistics
import tempfile

from pinned_runs import cpu_model, interleaved_rounds, run_together, stage_times_in
from plan_inputs import plan_arguments, write_key_copies, write_key_halves, write_plan_inputs

COPIES = 3  # keys.txt and two copies


def main():
    ap = plan_arguments(runs=9)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=a.dir) as tmp:
        write_plan_inputs(a.hrw, a.keys, tmp)
        write_key_halves(tmp)
        files = write_key_copies(tmp, COPIES)

        def plan(keys, threads):
            """{stage: thread-ms, "wall": pipeline ms} of one plan of `keys`."""
            shutil.rmtree(f"{tmp}/p", ignore_errors=True)
            argv = [a.hrw, "plan", "--from", f"{tmp}/a.json", "--to", f"{tmp}/b.json", "--keys", f"{tmp}/{keys}",
                    "--out", f"{tmp}/p", "--quiet", "--threads", str(threads), "--stage-times"]
            run_together([(argv, None, f"{tmp}/stderr")])
            return stage_times_in(f"{tmp}/stderr")

        kinds = [(f, t) for t in (1, 2) for f in files] + [("halves in turn", 1)]

        def run(kind):
            name, threads = kind
            if name != "halves in turn":
                return plan(name, threads)
            h0, h1 = plan("keys-h0.txt", 1), plan("keys-h1.txt", 1)
            return {k: h0[k] + h1[k] for k in h0}

        got = interleaved_rounds(run, kinds, a.runs)
    print(f"hrw plan 100 -> 101, {a.keys} keys, {cpu_model()}; medians of {a.runs} interleaved rounds")
    print("file (same bytes)     threads  read thread-ms  place thread-ms  pipeline ms")
    for (name, threads), runs in got.items():
        med = {k: statistics.median(r[k] for r in runs) for k in ("read", "place", "wall")}
        print(f"{name:22s} {threads:7d} {med['read']:15.1f} {med['place']:16.1f} {med['wall']:12.1f}")


if __name__ == "__main__":
    main()
