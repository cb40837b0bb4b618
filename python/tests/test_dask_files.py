"""hrw.dask.place_files and plan_files: key files read in byte ranges by hrw's reader on
the workers equal `hrw place` / `hrw plan` on the files' records in order, byte for byte,
on a LocalCluster and on a scheduler and two workers started as OS processes (`dask
scheduler`, `dask worker`); bad input is one clear error and nothing is published."""
import json
import os
import random

import dask
import pytest

import hrw
import hrw.dask
from conftest import changed_views, csv_field, random_keys, run_cli, scaled, write_view

FILES = 7


def lines_text(keys, final_lf=True):
    text = b"".join(k + b"\n" for k in keys)
    return text if final_lf or not text else text[:-1]


def csv_text(keys, loads, header=b"key,bytes,requests\r\n"):
    rows = [csv_field(k) + b",%d,%d" % (loads[0][i], loads[1][i]) for i, k in enumerate(keys)]
    return header + b"".join(r + (b"\r\n" if i % 3 == 0 else b"\n") for i, r in enumerate(rows))


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """The same awkward keys as FILES lines files and as FILES CSV files (quoted LFs, commas,
    quotes, CRLF; one empty lines file), and each set's concatenation for the CLI."""
    rng = random.Random(19)
    tmp = tmp_path_factory.mktemp("files")
    a, b = changed_views(rng, tmp, nodes=9, version=7, drop=1, zone="z2", weight=2)
    keys = random_keys(rng, scaled(6000))
    loads = ([rng.randint(0, 10**9) for _ in keys], [rng.randint(0, 99) for _ in keys])
    # Lines cannot hold LF, and a final CR is taken for CRLF.
    line_keys = [k.replace(b"\n", b"") for k in keys]
    line_keys = [k[:-1] + b"r" if k.endswith(b"\r") else k for k in line_keys]
    cuts = sorted(rng.sample(range(1, len(keys)), FILES - 2)) + [len(keys)]
    cuts = [0, 0] + cuts  # file 0 is empty
    lines, csvs = [], []
    for f in range(FILES):
        lo, hi = cuts[f], cuts[f + 1]
        lines.append(tmp / f"keys-{f}.txt")
        lines[-1].write_bytes(lines_text(line_keys[lo:hi], final_lf=f != FILES - 1))
        csvs.append(tmp / f"keys-{f}.csv")
        csvs[-1].write_bytes(csv_text(keys[lo:hi], (loads[0][lo:hi], loads[1][lo:hi])))
    (tmp / "all.txt").write_bytes(lines_text(line_keys))
    (tmp / "all.csv").write_bytes(csv_text(keys, loads, header=b"key,bytes,requests\n"))
    return dict(tmp=tmp, a=a, b=b, lines=lines, csvs=csvs)


def parts_of(folder, prefix):
    names = sorted(n for n in os.listdir(folder) if n.startswith(prefix))
    assert names == [f"{prefix}{i:05d}.csv" for i in range(len(names))]
    return [(folder / n).read_bytes() for n in names]


def joined(parts):
    """The parts' rows after one header: every part starts with the same header line."""
    header = parts[0][:parts[0].index(b"\n") + 1]
    assert all(p.startswith(header) for p in parts)
    return header + b"".join(p[len(header):] for p in parts)


def plan_equals_cli(data, files, everything, out, blocksize, replicas=1, keys_format=None):
    tmp = data["tmp"]
    flags = ["--replicas", replicas, "--distinct", "zone"] if replicas > 1 else []
    run_cli("plan", "--from", tmp / "a.json", "--to", tmp / "b.json", "--keys", everything,
            "--batch-size", 50, "--out", tmp / "cli-plan", "--quiet", *flags)
    summary = hrw.dask.plan_files([str(p) for p in files], data["a"], data["b"], out=str(out),
                                  blocksize=blocksize, batch_size=50, keys_format=keys_format,
                                  replicas=replicas if replicas > 1 else None,
                                  distinct="zone" if replicas > 1 else None)
    assert summary == json.loads((tmp / "cli-plan" / "summary.json").read_bytes())
    assert (out / "summary.json").read_bytes() == (tmp / "cli-plan" / "summary.json").read_bytes()
    for name in ("moves.csv", "from.json", "to.json"):  # the CLI's folder
        assert (out / name).read_bytes() == (tmp / "cli-plan" / name).read_bytes()
    assert summary["rows"] > 0
    return summary


