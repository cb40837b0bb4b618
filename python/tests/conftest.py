"""Shared helpers: random views and keys, CSV in hrw's quoting, and the CLI to compare with.

Run by tools/test-python.sh: PYTHONPATH=BUILD/python HRW_CLI=BUILD/hrw.
"""
import csv
import io
import json
import os
import random
import subprocess

import numpy as np
import pandas as pd
import pytest

import hrw

CLI = os.environ.get("HRW_CLI", "hrw")
SCALE = float(os.environ.get("HRW_TEST_SCALE", "1"))


def scaled(n):
    return max(1, int(n * SCALE))


def run_cli(*args, ok=True):
    """Runs the hrw CLI; returns (exit code, stdout bytes, stderr text)."""
    argv = [CLI] + [a if isinstance(a, bytes) else str(a) for a in args]
    p = subprocess.run(argv, capture_output=True)
    if ok and p.returncode != 0:
        raise AssertionError(f"{argv} failed: {p.stderr.decode()}")
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def cli_error(*args):
    """The one line the CLI prints for bad input (exit 2), without its "hrw: " prefix."""
    code, _, err = run_cli(*args, ok=False)
    assert code == 2, err
    assert err.startswith("hrw: ") and err.count("\n") == 1, err
    return err[len("hrw: "):].rstrip("\n")


def as_python(cli_message):
    """The CLI message as hrw's Python API words it: keywords where the CLI names flags."""
    return (cli_message.replace("--replicas", "replicas").replace("--distinct", "distinct")
            .replace("use --partial", "pass partial=True"))


def csv_field(key: bytes) -> bytes:
    """hrw's CSV quoting (src/io/csv.cpp): quoted only when it holds , " CR or LF."""
    if any(c in key for c in b',"\r\n'):
        return b'"' + key.replace(b'"', b'""') + b'"'
    return key


def write_keys_csv(path, keys, loads=None):
    """A keys CSV for the CLI: header key[,bytes,requests]."""
    with open(path, "wb") as f:
        f.write(b"key,bytes,requests\n" if loads is not None else b"key\n")
        for i, k in enumerate(keys):
            row = csv_field(k)
            if loads is not None:
                row += b",%d,%d" % (loads[0][i], loads[1][i])
            f.write(row + b"\n")


def read_csv_bytes(data: bytes):
    """CSV rows as lists of bytes (latin-1 maps bytes 1:1 through the csv module)."""
    rows = list(csv.reader(io.StringIO(data.decode("latin-1"), newline="")))
    return [[field.encode("latin-1") for field in row] for row in rows]


ALPHABET = [b"a", b"b", b"z", b"0", b"9", b":", b"-", b",", b'"', b"\n", b"\r", b" ", b"\x00",
            b"\xff", b"\xc3", b"\xc3\xa9", b"\xe2\x82\xac", b"\x80"]


def random_key(rng):
    n = rng.choice([0, 0, 1, 2, 3, 5, 8, 13, 21, 40])
    return b"".join(rng.choice(ALPHABET) for _ in range(n))


def random_keys(rng, n):
    """Random keys with the awkward cases always present: empty, non-UTF-8, commas,
    quotes, CR/LF, NUL bytes (none trailing: numpy S arrays strip those)."""
    fixed = [b"", b"user:42", b"a,b", b'"q"', b"line\nbreak", b"cr\rlf\r\n", b"\xff\xfe\x80",
             b"nul\x00inside", b"caf\xc3\xa9", b"\xe2\x82\xac" * 3]
    keys = fixed + [random_key(rng) for _ in range(n)]
    return [k.rstrip(b"\x00") if k.endswith(b"\x00") else k for k in keys]


def random_view_dict(rng, nodes=None, weighted=None, zones=None, version=None):
    """A cluster JSON dict: ids with commas, quotes and UTF-8; zones; maybe weights."""
    nodes = nodes or rng.randint(1, 12)
    weighted = rng.random() < 0.5 if weighted is None else weighted
    zones = zones or rng.randint(1, 4)
    names = set()
    while len(names) < nodes:
        names.add(rng.choice(["node-", "n,", 'q"', "é-", "cache-", ""]) + str(rng.randint(0, 99)))
    out = []
    for name in sorted(names):
        node = {"id": name, "zone": f"z{rng.randrange(zones)}"}
        if weighted:
            node["weight"] = rng.choice([0.5, 1, 1.5, 2, 3.25, 0.1])
        out.append(node)
    return {"version": rng.randint(0, 50) if version is None else version,
            "seed": rng.choice(["", "s", "seed-1"]),
            "hash": rng.choice(["fnv1a-fmix", "fnv1a"]), "nodes": out}


def changed_views(rng, tmp, nodes, version, drop, zone, weight):
    """Views a.json (random, weighted, 3 zones) and b.json (next version: node `drop` gone,
    node-new added in `zone` with `weight`), written in tmp; returns both ClusterViews."""
    a_dict = random_view_dict(rng, nodes=nodes, weighted=True, zones=3, version=version)
    b_dict = json.loads(json.dumps(a_dict))
    b_dict["version"] = version + 1
    b_dict["nodes"].pop(drop)
    b_dict["nodes"].append({"id": "node-new", "zone": zone, "weight": weight})
    return write_view(tmp / "a.json", a_dict), write_view(tmp / "b.json", b_dict)


def write_view(path, view_dict):
    with open(path, "w") as f:
        json.dump(view_dict, f)
    return hrw.ClusterView.from_json(str(path))


def key_forms(keys):
    """The same keys in every form hrw accepts, with the keys each form stands for."""
    text = [k.decode("utf-8", "surrogateescape") for k in keys]
    data = np.frombuffer(b"".join(keys), dtype=np.uint8)
    offsets = np.zeros(len(keys) + 1, dtype=np.int64)
    np.cumsum([len(k) for k in keys], out=offsets[1:])
    width = max([len(k) for k in keys] + [1])
    return {
        "list of bytes": list(keys),
        "tuple of bytes": tuple(keys),
        "list of str": text,
        "Series of bytes": pd.Series(keys, dtype=object),
        "Series of str": pd.Series(text, dtype=object),
        "Series of string dtype": pd.Series(text, dtype="string"),
        "numpy S": np.array(keys, dtype=f"S{width}"),
        "numpy U": np.array(text, dtype=f"U{width}"),
        "numpy object": np.array(keys, dtype=object),
        "(data, offsets)": (data, offsets),
    }


@pytest.fixture
def rng(request):
    return random.Random(request.node.name)


@pytest.fixture(scope="module")
def client():
    """A real distributed cluster: 2 worker processes over loopback, one per test module."""
    from distributed import Client, LocalCluster
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           host="127.0.0.1", dashboard_address=None)
    with Client(cluster) as c:
        yield c
    cluster.close()
