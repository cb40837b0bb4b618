"""hrw.dask.plan publishes its folder all or nothing, as the CLI does (docs/plan.md,
"Publication"): the partitions write into a locked temp sibling that is swapped in only when
every partition and the merge succeeded. A failed write leaves the old folder byte for byte
and no temp file anywhere; a plan with fewer partitions leaves none of the old ones."""
import fcntl
import json
import os

import dask
import dask.dataframe as dd
import pandas as pd
import pytest

import hrw
import hrw.dask


def views():
    a = hrw.ClusterView.from_ids([f"n{i}" for i in range(6)], version=1)
    b = hrw.ClusterView.from_ids([f"n{i}" for i in range(7)], version=2)
    return a, b


def frame(n, partitions, prefix="k"):
    df = pd.DataFrame({"key": [f"{prefix}:{i}" for i in range(n)]})
    return dd.from_pandas(df, npartitions=partitions, sort=False)


def tree(root):
    out = {}
    for d, dirs, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = fh.read()
    return out


@pytest.fixture(autouse=True)
def synchronous():
    # One process: the test's stand-in for a failing worker is seen by every task.
    with dask.config.set(scheduler="synchronous"):
        yield


def test_failed_partition_write_leaves_old_plan(tmp_path, monkeypatch):
    a, b = views()
    out = tmp_path / "plan"
    hrw.dask.plan(frame(4000, 5), a, b, out=str(out))
    before = tree(out)
    assert sorted(before) == ["from.json", "moves.csv", "summary.json", "to.json"]

    real = hrw.dask._write_part

    def failing(moved, va, vb, first_rows, index, path, o):
        if index == 2:
            with open(path, "wb") as f:  # a partial write, then the failure
                f.write(b"batch,key")
            raise OSError(28, "No space left on device")
        return real(moved, va, vb, first_rows, index, path, o)

    monkeypatch.setattr(hrw.dask, "_write_part", failing)
    with pytest.raises(OSError, match="No space left"):
        hrw.dask.plan(frame(3000, 4, prefix="other"), a, b, out=str(out))
    assert tree(out) == before  # no part of the new moves.csv beside the old summary
    assert sorted(os.listdir(tmp_path)) == ["plan"]  # no temp sibling, no .tmp-PID file


def test_fewer_partitions_leave_none_of_the_old_ones(tmp_path):
    a, b = views()
    out = tmp_path / "plan"
    hrw.dask.plan(frame(4000, 6), a, b, out=str(out))
    summary = hrw.dask.plan(frame(2000, 2), a, b, out=str(out))
    assert sorted(os.listdir(out)) == ["from.json", "moves.csv", "summary.json", "to.json"]
    with open(out / "summary.json") as f:
        assert json.load(f) == summary
    assert summary["keys"] == 2000
    assert len((out / "moves.csv").read_bytes().splitlines()) - 1 == summary["rows"]  # none of the old rows
    assert sorted(os.listdir(tmp_path)) == ["plan"]


def test_a_cli_plan_folder_is_replaced_as_a_whole(tmp_path):
    a, b = views()
    out = tmp_path / "plan"
    out.mkdir()
    (out / "moves.csv").write_text("batch,key,from,to\n")
    (out / "steps").mkdir()
    (out / "steps" / "01").mkdir()
    hrw.dask.plan(frame(1000, 2), a, b, out=str(out))
    assert sorted(os.listdir(out)) == ["from.json", "moves.csv", "summary.json", "to.json"]


def test_a_folder_with_other_files_is_refused(tmp_path):
    a, b = views()
    out = tmp_path / "plan"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n")
    with pytest.raises(ValueError, match='holds "notes.txt", which no plan writes'):
        hrw.dask.plan(frame(1000, 2), a, b, out=str(out))
    assert sorted(os.listdir(out)) == ["notes.txt"]
    assert sorted(os.listdir(tmp_path)) == ["plan"]


def test_a_folder_another_run_publishes_is_refused(tmp_path):
    a, b = views()
    out = tmp_path / "plan"
    hrw.dask.plan(frame(1000, 2), a, b, out=str(out))
    before = tree(out)
    fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with pytest.raises(ValueError, match="another hrw run is writing this plan folder"):
            hrw.dask.plan(frame(1000, 2), a, b, out=str(out))
    finally:
        os.close(fd)
    assert tree(out) == before
