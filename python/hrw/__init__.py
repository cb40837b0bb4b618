"""hrw: rendezvous (highest-random-weight) placement, the engine of the `hrw` CLI.

    view = hrw.ClusterView.from_json("a.json")
    owners = hrw.place(view, keys)            # numpy uint32, indices into view.ids
    hrw.select(view, b"user:42")              # the fields of `hrw select --format json`
    summary, moved = hrw.plan(view_a, view_b, keys)
    hrw.plan(view_a, view_b, keys, bytes=sizes, max_bytes_per_node=10**9, out="plan")  # hrw plan's folder
    hrw.plan_from_placement("current.csv", view_b, out="plan")
    hrw.check(view_b, "current.csv")                 # hrw check --format json

Every function gives the CLI's bits and counts. See docs/python.md.
"""
import contextlib as _contextlib
import json as _json
import os as _os
import warnings as _warnings

import numpy as _np

from . import _hrw
from ._arguments import name_argument_errors as _name_argument_errors

_name_argument_errors(_hrw)  # before the names below are bound
from ._hrw import (NO_NODE, ClusterView, __version__, active_target, compiled_targets,  # noqa: E402
                   force_target, place, runnable_targets)

__all__ = ["ClusterView", "NO_NODE", "__version__", "active_target", "check", "compiled_targets",
           "force_target", "place", "plan", "plan_from_placement", "runnable_targets", "select",
           "target"]


@_contextlib.contextmanager
def target(name):
    """Runs the block on the SIMD target `name`, then restores what was forced before
    (C++'s hrw::ScopedTarget). Every target places every key the same."""
    previous = _hrw._forced_target()
    force_target(name)
    try:
        yield active_target()
    finally:
        _hrw._force_target_bits(previous)


def select(view, key, replicas=None, distinct=None, partial=False):
    """One key's audit: a dict with the fields of `hrw select KEY --format json`."""
    return _json.loads(_hrw._select_json(view, key, replicas=replicas, distinct=distinct,
                                         partial=partial))


def _loads(name, values):
    """A bytes/requests column as a uint64 array, or None: numpy integers or a list of
    ints, each in [0, 2^64 - 1] (refused naming the argument and the first bad value).
    The engine checks the length against the keys, naming the argument too."""
    if values is None:
        return None
    array = _np.asarray(values)
    if array.dtype.kind == "f" and not isinstance(values, _np.ndarray):
        # A list with ints past 2^63 - 1 makes numpy guess float64 (losing the low bits):
        # each value is checked exactly instead, as Python objects.
        array = _np.array(values, dtype=object)
    if array.size == 0:
        return _np.zeros(array.shape, dtype=_np.uint64)
    if array.dtype.kind == "u":
        return _np.ascontiguousarray(array, dtype=_np.uint64)
    if array.dtype.kind == "i":
        negative = _np.flatnonzero(array.ravel() < 0)
        if negative.size:
            raise ValueError(f"{name}: value {negative[0]} is negative ({array.ravel()[negative[0]]})")
        return _np.ascontiguousarray(array, dtype=_np.uint64)
    if array.dtype.kind != "O":
        raise TypeError(f"{name}: non-negative integers expected, got dtype {array.dtype}")
    flat = array.ravel()
    for i, v in enumerate(flat):  # Python ints beyond int64 (numpy keeps them as objects)
        if not isinstance(v, int) or isinstance(v, bool):
            raise TypeError(f"{name}: value {i} is {type(v).__name__}, not an integer")
        if not 0 <= v < 2**64:
            raise ValueError(f"{name}: value {i} ({v}) is not in [0, 2^64 - 1]")
    return _np.array(flat.tolist(), dtype=_np.uint64).reshape(array.shape)


def _path(value):
    return None if value is None else _os.fspath(value)


def _column_list(columns):
    """ignore_columns as a list of names: a lone string is one name, not its letters."""
    return [columns] if isinstance(columns, str) else list(columns)


def _folder_only(out, **given):
    """The options whose result is a plan folder's files: refused without `out`."""
    if out is None:
        for name, value in given.items():
            if value not in (None, False):
                raise ValueError(f"{name}: written to a plan folder: give out=DIR")


