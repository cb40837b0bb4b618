"""The inputs the whole-process scripts (threads_ratio.py, alternate_runs.py, stage_times.py)
share: `hrw sample`'s keys.txt and two views, a.json (100 nodes, version 1) and b.json
(101 nodes, version 2), named node-000 and on, so a 100 -> 101 plan moves about 1% of keys.
"""
import json
import subprocess


def write_plan_inputs(hrw, keys, folder):
    """Writes keys.txt (`keys` keys), a.json and b.json into `folder`."""
    subprocess.run([hrw, "sample", "--keys", str(keys), "--out", folder], check=True, capture_output=True)
    for name, n, version in (("a", 100, 1), ("b", 101, 2)):
        with open(f"{folder}/{name}.json", "w") as f:
            json.dump({"version": version, "nodes": [f"node-{i:03d}" for i in range(n)]}, f)
