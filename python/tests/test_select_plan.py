"""hrw.select equals `hrw select --format json`; hrw.plan equals `hrw plan`."""
import json
import warnings

import numpy as np
import pytest

import hrw
from conftest import (key_forms, random_keys, random_view_dict, read_csv_bytes, run_cli,
                      scaled, write_keys_csv, write_view)


@pytest.mark.parametrize("trial", range(scaled(6)))
def test_select_equals_cli_json(tmp_path, rng, trial):
    view_dict = random_view_dict(rng, nodes=rng.randint(2, 9))
    view = write_view(tmp_path / "view.json", view_dict)
    requests = [({}, []), ({"replicas": 2}, ["--replicas", "2"]),
                ({"distinct": "zone", "replicas": 2, "partial": True},
                 ["--distinct", "zone", "--replicas", "2", "--partial"]),
                ({"distinct": "zone"}, ["--distinct", "zone"])]
    # argv cannot hold NUL bytes; every other awkward key goes through the CLI as given.
    for key in [k for k in random_keys(rng, 10) if b"\x00" not in k]:
        for kwargs, flags in requests:
            _, out, _ = run_cli("select", "--cluster", tmp_path / "view.json",
                                "--format", "json", *flags, "--", key)
            expected = json.loads(out)
            assert hrw.select(view, key, **kwargs) == expected
            assert hrw.select(view, key.decode("utf-8", "surrogateescape"), **kwargs) == expected


def changed_view(rng, view_dict):
    """view B: a node added, one removed, weights changed, a later version."""
    b = json.loads(json.dumps(view_dict))
    b["version"] = view_dict["version"] + 1
    if len(b["nodes"]) > 2 and rng.random() < 0.7:
        b["nodes"].pop(rng.randrange(len(b["nodes"])))
    b["nodes"].append({"id": f"new-{rng.randint(0, 999)}", "zone": "z0", "weight": 2}
                      if "weight" in b["nodes"][0] else {"id": f"new-{rng.randint(0, 999)}", "zone": "z1"})
    for n in b["nodes"]:
        if "weight" in n and rng.random() < 0.3:
            n["weight"] = rng.choice([0.5, 1, 4])
    return b


def cli_plan(tmp_path, keys, replicas, loads=None, batch_size=7):
    write_keys_csv(tmp_path / "keys.csv", keys, loads)
    run_cli("plan", "--from", tmp_path / "a.json", "--to", tmp_path / "b.json", "--keys",
            tmp_path / "keys.csv", "--replicas", replicas, "--batch-size", batch_size,
            "--out", tmp_path / "plan")
    summary = json.loads((tmp_path / "plan" / "summary.json").read_text())
    moves = (tmp_path / "plan" / "moves.csv").read_bytes()
    return summary, moves


@pytest.mark.parametrize("trial", range(scaled(10)))
def test_plan_equals_cli(tmp_path, rng, trial):
    a_dict = random_view_dict(rng, nodes=rng.randint(3, 10))
    b_dict = changed_view(rng, a_dict)
    a = write_view(tmp_path / "a.json", a_dict)
    b = write_view(tmp_path / "b.json", b_dict)
    keys = random_keys(rng, scaled(400))
    replicas = 1 if trial % 2 == 0 else 2
    summary, moves = cli_plan(tmp_path, keys, replicas)
    rows = read_csv_bytes(moves)
    assert rows[0] == [b"batch", b"key", b"from", b"to"]
    for form, given in key_forms(keys).items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got, moved = hrw.plan(a, b, given, replicas=replicas, batch_size=7)
        assert got == summary, form
        assert moved.dtype == np.int64 and len(moved) == summary["moved"], form
        if replicas == 1:  # one row per moved key, in input order
            assert [keys[i] for i in moved] == [r[1] for r in rows[1:]], form
        else:  # every key with a row changed its replica set
            assert {r[1] for r in rows[1:]} <= {keys[i] for i in moved}, form
    ref, ref_moved = hrw.plan(a, b, keys, replicas=replicas, batch_size=7, engine="reference")
    assert ref == summary and np.array_equal(ref_moved, moved)
    # The rows of a plan computed in parts are the CLI's, batch numbers included.
    cut = len(keys) // 3
    first, _, rows1 = hrw._hrw._plan_part(a, b, keys[:cut], replicas=replicas, batch_size=7, rows=True)
    _, _, rows2 = hrw._hrw._plan_part(a, b, keys[cut:], replicas=replicas, batch_size=7, rows=True,
                                      first_row=json.loads(first)["rows"])
    assert hrw._hrw._moves_header() + rows1 + rows2 == moves