def plan(view_a, view_b, keys, replicas=None, distinct=None, partial=False, threads=0,
         batch_size=None, engine="simd", *, bytes=None, requests=None, max_moves_per_node=None,
         max_bytes_per_node=None, max_moved_fraction=None, cap_by=None, node_bandwidth=None,
         transitions=False, svg=None, out=None, allow_single_copy=False, step_versions=None):
    """The migration plan of `keys` from view_a to view_b, as `hrw plan` computes it.

    Without `out`: returns (summary, moved): summary is a dict with the fields of
    summary.json; moved is an int64 array of the indices of the keys whose owner (replica
    set when replicas > 1) changes. `bytes` / `requests` (one non-negative integer per key)
    are the keys CSV's columns.

    With `out=DIR`: writes the plan folder `hrw plan --out DIR` writes for these keys (the
    same files, byte for byte: moves.csv, summary.json, from.json, to.json, and with the
    options transitions.csv, the SVG, rounds, staged steps/NN/) and returns the dict of
    DIR/summary.json. Rounds (max_moves_per_node, max_bytes_per_node, node_bandwidth),
    staged plans (max_moved_fraction, cap_by, step_versions: the first intermediate step
    view's version), transitions and svg need `out`.

    Warns (UserWarning) when the views hash keys differently, or when view_b keeps fewer
    replicas of each key than view_a, as the CLI does; a plan to one replica of keys that had
    more is refused unless allow_single_copy=True (docs/plan.md, "Losing replicas").
    """
    _folder_only(out, max_moves_per_node=max_moves_per_node, max_bytes_per_node=max_bytes_per_node,
                 max_moved_fraction=max_moved_fraction, cap_by=cap_by, node_bandwidth=node_bandwidth,
                 transitions=transitions, svg=svg, step_versions=step_versions)
    bytes, requests = _loads("bytes", bytes), _loads("requests", requests)
    if max_moved_fraction is None:  # a staged plan refuses such views in its own words
        warning = _hrw._incompatibility_warning(view_a, view_b)
        if warning:
            _warnings.warn(warning, stacklevel=2)
    if out is None:
        if batch_size is None:
            batch_size = 1000
        summary, moved, _ = _hrw._plan_part(view_a, view_b, keys, bytes=bytes, requests=requests,
                                            replicas=replicas, distinct=distinct, partial=partial,
                                            threads=threads, batch_size=batch_size, engine=engine,
                                            allow_single_copy=allow_single_copy)
        return _json.loads(summary), moved.view("int64")
    return _json.loads(_hrw._plan_folder(
        view_a, view_b, keys, bytes=bytes, requests=requests, replicas=replicas, distinct=distinct,
        partial=partial, threads=threads, batch_size=batch_size, engine=engine,
        max_moves_per_node=max_moves_per_node, max_bytes_per_node=max_bytes_per_node,
        node_bandwidth=node_bandwidth, max_moved_fraction=max_moved_fraction, cap_by=cap_by,
        transitions=transitions, svg=_path(svg) or "", out=_path(out), allow_single_copy=allow_single_copy,
        step_versions=step_versions))


def plan_from_placement(placement, view_b, replicas=None, distinct=None, partial=False, threads=0,
                        batch_size=None, *, max_moves_per_node=None, max_bytes_per_node=None,
                        node_bandwidth=None, transitions=False, svg=None, out=None, ignore_columns=()):
    """`hrw plan --from-placement PLACEMENT --to B`: the moves that bring every key of the
    placement file (CSV key,owner or key,replica_1..R, optional bytes/requests) where
    view_b puts it. Returns the summary dict; with `out=DIR` writes the CLI's plan folder
    (byte for byte). Rounds, transitions and svg need `out`. `ignore_columns`: header
    columns to skip (any other column hrw does not read is refused)."""
    _folder_only(out, max_moves_per_node=max_moves_per_node, max_bytes_per_node=max_bytes_per_node,
                 node_bandwidth=node_bandwidth, transitions=transitions, svg=svg)
    return _json.loads(_hrw._plan_from_placement(
        _path(placement), view_b, replicas=replicas, distinct=distinct, partial=partial,
        threads=threads, batch_size=batch_size, max_moves_per_node=max_moves_per_node,
        max_bytes_per_node=max_bytes_per_node, node_bandwidth=node_bandwidth,
        transitions=transitions, svg=_path(svg) or "", out=_path(out),
        ignore_columns=_column_list(ignore_columns)))


def check(view, placement, replicas=None, distinct=None, partial=False, threads=0, *, plan=None,
          through_round=None, through_step=None, misplaced=None, ignore_columns=()):
    """`hrw check --format json`: is every key of the placement file where `view` puts it?
    Returns the report dict (the CLI exits 3 when its "misplaced" count is not 0).

    With `plan=DIR` (view None): `hrw check --plan DIR --through-round N [--through-step S]`,
    every key where the plan puts it after those rounds. `misplaced=PATH` writes the CLI's
    key,expected,actual file (against the view, or the plan). `ignore_columns`: header columns of the placement file to
    skip (any other column hrw does not read is refused)."""
    if plan is None:
        for name, value in (("through_round", through_round), ("through_step", through_step)):
            if value is not None:
                raise ValueError(f"{name} goes with plan")
        if view is None:
            raise ValueError("check: give a view, or plan=DIR")
        return _json.loads(_hrw._check(view, _path(placement), replicas=replicas, distinct=distinct,
                                       partial=partial, threads=threads, ignore_columns=_column_list(ignore_columns),
                                       misplaced=_path(misplaced)))
    if view is not None:
        raise ValueError("check: give either a view or plan, not both")
    return _json.loads(_hrw._check_progress(
        _path(plan), _path(placement), through_round=through_round, through_step=through_step,
        misplaced=_path(misplaced), replicas=replicas, distinct=distinct, partial=partial,
        threads=threads, ignore_columns=_column_list(ignore_columns)))
