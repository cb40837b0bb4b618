"""docs/errors.md, "Outputs": the Python and Dask functions, as the CLI, never write over one
of their own inputs nor replace a folder that holds one; each refusal names the keywords,
and the input is left as it was."""
import os

import pytest

import hrw
import hrw.dask
from conftest import run_cli, write_view


@pytest.fixture
def files(tmp_path):
    a = write_view(tmp_path / "a.json", {"version": 1, "nodes": ["n1", "n2", "n3"]})
    b = write_view(tmp_path / "b.json", {"version": 2, "nodes": ["n1", "n2", "n3", "n4"]})
    keys = tmp_path / "keys.txt"
    keys.write_text("".join(f"k{i}\n" for i in range(200)))
    run_cli("place", "--cluster", tmp_path / "a.json", "--keys", keys, "--out", tmp_path / "now.csv", "--quiet")
    run_cli("plan", "--from", tmp_path / "a.json", "--to", tmp_path / "b.json", "--keys", keys,
            "--out", tmp_path / "plan", "--quiet")
    return dict(tmp=tmp_path, a=a, b=b, keys=keys, now=tmp_path / "now.csv")


def unchanged(path):
    """The file's bytes now, to compare after a refused call."""
    return path.read_bytes()


def test_plan_out_holding_a_view_is_refused(files):
    tmp = files["tmp"]
    before = unchanged(tmp / "a.json")
    with pytest.raises(ValueError, match=r'view_a ".*a\.json" is inside the out folder'):
        hrw.plan(files["a"], files["b"], [b"k1", b"k2"], out=str(tmp))
    with pytest.raises(ValueError, match=r"svg and view_b name the same file"):
        hrw.plan(files["a"], files["b"], [b"k1"], out=str(tmp / "p2"), svg=str(tmp / "b.json"))
    assert unchanged(tmp / "a.json") == before


def test_plan_from_placement_out_holding_the_placement_is_refused(files):
    tmp = files["tmp"]
    before = unchanged(files["now"])
    with pytest.raises(ValueError, match=r'placement ".*now\.csv" is inside the out folder'):
        hrw.plan_from_placement(str(files["now"]), files["b"], out=str(tmp))
    with pytest.raises(ValueError, match=r"svg and placement name the same file"):
        hrw.plan_from_placement(str(files["now"]), files["b"], out=str(tmp / "p3"), svg=str(files["now"]))
    assert unchanged(files["now"]) == before


def test_check_misplaced_over_an_input_is_refused(files):
    tmp = files["tmp"]
    before = unchanged(files["now"]), unchanged(tmp / "b.json")
    with pytest.raises(ValueError, match="misplaced and placement name the same file"):
        hrw.check(files["b"], str(files["now"]), misplaced=str(files["now"]))
    with pytest.raises(ValueError, match="misplaced and view name the same file"):
        hrw.check(files["b"], str(files["now"]), misplaced=str(tmp / "b.json"))
    os.link(files["now"], tmp / "hard.csv")  # a hard link is the same file
    with pytest.raises(ValueError, match="misplaced and placement name the same file"):
        hrw.check(None, str(files["now"]), plan=str(tmp / "plan"), through_round=0,
                  misplaced=str(tmp / "hard.csv"))
    assert (unchanged(files["now"]), unchanged(tmp / "b.json")) == before


def test_dask_files_out_holding_the_keys_is_refused(files):
    tmp = files["tmp"]
    before = unchanged(files["keys"])
    with pytest.raises(ValueError, match=r'paths ".*keys\.txt" is inside the out folder'):
        hrw.dask.place_files([str(files["keys"])], files["b"], out=str(tmp))
    with pytest.raises(ValueError, match=r'paths ".*keys\.txt" is inside the out folder'):
        hrw.dask.plan_files([str(files["keys"])], files["a"], files["b"], out=str(tmp))
    with pytest.raises(ValueError, match="svg and paths name the same file"):
        hrw.dask.plan_files([str(files["keys"])], files["a"], files["b"], out=str(tmp / "d"),
                            svg=str(files["keys"]))
    assert unchanged(files["keys"]) == before
    assert not (tmp / "d").exists()