def test_plan_warns_like_the_cli_when_views_hash_differently(tmp_path):
    a = hrw.ClusterView.from_ids(["a", "b"], seed=b"one")
    b = hrw.ClusterView.from_ids(["a", "b", "c"], seed=b"two", version=1)
    with pytest.warns(UserWarning, match="hash keys differently: every key may move"):
        hrw.plan(a, b, [b"k"])


def test_views_that_differ_under_one_version_are_refused(tmp_path):
    a = hrw.ClusterView.from_dict({"version": 7, "nodes": ["n1", "n2", "n3"]})
    b = hrw.ClusterView.from_dict({"version": 7, "nodes": ["n1", "n2", "n3", "n4"]})
    with pytest.raises(ValueError, match="version 7 is also .*'s, but the two views differ"):
        hrw.plan(a, b, [b"x", b"y"])
    with pytest.raises(ValueError, match="version 7 is also .*'s, but the two views differ"):
        hrw.plan(a, b, [b"x", b"y"], out=str(tmp_path / "p"))
    assert not (tmp_path / "p").exists()


def test_losing_replicas_warns_and_a_single_copy_is_asked_for(tmp_path):
    """docs/plan.md, "Losing replicas": the CLI's rule in hrw.plan and hrw.dask.plan_files."""
    import hrw.dask
    r3 = hrw.ClusterView.from_dict({"version": 1, "rule": {"replicas": 3}, "nodes": ["a", "b", "c", "d"]})
    r2 = hrw.ClusterView.from_dict({"version": 2, "rule": {"replicas": 2}, "nodes": ["a", "b", "c", "d"]})
    bare = hrw.ClusterView.from_dict({"version": 3, "nodes": ["a", "b", "c", "d"]})
    keys = [b"k%d" % i for i in range(300)]
    with pytest.warns(UserWarning, match="keeps 2 replica\\(s\\) of each key where .* keeps 3"):
        hrw.plan(r3, r2, keys)
    message = "1 replica of each key where .* keeps 3: a plan to a single copy of every key is asked for by " \
              "name \\(allow_single_copy=True\\)"
    with pytest.raises(ValueError, match=message):
        hrw.plan(r3, bare, keys)
    with pytest.raises(ValueError, match=message):
        hrw.plan(r3, bare, keys, out=str(tmp_path / "p"))
    path = tmp_path / "k.txt"
    path.write_bytes(b"".join(k + b"\n" for k in keys))
    with pytest.raises(ValueError, match=message):
        hrw.dask.plan_files([str(path)], r3, bare, out=str(tmp_path / "d"))
    assert not (tmp_path / "p").exists() and not (tmp_path / "d").exists()
    with pytest.warns(UserWarning, match="keeps 1 replica"):
        summary, _ = hrw.plan(r3, bare, keys, allow_single_copy=True)
    assert summary["moved"] == len(keys)
    import dask
    with pytest.warns(UserWarning, match="keeps 1 replica"), dask.config.set(scheduler="synchronous"):
        files = hrw.dask.plan_files([str(path)], r3, bare, out=str(tmp_path / "d"), allow_single_copy=True)
    assert files["moved"] == len(keys)


def test_check_against_a_view_writes_the_misplaced_keys(tmp_path):
    a = hrw.ClusterView.from_dict({"version": 1, "nodes": ["a", "b", "c"]})
    (tmp_path / "b.json").write_text('{"version": 2, "nodes": ["a", "b", "c", "d"]}')
    keys = tmp_path / "k.txt"
    keys.write_bytes(b"".join(b"k%d\n" % i for i in range(2000)))
    now = tmp_path / "now.csv"
    owners = hrw.place(a, [b"k%d" % i for i in range(2000)])
    now.write_bytes(b"key,owner\n" + b"".join(b"k%d,%s\n" % (i, a.ids[o]) for i, o in enumerate(owners)))
    report = hrw.check(hrw.ClusterView.from_json(str(tmp_path / "b.json")), str(now), misplaced=str(tmp_path / "m.csv"))
    run_cli("check", "--cluster", tmp_path / "b.json", "--placement", now, "--misplaced", tmp_path / "cli.csv", ok=False)
    assert report["misplaced"] > 0
    assert (tmp_path / "m.csv").read_bytes() == (tmp_path / "cli.csv").read_bytes()
    assert len((tmp_path / "m.csv").read_bytes().splitlines()) == report["misplaced"] + 1
    with pytest.raises(ValueError, match="misplaced and placement name the same file"):
        hrw.check(a, str(now), misplaced=str(now))
    assert now.read_bytes().startswith(b"key,owner\n")
