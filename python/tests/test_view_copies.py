"""Every copy of a view keeps every field (contract §6 hierarchy, §8 rule): pickling goes
through the library's one view serialiser, so a pickled hierarchical view, and one shipped
to the worker processes of a Dask cluster, places every key as the original."""
import pickle
import warnings

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import hrw
import hrw.dask


def tree_view_dict(zones=3, racks=3, nodes=4, rule=None):
    d = {"version": 7, "seed": "s\u00e9ed", "hierarchy": ["zone", "rack"], "nodes": []}
    if rule:
        d["rule"] = rule
    for z in range(zones):
        for r in range(racks):
            for m in range(nodes):
                d["nodes"].append({"id": f"n-{z}-{r}-{m}", "zone": f"z{z}", "rack": f"r{r}",
                                   "weight": 1 + (z * 7 + r * 3 + m) % 4})
    return d


KEYS = [f"user:{i}".encode() for i in range(5000)]


def test_pickled_hierarchical_view_places_every_key_as_the_original():
    view = hrw.ClusterView.from_dict(tree_view_dict())
    copy = pickle.loads(pickle.dumps(view))
    assert copy.hierarchy == ["zone", "rack"] == view.hierarchy
    assert (copy.ids, copy.weights, copy.seed, copy.version, copy.hash) == \
           (view.ids, view.weights, view.seed, view.version, view.hash)
    assert copy.to_json() == view.to_json()
    np.testing.assert_array_equal(hrw.place(copy, KEYS), hrw.place(view, KEYS))
    # And the flat view of the same nodes does not place them so: the test can fail.
    flat = tree_view_dict()
    del flat["hierarchy"]
    assert (hrw.place(hrw.ClusterView.from_dict(flat), KEYS) != hrw.place(view, KEYS)).any()


def test_pickle_keeps_the_rule_and_any_bytes():
    view = hrw.ClusterView.from_dict(tree_view_dict(rule={"replicas": 2, "distinct": "zone"}))
    copy = pickle.loads(pickle.dumps(view))
    assert copy.rule == view.rule == {"replicas": 2, "distinct": "zone", "partial": False}
    np.testing.assert_array_equal(hrw.place(copy, KEYS[:500]), hrw.place(view, KEYS[:500]))
    odd = hrw.ClusterView.from_ids([b"\xff\x00a", b"b\n", "c"], seed=b"\x80\xfe", version=-3)
    copy = pickle.loads(pickle.dumps(odd))
    assert (copy.ids, copy.seed, copy.version) == (odd.ids, odd.seed, odd.version)
    np.testing.assert_array_equal(hrw.place(copy, KEYS[:500]), hrw.place(odd, KEYS[:500]))


def test_rule_carrying_view_places_by_its_rule_in_python():
    ruled = hrw.ClusterView.from_dict(tree_view_dict(rule={"replicas": 3, "distinct": "zone"}))
    plain = hrw.ClusterView.from_dict(tree_view_dict())
    np.testing.assert_array_equal(hrw.place(ruled, KEYS[:300]),
                                  hrw.place(plain, KEYS[:300], replicas=3, distinct="zone"))
    np.testing.assert_array_equal(hrw.place(ruled, KEYS[:300], replicas=3),
                                  hrw.place(plain, KEYS[:300], replicas=3, distinct="zone"))
    with pytest.raises(ValueError, match=r"^replicas 2 contradicts the rule of <dict> \(replicas 3\)$"):
        hrw.place(ruled, KEYS[:3], replicas=2)


def test_distinct_label_no_node_carries_is_refused_and_a_partial_one_warns():
    flat = {"nodes": [{"id": "a", "zone": "x"}, {"id": "b", "zone": "y"}, {"id": "c", "zon": "y"}]}
    view = hrw.ClusterView.from_dict(flat)
    with pytest.raises(ValueError, match=r'^distinct "Zone" is a label no node of <dict> carries'):
        hrw.place(view, KEYS[:3], replicas=2, distinct="Zone")
    with pytest.warns(UserWarning, match=r'^1 of the 3 nodes of <dict> lack the distinct label "zone" '
                                         r'\(the first: "c"\)'):
        hrw.place(view, KEYS[:3], replicas=2, distinct="zone")




def test_process_dask_cluster_places_a_hierarchical_view_as_the_original(client):
    view = hrw.ClusterView.from_dict(tree_view_dict())
    frame = pd.DataFrame({"key": [k.decode() for k in KEYS[:3000]]})
    ddf = dd.from_pandas(frame, npartitions=6)
    owners = hrw.dask.place(ddf, view, column="key").compute()["owner"].tolist()
    ids = [i.decode() for i in view.ids]
    expected = [ids[n] for n in hrw.place(view, KEYS[:3000])]
    assert owners == expected
