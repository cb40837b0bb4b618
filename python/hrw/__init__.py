"""hrw: rendezvous (highest-random-weight) placement, the engine of the `hrw` CLI.

    view = hrw.ClusterView.from_json("a.json")
    owners = hrw.place(view, keys)            # numpy uint32, indices into view.ids
    hrw.select(view, b"user:42")              # the fields of `hrw select --format json`
    summary, moved = hrw.plan(view_a, view_b, keys)

Every function gives the CLI's bits and counts. See docs/python.md.
"""
import contextlib as _contextlib
import json as _json
import warnings as _warnings

from ._hrw import (NO_NODE, ClusterView, __version__, active_target, compiled_targets,
                   force_target, place, runnable_targets)
from . import _hrw

__all__ = ["ClusterView", "NO_NODE", "__version__", "active_target", "compiled_targets",
           "force_target", "place", "plan", "runnable_targets", "select", "target"]


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


def plan(view_a, view_b, keys, replicas=None, distinct=None, partial=False, threads=0,
         batch_size=1000, engine="simd"):
    """The migration plan of `keys` from view_a to view_b, as `hrw plan` computes it.

    Returns (summary, moved): summary is a dict with the fields of summary.json; moved is
    an int64 array of the indices of the keys whose owner (replica set when replicas > 1)
    changes. Warns (UserWarning) when the views hash keys differently, as the CLI does.
    """
    warning = _hrw._incompatibility_warning(view_a, view_b)
    if warning:
        _warnings.warn(warning, stacklevel=2)
    summary, moved, _ = _hrw._plan_part(view_a, view_b, keys, replicas=replicas,
                                        distinct=distinct, partial=partial, threads=threads,
                                        batch_size=batch_size, engine=engine)
    return _json.loads(summary), moved.view("int64")