def place_equals_cli(data, files, everything, out, blocksize, replicas=1):
    tmp = data["tmp"]
    flags = ["--replicas", replicas, "--distinct", "zone"] if replicas > 1 else []
    run_cli("place", "--cluster", tmp / "b.json", "--keys", everything, "--out", tmp / "cli-place.csv",
            "--stats", tmp / "cli-stats.json", "--quiet", *flags)
    stats = hrw.dask.place_files([str(p) for p in files], data["b"], out=str(out), blocksize=blocksize,
                                 replicas=replicas if replicas > 1 else None,
                                 distinct="zone" if replicas > 1 else None)
    assert (out / "stats.json").read_bytes() == (tmp / "cli-stats.json").read_bytes()
    assert stats == json.loads((tmp / "cli-stats.json").read_bytes())
    assert joined(parts_of(out, "place-")) == (tmp / "cli-place.csv").read_bytes()
    return stats


# blocksize None reads each file whole; 311 and 1000 bytes split them at random-looking
# offsets (inside quoted fields, on CR, right after LF): every boundary case occurs.
@pytest.mark.parametrize("blocksize", [None, 311, 1000])
@pytest.mark.parametrize("kind", ["lines", "csv"])
def test_files_equal_the_cli_on_a_local_cluster(client, data, tmp_path, kind, blocksize):
    files, everything = (data["lines"], data["tmp"] / "all.txt") if kind == "lines" else \
        (data["csvs"], data["tmp"] / "all.csv")
    plan_equals_cli(data, files, everything, tmp_path / "plan", blocksize)
    place_equals_cli(data, files, everything, tmp_path / "place", blocksize)
    if blocksize:
        assert len(parts_of(tmp_path / "place", "place-")) > FILES  # the files were split (one part per range)


@pytest.mark.parametrize("kind", ["lines", "csv"])
def test_replica_sets_by_files(client, data, tmp_path, kind):
    files, everything = (data["lines"], data["tmp"] / "all.txt") if kind == "lines" else \
        (data["csvs"], data["tmp"] / "all.csv")
    plan_equals_cli(data, files, everything, tmp_path / "plan", 500, replicas=2)
    stats = place_equals_cli(data, files, everything, tmp_path / "place", 500, replicas=3)
    assert stats["replicas"] == 3


def test_a_glob_and_one_big_range_per_file(data, tmp_path):
    with dask.config.set(scheduler="synchronous"):
        stats = hrw.dask.place_files(str(data["tmp"] / "keys-*.txt"), data["b"], out=str(tmp_path / "p"))
    assert len(parts_of(tmp_path / "p", "place-")) == FILES
    assert stats["keys"] == sum(len(p.read_bytes().split(b"\n")) for p in data["lines"]) - FILES + 1


@pytest.mark.parametrize("kind", ["lines", "csv"])
def test_rounds_transitions_and_svg_over_files_equal_the_cli_folder(client, data, tmp_path, kind):
    files, everything = (data["lines"], data["tmp"] / "all.txt") if kind == "lines" else \
        (data["csvs"], data["tmp"] / "all.csv")
    tmp = data["tmp"]
    limit = ["--max-moves-per-node", "25"] if kind == "lines" else ["--max-bytes-per-node", "20000000000",
                                                                     "--node-bandwidth", "1000000"]
    cli, out = tmp_path / "cli", tmp_path / "dask"
    run_cli("plan", "--from", tmp / "a.json", "--to", tmp / "b.json", "--keys", everything, "--out", cli,
            "--quiet", "--transitions", "--svg", cli / "flows.svg", *limit)
    kwargs = dict(max_moves_per_node=25) if kind == "lines" else dict(max_bytes_per_node=20000000000,
                                                                      node_bandwidth=1000000)
    summary = hrw.dask.plan_files([str(p) for p in files], data["a"], data["b"], out=str(out), blocksize=300,
                                  transitions=True, svg=str(out / "flows.svg"), **kwargs)
    assert summary == json.loads((cli / "summary.json").read_bytes())
    assert summary["batches"] > 1 and "schedule" in json.dumps(summary) or summary["batches"] > 1
    assert sorted(os.listdir(out)) == sorted(os.listdir(cli))
    for f in os.listdir(cli):
        assert (out / f).read_bytes() == (cli / f).read_bytes(), f


