"""Numbers in the Python API and Dask: sums refused at 2^64 - 1 (never wrapped), replica
counts refused rather than clamped, and no oneTBB warning on stderr however many threads
are asked for (docs/errors.md: "Sums", "Threads")."""
import os
import subprocess
import sys

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import hrw
import hrw.dask

MAX = 2**64 - 1


def views():
    a = hrw.ClusterView.from_dict({"version": 1, "nodes": [{"id": "a"}, {"id": "b"}]})
    b = hrw.ClusterView.from_dict({"version": 2, "nodes": [{"id": "a"}, {"id": "b"}, {"id": "c"}]})
    return a, b


def test_merge_of_parts_whose_bytes_overflow_is_refused():
    a, b = views()
    big, _, _ = hrw._hrw._plan_part(a, b, [b"x"], bytes=np.array([MAX], dtype=np.uint64))
    one, _, _ = hrw._hrw._plan_part(a, b, [b"y"], bytes=np.array([1], dtype=np.uint64))
    assert '"bytes": 18446744073709551615' in big or '"bytes":18446744073709551615' in big
    with pytest.raises(ValueError, match=r"^plan part 1: the bytes total exceeds 2\^64 - 1$"):
        hrw._hrw._merge_summaries(a, b, 1, 1000, [big, one])
    merged = hrw._hrw._merge_summaries(a, b, 1, 1000, [big])
    assert "18446744073709551615" in merged


def test_dask_plan_whose_bytes_overflow_is_refused(tmp_path):
    a, b = views()
    frame = pd.DataFrame({"key": ["x", "y"], "bytes": np.array([MAX, 1], dtype=np.uint64)})
    ddf = dd.from_pandas(frame, npartitions=2)
    assert ddf.npartitions == 2
    with pytest.raises(ValueError, match=r"the bytes total exceeds 2\^64 - 1"):
        hrw.dask.plan(ddf, a, b, out=str(tmp_path / "plan"))
    assert not (tmp_path / "plan" / "summary.json").exists()
    # One partition of 2^64 - 1 bytes is exact.
    fits = dd.from_pandas(frame.iloc[:1], npartitions=1)
    summary = hrw.dask.plan(fits, a, b, out=str(tmp_path / "fits"))
    assert summary["bytes"] == MAX


def test_replica_counts_beyond_uint32_are_refused_not_clamped():
    a, _ = views()
    with pytest.raises(ValueError, match=r"^replicas: must be an integer from 1 to 4294967295, got 1099511627776$"):
        hrw.place(a, [b"x"], replicas=2**40)


def test_more_threads_than_cores_write_nothing_to_stderr():
    threads = 4 * (os.cpu_count() or 1) + 3
    code = (
        "import hrw\n"
        "v = hrw.ClusterView.from_dict({'version': 1, 'nodes': [{'id': 'n%d' % i} for i in range(16)]})\n"
        "keys = [b'key-%d' % i for i in range(200000)]\n"
        f"a = hrw.place(v, keys, threads={threads})\n"
        "b = hrw.place(v, keys, threads=1)\n"
        "assert (a == b).all()\n"
        f"s, m = hrw.plan(v, v, keys, threads={threads})\n"
        "assert s['moved'] == 0\n"
        "print('ok')\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, env=os.environ.copy())
    assert p.returncode == 0, p.stderr.decode()
    assert p.stdout == b"ok\n"
    assert p.stderr == b""


def test_loads_past_2_63_are_taken_exactly_as_the_docs_say(tmp_path):
    """bytes= takes every integer in [0, 2^64 - 1]: a list holding ones past 2^63 - 1 is not
    read as floats (which numpy guesses for it), and the sums are the CLI's."""
    a = hrw.ClusterView.from_dict({"version": 1, "nodes": ["a", "b"]})
    b = hrw.ClusterView.from_dict({"version": 2, "nodes": ["a", "b", "c"]})
    loads = [2**63, 2**63 - 2, 1]
    summary, _ = hrw.plan(a, b, [b"x", b"y", b"z"], bytes=loads)
    assert summary["bytes"] == 2**64 - 1
    with pytest.raises(TypeError, match="bytes: value 1 is float, not an integer"):
        hrw.plan(a, b, [b"x", b"y"], bytes=[2**63, 1.5])
    with pytest.raises(ValueError, match=r"bytes: value 0 \(18446744073709551616\) is not in \[0, 2\^64 - 1\]"):
        hrw.plan(a, b, [b"x", b"y"], bytes=[2**64, 1])
