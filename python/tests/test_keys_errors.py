"""The zero-copy path, and bad input: the documented exceptions with the CLI's words."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import hrw
from conftest import as_python, cli_error, write_keys_csv

ZERO_COPY_PROBE = textwrap.dedent("""
    import resource, sys
    import numpy as np
    import hrw
    MB = 1 << 20
    size = int(sys.argv[1]) * MB
    view = hrw.ClusterView.from_ids(["a", "b", "c"])
    data = np.full(size, ord("x"), dtype=np.uint8)          # touched: resident now
    offsets = np.linspace(0, size, 5).astype(np.int64)       # 4 keys of size/4 bytes
    peak = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    before = peak()
    pair = hrw.place(view, (data, offsets))
    after_pair = peak()
    as_list = [data[offsets[i]:offsets[i + 1]].tobytes() for i in range(4)]
    before_list = peak()
    copied = hrw.place(view, as_list)                        # the copying path, for contrast
    after_list = peak()
    assert (pair == copied).all()
    print(after_pair - before, after_list - before_list)
""")


def test_data_offsets_keys_are_read_in_place():
    """Placing 4 keys of 32 MiB each from (data, offsets) must not raise the peak RSS; the
    same keys as a list (copied into the engine's batch) raise it by their size."""
    size_mb = 128
    probe = subprocess.run([sys.executable, "-P", "-c", ZERO_COPY_PROBE, str(size_mb)],
                           capture_output=True, text=True, env=os.environ)
    assert probe.returncode == 0, probe.stderr
    pair_growth, list_growth = (int(x) for x in probe.stdout.split())
    assert pair_growth < 8 << 20, pair_growth
    assert list_growth > (size_mb << 20) * 3 // 4, list_growth  # the probe can see a copy


@pytest.fixture
def view():
    return hrw.ClusterView.from_ids(["a", "b", "c"])


def test_wrong_key_types_raise_type_error(view):
    with pytest.raises(TypeError, match="a single bytes is one key"):
        hrw.place(view, b"abc")
    with pytest.raises(TypeError, match="key 1 is int, not bytes or str"):
        hrw.place(view, [b"a", 7])
    with pytest.raises(TypeError, match="dtype int64 is not keys"):
        hrw.place(view, np.arange(3))
    with pytest.raises(TypeError, match="expected a list or tuple"):
        hrw.place(view, {b"a": 1})
    with pytest.raises(TypeError, match="data must be a uint8 array"):
        hrw.place(view, (np.zeros(4, dtype=np.int32), np.array([0, 4], dtype=np.int64)))
    with pytest.raises(TypeError, match="offsets must be an int64 array"):
        hrw.place(view, (np.zeros(4, dtype=np.uint8), np.array([0, 4], dtype=np.int32)))
    with pytest.raises(TypeError, match="one-dimensional"):
        hrw.place(view, np.array([[b"a"]]))
    with pytest.raises(TypeError):
        hrw.place(view, [b"a"], replicas="2")


def test_inconsistent_offsets_raise_value_error(view):
    data = np.zeros(10, dtype=np.uint8)
    for offsets, message in [([], "at least 1"), ([0, 5, 3], r"offsets\[2\] = 3 is less than"),
                             ([-1, 3], "is negative"), ([0, 11], "past the end of the 10 data bytes")]:
        with pytest.raises(ValueError, match=message):
            hrw.place(view, (data, np.array(offsets, dtype=np.int64)))


def test_request_errors_carry_the_cli_message(tmp_path, view):
    (tmp_path / "v.json").write_text('{"nodes": [{"id": "a", "zone": "x"}, {"id": "b", "zone": "x"}, "c"]}')
    write_keys_csv(tmp_path / "k.csv", [b"k"])
    v = hrw.ClusterView.from_json(str(tmp_path / "v.json"))
    base = ["place", "--cluster", tmp_path / "v.json", "--keys", tmp_path / "k.csv", "--out", "-"]
    cases = [(dict(replicas=4), ["--replicas", "4"]),
             (dict(replicas=3, distinct="zone"), ["--replicas", "3", "--distinct", "zone"])]
    for kwargs, flags in cases:
        expected = as_python(cli_error(*base, *flags))
        with pytest.raises(ValueError) as e:
            hrw.place(v, [b"k"], **kwargs)
        assert str(e.value) == expected
        with pytest.raises(ValueError) as e:
            hrw.select(v, b"k", **kwargs)
        assert str(e.value) == expected
    with pytest.raises(ValueError, match="^replicas: must be an integer from 1 to 4294967295, got 0$"):
        hrw.place(view, [b"k"], replicas=0)
    with pytest.raises(ValueError, match="^batch_size: must be an integer from 1 to 1000000000000, got 0$"):
        hrw.plan(view, view, [b"k"], batch_size=0)


def test_an_empty_distinct_label_is_refused_not_taken_as_none(view):
    """docs/errors.md, "Empty values": distinct="" is a variable left unset, never "no domain"."""
    message = "^distinct is empty: an empty label names no failure domain"
    for call in (lambda: hrw.place(view, [b"k"], distinct=""),
                 lambda: hrw.select(view, b"k", distinct=""),
                 lambda: hrw.plan(view, view, [b"k"], distinct="")):
        with pytest.raises(ValueError, match=message):
            call()
    assert len(hrw.place(view, [b"k"], distinct=None)) == 1


@pytest.mark.parametrize("text", [
    '{"nodes": [{"id": "a"}, {"id": "a"}]}',
    '{"nodes": [{"id": "a", "weight": -1}]}',
    '{"nodes": []}',
    '{"nodes": [{"id": "a"}], "hash": "md5"}',
    '{"nodes": [{"id": "a"}],, }',
    '{"nodes": [{"id": "a"}], "colour": 1}',
])
def test_bad_views_raise_value_error_with_the_cli_message(tmp_path, text):
    path = tmp_path / "bad.json"
    path.write_text(text)
    write_keys_csv(tmp_path / "k.csv", [b"k"])
    expected = cli_error("place", "--cluster", path, "--keys", tmp_path / "k.csv", "--out", "-")
    for given in (str(path), path):
        with pytest.raises(ValueError) as e:
            hrw.ClusterView.from_json(given)
        assert str(e.value) == expected


def test_views_from_dict_and_ids_and_pickling():
    import pickle
    d = {"version": 3, "seed": "s", "hash": "fnv1a", "nodes": [{"id": "b", "zone": "1", "weight": 2.5}, "a"]}
    v = hrw.ClusterView.from_dict(d)
    assert (v.ids, v.version, v.seed, v.hash, v.weighted) == ([b"a", b"b"], 3, b"s", "fnv1a", True)
    w = pickle.loads(pickle.dumps(v))
    assert (w.ids, w.version, w.seed, w.hash, w.weights) == (v.ids, 3, b"s", "fnv1a", [1.0, 2.5])
    keys = [b"k%d" % i for i in range(1000)]
    assert np.array_equal(hrw.place(w, keys, replicas=2, distinct="zone", partial=True),
                          hrw.place(v, keys, replicas=2, distinct="zone", partial=True))
    ids = hrw.ClusterView.from_ids([b"x\xff", "y"], seed="s", version=9, weights=[1, 0.25])
    assert ids.ids == [b"x\xff", b"y"] and ids.weighted and ids.version == 9
    with pytest.raises(ValueError, match="weights: 1 weights for 2 nodes"):
        hrw.ClusterView.from_ids(["x", "y"], weights=[1])
    with pytest.raises(ValueError, match="duplicate"):
        hrw.ClusterView.from_ids(["x", "x"])
    with pytest.raises(TypeError):
        hrw.ClusterView.from_dict({"nodes": [{"id": b"bytes"}]})
    assert hrw.__version__ == hrw._hrw.__version__ and hrw.__version__.count(".") == 2


def test_the_gil_is_released_while_the_engine_runs():
    """Another Python thread keeps running during hrw.place (it could not if the call held
    the GIL: the counter would not move between the two reads around the call)."""
    import threading
    view = hrw.ClusterView.from_ids([f"node-{i}" for i in range(100)])
    n = 4_000_000
    data = np.frombuffer(np.arange(n, dtype=np.uint64).tobytes(), dtype=np.uint8)
    offsets = np.arange(0, 8 * (n + 1), 8, dtype=np.int64)
    counter, done = [0], threading.Event()

    def spin():
        while not done.is_set():
            counter[0] += 1

    t = threading.Thread(target=spin)
    t.start()
    try:
        before = counter[0]
        hrw.place(view, (data, offsets), threads=1)
        during = counter[0] - before
    finally:
        done.set()
        t.join()
    assert during > 1000, during


def test_odd_inputs_raise_and_never_crash(view):
    odd = [None, 3, 2.5, object(), {"a"}, [None], [[b"a"]], (np.zeros(3, np.uint8),),
           (np.zeros(3, np.uint8), np.zeros(0, np.int64)), np.array(b"abc"), np.zeros((2, 2), "S1"),
           (np.zeros(3, np.uint8), np.zeros((2, 2), np.int64)), ["\ud800"], np.array([1.5, 2.5])]
    for keys in odd:
        with pytest.raises((TypeError, ValueError)):
            hrw.place(view, keys)
    for bad in [dict(replicas=-1), dict(replicas=2**40), dict(distinct=3), dict(threads=-1)]:
        with pytest.raises((TypeError, ValueError)):
            hrw.place(view, [b"k"], **bad)


def test_none_for_a_view_is_a_type_error_not_a_crash(view):
    """None where a view goes once reached C++ as a null view and killed the interpreter."""
    calls = [lambda: hrw.place(None, [b"k"]),
             lambda: hrw.select(None, b"k"),
             lambda: hrw.plan(view, None, [b"k"]),
             lambda: hrw.plan(None, view, [b"k"]),
             lambda: hrw.plan(view, None, [b"k"], out="unused")]
    for call in calls:
        with pytest.raises(TypeError):
            call()
