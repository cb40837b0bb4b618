"""The inputs the whole-process scripts (threads_ratio.py, alternate_runs.py, stage_times.py,
outside_pipeline.py, file_copies.py, quiet_windows.py) share: `hrw sample`'s keys.txt and
two views, a.json (100 nodes, version 1) and b.json (101 nodes, version 2), named node-000
and on, so a 100 -> 101 plan moves about 1% of keys; byte-identical copies of keys.txt; for
runs of two processes on half the keys each, the halves; and the arguments of the scripts
that run one binary on them.
"""
import argparse
import json
import shutil
import subprocess


def plan_arguments(runs=None):
    """The arguments of a script that runs one hrw binary on these inputs: BUILD/hrw,
    --runs (default `runs`; none when `runs` is None), --keys, --dir."""
    ap = argparse.ArgumentParser()
    ap.add_argument("hrw")
    if runs is not None:
        ap.add_argument("--runs", type=int, default=runs)
    ap.add_argument("--keys", type=int, default=10**7)
    ap.add_argument("--dir", help="work folder (default: a temp folder)")
    return ap


def write_plan_inputs(hrw, keys, folder):
    """Writes keys.txt (`keys` keys), a.json and b.json into `folder`."""
    subprocess.run([hrw, "sample", "--keys", str(keys), "--out", folder], check=True, capture_output=True)
    for name, n, version in (("a", 100, 1), ("b", 101, 2)):
        with open(f"{folder}/{name}.json", "w") as f:
            json.dump({"version": version, "nodes": [f"node-{i:03d}" for i in range(n)]}, f)


def write_key_copies(folder, count):
    """Writes count - 1 byte-identical copies of folder/keys.txt, copy-1.txt and on (each
    file's page cache lies in different memory on a VM, which alone moves reading), and
    returns the names of keys.txt and its copies."""
    names = ["keys.txt"] + [f"copy-{i}.txt" for i in range(1, count)]
    for name in names[1:]:
        shutil.copyfile(f"{folder}/keys.txt", f"{folder}/{name}")
    return names


def write_key_halves(folder):
    """Splits folder/keys.txt at its middle line into keys-h0.txt and keys-h1.txt."""
    with open(f"{folder}/keys.txt", "rb") as f:
        data = f.read()
    middle = data.index(b"\n", len(data) // 2) + 1
    for half, part in (("h0", data[:middle]), ("h1", data[middle:])):
        with open(f"{folder}/keys-{half}.txt", "wb") as f:
            f.write(part)
