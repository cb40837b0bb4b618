"""hrw.plan(out=DIR), hrw.plan_from_placement and hrw.check write and report exactly what
`hrw plan --out DIR` and `hrw check` do: every file compared byte for byte with the CLI's."""
import json
import warnings

import numpy as np
import pytest

import hrw
from conftest import (cli_error, csv_field, random_keys, random_view_dict, run_cli, scaled,
                      write_keys_csv, write_view)
from test_select_plan import changed_view


def folder_files(root):
    """Every file under root, by relative path, with its bytes."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def assert_same_folder(got, expected):
    a, b = folder_files(got), folder_files(expected)
    assert sorted(a) == sorted(b)
    for name in b:
        assert a[name] == b[name], name


def cli_flags(options):
    """hrw.plan's keywords as `hrw plan`'s flags."""
    flags = []
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        if value is True:
            flags.append(flag)
        else:
            flags += [flag, value]
    return flags


def views(tmp_path, rng, nodes=None):
    a_dict = random_view_dict(rng, nodes=nodes or rng.randint(3, 9))
    b_dict = changed_view(rng, a_dict)
    return write_view(tmp_path / "a.json", a_dict), write_view(tmp_path / "b.json", b_dict)


# (hrw.plan keywords besides out, loads given)
PLANS = {
    "plain": ({"batch_size": 7, "transitions": True}, False),
    "loads, R = 2": ({"replicas": 2, "batch_size": 5, "transitions": True}, True),
    "rounds by moves": ({"max_moves_per_node": 3, "transitions": True}, False),
    "rounds by bytes": ({"max_bytes_per_node": 900, "node_bandwidth": 1000, "transitions": True}, True),
    "rounds R = 2": ({"replicas": 2, "max_moves_per_node": 4}, True),
    "staged by keys": ({"max_moved_fraction": 0.3, "batch_size": 11, "step_versions": 1000}, False),
    "staged by keys,bytes": ({"max_moved_fraction": 0.4, "cap_by": "keys,bytes", "transitions": True,
                              "step_versions": 2000}, True),
}


@pytest.mark.parametrize("case", sorted(PLANS))
def test_plan_folder_equals_cli(tmp_path, rng, case):
    options, with_loads = PLANS[case]
    a, b = views(tmp_path, rng)
    keys = random_keys(rng, scaled(300))
    loads = None
    if with_loads:
        loads = (np.array([rng.randint(0, 500) for _ in keys], dtype=np.uint64),
                 [rng.randint(0, 9) for _ in keys])  # numpy and a list
    write_keys_csv(tmp_path / "keys.csv", keys, loads)
    staged = "max_moved_fraction" in options
    if not staged:
        options = dict(options, svg=str(tmp_path / "cli" / "flows.svg"))
    run_cli("plan", "--from", tmp_path / "a.json", "--to", tmp_path / "b.json", "--keys",
            tmp_path / "keys.csv", "--out", tmp_path / "cli", "--quiet", *cli_flags(options))
    if not staged:
        options["svg"] = str(tmp_path / "py" / "flows.svg")
    extra = {"bytes": loads[0], "requests": loads[1]} if loads else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        summary = hrw.plan(a, b, keys, out=tmp_path / "py", **extra, **options)
    assert_same_folder(tmp_path / "py", tmp_path / "cli")
    assert summary == json.loads((tmp_path / "cli" / "summary.json").read_text())
    if not staged and "max_moves_per_node" not in options and "max_bytes_per_node" not in options:
        # Without out: the same summary, with the loads counted.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            counted, moved = hrw.plan(a, b, keys, replicas=options.get("replicas"),
                                      batch_size=options["batch_size"], **extra)
        summary.pop("transitions", None)  # transitions.csv's counts: written with out only
        assert counted == summary and len(moved) == summary["moved"]


def unique_keys(rng, n):
    """Random keys, each once: a placement file lists every key once."""
    return list(dict.fromkeys(random_keys(rng, n)))


def write_placement(path, keys, view, rng, replicas=1, loads=None):
    """CURRENT.csv: each key where `view` puts it, some elsewhere (a partial migration)."""
    ids = [i.decode() for i in view.ids]
    sets = hrw.place(view, keys, replicas=replicas).reshape(len(keys), replicas)
    cols = ["owner"] if replicas == 1 else [f"replica_{r + 1}" for r in range(replicas)]
    with open(path, "wb") as f:
        f.write(",".join(["key"] + cols + (["bytes"] if loads is not None else [])).encode() + b"\n")
        for i, k in enumerate(keys):
            holders = [ids[n] for n in sets[i]]
            if rng.random() < 0.2:
                holders[0] = "elsewhere-" + str(rng.randint(0, 3))
            row = [csv_field(k)] + [csv_field(h.encode()) for h in holders]
            if loads is not None:
                row.append(b"%d" % loads[i])
            f.write(b",".join(row) + b"\n")


@pytest.mark.parametrize("replicas,options", [(1, {"batch_size": 9, "transitions": True}),
                                              (2, {"max_bytes_per_node": 700}),
                                              (1, {"max_moves_per_node": 2, "transitions": True})])
def test_plan_from_placement_equals_cli(tmp_path, rng, replicas, options):
    a, b = views(tmp_path, rng, nodes=rng.randint(4, 9))
    keys = unique_keys(rng, scaled(200))
    loads = [rng.randint(0, 300) for _ in keys]
    write_placement(tmp_path / "current.csv", keys, a, rng, replicas, loads)
    run_cli("plan", "--from-placement", tmp_path / "current.csv", "--to", tmp_path / "b.json",
            "--out", tmp_path / "cli", "--quiet", *cli_flags(options))
    summary = hrw.plan_from_placement(tmp_path / "current.csv", b, out=tmp_path / "py", **options)
    assert_same_folder(tmp_path / "py", tmp_path / "cli")
    expected = json.loads((tmp_path / "cli" / "summary.json").read_text())
    assert summary == expected
    if "max_bytes_per_node" not in options and "max_moves_per_node" not in options:
        expected.pop("transitions", None)  # transitions.csv's counts: written with out only
        assert hrw.plan_from_placement(tmp_path / "current.csv", b, batch_size=options["batch_size"]) == expected


def test_check_equals_cli(tmp_path, rng):
    a, b = views(tmp_path, rng, nodes=6)
    keys = unique_keys(rng, scaled(200))
    for replicas in (1, 2):
        write_placement(tmp_path / "current.csv", keys, b, rng, replicas)
        code, out, _ = run_cli("check", "--cluster", tmp_path / "b.json", "--placement",
                               tmp_path / "current.csv", "--format", "json", ok=False)
        assert code == 3  # some keys are elsewhere
        assert hrw.check(b, tmp_path / "current.csv") == json.loads(out)
        assert hrw.check(b, tmp_path / "current.csv", replicas=replicas) == json.loads(out)
    # Against a plan after some rounds, with the misplaced keys' file.
    write_placement(tmp_path / "current.csv", keys, a, rng, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hrw.plan(a, b, keys, max_moves_per_node=2, transitions=True, out=tmp_path / "plan")
    for through in (0, 1, 3):
        code, out, _ = run_cli("check", "--plan", tmp_path / "plan", "--through-round", through,
                               "--placement", tmp_path / "current.csv", "--format", "json",
                               "--misplaced", tmp_path / "cli.csv", ok=False)
        assert code in (0, 3)
        got = hrw.check(None, tmp_path / "current.csv", plan=tmp_path / "plan", through_round=through,
                        misplaced=tmp_path / "py.csv")
        assert got == json.loads(out)
        assert (tmp_path / "py.csv").read_bytes() == (tmp_path / "cli.csv").read_bytes()


def test_check_staged_plan_equals_cli(tmp_path, rng):
    a, b = views(tmp_path, rng, nodes=5)
    keys = unique_keys(rng, scaled(200))
    write_placement(tmp_path / "current.csv", keys, a, rng, 1)
    hrw.plan(a, b, keys, max_moved_fraction=0.5, transitions=True, out=tmp_path / "plan", step_versions=1000)
    steps = sorted((tmp_path / "plan" / "steps").iterdir())
    for step in range(1, len(steps) + 1):
        code, out, _ = run_cli("check", "--plan", tmp_path / "plan", "--through-step", step,
                               "--placement", tmp_path / "current.csv", "--format", "json", ok=False)
        assert hrw.check(None, tmp_path / "current.csv", plan=tmp_path / "plan",
                         through_step=step) == json.loads(out)
    message = cli_error("check", "--plan", tmp_path / "plan", "--through-step", len(steps) + 1,
                        "--placement", tmp_path / "current.csv")
    with pytest.raises(ValueError) as e:
        hrw.check(None, tmp_path / "current.csv", plan=tmp_path / "plan", through_step=len(steps) + 1)
    assert str(e.value) == message.replace("--through-step", "through_step")
    with pytest.raises(ValueError, match="is a staged plan: give through_step=S"):
        hrw.check(None, tmp_path / "current.csv", plan=tmp_path / "plan", through_round=1)


BAD = [
    ({"bytes": [1, 2]}, ValueError, r"^bytes: 2 values for 13 keys$"),
    ({"requests": np.zeros(20, dtype=np.uint64)}, ValueError, r"^requests: 20 values for 13 keys$"),
    ({"bytes": [1] * 12 + [-1]}, ValueError, r"^bytes: value 12 is negative \(-1\)$"),
    ({"bytes": [1.5] * 13}, TypeError, r"^bytes: value 0 is float, not an integer$"),
    ({"bytes": [1] * 12 + [2**64]}, ValueError, r"^bytes: value 12 \(18446744073709551616\) is not in"),
    ({"max_moved_fraction": 0.5, "cap_by": "files"}, ValueError, r"^cap_by: must be keys, bytes or keys,bytes, got \"files\"$"),
    ({"cap_by": "bytes"}, ValueError, r"^cap_by requires max_moved_fraction$"),
    ({"step_versions": 5}, ValueError, r"^step_versions requires max_moved_fraction$"),
    ({"max_moved_fraction": 0.5, "step_versions": -1}, ValueError,
     r"^step_versions: must be an integer from 0 to 9223372036854775807, got -1$"),
    # The views' versions are consecutive: no room between them for the steps before B.
    ({"max_moved_fraction": 0.1}, ValueError,
     r"the plan has \d+ intermediate step view\(s\) .* or the first step version with step_versions$"),
    ({"max_moves_per_node": -1}, ValueError, r"^max_moves_per_node: must be an integer from 1 to 18446744073709551615, got -1$"),
    ({"max_bytes_per_node": 0, "bytes": [1] * 13}, ValueError, r"^max_bytes_per_node: must be an integer from 1 to 18446744073709551615, got 0$"),
    ({"max_moved_fraction": 0.0}, ValueError, r"^max_moved_fraction: must be a number in \(0, 1\], got 0$"),
    ({"max_moved_fraction": 1.5}, ValueError, r"^max_moved_fraction: must be a number in \(0, 1\], got 1.5$"),
    ({"max_moved_fraction": -0.2}, ValueError, r"^max_moved_fraction: must be a number in \(0, 1\], got -0.2$"),
    ({"batch_size": 0}, ValueError, r"^batch_size: must be an integer from 1 to 1000000000000, got 0$"),
    ({"batch_size": 10, "max_moves_per_node": 2}, ValueError, r"^batch_size excludes max_moves_per_node$"),
    ({"node_bandwidth": 10}, ValueError, r"^node_bandwidth: estimates rounds: give max_moves_per_node"),
    ({"max_bytes_per_node": 10}, ValueError, r"^keys: a per-node byte limit needs a bytes column in the keys$"),
    ({"max_moved_fraction": 0.5, "cap_by": "bytes"}, ValueError,
     r"^keys: a cap by bytes needs a bytes column in the keys$"),
    ({"max_moved_fraction": 0.5, "svg": "x.svg"}, ValueError, r"^svg is not written for staged plans$"),
    ({"replicas": 0}, ValueError, r"^replicas: must be an integer from 1 to 4294967295, got 0$"),
    ({"rounds": 3}, TypeError, r"unexpected keyword argument 'rounds'"),
]


@pytest.mark.parametrize("index", range(len(BAD)))
def test_bad_plan_options_are_named(tmp_path, rng, index):
    kwargs, error, pattern = BAD[index]
    a, b = views(tmp_path, rng, nodes=4)
    keys = [b"k%d" % i for i in range(13)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(error, match=pattern):
            hrw.plan(a, b, keys, out=tmp_path / "out", **kwargs)
    assert not (tmp_path / "out").exists()  # nothing published, no folder left behind


def test_folder_options_need_out(tmp_path, rng):
    a, b = views(tmp_path, rng, nodes=4)
    for name, value in [("max_moves_per_node", 2), ("max_bytes_per_node", 9), ("max_moved_fraction", 0.5),
                        ("cap_by", "keys"), ("node_bandwidth", 5), ("transitions", True), ("svg", "f.svg")]:
        with pytest.raises(ValueError, match=f"^{name}: written to a plan folder: give out=DIR$"):
            hrw.plan(a, b, [b"k"], **{name: value})
    with pytest.raises(ValueError, match="^transitions: written to a plan folder: give out=DIR$"):
        hrw.plan_from_placement(tmp_path / "none.csv", b, transitions=True)
    with pytest.raises(ValueError, match="^through_round goes with plan$"):
        hrw.check(b, tmp_path / "none.csv", through_round=1)
    with pytest.raises(ValueError, match="^check: give either a view or plan, not both$"):
        hrw.check(b, tmp_path / "none.csv", plan=tmp_path)


def test_placement_errors_are_the_clis(tmp_path, rng):
    a, b = views(tmp_path, rng, nodes=4)
    (tmp_path / "dup.csv").write_bytes(b"key,owner\nk,x\nk,y\n")
    for name in ("missing.csv", "dup.csv"):
        message = cli_error("plan", "--from-placement", tmp_path / name, "--to", tmp_path / "b.json",
                            "--out", tmp_path / "cli")
        with pytest.raises(ValueError) as e:
            hrw.plan_from_placement(tmp_path / name, b, out=tmp_path / "py")
        assert str(e.value) == message
        with pytest.raises(ValueError) as e:
            hrw.check(b, tmp_path / name)
        assert str(e.value) == cli_error("check", "--cluster", tmp_path / "b.json", "--placement", tmp_path / name)
    assert not (tmp_path / "py").exists()
    with pytest.raises(ValueError, match="^batch_size excludes max_bytes_per_node$"):
        hrw.plan_from_placement(tmp_path / "dup.csv", b, batch_size=5, max_bytes_per_node=9, out=tmp_path / "py")
    with pytest.raises(TypeError, match="unexpected keyword argument 'max_moved_fraction'"):
        hrw.plan_from_placement(tmp_path / "dup.csv", b, max_moved_fraction=0.5, out=tmp_path / "py")
