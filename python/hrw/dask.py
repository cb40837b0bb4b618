"""hrw over Dask DataFrames: placement and migration plans computed partition by
partition on the workers, with exactly the bits and counts of the CLI.

    ddf2 = hrw.dask.place(ddf, view, column="key", replicas=1)
    summary = hrw.dask.plan(ddf, view_a, view_b, column="key", out="DIR", batch_size=1000)

Views travel to the workers once per task graph: each view is one named key of the graph
(dask.delayed of the view, which pickles as its validated spec), and every partition's task
depends on that key, so a worker receives it once however many partitions it runs.
"""
import os

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from . import NO_NODE, _hrw
from ._dask_shared import (_check_bytes_for, _check_view, _cli_plan_folder, _first_rows, _plan_part_path, _publish,
                           _publish_all_moves, _refuse_staged, _schedule, _shipped, _warn_incompatible,
                           _write_file)
from .dask_files import place_files, plan_files

__all__ = ["place", "plan", "place_files", "plan_files"]


def _check_frame(ddf, column):
    if not isinstance(ddf, dd.DataFrame):
        raise TypeError(f"expected a dask DataFrame, got {type(ddf).__name__}")
    if column not in ddf.columns:
        raise ValueError(f"column {column!r} is not in the frame (columns: {', '.join(map(str, ddf.columns))})")
    dtype = ddf[column].dtype
    if not (dtype == object or pd.api.types.is_string_dtype(dtype) or getattr(dtype, "kind", "") in "SU"):
        raise TypeError(f"column {column!r} has dtype {dtype}: keys must be bytes or str")


def _load_column(ddf, name):
    """Per-key loads: the frame's `bytes` / `requests` column, if it has one."""
    if name not in ddf.columns:
        return False
    if not pd.api.types.is_integer_dtype(ddf[name].dtype):
        raise TypeError(f"column {name!r} has dtype {ddf[name].dtype}: loads must be integers")
    return True


def _node_names(view):
    # Ids are bytes; as strings, bytes that are not UTF-8 become lone surrogates, which
    # hrw reads back as the same bytes (str keys are encoded with surrogateescape).
    return np.array([i.decode("utf-8", "surrogateescape") for i in view.ids] + [""], dtype=object)


def _place_partition(df, view, column, names, replicas, distinct, partial, threads):
    nodes = _hrw.place(view, df[column], replicas=replicas, distinct=distinct, partial=partial,
                       threads=threads)
    ids = _node_names(view)
    index = np.where(nodes == NO_NODE, len(ids) - 1, nodes).reshape(len(df), -1)
    out = df.copy()
    for j, name in enumerate(names):
        out[name] = ids[index[:, j]]
    return out


def place(ddf, view, column="key", replicas=None, distinct=None, partial=False, threads=1):
    """Adds the owner column ("owner"; with replicas > 1, "replica_1".."replica_R") of every
    key: node ids as str, "" where a partial result has no node. threads: engine threads
    per task (Dask already runs partitions in parallel). A view with a rule (contract §8)
    places by it; replicas=None means 1 for a view without one."""
    _check_frame(ddf, column)
    _check_view(view, "view")
    # The request the view places by (its rule, or these arguments); refused now if bad.
    r = _hrw._resolve_request(view, replicas=replicas, distinct=distinct, partial=partial)
    replicas, distinct, partial = r["replicas"], r["distinct"], r["partial"]
    names = ["owner"] if replicas == 1 else [f"replica_{j}" for j in range(1, replicas + 1)]
    meta = ddf._meta.copy()
    for name in names:
        meta[name] = pd.Series(dtype=object)
    return ddf.map_partitions(_place_partition, _shipped(view), column, names, replicas,
                              distinct, partial, threads, meta=meta)


# ---- plan: two passes over the partitions in one graph ----
# Count each partition, then write its rows from its first row, merge the summaries, join
# the rows into moves.csv and publish the folder as one unit: docs/python.md, "hrw.dask".

def _part_options(o):
    return dict(replicas=o["replicas"], distinct=o["distinct"], partial=o["partial"],
                threads=o["threads"], batch_size=o["batch_size"], allow_single_copy=o["allow_single_copy"])


def _count_part(df, view_a, view_b, o):
    loads = {}
    for name in ("bytes", "requests"):
        if o[name]:
            if len(df) and df[name].min() < 0:
                raise ValueError(f"column {name!r} holds negative values")
            loads[name] = df[name].to_numpy(dtype=np.uint64)
    keys = df[o["column"]].to_numpy(dtype=object)
    summary, moved, _ = _hrw._plan_part(view_a, view_b, keys, **loads, **_part_options(o))
    # The moved keys with their loads: moves.csv rows carry the input's bytes/requests.
    return summary, (keys[moved], {name: values[moved] for name, values in loads.items()})


