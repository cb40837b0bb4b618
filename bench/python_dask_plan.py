#!/usr/bin/python3
"""hrw on Dask against one CLI thread, in one run: the plan of `hrw sample`'s keys (user:0 ...)
in 20 files, views node-000..node-099 (v1) -> the same plus node-100 (v2), on a LocalCluster
of 2 worker processes x 1 thread over 127.0.0.1 (up before the clocks start):

  cli         `hrw plan --threads 1` on the concatenated file (one process, wall time);
  plan_files  hrw.dask.plan_files over the 20 files (graph submission to the published folder);
  dataframe   hrw.dask.plan over dask.dataframe.read_csv of the same files (the older path).

Each is checked against the CLI's summary.json. Then where the workers' time goes in
plan_files: compute time per task kind (distributed's task stream).

Usage: PYTHONPATH=BUILD/python /usr/bin/python3 -P bench/python_dask_plan.py --cli BUILD/hrw
       [--keys 100000000] [--files 20] [--repeats 3] [--dataframe-repeats 1] [--dir DIR]
"""
import argparse
import collections
import json
import os
import re
import statistics
import subprocess
import tempfile
import time

import dask.dataframe as dd
from distributed import Client, LocalCluster, get_task_stream

import hrw
import hrw.dask


def write_inputs(tmp, cli, keys, files):
    subprocess.run([cli, "sample", "--keys", str(keys), "--out", tmp], check=True, capture_output=True)
    subprocess.run(["split", "-n", f"l/{files}", "-d", "-a", "2", "--additional-suffix=.txt",
                    f"{tmp}/keys.txt", f"{tmp}/part-"], check=True)
    paths = [f"{tmp}/part-{i:02d}.txt" for i in range(files)]
    for name, n, version in (("a", 100, 1), ("b", 101, 2)):
        with open(f"{tmp}/{name}.json", "w") as f:
            json.dump({"version": version, "nodes": [f"node-{i:03d}" for i in range(n)]}, f)
    return paths


def task_kind(key):
    name = str(key[0] if isinstance(key, tuple) else key).strip("('")
    return "view" if name.startswith("hrw-view") else re.match(r"[A-Za-z_]*", name).group(0) or name


def timed(runs, fn):
    walls, result = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        result = fn()
        walls.append(time.perf_counter() - t0)
    return statistics.median(walls), min(walls), max(walls), result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True, help="the hrw binary")
    ap.add_argument("--keys", type=int, default=10**8)
    ap.add_argument("--files", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--dataframe-repeats", type=int, default=1)
    ap.add_argument("--dir", help="work folder (default: a temp folder); inputs are reused")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=a.dir) as tmp:
        paths = write_inputs(tmp, a.cli, a.keys, a.files)
        view_a = hrw.ClusterView.from_json(f"{tmp}/a.json")
        view_b = hrw.ClusterView.from_json(f"{tmp}/b.json")
        n = a.keys
        cli = [a.cli, "plan", "--threads", "1", "--quiet", "--from", f"{tmp}/a.json", "--to", f"{tmp}/b.json",
               "--keys", f"{tmp}/keys.txt", "--out", f"{tmp}/cli"]
        subprocess.run(cli, check=True)  # warms the page cache
        cli_s = timed(a.repeats, lambda: subprocess.run(cli, check=True))
        with open(f"{tmp}/cli/summary.json") as f:
            expected = json.load(f)
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                          dashboard_address=None) as cluster, Client(cluster) as client:
            out = f"{tmp}/files"
            files_s = timed(a.repeats, lambda: hrw.dask.plan_files(paths, view_a, view_b, out=out))
            assert files_s[3] == expected, "plan_files differs from hrw plan"
            # one more run, observed
            with get_task_stream(client) as ts:
                t0 = time.perf_counter()
                hrw.dask.plan_files(paths, view_a, view_b, out=out)
                observed = time.perf_counter() - t0
            ddf = dd.read_csv(paths, blocksize=None, header=None, names=["key"], dtype={"key": object},
                              keep_default_na=False, na_filter=False)
            frame_s = timed(a.dataframe_repeats,
                            lambda: hrw.dask.plan(ddf, view_a, view_b, column="key", out=f"{tmp}/frame"))
            assert frame_s[3] == expected, "hrw.dask.plan differs from hrw plan"
        per_kind = collections.Counter()
        for task in ts.data:
            for s in task["startstops"]:
                if s["action"] == "compute":
                    per_kind[task_kind(task["key"])] += s["stop"] - s["start"]
    cpu = open("/proc/cpuinfo").read().split("model name")[1].split(":")[1].split("\n")[0].strip()
    print(f"{n} keys in {a.files} files, 100 -> 101 nodes, {cpu}, {os.cpu_count()} cores; "
          f"moved {expected['moved']}; medians of {a.repeats} (min-max)")
    rows = [("hrw plan --threads 1", cli_s), ("plan_files, 2 workers", files_s),
            ("dask.plan (dataframe)", frame_s)]
    for name, (med, lo, hi, _) in rows:
        print(f"  {name:<24} {med:7.2f} s ({lo:.2f}-{hi:.2f})  {n / med / 1e6:8.2f} M keys/s")
    print(f"  plan_files / cli: {cli_s[0] / files_s[0]:.2f}x   plan_files / dataframe: {frame_s[0] / files_s[0]:.1f}x")
    busy = sum(per_kind.values())
    print(f"plan_files, one observed run: {observed:.2f} s wall, {busy:.2f} s of worker compute "
          f"({busy / (2 * observed) * 100:.0f}% of 2 workers' wall); per task kind:")
    for kind, sec in per_kind.most_common():
        print(f"  {kind:<16} {sec:7.2f} s  {100 * sec / busy:5.1f}%")

if __name__ == "__main__":
    main()