# ---- errors: the first in input order, the CLI's words, nothing published ----

def tree(folder):
    return {n: (folder / n).read_bytes() for n in sorted(os.listdir(folder))}


@pytest.mark.parametrize("bad, blocksize", [(b"x,1,2,3\n", 900), (b"y,-5,1\n", 900), (b'"open,1,1\n', 900),
                                            (b"z,1,1\n", None)])
def test_a_malformed_row_in_one_range_is_the_clis_error(client, data, tmp_path, bad, blocksize):
    files = [tmp_path / f"k{i}.csv" for i in range(4)]
    good = [p.read_bytes() for p in data["csvs"][1:5]]
    for i, (path, text) in enumerate(zip(files, good)):
        if i == 2:  # the bad row in the middle of file 2, and a later one in file 3
            rows = text.split(b"\n")
            text = b"\n".join(rows[:len(rows) // 2]) + b"\n" + bad + b"\n".join(rows[len(rows) // 2:])
        if i == 3:
            text += b"late,error,here\n"
        path.write_bytes(text)
    everything = tmp_path / "all.csv"
    everything.write_bytes(good[0] + b"".join(f.read_bytes().split(b"\n", 1)[1] for f in files[1:]))
    out = tmp_path / "out"
    run_cli("plan", "--from", data["tmp"] / "a.json", "--to", data["tmp"] / "b.json", "--keys",
            files[0], "--out", out, "--quiet")
    before = tree(out)
    # The first error in input order: file 2's bad row, or (a good row) file 3's late one.
    expected_file = files[3] if bad == b"z,1,1\n" else files[2]
    code, _, err = run_cli("plan", "--from", data["tmp"] / "a.json", "--to", data["tmp"] / "b.json",
                           "--keys", expected_file, "--out", tmp_path / "cli", "--quiet", ok=False)
    assert code == 2
    expected = err[len("hrw: "):].strip()
    with pytest.raises(ValueError) as e:
        hrw.dask.plan_files([str(f) for f in files], data["a"], data["b"], out=str(out), blocksize=blocksize)
    assert str(e.value) == expected
    assert tree(out) == before  # the old plan, byte for byte, and no temp tree beside it
    assert [n for n in os.listdir(tmp_path) if n.startswith(".out.tmp")] == []
    with pytest.raises(ValueError) as e:
        hrw.dask.place_files([str(f) for f in files], data["b"], out=str(tmp_path / "place"), blocksize=blocksize)
    assert str(e.value) == expected
    assert not (tmp_path / "place").exists() or os.listdir(tmp_path / "place") == []


def test_a_quote_inside_an_unquoted_field_needs_the_whole_file(data, tmp_path):
    path = tmp_path / "bare.csv"
    path.write_bytes(b"key\n" + b"".join(b"k%d\n" % i for i in range(100)) + b'ab"c\n' +
                     b"".join(b"m%d\n" % i for i in range(100)))
    with dask.config.set(scheduler="synchronous"):
        with pytest.raises(ValueError, match=r"bare.csv: line 102: a quote inside an unquoted field.*"
                                             r"read this file whole"):
            hrw.dask.place_files([str(path)], data["b"], out=str(tmp_path / "split"), blocksize=64)
        stats = hrw.dask.place_files([str(path)], data["b"], out=str(tmp_path / "whole"), blocksize=None)
    assert stats["keys"] == 201


def test_bad_inputs_are_refused_before_any_task(data, tmp_path):
    a, b = data["a"], data["b"]
    lines = [str(p) for p in data["lines"]]
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (tmp_path / "keys.json").write_bytes(b"{}\n")
    (tmp_path / "other.csv").write_bytes(b"key\nk\n")
    cases = [
        (dict(paths=[str(tmp_path / "missing.txt")]), ValueError, "missing.txt: cannot open: No such file"),
        (dict(paths=str(tmp_path / "nothing-*.txt")), ValueError, "no file matches"),
        (dict(paths=[]), ValueError, "paths: no files given"),
        (dict(paths=[str(fifo)]), ValueError, "fifo: not a regular file"),
        (dict(paths=[str(tmp_path)]), ValueError, "not a regular file"),
        (dict(paths=lines + [str(tmp_path / "other.csv")]), ValueError, "is read as lines and"),
        (dict(paths=[str(tmp_path / "keys.json")]), ValueError, "JSON is not a keys format"),
        (dict(paths=lines, blocksize=0), ValueError, "blocksize must be a positive number"),
        (dict(paths=lines, blocksize="lots"), ValueError, ""),
        (dict(paths=lines, keys_format="json"), ValueError, "keys_format: unknown format"),
        (dict(paths=lines, replicas=0), ValueError, "replicas: must be an integer from 1 to 4294967295, got 0"),
        (dict(paths=lines, out=""), ValueError, "out: give the output folder"),
    ]
    for kwargs, error, words in cases:
        kwargs = dict(dict(out=str(tmp_path / "out")), **kwargs)
        paths = kwargs.pop("paths")
        with pytest.raises(error, match=words or None):
            hrw.dask.place_files(paths, b, **kwargs)
        with pytest.raises(error, match=words or None):
            hrw.dask.plan_files(paths, a, b, **kwargs)
    with pytest.raises(TypeError, match="hrw.ClusterView"):
        hrw.dask.place_files(lines, "view", out=str(tmp_path / "out"))
    with pytest.raises(ValueError, match="max_moved_fraction: not supported by hrw.dask.plan_files"):
        hrw.dask.plan_files(lines, a, b, out=str(tmp_path / "out"), max_moved_fraction=0.5)
    with pytest.raises(ValueError, match="max_bytes_per_node: needs a bytes column"):
        hrw.dask.plan_files(lines, a, b, out=str(tmp_path / "out"), max_bytes_per_node=10)
    with pytest.raises(ValueError, match="batch_size excludes max_moves_per_node"):
        hrw.dask.plan_files(lines, a, b, out=str(tmp_path / "out"), max_moves_per_node=10, batch_size=5)
    assert not (tmp_path / "out").exists() or os.listdir(tmp_path / "out") == []


def test_views_with_a_rule_and_cuts_by_files(client, data, tmp_path):
    """Contract §8 and §9 over files: each view places by its own rule (here a migration of
    the rule, 2 -> 3 replicas across zones) and its cuts count overflow keys, as the CLI."""
    tmp = data["tmp"]
    views = {}
    for name, version, n, replicas in (("ra", 3, 10, 2), ("rb", 4, 11, 3)):
        d = {"version": version, "seed": "s", "rule": {"replicas": replicas, "distinct": "zone"}, "nodes": []}
        for i in range(n):
            node = {"id": f"node-{i}", "zone": f"z{i % 4}"}
            if i % 2 == 0:
                node["cut"] = (2654435761 * (i + 1)) % 3000000000
            d["nodes"].append(node)
        views[name] = write_view(tmp / f"{name}.json", d)
    files = [str(p) for p in data["csvs"]]
    run_cli("plan", "--from", tmp / "ra.json", "--to", tmp / "rb.json", "--keys", tmp / "all.csv",
            "--out", tmp_path / "cli", "--quiet")
    summary = hrw.dask.plan_files(files, views["ra"], views["rb"], out=str(tmp_path / "plan"), blocksize=800)
    assert summary == json.loads((tmp_path / "cli" / "summary.json").read_bytes())
    assert "to_overflow_keys" in summary and summary["from_replicas"] == 2 and summary["replicas"] == 3
    assert "plain_moved" in summary  # contract §9, summed over the parts as the CLI counts it
    assert sorted(os.listdir(tmp_path / "plan")) == sorted(os.listdir(tmp_path / "cli"))
    for name in os.listdir(tmp_path / "cli"):
        assert (tmp_path / "plan" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()
    run_cli("place", "--cluster", tmp / "rb.json", "--keys", tmp / "all.csv", "--out", tmp_path / "p.csv",
            "--stats", tmp_path / "p.json", "--quiet")
    stats = hrw.dask.place_files(files, views["rb"], out=str(tmp_path / "place"), blocksize=800)
    assert stats == json.loads((tmp_path / "p.json").read_bytes()) and "overflow_keys" in stats
    assert joined(parts_of(tmp_path / "place", "place-")) == (tmp_path / "p.csv").read_bytes()


def test_views_are_one_key_of_each_graph(data, tmp_path, monkeypatch):
    """However many ranges, each view is one key of the graph that every range's task
    depends on: a worker receives it once (as hrw.dask.plan ships it)."""
    graphs = []

    def capture(folder, name, graph_of):
        graphs.append(dict(graph_of(folder.build).__dask_graph__()))
        folder.close()
        return {}
    monkeypatch.setattr(hrw.dask_files, "_publish", capture)
    files = [str(p) for p in data["csvs"]]
    hrw.dask.place_files(files, data["b"], out=str(tmp_path / "p"), blocksize=500)
    hrw.dask.plan_files(files, data["a"], data["b"], out=str(tmp_path / "q"), blocksize=500)
    for graph, views, task in zip(graphs, (1, 2), ("_place_task", "_plan_task")):
        view_keys = [k for k in graph if str(k).startswith("hrw-view-")]
        tasks = [k for k in graph if str(k).startswith(task)]
        assert len(view_keys) == views and len(tasks) > 2 * FILES
        for k in tasks:
            assert all(v in str(graph[k]) for v in view_keys)


def test_an_empty_csv_file_is_the_clis_error(data, tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    _, _, err = run_cli("place", "--cluster", data["tmp"] / "b.json", "--keys", empty, "--out", tmp_path / "x.csv",
                        ok=False)
    with dask.config.set(scheduler="synchronous"):
        with pytest.raises(ValueError) as e:
            hrw.dask.place_files([str(data["csvs"][1]), str(empty)], data["b"], out=str(tmp_path / "out"))
    assert str(e.value) == err[len("hrw: "):].strip() and "empty CSV" in str(e.value)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("codec", ["gzip", "zstd"])
@pytest.mark.parametrize("kind", ["lines", "csv"])
def test_compressed_files_are_one_task_each_and_equal_the_cli(data, tmp_path, kind, codec):
    """A compressed file's bytes are not its text's: Dask gives it one task, never byte
    ranges of the compressed bytes, and the results are the plain files' (docs/errors.md,
    "Compressed files"). Compressed here by Python's gzip module or the zstd tool."""
    import gzip
    import subprocess
    files, everything = (data["lines"], data["tmp"] / "all.txt") if kind == "lines" else \
        (data["csvs"], data["tmp"] / "all.csv")
    packed = []
    for f in files:
        out = tmp_path / (f.name + (".gz" if codec == "gzip" else ".zst"))
        if codec == "gzip":
            out.write_bytes(gzip.compress(f.read_bytes()))
        else:
            subprocess.run(["zstd", "-q", "-f", str(f), "-o", str(out)], check=True)
        packed.append(out)
    with dask.config.set(scheduler="synchronous"):
        plan_equals_cli(data, packed, everything, tmp_path / "plan", blocksize=50)
        place_equals_cli(data, packed, everything, tmp_path / "place", blocksize=50)
    assert len(parts_of(tmp_path / "place", "place-")) == FILES  # one task per file at any blocksize
    # The plain API reads a compressed placement file as the CLI reads the plain one.
    placement, unique = tmp_path / "placement.csv", tmp_path / "unique.txt"
    unique.write_bytes(b"".join(b"k%d\n" % i for i in range(3000)))
    run_cli("place", "--cluster", data["tmp"] / "a.json", "--keys", unique, "--out", placement, "--quiet")
    packed_placement = tmp_path / "placement.csv.gz"
    packed_placement.write_bytes(gzip.compress(placement.read_bytes()))
    hrw.plan_from_placement(str(packed_placement), data["b"], out=str(tmp_path / "resumed"))
    run_cli("plan", "--from-placement", placement, "--to", data["tmp"] / "b.json", "--out", tmp_path / "cli-resumed",
            "--quiet")
    assert (tmp_path / "resumed/moves.csv").read_bytes() == (tmp_path / "cli-resumed/moves.csv").read_bytes()
    summaries = [json.loads((tmp_path / d / "summary.json").read_bytes()) for d in ("resumed", "cli-resumed")]
    assert summaries[0].pop("from_placement") == str(packed_placement)  # the file's name, as given
    summaries[1].pop("from_placement")
    assert summaries[0] == summaries[1]


def test_a_truncated_compressed_file_names_its_offset(data, tmp_path):
    import gzip
    whole = gzip.compress(data["lines"][-1].read_bytes())
    cut = tmp_path / "cut.txt"
    cut.write_bytes(whole[:len(whole) // 2])
    with pytest.raises(ValueError, match=f"{cut}: truncated gzip data: the file ends at byte offset "
                                         f"{len(whole) // 2} inside a member"):
        with dask.config.set(scheduler="synchronous"):
            hrw.dask.place_files([str(cut)], data["b"], out=str(tmp_path / "p"))
    assert not (tmp_path / "p").exists()


def test_unknown_csv_columns_are_refused_unless_ignored(data, tmp_path):
    """docs/errors.md, "CSV columns": the CLI's rule and words, with the keyword's name."""
    rows = b"".join(b"k%d,%d,x\n" % (i, i) for i in range(500))
    keys = tmp_path / "keys.csv"
    keys.write_bytes(b"key,byte,note\n" + rows)
    expected = (f"{keys}: line 1: unknown column \"byte\" (did you mean \"bytes\"?): the columns read are "
                "key, bytes, requests; to skip it, add it to ignore_columns")
    with dask.config.set(scheduler="synchronous"):
        with pytest.raises(ValueError) as e:
            hrw.dask.place_files([str(keys)], data["b"], out=str(tmp_path / "p"))
        assert str(e.value) == expected
        with pytest.raises(ValueError, match="add it to ignore_columns"):
            hrw.dask.plan_files([str(keys)], data["a"], data["b"], out=str(tmp_path / "q"))
        stats = hrw.dask.place_files([str(keys)], data["b"], out=str(tmp_path / "p"), ignore_columns=["byte", "note"])
    assert stats["keys"] == 500 and "bytes" not in stats
    plain = tmp_path / "plain.txt"
    plain.write_bytes(b"".join(b"k%d\n" % i for i in range(500)))
    run_cli("place", "--cluster", data["tmp"] / "b.json", "--keys", plain, "--out", tmp_path / "cli.csv", "--quiet")
    assert joined(parts_of(tmp_path / "p", "place-")) == (tmp_path / "cli.csv").read_bytes()
    # Placement files, through plan_from_placement and check: a lone string is one name.
    current = tmp_path / "current.csv"
    current.write_bytes(b"key,owner,zone\n" + (tmp_path / "cli.csv").read_bytes().split(b"\n", 1)[1]
                        .replace(b"\n", b",z\n"))
    with pytest.raises(ValueError, match=r"unknown column \"zone\": .*add it to ignore_columns"):
        hrw.check(data["b"], str(current))
    report = hrw.check(data["b"], str(current), ignore_columns="zone")
    assert report["keys"] == 500 and report["misplaced"] == 0
    with pytest.raises(ValueError, match="add it to ignore_columns"):
        hrw.plan_from_placement(str(current), data["b"])
    assert hrw.plan_from_placement(str(current), data["b"], ignore_columns=("zone",))["moved"] == 0
