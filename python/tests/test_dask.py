"""hrw.dask on a real distributed.LocalCluster (2 worker processes, loopback): plan over
20 CSV partitions equals `hrw plan` on the concatenated file; place equals `hrw place`."""
import json
import os
import random

import dask.dataframe as dd
import pandas as pd
import pytest

import hrw
import hrw.dask
from conftest import (changed_views, random_keys, read_csv_bytes, run_cli, scaled,
                      write_keys_csv)

PARTITIONS = 20




@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """20 CSV partitions (key, bytes, requests) of awkward keys, and their concatenation."""
    rng = random.Random(11)
    tmp = tmp_path_factory.mktemp("dask")
    a, b = changed_views(rng, tmp, nodes=8, version=4, drop=2, zone="z1", weight=3)
    # pandas' C CSV parser ends a field at a NUL byte: those keys cannot go through
    # read_csv (docs/python.md); every other awkward byte does.
    keys = [k.replace(b"\x00", b"") for k in random_keys(rng, scaled(20000))]
    loads = ([rng.randint(0, 10**6) for _ in keys], [rng.randint(0, 50) for _ in keys])
    paths, cut = [], 0
    for p in range(PARTITIONS):
        end = len(keys) * (p + 1) // PARTITIONS
        paths.append(tmp / f"part-{p:02d}.csv")
        write_keys_csv(paths[-1], keys[cut:end], (loads[0][cut:end], loads[1][cut:end]))
        cut = end
    write_keys_csv(tmp / "all.csv", keys, loads)
    return dict(tmp=tmp, a=a, b=b, keys=keys, paths=paths)


def read_partitions(paths, **kwargs):
    # Keys are bytes: non-UTF-8 bytes are read as lone surrogates, which hrw maps back.
    return dd.read_csv([str(p) for p in paths], blocksize=None, dtype={"key": object},
                       keep_default_na=False, na_filter=False, encoding="utf-8",
                       encoding_errors="surrogateescape", **kwargs)


def test_frames_hold_the_keys_exactly(data):
    ddf = read_partitions(data["paths"])
    assert ddf.npartitions == PARTITIONS
    keys = [k.encode("utf-8", "surrogateescape") for k in ddf["key"].compute()]
    assert keys == data["keys"]


@pytest.mark.parametrize("replicas", [1, 2])
def test_dask_plan_equals_cli_plan_on_the_concatenated_file(client, data, replicas):
    tmp = data["tmp"]
    out_cli, out_dask = tmp / f"cli-{replicas}", tmp / f"dask-{replicas}"
    run_cli("plan", "--from", tmp / "a.json", "--to", tmp / "b.json", "--keys", tmp / "all.csv",
            "--replicas", replicas, "--batch-size", 100, "--out", out_cli)
    ddf = read_partitions(data["paths"])
    summary = hrw.dask.plan(ddf, data["a"], data["b"], column="key", out=str(out_dask),
                            batch_size=100, replicas=replicas)
    expected = json.loads((out_cli / "summary.json").read_text())
    assert summary == expected
    assert "bytes" in summary and "requests_moved" in summary
    assert json.loads((out_dask / "summary.json").read_text()) == expected
    # The CLI's folder, file for file: one moves.csv, both views (the frame has
    # bytes/requests columns).
    assert sorted(os.listdir(out_dask)) == sorted(os.listdir(out_cli))
    for name in os.listdir(out_cli):
        assert (out_dask / name).read_bytes() == (out_cli / name).read_bytes(), name
    cli_moves = (out_cli / "moves.csv").read_bytes()
    assert cli_moves.startswith(b"batch,key,from,to,bytes,requests\n")
    assert len(read_csv_bytes(cli_moves)) - 1 == expected["rows"] > 0


def test_dask_place_equals_cli_place(client, data):
    tmp = data["tmp"]
    for replicas, flags in [(1, []), (3, ["--replicas", "3", "--distinct", "zone"])]:
        _, out, _ = run_cli("place", "--cluster", tmp / "b.json", "--keys", tmp / "all.csv",
                            "--out", "-", *flags)
        rows = read_csv_bytes(out)
        placed = hrw.dask.place(read_partitions(data["paths"]), data["b"], column="key",
                                replicas=replicas, distinct="zone" if replicas > 1 else None).compute()
        # The CLI also carries the keys' bytes and requests columns (a placement file for
        # --from-placement); Dask's frame keeps its own columns, so compare the placement's.
        names = [n for n in rows[0][1:] if n not in (b"bytes", b"requests")]
        assert [n.decode() for n in names] == (["owner"] if replicas == 1 else
                                               [f"replica_{j}" for j in range(1, 4)])
        for j, name in enumerate(names):
            got = [x.encode("utf-8", "surrogateescape") for x in placed[name.decode()]]
            assert got == [r[1 + j] for r in rows[1:]]
        assert [k.encode("utf-8", "surrogateescape") for k in placed["key"]] == data["keys"]


