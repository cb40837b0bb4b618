#!/usr/bin/python3
"""hrw.dask.plan on 10^7 keys in 20 CSV partitions, on a LocalCluster of 2 worker
processes (1 thread each): keys/s end to end, and where the workers' time goes.

Keys: hrw_bench's (16 hex digits of splitmix64(i)), one `key` column, 20 files of 5*10^5
keys. Views: node-000..node-099 (version 1) -> the same plus node-100 (version 2). The
workers' compute time per task kind comes from distributed's task stream; the time inside
the hrw calls (key conversion + both placements + accounting + rows) is measured on the
workers by wrapping hrw._hrw._plan_part (client.run). Also checks the summary against
`hrw plan` on the concatenated file when --cli is given.

Usage: PYTHONPATH=BUILD/python /usr/bin/python3 -P bench/python_dask_plan.py [--keys N] [--cli BUILD/hrw]
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time

import dask.dataframe as dd
import numpy as np
from distributed import Client, LocalCluster, get_task_stream

import hrw
import hrw.dask

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # -P leaves it out
from python_place import splitmix_hex_keys  # noqa: E402


def write_partitions(folder, n, parts):
    data, _ = splitmix_hex_keys(n)
    lines = np.concatenate([data.reshape(n, 16), np.full((n, 1), ord("\n"), np.uint8)], axis=1)
    paths = []
    for p in range(parts):
        lo, hi = n * p // parts, n * (p + 1) // parts
        paths.append(os.path.join(folder, f"part-{p:02d}.csv"))
        with open(paths[-1], "wb") as f:
            f.write(b"key\n")
            lines[lo:hi].tofile(f)
    return paths


def install_timer():
    """On a worker: accumulate the wall time spent inside hrw._hrw._plan_part."""
    import time as t
    from hrw import _hrw
    if not hasattr(_hrw, "_bench_seconds"):
        inner = _hrw._plan_part

        def timed(*args, **kwargs):
            t0 = t.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                _hrw._bench_seconds += t.perf_counter() - t0
        _hrw._plan_part = timed
    _hrw._bench_seconds = 0.0


def read_timer():
    from hrw import _hrw
    return _hrw._bench_seconds


def task_kind(key):
    name = key[0] if isinstance(key, tuple) else key
    name = str(name).strip("('")
    for kind in ("read-csv", "_count_part", "_write_part", "_first_rows", "_merge", "hrw-view", "getitem"):
        if name.startswith(kind):
            return kind
    return name.split("-")[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--keys", type=int, default=10**7)
    ap.add_argument("--partitions", type=int, default=20)
    ap.add_argument("--cli", help="hrw binary: also run hrw plan on the concatenated file and compare")
    a = ap.parse_args()
    view_a = hrw.ClusterView.from_ids([f"node-{i:03d}" for i in range(100)], version=1)
    view_b = hrw.ClusterView.from_ids([f"node-{i:03d}" for i in range(101)], version=2)
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_partitions(tmp, a.keys, a.partitions)
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                          dashboard_address=None) as cluster, Client(cluster) as client:
            client.run(install_timer)
            ddf = dd.read_csv(paths, blocksize=None, dtype={"key": object}, keep_default_na=False,
                              na_filter=False)
            with get_task_stream(client) as ts:
                t0 = time.perf_counter()
                summary = hrw.dask.plan(ddf, view_a, view_b, column="key", out=os.path.join(tmp, "plan"))
                wall = time.perf_counter() - t0
            in_hrw = sum(client.run(read_timer).values())
        per_kind = collections.Counter()
        for task in ts.data:
            for s in task["startstops"]:
                if s["action"] == "compute":
                    per_kind[task_kind(task["key"])] += s["stop"] - s["start"]
        worker = sum(per_kind.values())
        print(f"{a.keys} keys in {a.partitions} partitions, 2 workers x 1 thread: "
              f"{wall:.2f} s wall, {a.keys / wall / 1e6:.2f} M keys/s; moved {summary['moved']}")
        print(f"worker compute time {worker:.2f} s:")
        for kind, sec in per_kind.most_common():
            print(f"  {kind:<12} {sec:7.2f} s  {100 * sec / worker:5.1f}%")
        print(f"  inside hrw (_plan_part calls): {in_hrw:.2f} s = {100 * in_hrw / worker:.1f}% of worker time")
        if a.cli:
            with open(os.path.join(tmp, "all.csv"), "wb") as f:
                f.write(b"key\n")
                for p in paths:
                    with open(p, "rb") as g:
                        g.readline()
                        f.write(g.read())
            for v, name in ((view_a, "a"), (view_b, "b")):
                with open(os.path.join(tmp, f"{name}.json"), "w") as f:
                    json.dump({"version": v.version, "nodes": [i.decode() for i in v.ids]}, f)
            subprocess.run([a.cli, "plan", "--from", f"{tmp}/a.json", "--to", f"{tmp}/b.json",
                            "--keys", f"{tmp}/all.csv", "--out", f"{tmp}/cli"], check=True,
                           capture_output=True)
            with open(f"{tmp}/cli/summary.json") as f:
                same = json.load(f) == summary
            print(f"summary equals hrw plan on the concatenated file: {same}")


if __name__ == "__main__":
    main()
