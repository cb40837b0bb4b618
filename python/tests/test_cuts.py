"""Contract §9 in Python: a view with capacity cuts pickles (through the one view
serialiser, the cuts included), places and plans identically to the original, by the rule
(`hrw select`'s owner per key, which follows the §9 reference), on Dask workers too."""
import json
import pickle

import dask.dataframe as dd
import numpy as np
import pandas as pd

import hrw
import hrw.dask

KEYS = [f"key:{i}".encode() for i in range(4000)]


def cut_dict(version=3, nodes=10, shift=0):
    d = {"version": version, "seed": "s", "nodes": []}
    for i in range(nodes):
        node = {"id": f"node-{i}", "zone": f"z{i % 3}"}
        if i % 2 == 0:
            node["cut"] = (2654435761 * (i + 1 + shift)) % 3000000000
        d["nodes"].append(node)
    d["nodes"][0]["cut"] = 4293918720  # few keys clear it: overflow with R = 3
    return d


def plain_dict(**kw):
    d = cut_dict(**kw)
    for n in d["nodes"]:
        n.pop("cut", None)
    return d


def test_pickle_keeps_the_cuts():
    view = hrw.ClusterView.from_dict(cut_dict())
    copy = pickle.loads(pickle.dumps(view))
    assert copy.to_json() == view.to_json()
    nodes = json.loads(copy.to_json())["nodes"]
    assert [n.get("cut", 0) for n in nodes] == [n.get("cut", 0) for n in cut_dict()["nodes"]]
    assert "cut" not in nodes[1]  # 0 is not written


def test_place_with_cuts_follows_the_rule_and_the_copy():
    view = hrw.ClusterView.from_dict(cut_dict())
    copy = pickle.loads(pickle.dumps(view))
    owners = hrw.place(view, KEYS)
    np.testing.assert_array_equal(hrw.place(copy, KEYS), owners)
    ids = [i.decode() for i in view.ids]
    for k in KEYS[:200]:
        assert ids[owners[KEYS.index(k)]] == hrw.select(view, k)["owner"]
    # The cuts decide some owners: the plain view places some keys elsewhere.
    assert (hrw.place(hrw.ClusterView.from_dict(plain_dict()), KEYS) != owners).any()
    for r, distinct in ((3, None), (3, "zone")):
        sets = hrw.place(view, KEYS[:300], replicas=r, distinct=distinct)
        np.testing.assert_array_equal(hrw.place(copy, KEYS[:300], replicas=r, distinct=distinct), sets)
        for i, k in enumerate(KEYS[:100]):
            want = hrw.select(view, k, replicas=r, distinct=distinct)["replicas"]
            assert [ids[n] for n in sets[i]] == want


def test_plan_between_cut_views_is_the_same_for_the_copies_and_counts_overflow():
    a = hrw.ClusterView.from_dict(cut_dict(version=3))
    b = hrw.ClusterView.from_dict(cut_dict(version=4, nodes=11, shift=5))
    ca, cb = pickle.loads(pickle.dumps(a)), pickle.loads(pickle.dumps(b))
    for r in (1, 3):
        summary, moved = hrw.plan(a, b, KEYS, replicas=r)
        summary2, moved2 = hrw.plan(ca, cb, KEYS, replicas=r)
        assert summary == summary2
        np.testing.assert_array_equal(moved, moved2)
        pa, pb = hrw.place(a, KEYS, replicas=r), hrw.place(b, KEYS, replicas=r)
        ida, idb = [i for i in a.ids], [i for i in b.ids]
        if r == 1:
            want = [i for i in range(len(KEYS)) if ida[pa[i]] != idb[pb[i]]]
        else:
            want = [i for i in range(len(KEYS))
                    if {ida[n] for n in pa[i]} != {idb[n] for n in pb[i]}]
        assert moved.tolist() == want
        assert "from_overflow_keys" in summary and "to_overflow_keys" in summary
        assert "expected_fraction" not in summary
        # Contract §9: the plan between the same views without cuts, beside this one.
        plain, _ = hrw.plan(hrw.ClusterView.from_dict(plain_dict(version=3)),
                            hrw.ClusterView.from_dict(plain_dict(version=4, nodes=11, shift=5)), KEYS, replicas=r)
        assert "plain_moved" not in plain
        assert summary["plain_moved"] == plain["moved"] != summary["moved"]
        assert summary["plain_moved_fraction"] == plain["moved"] / len(KEYS)
    # Overflow counts, against select's per-key §9 audit: most nodes cut high.
    hot = cut_dict()
    for n in hot["nodes"][2:]:
        n["cut"] = 4278190080
    h = hrw.ClusterView.from_dict(hot)
    for r in (1, 3):
        summary, _ = hrw.plan(h, b, KEYS[:500], replicas=r)
        want = sum(hrw.select(h, k, replicas=r)["overflow"] for k in KEYS[:500])
        assert summary["from_overflow_keys"] == want
        if r == 3:
            assert want > 0


def test_process_dask_cluster_places_a_cut_view_as_the_original(client):
    view = hrw.ClusterView.from_dict(cut_dict())
    frame = pd.DataFrame({"key": [k.decode() for k in KEYS[:3000]]})
    ddf = dd.from_pandas(frame, npartitions=6)
    owners = hrw.dask.place(ddf, view, column="key").compute()["owner"].tolist()
    ids = [i.decode() for i in view.ids]
    assert owners == [ids[n] for n in hrw.place(view, KEYS[:3000])]
