"""Plans between views whose rules differ (contract §8, docs/plan.md "Migrating the rule"):
hrw.plan and hrw.dask.plan accept them as `hrw plan` does, each view placed by its own
rule; the summary equals the CLI's, and its counts and §8 slot ideal are recomputed here
from hrw.place of each view (the placement the rule gives)."""
import json

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import hrw
import hrw.dask
from conftest import run_cli, write_view


def zoned(version, nodes, rule):
    return {"version": version, "rule": rule,
            "nodes": [{"id": f"n{i}", "zone": f"z{i % 3}"} for i in range(nodes)]}


MIGRATIONS = {
    "replicas 2 -> 3": (zoned(1, 9, {"replicas": 2, "distinct": "zone"}),
                        zoned(2, 10, {"replicas": 3, "distinct": "zone"})),
    "distinct none -> zone": (zoned(1, 9, {"replicas": 2}), zoned(2, 9, {"replicas": 2, "distinct": "zone"})),
}


def holder_sets(view, keys):
    placed = hrw.place(view, keys)
    placed = placed.reshape(len(keys), -1)
    return [[view.ids[n] for n in row if n != hrw.NO_NODE] for row in placed]


@pytest.mark.parametrize("name", sorted(MIGRATIONS))
def test_plan_between_two_rules_equals_cli_and_the_placements(tmp_path, name):
    a_dict, b_dict = MIGRATIONS[name]
    fa, fb = write_view(tmp_path / "a.json", a_dict), write_view(tmp_path / "b.json", b_dict)
    keys = [f"user:{i}".encode() for i in range(2000)]
    (tmp_path / "k.txt").write_bytes(b"".join(k + b"\n" for k in keys))
    run_cli("plan", "--from", tmp_path / "a.json", "--to", tmp_path / "b.json", "--keys", tmp_path / "k.txt",
            "--batch-size", 50, "--out", tmp_path / "p", "--quiet")
    expected = json.loads((tmp_path / "p" / "summary.json").read_text())
    summary, moved = hrw.plan(fa, fb, keys, batch_size=50)
    assert summary == expected

    ra, rb = a_dict["rule"]["replicas"], b_dict["rule"]["replicas"]
    assert summary["from_rule"] == {"replicas": ra, "distinct": a_dict["rule"].get("distinct"), "partial": False}
    assert summary["to_rule"] == {"replicas": rb, "distinct": b_dict["rule"].get("distinct"), "partial": False}
    in_a, in_b = holder_sets(fa, keys), holder_sets(fb, keys)
    changed = [i for i in range(len(keys)) if set(in_a[i]) != set(in_b[i])]
    assert list(moved) == changed
    assert summary["slot_moves"] == sum(len(set(in_b[i]) - set(in_a[i])) for i in range(len(keys)))
    assert summary["owner_changes"] == sum(in_a[i][0] != in_b[i][0] for i in range(len(keys)))
    slots = {}
    for sets, sign in ((in_a, -1), (in_b, 1)):
        for s in sets:
            for n in s:
                slots[n] = slots.get(n, 0) + sign
    if ra != rb:  # §8: the slots B gains over R_B x keys
        ideal = sum(max(0, d) for d in slots.values()) / (rb * len(keys))
    else:  # §7
        ideal = 0.5 * sum(abs(d) for d in slots.values()) / (rb * len(keys))
    assert summary["slot_ideal_fraction"] == pytest.approx(ideal, rel=1e-12)


def test_dask_plan_between_two_rules_equals_cli(tmp_path, client):
    a_dict, b_dict = MIGRATIONS["replicas 2 -> 3"]
    fa, fb = write_view(tmp_path / "a.json", a_dict), write_view(tmp_path / "b.json", b_dict)
    keys = [f"user:{i}" for i in range(1200)]
    (tmp_path / "k.txt").write_text("".join(k + "\n" for k in keys))
    run_cli("plan", "--from", tmp_path / "a.json", "--to", tmp_path / "b.json", "--keys", tmp_path / "k.txt",
            "--batch-size", 50, "--out", tmp_path / "p", "--quiet")
    expected = json.loads((tmp_path / "p" / "summary.json").read_text())
    ddf = dd.from_pandas(pd.DataFrame({"key": keys}), npartitions=3)
    summary = hrw.dask.plan(ddf, fa, fb, column="key", out=str(tmp_path / "d"), batch_size=50)
    assert summary == expected
    for name in ("moves.csv", "from.json", "to.json"):  # the CLI's folder
        assert (tmp_path / "d" / name).read_bytes() == (tmp_path / "p" / name).read_bytes()
    # So `hrw check --plan` reads it: before round 1 every key is where A puts it (A's two
    # replicas, in a placement with room for B's three).
    run_cli("place", "--cluster", tmp_path / "a.json", "--keys", tmp_path / "k.txt", "--out", tmp_path / "a.csv",
            "--quiet")
    lines = (tmp_path / "a.csv").read_text().splitlines()
    assert lines[0] == "key,replica_1,replica_2"
    (tmp_path / "now.csv").write_text("".join(line + ("," if i else ",replica_3") + "\n" for i, line in enumerate(lines)))
    run_cli("check", "--plan", tmp_path / "d", "--through-round", 0, "--placement", tmp_path / "now.csv", "--quiet")


def test_a_flag_that_contradicts_either_rule_is_refused(tmp_path):
    a_dict, b_dict = MIGRATIONS["replicas 2 -> 3"]
    fa, fb = write_view(tmp_path / "a.json", a_dict), write_view(tmp_path / "b.json", b_dict)
    with pytest.raises(ValueError, match="contradicts the rule of"):
        hrw.plan(fa, fb, [b"k"], replicas=3)