def test_dask_bad_inputs(client, data):
    ddf = read_partitions(data["paths"][:2])
    with pytest.raises(ValueError, match="column 'nope' is not in the frame"):
        hrw.dask.plan(ddf, data["a"], data["b"], column="nope", out=str(data["tmp"] / "x"))
    with pytest.raises(ValueError, match="column 'nope' is not in the frame"):
        hrw.dask.place(ddf, data["a"], column="nope")
    with pytest.raises(TypeError, match="column 'bytes' has dtype int64: keys must be bytes or str"):
        hrw.dask.place(ddf, data["a"], column="bytes")
    with pytest.raises(TypeError, match="view_b must be an hrw.ClusterView"):
        hrw.dask.plan(ddf, data["a"], "b.json", out=str(data["tmp"] / "x"))
    with pytest.raises(ValueError, match="^replicas 9 exceeds the 8 node"):
        hrw.dask.place(ddf, data["a"], replicas=9)
    with pytest.raises(TypeError, match="expected a dask DataFrame"):
        hrw.dask.place(pd.DataFrame({"key": ["a"]}), data["a"])
    # Staged plans are refused by name, and bad rounds options, before any task runs.
    for name, value in [("max_moved_fraction", 0.5), ("cap_by", "keys"), ("step_versions", 5)]:
        with pytest.raises(ValueError, match=f"^{name}: not supported by hrw.dask.plan: a staged plan"):
            hrw.dask.plan(ddf, data["a"], data["b"], out=str(data["tmp"] / "x"), **{name: value})
    for kwargs, words in [(dict(max_moves_per_node=0), "max_moves_per_node: must be an integer from 1 to"),
                          (dict(node_bandwidth=5), "node_bandwidth: estimates rounds"),
                          (dict(max_moves_per_node=5, batch_size=10), "batch_size excludes max_moves_per_node")]:
        with pytest.raises(ValueError, match=words):
            hrw.dask.plan(ddf, data["a"], data["b"], out=str(data["tmp"] / "x"), **kwargs)
    no_bytes = read_partitions(data["paths"][:2], usecols=["key"])
    with pytest.raises(ValueError, match="max_bytes_per_node: needs a bytes column"):
        hrw.dask.plan(no_bytes, data["a"], data["b"], out=str(data["tmp"] / "x"), max_bytes_per_node=9)
    assert not (data["tmp"] / "x").exists()


@pytest.mark.parametrize("flags, kwargs", [
    (["--max-moves-per-node", "40", "--transitions"], dict(max_moves_per_node=40, transitions=True)),
    (["--max-bytes-per-node", "30000000", "--node-bandwidth", "1000000", "--svg", "DIR/flows.svg"],
     dict(max_bytes_per_node=30000000, node_bandwidth=1000000, svg="DIR/flows.svg")),
    (["--transitions", "--batch-size", "70"], dict(transitions=True, batch_size=70)),
])
def test_dask_rounds_transitions_and_svg_equal_the_cli_folder(client, data, flags, kwargs):
    """Options that need every move at once run over the merged moves: the CLI's folder."""
    tmp = data["tmp"]
    name = "-".join(str(v) for v in kwargs.values())
    out_cli, out_dask = tmp / f"cli-r-{name}", tmp / f"dask-r-{name}"
    cli_flags = [f.replace("DIR", str(out_cli)) for f in flags]
    run_cli("plan", "--from", tmp / "a.json", "--to", tmp / "b.json", "--keys", tmp / "all.csv", "--replicas", 2,
            "--out", out_cli, "--quiet", *cli_flags)
    kwargs = {k: v.replace("DIR", str(out_dask)) if isinstance(v, str) else v for k, v in kwargs.items()}
    summary = hrw.dask.plan(read_partitions(data["paths"]), data["a"], data["b"], out=str(out_dask),
                            replicas=2, **kwargs)
    assert summary == json.loads((out_cli / "summary.json").read_bytes())
    assert sorted(os.listdir(out_dask)) == sorted(os.listdir(out_cli))
    for f in os.listdir(out_cli):
        assert (out_dask / f).read_bytes() == (out_cli / f).read_bytes(), f


def test_views_are_one_key_of_the_graph(data):
    """However many partitions, the graph holds each view once (workers fetch it once)."""
    ddf = read_partitions(data["paths"])
    graph = dict(hrw.dask.place(ddf, data["a"]).__dask_graph__())
    view_keys = [k for k in graph if str(k).startswith("hrw-view-")]
    assert len(view_keys) == 1 and ddf.npartitions == PARTITIONS
    users = [k for k, task in graph.items() if view_keys[0] in str(task)]
    assert len(users) == PARTITIONS
