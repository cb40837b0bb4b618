"""hrw.place equals `hrw place` and the scalar reference, for every keys form."""
import numpy as np
import pytest

import hrw
from conftest import (key_forms, random_keys, random_view_dict, read_csv_bytes, run_cli,
                      scaled, write_keys_csv, write_view)


def cli_place(tmp_path, view_path, keys, *flags):
    keys_path = tmp_path / "keys.csv"
    write_keys_csv(keys_path, keys)
    _, out, _ = run_cli("place", "--cluster", view_path, "--keys", keys_path, "--out", "-", *flags)
    rows = read_csv_bytes(out)
    return rows[0], rows[1:]


def ids_of(view, nodes):
    ids = view.ids
    return [[ids[n] if n != hrw.NO_NODE else b"" for n in np.atleast_1d(row)] for row in nodes]


REQUESTS = [
    dict(replicas=1),
    dict(replicas=2),
    dict(replicas=3, distinct="zone", partial=True),
    dict(replicas=2, distinct="zone", partial=True),
]


def flags_of(request):
    flags = ["--replicas", request["replicas"]]
    if request.get("distinct"):
        flags += ["--distinct", request["distinct"]]
    if request.get("partial"):
        flags += ["--partial"]
    return flags


@pytest.mark.parametrize("trial", range(scaled(12)))
def test_place_equals_cli_and_reference_for_every_form(tmp_path, rng, trial):
    view_dict = random_view_dict(rng, nodes=rng.randint(3, 12))
    view = write_view(tmp_path / "view.json", view_dict)
    keys = random_keys(rng, scaled(300))
    request = REQUESTS[trial % len(REQUESTS)]
    header, rows = cli_place(tmp_path, tmp_path / "view.json", keys, *flags_of(request))
    assert [r[0] for r in rows] == keys  # the CSV round trip itself
    expected = [r[1:] for r in rows]

    reference = hrw.place(view, keys, engine="reference", **request)
    assert ids_of(view, reference) == expected
    for form, given in key_forms(keys).items():
        nodes = hrw.place(view, given, **request)
        assert nodes.dtype == np.uint32, form
        r = request["replicas"]
        assert nodes.shape == ((len(keys),) if r == 1 else (len(keys), r)), form
        assert np.array_equal(nodes, reference), form


def test_threads_and_chunking_do_not_change_results(rng):
    view = hrw.ClusterView.from_dict(random_view_dict(rng, nodes=9, weighted=True))
    keys = [b"k%d" % i for i in range(scaled(20000))]
    one = hrw.place(view, keys, replicas=3, threads=1)
    assert np.array_equal(one, hrw.place(view, keys, replicas=3, threads=0))
    assert np.array_equal(one, hrw.place(view, keys, replicas=3, threads=2))
    assert np.array_equal(one[:777], hrw.place(view, keys[:777], replicas=3))


def fnv1a32(data, h=0x811C9DC5):
    for b in data:
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h


def fmix32(h):
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & 0xFFFFFFFF
    return h ^ (h >> 16)


def test_owner_is_the_contract_formula(rng):
    """Unweighted owners against the contract's formula in plain Python (§2)."""
    view = hrw.ClusterView.from_ids([b"node-%d" % i for i in range(7)] + ["é,x"], seed=b"s1")
    keys = random_keys(rng, 200)
    owners = hrw.place(view, keys)
    for key, owner in zip(keys, owners):
        # Highest r wins, ties to the memcmp-smaller id (Python compares bytes that way).
        best = min(view.ids, key=lambda i: (-fmix32(fnv1a32(b"s1" + key + i)), i))
        assert view.ids[owner] == best


def test_numpy_s_arrays_drop_trailing_nul_bytes():
    view = hrw.ClusterView.from_ids(["a", "b", "c", "d"])
    keys = [b"x\x00", b"y\x00\x00", b"\x00", b"m\x00id"]
    s = np.array(keys, dtype="S4")
    assert np.array_equal(hrw.place(view, s), hrw.place(view, [b"x", b"y", b"", b"m\x00id"]))
    assert not np.array_equal(hrw.place(view, keys), hrw.place(view, [b"x", b"y", b"", b"m\x00id"]))


def test_empty_and_sliced_inputs():
    view = hrw.ClusterView.from_ids(["a", "b", "c"])
    assert hrw.place(view, []).shape == (0,)
    assert hrw.place(view, [], replicas=2).shape == (0, 2)
    data = np.frombuffer(b"XXhelloworld", dtype=np.uint8)
    offsets = np.array([2, 7, 12], dtype=np.int64)  # Arrow-style slice: offsets[0] > 0
    assert np.array_equal(hrw.place(view, (data, offsets)), hrw.place(view, [b"hello", b"world"]))
    assert np.array_equal(hrw.place(view, (b"XXhelloworld", offsets)), hrw.place(view, [b"hello", b"world"]))
    assert np.array_equal(hrw.place(view, (memoryview(b"XXhelloworld"), memoryview(offsets))),
                          hrw.place(view, [b"hello", b"world"]))
    assert hrw.place(view, (b"ab", b"cd")).shape == (2,)  # two keys, not a pair
