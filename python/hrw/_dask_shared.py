"""What hrw.dask's frame functions (dask.py) and file functions (dask_files.py) share: how a
view travels, the checks of a plan's options, and the publication of the output folder."""
import json
import os
import shutil
import warnings

import dask
import numpy as np
from dask.base import tokenize

from . import ClusterView, _hrw


def _check_view(view, name):
    if not isinstance(view, ClusterView):
        raise TypeError(f"{name} must be an hrw.ClusterView, got {type(view).__name__}")


def _shipped(view):
    """The view as one key of the task graph, named by its content."""
    return dask.delayed(view, name="hrw-view-" + tokenize(view.__getstate__()))


def _first_rows(summaries):
    rows = [json.loads(s)["rows"] for s in summaries]
    return [sum(rows[:i]) for i in range(len(rows))]


def _write_file(path, data):
    # Inside the unpublished tree: no temp name needed (publish() syncs every file).
    with open(path, "wb") as f:
        f.write(data)


def _plan_part_path(build, index):
    """Where a worker writes part `index` of moves.csv, inside the unpublished tree."""
    return os.path.join(build, f".moves-part-{index:05d}.csv")


def _cli_plan_folder(build, view_a, view_b, written, summary):
    """The CLI's plan folder (docs/plan.md, "The plan folder"), so that `hrw check --plan`
    and every tool read a Dask plan as `hrw plan`'s: the parts' rows after one header as
    moves.csv (each part starts with the same header), and both views as from.json and
    to.json, written by the one view serialiser. Returns `summary` (the merged JSON text)."""
    header = _hrw._moves_header(bytes="bytes" in json.loads(summary), requests="requests" in json.loads(summary))
    with open(os.path.join(build, "moves.csv"), "wb") as out:
        out.write(header)
        for path in written:
            with open(path, "rb") as part:
                if part.readline() != header:
                    raise RuntimeError(f"{path}: a plan part's header is not moves.csv's")
                shutil.copyfileobj(part, out, 1 << 20)
            os.remove(path)
    _write_file(os.path.join(build, "from.json"), view_a.to_json().encode())
    _write_file(os.path.join(build, "to.json"), view_b.to_json().encode())
    return summary


def _publish(folder, name, graph_of):
    """Computes graph_of(folder.build) (a delayed JSON text: the merged summary or stats, its
    parts written inside the unpublished tree), writes it there as `name` and swaps the
    folder in as a unit; on any error the folder is closed and its temp tree removed."""
    try:
        text = graph_of(folder.build).compute()
        _write_file(os.path.join(folder.build, name), text.encode())
        folder.publish()
    finally:
        folder.close()
    return json.loads(text)


def _refuse_staged(function, max_moved_fraction, cap_by, step_versions):
    for name, value in (("max_moved_fraction", max_moved_fraction), ("cap_by", cap_by),
                        ("step_versions", step_versions)):
        if value is not None:
            raise ValueError(f"{name}: not supported by {function}: a staged plan measures every "
                             "intermediate view over every key (use hrw.plan(..., out=DIR) or the CLI)")


def _schedule(batch_size, **options):
    """The options that need every move at once (rounds, transitions, the SVG), or None."""
    given = {k: v for k, v in options.items() if v is not None and v is not False}  # 0 is given
    if not given:
        return None
    limits = [k for k in ("max_moves_per_node", "max_bytes_per_node") if k in given]
    _hrw._check_schedule(options["max_moves_per_node"], options["max_bytes_per_node"],
                         options["node_bandwidth"], batch_size if limits and batch_size != 1000 else None)
    return options


def _check_bytes_for(schedule, has_bytes, what):
    """Byte limits and bandwidths need a bytes column: refused before any task."""
    for name in ("max_bytes_per_node", "node_bandwidth"):
        if schedule and schedule[name] is not None and not has_bytes:
            raise ValueError(f"{name}: needs a bytes column in the keys ({what} has none)")


def _publish_all_moves(view_a, view_b, o, schedule, out, summaries, keys, loads):
    """Rounds, transitions and the SVG over the merged moves (after the parallel pass, on
    the client): the moved keys of every part in input order, planned again by the CLI's
    writer, with the parts' merged counts as the summary (hrw::PlanJob::all_keys). The
    folder is the CLI's: moves.csv, summary.json, from.json, to.json, ... published whole."""
    svg = schedule["svg"]
    return json.loads(_hrw._plan_folder(
        view_a, view_b, keys, **loads, replicas=o["replicas"], distinct=o["distinct"],
        partial=o["partial"], threads=0,
        batch_size=None if schedule["max_moves_per_node"] or schedule["max_bytes_per_node"] else o["batch_size"],
        max_moves_per_node=schedule["max_moves_per_node"], max_bytes_per_node=schedule["max_bytes_per_node"],
        node_bandwidth=schedule["node_bandwidth"], transitions=schedule["transitions"],
        svg="" if svg is None else os.fspath(svg), out=os.fspath(out), parts=list(summaries),
        allow_single_copy=o["allow_single_copy"]))


def _concat_keys(pairs):
    """(data, offsets) pairs back to back: one (data, offsets)."""
    data = np.concatenate([d for d, _ in pairs]) if pairs else np.zeros(0, np.uint8)
    offsets, base = [np.zeros(1, np.int64)], 0
    for d, off in pairs:
        offsets.append(off[1:] + base)
        base += len(d)
    return data, np.concatenate(offsets)


def _warn_incompatible(view_a, view_b):
    warning = _hrw._incompatibility_warning(view_a, view_b)
    if warning:
        warnings.warn(warning, stacklevel=3)  # at the caller of hrw.dask.plan / plan_files