def _write_part(moved, view_a, view_b, first_rows, index, path, o):
    keys, loads = moved
    _, _, rows = _hrw._plan_part(view_a, view_b, keys, **loads, first_row=first_rows[index],
                                 rows=True, **_part_options(o))
    header = _hrw._moves_header(bytes="bytes" in loads, requests="requests" in loads)
    _write_file(path, header + rows)
    return path


def _merge(view_a, view_b, o, summaries, written, build):
    summary = _hrw._merge_summaries(view_a, view_b, o["replicas"], o["batch_size"], summaries,
                                    distinct=o["distinct"], partial=o["partial"],
                                    allow_single_copy=o["allow_single_copy"])
    return _cli_plan_folder(build, view_a, view_b, written, summary)


def plan(ddf, view_a, view_b, column="key", out=None, batch_size=1000, replicas=None,
         distinct=None, partial=False, threads=1, *, max_moves_per_node=None,
         max_bytes_per_node=None, max_moved_fraction=None, cap_by=None, node_bandwidth=None,
         transitions=False, svg=None, allow_single_copy=False, step_versions=None):
    """The migration plan of the frame's keys, partition by partition on the workers.

    Writes the CLI's plan folder: out/moves.csv (each partition's rows written on its worker,
    then joined in partition order), out/summary.json, out/from.json and out/to.json, byte for
    byte `hrw plan`'s on the keys concatenated in partition order, and returns the summary.
    `bytes` and `requests` columns are used when the frame has them. `out` must be a folder
    every worker can write (shared storage). The folder is published as one unit, as the
    CLI's: the parts are written into a temp sibling of `out` and swapped in only when every
    partition succeeded (an error leaves the old folder exactly as it was); a folder that
    another run is publishing, or that holds files no plan writes, is a ValueError.

    Rounds, transitions and the SVG (max_moves_per_node, max_bytes_per_node, node_bandwidth,
    transitions, svg) need every move at once: the parallel pass keeps each partition's
    moved keys, and the client then writes the CLI's folder (moves.csv, summary.json,
    from.json, to.json, transitions.csv, the SVG) over the merged moves, byte for byte `hrw
    plan`'s. Staged plans (max_moved_fraction, cap_by) measure every key per step and are a
    ValueError here, with step_versions (hrw.plan(..., out=DIR) has them).
    """
    _refuse_staged("hrw.dask.plan", max_moved_fraction, cap_by, step_versions)
    schedule = _schedule(batch_size, max_moves_per_node=max_moves_per_node, max_bytes_per_node=max_bytes_per_node,
                         node_bandwidth=node_bandwidth, transitions=transitions, svg=svg)
    _check_frame(ddf, column)
    _check_view(view_a, "view_a")
    _check_view(view_b, "view_b")
    if not out:
        raise ValueError("out: give the output folder")
    # Refused now if bad; each view then places by its own rule (contract §8: a plan between
    # two rules migrates the rule), so every part gets the arguments as given.
    _hrw._resolve_request(view_a, view_b, replicas=replicas, distinct=distinct, partial=partial,
                          allow_single_copy=allow_single_copy)
    o = dict(column=column, replicas=replicas, distinct=distinct, partial=partial,
             threads=threads, batch_size=batch_size, allow_single_copy=allow_single_copy,
             bytes=_load_column(ddf, "bytes"), requests=_load_column(ddf, "requests"))
    _hrw._plan_part(view_a, view_b, [], **_part_options(o))  # refuse a bad request now
    _check_bytes_for(schedule, o["bytes"], "the frame")
    _warn_incompatible(view_a, view_b)
    folder = _hrw._PlanFolder(os.fspath(out))  # locked; refuses a folder that is not a plan's
    va, vb = _shipped(view_a), _shipped(view_b)
    parts = ddf.to_delayed()
    counted = [dask.delayed(_count_part, nout=2)(p, va, vb, o) for p in parts]
    if schedule:
        folder.close()  # checked now; _plan_folder locks and publishes it at the end
        results = dask.compute(*counted)
        keys = np.concatenate([r[1][0] for r in results]) if results else np.zeros(0, dtype=object)
        loads = {name: np.concatenate([r[1][1][name] for r in results]).astype(np.uint64)
                 for name in ("bytes", "requests") if o[name]}
        return _publish_all_moves(view_a, view_b, o, schedule, out, [r[0] for r in results], keys, loads)
    summaries = [c[0] for c in counted]
    first_rows = dask.delayed(_first_rows)(summaries)

    def graph(build):
        written = [dask.delayed(_write_part)(c[1], va, vb, first_rows, i, _plan_part_path(build, i), o)
                   for i, c in enumerate(counted)]
        return dask.delayed(_merge)(va, vb, o, summaries, written, build)
    return _publish(folder, "summary.json", graph)
