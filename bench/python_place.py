#!/usr/bin/python3
"""hrw.place from Python vs the C++ batch rate, on the same keys and view, in one run.

10^7 keys given as (data: uint8, offsets: int64), the zero-copy form; the view has N = 100
nodes node-000..node-099 (unweighted, fnv1a-fmix). Keys are those of hrw_bench: 16 lowercase
hex digits of splitmix64(i). The C++ side is BatchPlacer::place on a KeyBatch holding the
same keys, i.e. the one-batch C++ call hrw::place(view, batch, options) (compiles the view,
fills a fresh Placement), timed inside C++ (hrw._hrw._batch_seconds); the Python side is
the whole hrw.place call (validation of the offsets, the engine with the GIL
released, the numpy result). Runs alternate, best of --repeats each.

Usage: PYTHONPATH=BUILD/python /usr/bin/python3 -P bench/python_place.py [--keys N] [--threads T]
"""
import argparse
import time

import numpy as np

import hrw


def splitmix_hex_keys(n):
    """hrw_bench's keys: 16 lowercase hex digits of splitmix64(i), as (data, offsets)."""
    with np.errstate(over="ignore"):
        z = (np.arange(n, dtype=np.uint64) + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    nibbles = (z[:, None] >> (np.uint64(4) * np.arange(15, -1, -1, dtype=np.uint64))) & np.uint64(15)
    data = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)[nibbles.astype(np.intp)].reshape(-1)
    offsets = np.arange(0, 16 * (n + 1), 16, dtype=np.int64)
    return np.ascontiguousarray(data), offsets


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--keys", type=int, default=10**7)
    ap.add_argument("--nodes", type=int, default=100)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    view = hrw.ClusterView.from_ids([f"node-{i:03d}" for i in range(a.nodes)])
    keys = splitmix_hex_keys(a.keys)
    assert np.array_equal(hrw.place(view, keys)[:512],
                          hrw.place(view, (keys[0][:512 * 16], keys[1][:513]), engine="reference"))
    py_best = cpp_best = float("inf")
    for _ in range(a.repeats):
        t0 = time.perf_counter()
        hrw.place(view, keys, threads=a.threads)
        py_best = min(py_best, time.perf_counter() - t0)
        cpp_best = min(cpp_best, hrw._hrw._batch_seconds(view, keys, threads=a.threads, repeats=1))
    print(f"keys {a.keys}, nodes {a.nodes}, threads {a.threads or 'all'}, best of {a.repeats}")
    print(f"C++ hrw::place(view, KeyBatch):    {a.keys / cpp_best / 1e6:8.2f} M keys/s")
    print(f"hrw.place((data, offsets)):        {a.keys / py_best / 1e6:8.2f} M keys/s")
    print(f"Python / C++ rate:                 {cpp_best / py_best:8.3f}")


if __name__ == "__main__":
    main()
